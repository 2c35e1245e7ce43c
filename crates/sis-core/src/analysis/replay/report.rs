//! What a replay reports: the trace's counts, each class's agreement per preset, the
//! disagreements it kept, its errors; and the agreement table as text.

use super::*;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The `trace` block of the report: what was read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TraceCounts {
    /// Lines that were one of the five sched events used.
    pub events: u64,
    /// sched_waking events paired with their sched_wakeup.
    pub wakeups: u64,
    /// Distinct CPUs in the trace's events.
    pub cpus: u32,
    /// Non-blank lines that are not one of the five events (other events, headers,
    /// comments, perf stack lines).
    pub skipped_lines: u64,
    /// Paired wake-ups before every CPU's first sched_switch (state unknown): left out.
    pub incomplete: u64,
}

/// One class: its wake-ups and, per preset, how many of them it placed where the kernel did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassAgreement {
    pub wakeups: u64,
    /// (preset, agreeing wake-ups) in the replay's preset order.
    pub agree: Vec<(String, u64)>,
}

impl Serialize for ClassAgreement {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Agree<'a>(&'a [(String, u64)]);
        impl Serialize for Agree<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("wakeups", &self.wakeups)?;
        m.serialize_entry("agree", &Agree(&self.agree))?;
        m.end()
    }
}

/// The classes, keyed as in [`CLASSES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classes(pub Vec<(&'static str, ClassAgreement)>);

impl Classes {
    pub fn get(&self, name: &str) -> Option<&ClassAgreement> {
        self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }
}

impl Serialize for Classes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Counts over the whole trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RebuildCounts {
    pub wakings: u64,
    pub unpaired: u64,
    /// sched_wakeup without a pending sched_waking.
    pub wakeups_without_waking: u64,
    pub sync_inferred: u64,
    /// Wake-ups whose WF_SYNC a `sis_select` kprobe recorded, and how many had it.
    pub sync_read: u64,
    pub sync_read_sync: u64,
    /// Wake-ups whose LLCs' nr_idle_scan a `sis_lb` kprobe showed (replay/kernel_scan.rs).
    pub nr_idle_scan_read: u64,
    /// `sis_load` readings of a cfs_rq's load_avg and util_avg checked against the rebuild's
    /// (replay/load.rs `load_reading`), those within 10% of the kernel's, and the sum of the
    /// differences: [load, util, load in 5.7-6.11's form where 6.12's is the one kept].
    pub load_read: u64,
    /// `sis_tick` kprobes seen: the trace shows each CPU's ticks (replay/load.rs `tick`).
    pub ticks: u64,
    pub load_read_close: [u64; 3],
    pub load_read_diff: [u64; 3],
    /// `sis_load` readings of a cfs_rq's util_est checked against the rebuild's sum
    /// (replay/load.rs `util_est_reading`), and those within 10% of the kernel's in each form:
    /// [5.13-6.7's, 6.8+'s (UTIL_EST_RUNNABLE)].
    pub util_est_read: u64,
    pub util_est_close: [u64; 2],
    /// `sis_flips` readings (replay/flips.rs) of a task switched in and of a wake-up's wakee,
    /// each with those whose wakee_flips the rebuild already had; the wake-ups whose
    /// wake_wide() the wakee's reading turned, the flips taken back when the reading named
    /// the waker's last_wakee, and wake-ups given the wakee's recent_used_cpu as read.
    pub flips_switch_read: u64,
    pub flips_switch_same: u64,
    pub flips_wakee_read: u64,
    pub flips_wakee_same: u64,
    pub flips_wide_changed: u64,
    pub flips_named_late: u64,
    pub recent_read: u64,
    /// `sis_select`s with WF_TTWU, and wakings with none (replay/pending.rs `no_selection`).
    pub selects_seen: u64,
    pub unselected: u64,
    /// Wake-ups that saw a CPU's idleness change by the kernel's selection, and wake-ups that
    /// saw a CPU busy with a wakelist's (a direct activation's) wake-up from its selection on.
    pub reread_at_selection: u64,
    pub wakelist_since_selection: u64,
    pub wakelist_since_waking: u64,
    pub activated_since_selection: u64,
    /// The sync window (pending.rs `SyncWindow`; 0: the default) and the median it scales by.
    pub sync_window_ns: u64,
    pub local_wakeup_median_ns: u64,
    pub pinned: u64,
    /// Tasks the rebuild thought queued on a CPU that then switched to idle.
    pub queue_fixups: u64,
    /// Deadline wake-ups onto a CPU running a deadline task: whether the wakee's deadline
    /// is earlier is not in the trace, taken as not.
    pub dl_deadline_inferred: u64,
    /// Wake-ups of a task whose prio the trace did not print (taken as fair, nice 0).
    pub prio_unknown: u64,
    /// Wake-ups taken as queued on their target's wakelist (replay/cpu_view.rs), and
    /// wake-ups that saw some CPU with one pending (not idle for that).
    pub wakelist_pending: u64,
    pub saw_wakelist: u64,
    /// Blocks of a fair task that was not eligible with others queued: left `sched_delayed`
    /// (replay/eevdf.rs), and the wake-ups that found their task so.
    pub delayed_dequeues: u64,
    pub delayed_wakeups: u64,
    /// Of those wake-ups, the ones a `sis_select` kprobe shows went through
    /// select_task_rq_fair(): not delayed after all (replay/pending.rs `select_flags`).
    pub delayed_selected: u64,
    /// `--autogroup` (replay/group44.rs): groups inferred, tasks that joined one (their
    /// creator's or their comm's), sleeping tasks moved to the group of their new comm, and
    /// kernel threads left in the root.
    pub autogroups: u64,
    pub autogroup_joined: u64,
    /// Tasks first seen with a pid above every earlier one (created in the trace), and the
    /// others (older than the trace).
    pub tasks_created: u64,
    pub tasks_older: u64,
    /// New tasks (sched_wakeup_new) that took their parent's wake-up flips.
    pub flips_inherited: u64,
    /// Wake-ups of a task's parent by the child, its next switch its exit: from do_exit(),
    /// with PF_EXITING set (replay/lineage.rs).
    pub exit_wakes: u64,
    pub autogroup_moved: u64,
    pub autogroup_kthreads: u64,
}

/// More about the replay than the JSON contract carries (the table prints it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayNotes {
    pub lines: u64,
    pub topology: Option<TopologySpec>,
    /// The CONFIG_HZ the replay took the traced kernel to have (`ReplayConfig::hz`).
    pub hz: u64,
    pub counts: RebuildCounts,
    /// Wake-ups whose wakee was still on a runqueue (ttwu_remote: the kernel selected no
    /// CPU); left out of the classes.
    pub on_rq: u64,
    /// Wake-ups of stop tasks (`migration/N`), which run where they are bound: left out.
    pub stop: u64,
    /// Per preset: sis_scanned over the classified wake-ups.
    pub sis_scanned: Vec<(String, u64)>,
    /// Per preset: classified wake-ups whose CPU depended on the wakelist inference (the same
    /// decision with no CPU pending picks another).
    pub wakelist_changed: Vec<(String, u64)>,
    /// Per preset: classified wake-ups whose CPU depended on the autogroup inference.
    pub autogroup_changed: Vec<(String, u64)>,
    /// Per preset: disagreements that the wake-up flips from before the trace could explain
    /// (every task starts the trace with none): the same decision with wake_wide() the other
    /// way picks the kernel's CPU.
    pub flips_explained: Vec<(String, u64)>,
    /// Per preset: disagreements that the sync inference's other answer could explain: the
    /// same decision with the waker's WF_SYNC the other way picks the kernel's CPU.
    pub sync_explained: Vec<(String, u64)>,
    /// Per preset: those of them the inference had taken as sync (the rest as not).
    pub sync_explained_was_sync: Vec<(String, u64)>,
    /// Per preset (SIS_PROP's and SIS_UTIL's): disagreements whose select_idle_cpu() ran and
    /// that the same decision turns into agreements with the scan's budget as long as it
    /// gets (the whole LLC), and, of the rest, with its floor (SIS_PROP's 4 probes, none
    /// under SIS_AVG_CPU; SIS_UTIL's none).
    pub budget_explained: Vec<(String, (u64, u64))>,
    /// Per preset with SIS_UTIL, on a trace with `sis_idle` probes: the kernel's
    /// `nr_idle_scan` read from its select_idle_cpu() loop (replay/kernel_scan.rs) against the
    /// rebuilt one, as (the loop's call site, [readings, equal, one apart, rebuilt larger by
    /// 2+, rebuilt smaller by 2+]).
    pub kernel_nr_idle_scan: Vec<(String, Option<KernelScanReading>)>,
    /// Classified wake-ups that DELAY_DEQUEUE presets placed on prev by the delayed
    /// inference alone (ttwu_runnable), and how many of them the kernel kept on prev.
    pub delayed_classified: (u64, u64),
    /// What a runqueue probe costs the presets' scans at the end (evaluate.rs
    /// `probe_cost_ns`: in the traced machine's own time).
    pub probe_cost_ns: u64,
    /// `ReplayConfig::autogroup`: every task taken to be in one autogroup.
    pub autogroup: bool,
}

/// One wake-up where some preset chose another CPU than the kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disagreement {
    /// The sched_waking's line number.
    pub line: u64,
    pub time_ns: u64,
    pub waker_cpu: u32,
    pub waker_pid: Option<u32>,
    pub wakee: u32,
    pub prev: u32,
    pub kernel: u32,
    /// Inferred: the waker blocked within SYNC_WINDOW_NS.
    pub sync_inferred: bool,
    /// Read: the trace's sis_select kprobe gave WF_SYNC in the wake flags.
    pub sync_read: bool,
    /// The CPUs the kernel's select path asked available_idle_cpu() about and its answers
    /// (the trace's `sis_idle` kprobes; empty without them).
    pub kernel_asked: Vec<(u32, Option<bool>)>,
    pub class: &'static str,
    /// nr_running of each CPU as the wake-up saw it; the CPUs with a wake-up pending (busy).
    pub nr_running: Vec<u32>,
    pub ttwu_pending: Vec<u32>,
    pub util_avg: Vec<u32>,
    /// Each disagreeing preset's decision, check by check.
    pub decisions: Vec<(String, Decision)>,
}

impl Disagreement {
    pub fn to_text(&self) -> String {
        use crate::text::Text;
        let mut s = String::new();
        s.line(format_args!("line {} t={}ns: waker cpu {} (pid {}) wakes pid {}, prev {}, kernel chose cpu {}{} [{}]",
            self.line,
            self.time_ns,
            self.waker_cpu,
            self.waker_pid.map_or("?".into(), |p| p.to_string()),
            self.wakee,
            self.prev,
            self.kernel,
            if self.sync_inferred {
                ", sync (inferred)"
            } else if self.sync_read {
                ", sync (read: WF_SYNC in the wake flags)"
            } else {
                ""
            },
            self.class));
        if !self.kernel_asked.is_empty() {
            let asked: Vec<String> = self
                .kernel_asked
                .iter()
                .map(|(cpu, idle)| {
                    let told = match idle {
                        Some(true) => "idle",
                        Some(false) => "busy",
                        None => "?",
                    };
                    format!("{cpu} {told}")
                })
                .collect();
            s.line(format_args!(
                "  the kernel asked available_idle_cpu(): {}",
                asked.join(", ")
            ));
        }
        s.line(format_args!("  nr_running {:?}", self.nr_running));
        if !self.ttwu_pending.is_empty() {
            s.line(format_args!("  ttwu_pending on {:?}", self.ttwu_pending));
        }
        s.line(format_args!("  util_avg   {:?}", self.util_avg));
        for (name, d) in &self.decisions {
            s.line(format_args!("  {name}: cpu {}", d.result));
            for l in d.to_text_numbered(&format!("line {}", self.line)).lines() {
                s.line(format_args!("    {l}"));
            }
        }
        s
    }
}

/// The replay's result. Serialises to the JSON contract exactly: `trace` and `classes`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplayReport {
    pub trace: TraceCounts,
    pub classes: Classes,
    #[serde(skip)]
    pub notes: ReplayNotes,
    #[serde(skip)]
    pub disagreements: Vec<Disagreement>,
}

/// A replay that stopped: the error (naming the line or the limit) and what was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    pub error: InputError,
    /// The line the error is about, if it is about one.
    pub line: Option<u64>,
    pub read_so_far: Box<TraceCounts>,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}
impl std::error::Error for ReplayError {}
impl From<ReplayError> for InputError {
    fn from(e: ReplayError) -> Self {
        e.error
    }
}

/// The kernel's `nr_idle_scan` read from its loop: (the loop's call site, [readings, equal,
/// one apart, rebuilt larger by 2+, rebuilt smaller by 2+]).
pub type KernelScanReading = (u32, [u64; 5]);

impl ReplayReport {
    /// The agreement table: per class, the wake-ups and each preset's agreement in percent.
    pub fn to_table(&self) -> String {
        use crate::text::Text;
        let mut s = String::new();
        let t = &self.trace;
        let n = &self.notes;
        if let Some(spec) = n.topology {
            s.line(format_args!(
                "topology: {} LLC x {} CPUs (smt {}, {}{}); HZ {} (the traced kernel's CONFIG_HZ, --hz)",
                spec.llcs,
                spec.llc_weight,
                spec.smt,
                spec.numbering.name(),
                if spec.cluster_size > 0 {
                    format!(", clusters of {}", spec.cluster_size)
                } else {
                    String::new()
                },
                n.hz
            ));
        }
        s.line(format_args!(
            "trace: {} lines, {} sched events on {} CPUs, {} skipped lines",
            n.lines, t.events, t.cpus, t.skipped_lines
        ));
        let c = &n.counts;
        s.line(format_args!(
            "wake-ups: {} sched_waking, {} paired with their sched_wakeup, {} unpaired; {} before \
             every CPU's first switch (left out); {} with the wakee still on a runqueue (no CPU \
             selected, left out); {} of stop tasks (their own CPU, left out)",
            c.wakings, t.wakeups, c.unpaired, t.incomplete, n.on_rq, n.stop
        ));
        s.line(format_args!(
            "inferred: {} sync wake-ups (the waker blocked within {}), a runqueue probe of \
             {} ns in this machine's time (SIS_PROP's avg_scan_cost), {} per-CPU kthread \
             wakees pinned to prev; {} queued tasks dropped when their CPU went idle; {} \
             wakees without a prio (taken as nice 0); {} deadline wakees behind a deadline task \
             (the wakee's deadline taken as not earlier); {} wake-ups on their target's wakelist \
             until it emitted their sched_wakeup (target named by the waker's next event), {} \
             wake-ups that saw such a CPU (not idle); loads in {}; {} tasks first seen with a \
             pid above every earlier one taken as created in the trace (new: full weight, \
             period_contrib 1023), {} as older (full weight, a period's phase 0)",
            c.sync_inferred,
            sync_window_text(c),
            n.probe_cost_ns,
            c.pinned,
            c.queue_fixups,
            c.prio_unknown,
            c.dl_deadline_inferred,
            c.wakelist_pending,
            c.saw_wakelist,
            if n.autogroup {
                "inferred autogroups (below)"
            } else {
                "the root task group"
            },
            c.tasks_created,
            c.tasks_older
        ));
        if c.sync_read > 0 {
            s.line(format_args!(
                "read: the wake flags of {} wake-ups from the trace's sis_select kprobe on \
                 select_task_rq_fair(), {} of them WF_SYNC (not inferred; the sync count above \
                 is of the others)",
                c.sync_read, c.sync_read_sync
            ));
        }
        if c.unselected > 0 {
            s.line(format_args!(
                "read: {} wake-ups went without select_task_rq_fair() (no sis_select kprobe \
                 before the waker's CPU moved on: ttwu_runnable() or one allowed CPU), left on \
                 their CPU for every preset",
                c.unselected
            ));
        }
        super::pending::reread_lines(&mut s, c);
        if c.nr_idle_scan_read > 0 {
            s.line(format_args!(
                "read: the LLCs' nr_idle_scan at {} wake-ups from the trace's sis_lb kprobe on \
                 sched_balance_rq() (load_balance() before 6.10; presets with the kernel's own \
                 SIS_UTIL scan it, not the one rebuilt from util)",
                c.nr_idle_scan_read
            ));
        }
        if c.ticks > 0 {
            s.line(format_args!(
                "read: {} scheduler ticks from the trace's sis_tick kprobe (entity_tick() updates \
                 the running task's load): a wake-up reads each CPU's load and util as its last \
                 update left them, not brought up to the wake-up",
                c.ticks
            ));
        }
        if c.load_read > 0 {
            super::load::load_check_line(&mut s, c);
        }
        if c.util_est_read > 0 {
            let pct = |k: usize| 100.0 * c.util_est_close[k] as f64 / c.util_est_read as f64;
            s.line(format_args!(
                "checked: the cfs_rq util_est (the sum of the queued tasks' estimates SIS_UTIL \
                 reads beside util_avg) at {} enqueues from the trace's sis_load kprobe, \
                 against the rebuild's: within 10% of the kernel's {:.1}% in 5.13-6.7's form, \
                 {:.1}% in 6.8's (UTIL_EST_RUNNABLE, linux-6.12)",
                c.util_est_read,
                pct(0),
                pct(1)
            ));
        }
        if c.flips_wakee_read + c.flips_switch_read > 0 {
            let pct = |same: u64, of: u64| 100.0 * same as f64 / of.max(1) as f64;
            let switched = match c.flips_switch_read {
                0 => String::new(),
                n => format!(
                    "{n} tasks switched in ({:.1}% as the rebuild had them) and ",
                    pct(c.flips_switch_same, n)
                ),
            };
            s.line(format_args!(
                "read: the wake-up flips (wake_wide()'s inputs) from the trace's sis_flips \
                 probes, of {switched}{} wakees ({:.1}% as the rebuild had them); {} wake-ups' \
                 wake_wide() turned with the wakee's reading",
                c.flips_wakee_read,
                pct(c.flips_wakee_same, c.flips_wakee_read),
                c.flips_wide_changed
            ));
        }
        if c.exit_wakes > 0 {
            s.line(format_args!(
                "inferred: {} wake-ups of a task's parent by the child exiting next (from \
                 do_exit(), PF_EXITING set: from 4.16 select_task_rq_fair takes none as sync)",
                c.exit_wakes
            ));
        }
        if n.autogroup {
            s.line(format_args!(
                "inferred for --autogroup (linux-4.4's effective_load()): {} autogroups, one per \
                 comm first seen; {} tasks joined one (their creator's or their comm's), {} \
                 moved to the group of a new comm, {} kernel threads in the root",
                c.autogroups, c.autogroup_joined, c.autogroup_moved, c.autogroup_kthreads
            ));
        }
        if c.delayed_dequeues > 0 {
            s.line(format_args!(
                "inferred for DELAY_DEQUEUE presets: {} blocks left sched_delayed (not eligible \
                 with others queued, by EEVDF lag rebuilt from run times and prio weights, every \
                 task in the root cfs_rq), {} wake-ups of a task still delayed on prev \
                 (ttwu_runnable: no CPU selected)",
                c.delayed_dequeues, c.delayed_wakeups
            ));
        }
        if c.delayed_selected > 0 {
            s.line(format_args!(
                "read: {} of those wake-ups went through select_task_rq_fair() (the trace's \
                 sis_select kprobe), which ttwu_runnable() would have skipped: not delayed",
                c.delayed_selected
            ));
        }
        s.push('\n');
        let w = self
            .classes
            .0
            .first()
            .map(|(_, a)| a.agree.iter().map(|(p, _)| p.len()).max().unwrap_or(6))
            .unwrap_or(6)
            .max(6);
        s.put(format_args!("{:<w$}", "agree %"));
        for (name, _) in &self.classes.0 {
            s.put(format_args!(" {:>20}", name));
        }
        s.push('\n');
        s.put(format_args!("{:<w$}", "wake-ups"));
        for (_, a) in &self.classes.0 {
            s.put(format_args!(" {:>20}", a.wakeups));
        }
        s.push('\n');
        let presets: Vec<&str> = self
            .classes
            .0
            .first()
            .map(|(_, a)| a.agree.iter().map(|(p, _)| p.as_str()).collect())
            .unwrap_or_default();
        for (i, p) in presets.iter().enumerate() {
            s.put(format_args!("{:<w$}", p));
            for (_, a) in &self.classes.0 {
                let k = a.agree[i].1;
                let cell = if a.wakeups == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1} ({k})", k as f64 * 100.0 / a.wakeups as f64)
                };
                s.put(format_args!(" {:>20}", cell));
            }
            s.push('\n');
        }
        let changed = |v: &[(String, u64)]| -> String {
            let v: Vec<String> = v
                .iter()
                .filter(|(_, k)| *k > 0)
                .map(|(p, k)| format!("{p} {k}"))
                .collect();
            v.join(", ")
        };
        let wakelist = changed(&n.wakelist_changed);
        if !wakelist.is_empty() {
            s.line(format_args!(
                "\nwake-ups whose CPU depended on the wakelist inference (the same decision \
                 with no CPU pending picks another): {wakelist}"
            ));
        }
        let groups = changed(&n.autogroup_changed);
        if !groups.is_empty() {
            s.line(format_args!(
                "\nwake-ups whose CPU depended on the autogroup inference (the same decision \
                 with effective_load() as in the root task group picks another): {groups}"
            ));
        }
        let flips = changed(&n.flips_explained);
        if !flips.is_empty() {
            let start = match n.counts.flips_wakee_read {
                0 => "every task starts it with none",
                _ => "a task no sis_flips probe read starts it with none",
            };
            s.line(format_args!(
                "\ndisagreements the wake-up flips from before the trace could explain ({start}; \
                 the same decision with wake_wide() the other way picks the kernel's CPU): \
                 {flips}"
            ));
        }
        let sync: Vec<String> = n
            .sync_explained
            .iter()
            .zip(&n.sync_explained_was_sync)
            .filter(|((_, k), _)| *k > 0)
            .map(|((p, k), (_, was))| format!("{p} {k} ({was} taken as sync)"))
            .collect();
        if !sync.is_empty() {
            s.line(format_args!(
                "\ndisagreements the sync inference could explain (the same decision with the \
                 waker's WF_SYNC the other way picks the kernel's CPU): {}",
                sync.join(", ")
            ));
        }
        let budget: Vec<String> = n
            .budget_explained
            .iter()
            .filter(|(_, (l, s))| l + s > 0)
            .map(|(p, (l, s))| format!("{p} {l} / {s}"))
            .collect();
        let read: Vec<String> = n
            .kernel_nr_idle_scan
            .iter()
            .filter_map(|(p, r)| r.map(|(site, t)| (p, site, t)))
            .filter(|(_, _, t)| t[0] > 0)
            .map(|(p, site, t)| {
                format!(
                    "{p} (at +{site:#x}) {} of {} / {} / {} / {}",
                    t[1], t[0], t[2], t[3], t[4]
                )
            })
            .collect();
        if !read.is_empty() {
            s.line(format_args!(
                "\nthe kernel's nr_idle_scan, read from its select_idle_cpu() loop (the sis_idle \
                 call site that repeats within a wake-up; where it asked about k >= 1 CPUs, all \
                 busy, nr_idle_scan was k), against the preset's (rebuilt, or read from \
                 sis_lb): equal of readings / one apart / the preset's larger by 2+ / smaller \
                 by 2+: {}",
                read.join(", ")
            ));
        }
        if !budget.is_empty() {
            s.line(format_args!(
                "\ndisagreements the scan's budget could explain (SIS_PROP's rests on \
                 avg_idle's cap, 2 * max_idle_balance_cost, which the trace cannot show, and on \
                 a probe's cost in the traced machine's time; SIS_UTIL's on the util sum the \
                 rebuilt balance read; the same decision scanning the whole LLC / stopping at \
                 the floor, SIS_PROP's 4 probes or SIS_UTIL's none, picks the kernel's CPU): {}",
                budget.join(", ")
            ));
        }
        let ceilings = self.ceilings();
        if !ceilings.is_empty() {
            let v: Vec<String> = ceilings
                .iter()
                .map(|(p, k, all)| format!("{p} {:.1}% ({k})", *k as f64 * 100.0 / *all as f64))
                .collect();
            s.line(format_args!(
                "\nthe most each preset could agree on if every disagreement the flips, WF_SYNC \
                 or the budget the other way explains went the kernel's way (a ceiling: one \
                 disagreement can be counted twice): {}",
                v.join(", ")
            ));
        }
        let (placed, kept) = n.delayed_classified;
        if placed > 0 {
            s.line(format_args!(
                "\nwake-ups DELAY_DEQUEUE presets placed by the delayed inference alone \
                 (ttwu_runnable on prev): {placed}; the kernel kept prev for {kept} ({:.1}%) \
                 and moved {} (a task truly delayed cannot move: those are the inference's \
                 misses)",
                kept as f64 * 100.0 / placed as f64,
                placed - kept
            ));
        }
        s
    }
}

impl ReplayReport {
    /// Per preset whose disagreements the flips, the sync inference or the scan's budget
    /// explain: the wake-ups it would agree on, at most, had each of those gone the kernel's
    /// way (the counts may overlap), and the wake-ups classified.
    pub fn ceilings(&self) -> Vec<(String, u64, u64)> {
        let n = &self.notes;
        let Some((_, all)) = self.classes.0.iter().find(|(c, _)| *c == "all") else {
            return Vec::new();
        };
        let of =
            |v: &[(String, u64)], p: &str| v.iter().find(|(q, _)| q == p).map_or(0, |(_, k)| *k);
        all.agree
            .iter()
            .filter_map(|(p, agree)| {
                let budget = n
                    .budget_explained
                    .iter()
                    .find(|(q, _)| q == p)
                    .map_or(0, |(_, (l, s))| l + s);
                let explained = of(&n.flips_explained, p) + of(&n.sync_explained, p) + budget;
                (explained > 0)
                    .then(|| (p.clone(), (agree + explained).min(all.wakeups), all.wakeups))
            })
            .collect()
    }
}

/// The sync window as the notes give it: its length, and what scaled it.
fn sync_window_text(c: &RebuildCounts) -> String {
    match (c.sync_window_ns, c.local_wakeup_median_ns) {
        (w, m) if w != 0 && m != 0 => format!(
            "{} us: {} us per us of this trace's median local wake-up, {}.{} us",
            w / 1000,
            rebuild::SYNC_WINDOW_NS / 1000,
            m / 1000,
            m % 1000 / 100
        ),
        _ => format!("{} us", rebuild::SYNC_WINDOW_NS / 1000),
    }
}

/// "0-3,6": a CPU list as the kernel prints one.
pub(super) fn cpu_list(cpus: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(cpu_list(&[]), "");
    }
}
