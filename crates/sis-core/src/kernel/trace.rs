//! Decision traces: every check of one wake-up, in order. Recording is a type parameter,
//! so untraced runs compile the recording away.

use serde::{Deserialize, Serialize};

/// The kernel check that produced a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    WakeAffine,
    Target,
    Prev,
    RecentUsedCpu,
    SelectIdleSmt,
    SelectIdleCore,
    SelectIdleCpu,
    SelectIdleCluster,
    ThinLlc,
    ThinRest,
    /// sched_ext's scx_select_cpu_dfl() (v6.12): the sync waker's CPU, prev's idle core, any
    /// idle core, prev, any idle CPU.
    ScxSync,
    ScxPrevCore,
    ScxIdleCore,
    ScxPrev,
    ScxIdleCpu,
    /// SIS_NODE (2023, tip only): select_idle_node() found an idle CPU in another LLC of the
    /// node, after the target's LLC came up empty.
    SelectIdleNode,
    /// SIS_SHORT (v6, 2023, unmerged): select_idle_cpu returned target, the waker's busy CPU,
    /// for a short wakee of a short waker, without a scan.
    SisShort,
    /// SIS_CURRENT (v8, 2023, unmerged): select_idle_sibling returned target, the waker's CPU,
    /// for a short wakee and a short waker that wake each other, before select_idle_cpu.
    SisCurrent,
    /// The fall-through `return target` (or prev for the thin path, or a 6.7 fallback).
    Fallback,
    /// v6.12 core.c ttwu_runnable(): the wakee was still queued `sched_delayed` on prev
    /// (DELAY_DEQUEUE), so it is requeued there and no CPU is selected (replay only).
    TtwuRunnable,
    /// linux-4.4 select_idle_sibling()'s walk (before 4.9 brought select_idle_core/cpu/smt):
    /// `for_each_lower_domain(sd)` from sd_llc, each domain's sched groups, the first whose
    /// CPUs are all idle and not target.
    GroupWalk,
}

impl Rule {
    /// Every rule, in declaration order (the Replay tab's wire numbers them by it).
    pub const ALL: [Rule; 21] = [
        Rule::WakeAffine,
        Rule::Target,
        Rule::Prev,
        Rule::RecentUsedCpu,
        Rule::SelectIdleSmt,
        Rule::SelectIdleCore,
        Rule::SelectIdleCpu,
        Rule::SelectIdleCluster,
        Rule::ThinLlc,
        Rule::ThinRest,
        Rule::Fallback,
        Rule::ScxSync,
        Rule::ScxPrevCore,
        Rule::ScxIdleCore,
        Rule::ScxPrev,
        Rule::ScxIdleCpu,
        Rule::SelectIdleNode,
        Rule::SisShort,
        Rule::SisCurrent,
        Rule::TtwuRunnable,
        Rule::GroupWalk,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::WakeAffine => "wake_affine",
            Rule::Target => "target",
            Rule::Prev => "prev",
            Rule::RecentUsedCpu => "recent_used_cpu",
            Rule::SelectIdleSmt => "select_idle_smt",
            Rule::SelectIdleCore => "select_idle_core",
            Rule::SelectIdleCpu => "select_idle_cpu",
            Rule::SelectIdleCluster => "select_idle_cluster",
            Rule::ThinLlc => "thin_llc",
            Rule::ThinRest => "thin_rest",
            Rule::ScxSync => "scx_sync",
            Rule::ScxPrevCore => "scx_prev_core",
            Rule::ScxIdleCore => "scx_idle_core",
            Rule::ScxPrev => "scx_prev",
            Rule::ScxIdleCpu => "scx_idle_cpu",
            Rule::SelectIdleNode => "select_idle_node",
            Rule::SisShort => "sis_short",
            Rule::SisCurrent => "sis_current",
            Rule::Fallback => "fallback",
            Rule::TtwuRunnable => "ttwu_runnable",
            Rule::GroupWalk => "group_walk",
        }
    }

    /// The kernel function the check lives in.
    pub fn kernel_function(self) -> &'static str {
        match self {
            Rule::WakeAffine => "wake_affine()",
            Rule::Target | Rule::Prev | Rule::RecentUsedCpu | Rule::Fallback | Rule::GroupWalk => {
                "select_idle_sibling()"
            }
            Rule::SelectIdleSmt => "select_idle_smt()",
            Rule::SelectIdleCore => "select_idle_core()",
            Rule::SelectIdleCpu | Rule::SelectIdleCluster => "select_idle_cpu()",
            Rule::ThinLlc | Rule::ThinRest => "select_task_rq_fair_thin()",
            Rule::ScxSync
            | Rule::ScxPrevCore
            | Rule::ScxIdleCore
            | Rule::ScxPrev
            | Rule::ScxIdleCpu => "scx_select_cpu_dfl()",
            Rule::SelectIdleNode => "select_idle_node()",
            Rule::SisShort => "select_idle_cpu()",
            Rule::SisCurrent => "select_idle_sibling()",
            Rule::TtwuRunnable => "ttwu_runnable()",
        }
    }

    /// Whether a CPU chosen by this rule was found by the LLC (domain) search.
    pub fn is_domain_search(self) -> bool {
        matches!(
            self,
            Rule::SelectIdleSmt
                | Rule::SelectIdleCore
                | Rule::SelectIdleCpu
                | Rule::SelectIdleCluster
                | Rule::ThinLlc
                | Rule::ThinRest
                | Rule::ScxIdleCore
                | Rule::ScxIdleCpu
                | Rule::SelectIdleNode
                | Rule::GroupWalk
        )
    }
}

/// What a check saw on the CPU it looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Saw {
    Idle,
    SchedIdle,
    Busy,
    NotAllowed,
}

impl Saw {
    /// Every value, in declaration order.
    pub const ALL: [Saw; 4] = [Saw::Idle, Saw::SchedIdle, Saw::Busy, Saw::NotAllowed];

    pub fn name(self) -> &'static str {
        match self {
            Saw::Idle => "idle",
            Saw::SchedIdle => "sched_idle",
            Saw::Busy => "busy",
            Saw::NotAllowed => "not_allowed",
        }
    }
}

/// Why the LLC scan stopped (or did not start).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanEnd {
    /// An idle CPU or core was found.
    Found,
    /// The budget `nr` ran out (`if (!--nr) return -1`).
    Budget,
    /// Every allowed CPU of the LLC was visited.
    Exhausted,
    /// SIS_UTIL: nr_idle_scan was 0 (`nr == 1`), or the RFC's overloaded flag was set.
    NoScan,
    /// SIS_AVG_CPU: avg_idle below the average scan cost.
    AvgCpu,
}

impl ScanEnd {
    /// Every value, in declaration order.
    pub const ALL: [ScanEnd; 5] = [
        ScanEnd::Found,
        ScanEnd::Budget,
        ScanEnd::Exhausted,
        ScanEnd::NoScan,
        ScanEnd::AvgCpu,
    ];

    /// The name the JSON and the testdata use.
    pub fn name(self) -> &'static str {
        match self {
            ScanEnd::Found => "found",
            ScanEnd::Budget => "budget",
            ScanEnd::Exhausted => "exhausted",
            ScanEnd::NoScan => "no_scan",
            ScanEnd::AvgCpu => "avg_cpu",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub rule: Rule,
    pub cpu: u32,
    pub saw: Saw,
    /// The scan budget after this probe, when one applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nr: Option<i64>,
}

/// wake_affine_weight()'s two sides as it compared them (linux-6.0 fair.c): `this_eff_load =
/// (cpu_load(this_cpu) - current_load [sync] + task_load) * this_pct * capacity_of(prev_cpu)`
/// against `prev_eff_load = (cpu_load(prev_cpu) - task_load) * prev_pct *
/// capacity_of(this_cpu) [+ 1 if sync]`; the smaller side wins (4.14: this_cpu on a tie).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AffineWeight {
    pub this_load: i64,
    pub prev_load: i64,
    /// task_h_load(p): the wakee's load.
    pub task_load: i64,
    /// task_h_load(current), the sync waker's load (None without WF_SYNC).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub current_load: Option<i64>,
    /// WA_BIAS: 100 for this_cpu, 100 + (imbalance_pct - 100) / 2 for prev (1 without it).
    pub this_pct: i64,
    pub prev_pct: i64,
    pub this_eff_load: i64,
    pub prev_eff_load: i64,
    /// The sync waker's load was over its CPU's: this_cpu at once, nothing compared.
    pub waker_heavier: bool,
    pub this_wins: bool,
}

impl AffineWeight {
    /// One line: each side's terms and which won.
    pub fn to_text(&self, this: u32, prev: u32) -> String {
        if self.waker_heavier {
            return format!(
                "the sync waker's load {} is over cpu {this}'s {}: this_cpu",
                self.current_load.unwrap_or(0),
                self.this_load
            );
        }
        let waker = self
            .current_load
            .map_or(String::new(), |c| format!(" - waker {c}"));
        format!(
            "this_eff_load {} (cpu {this}: load {}{waker} + wakee {}, x{} x1024) vs prev_eff_load {} \
             (cpu {prev}: load {} - wakee {}, x{} x1024{}): {}",
            self.this_eff_load,
            self.this_load,
            self.task_load,
            self.this_pct,
            self.prev_eff_load,
            self.prev_load,
            self.task_load,
            self.prev_pct,
            if self.current_load.is_some() { " +1" } else { "" },
            if self.this_wins { "this_cpu" } else { "prev" }
        )
    }
}

/// Which wake-up: the fields that name one wake-up wherever it is shown or kept (a decision,
/// the replay's pending wakings and records, the page's log and replay views).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeupId {
    /// Its place among the run's (or the trace's) wake-ups, from 1.
    pub seq: u64,
    pub time_ns: u64,
    pub waker_cpu: u32,
    pub wakee: u32,
    /// WF_SYNC (in a replay: inferred from the waker blocking soon after).
    pub sync: bool,
    /// The wakee's previous CPU.
    pub prev: u32,
}

/// One wake-up decision, in full.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    #[serde(flatten)]
    pub id: WakeupId,
    pub target: u32,
    pub recent_used_cpu: Option<u32>,
    pub has_idle_core: bool,
    pub nr_idle_scan: u32,
    pub steps: Vec<Step>,
    /// The budget at the start of the LLC scan (None: no throttle or no scan reached).
    pub nr_before: Option<i64>,
    pub nr_after: Option<i64>,
    pub scan_end: Option<ScanEnd>,
    pub result: u32,
    pub decided_by: Option<Rule>,
    /// Idle CPUs of the target's LLC that the task could use but no check looked at.
    pub missed_idle: Vec<u32>,
    /// What each probe of this wake-up cost, ns (probe_cost_ns with the contention of the
    /// scans in flight; 0 = not recorded by a run).
    #[serde(default)]
    pub probe_cost_ns: u64,
    /// wake_affine_weight()'s comparison, when it ran.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub affine_weight: Option<AffineWeight>,
}

/// Receives the steps of a decision. `()` records nothing.
pub trait Recorder {
    const ON: bool;
    fn step(&mut self, rule: Rule, cpu: u32, saw: Saw, nr: Option<i64>);
    fn nr_before(&mut self, nr: Option<i64>);
    fn scan_end(&mut self, end: ScanEnd, nr: Option<i64>);
    fn affine_weight(&mut self, _: AffineWeight) {}
}

impl Recorder for () {
    const ON: bool = false;
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn step(&mut self, _: Rule, _: u32, _: Saw, _: Option<i64>) {}
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn nr_before(&mut self, _: Option<i64>) {}
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn scan_end(&mut self, _: ScanEnd, _: Option<i64>) {}
}

impl Recorder for Decision {
    const ON: bool = true;
    fn step(&mut self, rule: Rule, cpu: u32, saw: Saw, nr: Option<i64>) {
        self.steps.push(Step { rule, cpu, saw, nr });
    }
    fn nr_before(&mut self, nr: Option<i64>) {
        self.nr_before = nr;
    }
    fn scan_end(&mut self, end: ScanEnd, nr: Option<i64>) {
        self.scan_end = Some(end);
        self.nr_after = nr;
    }
    fn affine_weight(&mut self, a: AffineWeight) {
        self.affine_weight = Some(a);
    }
}

impl Decision {
    /// The LLC search that ran when no select_idle_cpu scan did (`scan_end` None): 4.4's
    /// group walk, or select_idle_core (4.9-5.11) alone; None if neither. The CLI's text and
    /// the app's verdict both name it, so neither denies the checks above it.
    pub fn search_without_scan(&self) -> Option<Rule> {
        if self.scan_end.is_some() {
            return None;
        }
        let ran = |r: Rule| self.steps.iter().any(|s| s.rule == r);
        [Rule::GroupWalk, Rule::SelectIdleCore]
            .into_iter()
            .find(|&r| ran(r))
    }

    /// Clears for reuse, keeping the steps' capacity (no allocation per probe).
    pub fn reset(&mut self) {
        let mut steps = std::mem::take(&mut self.steps);
        let mut missed = std::mem::take(&mut self.missed_idle);
        steps.clear();
        missed.clear();
        *self = Decision {
            steps,
            missed_idle: missed,
            ..Decision::default()
        };
    }

    /// Number of runqueues probed (steps that looked at a CPU's state).
    pub fn probes(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.rule != Rule::WakeAffine)
            .count()
    }

    /// Who woke whom, in the one wording every view uses: "Wake-up #N: task T woken by CPU W,
    /// prev CPU P, target CPU G".
    pub fn who(&self) -> String {
        format!(
            "Wake-up #{}: task {} woken by CPU {}{}, prev CPU {}, target CPU {}",
            self.id.seq,
            self.id.wakee,
            self.id.waker_cpu,
            if self.id.sync { " (sync)" } else { "" },
            self.id.prev,
            self.target
        )
    }

    /// Where it went and why, in the one wording every view uses: "→ CPU R by RULE after K
    /// probes".
    pub fn outcome(&self) -> String {
        let n = self.probes();
        format!(
            "→ CPU {} by {} after {n} probe{}",
            self.result,
            self.decided_by.map_or("-", |r| r.name()),
            if n == 1 { "" } else { "s" }
        )
    }

    /// A multi-line, human-readable account of the decision, numbered `#seq`.
    pub fn to_text(&self) -> String {
        self.to_text_numbered(&format!("#{}", self.id.seq))
    }

    /// [`Decision::to_text`] under another number for the wake-up: the replay numbers its
    /// wake-ups by trace line (`line 114`), one numbering everywhere.
    pub fn to_text_numbered(&self, number: &str) -> String {
        use crate::text::Text;
        let mut s = String::new();
        s.line(format_args!("{number} t={}ns wakee={} waker_cpu={}{} prev={} target={} recent_used_cpu={} has_idle_core={} nr_idle_scan={}",
            self.id.time_ns,
            self.id.wakee,
            self.id.waker_cpu,
            if self.id.sync { " (sync)" } else { "" },
            self.id.prev,
            self.target,
            self.recent_used_cpu.map_or("-".to_string(), |c| c.to_string()),
            self.has_idle_core,
            self.nr_idle_scan));
        // A run of probes by one rule over consecutive CPUs that all saw the same, with the
        // budget counting down by one, is one line (`cpu 8-12  busy  nr=7..3`): a scan of a
        // 1,024-CPU LLC is then a few lines, not a thousand.
        let mut i = 0;
        while i < self.steps.len() {
            let st = &self.steps[i];
            let mut j = i;
            while let Some(next) = self.steps.get(j + 1) {
                let last = &self.steps[j];
                let nr_follows = match (last.nr, next.nr) {
                    (None, None) => true,
                    (Some(a), Some(b)) => b == a - 1,
                    _ => false,
                };
                if next.rule != st.rule
                    || next.saw != st.saw
                    || next.cpu != last.cpu + 1
                    || !nr_follows
                {
                    break;
                }
                j += 1;
            }
            let end = &self.steps[j];
            let cpus = match j > i {
                true => format!("{}-{}", st.cpu, end.cpu),
                false => st.cpu.to_string(),
            };
            s.put(format_args!(
                "  {:<20} cpu {:>4}  {:<11}",
                st.rule.name(),
                cpus,
                st.saw.name()
            ));
            match (st.nr, end.nr) {
                (Some(a), Some(b)) if j > i => s.put(format_args!(" nr={a}..{b}")),
                (Some(a), _) => s.put(format_args!(" nr={a}")),
                _ => {}
            }
            // No trailing blanks when there is no nr column.
            let trimmed = s.trim_end_matches(' ').len();
            s.truncate(trimmed);
            s.push('\n');
            if let (Rule::WakeAffine, Some(a)) = (st.rule, &self.affine_weight) {
                s.line(format_args!(
                    "  {:<20} {}",
                    "wake_affine_weight",
                    a.to_text(self.id.waker_cpu, self.id.prev)
                ));
            }
            i = j + 1;
        }
        let fmt_nr = |n: Option<i64>| n.map_or("inf".to_string(), |v| v.to_string());
        // No select_idle_cpu scan: say which search ran instead, so the line does not deny
        // the checks above it.
        let no_scan = match self.search_without_scan() {
            Some(Rule::GroupWalk) => "not run (4.4's group walk instead)",
            Some(_) => "not run (select_idle_core only)",
            None => "not run",
        };
        s.line(format_args!(
            "  => cpu {} by {} (nr {} -> {}, scan {}) missed idle: [{}]",
            self.result,
            self.decided_by.map_or("-", |r| r.name()),
            fmt_nr(self.nr_before),
            fmt_nr(self.nr_after),
            self.scan_end.map_or(no_scan, |e| match e {
                ScanEnd::Found => "found",
                ScanEnd::Budget => "budget exhausted",
                ScanEnd::Exhausted => "visited every CPU",
                ScanEnd::NoScan => "skipped (no budget)",
                ScanEnd::AvgCpu => "skipped (SIS_AVG_CPU)",
            }),
            crate::text::CpuList(&self.missed_idle)
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(rule: Rule, cpu: u32, saw: Saw, nr: Option<i64>) -> Step {
        Step { rule, cpu, saw, nr }
    }

    #[test]
    fn a_decision_without_select_idle_cpu_names_the_search_that_ran() {
        let d = Decision {
            steps: vec![
                step(Rule::Target, 0, Saw::Busy, None),
                step(Rule::GroupWalk, 2, Saw::Idle, None),
                step(Rule::GroupWalk, 3, Saw::Idle, None),
            ],
            result: 2,
            decided_by: Some(Rule::GroupWalk),
            ..Decision::default()
        };
        let text = d.to_text();
        assert!(
            text.contains(
                "=> cpu 2 by group_walk (nr inf -> inf, scan not run (4.4's group walk instead))"
            ),
            "{text}"
        );
        assert_eq!(Rule::GroupWalk.kernel_function(), "select_idle_sibling()");
        let d = Decision {
            steps: vec![step(Rule::Target, 0, Saw::Idle, None)],
            decided_by: Some(Rule::Target),
            ..Decision::default()
        };
        assert!(d.to_text().contains("scan not run) missed idle"));
    }

    #[test]
    fn a_run_of_like_probes_is_one_line() {
        let d = Decision {
            steps: vec![
                step(Rule::Target, 7, Saw::Busy, None),
                step(Rule::SelectIdleCpu, 8, Saw::Busy, Some(7)),
                step(Rule::SelectIdleCpu, 9, Saw::Busy, Some(6)),
                step(Rule::SelectIdleCpu, 10, Saw::Busy, Some(5)),
                // Not consecutive: a new line.
                step(Rule::SelectIdleCpu, 12, Saw::Busy, Some(4)),
                step(Rule::SelectIdleCpu, 13, Saw::Idle, Some(3)),
            ],
            missed_idle: vec![0, 1, 2, 5],
            ..Decision::default()
        };
        let text = d.to_text();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(
            lines[1].contains("cpu 8-10") && lines[1].ends_with("nr=7..5"),
            "{text}"
        );
        assert!(
            lines[2].contains("cpu   12") && lines[2].ends_with("nr=4"),
            "{text}"
        );
        assert!(
            lines[3].contains("idle") && lines[3].ends_with("nr=3"),
            "{text}"
        );
        assert!(lines[4].ends_with("missed idle: [0-2,5]"), "{text}");
    }

    #[test]
    fn a_sync_wake_affine_weight_names_the_wakers_load_and_the_tie_break() {
        let a = AffineWeight {
            this_load: 2048,
            prev_load: 1024,
            task_load: 512,
            current_load: Some(1024),
            this_pct: 100,
            prev_pct: 108,
            this_eff_load: (2048 - 1024 + 512) * 100 * 1024,
            prev_eff_load: (1024 - 512) * 108 * 1024 + 1,
            waker_heavier: false,
            this_wins: false,
        };
        assert_eq!(
            a.to_text(3, 5),
            "this_eff_load 157286400 (cpu 3: load 2048 - waker 1024 + wakee 512, x100 x1024) vs \
             prev_eff_load 56623105 (cpu 5: load 1024 - wakee 512, x108 x1024 +1): prev"
        );
        let heavy = AffineWeight {
            current_load: Some(4096),
            waker_heavier: true,
            this_wins: true,
            ..a
        };
        assert_eq!(
            heavy.to_text(3, 5),
            "the sync waker's load 4096 is over cpu 3's 2048: this_cpu"
        );
    }
}
