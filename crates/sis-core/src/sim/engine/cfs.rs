//! `runqueue=cfs`: CFS's vruntime order, the sleeper's placement and wake-up preemption, as
//! fair.c has them from 4.4 to 6.5 (cited from v5.19). All tasks are nice 0, so
//! `calc_delta_fair(delta, se)` is `delta` and a vruntime advances by the CPU time run.
//! Under the default `runqueue=fifo` none of this runs.

use super::*;

/// v5.19 fair.c: `sysctl_sched_latency` 6 ms, `sysctl_sched_wakeup_granularity` 1 ms, each
/// times get_update_sysctl_factor() (SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(CPUs, 8))).
#[derive(Clone, Copy, Debug)]
pub(super) struct CfsTunables {
    /// wakeup_gran(): how far ahead of a wakee the running task's vruntime must be for the
    /// wakee to preempt it, ns.
    pub(super) wakeup_gran_ns: u64,
    /// place_entity(): GENTLE_FAIR_SLEEPERS' credit, `sysctl_sched_latency >> 1`, ns.
    pub(super) sleeper_thresh_ns: u64,
    /// `sysctl_sched_latency` and `sysctl_sched_min_granularity` (0.75 ms times the factor),
    /// for sched_slice(), ns.
    pub(super) latency_ns: u64,
    pub(super) min_gran_ns: u64,
}

impl CfsTunables {
    pub(super) fn for_cpus(nr_cpus: u32) -> Self {
        // get_update_sysctl_factor(): cpus = min(num_online_cpus(), 8); 1 + ilog2(cpus).
        let factor = 1 + u64::from(nr_cpus.clamp(1, 8).ilog2());
        CfsTunables {
            wakeup_gran_ns: 1_000_000 * factor,
            sleeper_thresh_ns: 6_000_000 * factor / 2,
            latency_ns: 6_000_000 * factor,
            min_gran_ns: 750_000 * factor,
        }
    }

    /// v5.19 fair.c sched_slice() of a nice-0 task among `nr` (the running one included):
    /// __sched_period(nr) (sched_latency, or nr * min_granularity past sched_nr_latency = 8)
    /// shared equally, at least min_granularity (BASE_SLICE).
    pub(super) fn sched_slice(&self, nr: u64) -> u64 {
        let period = if nr > 8 {
            nr * self.min_gran_ns
        } else {
            self.latency_ns
        };
        (period / nr.max(1)).max(self.min_gran_ns)
    }
}

/// v5.19 fair.c entity_before(): vruntimes are u64 that may wrap, compared by their s64
/// difference.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub(super) fn vruntime_before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// v5.19 fair.c max_vruntime().
fn max_vruntime(a: u64, b: u64) -> u64 {
    if vruntime_before(a, b) {
        b
    } else {
        a
    }
}

/// v5.19 fair.c wakeup_preempt_entity(curr, se) == 1: `curr` is more than `gran` ahead.
fn preempts(curr: u64, se: u64, gran: u64) -> bool {
    curr.wrapping_sub(se) as i64 > gran as i64
}

impl RunList {
    /// __enqueue_entity(): in vruntime order, after any task of equal vruntime (the rbtree
    /// sends an equal key right).
    pub(super) fn insert_by_vruntime(&mut self, tasks: &mut [Task], t: u32) {
        let v = tasks[t as usize].vruntime;
        let (mut before, mut at) = (NONE, if self.len == 0 { NONE } else { self.head });
        while at != NONE && !vruntime_before(v, tasks[at as usize].vruntime) {
            before = at;
            at = tasks[at as usize].next_queued;
        }
        tasks[t as usize].next_queued = at;
        if before == NONE {
            self.head = t;
        } else {
            tasks[before as usize].next_queued = t;
        }
        if at == NONE {
            self.tail = t;
        }
        self.len += 1;
    }

    /// Where `t` is in the list, if it is.
    fn position(&self, tasks: &[Task], t: u32) -> Option<u32> {
        self.iter(tasks).position(|x| x == t).map(|p| p as u32)
    }
}

impl Simulation {
    /// runqueue=cfs.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn cfs_on(&self) -> bool {
        self.cfs_runqueue
    }

    /// The running task's vruntime now (update_curr(): it has run since it was picked).
    fn curr_vruntime(&self, cpu: u32) -> Option<u64> {
        let curr = self.cpus[cpu as usize].curr?;
        let t = &self.tasks[curr as usize];
        Some(
            t.vruntime
                .wrapping_add(self.now.saturating_sub(t.exec_start)),
        )
    }

    /// v5.19 fair.c update_min_vruntime(): the smaller of the running task's and the
    /// leftmost queued task's vruntime, never going back.
    pub(super) fn update_min_vruntime(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        let left = (!c.queue.is_empty()).then(|| self.tasks[c.queue.head as usize].vruntime);
        let v = match (self.curr_vruntime(cpu), left) {
            (Some(a), Some(b)) => {
                if vruntime_before(b, a) {
                    b
                } else {
                    a
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return,
        };
        let c = &mut self.cpus[cpu as usize];
        c.min_vruntime = max_vruntime(c.min_vruntime, v);
    }

    /// `task` stops running: update_curr() adds its CPU time since it was picked to its
    /// vruntime (and it has run nothing since).
    pub(super) fn account_vruntime(&mut self, task: u32) {
        let t = &mut self.tasks[task as usize];
        t.vruntime = t
            .vruntime
            .wrapping_add(self.now.saturating_sub(t.exec_start));
        t.exec_start = self.now;
    }

    /// `task` joins `cpu`'s runqueue (before it is queued): a task pulled from another
    /// runqueue keeps its lag behind that one's min_vruntime (dequeue_entity subtracts it,
    /// enqueue_entity adds the new one's); a woken task also, from the runqueue it slept on
    /// (migrate_task_rq_fair for TASK_WAKING), and then place_entity() gives a sleeper at most
    /// `sysctl_sched_latency / 2` of credit (GENTLE_FAIR_SLEEPERS).
    pub(super) fn place_entity(&mut self, task: u32, cpu: u32) {
        self.update_min_vruntime(cpu);
        let t = &self.tasks[task as usize];
        let (from, woken) = match t.state {
            TaskState::Queued(src) => (src, false),
            _ => (t.prev, true),
        };
        let mut v = t.vruntime;
        if t.vruntime_relative {
            // A wake-up that migrated it: relative since its select (after_select).
            v = v.wrapping_add(self.cpus[cpu as usize].min_vruntime);
        } else if from != cpu {
            v = v
                .wrapping_sub(self.cpus[from as usize].min_vruntime)
                .wrapping_add(self.cpus[cpu as usize].min_vruntime);
        }
        if woken {
            let floor = self.cpus[cpu as usize]
                .min_vruntime
                .wrapping_sub(self.cfs.sleeper_thresh_ns);
            v = max_vruntime(v, floor);
        }
        let t = &mut self.tasks[task as usize];
        t.vruntime = v;
        t.vruntime_relative = false;
    }

    /// v5.19 fair.c check_preempt_wakeup() for `task`, just queued on the busy `cpu`: if the
    /// running task's vruntime is more than wakeup_gran() ahead of it, the wakee becomes the
    /// next buddy, the running task the last buddy (with sched_nr_latency = 8 tasks or more
    /// there), and the running task is rescheduled (the Resched event: at the next
    /// preemption point, after what the waker is doing now).
    pub(super) fn check_preempt_wakeup(&mut self, task: u32, cpu: u32) {
        let Some(curr_v) = self.curr_vruntime(cpu) else {
            return;
        };
        let c = &self.cpus[cpu as usize];
        // `if (test_tsk_need_resched(curr)) return;`
        if c.need_resched {
            return;
        }
        if !preempts(
            curr_v,
            self.tasks[task as usize].vruntime,
            self.cfs.wakeup_gran_ns,
        ) {
            return;
        }
        let scale = c.queue.len + 1 >= 8;
        let curr = c.curr;
        let c = &mut self.cpus[cpu as usize];
        c.next_buddy = Some(task);
        if scale {
            c.last_buddy = curr;
        }
        self.resched_curr(cpu);
    }

    /// scheduler_tick() under runqueue=cfs: v5.19 fair.c entity_tick() ->
    /// check_preempt_tick() on every CPU with a task waiting (`cfs_rq->nr_running > 1`).
    pub(super) fn cfs_tick(&mut self) {
        for cpu in 0..self.st.topo.nr_cpus() {
            if self.waiting.test(cpu) {
                self.check_preempt_tick(cpu);
            }
        }
    }

    /// v5.19 fair.c check_preempt_tick(): the running task is rescheduled once it has run
    /// longer than its sched_slice() since it was picked, or, after min_granularity, once its
    /// vruntime is more than that slice ahead of the leftmost waiting task's.
    fn check_preempt_tick(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        let (Some(curr), false) = (c.curr, c.queue.is_empty()) else {
            return;
        };
        let ideal = self.cfs.sched_slice(u64::from(c.queue.len) + 1);
        let delta_exec = self
            .now
            .saturating_sub(self.tasks[curr as usize].exec_start);
        if delta_exec > ideal {
            self.clear_buddies(cpu, curr);
            return self.resched_curr(cpu);
        }
        if delta_exec < self.cfs.min_gran_ns {
            return;
        }
        let left = self.tasks[c.queue.head as usize].vruntime;
        let curr_v = self.curr_vruntime(cpu).unwrap_or(left);
        if preempts(curr_v, left, ideal) {
            self.resched_curr(cpu);
        }
    }

    /// resched_curr(): the running task is switched out at the next preemption point (the
    /// Resched event, after the event being handled).
    fn resched_curr(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if !c.need_resched {
            c.need_resched = true;
            self.push(self.now, Event::Resched { cpu });
        }
    }

    /// The preemption point after resched_curr() (a wake-up's or a tick's): the running task,
    /// if still the one rescheduled and mid-burst, goes back to the queue and the CPU picks
    /// again.
    pub(super) fn resched(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if !std::mem::take(&mut c.need_resched) {
            return;
        }
        let Some(curr) = c.curr else {
            return;
        };
        let ran = self.now.saturating_sub(c.stint_start);
        let t = &mut self.tasks[curr as usize];
        if ran >= t.remaining {
            return; // its burst ends now: its own event acts
        }
        t.remaining -= ran;
        let c = &mut self.cpus[cpu as usize];
        let (old_gen, old_at) = (c.gen, c.stint_end_at);
        c.gen = c.gen.wrapping_add(1);
        self.drop_stale_stint_end(cpu, old_gen, old_at);
        self.preempt(cpu, curr);
    }

    /// v5.19 fair.c pick_next_entity(): the leftmost task, unless the next buddy, else the
    /// last buddy, is queued here and not more than wakeup_gran() behind it. Returns the
    /// task's position in the queue.
    pub(super) fn cfs_pick(&mut self, cpu: u32) -> u32 {
        let c = &self.cpus[cpu as usize];
        let left = self.tasks[c.queue.head as usize].vruntime;
        let gran = self.cfs.wakeup_gran_ns;
        let mut pos = 0;
        for b in [c.next_buddy, c.last_buddy].into_iter().flatten() {
            if self.tasks[b as usize].state == TaskState::Queued(cpu)
                && !preempts(self.tasks[b as usize].vruntime, left, gran)
            {
                if let Some(p) = c.queue.position(&self.tasks, b) {
                    pos = p;
                    break;
                }
            }
        }
        pos
    }

    /// clear_buddies() for a task that is picked or leaves `cpu`'s runqueue.
    pub(super) fn clear_buddies(&mut self, cpu: u32, task: u32) {
        let c = &mut self.cpus[cpu as usize];
        if c.next_buddy == Some(task) {
            c.next_buddy = None;
        }
        if c.last_buddy == Some(task) {
            c.last_buddy = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sleeping `uniform` tasks on 8 CPUs under runqueue=cfs, nothing run yet.
    fn sim(extra: &[(&str, &str)]) -> Simulation {
        let mut pairs = vec![
            ("llc_weight", "8"),
            ("workload", "uniform"),
            ("tasks", "2"),
            ("warmup", "0ms"),
            ("preset", "linux-5.19"),
            ("runqueue", "cfs"),
        ];
        pairs.extend_from_slice(extra);
        let mut s = Simulation::new(&Scenario::from_pairs(pairs).unwrap()).unwrap();
        s.measuring = true;
        s
    }

    /// Task 0 runs a 50 ms burst on CPU 3 from 1 ms; at `at` task 1, asleep there since the
    /// start with vruntime 0, wakes onto CPU 3.
    fn wake_behind_a_runner(at: u64) -> Simulation {
        let mut s = sim(&[]);
        s.now = 1_000_000;
        s.tasks[0].remaining = 50_000_000;
        s.enqueue(0, 3);
        assert_eq!(s.tasks[0].state, TaskState::Running(3));
        s.now = at;
        s.tasks[1].prev = 3;
        s.enqueue(1, 3);
        s
    }

    #[test]
    fn the_tunables_scale_with_the_cpus_as_the_kernels_log_factor() {
        // 1 + ilog2(min(CPUs, 8)): 1, 2, 3, 4 for 1, 2, 4 and 8 or more CPUs; wakeup
        // granularity 1 ms and half of sched_latency's 6 ms times that.
        for (cpus, gran, thresh) in [
            (1, 1_000_000, 3_000_000),
            (2, 2_000_000, 6_000_000),
            (4, 3_000_000, 9_000_000),
            (7, 3_000_000, 9_000_000),
            (8, 4_000_000, 12_000_000),
            (224, 4_000_000, 12_000_000),
        ] {
            let t = CfsTunables::for_cpus(cpus);
            assert_eq!(
                (t.wakeup_gran_ns, t.sleeper_thresh_ns),
                (gran, thresh),
                "{cpus}"
            );
        }
    }

    #[test]
    fn a_slice_is_the_latency_shared_out_down_to_the_minimum_granularity() {
        // 8+ CPUs: 24 ms shared, at least 3 ms; past 8 tasks the period grows instead.
        let t = CfsTunables::for_cpus(8);
        for (nr, slice) in [(1, 24), (2, 12), (3, 8), (8, 3), (9, 3), (40, 3)] {
            assert_eq!(t.sched_slice(nr), slice * 1_000_000, "{nr}");
        }
        // 1 CPU: factor 1, 6 ms and 0.75 ms.
        let t = CfsTunables::for_cpus(1);
        assert_eq!((t.sched_slice(2), t.sched_slice(8)), (3_000_000, 750_000));
    }

    #[test]
    fn the_tick_preempts_a_runner_past_its_slice() {
        // Two tasks on CPU 3 from 1 ms, equal vruntimes (no wake-up preemption): the runner's
        // slice is 24 ms / 2; the first tick that sees it run longer reschedules it.
        let mut s = sim(&[]);
        s.now = 1_000_000;
        for t in [0, 1] {
            s.tasks[t].remaining = 100_000_000;
            s.tasks[t].prev = 3;
            s.enqueue(t as u32, 3);
        }
        assert_eq!(s.cpus[3].curr, Some(0));
        assert!(!s.cpus[3].need_resched);
        s.now = 13_000_000;
        s.sched_tick();
        assert!(!s.cpus[3].need_resched, "12 ms run: not past 12 ms");
        s.now = 14_000_000;
        s.sched_tick();
        assert!(s.cpus[3].need_resched);
        s.resched(3);
        assert_eq!(s.cpus[3].curr, Some(1));
        assert_eq!(s.tasks[0].remaining, 87_000_000);
        assert_eq!(s.counters.involuntary_switches, 1);
    }

    #[test]
    fn a_wakee_more_than_wakeup_gran_behind_the_runner_preempts_it_and_runs_next() {
        // The runner has run 10 ms: vruntime 10 ms; the wakee keeps its 0, above min_vruntime
        // less the 12 ms sleeper credit, and is 10 ms > 4 ms behind.
        let mut s = wake_behind_a_runner(11_000_000);
        assert_eq!(s.tasks[1].vruntime, 0);
        assert_eq!(s.cpus[3].min_vruntime, 10_000_000);
        assert!(s.cpus[3].need_resched);
        assert_eq!(s.cpus[3].next_buddy, Some(1));
        assert_eq!(
            s.cpus[3].last_buddy, None,
            "2 tasks: under sched_nr_latency"
        );
        // The preemption point: the runner goes back with the 40 ms it has left.
        s.resched(3);
        assert_eq!(s.cpus[3].curr, Some(1));
        assert_eq!(s.tasks[0].state, TaskState::Queued(3));
        assert_eq!(s.tasks[0].remaining, 40_000_000);
        assert_eq!(s.tasks[0].vruntime, 10_000_000);
        assert_eq!(s.counters.involuntary_switches, 1);
        assert_eq!(s.cpus[3].next_buddy, None, "picked: cleared");
        assert!(!s.cpus[3].need_resched);
    }

    #[test]
    fn a_wakee_within_wakeup_gran_waits_its_turn() {
        // 3 ms run: 3 ms < 4 ms of wakeup granularity, no preemption.
        let mut s = wake_behind_a_runner(4_000_000);
        assert!(!s.cpus[3].need_resched);
        assert_eq!(s.cpus[3].next_buddy, None);
        s.resched(3);
        assert_eq!(s.cpus[3].curr, Some(0));
        assert_eq!(s.tasks[1].state, TaskState::Queued(3));
        assert_eq!(s.counters.involuntary_switches, 0);
        // Under fifo nothing is compared.
        let mut f = sim(&[("runqueue", "fifo")]);
        f.now = 1_000_000;
        f.tasks[0].remaining = 50_000_000;
        f.enqueue(0, 3);
        f.now = 11_000_000;
        f.tasks[1].prev = 3;
        f.enqueue(1, 3);
        assert!(!f.cpus[3].need_resched);
    }

    #[test]
    fn a_long_sleeper_gets_half_a_latency_of_credit_and_a_migrant_keeps_its_lag() {
        // place_entity(): max(vruntime, min_vruntime - sysctl_sched_latency / 2).
        let s = wake_behind_a_runner(101_000_000);
        assert_eq!(s.cpus[3].min_vruntime, 100_000_000);
        assert_eq!(s.tasks[1].vruntime, 88_000_000);
        // A task that slept on CPU 2, 1 ms past its min_vruntime, wakes on CPU 3: it keeps
        // its 1 ms lead over the new runqueue's min_vruntime (then the floor does not bind).
        let mut s = sim(&[]);
        s.now = 1_000_000;
        s.tasks[0].remaining = 50_000_000;
        s.enqueue(0, 3);
        s.now = 21_000_000;
        s.cpus[2].min_vruntime = 5_000_000;
        s.tasks[1].prev = 2;
        s.tasks[1].vruntime = 6_000_000;
        s.enqueue(1, 3);
        assert_eq!(s.tasks[1].vruntime, 20_000_000 + 1_000_000);
        assert!(!s.cpus[3].need_resched, "ahead of the runner");
    }

    #[test]
    fn a_wakee_the_scan_moves_keeps_its_lag_from_the_runqueue_it_slept_on() {
        // Task 1 slept on CPU 2, 1 ms past its min_vruntime (5 ms); CPU 2 is busy, so the
        // scan moves it to an idle CPU whose min_vruntime is 20 ms. set_task_cpu made its
        // vruntime relative at the choice; the enqueue adds the new runqueue's: 21 ms.
        let mut s = sim(&[("machine", "ideal"), ("probe_cost_ns", "0")]);
        s.now = 1_000_000;
        s.tasks[0].remaining = 50_000_000;
        s.enqueue(0, 2);
        s.now = 2_000_000;
        for cpu in 0..8 {
            s.cpus[cpu].min_vruntime = if cpu == 2 { 5_000_000 } else { 20_000_000 };
        }
        s.tasks[1].prev = 2;
        s.tasks[1].vruntime = 6_000_000;
        s.wake_from(None, 2, 1, false);
        let TaskState::Running(dest) = s.tasks[1].state else {
            panic!("{:?}", s.tasks[1].state);
        };
        assert_ne!(dest, 2);
        assert_eq!(s.tasks[1].vruntime, 21_000_000);
        assert!(!s.tasks[1].vruntime_relative);
    }

    #[test]
    fn the_runqueue_is_in_vruntime_order_and_equal_ones_keep_their_arrival_order() {
        let mut s = sim(&[("tasks", "5")]);
        for (t, v) in [(0, 30), (1, 10), (2, 20), (3, 10), (4, 5)] {
            s.tasks[t as usize].vruntime = v;
            s.cpus[0].queue.insert_by_vruntime(&mut s.tasks, t);
        }
        let order: Vec<u32> = s.cpus[0].queue.iter(&s.tasks).collect();
        assert_eq!(order, [4, 1, 3, 2, 0]);
        assert_eq!(s.cpus[0].queue.tail, 0);
        // Wrapped u64 vruntimes compare by their signed difference (entity_before).
        assert!(vruntime_before(u64::MAX - 5, 3));
    }

    #[test]
    fn under_cfs_hackbench_preempts_on_wakeup_and_its_wakees_wait_less() {
        let run = |rq: &str| {
            let sc = Scenario::from_pairs([
                ("llc_weight", "16"),
                ("workload", "hackbench"),
                ("load", "400"),
                ("preset", "linux-5.19"),
                ("duration", "150ms"),
                ("warmup", "50ms"),
                ("runqueue", rq),
            ])
            .unwrap();
            let mut s = Simulation::new(&sc).unwrap();
            while !s.finished() && s.step() {}
            (
                s.counters.involuntary_switches,
                s.latency.percentile_ns(500),
            )
        };
        let ((fifo_inv, fifo_p50), (cfs_inv, cfs_p50)) = (run("fifo"), run("cfs"));
        assert!(
            cfs_inv > 1_000 && cfs_inv > 10 * fifo_inv.max(1),
            "{fifo_inv} {cfs_inv}"
        );
        assert!(cfs_p50 * 2 < fifo_p50, "{fifo_p50} {cfs_p50}");
    }

    #[test]
    fn cfs_is_refused_for_a_preset_on_6_7s_eevdf_path() {
        for p in ["linux-6.7", "sis-cache", "scx-default", "full-scan"] {
            let e = Scenario::from_pairs([("preset", p), ("runqueue", "cfs")])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("runqueue") && e.contains("EEVDF") && e.contains(p),
                "{e}"
            );
        }
        for p in ["linux-4.4", "linux-5.19", "linux-6.0", "sis-util-v4"] {
            assert!(
                Scenario::from_pairs([("preset", p), ("runqueue", "cfs")]).is_ok(),
                "{p}"
            );
        }
    }
}
