//! A sched_waking waiting for its sched_wakeup (the kernel's choice) and its sync inference,
//! and the rebuild's queue of them.

use super::classes::ClassWake;
use super::cpu_view::CpuSnap;
use super::load::ERAS;
use super::rebuild::{Rebuild, PAIR_TIMEOUT_NS, SYNC_WINDOW_NS};
use crate::kernel::select::TaskDuration;

/// A sched_waking waiting for its sched_wakeup and its sync inference.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub seq: u64,
    pub line: u64,
    pub time_ns: u64,
    pub waker_cpu: u32,
    /// The task running on the waker's CPU (0: an interrupt on an idle CPU).
    pub waker_pid: Option<u32>,
    pub wakee: u32,
    pub prev: u32,
    /// A per-CPU kthread (`kworker/3:1`, `ksoftirqd/3`, ...) bound to this CPU.
    pub pinned: Option<u32>,
    /// task_h_load() of the wakee (as of its last update, at its sleep) and of the waker,
    /// per era.
    pub wakee_load: [u64; ERAS],
    pub waker_load: [u64; ERAS],
    /// An RT or deadline wakee: what its own class's select_task_rq reads. None: fair.
    pub rt: Option<Box<ClassWake>>,
    /// The wakee is a stop task (placed on its own CPU, left out of the agreement).
    pub stop: bool,
    pub wake_wide: bool,
    /// What SIS_SHORT reads of the wakee and of the task running on the waker's CPU.
    pub wakee_dur: TaskDuration,
    pub waker_dur: TaskDuration,
    /// Some CPU had not yet had its first sched_switch: its state is unknown.
    pub incomplete: bool,
    /// The wakee was still on a runqueue (running or queued): the kernel's ttwu_remote()
    /// wakes it where it is and selects no CPU.
    pub on_rq: bool,
    /// It is still queued `sched_delayed` on prev (replay/eevdf.rs): from 6.12 the kernel wakes
    /// it there and selects no CPU.
    pub delayed: bool,
    pub cpus: Vec<CpuSnap>,
    /// `--autogroup`: the wakee's and the waker's inferred groups (replay/group44.rs).
    pub tg44: Option<crate::kernel::select::TaskGroups44>,
    /// Per LLC: how many times has_idle_cores was set so far (a preset's flag is set again
    /// when this moved since its last wake-up).
    pub idle_core_seq: Vec<u64>,
    /// How many periodic LLC balances were due so far.
    pub balance_seq: u64,
    pub chosen: Option<u32>,
    pub sync: Option<bool>,
    pub unpaired: bool,
    /// The wakee is the waker's parent (it forked the waker in the trace), and the waker's
    /// next switch was its exit: a wake-up from do_exit() (replay/lineage.rs).
    pub parent_wake: bool,
    pub waker_exiting: bool,
}

impl Pending {
    /// Which wake-up this is, once its sync inference is known (`seq` from 1).
    pub fn id(&self, sync: bool) -> crate::kernel::trace::WakeupId {
        crate::kernel::trace::WakeupId {
            seq: self.seq + 1,
            time_ns: self.time_ns,
            waker_cpu: self.waker_cpu,
            wakee: self.wakee,
            sync,
            prev: self.prev,
        }
    }
}

impl Rebuild {
    /// The oldest pending wake-up once it is paired and its sync known (or given up on).
    /// `end`: the trace is over, resolve whatever is left.
    pub fn pop_ready(&mut self, end: bool) -> Option<Pending> {
        let now = self.now;
        let head = self.pending.front_mut()?;
        if !head.unpaired && head.chosen.is_none() {
            if end || now - head.time_ns > PAIR_TIMEOUT_NS {
                head.unpaired = true;
            } else {
                return None;
            }
        }
        if head.sync.is_none() {
            if end || now - head.time_ns > SYNC_WINDOW_NS {
                head.sync = Some(false);
            } else if !head.unpaired {
                return None;
            }
        }
        let p = self.pending.pop_front()?;
        self.pending_base = p.seq + 1;
        if let Some(t) = self.tasks.get_mut(&p.wakee) {
            if t.pending == Some(p.seq) {
                t.pending = None;
            }
        }
        if p.unpaired {
            self.counts.unpaired += 1;
        } else if p.sync == Some(true) {
            self.counts.sync_inferred += 1;
        }
        Some(p)
    }

    /// Gives a popped snapshot's buffer back for reuse.
    pub fn recycle(&mut self, p: Pending) {
        if self.pool.len() < 64 {
            self.pool.push(p.cpus);
        }
    }
}
