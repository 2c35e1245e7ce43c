//! One paired wake-up run through every preset's select_task_rq_fair and compared with the
//! kernel's choice.

use super::records::{finish_decision, load_snapshot, WakeRecord, WakerScan};
use super::*;

impl Replay {
    pub(super) fn evaluate(&mut self, p: &Pending) {
        if p.unpaired {
            return;
        }
        let Some(kernel) = p.chosen else { return };
        let Some(rb) = self.rb.as_mut() else { return };
        self.counts.wakeups += 1;
        if p.incomplete {
            self.counts.incomplete += 1;
            return;
        }
        if p.on_rq {
            self.on_rq += 1;
            return;
        }
        if p.stop {
            // select_task_rq_stop(): a stop task runs where it is bound.
            self.stop_wakeups += 1;
            return;
        }
        let sync = p.sync == Some(true);
        let allowed = match p.pinned {
            Some(c) => &self.masks[c as usize],
            None => &self.full,
        };
        // idle_cpu(): nothing runnable and no wake-up pending on its wakelist.
        let idle = |c: u32| {
            let s = &p.cpus[c as usize];
            s.nr_running == 0 && !s.ttwu_pending
        };
        let prev_idle = idle(p.prev);
        let some_idle = allowed.iter().any(|c| c != p.prev && idle(c));
        let class = if prev_idle {
            1
        } else if some_idle {
            2
        } else {
            3
        };
        let moved = kernel != p.prev;
        let index = self.class_wakeups[0];
        let row = p.rt.as_ref().map_or(NONE, |w| match w.class {
            classes::TaskClass::Dl => 6,
            _ => 5,
        });
        let at = [0, class, if moved { 4 } else { NONE }, row];
        count(&mut self.class_wakeups, true, at);
        if let Some(w) = &p.rt {
            self.evaluate_class(p, w, kernel, class, index, at);
            return;
        }
        let recording = self.disagreements.len() < self.cfg.show;
        let pending_any = p.cpus.iter().any(|c| c.ttwu_pending);
        // Kept: the first `keep` wake-ups, then disagreements while there is room.
        let keep_first = index < self.cfg.keep as u64;
        let capturing = keep_first || self.kept_extra < self.cfg.keep_disagreements;
        let mut disagreeing: Vec<(String, Decision)> = Vec::new();
        let (wakee_recent, waker_recent): (Box<[u32]>, Option<u32>) = {
            let r = rb
                .tasks
                .get(&p.wakee)
                .map(|t| t.recent.clone())
                .unwrap_or_else(|| vec![u32::MAX; self.runs.len()].into_boxed_slice());
            (r, p.waker_pid.filter(|w| *w != 0))
        };
        if p.recent_read.is_some() && wakee_recent.contains(&u32::MAX) {
            rb.counts.recent_read += 1;
        }
        let jiffies = p.time_ns * self.cfg.hz / 1_000_000_000;
        let id = p.id(sync);
        let mut new_recent = vec![u32::MAX; self.runs.len()];
        let mut new_waker_recent = vec![None; self.runs.len()];
        if capturing {
            self.scratch_inputs
                .resize(self.runs.len(), Default::default());
            self.scratch_chosen.clear();
        }
        let delayed = p.delayed;
        if delayed
            && p.pinned.is_none()
            && self.runs.iter().any(|r| r.preset.features.delay_dequeue)
        {
            // A task truly delayed on prev cannot move: each move is the inference's miss.
            self.delayed_classified.0 += 1;
            self.delayed_classified.1 += u64::from(kernel == p.prev);
        }
        self.snaps.update(&p.cpus);
        // A probe in the traced machine's own time, as the sync window: SIS_PROP divides the
        // waker CPU's avg_idle, which the trace's clock measures, by avg_scan_cost, so the
        // scan's cost must be in that clock too (an emulated CPU runs both 20-36 times slower).
        let probe = probe_cost_ns(self.cfg.probe_cost_ns, rb.sync_window.median_ns);
        for (i, run) in self.runs.iter_mut().enumerate() {
            run.st.probe_cost_ns = probe;
            // A wakee bound to one CPU: select_task_rq() calls the class hook only when
            // nr_cpus_allowed > 1 (4.4 .. 6.12 core.c), so nothing select_task_rq_fair keeps
            // (recent_used_cpu, has_idle_cores, avg_scan_cost) changes either.
            if let Some(cpu) = p.pinned {
                count(&mut run.agree, cpu == kernel, at);
                if recording && cpu != kernel {
                    disagreeing.push((run.preset.name.to_string(), class_decision(id, cpu)));
                }
                if capturing {
                    self.scratch_chosen.push(cpu);
                }
                new_recent[i] = wakee_recent[i];
                continue;
            }
            if delayed && run.preset.features.delay_dequeue {
                // v6.12 core.c ttwu_runnable(): still on prev's runqueue, requeued there; no
                // select_task_rq(), so nothing it keeps (recent_used_cpu) changes.
                let cpu = p.prev;
                count(&mut run.agree, cpu == kernel, at);
                if recording && cpu != kernel {
                    disagreeing.push((run.preset.name.to_string(), runnable_decision(id)));
                }
                if capturing {
                    self.scratch_chosen.push(cpu);
                }
                new_recent[i] = wakee_recent[i];
                continue;
            }
            let st = &mut run.st;
            let era = super::load::load_era(&run.preset);
            load_snapshot(
                st,
                &p.cpus,
                p.tg44,
                era,
                &mut run.wake_seen,
                Some((&self.snaps, &mut run.loaded)),
            );
            for (llc, seq) in p.idle_core_seq.iter().enumerate() {
                if *seq > run.seen_idle_core[llc] {
                    run.seen_idle_core[llc] = *seq;
                    st.llcs[llc].has_idle_cores = true;
                }
            }
            if p.balance_seq > run.seen_balance {
                run.seen_balance = p.balance_seq;
                for llc in 0..st.topo.spec.llcs {
                    st.update_idle_cpu_scan(llc);
                }
            }
            // The kernel's nr_idle_scan where a `sis_lb` kprobe shows it (replay/kernel_scan.rs).
            if !p.lb_nr.is_empty()
                && st.nr_expr.is_none()
                && super::kernel_scan::reads_kernel_nr_idle_scan(&run.preset.features)
            {
                for (l, nr) in p.lb_nr.iter().enumerate().filter(|(_, n)| **n != u32::MAX) {
                    st.llcs[l].nr_idle_scan = *nr;
                }
            }
            // The kernel's own budget where the trace shows its loop (replay/kernel_scan.rs).
            if run.preset.features.sis_util && p.sync_read && !p.kernel_ask_sites.is_empty() {
                let (asks, sites, llcs) = (&p.kernel_asks, &p.kernel_ask_sites, &st.llcs);
                let nr = |l: u32| llcs[l as usize].nr_idle_scan;
                run.scan_tally.wakeup(asks, sites, &st.topo, nr);
            }
            // A task older than the trace: its recent_used_cpu as the kernel's probe read it.
            let recent = Some(wakee_recent[i])
                .filter(|c| *c != u32::MAX)
                .or(p.recent_read);
            let wakee = Wakee {
                prev: p.prev,
                recent_used_cpu: recent,
                allowed,
                load: p.wakee_load[era],
                wake_wide: p.wake_wide,
                dur: p.wakee_dur,
            };
            let waker = Waker {
                cpu: p.waker_cpu,
                sync,
                load: p.waker_load[era],
                now_ns: p.time_ns,
                jiffies,
                curr: p.waker_dur,
                exiting: p.waker_exiting,
            };
            if capturing {
                let inp = &mut self.scratch_inputs[i];
                inp.llcs.clone_from(&st.llcs);
                inp.waker_scan = WakerScan::of(st, p.waker_cpu);
                inp.recent = recent;
            }
            // Did the choice depend on the wakelist inference? The same decision with no CPU
            // pending, on a copy of what select_task_rq_fair writes (the LLCs' flags, the
            // waker's avg_scan_cost, sched_ext's distribute cursor).
            let alt = pending_any.then(|| {
                for rq in st.rqs.iter_mut() {
                    rq.ttwu_pending = false;
                }
                let cpu = select_aside(st, &mut self.scratch_llcs, &wakee, &waker);
                for (rq, c) in st.rqs.iter_mut().zip(p.cpus.iter()) {
                    rq.ttwu_pending = c.ttwu_pending;
                }
                cpu
            });
            // Did it depend on the autogroup inference? The same decision in the root group.
            let alt_group = st.tg44.take().map(|tg| {
                let cpu = select_aside(st, &mut self.scratch_llcs, &wakee, &waker);
                st.tg44 = Some(tg);
                cpu
            });
            // The LLC flags and the waker's scan state before the decision, for the flips'
            // counterfactual below. With the waker on prev, want_affine changes nothing
            // (wake_affine() runs only when cpu != prev_cpu), so there is nothing to try.
            let flips_aside = p.waker_cpu != p.prev;
            let budget_aside = run.preset.features.sis_prop || run.preset.features.sis_util;
            let pre = WakerScan::of(st, p.waker_cpu);
            if flips_aside || budget_aside {
                self.scratch_pre_llcs.clone_from(&st.llcs);
            }
            let out = if recording {
                let d = &mut self.decision;
                let out = st.decide_into(&wakee, &waker, &mut run.counters, d);
                if out.cpu != kernel {
                    finish_decision(st, &wakee, &out, id, d);
                    disagreeing.push((run.preset.name.to_string(), d.clone()));
                }
                out
            } else {
                st.select_task_rq_fair(&wakee, &waker, &mut run.counters, &mut ())
            };
            count(&mut run.agree, out.cpu == kernel, at);
            // Would the flips the trace cannot show (from before it) explain the miss? The
            // same decision, on the state it saw, with wake_wide() the other way.
            if out.cpu != kernel && flips_aside {
                let post = WakerScan::of(st, p.waker_cpu);
                std::mem::swap(&mut st.llcs, &mut self.scratch_pre_llcs);
                pre.put(st, p.waker_cpu);
                let wide = Wakee {
                    wake_wide: !wakee.wake_wide,
                    ..wakee
                };
                let alt = select_aside(st, &mut self.scratch_llcs, &wide, &waker);
                // And would the sync inference's other answer? (WF_SYNC is read by wake_affine()
                // and sched_ext's select; fair presets read it only where the waker is not on
                // prev, so only such misses are tried.)
                let other_sync = Waker {
                    sync: !waker.sync,
                    ..waker
                };
                let alt_sync = select_aside(st, &mut self.scratch_llcs, &wakee, &other_sync);
                std::mem::swap(&mut st.llcs, &mut self.scratch_pre_llcs);
                post.put(st, p.waker_cpu);
                let e = &mut run.explained;
                // Flips the trace's probes read (replay/flips.rs) are not from before it.
                e.flips += u64::from(alt == kernel && !p.flips_read);
                // A WF_SYNC the trace recorded (sis_select) is not an inference.
                let sync_inferred = !p.sync_read;
                e.sync += u64::from(sync_inferred && alt_sync == kernel);
                e.sync_was_sync += u64::from(sync_inferred && alt_sync == kernel && sync);
            }
            // Would the scan's budget explain the miss? SIS_PROP's rests on what the trace
            // cannot show: avg_idle's cap (2 * max_idle_balance_cost, taken as 2 *
            // sysctl_sched_migration_cost, though a newidle balance the host cut short raises
            // it) and a probe's cost in the traced machine's clock (probe_cost_ns below);
            // SIS_UTIL's on the util sum the rebuild's periodic balance read.
            if out.cpu != kernel && budget_aside && out.select_idle_cpu_ns.is_some() {
                let post = WakerScan::of(st, p.waker_cpu);
                std::mem::swap(&mut st.llcs, &mut self.scratch_pre_llcs);
                let (longer, shorter) =
                    budget_aside_pair(st, &mut self.scratch_llcs, pre, &wakee, &waker);
                std::mem::swap(&mut st.llcs, &mut self.scratch_pre_llcs);
                post.put(st, p.waker_cpu);
                let e = &mut run.explained;
                e.longer_scan += u64::from(longer == kernel);
                e.shorter_scan += u64::from(shorter == kernel && longer != kernel);
            }
            run.wakelist_changed += u64::from(alt.is_some_and(|c| c != out.cpu));
            run.autogroup_changed += u64::from(alt_group.is_some_and(|c| c != out.cpu));
            if capturing {
                self.scratch_chosen.push(out.cpu);
            }
            new_recent[i] = out.recent_used_cpu.unwrap_or(u32::MAX);
            new_waker_recent[i] = out.waker_recent_used_cpu;
        }
        for (agree, cpu) in self.baseline_agree.iter_mut().zip([p.prev, p.waker_cpu]) {
            count(agree, cpu == kernel, at);
        }
        if let Some(t) = rb.tasks.get_mut(&p.wakee) {
            t.recent.copy_from_slice(&new_recent);
        }
        if let Some(w) = waker_recent {
            if let Some(t) = rb.tasks.get_mut(&w) {
                for (slot, v) in t.recent.iter_mut().zip(&new_waker_recent) {
                    if let Some(c) = v {
                        *slot = *c;
                    }
                }
            }
        }
        if capturing && (keep_first || self.scratch_chosen.iter().any(|c| *c != kernel)) {
            if !keep_first {
                self.kept_extra += 1;
            }
            let (chosen, inputs) = (self.scratch_chosen.clone(), self.scratch_inputs.clone());
            let mut rec = record(p, index, id, kernel, class, chosen, inputs, None);
            rec.delayed = delayed;
            rec.probe_cost_ns = probe;
            self.records.push(rec);
        }
        if !disagreeing.is_empty() {
            self.disagreements
                .push(disagreement(p, kernel, class, sync, disagreeing));
        }
    }
}

/// Per preset: disagreements that an inference the other way turns into agreements (the
/// notes' counterfactuals): wake_wide() with the flips from before the trace, the waker's
/// WF_SYNC, and the scan's budget (SIS_PROP's or SIS_UTIL's) longer (the whole LLC) or
/// shorter (its floor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Explained {
    pub flips: u64,
    pub sync: u64,
    /// Of `sync`, those the inference had taken as sync.
    pub sync_was_sync: u64,
    pub longer_scan: u64,
    pub shorter_scan: u64,
}

impl Explained {
    /// The budget's pair: (the whole LLC, the floor).
    pub fn budget(&self) -> (u64, u64) {
        (self.longer_scan, self.shorter_scan)
    }
}

/// The same decision, on the state before it (`pre` being the waker's scan state then), with
/// the scan's budget as long as it gets and as short. SIS_PROP: no scan cost yet and idle
/// time without end (the whole LLC), then no idle time (v5.12 fair.c select_idle_cpu's
/// floor, `nr = 4`; 4.x's SIS_AVG_CPU skips the scan). SIS_UTIL: `nr_idle_scan` the LLC's
/// weight, then 0 (v6.0 select_idle_cpu: `if (nr == 1) return -1`). The waker's avg_idle
/// and the LLCs' `nr_idle_scan`, which the decision does not write, are put back.
fn budget_aside_pair(
    st: &mut SchedState,
    scratch: &mut Vec<crate::kernel::state::LlcShared>,
    pre: WakerScan,
    wakee: &Wakee,
    waker: &Waker,
) -> (u32, u32) {
    let w = waker.cpu as usize;
    let avg_idle = st.rqs[w].avg_idle;
    let nr_idle_scan: Vec<u32> = st.llcs.iter().map(|l| l.nr_idle_scan).collect();
    let weight = st.topo.llc_weight();
    let mut with = |st: &mut SchedState, long: bool| {
        pre.put(st, waker.cpu);
        // 2^40 ns of idle time: SIS_PROP's nr past any LLC (the product with llc_weight fits).
        let idle = if long { 1 << 40 } else { 0 };
        let rq = &mut st.rqs[w];
        (rq.avg_idle, rq.wake_avg_idle, rq.wake_stamp) = (idle, idle, u64::MAX);
        rq.avg_scan_cost = 0;
        for l in st.llcs.iter_mut() {
            l.nr_idle_scan = if long { weight } else { 0 };
        }
        select_aside(st, scratch, wakee, waker)
    };
    let longer = with(st, true);
    let shorter = with(st, false);
    st.rqs[w].avg_idle = avg_idle;
    for (l, nr) in st.llcs.iter_mut().zip(nr_idle_scan) {
        l.nr_idle_scan = nr;
    }
    (longer, shorter)
}

/// select_task_rq_fair's choice on the state as it is, with what it writes (the LLCs' flags
/// and the waker's [`WakerScan`]) put back afterwards: the counterfactual decisions above. `scratch` keeps the LLCs' copy without an allocation.
pub(super) fn select_aside(
    st: &mut SchedState,
    scratch: &mut Vec<crate::kernel::state::LlcShared>,
    wakee: &Wakee,
    waker: &Waker,
) -> u32 {
    scratch.clone_from(&st.llcs);
    let saved = WakerScan::of(st, waker.cpu);
    let cpu = st
        .select_task_rq_fair(wakee, waker, &mut Counters::default(), &mut ())
        .cpu;
    std::mem::swap(&mut st.llcs, scratch);
    saved.put(st, waker.cpu);
    cpu
}

/// A kept wake-up: the snapshot, each preset's CPU and what each read besides it.
#[allow(clippy::too_many_arguments)]
fn record(
    p: &Pending,
    index: u64,
    id: crate::kernel::trace::WakeupId,
    kernel: u32,
    class: usize,
    chosen: Vec<u32>,
    inputs: Vec<super::records::PresetInput>,
    rt: Option<Box<classes::ClassWake>>,
) -> WakeRecord {
    WakeRecord {
        index,
        line: p.line,
        id,
        sync_read: p.sync_read,
        kernel_asked: p.kernel_asks.clone(),
        waker_pid: p.waker_pid,
        kernel,
        class,
        cpus: p.cpus.clone(),
        tg44: p.tg44,
        chosen,
        pinned: p.pinned,
        wakee_load: p.wakee_load,
        waker_load: p.waker_load,
        wake_wide: p.wake_wide,
        wakee_dur: p.wakee_dur,
        waker_dur: p.waker_dur,
        waker_exiting: p.waker_exiting,
        inputs,
        rt,
        delayed: false,
        probe_cost_ns: 0,
    }
}

/// `probe_cost_ns` (a probe where the local wake-up takes 1 us) per us of the trace's median
/// local wake-up (replay/pending.rs `SyncWindow`), once it is known.
pub(super) fn probe_cost_ns(base: u64, local_wakeup_median_ns: Option<u64>) -> u64 {
    local_wakeup_median_ns.map_or(base, |m| (base.saturating_mul(m) / 1000).max(1))
}

/// A wake-up some preset placed elsewhere than the kernel, with those presets' decisions.
fn disagreement(
    p: &Pending,
    kernel: u32,
    class: usize,
    sync: bool,
    decisions: Vec<(String, Decision)>,
) -> Disagreement {
    Disagreement {
        line: p.line,
        time_ns: p.time_ns,
        waker_cpu: p.waker_cpu,
        waker_pid: p.waker_pid,
        wakee: p.wakee,
        prev: p.prev,
        kernel,
        sync_inferred: sync && !p.sync_read,
        sync_read: sync && p.sync_read,
        kernel_asked: p.kernel_asks.clone(),
        class: CLASSES[class],
        nr_running: p.cpus.iter().map(|c| c.nr_running).collect(),
        ttwu_pending: (0..)
            .zip(&p.cpus)
            .filter(|(_, c)| c.ttwu_pending)
            .map(|(i, _)| i)
            .collect(),
        util_avg: p.cpus.iter().map(|c| c.util_avg).collect(),
        decisions,
    }
}

impl Replay {
    /// An RT or deadline wake-up: each preset places it with its era's select_task_rq_rt /
    /// _dl (replay/classes.rs); kept and shown like the others, with no fair checks.
    fn evaluate_class(
        &mut self,
        p: &Pending,
        w: &classes::ClassWake,
        kernel: u32,
        class: usize,
        index: u64,
        at: [usize; 4],
    ) {
        let Some(rb) = self.rb.as_ref() else { return };
        let mut chosen = Vec::with_capacity(self.runs.len());
        for run in self.runs.iter_mut() {
            // rt.c find_lowest_rq: cpumask_any_and_distribute() from 5.11 (14e292f8d453);
            // find_later_rq keeps cpumask_first_and().
            let cursor = (w.class == classes::TaskClass::Rt && run.preset.rt_distribute())
                .then(|| &mut run.st.scx_distribute_prev[p.waker_cpu as usize]);
            let cpu = w.select(&rb.topo, p.prev, p.waker_cpu, cursor);
            count(&mut run.agree, cpu == kernel, at);
            chosen.push(cpu);
        }
        for (agree, cpu) in self.baseline_agree.iter_mut().zip([p.prev, p.waker_cpu]) {
            count(agree, cpu == kernel, at);
        }
        let id = p.id(p.sync == Some(true));
        let disagrees = chosen.iter().any(|c| *c != kernel);
        if disagrees && self.disagreements.len() < self.cfg.show {
            let decisions = self
                .runs
                .iter()
                .zip(&chosen)
                .filter(|(_, c)| **c != kernel)
                .map(|(r, c)| (r.preset.name.to_string(), class_decision(id, *c)))
                .collect();
            self.disagreements
                .push(disagreement(p, kernel, class, id.sync, decisions));
        }
        let keep_first = index < self.cfg.keep as u64;
        if keep_first || (disagrees && self.kept_extra < self.cfg.keep_disagreements) {
            if !keep_first {
                self.kept_extra += 1;
            }
            let rt = Some(Box::new(w.clone()));
            self.records
                .push(record(p, index, id, kernel, class, chosen, Vec::new(), rt));
        }
    }
}

/// An RT or deadline wake-up's decision as a fair Decision shows it: target prev, no fair
/// checks, the class's CPU as the result.
pub(super) fn class_decision(id: crate::kernel::trace::WakeupId, cpu: u32) -> Decision {
    Decision {
        id,
        target: id.prev,
        result: cpu,
        ..Decision::default()
    }
}

/// A DELAY_DEQUEUE preset's decision for a wakee still queued `sched_delayed` on prev: one
/// check, ttwu_runnable() finding it there, and prev as the result.
pub(super) fn runnable_decision(id: crate::kernel::trace::WakeupId) -> Decision {
    let mut d = class_decision(id, id.prev);
    d.steps.push(crate::kernel::trace::Step {
        rule: crate::kernel::trace::Rule::TtwuRunnable,
        cpu: id.prev,
        saw: crate::kernel::trace::Saw::Busy,
        nr: None,
    });
    d.decided_by = Some(crate::kernel::trace::Rule::TtwuRunnable);
    d
}

const NONE: usize = usize::MAX;

/// Counts a wake-up in the rows `at` (`all`, its state class, `kernel_moved` when the kernel
/// did not keep prev, its task-class row; NONE: not that one) when `hit`.
fn count(rows: &mut [u64; N_CLASSES], hit: bool, at: [usize; 4]) {
    if hit {
        for i in at {
            if let Some(r) = rows.get_mut(i) {
                *r += 1;
            }
        }
    }
}
