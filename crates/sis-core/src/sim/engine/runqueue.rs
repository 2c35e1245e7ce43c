//! Runqueues: enqueue, pick_next, block, preempt, going idle, and the per-LLC wasted-time
//! integral (idle CPUs while tasks wait in the same LLC).

use super::*;

/// One LLC's inputs to the wasted-time integral.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LlcLoad {
    /// CPUs with nr_running 0.
    pub(super) idle: u32,
    /// Tasks queued behind a running one.
    pub(super) waiting: u32,
    /// When wasted time was last integrated.
    pub(super) wasted_at: u64,
}

impl LlcLoad {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn wasted_since(&self, now: u64) -> u64 {
        self.idle.min(self.waiting) as u64 * now.saturating_sub(self.wasted_at)
    }
}

/// A CPU's waiting tasks in FIFO order, linked through `Task::next_queued`: no buffer of its
/// own to reach, and the tasks are touched anyway when queued or picked.
#[derive(Clone, Copy, Debug)]
pub(super) struct RunList {
    pub(super) head: u32,
    pub(super) tail: u32,
    pub(super) len: u32,
}

impl Default for RunList {
    fn default() -> Self {
        RunList {
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }
}

impl RunList {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn push_back(&mut self, tasks: &mut [Task], t: u32) {
        tasks[t as usize].next_queued = NONE;
        if self.len == 0 {
            self.head = t;
        } else {
            tasks[self.tail as usize].next_queued = t;
        }
        self.tail = t;
        self.len += 1;
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn pop_front(&mut self, tasks: &[Task]) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let t = self.head;
        self.head = tasks[t as usize].next_queued;
        self.len -= 1;
        if self.len == 0 {
            self.tail = NONE;
        }
        Some(t)
    }

    /// Removes and returns the task at `pos` (< len).
    pub(super) fn remove_at(&mut self, tasks: &mut [Task], pos: u32) -> u32 {
        if pos == 0 {
            return self.pop_front(tasks).unwrap_or(NONE);
        }
        let mut before = self.head;
        for _ in 1..pos {
            before = tasks[before as usize].next_queued;
        }
        let t = tasks[before as usize].next_queued;
        let after = tasks[t as usize].next_queued;
        tasks[before as usize].next_queued = after;
        if after == NONE {
            self.tail = before;
        }
        self.len -= 1;
        t
    }

    pub(super) fn iter<'a>(&self, tasks: &'a [Task]) -> impl Iterator<Item = u32> + 'a {
        let head = (self.len > 0).then_some(self.head);
        std::iter::successors(head, move |&t| {
            let n = tasks[t as usize].next_queued;
            (n != NONE).then_some(n)
        })
    }
}

impl Simulation {
    pub(super) fn pending_wasted(&self) -> u64 {
        self.llc_load.iter().map(|l| l.wasted_since(self.now)).sum()
    }

    /// LLC `l` gains `idle` idle CPUs and `waiting` waiting tasks (negative: loses) now. The
    /// wasted time so far is integrated only when min(idle, waiting) changes: splitting an
    /// interval where it does not change adds the same integer total.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn llc_change(&mut self, l: usize, idle: i32, waiting: i32) {
        let ld = &mut self.llc_load[l];
        let before = ld.idle.min(ld.waiting);
        ld.idle = ld.idle.wrapping_add_signed(idle);
        ld.waiting = ld.waiting.wrapping_add_signed(waiting);
        if ld.idle.min(ld.waiting) != before {
            let wasted = before as u64 * self.now.saturating_sub(ld.wasted_at);
            ld.wasted_at = self.now;
            if self.measuring {
                self.counters.wasted_ns += wasted;
            }
        }
    }

    #[inline]
    pub(super) fn sync_waiting(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        if c.curr.is_some() && !c.queue.is_empty() {
            self.waiting.set(cpu);
        } else {
            self.waiting.clear(cpu);
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn update_cpu_pelt(&mut self, cpu: u32) {
        let running = self.cpus[cpu as usize].curr.is_some();
        self.st.rqs[cpu as usize].pelt.update(self.now, running);
    }

    /// Puts `task` on `cpu`'s runqueue; an idle CPU starts running it now.
    pub(super) fn enqueue(&mut self, task: u32, cpu: u32) {
        let l = self.cpus[cpu as usize].llc as usize;
        let rq = &mut self.st.rqs[cpu as usize];
        let was_idle = rq.nr_running == 0;
        let idle_since = rq.idle_stamp;
        if std::mem::take(&mut self.tasks[task as usize].picked_idle) && !was_idle && self.measuring
        {
            self.counters.idle_pick_taken += 1;
        }
        if was_idle {
            if let Some(m) = &mut self.st.idle_cpus {
                m.clear(cpu);
            }
            // ttwu_do_wakeup: fold the idle period into avg_idle (linux-5.14 core.c).
            if rq.idle_stamp != 0 {
                let delta = self.now.saturating_sub(rq.idle_stamp);
                let max = 2 * rq.max_idle_balance_cost;
                rq.avg_idle = crate::kernel::throttle::update_avg(rq.avg_idle, delta).min(max);
                rq.wake_stamp = self.now * self.scenario.hz as u64 / 1_000_000_000;
                rq.wake_avg_idle = rq.avg_idle / 2;
                rq.idle_stamp = 0;
            }
        }
        rq.nr_running += 1;
        if was_idle {
            self.cpus[cpu as usize].busy_since = self.now;
            self.idle_changes[cpu as usize][0] = self.now;
        }
        if self.st.features.util_est {
            // linux-6.0 fair.c enqueue_task_fair: util_est_enqueue(&rq->cfs, p) first.
            rq.pelt
                .util_est
                .enqueue(&self.tasks[task as usize].pelt.util_est);
        }
        let cfs = self.cfs_on();
        if cfs {
            self.place_entity(task, cpu);
        }
        self.tasks[task as usize].state = TaskState::Queued(cpu);
        let c = &mut self.cpus[cpu as usize];
        if cfs {
            c.queue.insert_by_vruntime(&mut self.tasks, task);
        } else {
            c.queue.push_back(&mut self.tasks, task);
        }
        let has_curr = c.curr.is_some();
        if has_curr && cfs {
            self.check_preempt_wakeup(task, cpu);
        }
        self.llc_change(l, -i32::from(was_idle), 1);
        if has_curr {
            self.waiting.set(cpu);
            // Under runqueue=cfs the tick's check_preempt_tick() ends the stint instead.
            if self.cpus[cpu as usize].queue.len == 1 && !cfs {
                self.slice_running(cpu);
            }
        } else {
            // An idle CPU switches to the task at once (no event: nothing else can run on it
            // between the wake-up and the switch, and the wake-up path already sees it busy),
            // and runs it once it is out of its idle state.
            let waker_cpu = std::mem::replace(&mut self.tasks[task as usize].waker_cpu, NONE);
            let delay = self.leave_idle(cpu, waker_cpu, idle_since);
            self.cpus[cpu as usize].start_delay = delay;
            self.pick_next(cpu);
            return;
        }
        let waker_cpu = std::mem::replace(&mut self.tasks[task as usize].waker_cpu, NONE);
        if waker_cpu != NONE && self.cpus[waker_cpu as usize].llc != l as u32 && self.measuring {
            // ttwu_queue_wakelist to a busy CPU of another LLC: the call-function IPI.
            self.counters.ipis += 1;
        }
    }

    /// An idle `cpu` gets a task (woken from `waker_cpu`, NONE if pulled by balance) after
    /// idling since `idle_since` (0: not idle). Returns how long before the task runs, ns: the
    /// exit latency of the state the governor entered, and the IPI if that state does not
    /// poll need_resched (v5.19 kernel/sched/core.c resched_curr; kernel/smp.c
    /// send_call_function_single_ipi for another LLC's wakelist). Counts the idle time.
    fn leave_idle(&mut self, cpu: u32, waker_cpu: u32, idle_since: u64) -> u64 {
        if idle_since == 0 {
            return 0;
        }
        let now = self.now;
        let mut delay = 0;
        // A balance pull runs on the CPU itself, awake in its softirq: no exit.
        if waker_cpu != NONE {
            let c = &mut self.cpus[cpu as usize];
            if let Some(state) = self.machine.idle_state_for(c.predicted_idle_ns) {
                delay = state.exit_latency_ns;
                if waker_cpu != cpu && !state.polls {
                    delay += self.machine.ipi_ns;
                    if self.measuring {
                        self.counters.ipis += 1;
                    }
                }
            }
            // menu's prediction for the next idle period: this one (a one-sample history).
            c.predicted_idle_ns = now.saturating_sub(idle_since);
            c.idle_exit_until = now + delay;
        }
        if self.measuring {
            self.counters.idle_ns +=
                (now + delay).saturating_sub(idle_since.max(self.count_from_ns()));
        }
        delay
    }

    /// The first task queued behind a running one: the CPU is shared from now, so the running
    /// task is preempted a slice after it was picked (linux-6.0 fair.c check_preempt_tick:
    /// `delta_exec > ideal_runtime`), not at the end of its burst. Without this a task queued
    /// behind a CPU hog would never run.
    fn slice_running(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        let Some(curr) = c.curr else {
            return;
        };
        let burst_end = c
            .stint_start
            .saturating_add(self.tasks[curr as usize].remaining);
        let slice_end = (c.stint_start + SLICE_NS).max(self.now);
        if slice_end >= burst_end {
            return; // the stint ends within its slice anyway
        }
        let c = &mut self.cpus[cpu as usize];
        let (old_gen, old_at) = (c.gen, c.stint_end_at);
        c.gen = c.gen.wrapping_add(1);
        c.stint_end_at = slice_end;
        let gen = c.gen;
        self.drop_stale_stint_end(cpu, old_gen, old_at);
        self.push(slice_end, Event::StintEnd { cpu, gen });
    }

    /// A wake-up ran on `cpu` in interrupt or softirq context and scanned for `ns`: the task
    /// running there gets that much less CPU (its stint ends `ns` later, having run as long).
    /// An idle CPU in softirq stays idle to idle_cpu() (rq->curr is the idle task).
    pub(super) fn steal_cpu_time(&mut self, cpu: u32, ns: u64) {
        if ns == 0 {
            return;
        }
        let c = &mut self.cpus[cpu as usize];
        let Some(curr) = c.curr else {
            return;
        };
        let stint = c.stint_end_at - c.stint_start;
        let (old_gen, old_at) = (c.gen, c.stint_end_at);
        c.stint_start += ns;
        c.stint_end_at += ns;
        c.gen = c.gen.wrapping_add(1);
        let (gen, at) = (c.gen, c.stint_end_at);
        self.drop_stale_stint_end(cpu, old_gen, old_at);
        let ev = self.stint_end_event(cpu, gen, curr, stint);
        self.push(at, ev);
    }

    /// Takes `cpu`'s stint end of generation `gen`, due at `at`, out of the queue now that
    /// a later one replaces it, instead of popping it as stale: one pop and dispatch saved (a
    /// wake-up's scans push a running waker's stint end back, about twice a wake-up under
    /// SIS_PROP). Its pop would do nothing but move the clock, which matters only to a
    /// warm-up sample it would trigger (`measure_at`): then it stays.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(super) fn drop_stale_stint_end(&mut self, cpu: u32, gen: u32, at: u64) {
        if at >= self.measure_at {
            return;
        }
        self.events.remove_scheduled(at, |e| match *e {
            Event::StintEnd { cpu: c, gen: g }
            | Event::ClientRequestEnd { cpu: c, gen: g }
            | Event::ServerReplyEnd { cpu: c, gen: g }
            | Event::TailEnd { cpu: c, gen: g } => c == cpu && g == gen,
            _ => false,
        });
    }

    /// Starts the next queued task on an idle `cpu`, or lets it go idle.
    pub(super) fn pick_next(&mut self, cpu: u32) {
        self.update_cpu_pelt(cpu);
        self.pick_next_integrated(cpu);
    }

    /// `pick_next` once the CPU's PELT is integrated up to now (doing it again at the same
    /// time would change nothing).
    pub(super) fn pick_next_integrated(&mut self, cpu: u32) {
        let l = self.cpus[cpu as usize].llc as usize;
        debug_assert!(self.cpus[cpu as usize].curr.is_none());
        self.cpus[cpu as usize].need_resched = false;
        let task = if self.cfs_on() && !self.cpus[cpu as usize].queue.is_empty() {
            let pos = self.cfs_pick(cpu);
            let t = self.cpus[cpu as usize]
                .queue
                .remove_at(&mut self.tasks, pos);
            self.clear_buddies(cpu, t);
            Some(t)
        } else {
            self.cpus[cpu as usize].queue.pop_front(&self.tasks)
        };
        let Some(task) = task else {
            self.waiting.clear(cpu);
            if self.measuring {
                self.counters.context_switches += 1; // to the idle task
            }
            self.go_idle(cpu);
            return;
        };
        self.llc_change(l, 0, -1);
        let c = &mut self.cpus[cpu as usize];
        // __schedule holds this CPU's runqueue lock (one line transfer, as every holder).
        c.lock_free_at = c.lock_free_at.max(self.now) + self.machine.lock_transfer_ns;
        let now = self.now + std::mem::take(&mut c.start_delay);
        if self.measuring {
            self.counters.context_switches += 1;
        }
        let t = &mut self.tasks[task as usize];
        t.pelt.update(self.now, false);
        t.state = TaskState::Running(cpu);
        // A wall-clock spin (schbench's usec_spin) starts now and ends when its time is up,
        // however long it then waits queued.
        if t.spin_ns != 0 {
            t.start_wall_spin(now);
        }
        if t.spin_until != 0 {
            t.remaining = t.spin_until.saturating_sub(now).max(1);
        }
        if t.woken_at != u64::MAX {
            let lat = now - t.woken_at;
            t.woken_at = u64::MAX;
            if self.measuring {
                self.counters.wakeup_latency_sum_ns += lat;
                self.counters.wakeup_latency_count += 1;
                self.counters.wakeup_latency_max_ns = self.counters.wakeup_latency_max_ns.max(lat);
                self.latency.record(lat);
            }
        }
        self.tasks[task as usize].exec_start = now;
        let cfs = self.cfs_on();
        let c = &mut self.cpus[cpu as usize];
        c.curr = Some(task);
        c.stint_start = now;
        c.gen = c.gen.wrapping_add(1);
        let stint = if c.queue.is_empty() || cfs {
            self.tasks[task as usize].remaining
        } else {
            self.tasks[task as usize].remaining.min(SLICE_NS)
        };
        let gen = c.gen;
        let waiting = !c.queue.is_empty();
        let ev = self.stint_end_event(cpu, gen, task, stint);
        self.cpus[cpu as usize].stint_end_at = now + stint.max(1);
        self.push(now + stint.max(1), ev);
        if waiting {
            self.waiting.set(cpu);
        } else {
            self.waiting.clear(cpu);
        }
    }

    /// The CPU has nothing to run: newidle balance, else idle.
    pub(super) fn go_idle(&mut self, cpu: u32) {
        if self.newidle_allowed(cpu) && self.newidle_pull(cpu) {
            return;
        }
        let rq = &mut self.st.rqs[cpu as usize];
        if rq.nr_running == 0 && rq.idle_stamp == 0 {
            rq.idle_stamp = self.now.max(1);
            if self.st.update_idle_core(cpu) {
                self.idle_core_seen_at[self.cpus[cpu as usize].llc as usize] = self.now;
            }
            // SIS_FILTER v3 idle.c set_next_task_idle: update_overloaded_rq(rq).
            self.st.update_overloaded_rq(cpu);
        }
    }

    /// Slice expired with others waiting: the task goes to the back of its queue.
    pub(super) fn preempt(&mut self, cpu: u32, task: u32) {
        if self.measuring {
            self.counters.involuntary_switches += 1;
        }
        self.update_cpu_pelt(cpu);
        self.tasks[task as usize].pelt.update(self.now, true);
        let t = &mut self.tasks[task as usize];
        t.ran_since_sleep += self.now.saturating_sub(t.exec_start);
        t.last_ran_ns = self.now.max(1);
        let l = self.cpus[cpu as usize].llc as usize;
        self.tasks[task as usize].state = TaskState::Queued(cpu);
        let cfs = self.cfs_on();
        if cfs {
            // put_prev_entity(): update_curr(), then back into the tree by vruntime.
            self.account_vruntime(task);
            self.update_min_vruntime(cpu);
        }
        let c = &mut self.cpus[cpu as usize];
        c.curr = None;
        if cfs {
            c.queue.insert_by_vruntime(&mut self.tasks, task);
        } else {
            c.queue.push_back(&mut self.tasks, task);
        }
        self.llc_change(l, 0, 1);
        self.pick_next_integrated(cpu);
    }

    /// The running `task` goes on with a burst of `b` ns on `cpu`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn run_on(&mut self, cpu: u32, task: u32, b: u64) {
        self.tasks[task as usize].remaining = b.max(1);
        self.update_cpu_pelt(cpu);
        let cfs = self.cfs_on();
        let c = &mut self.cpus[cpu as usize];
        c.stint_start = self.now;
        c.gen = c.gen.wrapping_add(1);
        let stint = if c.queue.is_empty() || cfs {
            b
        } else {
            b.min(SLICE_NS)
        };
        let gen = c.gen;
        let ev = self.stint_end_event(cpu, gen, task, stint);
        self.cpus[cpu as usize].stint_end_at = self.now + stint.max(1);
        self.push(self.now + stint.max(1), ev);
    }

    /// The running `task` blocks (with a timer after `timer` ns, if any); `cpu` switches.
    pub(super) fn block(&mut self, cpu: u32, task: u32, timer: Option<u64>) {
        // Block: dequeue and switch.
        self.update_cpu_pelt(cpu);
        self.tasks[task as usize].pelt.update(self.now, true);
        self.tasks[task as usize].state = TaskState::Sleeping;
        self.tasks[task as usize].prev = cpu;
        // SIS_SHORT v6 fair.c dur_avg_update(p, task_sleep) in dequeue_task_fair: the CPU time
        // since the last voluntary sleep, preemptions included, into update_avg().
        let t = &mut self.tasks[task as usize];
        let dur = t.ran_since_sleep + self.now.saturating_sub(t.exec_start);
        t.dur_avg = crate::kernel::throttle::update_avg(t.dur_avg, dur);
        t.ran_since_sleep = 0;
        t.last_ran_ns = self.now.max(1);
        self.cpus[cpu as usize].curr = None;
        if self.cfs_on() {
            // dequeue_entity(): update_curr(), clear_buddies(), then update_min_vruntime()
            // without the task, now off the runqueue.
            self.account_vruntime(task);
            self.clear_buddies(cpu, task);
            self.update_min_vruntime(cpu);
        }
        let rq = &mut self.st.rqs[cpu as usize];
        rq.nr_running -= 1;
        // SIS_CACHE v2 dequeue_task_fair, task_sleep: `p->last_dequeue_time = now;` and, when
        // the rq is left empty, `rq->cache_hot_timeout = max(rq->cache_hot_timeout, now +
        // p->avg_hot_dur)` under sched_feat(SIS_CACHE).
        let t = &mut self.tasks[task as usize];
        t.last_dequeue_ns = self.now.max(1);
        if self.st.features.sis_cache && rq.nr_running == 0 && t.avg_hot_dur != 0 {
            rq.cache_hot_timeout = rq.cache_hot_timeout.max(self.now + t.avg_hot_dur);
        }
        if self.st.features.util_est {
            // linux-6.0 fair.c dequeue_task_fair (DEQUEUE_SLEEP): util_est_dequeue, the
            // task's PELT brought up to now (done above), then util_est_update(task_sleep).
            let t = &mut self.tasks[task as usize].pelt;
            rq.pelt.util_est.dequeue(&t.util_est);
            let util = t.util_avg;
            t.util_est.update(
                util,
                true,
                crate::kernel::throttle::SCHED_CAPACITY_SCALE as u32,
                None,
            );
        }
        if rq.nr_running == 0 {
            let l = self.cpus[cpu as usize].llc as usize;
            self.idle_changes[cpu as usize][1] = self.now;
            self.llc_change(l, 1, 0);
            if let Some(m) = &mut self.st.idle_cpus {
                m.set(cpu);
            }
        }
        if let Some(d) = timer {
            self.push(self.now + d.max(1), Event::Timer { task });
        }
        self.pick_next_integrated(cpu);
    }
}
