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
    /// inferred: the waker blocked within SYNC_WINDOW_NS, or read: `sync_read`).
    pub id: WakeupId,
    /// `id.sync` is the kernel's WF_SYNC from the trace's sis_select kprobe.
    pub sync_read: bool,
    /// What the kernel's select path asked available_idle_cpu() about, and its answers (the
    /// trace's `sis_idle` kprobes; empty without them).
    pub kernel_asked: Vec<(u32, Option<bool>)>,
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
    /// What a probe cost the presets at this wake-up (evaluate.rs `probe_cost_ns`).
    pub(super) probe_cost_ns: u64,
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
    gens: Option<(&SnapGens, &mut u64)>,
) {
    st.cpu_load_known = true;
    // The inferred task groups feed 4.4's effective_load() only (replay/group44.rs).
    if era == 0 {
        st.tg44 = tg44;
    } else if st.tg44.is_some() {
        st.tg44 = None;
    }
    // v6.12: a sched_delayed task stays on_rq and in rq->nr_running until it is dequeued.
    let delayed = st.features.delay_dequeue;
    let util_est_runnable = st.features.util_est_runnable;
    let load = |rq: &mut crate::kernel::state::Rq, s: &rebuild::CpuSnap, seen: &mut u32| {
        rq.load_avg = s.load[era];
        rq.nr_delayed = if delayed { s.delayed } else { 0 };
        rq.nr_running = s.nr_running + rq.nr_delayed;
        rq.nr_sched_idle = 0;
        rq.pelt.util_avg = s.util_avg;
        rq.pelt.util_est.enqueued = if util_est_runnable {
            s.util_est_runnable
        } else {
            s.util_est
        };
        rq.ttwu_pending = s.ttwu_pending;
        rq.avg_idle = s.avg_idle;
        if *seen != s.wake_resets {
            *seen = s.wake_resets;
            rq.wake_avg_idle = s.wake_avg_idle;
            rq.wake_stamp = s.wake_stamp;
        }
        rq.cache_hot_timeout = s.cache_hot_timeout;
    };
    if let Some((g, loaded)) = gens {
        let previous = *loaded + 1 == g.epoch;
        *loaded = g.epoch;
        // This preset holds the wake-up before's snapshot: only the CPUs that changed since
        // (no decision writes these fields but wake_avg_idle and wake_stamp, which only a
        // reset reloads).
        if previous {
            for &c in &g.changed {
                if let (Some(rq), Some(s), Some(seen)) =
                    (st.rqs.get_mut(c), cpus.get(c), wake_seen.get_mut(c))
                {
                    load(rq, s, seen);
                }
            }
            return;
        }
    }
    for ((rq, s), seen) in st.rqs.iter_mut().zip(cpus).zip(wake_seen) {
        load(rq, s, seen);
    }
}

/// The CPUs whose snapshot changed from one decided wake-up to the next, so that a preset
/// that loaded the one before reloads only those (load_snapshot).
#[derive(Default)]
pub(super) struct SnapGens {
    /// Bumped at each decided wake-up; a preset keeps the epoch it last loaded.
    epoch: u64,
    changed: Vec<usize>,
    last: Vec<rebuild::CpuSnap>,
}

impl SnapGens {
    /// Takes `cpus`, the snapshot of the wake-up about to be decided.
    pub(super) fn update(&mut self, cpus: &[rebuild::CpuSnap]) {
        self.epoch += 1;
        self.changed.clear();
        if self.last.len() != cpus.len() {
            self.last = cpus.to_vec();
            self.changed.extend(0..cpus.len());
            return;
        }
        for (c, (last, s)) in self.last.iter_mut().zip(cpus).enumerate() {
            if last != s {
                *last = *s;
                self.changed.push(c);
            }
        }
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
        st.probe_cost_ns = rec.probe_cost_ns;
        let era = super::load::load_era(&run.preset);
        // Every CPU's resets taken as new; then the waker's scan state as the preset kept it.
        let mut seen: Vec<u32> = rec.cpus.iter().map(|c| !c.wake_resets).collect();
        load_snapshot(&mut st, &rec.cpus, rec.tg44, era, &mut seen, None);
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
            jiffies: rec.id.time_ns * self.cfg.hz / 1_000_000_000,
            curr: rec.waker_dur,
            exiting: rec.waker_exiting,
        };
        let mut d = Decision::default();
        let out = st.decide_into(&wakee, &waker, &mut Counters::default(), &mut d);
        finish_decision(&st, &wakee, &out, rec.id, &mut d);
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str) -> SchedState {
        let p = crate::kernel::features::preset(name).unwrap();
        let topo = Topology::new(TopologySpec::one_llc(4)).unwrap();
        SchedState::new(topo, p.features, p.imbalance_pct, 400)
    }

    /// What load_snapshot writes on one runqueue.
    type Loaded = (u64, u32, u32, u32, bool, u64, u64, u64, u64);

    fn fields(st: &SchedState) -> Vec<Loaded> {
        st.rqs
            .iter()
            .map(|rq| {
                (
                    rq.load_avg,
                    rq.nr_running,
                    rq.pelt.util_avg,
                    rq.pelt.util_est.enqueued,
                    rq.ttwu_pending,
                    rq.avg_idle,
                    rq.wake_avg_idle,
                    rq.wake_stamp,
                    rq.cache_hot_timeout,
                )
            })
            .collect()
    }

    /// A preset that loaded the wake-up before takes only the CPUs that changed; one that
    /// skipped a wake-up (a pinned wakee) takes them all. Either way its state is the full
    /// load's, for a 6.12 preset (sched_delayed counted) and a 6.0 one.
    #[test]
    fn loading_the_changed_cpus_equals_loading_all() {
        for name in ["linux-6.0", "linux-6.12"] {
            let (mut inc, mut full) = (state(name), state(name));
            let (mut seen_inc, mut seen_full) = (vec![0; 4], vec![0; 4]);
            let mut gens = SnapGens::default();
            let mut loaded = 0;
            let mut cpus = vec![rebuild::CpuSnap::default(); 4];
            for step in 0..40u32 {
                let c = (step * 7 % 4) as usize;
                cpus[c].nr_running = step % 3;
                cpus[c].util_avg = step * 13 % 1024;
                cpus[c].delayed = step % 2;
                cpus[(c + 1) % 4].load[0] += u64::from(step);
                cpus[(c + 2) % 4].wake_resets += step % 5 / 4;
                cpus[(c + 2) % 4].wake_avg_idle = u64::from(step) * 1000;
                // Both presets' decisions charge the waker's wake_avg_idle alike.
                for st in [&mut inc, &mut full] {
                    st.rqs[c].wake_avg_idle /= 2;
                }
                gens.update(&cpus);
                if step % 9 == 4 {
                    continue; // this preset skipped the wake-up: no load at all
                }
                let g = Some((&gens, &mut loaded));
                load_snapshot(&mut inc, &cpus, None, 1, &mut seen_inc, g);
                load_snapshot(&mut full, &cpus, None, 1, &mut seen_full, None);
                assert_eq!(fields(&inc), fields(&full), "{name}, step {step}");
            }
        }
    }
}
