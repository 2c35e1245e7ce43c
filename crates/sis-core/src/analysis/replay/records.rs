//! Per-wake-up records for views that step through a replay (the browser's Replay tab): the
//! state each kept wake-up saw, the kernel's CPU and each preset's, and what each preset's
//! select_task_rq_fair read besides the snapshot, so that its check-by-check decision is
//! recomputed on demand rather than stored (a Decision per preset per wake-up would not fit
//! in memory for a large trace).

use super::*;
use crate::kernel::select::{TaskDuration, TaskGroups44};
use crate::kernel::trace::WakeupId;

/// What one preset's select_task_rq_fair read besides the CPU snapshot: its LLC flags
/// (has_idle_cores, nr_idle_scan, ...), the waker CPU's scan state and the wakee's
/// recent_used_cpu as this preset kept them.
#[derive(Clone, Debug, Default)]
pub(super) struct PresetInput {
    pub llcs: Vec<crate::kernel::state::LlcShared>,
    pub waker_scan: WakerScan,
    pub recent: Option<u32>,
}

/// What select_task_rq_fair reads and writes on the waker's CPU besides the LLC flags:
/// SIS_PROP's avg_scan_cost, 5.14's wake_avg_idle (aged by the jiffies gone and charged with
/// the scan) and its stamp, and sched_ext's distribute cursor (cpumask_any_and_distribute's
/// start). `cpu` must be a CPU of `st`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WakerScan(u64, u64, u64, u32);

impl WakerScan {
    pub(super) fn of(st: &SchedState, cpu: u32) -> Self {
        let rq = &st.rqs[cpu as usize];
        let scx = st.scx_distribute_prev[cpu as usize];
        WakerScan(rq.avg_scan_cost, rq.wake_avg_idle, rq.wake_stamp, scx)
    }

    pub(super) fn put(self, st: &mut SchedState, cpu: u32) {
        let rq = &mut st.rqs[cpu as usize];
        (rq.avg_scan_cost, rq.wake_avg_idle, rq.wake_stamp) = (self.0, self.1, self.2);
        st.scx_distribute_prev[cpu as usize] = self.3;
    }
}

/// One classified wake-up as the replay saw it.
#[derive(Clone, Debug)]
pub struct WakeRecord {
    /// Its place among the classified wake-ups (0-based).
    pub index: u64,
    /// The sched_waking's line number.
    pub line: u64,
    /// Which wake-up (`seq` counts the trace's sched_waking events from 1; `sync` is
    /// inferred: the waker blocked within SYNC_WINDOW_NS).
    pub id: WakeupId,
    pub waker_pid: Option<u32>,
    /// The CPU of the matching sched_wakeup.
    pub kernel: u32,
    /// Index into [`CLASSES`] (1..=3; `kernel_moved` is `kernel != prev`).
    pub class: usize,
    /// Each CPU as the wake-up saw it.
    pub cpus: Vec<rebuild::CpuSnap>,
    /// `--autogroup`: the wakee's and the waker's inferred groups.
    pub tg44: Option<TaskGroups44>,
    /// Each preset's CPU, in the replay's preset order.
    pub chosen: Vec<u32>,
    pub(super) pinned: Option<u32>,
    pub(super) wakee_load: [u64; super::load::ERAS],
    pub(super) waker_load: [u64; super::load::ERAS],
    pub(super) wake_wide: bool,
    pub(super) wakee_dur: TaskDuration,
    pub(super) waker_dur: TaskDuration,
    /// The waker was exiting (replay/lineage.rs).
    pub(super) waker_exiting: bool,
    pub(super) inputs: Vec<PresetInput>,
    /// An RT or deadline wakee: what its class's select_task_rq read (no fair decision).
    pub rt: Option<Box<super::classes::ClassWake>>,
    /// The wakee was queued `sched_delayed` on prev (replay/eevdf.rs): DELAY_DEQUEUE presets
    /// wake it there with ttwu_runnable().
    pub(super) delayed: bool,
}

impl WakeRecord {
    /// The one CPU a wakee bound to it (a per-CPU kthread, by its comm) wakes on: the kernel
    /// calls no select_task_rq hook for it, and neither does any preset.
    pub fn bound_cpu(&self) -> Option<u32> {
        self.pinned
    }

    /// Whether preset `i` chose another CPU than the kernel.
    pub fn disagrees(&self, i: usize) -> bool {
        self.chosen.get(i).is_some_and(|c| *c != self.kernel)
    }
}

/// A wake-up's CPU snapshot written into a preset's runqueues. wake_avg_idle and its stamp
/// are the preset's own between the rebuild's resets of them (`wake_seen`: the resets it has
/// taken per CPU): v5.14 select_idle_cpu() ages and charges them, and they stay so until a
/// wake-up onto the idle CPU sets them again (ttwu_do_wakeup()).
pub(super) fn load_snapshot(
    st: &mut SchedState,
    cpus: &[rebuild::CpuSnap],
    tg44: Option<TaskGroups44>,
    era: usize,
    wake_seen: &mut [u32],
) {
    st.cpu_load_known = true;
    // The inferred task groups feed 4.4's effective_load() only (replay/group44.rs).
    st.tg44 = if era == 0 { tg44 } else { None };
    // v6.12: a sched_delayed task stays on_rq and in rq->nr_running until it is dequeued.
    let delayed = st.features.delay_dequeue;
    for ((rq, s), seen) in st.rqs.iter_mut().zip(cpus).zip(wake_seen) {
        rq.load_avg = s.load[era];
        rq.nr_running = s.nr_running + if delayed { s.delayed } else { 0 };
        rq.nr_sched_idle = 0;
        rq.pelt.util_avg = s.util_avg;
        rq.pelt.util_est.enqueued = s.util_est;
        rq.ttwu_pending = s.ttwu_pending;
        rq.avg_idle = s.avg_idle;
        if *seen != s.wake_resets {
            *seen = s.wake_resets;
            rq.wake_avg_idle = s.wake_avg_idle;
            rq.wake_stamp = s.wake_stamp;
        }
        rq.cache_hot_timeout = s.cache_hot_timeout;
    }
}

/// The rest of a recorded decision once its outcome is known.
pub(super) fn finish_decision(
    st: &SchedState,
    wakee: &Wakee,
    out: &crate::kernel::select::Outcome,
    id: WakeupId,
    d: &mut Decision,
) {
    d.id = id;
    st.record_outcome(wakee, out, d);
}

impl Replay {
    /// The wake-ups kept so far (`ReplayConfig::keep` and `keep_disagreements`), in order.
    pub fn records(&self) -> &[WakeRecord] {
        &self.records
    }

    /// Preset `preset`'s decision on a kept wake-up, check by check: select_task_rq_fair run
    /// again on the same inputs (the snapshot and what the preset had kept), so it is the
    /// decision the replay made. None for a preset index out of range.
    pub fn decision(&self, rec: &WakeRecord, preset: usize) -> Option<Decision> {
        let run = self.runs.get(preset)?;
        if rec.rt.is_some() {
            return Some(super::evaluate::class_decision(
                rec.id,
                *rec.chosen.get(preset)?,
            ));
        }
        if rec.delayed && run.preset.features.delay_dequeue {
            return Some(super::evaluate::runnable_decision(rec.id));
        }
        if let Some(cpu) = rec.pinned {
            return Some(super::evaluate::class_decision(rec.id, cpu));
        }
        let inp = rec.inputs.get(preset)?;
        let mut st = run.st.clone();
        let era = super::load::load_era(&run.preset);
        // Every CPU's resets taken as new; then the waker's scan state as the preset kept it.
        let mut seen: Vec<u32> = rec.cpus.iter().map(|c| !c.wake_resets).collect();
        load_snapshot(&mut st, &rec.cpus, rec.tg44, era, &mut seen);
        if rec.id.waker_cpu as usize >= st.rqs.len() {
            return None;
        }
        inp.waker_scan.put(&mut st, rec.id.waker_cpu);
        st.llcs.clone_from(&inp.llcs);
        // A bound wakee returned above: the fair path's wakee may use every CPU.
        let allowed = &self.full;
        let wakee = Wakee {
            prev: rec.id.prev,
            recent_used_cpu: inp.recent,
            allowed,
            load: rec.wakee_load[era],
            wake_wide: rec.wake_wide,
            dur: rec.wakee_dur,
        };
        let waker = Waker {
            cpu: rec.id.waker_cpu,
            sync: rec.id.sync,
            load: rec.waker_load[era],
            now_ns: rec.id.time_ns,
            jiffies: rec.id.time_ns * REPLAY_HZ / 1_000_000_000,
            curr: rec.waker_dur,
            exiting: rec.waker_exiting,
        };
        let mut d = Decision::default();
        let out = st.decide_into(&wakee, &waker, &mut Counters::default(), &mut d);
        finish_decision(&st, &wakee, &out, rec.id, &mut d);
        Some(d)
    }
}
