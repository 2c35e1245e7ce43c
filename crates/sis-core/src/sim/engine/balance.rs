//! Load balancing: newidle pulls and the periodic LLC balance (the only writer of
//! nr_idle_scan).

use super::*;

/// What one balance pull did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pull {
    Moved,
    /// The busiest queue's tasks were all cache hot (task_hot()).
    Hot,
    Nothing,
}

impl Simulation {
    /// sched_balance_newidle's gate: a CPU whose recent idle periods are shorter than a balance
    /// of its LLC domain costs does not balance (linux-6.0 fair.c newidle_balance:
    /// `avg_idle < sd->max_newidle_lb_cost`; before 5.16 also `avg_idle < sysctl_sched_migration_cost`).
    pub(super) fn newidle_allowed(&self, cpu: u32) -> bool {
        let avg_idle = self.st.rqs[cpu as usize].avg_idle;
        // max_newidle_lb_cost: update_sd_lb_stats reads every runqueue of the span once.
        let lb_cost = self.max_newidle_lb_cost;
        avg_idle >= lb_cost
            && (!self.newidle_migration_cost_gate
                || avg_idle >= crate::kernel::state::MIGRATION_COST_NS)
    }

    /// sched_balance_newidle: pull one waiting task from the busiest CPU of the LLC, if it is
    /// not cache hot. (Newidle balance never writes nr_idle_scan, and never counts a failure:
    /// linux-5.19 fair.c load_balance, "Increment the failure counter only on periodic
    /// balance", so a newidle pull never takes a hot task.)
    pub(super) fn newidle_pull(&mut self, cpu: u32) -> bool {
        self.pull_one(cpu, false) == Pull::Moved
    }

    /// linux-5.19 fair.c task_hot(): a task that ran within sysctl_sched_migration_cost (500
    /// us) is cache hot (`rq_clock_task(env->src_rq) - p->se.exec_start`).
    fn task_hot(&self, task: u32) -> bool {
        let last = self.tasks[task as usize].last_ran_ns;
        last != 0 && self.now.saturating_sub(last) < crate::kernel::state::MIGRATION_COST_NS
    }

    /// The first task queued on `src` that may move to `cpu`: allowed there, and not cache
    /// hot unless `hot_ok` (linux-5.19 fair.c can_migrate_task(): `tsk_cache_hot <= 0 ||
    /// env->sd->nr_balance_failed > env->sd->cache_nice_tries`).
    fn movable_at(&self, src: u32, cpu: u32, hot_ok: bool) -> Option<u32> {
        let (tasks, masks) = (&self.tasks, &self.masks);
        let all_unpinned = self.all_unpinned;
        self.cpus[src as usize]
            .queue
            .iter(tasks)
            .position(|t| {
                (all_unpinned || masks[tasks[t as usize].affinity as usize].test(cpu))
                    && (hot_ok || !self.task_hot(t))
            })
            .map(|p| p as u32)
    }

    /// One balance pull onto idle `cpu`, as newidle_balance walks its domains from the lowest:
    /// the SMT domain first (a sibling with tasks waiting; from 5.10 task_hot() ignores an
    /// SMT domain's hotness, `env->sd->flags & SD_SHARE_CPUCAPACITY`), then the LLC domain's
    /// busiest queue, which moves a task only if one there is not cache hot (or `hot_ok`).
    fn pull_one(&mut self, cpu: u32, hot_ok: bool) -> Pull {
        let llc = self.cpus[cpu as usize].llc;
        if self.llc_load[llc as usize].waiting == 0 {
            return Pull::Nothing;
        }
        let smt_hot_ok = hot_ok || self.task_hot_ignores_smt;
        let sibling = self
            .st
            .topo
            .smt_siblings(cpu)
            .iter()
            .copied()
            .filter(|&s| s != cpu && self.waiting.test(s))
            .find_map(|s| self.movable_at(s, cpu, smt_hot_ok).map(|pos| (s, pos)));
        let (src, pos) = match sibling {
            Some(found) => found,
            None => {
                let Some(busiest) = self.busiest_waiting(cpu, llc) else {
                    return Pull::Nothing;
                };
                let Some(pos) = self.movable_at(busiest, cpu, hot_ok) else {
                    return Pull::Hot;
                };
                (busiest, pos)
            }
        };
        self.move_queued(src, pos, cpu, llc);
        Pull::Moved
    }

    /// The LLC domain's busiest queue for idle `cpu`: CPUs with tasks waiting behind a running
    /// one that `cpu` may run, found by bitmask search from cpu+1; the longest queue among the
    /// first few wins (the kernel looks for the busiest queue; this bounds the cost).
    fn busiest_waiting(&self, cpu: u32, llc: u32) -> Option<u32> {
        let mut best: Option<u32> = None;
        let mut looked = 0;
        let (cpus, tasks, masks) = (&self.cpus, &self.tasks, &self.masks);
        let all_unpinned = self.all_unpinned;
        let span = self.st.topo.llc_span(llc);
        self.waiting.for_each_wrap_and(span, cpu + 1, |src| {
            if src == cpu {
                return true;
            }
            let q = &cpus[src as usize].queue;
            // Every task may run anywhere (no pinned workload): the queue qualifies, as the
            // affinity search would find.
            let allowed = all_unpinned
                || q.iter(tasks)
                    .any(|t| masks[tasks[t as usize].affinity as usize].test(cpu));
            if allowed {
                if best.is_none_or(|b| cpus[b as usize].queue.len < q.len) {
                    best = Some(src);
                }
                looked += 1;
            }
            looked < 8
        });
        best
    }

    /// Moves the task at `pos` of `src`'s queue to idle `cpu` (detach_task, attach_task).
    fn move_queued(&mut self, src: u32, pos: u32, cpu: u32, llc: u32) {
        let task = self.cpus[src as usize]
            .queue
            .remove_at(&mut self.tasks, pos);
        self.sync_waiting(src);
        if self.cfs_on() {
            self.clear_buddies(src, task);
        }
        // The source keeps its running task (it was in `waiting`), so it stays busy.
        let src_rq = &mut self.st.rqs[src as usize];
        src_rq.nr_running -= 1;
        // SIS_FILTER v3 fair.c detach_tasks: `if (detached) update_overloaded_rq(env->src_rq)`.
        self.st.update_overloaded_rq(src);
        let src_rq = &mut self.st.rqs[src as usize];
        if self.st.features.util_est {
            // A migration dequeues without DEQUEUE_SLEEP: util_est_dequeue only
            // (util_est_update returns at `!task_sleep`); enqueue adds it on `cpu`.
            src_rq
                .pelt
                .util_est
                .dequeue(&self.tasks[task as usize].pelt.util_est);
        }
        debug_assert!(src_rq.nr_running > 0 && self.cpus[src as usize].curr.is_some());
        self.llc_change(llc as usize, 0, -1);
        if self.measuring {
            self.counters.balance_pulls += 1;
        }
        self.tasks[task as usize].prev = cpu;
        self.enqueue(task, cpu);
        // SIS_FILTER v3 fair.c attach_tasks: update_overloaded_rq(rq) under the dst lock.
        self.st.update_overloaded_rq(cpu);
    }

    /// Queues the next jiffy's scheduler_tick when the kernel acts there (SIS_FILTER's
    /// update_overloaded_rq; runqueue=cfs's check_preempt_tick) and none is queued.
    pub(super) fn arm_tick(&mut self) {
        if (self.st.features.sis_filter || self.cfs_on()) && !self.tick_armed {
            let jiffy_ns = 1_000_000_000 / self.scenario.hz as u64;
            self.tick_armed = true;
            self.push((self.now / jiffy_ns + 1) * jiffy_ns, Event::Tick);
        }
    }

    /// scheduler_tick() on every CPU: SIS_FILTER v3 core.c calls update_overloaded_rq(rq) there
    /// (an idle CPU's tick is stopped under NOHZ, and its bit was cleared at idle entry).
    pub(super) fn sched_tick(&mut self) {
        self.tick_armed = false;
        if self.cfs_on() {
            self.cfs_tick();
        }
        if self.st.features.sis_filter {
            for cpu in 0..self.st.topo.nr_cpus() {
                self.st.update_overloaded_rq(cpu);
            }
        }
        self.arm_tick();
    }

    /// Periodic balance of one group of an LLC domain: update nr_idle_scan (the only writer),
    /// let an idle balance CPU pull a waiting task, and re-arm at get_sd_balance_interval().
    pub(super) fn periodic_balance(&mut self, llc: u32, group: u32) {
        let span: Vec<u32> = self.st.topo.llc_span(llc).iter().collect();
        for &c in &span {
            self.update_cpu_pelt(c);
        }
        self.st.update_idle_cpu_scan(llc);
        self.llc_balances[llc as usize] += 1;
        let grp = &self.st.topo.llc_groups(llc)[group as usize];
        // should_we_balance(): the group's first idle CPU, else its first CPU.
        let balance_cpu = grp
            .iter()
            .copied()
            .find(|c| self.st.rqs[*c as usize].available_idle())
            .unwrap_or(grp[0]);
        let idle = self.st.rqs[balance_cpu as usize].available_idle();
        // The LLC domain's cache_nice_tries is 1 (sd_init: SD_SHARE_PKG_RESOURCES).
        let failed = self.nr_balance_failed[llc as usize][group as usize];
        let pull = if idle {
            self.pull_one(balance_cpu, failed > 1)
        } else {
            Pull::Nothing
        };
        // find_busiest_group() finds a busiest group when another group of the LLC has tasks
        // waiting; an idle balance CPU that could not pull then had them all pinned, unless
        // they were cache hot.
        let grp = &self.st.topo.llc_groups(llc)[group as usize];
        let busiest_found = pull != Pull::Nothing
            || (!idle
                && self
                    .st
                    .topo
                    .llc_span(llc)
                    .iter()
                    .any(|c| self.waiting.test(c) && !grp.contains(&c)));
        // linux-5.19 fair.c load_balance: a balance that found a busiest group and moved
        // nothing counts a failure (periodic balance only), one that moved resets the count,
        // and so does a balanced domain (out_balanced).
        self.nr_balance_failed[llc as usize][group as usize] = match pull {
            Pull::Moved => 0,
            _ if busiest_found => failed.saturating_add(1),
            _ => 0,
        };
        // linux-6.0 fair.c load_balance: "We were unbalanced, so reset the balancing interval"
        // whenever a busiest group was found, moved or not; out_balanced / all pinned double it.
        let w = self.scenario.llc_weight as u64;
        let bi = &mut self.balance_interval_ms[llc as usize][group as usize];
        *bi = if busiest_found {
            w
        } else {
            (*bi * 2).min(2 * w)
        };
        // get_sd_balance_interval(sd, busy)
        let hz = self.scenario.hz as u64;
        let mut interval_ms = *bi;
        if !idle {
            interval_ms *= self.scenario.busy_factor() as u64;
        }
        let mut jif = (interval_ms * hz).div_ceil(1000);
        if !idle {
            jif = jif.saturating_sub(1);
        }
        let max_lb = (hz * self.st.topo.nr_cpus() as u64 / 10).max(1);
        let jif = jif.clamp(1, max_lb);
        let next = self.now + jif * 1_000_000_000 / hz;
        self.push(next, Event::Balance { llc, group });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 CPUs (SMT2: 2 and 3 are siblings), two tasks of a uniform workload stacked on CPU 2 at
    /// 1 ms: `a` runs, `b` waits, having last run `ran_ago` ns before.
    fn stacked(preset: &str, ran_ago: u64) -> (Simulation, u32) {
        let sc = Scenario::from_pairs([
            ("llc_weight", "8"),
            ("smt", "2"),
            ("workload", "uniform"),
            ("tasks", "2"),
            ("preset", preset),
        ])
        .unwrap();
        let mut s = Simulation::new(&sc).unwrap();
        s.now = 1_000_000;
        let (a, b) = (0, 1);
        s.enqueue(a, 2);
        s.enqueue(b, 2);
        assert_eq!(s.tasks[b as usize].state, TaskState::Queued(2));
        assert!(s.waiting.test(2));
        s.tasks[b as usize].last_ran_ns = s.now - ran_ago;
        (s, b)
    }

    #[test]
    fn a_balance_pull_leaves_a_cache_hot_task_where_it_waits() {
        // linux-5.19 fair.c can_migrate_task() -> task_hot(): ran within
        // sysctl_sched_migration_cost (500 us) of now.
        for (ran_ago, moves) in [(499_999, false), (500_000, true)] {
            let (mut s, b) = stacked("linux-6.0", ran_ago);
            assert_eq!(s.task_hot(b), !moves);
            assert_eq!(s.newidle_pull(4), moves, "ran {ran_ago} ns ago");
            let want = if moves {
                TaskState::Running(4)
            } else {
                TaskState::Queued(2)
            };
            assert_eq!(s.tasks[b as usize].state, want);
            s.check_invariants().unwrap();
        }
        // A task that never ran is not hot (exec_start 0).
        let (mut s, b) = stacked("linux-6.0", 0);
        s.tasks[b as usize].last_ran_ns = 0;
        assert!(!s.task_hot(b));
        // Hot, it still moves when the balance's failures allow it (periodic balance:
        // nr_balance_failed > cache_nice_tries), and the pull says it found one hot.
        let (mut s, b) = stacked("linux-6.0", 1_000);
        assert_eq!(s.pull_one(4, false), Pull::Hot);
        assert_eq!(s.pull_one(4, true), Pull::Moved);
        assert_eq!(s.tasks[b as usize].state, TaskState::Running(4));
    }

    #[test]
    fn an_smt_sibling_pulls_a_hot_task_from_5_10() {
        // ec73240b1627 (5.10): task_hot() returns 0 in an SD_SHARE_CPUCAPACITY domain, and
        // newidle_balance() balances the SMT domain first.
        for (preset, moves) in [
            ("linux-6.0", true),
            ("linux-5.10", true),
            ("linux-4.14", false),
        ] {
            let (mut s, b) = stacked(preset, 1_000);
            assert_eq!(s.pull_one(3, false) == Pull::Moved, moves, "{preset}");
            assert_eq!(
                s.tasks[b as usize].state == TaskState::Running(3),
                moves,
                "{preset}"
            );
        }
    }

    #[test]
    fn periodic_balance_counts_failures_until_a_hot_task_may_move() {
        // linux-5.19 fair.c load_balance(): a periodic balance that found a busiest group and
        // moved nothing counts a failure; past cache_nice_tries (1 for the LLC domain) the
        // next one may move a hot task, and a move resets the count.
        let (mut s, b) = stacked("linux-6.0", 1_000);
        let (llc, group) = (0, 2); // CPUs 4 and 5: its balance CPU 4 is idle.
        assert_eq!(s.st.topo.llc_groups(llc)[group as usize], vec![4, 5]);
        for failed in [1, 2] {
            s.tasks[b as usize].last_ran_ns = s.now - 1_000;
            s.periodic_balance(llc, group);
            assert_eq!(s.nr_balance_failed[0][2], failed);
            assert_eq!(s.tasks[b as usize].state, TaskState::Queued(2));
        }
        s.tasks[b as usize].last_ran_ns = s.now - 1_000;
        s.periodic_balance(llc, group);
        assert_eq!(s.tasks[b as usize].state, TaskState::Running(4));
        assert_eq!(s.nr_balance_failed[0][2], 0);
    }
}
