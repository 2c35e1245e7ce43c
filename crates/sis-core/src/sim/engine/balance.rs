//! Load balancing: newidle pulls and the periodic LLC balance (the only writer of
//! nr_idle_scan).

use super::*;

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

    /// sched_balance_newidle: pull one waiting task from the busiest CPU of the LLC.
    /// (Newidle balance never writes nr_idle_scan.)
    pub(super) fn newidle_pull(&mut self, cpu: u32) -> bool {
        let llc = self.cpus[cpu as usize].llc;
        if self.llc_load[llc as usize].waiting == 0 {
            return false;
        }
        // Candidates: CPUs with tasks waiting behind a running one, found by bitmask search
        // from cpu+1; the longest queue among
        // the first few wins (the kernel looks for the busiest queue; this bounds the cost).
        let mut best: Option<(u32, u32)> = None;
        let mut looked = 0;
        let (cpus, tasks, masks) = (&self.cpus, &self.tasks, &self.masks);
        let all_unpinned = self.all_unpinned;
        let span = self.st.topo.llc_span(llc);
        self.waiting.for_each_wrap_and(span, cpu + 1, |src| {
            if src == cpu {
                return true;
            }
            let q = &cpus[src as usize].queue;
            // Every task may run anywhere (no pinned workload): the head of a waiting CPU's
            // queue qualifies, as the affinity search would find.
            let pos = if all_unpinned {
                debug_assert!(!q.is_empty());
                Some(0)
            } else {
                q.iter(tasks)
                    .position(|t| masks[tasks[t as usize].affinity as usize].test(cpu))
                    .map(|p| p as u32)
            };
            if let Some(pos) = pos {
                if best.is_none_or(|(b, _)| cpus[b as usize].queue.len < q.len) {
                    best = Some((src, pos));
                }
                looked += 1;
            }
            looked < 8
        });
        let Some((src, pos)) = best else {
            return false;
        };
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
        true
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
        let mut pulled = false;
        if idle {
            pulled = self.newidle_pull(balance_cpu);
        }
        // find_busiest_group() finds a busiest group when another group of the LLC has tasks
        // waiting; an idle balance CPU that could not pull then had them all pinned.
        let grp = &self.st.topo.llc_groups(llc)[group as usize];
        let busiest_found = pulled
            || (!idle
                && self
                    .st
                    .topo
                    .llc_span(llc)
                    .iter()
                    .any(|c| self.waiting.test(c) && !grp.contains(&c)));
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
