//! A CPU as a wake-up saw it, beyond its queue: the runqueue's util_est, and the wake-ups
//! queued on its wakelist that it has not yet activated (the kernel's `rq->ttwu_pending`).
//!
//! ttwu_queue_wakelist() (6.0 core.c `ttwu_queue_cond`: the target shares no cache with the
//! waker, or it is idle, since Tianchen Ding's "sched: Remove the limitation of WF_ON_CPU on
//! wakelist if wakee cpu is idle" in 6.0; before, only another LLC or WF_ON_CPU) sets
//! `ttwu_pending` on the target at once and sends an IPI; the target activates the task, and
//! only then emits its sched_wakeup. Until then idle_cpu() is false there (5.8 on;
//! `rq->wake_list` before). The trace shows the choice earlier: try_to_wake_up() emits
//! sched_waking, picks the CPU and, if it differs from prev, emits sched_migrate_task, all on
//! the waker's CPU before that CPU's next event. So the next event on the waker's CPU names
//! the target (a migration's dest_cpu, else prev); the target is pending until the wakee's
//! sched_wakeup. A wake-up activated at once (its sched_wakeup on the waker's CPU, next)
//! is pending for no time.

use super::classes::TaskClass;
use super::load::ERAS;
use super::parse::SchedEvent;
use super::rebuild::{CpuTrack, Rebuild};

impl Rebuild {
    /// linux-6.0 fair.c util_est_enqueue()/util_est_dequeue() kept as a sum: the runnable
    /// fair tasks' `_task_util_est()` on `cpu` (a task's estimate changes only at its sleep,
    /// after its dequeue took it off, so the sum of today's estimates is the kernel's).
    pub(crate) fn rq_util_est(&self, cpu: u32) -> [u32; 2] {
        self.cpus[cpu as usize]
            .runnable()
            .filter_map(|p| self.tasks.get(&p))
            .filter(|t| t.class() == TaskClass::Fair)
            .fold([0, 0], |[a, b], t| {
                let (a2, b2) = (
                    t.pelt.util_est.task_util_est(),
                    t.util_est_run.task_util_est(),
                );
                [a + a2, b + b2]
            })
    }

    /// `cpu` as a wake-up sees it.
    pub(crate) fn cpu_snap(&self, cpu: u32) -> CpuSnap {
        let [util_est, util_est_runnable] = self.rq_util_est(cpu);
        CpuSnap {
            util_est,
            util_est_runnable,
            ttwu_pending: self.cpus[cpu as usize].ttwu_pending > 0,
            delayed: self.ev_delayed_count(cpu),
            ..self.cpus[cpu as usize].snap()
        }
    }

    /// Before each event on `cpu`: the waking this CPU emitted last has its CPU named now.
    pub(crate) fn resolve_awaiting(&mut self, cpu: u32, ev: &SchedEvent) {
        let Some((pid, prev)) = self.cpus[cpu as usize].awaiting.take() else {
            return;
        };
        let pending = self.tasks.get(&pid).is_some_and(|t| t.pending.is_some());
        match *ev {
            // Moved: set_task_cpu() ran, and ttwu_queue() now either activates it on dest (its
            // sched_wakeup follows here at once) or queues it on dest's wakelist. Either way
            // dest is taken from now on (v6.12 core.c try_to_wake_up()), so it is marked at
            // once, counted as queued only if no sched_wakeup follows here.
            SchedEvent::Migrate {
                pid: p, dest_cpu, ..
            } if p == pid => {
                if pending {
                    self.wakelist_add(pid, dest_cpu, false);
                }
                self.cpus[cpu as usize].awaiting = Some((pid, dest_cpu));
            }
            // Activated at once (ttwu_queue took the target's lock): nothing pending.
            SchedEvent::Wakeup { pid: p, .. } if p == pid => {}
            // Not if its sched_wakeup came first (from the target, before any event here).
            _ if pending => self.wakelist_add(pid, prev, true),
            _ => {}
        }
    }

    /// A waking on `cpu` of `pid` from `prev`: its CPU is named by `cpu`'s next event.
    pub(crate) fn await_choice(&mut self, cpu: u32, pid: u32, prev: u32) {
        self.wakelist_done(pid);
        self.cpus[cpu as usize].awaiting = Some((pid, prev));
    }

    /// `pid` on `target`'s wakelist; `queued`: known to be (counted), not only chosen.
    pub(crate) fn wakelist_add(&mut self, pid: u32, target: u32, queued: bool) {
        if target as usize >= self.cpus.len() {
            return;
        }
        self.counts.wakelist_pending += u64::from(queued);
        if self.tasks.get(&pid).and_then(|t| t.wakelist_cpu) == Some(target) {
            return;
        }
        self.wakelist_done(pid);
        self.task(pid).wakelist_cpu = Some(target);
        self.cpus[target as usize].ttwu_pending += 1;
    }

    /// `pid` was activated (its sched_wakeup, or it ran): off its target's wakelist.
    pub(crate) fn wakelist_done(&mut self, pid: u32) {
        if let Some(c) = self.tasks.get_mut(&pid).and_then(|t| t.wakelist_cpu.take()) {
            let n = &mut self.cpus[c as usize].ttwu_pending;
            *n = n.saturating_sub(1);
        }
    }
}

/// One CPU as a wake-up saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuSnap {
    pub nr_running: u32,
    pub util_avg: u32,
    /// `rq->cfs.avg.util_est.enqueued`: the sum of the runnable fair tasks' estimates
    /// (cpu_util_cfs() reads the larger of it and util_avg where UTIL_EST is on).
    pub util_est: u32,
    /// The same sum in 6.8+'s form (UTIL_EST_RUNNABLE: an estimate does not fall after an
    /// activation in which its task waited).
    pub util_est_runnable: u32,
    /// A wake-up is queued on its wakelist, not yet activated (this file's header).
    pub ttwu_pending: bool,
    pub avg_idle: u64,
    pub wake_avg_idle: u64,
    pub wake_stamp: u64,
    /// Bumped at each reset of the two above (5.14 ttwu_do_wakeup()): between resets a
    /// preset keeps its own, aged and charged by its scans.
    pub wake_resets: u32,
    pub cache_hot_timeout: u64,
    /// cpu_load() as each era's wake_affine read it (replay/load.rs load_era order).
    pub load: [u64; ERAS],
    /// Tasks left queued `sched_delayed` here (replay/eevdf.rs): from 6.12 they count in
    /// rq->nr_running, which `nr_running` (the trace's runnable tasks) leaves out.
    pub delayed: u32,
}

impl CpuTrack {
    /// This CPU as a wake-up sees it, but for util_est and ttwu_pending (Rebuild::cpu_snap
    /// adds them).
    pub(super) fn snap(&self) -> CpuSnap {
        CpuSnap {
            nr_running: self.nr_running(),
            util_avg: self.pelt.load_avg.min(u64::from(u32::MAX)) as u32,
            util_est: 0,
            util_est_runnable: 0,
            ttwu_pending: false,
            avg_idle: self.avg_idle,
            wake_avg_idle: self.wake_avg_idle,
            wake_stamp: self.wake_stamp,
            wake_resets: self.wake_resets,
            cache_hot_timeout: self.cache_hot_timeout,
            load: self.loads,
            delayed: 0,
        }
    }
}
