//! Replay a real kernel trace: rebuild the state each wake-up saw, run every preset's
//! select_task_rq_fair on it, and count where each agrees with the CPU the kernel chose.
//!
//! Streaming and pure: [`Replay::feed_line`] takes one line at a time (the CLI and the browser
//! feed a file's lines), and [`Replay::finish`] gives the [`ReplayReport`]. In `sched_waking`
//! the `[cpu]` column is the waker's CPU and `target_cpu` the wakee's previous CPU; the
//! matching `sched_wakeup`'s `target_cpu` is the CPU the kernel chose.

pub mod classes;
mod cpu_view;
mod eevdf;
mod evaluate;
mod flips;
mod group44;
mod kernel_scan;
mod lineage;
mod load;
pub mod parse;
mod pending;
pub mod rebuild;
mod records;
mod report;
mod tasks;
pub mod timeline;
#[cfg(test)]
mod ttwu_tests;
mod util;
mod words;

pub use load::load_era;
pub use records::WakeRecord;
pub use report::{
    ClassAgreement, Classes, Disagreement, ReplayError, ReplayNotes, ReplayReport, TraceCounts,
};

use crate::error::InputError;
use crate::kernel::cpumask::CpuMask;
use crate::kernel::features::{preset, presets, Preset};
use crate::kernel::select::{Wakee, Waker};
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::topology::{Topology, TopologySpec};
use crate::kernel::trace::Decision;
use parse::{parse_line, Line};
use rebuild::{Pending, Rebuild, REPLAY_HZ};

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// pid -> task: an identity hash (pids are small distinct integers), no random state, so
/// the replay is the same natively and in wasm. Only looked up, never iterated.
#[derive(Default)]
pub(crate) struct PidHasher(u64);
impl Hasher for PidHasher {
    fn finish(&self) -> u64 {
        // Fibonacci hashing spreads consecutive pids over the table's buckets.
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | *b as u64;
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = v as u64;
    }
}
pub(crate) type PidMap<V> = HashMap<u32, V, BuildHasherDefault<PidHasher>>;

/// The most trace text one replay reads (decompressed), so that a runaway input ends with
/// a clear error rather than hours of work.
pub const MAX_TRACE_BYTES: u64 = 1 << 30;
/// The longest line one replay reads: a longer one is not a trace line.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The agreement classes, in report order.
/// The baselines every agreement table has beside the presets: keep prev, and take the
/// waker's CPU. A preset that does not beat keeping prev says so at a glance.
pub const BASELINES: [&str; 2] = ["keep_prev", "waker_cpu"];

/// `rt` and `dl`: the wake-ups of real-time and deadline tasks, which each preset places
/// with its era's select_task_rq_rt / select_task_rq_dl; they are in `all` and the state
/// classes too.
pub const CLASSES: [&str; N_CLASSES] = [
    "all",
    "prev_idle",
    "prev_busy_some_idle",
    "none_idle",
    "kernel_moved",
    "rt",
    "dl",
];
/// How many agreement classes there are.
pub const N_CLASSES: usize = 7;

/// What to replay with.
#[derive(Clone, Debug)]
pub struct ReplayConfig {
    /// The machine's topology; None: one LLC of as many CPUs as the trace's header
    /// (`#P:N` or `cpus=N`) says, no SMT.
    pub topology: Option<TopologySpec>,
    /// Preset names; empty: every preset.
    pub presets: Vec<String>,
    /// Simulated cost of one runqueue probe (avg_scan_cost for SIS_PROP presets), ns.
    pub probe_cost_ns: u64,
    /// How many disagreements to keep with their check-by-check traces.
    pub show: usize,
    /// The most trace text to read, bytes (MAX_TRACE_BYTES unless a test lowers it).
    pub max_bytes: u64,
    /// Keep a [`WakeRecord`] of the first `keep` classified wake-ups ([`Replay::records`]).
    pub keep: usize,
    /// ... and of this many more wake-ups after those where some preset disagrees.
    pub keep_disagreements: usize,
    /// Keep what ran where ([`Replay::timeline`]) for swimlane views.
    pub timeline: bool,
    /// Take the tasks to be in autogroups (CONFIG_SCHED_AUTOGROUP), inferred from their
    /// comms: linux-4.4's wake_affine then reads `effective_load()` of the wakee's and the
    /// waker's groups (replay/group44.rs). Off: every task in the root task group.
    pub autogroup: bool,
    /// The traced kernel's CONFIG_HZ: its jiffies (5.14's `wake_avg_idle` ageing) and its
    /// tick (EEVDF's lag clamp, the tick's pick of a delayed task). Debian's kernels (the
    /// corpus's QEMU traces) and the project's VM run 250.
    pub hz: u64,
}

pub use crate::sim::scenario::HZ_VALUES;

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            topology: None,
            presets: Vec::new(),
            probe_cost_ns: 400,
            show: 0,
            max_bytes: MAX_TRACE_BYTES,
            keep: 0,
            keep_disagreements: 0,
            timeline: false,
            autogroup: false,
            hz: REPLAY_HZ,
        }
    }
}

struct PresetRun {
    preset: Preset,
    st: SchedState,
    counters: Counters,
    seen_idle_core: Vec<u64>,
    seen_balance: u64,
    agree: [u64; N_CLASSES],
    /// Classified wake-ups whose CPU would differ with no CPU pending on a wakelist.
    wakelist_changed: u64,
    /// Classified wake-ups whose CPU would differ in the root task group (`--autogroup`).
    autogroup_changed: u64,
    /// Disagreements an inference the other way turns into agreements.
    explained: evaluate::Explained,
    scan_tally: kernel_scan::ScanTally,
    /// Per CPU, the rebuild's wake_avg_idle resets this preset has taken (load_snapshot).
    wake_seen: Vec<u32>,
    /// The snapshot epoch this preset's state holds (records::SnapGens).
    loaded: u64,
}

/// A replay in progress.
pub struct Replay {
    cfg: ReplayConfig,
    names: Vec<Preset>,
    rb: Option<Rebuild>,
    runs: Vec<PresetRun>,
    masks: Vec<CpuMask>,
    full: CpuMask,
    lines: u64,
    bytes: u64,
    counts: TraceCounts,
    cpus_seen: CpuMask,
    class_wakeups: [u64; N_CLASSES],
    /// Per class, how often keep_prev and waker_cpu (BASELINES) chose the kernel's CPU.
    baseline_agree: [[u64; N_CLASSES]; 2],
    on_rq: u64,
    /// Wake-ups of stop tasks (select_task_rq_stop: their own CPU), left out.
    stop_wakeups: u64,
    /// Wake-ups DELAY_DEQUEUE presets placed by the delayed inference alone, kept on prev.
    delayed_classified: (u64, u64),
    disagreements: Vec<Disagreement>,
    header_cpus: Option<u32>,
    decision: Decision,
    /// Set once an error was returned or the replay ended: it is over.
    failed: bool,
    records: Vec<WakeRecord>,
    /// Records kept after the first `keep` wake-ups (disagreements).
    kept_extra: usize,
    scratch_inputs: Vec<records::PresetInput>,
    scratch_chosen: Vec<u32>,
    /// The LLCs' state kept aside while a counterfactual decision runs (evaluate.rs).
    scratch_llcs: Vec<crate::kernel::state::LlcShared>,
    scratch_pre_llcs: Vec<crate::kernel::state::LlcShared>,
    snaps: records::SnapGens,
    time_order: TimeOrder,
    timeline: Option<timeline::Timeline>,
}

/// Events timed before the previous event: ftrace's per-CPU `local` clock steps back a few µs
/// where buffers merge, more means an edited trace. Counted (`Replay::time_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeOrder {
    pub last_ns: u64,
    /// Events that went back in time.
    pub backwards: u64,
    /// The first such event's line.
    pub first_line: u64,
    /// The largest step back, ns.
    pub max_step_ns: u64,
}

fn snippet(line: &str) -> String {
    let t = line.trim();
    match t.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t.to_string(),
    }
}

impl Replay {
    pub fn new(cfg: ReplayConfig) -> Result<Self, InputError> {
        // The scenario's `hz` field checks it (HZ_VALUES) and names what it allows.
        crate::Scenario::default().set_field("hz", &cfg.hz.to_string())?;
        let names: Vec<Preset> = if cfg.presets.is_empty() {
            presets().to_vec()
        } else {
            cfg.presets
                .iter()
                .map(|n| preset(n.trim()))
                .collect::<Result<_, _>>()?
        };
        let mut r = Replay {
            names,
            rb: None,
            runs: Vec::new(),
            masks: Vec::new(),
            full: CpuMask::new(1),
            lines: 0,
            time_order: TimeOrder::default(),
            bytes: 0,
            counts: TraceCounts::default(),
            cpus_seen: CpuMask::new(crate::kernel::topology::MAX_CPUS),
            class_wakeups: [0; N_CLASSES],
            baseline_agree: [[0; N_CLASSES]; 2],
            on_rq: 0,
            stop_wakeups: 0,
            delayed_classified: (0, 0),
            disagreements: Vec::new(),
            header_cpus: None,
            decision: Decision::default(),
            failed: false,
            records: Vec::new(),
            kept_extra: 0,
            scratch_inputs: Vec::new(),
            scratch_chosen: Vec::new(),
            scratch_llcs: Vec::new(),
            scratch_pre_llcs: Vec::new(),
            snaps: Default::default(),
            timeline: None,
            cfg,
        };
        if let Some(spec) = r.cfg.topology {
            r.start(spec)?;
        }
        Ok(r)
    }

    fn start(&mut self, spec: TopologySpec) -> Result<(), InputError> {
        let topo = Topology::new(spec)?;
        let n = topo.nr_cpus();
        self.runs = self
            .names
            .iter()
            .map(|p| PresetRun {
                preset: *p,
                st: SchedState::new(
                    topo.clone(),
                    p.features,
                    p.imbalance_pct,
                    self.cfg.probe_cost_ns,
                ),
                counters: Counters::default(),
                seen_idle_core: vec![0; spec.llcs as usize],
                seen_balance: 0,
                agree: [0; N_CLASSES],
                wakelist_changed: 0,
                autogroup_changed: 0,
                explained: evaluate::Explained::default(),
                scan_tally: Default::default(),
                wake_seen: vec![0; n as usize],
                loaded: 0,
            })
            .collect();
        self.masks = (0..n).map(|c| CpuMask::from_cpus(n, [c])).collect();
        self.full = CpuMask::full(n);
        self.cfg.topology = Some(spec);
        if self.cfg.timeline {
            self.timeline = Some(timeline::Timeline::new(n));
        }
        let mut eras = [false; load::ERAS];
        for p in &self.names {
            eras[load::load_era(p)] = true;
        }
        eras[2] = true; // 5.7+'s load_avg in any case: the one util signal reads it (util.rs)
        let mut rb = Rebuild::new(topo, self.names.len(), eras);
        rb.track_eevdf = self.names.iter().any(|p| p.features.delay_dequeue);
        rb.hz = self.cfg.hz;
        if self.cfg.autogroup && eras[0] {
            rb.groups44 = Some(group44::Groups44::new(n as usize));
        }
        self.rb = Some(rb);
        Ok(())
    }

    /// The preset names, in report order.
    pub fn preset_names(&self) -> Vec<&'static str> {
        self.names.iter().map(|p| p.name).collect()
    }

    /// What has been read so far.
    pub fn counts(&self) -> TraceCounts {
        let mut c = self.counts.clone();
        c.cpus = self.cpus_seen.weight();
        c
    }

    /// Each CPU as the rebuild sees it now (util_avg as of its last event), for views of
    /// the rebuilt state; empty before the topology is known.
    pub fn cpu_states(&self) -> Vec<rebuild::CpuSnap> {
        self.rb.as_ref().map_or_else(Vec::new, |rb| {
            (0..rb.cpus.len() as u32).map(|c| rb.cpu_snap(c)).collect()
        })
    }

    /// What ran where (with `ReplayConfig::timeline`), and the last event's time.
    pub fn timeline(&self) -> Option<(&timeline::Timeline, u64)> {
        self.timeline.as_ref().map(|t| (t, self.time_order.last_ns))
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    fn fail(&mut self, line: Option<u64>, field: String, value: String, why: &str) -> ReplayError {
        self.failed = true;
        let read = self.counts();
        // Lines read before the one the error is about.
        let done = match line {
            Some(n) => n - 1,
            None => self.lines,
        };
        let expected = format!(
            "{why}; read so far: {done} lines, {} sched events, {} wake-ups paired",
            read.events, read.wakeups
        );
        ReplayError {
            error: InputError {
                field,
                value,
                expected,
            },
            line,
            read_so_far: Box::new(read),
        }
    }

    /// Reads one line (without its newline; a trailing '\r' is ignored).
    pub fn feed_line(&mut self, raw: &[u8]) -> Result<(), ReplayError> {
        if self.failed {
            return Err(self.fail(
                None,
                "trace".into(),
                "a replay that already failed or ended".into(),
                "a new replay",
            ));
        }
        self.lines += 1;
        let n = self.lines;
        self.bytes += raw.len() as u64 + 1;
        if self.bytes > self.cfg.max_bytes {
            let max = self.cfg.max_bytes;
            return Err(self.fail(
                Some(n),
                "trace".into(),
                format!("more than {max} bytes of text at line {n}"),
                &format!(
                    "at most {max} bytes of trace text (the replay's limit); cut the trace, \
                     e.g. with head or trace-cmd report's filters"
                ),
            ));
        }
        if raw.len() > MAX_LINE_BYTES {
            return Err(self.fail(
                Some(n),
                format!("trace line {n}"),
                format!("{} bytes", raw.len()),
                &format!("a line of at most {MAX_LINE_BYTES} bytes (is this a text trace?)"),
            ));
        }
        if memchr::memchr(0, raw).is_some() {
            return Err(self.fail(
                Some(n),
                format!("trace line {n}"),
                "binary data (a NUL byte)".into(),
                "text: the kernel's trace file, trace-cmd report or perf script output \
                 (not trace.dat or perf.data; the CLI reads .gz and .xz)",
            ));
        }
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // Valid UTF-8 borrows; a comm with other bytes is read with replacements.
        let text = match std::str::from_utf8(raw) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(raw),
        };
        if text.bytes().all(|b| b.is_ascii_whitespace()) {
            return Ok(());
        }
        let parsed = match parse_line(&text) {
            Ok(l) => l,
            Err(e) => {
                return Err(self.fail(
                    Some(n),
                    format!("trace line {n}"),
                    snippet(&text),
                    &format!("a complete event line ({})", e.0),
                ))
            }
        };
        let ev = match parsed {
            Line::Event(ev) => ev,
            Line::CpuCount(c) => {
                self.counts.skipped_lines += 1;
                if self.header_cpus.is_none() {
                    self.header_cpus = Some(c);
                }
                return Ok(());
            }
            Line::OtherEvent | Line::NotEvent => {
                self.counts.skipped_lines += 1;
                return Ok(());
            }
        };
        if self.rb.is_none() {
            let Some(w) = self.header_cpus.filter(|c| *c >= 1) else {
                return Err(self.fail(
                    Some(n),
                    "llc_weight".into(),
                    "not given".into(),
                    "the topology: the trace has no '#P:N' or 'cpus=N' header saying how many \
                     CPUs it has (give --llc-weight, --llcs, --smt)",
                ));
            };
            if let Err(e) = self.start(TopologySpec::one_llc(w)) {
                return Err(self.fail(
                    Some(n),
                    e.field,
                    e.value,
                    &format!(
                        "{} (from the trace's header; give --llc-weight)",
                        e.expected
                    ),
                ));
            }
        }
        let nr = self.rb.as_ref().map_or(0, |r| r.topo.nr_cpus());
        let bad_cpu = |c: u32| c >= nr;
        use parse::SchedEvent as E;
        let cpu_of_field = match ev.event {
            E::Waking { target_cpu, .. } | E::Wakeup { target_cpu, .. } => {
                Some(("target_cpu", target_cpu))
            }
            E::Migrate {
                orig_cpu, dest_cpu, ..
            } => Some(if bad_cpu(orig_cpu) {
                ("orig_cpu", orig_cpu)
            } else {
                ("dest_cpu", dest_cpu)
            }),
            E::Select { prev_cpu, .. } => Some(("prev_cpu", prev_cpu)),
            E::IdleAsk { cpu } | E::Balance { cpu, .. } | E::Load { cpu, .. } => Some(("cpu", cpu)),
            E::Switch { .. } | E::IdleAnswer { .. } | E::Tick | E::Flips(_) | E::Jiffies(_) => None,
        };
        for (what, c) in [("[cpu] column", ev.cpu)].into_iter().chain(cpu_of_field) {
            if bad_cpu(c) {
                return Err(self.fail(
                    Some(n),
                    format!("trace line {n}"),
                    format!("{what} {c}"),
                    &format!(
                        "a CPU in 0..={} (the topology has {nr} CPUs; give --llc-weight and \
                         --llcs for the traced machine)",
                        nr - 1
                    ),
                ));
            }
        }
        // `events` counts sched events; the kprobes (sis_select, sis_idle) are read, not counted.
        self.counts.events += u64::from(!ev.event.is_kprobe());
        let t = &mut self.time_order;
        if ev.time_ns < t.last_ns {
            t.backwards += 1;
            if t.backwards == 1 {
                t.first_line = n;
            }
            t.max_step_ns = t.max_step_ns.max(t.last_ns - ev.time_ns);
        }
        t.last_ns = t.last_ns.max(ev.time_ns);
        self.cpus_seen.set(ev.cpu);
        if let (Some(tl), parse::SchedEvent::Switch { next_pid, .. }) =
            (self.timeline.as_mut(), ev.event)
        {
            tl.switch(ev.cpu, ev.time_ns, next_pid);
        }
        if let Some(rb) = self.rb.as_mut() {
            rb.apply(&ev, n);
        }
        self.drain(false);
        Ok(())
    }

    /// The events that went back in time so far.
    pub fn time_order(&self) -> TimeOrder {
        self.time_order
    }

    /// Reads a whole text (lines split on '\n').
    pub fn feed_text(&mut self, text: &[u8]) -> Result<(), ReplayError> {
        let mut rest = text;
        while !rest.is_empty() {
            let (line, next) = match line_end(rest) {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &rest[rest.len()..]),
            };
            self.feed_line(line)?;
            rest = next;
        }
        Ok(())
    }

    fn drain(&mut self, end: bool) {
        loop {
            let Some(rb) = self.rb.as_mut() else { return };
            let Some(p) = rb.pop_ready(end) else { return };
            self.evaluate(&p);
            if let Some(rb) = self.rb.as_mut() {
                rb.recycle(p);
            }
        }
    }

    /// Ends the replay: resolves what is pending and checks that there was something to
    /// replay.
    pub fn finish(mut self) -> Result<ReplayReport, ReplayError> {
        self.end()
    }

    /// [`Replay::finish`] that keeps the replay for [`Replay::records`] and
    /// [`Replay::decision`]; no line can be fed after it.
    pub fn end(&mut self) -> Result<ReplayReport, ReplayError> {
        if self.failed {
            return Err(self.fail(
                None,
                "trace".into(),
                "a replay that already failed or ended".into(),
                "a new replay",
            ));
        }
        self.drain(true);
        self.failed = true;
        if self.counts.events == 0 {
            let lines = self.lines;
            return Err(self.fail(
                None,
                "trace".into(),
                format!("{lines} lines without a sched event"),
                "sched_switch, sched_waking and sched_wakeup events (record them with \
                 trace-cmd record -e sched:sched_switch -e sched:sched_waking -e \
                 sched:sched_wakeup, or perf record -e 'sched:*')",
            ));
        }
        if self.counts.wakeups == 0 {
            return Err(self.fail(
                None,
                "trace".into(),
                "no sched_waking paired with a sched_wakeup".into(),
                "a trace with sched_waking and sched_wakeup events (kernel 4.3 or later)",
            ));
        }
        if self.class_wakeups[0] == 0 && self.on_rq == 0 && self.stop_wakeups == 0 {
            let never: Vec<u32> = self
                .rb
                .as_ref()
                .map(|rb| {
                    rb.cpus
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.curr.is_none())
                        .map(|(i, _)| i as u32)
                        .collect()
                })
                .unwrap_or_default();
            return Err(self.fail(
                None,
                "trace".into(),
                format!(
                    "no wake-up after every CPU's first sched_switch (CPUs never switched: {})",
                    report::cpu_list(&never)
                ),
                "a topology no larger than the traced machine (--llc-weight, --llcs)",
            ));
        }
        let trace = self.counts();
        let names: Vec<String> = self
            .runs
            .iter()
            .map(|r| r.preset.name.to_string())
            .collect();
        let classes = Classes(
            CLASSES
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    (
                        *name,
                        ClassAgreement {
                            wakeups: self.class_wakeups[k],
                            agree: self
                                .runs
                                .iter()
                                .zip(&names)
                                .map(|(r, n)| (n.clone(), r.agree[k]))
                                .chain(
                                    BASELINES
                                        .iter()
                                        .zip(&self.baseline_agree)
                                        .map(|(b, a)| (b.to_string(), a[k])),
                                )
                                .collect(),
                        },
                    )
                })
                .collect(),
        );
        let rb = self.rb.as_ref();
        fn per<T>(runs: &[PresetRun], f: impl Fn(&PresetRun) -> T) -> Vec<(String, T)> {
            runs.iter()
                .map(|r| (r.preset.name.to_string(), f(r)))
                .collect()
        }
        Ok(ReplayReport {
            trace,
            classes,
            notes: ReplayNotes {
                lines: self.lines,
                topology: self.cfg.topology,
                hz: self.cfg.hz,
                counts: rb.map(|r| r.counts.clone()).unwrap_or_default(),
                on_rq: self.on_rq,
                stop: self.stop_wakeups,
                sis_scanned: per(&self.runs, |r| r.counters.sis_scanned),
                wakelist_changed: per(&self.runs, |r| r.wakelist_changed),
                autogroup_changed: per(&self.runs, |r| r.autogroup_changed),
                flips_explained: per(&self.runs, |r| r.explained.flips),
                sync_explained: per(&self.runs, |r| r.explained.sync),
                sync_explained_was_sync: per(&self.runs, |r| r.explained.sync_was_sync),
                budget_explained: per(&self.runs, |r| r.explained.budget()),
                kernel_nr_idle_scan: per(&self.runs, |r| r.scan_tally.result()),
                delayed_classified: self.delayed_classified,
                probe_cost_ns: evaluate::probe_cost_ns(
                    self.cfg.probe_cost_ns,
                    rb.and_then(|r| r.sync_window.median_ns),
                ),
                autogroup: rb.is_some_and(|r| r.groups44.is_some()),
            },
            disagreements: std::mem::take(&mut self.disagreements),
        })
    }
}

/// The index of the first newline in `buf`: how every reader of a trace cuts it into lines
/// (a vectorised search: this runs over every byte of the trace).
pub fn line_end(buf: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', buf)
}

/// Replays a whole text trace in one call.
pub fn replay_text(cfg: ReplayConfig, text: &[u8]) -> Result<ReplayReport, ReplayError> {
    let mut r = Replay::new(cfg).map_err(|error| ReplayError {
        error,
        line: None,
        read_so_far: Box::default(),
    })?;
    r.feed_text(text)?;
    r.finish()
}
