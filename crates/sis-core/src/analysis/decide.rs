//! One wake-up decision on a hand-built state (`sis decide --state FILE`).

use crate::error::InputError;
use crate::kernel::cpumask::CpuMask;
use crate::kernel::features::preset;
use crate::kernel::pelt::SchedAvg;
use crate::kernel::select::{TaskDuration, Wakee, Waker};
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::topology::{Numbering, Topology, TopologySpec};
use crate::kernel::trace::{Decision, Rule, ScanEnd, Step, WakeupId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The largest `cpus[].util_est` a state file may give: 64 tasks' worth of full estimates.
const MAX_RQ_UTIL_EST: u32 = 64 * 1024;

fn one() -> u32 {
    1
}
fn contiguous() -> Numbering {
    Numbering::Contiguous
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateTopology {
    #[serde(default = "one")]
    pub llcs: u32,
    pub llc_weight: u32,
    #[serde(default = "one")]
    pub smt: u32,
    #[serde(default = "contiguous")]
    pub numbering: Numbering,
    #[serde(default)]
    pub cluster_size: u32,
    /// NUMA nodes, each an equal run of LLCs (SIS_NODE stops at one; sched_ext 6.15 searches
    /// prev's node after its LLC).
    #[serde(default = "one")]
    pub nodes: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateCpu {
    pub cpu: u32,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub util_avg: Option<u32>,
    #[serde(default)]
    pub nr_running: Option<u32>,
    #[serde(default)]
    pub avg_idle: Option<u64>,
    /// The runqueue's `util_est.enqueued` (the sum of its tasks' estimates) [0]: with
    /// UTIL_EST, SIS_UTIL's sum reads max(util_avg, util_est) per CPU.
    #[serde(default)]
    pub util_est: Option<u32>,
    /// SIS_FILTER's `rq->overloaded`, as update_overloaded_rq last wrote it [whether the CPU
    /// runs two or more non-SCHED_IDLE tasks now, as if its tick had just run]: set it apart
    /// from nr_running for a mask the tick has not caught up with.
    #[serde(default)]
    pub overloaded: Option<bool>,
    /// SIS_CACHE: how much longer this idle CPU stays cache-hot for the task that slept on it
    /// last, ns (`rq->cache_hot_timeout` less now) [0: not hot].
    #[serde(default)]
    pub cache_hot_ns: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateLlc {
    pub has_idle_cores: Option<bool>,
    pub nr_idle_scan: Option<u32>,
    pub avg_scan_cost: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateWakee {
    pub prev: Option<u32>,
    pub recent_used_cpu: Option<u32>,
    pub allowed: Option<Vec<u32>>,
    pub util_avg: Option<u32>,
    /// SIS_SHORT: `p->se.dur_avg`, ns [0: never slept, not short].
    #[serde(default)]
    pub dur_avg: Option<u64>,
    /// `p->wakee_flips` [0].
    #[serde(default)]
    pub wakee_flips: Option<u32>,
    /// SIS_CURRENT: `p->last_wakee == current`, the waker [false].
    #[serde(default)]
    pub last_wakee_is_waker: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateWaker {
    pub cpu: Option<u32>,
    pub sync: Option<bool>,
    /// wake_wide()'s verdict for this waker/wakee pair [false]: true turns want_affine off.
    #[serde(default)]
    pub wake_wide: Option<bool>,
    /// The waker's own load, task_h_load(current), for wake_affine_weight [the waker CPU's
    /// util_avg].
    #[serde(default)]
    pub util_avg: Option<u32>,
    /// SIS_SHORT: the waker's `se.dur_avg`, ns; it is `cpu_curr(waker.cpu)` [0].
    #[serde(default)]
    pub dur_avg: Option<u64>,
    /// The waker's `wakee_flips` after record_wakee() [0].
    #[serde(default)]
    pub wakee_flips: Option<u32>,
    /// SIS_CURRENT: `current->last_wakee == p`, after record_wakee() [false].
    #[serde(default)]
    pub last_wakee_is_wakee: Option<bool>,
}

/// The state file of the design's contract.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    pub topology: StateTopology,
    #[serde(default)]
    pub cpus: Vec<StateCpu>,
    #[serde(default)]
    pub llc: Option<StateLlc>,
    #[serde(default)]
    pub wakee: Option<StateWakee>,
    #[serde(default)]
    pub waker: Option<StateWaker>,
    #[serde(default)]
    pub target: Option<u32>,
    #[serde(default)]
    pub imbalance_pct: Option<u32>,
    /// Feature overrides on top of each preset, e.g. {"SIS_PROP": true}.
    #[serde(default)]
    pub features: BTreeMap<String, bool>,
}

/// One preset's answer, in the CLI's JSON shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecideResult {
    pub preset: String,
    pub result: u32,
    pub decided_by: String,
    pub target: u32,
    pub steps: Vec<Step>,
    pub nr_before: Option<i64>,
    pub nr_after: Option<i64>,
    pub scan_end: Option<ScanEnd>,
    pub missed_idle: Vec<u32>,
}

impl StateFile {
    pub fn from_json(text: &str) -> Result<Self, InputError> {
        serde_json::from_str(text).map_err(|e| {
            InputError::range(
                "state",
                e.to_string(),
                "a state file as in design.md (JSON)",
            )
        })
    }
}

fn cpu_field(field: &str, cpu: u32, nr: u32) -> Result<u32, InputError> {
    if cpu < nr {
        Ok(cpu)
    } else {
        Err(InputError::range(
            field,
            cpu,
            &format!("a CPU id in 0..={}", nr - 1),
        ))
    }
}

/// The state a decision runs on, built and checked from a state file.
struct Prepared {
    preset: &'static str,
    st: SchedState,
    allowed: CpuMask,
    prev: u32,
    recent: Option<u32>,
    target: Option<u32>,
    wakee_load: u64,
    wake_wide: bool,
    waker_cpu: u32,
    sync: bool,
    waker_load: u64,
    wakee_dur: TaskDuration,
    waker_dur: TaskDuration,
}

impl Prepared {
    /// The state to decide on, and the wakee and waker as select_task_rq_fair takes them.
    fn split(&mut self) -> (&mut SchedState, Wakee<'_>, Waker) {
        let w = Waker {
            cpu: self.waker_cpu,
            sync: self.sync,
            load: self.waker_load,
            now_ns: 0,
            jiffies: 0,
            curr: self.waker_dur,
            exiting: false,
        };
        let p = Wakee {
            prev: self.prev,
            recent_used_cpu: self.recent,
            allowed: &self.allowed,
            load: self.wakee_load,
            wake_wide: self.wake_wide,
            dur: self.wakee_dur,
        };
        (&mut self.st, p, w)
    }
}

/// What a wake-up path decides on a state file and what it counted: for tests that hold the
/// untraced path (the one every run takes, with its word-at-a-time scans) against the traced,
/// CPU-by-CPU one.
#[derive(Clone, Debug, PartialEq)]
pub struct DecideOutcome {
    pub result: u32,
    pub decided_by: Rule,
    pub target: u32,
    pub counters: Counters,
}

/// Runs the decision for `preset_name` on the state, recording its steps (`traced`) or not.
pub fn decide_outcome(
    file: &StateFile,
    preset_name: &str,
    traced: bool,
) -> Result<DecideOutcome, InputError> {
    let mut pp = prepare(file, preset_name)?;
    let target = pp.target;
    let (st, p, w) = pp.split();
    // The untraced path scans a word at a time over the idle mask the engine keeps; keep it
    // here too when it is exactly what choose_idle_cpu() accepts (no SCHED_IDLE CPU), as the engine.
    if !traced && st.rqs.iter().all(|rq| rq.nr_sched_idle == 0) {
        let mut idle = CpuMask::new(st.topo.nr_cpus());
        for (cpu, rq) in st.rqs.iter().enumerate() {
            if rq.available_idle() {
                idle.set(cpu as u32);
            }
        }
        st.idle_cpus = Some(idle);
    }
    let mut c = Counters::default();
    let mut d = Decision::default();
    let out = match (target, traced) {
        (Some(t), true) if !st.features.replaces_sis() => {
            st.select_idle_sibling(&p, &w, t, &mut c, &mut d)
        }
        (Some(t), false) if !st.features.replaces_sis() => {
            st.select_idle_sibling(&p, &w, t, &mut c, &mut ())
        }
        (_, true) => st.select_task_rq_fair(&p, &w, &mut c, &mut d),
        (_, false) => st.select_task_rq_fair(&p, &w, &mut c, &mut ()),
    };
    Ok(DecideOutcome {
        result: out.cpu,
        decided_by: out.rule,
        target: out.target,
        counters: c,
    })
}

/// Runs the decision for `preset_name` on the state.
pub fn decide(file: &StateFile, preset_name: &str) -> Result<DecideResult, InputError> {
    let mut pp = prepare(file, preset_name)?;
    let (preset, prev, waker_cpu, recent, target) =
        (pp.preset, pp.prev, pp.waker_cpu, pp.recent, pp.target);
    let (st, p, w) = pp.split();
    let mut d = Decision {
        id: WakeupId {
            prev,
            waker_cpu,
            sync: w.sync,
            ..Default::default()
        },
        recent_used_cpu: recent,
        ..Default::default()
    };
    let mut c = Counters::default();
    let llc_of_t = st.topo.llc_of(target.unwrap_or(prev)) as usize;
    d.has_idle_core = st.llcs[llc_of_t].has_idle_cores;
    d.nr_idle_scan = st.llcs[llc_of_t].nr_idle_scan;
    let snapshot = st.clone();
    let out = match target {
        Some(t) if !st.features.replaces_sis() => st.select_idle_sibling(&p, &w, t, &mut c, &mut d),
        _ => st.select_task_rq_fair(&p, &w, &mut c, &mut d),
    };
    let mut missed = Vec::new();
    d.result = out.cpu;
    snapshot.missed_idle(&p, out.target, &d, &mut missed);
    Ok(DecideResult {
        preset: preset.to_string(),
        result: out.cpu,
        decided_by: out.rule.name().to_string(),
        target: out.target,
        steps: d.steps,
        nr_before: d.nr_before,
        nr_after: d.nr_after,
        scan_end: d.scan_end,
        missed_idle: missed,
    })
}

fn prepare(file: &StateFile, preset_name: &str) -> Result<Prepared, InputError> {
    let pr = preset(preset_name)?;
    let mut features = pr.features;
    for (name, on) in &file.features {
        features.set(name, *on)?;
    }
    let t = &file.topology;
    let topo = Topology::new(TopologySpec {
        llcs: t.llcs,
        llc_weight: t.llc_weight,
        smt: t.smt,
        cluster_size: t.cluster_size,
        numbering: t.numbering,
        nodes: t.nodes,
    })?;
    let n = topo.nr_cpus();
    let pct = file.imbalance_pct.unwrap_or(pr.imbalance_pct);
    if !(100..=1000).contains(&pct) {
        return Err(InputError::range(
            "imbalance_pct",
            pct,
            "an integer in 100..=1000",
        ));
    }
    let mut st = SchedState::new(topo, features, pct, 0);
    st.pkg_imbalance_pct = pr.pkg_imbalance_pct();
    let mut listed = CpuMask::new(n);
    for (i, c) in file.cpus.iter().enumerate() {
        let cpu = cpu_field(&format!("cpus[{i}].cpu"), c.cpu, n)?;
        if listed.test(cpu) {
            let first = file.cpus.iter().position(|o| o.cpu == cpu).unwrap_or(i);
            return Err(InputError::range(
                &format!("cpus[{i}].cpu"),
                cpu,
                &format!("a CPU not listed before (cpus[{first}] is CPU {cpu} already)"),
            ));
        }
        listed.set(cpu);
        let state = c.state.as_deref().unwrap_or("idle");
        let (default_nr, sched_idle) = match state {
            "idle" => (0, false),
            "busy" => (1, false),
            "sched_idle" => (1, true),
            other => {
                return Err(InputError::unknown(
                    &format!("cpus[{i}].state"),
                    other,
                    ["idle", "sched_idle", "busy"],
                ))
            }
        };
        let nr_running = c.nr_running.unwrap_or(default_nr);
        if (state == "idle") != (nr_running == 0) {
            return Err(InputError::range(
                &format!("cpus[{i}].nr_running"),
                nr_running,
                if state == "idle" {
                    "0 for an idle CPU"
                } else {
                    "at least 1 for a busy or sched_idle CPU"
                },
            ));
        }
        let util = c.util_avg.unwrap_or(if state == "busy" { 1024 } else { 0 });
        if util > 1024 {
            return Err(InputError::range(
                &format!("cpus[{i}].util_avg"),
                util,
                "an integer in 0..=1024",
            ));
        }
        let rq = &mut st.rqs[cpu as usize];
        rq.nr_running = nr_running;
        rq.nr_sched_idle = if sched_idle { nr_running } else { 0 };
        rq.pelt = SchedAvg::settled(0, util);
        if let Some(e) = c.util_est {
            if e > MAX_RQ_UTIL_EST {
                return Err(InputError::range(
                    &format!("cpus[{i}].util_est"),
                    e,
                    &format!("an integer in 0..={MAX_RQ_UTIL_EST}"),
                ));
            }
            rq.pelt.util_est.enqueued = e;
        }
        if let Some(a) = c.avg_idle {
            rq.avg_idle = a;
            rq.wake_avg_idle = a;
        }
        if c.overloaded == Some(true) && state == "idle" {
            return Err(InputError::range(
                &format!("cpus[{i}].overloaded"),
                "true",
                "false for an idle CPU (set_next_task_idle clears it)",
            ));
        }
        // The decision runs at time 0: the timeout is the time left.
        st.rqs[cpu as usize].cache_hot_timeout = c.cache_hot_ns.unwrap_or(0);
        let overloaded = c.overloaded.unwrap_or(st.rqs[cpu as usize].rq_overloaded());
        st.set_overloaded(cpu, overloaded);
    }
    // Derived LLC state: as the kernel keeps it (idle cores from the CPUs, nr_idle_scan from
    // the last periodic balance over these utils), unless the file fixes it.
    for llc in 0..st.topo.spec.llcs {
        st.update_idle_cpu_scan(llc);
        let has_idle_core = st.topo.smt() > 1
            && st.topo.llc_span(llc).iter().any(|c| {
                st.topo
                    .smt_siblings(c)
                    .iter()
                    .all(|s| st.rqs[*s as usize].available_idle())
            });
        st.llcs[llc as usize].has_idle_cores = has_idle_core;
    }
    let wakee = file.wakee.clone().unwrap_or_default();
    let waker = file.waker.clone().unwrap_or_default();
    let prev = cpu_field("wakee.prev", wakee.prev.unwrap_or(0), n)?;
    let waker_cpu = cpu_field("waker.cpu", waker.cpu.unwrap_or(0), n)?;
    // The file's `llc` block applies to every LLC (whichever one wake_affine lands in).
    if let Some(l) = &file.llc {
        if let Some(v) = l.nr_idle_scan {
            if v > st.topo.llc_weight() {
                return Err(InputError::range(
                    "llc.nr_idle_scan",
                    v,
                    &format!("an integer in 0..={}", st.topo.llc_weight()),
                ));
            }
        }
        for shared in st.llcs.iter_mut() {
            if let Some(v) = l.has_idle_cores {
                shared.has_idle_cores = v;
            }
            if let Some(v) = l.nr_idle_scan {
                shared.nr_idle_scan = v;
            }
        }
        // Every CPU's own sd_llc->avg_scan_cost (the waker's is the one read).
        if let Some(v) = l.avg_scan_cost {
            for rq in st.rqs.iter_mut() {
                rq.avg_scan_cost = v;
            }
        }
    }
    let recent = match wakee.recent_used_cpu {
        Some(r) => Some(cpu_field("wakee.recent_used_cpu", r, n)?),
        None => None,
    };
    let allowed = match &wakee.allowed {
        Some(list) => {
            let mut m = CpuMask::new(n);
            for (i, c) in list.iter().enumerate() {
                m.set(cpu_field(&format!("wakee.allowed[{i}]"), *c, n)?);
            }
            if m.is_empty() {
                return Err(InputError::range(
                    "wakee.allowed",
                    "[]",
                    "a non-empty list of CPU ids",
                ));
            }
            m
        }
        None => CpuMask::full(n),
    };
    if !allowed.test(prev) {
        return Err(InputError::range(
            "wakee.prev",
            prev,
            "a CPU in wakee.allowed",
        ));
    }
    let target = match file.target {
        Some(t) => Some(cpu_field("target", t, n)?),
        None => None,
    };
    let waker_load = waker
        .util_avg
        .map_or(st.rqs[waker_cpu as usize].util_avg(), |u| u.min(1024)) as u64;
    Ok(Prepared {
        preset: pr.name,
        st,
        allowed,
        prev,
        recent,
        target,
        wakee_load: wakee.util_avg.unwrap_or(0) as u64,
        wake_wide: waker.wake_wide.unwrap_or(false),
        waker_cpu,
        sync: waker.sync.unwrap_or(false),
        waker_load,
        wakee_dur: TaskDuration {
            dur_avg: wakee.dur_avg.unwrap_or(0),
            wakee_flips: wakee.wakee_flips.unwrap_or(0),
            last_wakee_is_peer: wakee.last_wakee_is_waker.unwrap_or(false),
        },
        waker_dur: TaskDuration {
            dur_avg: waker.dur_avg.unwrap_or(0),
            wakee_flips: waker.wakee_flips.unwrap_or(0),
            last_wakee_is_peer: waker.last_wakee_is_wakee.unwrap_or(false),
        },
    })
}

impl DecideResult {
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}: cpu {} by {} (target {})\n",
            self.preset, self.result, self.decided_by, self.target
        );
        for st in &self.steps {
            s.push_str(&format!(
                "  {:<20} cpu {:>4}  {}",
                st.rule.name(),
                st.cpu,
                st.saw.name()
            ));
            if let Some(nr) = st.nr {
                s.push_str(&format!("  nr={nr}"));
            }
            s.push('\n');
        }
        let f = |n: Option<i64>| n.map_or("inf".into(), |v: i64| v.to_string());
        s.push_str(&format!(
            "  nr {} -> {}; missed idle [{}]\n",
            f(self.nr_before),
            f(self.nr_after),
            crate::text::CpuList(&self.missed_idle)
        ));
        s
    }

    /// The rule names of the steps, in order (handy in tests).
    pub fn rules(&self) -> Vec<Rule> {
        self.steps.iter().map(|s| s.rule).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every core of the LLC has a busy sibling (CPUs 3 and 7 idle), yet has_idle_cores says
    /// otherwise: the core scan fails.
    const NO_IDLE_CORE: &str = r#"{
      "topology": { "llcs": 1, "llc_weight": 8, "smt": 2, "numbering": "contiguous" },
      "cpus": [
        { "cpu": 0, "state": "busy" }, { "cpu": 1, "state": "busy" },
        { "cpu": 2, "state": "busy" }, { "cpu": 3, "state": "idle" },
        { "cpu": 4, "state": "busy", "avg_idle": 1000000 }, { "cpu": 5, "state": "busy" },
        { "cpu": 6, "state": "busy" }, { "cpu": 7, "state": "idle" }
      ],
      "llc": { "has_idle_cores": true, "nr_idle_scan": 8, "avg_scan_cost": 500 },
      "wakee": { "prev": 2 },
      "waker": { "cpu": 4 },
      "target": 4
    }"#;

    #[test]
    fn a_failed_core_scan_clears_has_idle_cores_for_the_next_wake_up() {
        // linux-5.10 fair.c select_idle_core and linux-5.12+ select_idle_cpu:
        // set_idle_cores(target, false) when no core is wholly idle; Mel Gorman's counters
        // count that search and its miss once. The next wake-up on the same state scans no core.
        let file = StateFile::from_json(NO_IDLE_CORE).unwrap();
        for preset in ["linux-5.10", "linux-5.12", "linux-6.0"] {
            let mut pp = prepare(&file, preset).unwrap();
            let target = pp.target.expect("the file names the target");
            let (st, p, w) = pp.split();
            let mut c = Counters::default();
            let first = st.select_idle_sibling(&p, &w, target, &mut c, &mut ());
            assert!(
                !st.llcs[0].has_idle_cores,
                "{preset}: cleared after the failed scan"
            );
            assert_eq!((c.sis_core_search, c.sis_core_miss), (1, 1), "{preset}");
            assert!([3, 7].contains(&first.cpu), "{preset}: {}", first.cpu);
            let second = st.select_idle_sibling(&p, &w, target, &mut c, &mut ());
            assert_eq!(
                (c.sis_core_search, c.sis_core_miss),
                (1, 1),
                "{preset}: no core scan the second time"
            );
            assert!([3, 7].contains(&second.cpu), "{preset}: {}", second.cpu);
        }
    }

    #[test]
    fn a_cpu_listed_twice_is_an_error_naming_both_entries() {
        let text = NO_IDLE_CORE.replace(
            r#"{ "cpu": 5, "state": "busy" }"#,
            r#"{ "cpu": 3, "state": "busy" }"#,
        );
        let file = StateFile::from_json(&text).unwrap();
        let e = prepare(&file, "linux-6.0").err().expect("an error");
        assert_eq!(e.field, "cpus[5].cpu");
        assert!(e.expected.contains("cpus[3]"), "{e}");
    }
}
