//! A sched_waking waiting for its sched_wakeup (the kernel's choice) and its sync inference,
//! and the rebuild's queue of them.

use super::classes::ClassWake;
use super::cpu_view::CpuSnap;
use super::kernel_scan::LB_WAIT_NS;
use super::load::ERAS;
use super::parse::SchedEvent;
use super::rebuild::{Rebuild, PAIR_TIMEOUT_NS, SYNC_WINDOW_NS};
use crate::kernel::select::TaskDuration;

/// How long after its waking a waker's block still makes the wake-up sync. The same
/// kernel code runs slower on a slower machine (an emulated CPU takes 20-30 times as long),
/// so the window is SYNC_WINDOW_NS on a machine whose local wake-up (sched_waking to
/// sched_wakeup on the waker's own CPU: try_to_wake_up()'s own path, identical on every
/// machine) takes 1 us, and scales with this trace's: `SYNC_WINDOW_NS` x its median local
/// wake-up in us, from the first `SAMPLES` of them, once `MIN_SAMPLES` are seen.
#[derive(Clone, Debug)]
pub(crate) struct SyncWindow {
    /// The local wake-ups seen so far, in ascending order.
    samples: Vec<u64>,
    pub ns: u64,
    /// The median the window was last scaled by.
    pub median_ns: Option<u64>,
}

impl SyncWindow {
    const SAMPLES: usize = 255;
    const MIN_SAMPLES: usize = 16;
    /// The pending queue waits up to the window for its head: at most 10 ms.
    const MAX_NS: u64 = 10_000_000;

    pub(crate) fn local_wakeup(&mut self, ns: u64) {
        if self.samples.len() >= Self::SAMPLES {
            return;
        }
        // Kept sorted: the median is the middle one.
        let at = self.samples.partition_point(|s| *s <= ns);
        self.samples.insert(at, ns);
        if self.samples.len() < Self::MIN_SAMPLES {
            return;
        }
        let median = self.samples[self.samples.len() / 2];
        self.median_ns = Some(median);
        // SYNC_WINDOW_NS per us of local wake-up: at least 1 us, at most MAX_NS.
        self.ns = (SYNC_WINDOW_NS.saturating_mul(median) / 1000).clamp(1000, Self::MAX_NS);
    }
}

impl Default for SyncWindow {
    fn default() -> Self {
        SyncWindow {
            samples: Vec::new(),
            ns: SYNC_WINDOW_NS,
            median_ns: None,
        }
    }
}

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
    /// The waker's wakee_flips after its record_wakee() (None: no task on the waker's CPU),
    /// and its last_wakee's address if no task was named by it then (replay/flips.rs).
    pub waker_flips: Option<u32>,
    pub waker_unnamed_last: Option<u64>,
    /// The wakee's and the waker's flips are the kernel's, read by the trace's probes.
    pub flips_read: bool,
    /// The wakee's recent_used_cpu as select_task_rq_fair() found it (the `sis_wflips`
    /// probe's `recent=`), for a task whose own is not known to a preset (older than the trace).
    pub recent_read: Option<u32>,
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
    /// `sync` is the kernel's WF_SYNC, read from a `sis_select` kprobe, not inferred.
    pub sync_read: bool,
    /// What the kernel's select path asked available_idle_cpu() about, in order, and what it
    /// was told (`sis_idle` kprobes; None: no answer seen).
    pub kernel_asks: Vec<(u32, Option<bool>)>,
    /// Each answered ask's call site (IdleAnswer `site`), by the asks' index.
    pub kernel_ask_sites: Vec<u32>,
    /// Some CPU's idleness changed between the sched_waking and the kernel's selection, which
    /// the wake-up reads it at (`runqueues_at_selection`).
    pub reread_at_selection: bool,
    /// When the runqueues in `cpus` were read: the sched_waking, or the selection's latest
    /// kprobe.
    pub read_at: u64,
    /// Per LLC, the kernel's nr_idle_scan at this wake-up as the trace's `sis_lb` kprobe shows
    /// it (u32::MAX: not yet known; empty: the trace shows none; replay/kernel_scan.rs).
    pub lb_nr: Vec<u32>,
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
        // The LLCs' nr_idle_scan a `sis_lb` kprobe shows at their next balance.
        if !end && head.lb_nr.contains(&u32::MAX) && now - head.time_ns <= LB_WAIT_NS {
            return None;
        }
        if head.sync.is_none() {
            if end || now - head.time_ns > self.sync_window.ns {
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
        if !p.lb_nr.is_empty() && !p.lb_nr.contains(&u32::MAX) {
            self.counts.nr_idle_scan_read += 1;
        }
        if p.unpaired {
            self.counts.unpaired += 1;
        } else if p.sync_read {
            self.counts.sync_read += 1;
            self.counts.sync_read_sync += u64::from(p.sync == Some(true));
        } else if p.sync == Some(true) {
            self.counts.sync_inferred += 1;
        }
        Some(p)
    }

    /// A waking on `cpu`: the kprobes there until its next other event are its selection's.
    pub(super) fn watch_probes(&mut self, cpu: u32, seq: u64) {
        let c = &mut self.cpus[cpu as usize];
        (c.select_watch, c.asks_for) = (Some(seq), Some(seq));
        if let Some(lb) = self.lb_nr.as_ref() {
            let known: Vec<u32> = lb.iter().map(|v| v.unwrap_or(u32::MAX)).collect();
            if let Some(p) = self.pending_mut(seq) {
                p.lb_nr = known;
            }
        }
    }

    /// The kprobes (init.sh `sis_select`, `sis_idle`) on `cpu`: true when `ev` is one, read
    /// here (they fire inside a selection, so they name no waking's CPU). Any other event
    /// there but a waking (which starts its own) ends the asks.
    pub(super) fn probe_event(&mut self, cpu: u32, ev: &SchedEvent) -> bool {
        let asking = self.cpus[cpu as usize].asks_for;
        match *ev {
            SchedEvent::Select {
                wake_flags,
                sync_read,
                ..
            } => self.select_flags(cpu, wake_flags, sync_read),
            SchedEvent::Balance {
                cpu,
                idle,
                span,
                nr,
            } => self.lb_reading(cpu, idle, span, nr),
            SchedEvent::Load {
                cpu,
                flags,
                load,
                util,
                lut,
                util_est,
                pid,
            } => {
                self.enqueued_before_wakeup(cpu, pid, flags);
                self.load_reading(cpu, flags, [load, util], lut);
                if let Some(k) = util_est {
                    self.util_est_reading(cpu, flags, k);
                }
            }
            SchedEvent::Tick => self.tick(cpu),
            SchedEvent::Flips(r) => self.flips_reading(cpu, r),
            SchedEvent::Jiffies(j) => self.jiffies_reading(j),
            SchedEvent::IdleAsk { cpu: asked } => {
                if let Some(seq) = asking {
                    self.runqueues_at_selection(seq);
                }
                if let Some(p) = asking.and_then(|seq| self.pending_mut(seq)) {
                    p.kernel_asks.push((asked, None));
                }
            }
            SchedEvent::IdleAnswer { idle, site } => {
                if let Some(p) = asking.and_then(|seq| self.pending_mut(seq)) {
                    if let Some(last) = p.kernel_asks.last_mut() {
                        last.1 = Some(idle);
                        p.kernel_ask_sites.resize(p.kernel_asks.len(), 0);
                        p.kernel_ask_sites[p.kernel_asks.len() - 1] = site;
                    }
                }
            }
            _ => {
                self.cpus[cpu as usize].asks_for = None;
                self.no_selection(cpu);
                return false;
            }
        }
        true
    }

    /// Where wake-up `seq` is in the pending queue, if it still is.
    pub(super) fn pending_index(&self, seq: u64) -> Option<usize> {
        let i = seq.checked_sub(self.pending_base)? as usize;
        (i < self.pending.len()).then_some(i)
    }

    /// The kernel's selection for wake-up `seq` runs now: select_task_rq_fair() entered (a
    /// `sis_select` kprobe) or asks about a runqueue (a `sis_idle` kprobe). v5.10 fair.c
    /// available_idle_cpu() -> idle_cpu() reads `rq->curr`, `nr_running` and `ttwu_pending`
    /// at the call, so the wake-up sees every CPU but the waker's as it stands at the
    /// selection's latest kprobe, not at its sched_waking. Under TCG the two can be
    /// milliseconds apart, with other CPUs switching in between.
    fn runqueues_at_selection(&mut self, seq: u64) {
        let Some(i) = self.pending_index(seq) else {
            return;
        };
        let waker_cpu = self.pending[i].waker_cpu;
        self.pending[i].read_at = self.now;
        let mut changed = false;
        for c in (0..self.topo.nr_cpus()).filter(|c| *c != waker_cpu) {
            let delayed = self.ev_delayed_count(c);
            let t = &self.cpus[c as usize];
            let (nr_running, ttwu_pending) = (t.nr_running(), t.ttwu_pending > 0);
            let Some(snap) = self.pending[i].cpus.get_mut(c as usize) else {
                continue;
            };
            let idle = |nr: u32, pending: bool| nr == 0 && !pending;
            changed |= idle(snap.nr_running, snap.ttwu_pending) != idle(nr_running, ttwu_pending);
            (snap.nr_running, snap.ttwu_pending, snap.delayed) =
                (nr_running, ttwu_pending, delayed);
        }
        let p = &mut self.pending[i];
        if changed && !p.reread_at_selection {
            p.reread_at_selection = true;
            self.counts.reread_at_selection += 1;
        }
    }

    /// Wake-up `seq`'s sched_wakeup came from its target `target`, not from its waker's CPU:
    /// the target activated it from its wakelist (v5.10 and v6.12 core.c ttwu_queue_wakelist(),
    /// sched_ttwu_pending()), where the waker queued it once its selection ended. From then
    /// `rq->ttwu_pending` made the target busy to idle_cpu(), so every wake-up whose runqueues
    /// were read since and that the replay has not evaluated yet (those after this one wait
    /// for it) sees it so. Without the selection's kprobes, its sched_waking stands for the
    /// selection's end (an inference, counted).
    pub(super) fn wakelist_since_selection(&mut self, seq: u64, target: u32) {
        let n = self.busy_since_selection(seq, target);
        self.counts.wakelist_since_selection += n;
        if self.counts.selects_seen == 0 {
            self.counts.wakelist_since_waking += n;
        }
    }

    /// `target` busy for every wake-up other than `seq` (and not on `target`) whose runqueues
    /// were read since `seq`'s were and that the replay has not evaluated yet; how many saw
    /// it idle before.
    fn busy_since_selection(&mut self, seq: u64, target: u32) -> u64 {
        let Some(i) = self.pending_index(seq) else {
            return 0;
        };
        let (from, waker) = (self.pending[i].read_at, self.pending[i].waker_cpu);
        if waker == target {
            return 0;
        }
        let mut n = 0;
        for (j, b) in self.pending.iter_mut().enumerate() {
            if j == i || b.read_at < from || b.waker_cpu == target {
                continue;
            }
            if let Some(s) = b.cpus.get_mut(target as usize) {
                n += u64::from(!s.ttwu_pending && s.nr_running == 0);
                s.ttwu_pending = true;
            }
        }
        n
    }

    /// Wake-up `seq`'s sched_wakeup came from its waker's CPU for another CPU `target`: it was
    /// activated directly (v5.10/v6.12 core.c ttwu_queue() -> ttwu_do_activate():
    /// activate_task() under the target's rq lock, right after select_task_rq(); then the
    /// resched IPI and trace_sched_wakeup()). Where the trace shows no enqueue (no `sis_load`)
    /// but shows the selection (its kprobes), the enqueue is taken at the selection's end:
    /// every wake-up read since and not yet evaluated sees `target` busy. Where three traces
    /// show both, a direct activation's enqueue follows its selection's end within 1 ms in
    /// 98.8-99.4% (docs/replay.md, session 42); the milliseconds TCG adds come after it, before
    /// the tracepoint. An inference, counted.
    pub(super) fn activated_since_selection(&mut self, seq: u64, target: u32) {
        if !self.enqueues_read && self.counts.selects_seen > 0 {
            self.counts.activated_since_selection += self.busy_since_selection(seq, target);
        }
    }

    /// A `sis_load` kprobe at enqueue_task_fair() of `pid` on `cpu`, woken (ENQUEUE_WAKEUP)
    /// and its sched_wakeup not yet seen: from this enqueue on, `cpu`'s rq holds it and
    /// idle_cpu() reads the CPU busy (v5.10 core.c ttwu_do_activate(): activate_task(), then
    /// check_preempt_curr() and trace_sched_wakeup(); under TCG the resched IPI between can
    /// take milliseconds). The CPU counts as holding a wake-up until its sched_wakeup, as a
    /// wakelist's does. Only the time is read, not the load.
    fn enqueued_before_wakeup(&mut self, cpu: u32, pid: u32, flags: u32) {
        const ENQUEUE_WAKEUP: u32 = 0x01;
        self.enqueues_read = true;
        // (wakelist_add() checks `cpu` against the topology.)
        if flags & ENQUEUE_WAKEUP != 0 && self.tasks.get(&pid).is_some_and(|t| t.pending.is_some())
        {
            self.wakelist_add(pid, cpu, false);
        }
    }

    /// Another event on `cpu` before the latest waking there had its `sis_select`: in a trace
    /// that carries the kprobe, select_task_rq_fair() was not called for it. v6.12 core.c
    /// try_to_wake_up() skips select_task_rq() for a task still on its runqueue
    /// (ttwu_runnable(): a sched_delayed one, or one not yet switched out), and
    /// select_task_rq() skips the class's hook for a task with one allowed CPU; either way
    /// the task stays on its CPU, for every preset, as a pinned one does.
    fn no_selection(&mut self, cpu: u32) {
        let Some(seq) = self.cpus[cpu as usize].select_watch.take() else {
            return;
        };
        if self.counts.selects_seen == 0 {
            return;
        }
        if let Some(p) = self.pending_mut(seq) {
            if p.pinned.is_none() {
                p.pinned = Some(p.prev);
                self.counts.unselected += 1;
            }
        }
    }

    /// A `sis_select` kprobe on `cpu`: select_task_rq_fair()'s wake flags for the latest
    /// waking there. WF_TTWU 0x08 and WF_SYNC 0x10 as 5.11+ kernel/sched/sched.h has them (a
    /// call without WF_TTWU is fork or exec balancing); the flags replace the sync inference
    /// where they hold WF_SYNC (`sync_read`: a pre-5.11 line with only sd_flag does not).
    fn select_flags(&mut self, cpu: u32, wake_flags: u32, sync_read: bool) {
        const WF_TTWU: u32 = 0x08;
        const WF_SYNC: u32 = 0x10;
        if wake_flags & WF_TTWU == 0 {
            self.flips_not_read(cpu);
            return;
        }
        self.counts.selects_seen += 1;
        let c = &mut self.cpus[cpu as usize];
        let Some(seq) = c.select_watch.take() else {
            self.flips_not_read(cpu);
            return;
        };
        self.wakee_flips_read(cpu, seq);
        self.runqueues_at_selection(seq);
        let c = &mut self.cpus[cpu as usize];
        if sync_read && c.sync_watch == Some(seq) {
            c.sync_watch = None;
        }
        if let Some(p) = self.pending_mut(seq) {
            if sync_read {
                p.sync = Some(wake_flags & WF_SYNC != 0);
                p.sync_read = true;
            }
            // v6.12 core.c try_to_wake_up(): a task still on its runqueue (sched_delayed
            // among them) is woken by ttwu_runnable() before select_task_rq() is reached, so
            // a selection shows it was not.
            if std::mem::take(&mut p.delayed) {
                self.counts.delayed_selected += 1;
            }
        }
    }

    /// Gives a popped snapshot's buffer back for reuse.
    pub fn recycle(&mut self, p: Pending) {
        if self.pool.len() < 64 {
            self.pool.push(p.cpus);
        }
    }
}

/// The report's lines for `Rebuild::runqueues_at_selection` and `wakelist_since_selection`
/// (replay/report.rs is at its size cap).
pub(super) fn reread_lines(s: &mut String, c: &super::report::RebuildCounts) {
    use crate::text::Text;
    if c.reread_at_selection > 0 {
        s.line(format_args!(
            "read: the runqueues as the kernel's selection read them (its sis_select and \
             sis_idle kprobes' time, not the sched_waking's; a woken task's CPU busy from its \
             enqueue where a sis_load kprobe shows it): {} wake-ups saw some CPU's idleness \
             change in between",
            c.reread_at_selection
        ));
    }
    if c.wakelist_since_selection > 0 {
        let how = match c.wakelist_since_waking {
            0 => "read",
            _ => "inferred",
        };
        s.line(format_args!(
            "{how}: {} times a wake-up saw an idle CPU busy with another wake-up on its wakelist \
             (its sched_wakeup came from that CPU), from that wake-up's selection ({} of them \
             from its sched_waking: the trace has no selection kprobe)",
            c.wakelist_since_selection, c.wakelist_since_waking
        ));
    }
    if c.activated_since_selection > 0 {
        s.line(format_args!(
            "inferred: {} times a wake-up saw an idle CPU busy with another wake-up activated \
             there from its waker's CPU, from that wake-up's selection (ttwu_do_activate() \
             right after it; the trace shows no enqueue, no sis_load kprobe)",
            c.activated_since_selection
        ));
    }
    if c.recent_read > 0 {
        s.line(format_args!(
            "read: the wakee's recent_used_cpu at {} wake-ups where a preset had none for it (a \
             task older than the trace), from the trace's sis_wflips probe",
            c.recent_read
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default until 16 local wake-ups are seen; then 50 us per us of their median,
    /// from the first 255 only, within 1 us .. 10 ms.
    #[test]
    fn the_sync_window_scales_with_the_median_local_wake_up() {
        let mut w = SyncWindow::default();
        for _ in 0..15 {
            w.local_wakeup(20_000);
        }
        assert_eq!((w.ns, w.median_ns), (SYNC_WINDOW_NS, None));
        w.local_wakeup(20_000);
        assert_eq!((w.ns, w.median_ns), (1_000_000, Some(20_000)));
        // The median, not the mean: a few slow ones do not move it.
        for _ in 0..5 {
            w.local_wakeup(5_000_000);
        }
        assert_eq!(w.ns, 1_000_000);
        // Frozen after 255 samples.
        for _ in 0..400 {
            w.local_wakeup(1_000);
        }
        let frozen = w.ns;
        w.local_wakeup(1);
        assert_eq!(w.ns, frozen);
        assert_eq!(w.ns, 50_000, "the median of 234 at 1 us and 21 slower");
        // The bounds.
        let mut fast = SyncWindow::default();
        let mut slow = SyncWindow::default();
        for _ in 0..16 {
            fast.local_wakeup(0);
            slow.local_wakeup(1_000_000);
        }
        assert_eq!((fast.ns, slow.ns), (1_000, 10_000_000));
    }
}
