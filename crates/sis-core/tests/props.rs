//! Property tests of the wake-up path on random hand-built states (`sis_core::analysis::decide`) and of
//! SIS_UTIL's `update_idle_cpu_scan`.

use proptest::prelude::*;
use sis_core::analysis::decide::{
    decide, decide_outcome, DecideResult, StateCpu, StateFile, StateLlc, StateTopology, StateWakee,
    StateWaker,
};
use sis_core::kernel::throttle::update_idle_cpu_scan;
use sis_core::kernel::trace::{Rule, Saw, ScanEnd};
use sis_core::{presets, Numbering, Topology, TopologySpec};
use std::collections::BTreeMap;

const MAX_CPUS: usize = 3 * 64;
/// Features a case may flip on top of its preset, to reach combinations no preset has.
const FLIPPABLE: [&str; 6] = [
    "SIS_PROP",
    "SIS_UTIL",
    "SIS_CLUSTER",
    "SIS_SMT_PREV",
    "SIS_SCAN_NEXT",
    "SCHED_IDLE_AS_IDLE",
];

#[derive(Clone, Debug)]
struct Input {
    file: StateFile,
    preset: &'static str,
}

fn topology() -> impl Strategy<Value = StateTopology> {
    (
        1u32..=3,
        prop::sample::select(vec![1u32, 2, 4]),
        any::<bool>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(llcs, smt, interleaved, k, cl)| {
            let llc_weight = smt * (k.index((64 / smt) as usize) as u32 + 1);
            // cluster_size: 0, or a multiple of smt that divides llc_weight and is smaller.
            let sizes: Vec<u32> = (1..)
                .map(|m| m * smt)
                .take_while(|c| *c < llc_weight)
                .filter(|c| (llc_weight / c) * c == llc_weight)
                .collect();
            let pick = cl.index(sizes.len() + 1);
            let cluster_size = if pick == 0 { 0 } else { sizes[pick - 1] };
            StateTopology {
                llcs,
                llc_weight,
                smt,
                numbering: if interleaved {
                    Numbering::Interleaved
                } else {
                    Numbering::Contiguous
                },
                cluster_size,
                // One node: the oracle's SIS_NODE and sched_ext checks read the whole package
                // (testdata/decide has the multi-node cases).
                nodes: 1,
            }
        })
}

fn input() -> impl Strategy<Value = Input> {
    let per_cpu = prop::collection::vec(
        (
            0u8..100,
            0u32..=1024,
            prop::sample::select(vec![0u64, 1000, 100_000, 512_000, 1_000_000]),
            any::<bool>(),
        ),
        MAX_CPUS,
    );
    let llc = (
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![Just(0u32), 1u32..=4, 0u32..=64]),
        prop::option::of(prop::sample::select(vec![0u64, 100, 500, 1599, 5000])),
    );
    let picks = (
        any::<prop::sample::Index>(),
        prop::option::of(any::<prop::sample::Index>()),
        any::<prop::sample::Index>(),
        prop::option::of(any::<prop::sample::Index>()),
        any::<bool>(),
    );
    let features = prop::collection::btree_map(
        prop::sample::select(FLIPPABLE.to_vec()),
        any::<bool>(),
        0..2,
    );
    // Load level: the share of busy CPUs, so that fast paths, scans, exhausted budgets and
    // overloaded LLCs all come up.
    let load = prop::sample::select(vec![10u8, 50, 80, 95, 100]);
    (
        topology(),
        per_cpu,
        llc,
        picks,
        features,
        any::<prop::sample::Index>(),
        prop::option::of(100u32..=200),
        load,
        // Half the states have no SCHED_IDLE task: then the untraced path keeps the idle mask
        // and scans a word at a time (decide_outcome), as every run does.
        any::<bool>(),
    )
        .prop_map(
            |(
                topo,
                per_cpu,
                (hic, nis, cost),
                (prev, recent, waker, target, sync),
                features,
                preset,
                pct,
                load,
                with_sched_idle,
            )| {
                let n = (topo.llcs * topo.llc_weight) as usize;
                let mut cpus = Vec::new();
                let mut allowed = Vec::new();
                for (cpu, (kind, util, avg_idle, allow)) in per_cpu.iter().take(n).enumerate() {
                    // `load`% of the CPUs run tasks; one in ten of those runs only SCHED_IDLE tasks.
                    let state = if *kind >= load {
                        "idle"
                    } else if with_sched_idle && kind % 10 == 0 {
                        "sched_idle"
                    } else {
                        "busy"
                    };
                    cpus.push(StateCpu {
                        cpu: cpu as u32,
                        state: Some(state.into()),
                        util_avg: Some(*util),
                        // A third of the busy CPUs run two tasks (SIS_FILTER's overloaded).
                        nr_running: (state == "busy" && kind % 3 == 0).then_some(2),
                        avg_idle: Some(*avg_idle),
                        util_est: None,
                        overloaded: None,
                        // SIS_CACHE: a quarter of the CPUs are cache-hot for 100 us.
                        cache_hot_ns: (kind % 4 == 1).then_some(100_000),
                    });
                    if *allow {
                        allowed.push(cpu as u32);
                    }
                }
                let prev = prev.index(n) as u32;
                if !allowed.contains(&prev) {
                    allowed.push(prev);
                    allowed.sort_unstable();
                }
                // The kernel only ever hands select_idle_sibling() prev or an allowed waker CPU.
                let target = target.map(|t| allowed[t.index(allowed.len())]);
                let nr_idle_scan = nis.map(|v| v.min(topo.llc_weight));
                let presets = presets();
                let preset = presets[preset.index(presets.len())].name;
                let features: BTreeMap<String, bool> = features
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                let file = StateFile {
                    topology: topo,
                    cpus,
                    llc: Some(StateLlc {
                        has_idle_cores: hic,
                        nr_idle_scan,
                        avg_scan_cost: cost,
                    }),
                    wakee: Some(StateWakee {
                        prev: Some(prev),
                        recent_used_cpu: recent.map(|r| r.index(n) as u32),
                        allowed: Some(allowed),
                        util_avg: None,
                        // SIS_SHORT: half the wakees ran 100 us between sleeps (short), half never slept.
                        dur_avg: Some(if prev.is_multiple_of(2) { 100_000 } else { 0 }),
                        wakee_flips: None,
                        // SIS_CURRENT: sync pairs wake each other (each the other's last_wakee).
                        last_wakee_is_waker: Some(sync),
                    }),
                    waker: Some(StateWaker {
                        cpu: Some(waker.index(n) as u32),
                        sync: Some(sync),
                        // wake_wide() for one case in seven: want_affine off.
                        wake_wide: Some(prev % 7 == 3),
                        util_avg: None,
                        dur_avg: Some(if waker.index(n).is_multiple_of(3) {
                            0
                        } else {
                            200_000
                        }),
                        wakee_flips: None,
                        last_wakee_is_wakee: Some(sync),
                    }),
                    target,
                    imbalance_pct: pct,
                    features,
                };
                Input { file, preset }
            },
        )
}

fn is_llc_scan(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::SelectIdleCpu
            | Rule::SelectIdleCluster
            | Rule::SelectIdleCore
            | Rule::SelectIdleSmt
            | Rule::GroupWalk
    )
}

fn no_duplicates(r: &DecideResult, group: &[Rule]) -> Result<(), TestCaseError> {
    let mut seen = Vec::new();
    for s in r.steps.iter().filter(|s| group.contains(&s.rule)) {
        prop_assert!(
            !seen.contains(&s.cpu),
            "CPU {} probed twice by {:?}\n{}",
            s.cpu,
            group,
            r.to_text()
        );
        seen.push(s.cpu);
    }
    Ok(())
}

/// What fair.c's select_idle_cpu loop without an idle core does, written plainly from
/// linux-6.0 (`for_each_cpu_wrap(cpu, cpus, target + 1) { if (!--nr) return -1; if
/// (__select_idle_cpu(cpu, p) is idle) break; }`), independent of sis-core's walk.
struct OracleScan {
    probed: Vec<u32>,
    found: Option<u32>,
    nr_left: Option<i64>,
    end: ScanEnd,
}

/// SIS_CACHE v2 adds `nr_hot = nr >> 1` cache-hot idle CPUs passed over (`if (--nr_hot >= 0
/// && cache_hot_cpu(idle_cpu, &hot_cpu)) continue;`, idle_cpu left set) and the first of them
/// taken when the loop ends with none (`if (idle_cpu == -1 && hot_cpu != -1)`).
fn oracle_select_idle_cpu(
    cpus: &[u32],
    start: u32,
    nr: Option<i64>,
    idle: &dyn Fn(u32) -> bool,
    hot: Option<&dyn Fn(u32) -> bool>,
) -> OracleScan {
    let mut nr_hot = match (hot, nr) {
        (Some(_), Some(n)) => n >> 1,
        _ => 0,
    };
    let mut hot_cpu = None;
    let mut idle_cpu = None;
    // for_each_cpu_wrap: the mask's CPUs from `start` up, then from 0 up to start - 1.
    let order = cpus
        .iter()
        .filter(|c| **c >= start)
        .chain(cpus.iter().filter(|c| **c < start));
    let mut out = OracleScan {
        probed: Vec::new(),
        found: None,
        nr_left: nr,
        end: ScanEnd::Exhausted,
    };
    for &cpu in order {
        if let Some(n) = out.nr_left.as_mut() {
            *n -= 1;
            if *n == 0 {
                out.end = ScanEnd::Budget;
                return out;
            }
        }
        out.probed.push(cpu);
        idle_cpu = idle(cpu).then_some(cpu);
        if idle_cpu.is_some() {
            nr_hot -= 1;
            if hot.is_some_and(|h| nr_hot >= 0 && h(cpu)) {
                hot_cpu = hot_cpu.or(Some(cpu));
                continue;
            }
            out.found = Some(cpu);
            out.end = ScanEnd::Found;
            return out;
        }
    }
    if let Some(c) = idle_cpu.or(hot_cpu) {
        out.found = Some(c);
        out.end = ScanEnd::Found;
    }
    out
}

fn check(inp: &Input) -> Result<(), TestCaseError> {
    let f = &inp.file;
    let r =
        decide(f, inp.preset).map_err(|e| TestCaseError::fail(format!("decide failed: {e}")))?;
    let text = r.to_text();
    let t = &f.topology;
    let topo = Topology::new(TopologySpec {
        llcs: t.llcs,
        llc_weight: t.llc_weight,
        smt: t.smt,
        cluster_size: t.cluster_size,
        numbering: t.numbering,
        nodes: 1,
    })
    .unwrap();
    let mut feats = sis_core::preset(inp.preset).unwrap().features;
    for (k, v) in &f.features {
        feats.set(k, *v).unwrap();
    }
    let thin = feats.replaces_sis(); // LB_PROMOTE and sched_ext: available_idle_cpu() only
    let allowed = f.wakee.as_ref().unwrap().allowed.clone().unwrap();
    let prev = f.wakee.as_ref().unwrap().prev.unwrap();
    let state = |c: u32| f.cpus[c as usize].state.as_deref().unwrap();
    // The thin path tests available_idle_cpu() only; SIS also takes sched-idle CPUs where the
    // preset counts them.
    let choose_idle_cpu = |c: u32| {
        state(c) == "idle" || (!thin && feats.sched_idle_as_idle && state(c) == "sched_idle")
    };

    // The untraced path (word-at-a-time scans, what every run takes) decides and counts
    // exactly as the traced, CPU-by-CPU one.
    let traced = decide_outcome(f, inp.preset, true)
        .map_err(|e| TestCaseError::fail(format!("decide failed: {e}")))?;
    let untraced = decide_outcome(f, inp.preset, false)
        .map_err(|e| TestCaseError::fail(format!("decide failed: {e}")))?;
    prop_assert_eq!(&traced, &untraced, "traced vs untraced\n{}", text);
    prop_assert_eq!(traced.result, r.result);

    // No CPU probed twice by one kind of scan.
    no_duplicates(&r, &[Rule::SelectIdleCpu, Rule::SelectIdleCluster])?;
    if !feats.sis_cache {
        // SIS_CACHE v2 `continue`s past a cache-hot idle core without taking its siblings out
        // of `cpus`, so select_idle_core looks at that core again from each sibling.
        no_duplicates(&r, &[Rule::SelectIdleCore])?;
    }
    no_duplicates(&r, &[Rule::SelectIdleSmt])?;
    no_duplicates(&r, &[Rule::ThinLlc, Rule::ThinRest])?;

    // SIS_NODE's select_idle_node scans the other LLCs after the target's came up empty: their
    // steps come after every step in the target's LLC, one LLC after another, in the order its
    // parent domain's groups ring from target's (each LLC first met walking CPU ids up).
    let target_llc = topo.llc_of(r.target);
    // (nr_before/nr_after are then the last LLC's select_idle_cpu call's, scan or no scan.)
    let node_scan = feats.sis_node
        && topo.spec.llcs > 1
        && matches!(r.decided_by.as_str(), "select_idle_node" | "fallback");
    if node_scan {
        let remote: Vec<u32> = r
            .steps
            .iter()
            .skip_while(|s| !is_llc_scan(s.rule) || topo.llc_of(s.cpu) == target_llc)
            .map(|s| topo.llc_of(s.cpu))
            .collect();
        let mut order: Vec<u32> = Vec::new();
        let n = topo.nr_cpus();
        for i in 1..n {
            let l = topo.llc_of((r.target + i) % n);
            if l != target_llc && !order.contains(&l) {
                order.push(l);
            }
        }
        let mut visited = remote;
        visited.dedup();
        let rank = |l: &u32| order.iter().position(|o| o == l);
        prop_assert!(
            visited.iter().all(|l| rank(l).is_some())
                && visited.windows(2).all(|w| rank(&w[0]) < rank(&w[1])),
            "node scan order {:?} vs {:?}\n{}",
            visited,
            order,
            text
        );
    }
    for s in &r.steps {
        // The LLC scan never leaves the target's LLC (the thin path may, by design; SIS_NODE
        // goes on to the other LLCs, checked above).
        if !thin && !node_scan && is_llc_scan(s.rule) {
            prop_assert_eq!(
                topo.llc_of(s.cpu),
                topo.llc_of(r.target),
                "step {:?} outside target {}'s LLC\n{}",
                s,
                r.target,
                text
            );
        }
        // Every look at a CPU outside p->cpus_ptr is marked not_allowed. select_idle_core and
        // 4.4's group walk are the exception: they must see every SMT sibling to know whether
        // the core is idle.
        let whole_core = matches!(s.rule, Rule::SelectIdleCore | Rule::GroupWalk);
        if s.saw != Saw::NotAllowed && !whole_core {
            prop_assert!(
                allowed.contains(&s.cpu),
                "step {:?} looked at a CPU outside allowed {:?}\n{}",
                s,
                allowed,
                text
            );
        }
        if whole_core {
            // ... but the core it examines holds an allowed CPU of the scan.
            prop_assert!(
                topo.smt_siblings(s.cpu).iter().any(|c| allowed.contains(c)),
                "core of {} has no allowed CPU\n{}",
                s.cpu,
                text
            );
        }
    }

    // The per-CPU probes never exceed the budget: `if (!--nr) return -1` allows nr - 1.
    let cpu_probes = r
        .steps
        .iter()
        .filter(|s| matches!(s.rule, Rule::SelectIdleCpu | Rule::SelectIdleCluster))
        .count() as i64;
    if let (Some(b), false) = (r.nr_before, node_scan) {
        prop_assert!(b >= 1, "nr_before {b}\n{text}");
        prop_assert!(
            cpu_probes < b,
            "{cpu_probes} probes with budget nr = {b}\n{text}"
        );
        if let Some(a) = r.nr_after {
            let spent = cpu_probes
                + i64::from(r.scan_end == Some(sis_core::kernel::trace::ScanEnd::Budget));
            prop_assert_eq!(a, b - spent, "nr_after\n{}", text);
        }
    } else if r.nr_before.is_none() {
        prop_assert!(r.nr_after.is_none(), "nr_after without nr_before\n{}", text);
    }

    // The result is allowed, and idle unless it is the documented fallback.
    prop_assert!(
        allowed.contains(&r.result),
        "result {} not in allowed {:?}\n{}",
        r.result,
        allowed,
        text
    );
    if r.decided_by == "fallback" {
        let want = if thin { prev } else { r.target };
        prop_assert_eq!(r.result, want, "fallback\n{}", text);
    } else if matches!(r.decided_by.as_str(), "sis_short" | "sis_current") {
        // SIS_SHORT and SIS_CURRENT keep a short wakee on its short waker's CPU, their target,
        // busy with the waker by design.
        let waker = f.waker.as_ref().and_then(|w| w.cpu);
        prop_assert_eq!(
            (Some(r.result), r.result),
            (waker, r.target),
            "{}\n{}",
            r.decided_by,
            text
        );
    } else if r.decided_by == "scx_sync" {
        // sched_ext's sync pick is the waker's CPU, busy with the waker by design.
        let waker = f.waker.as_ref().and_then(|w| w.cpu);
        prop_assert_eq!(Some(r.result), waker, "scx_sync\n{}", text);
    } else {
        prop_assert!(
            choose_idle_cpu(r.result),
            "result {} by {} is {}\n{}",
            r.result,
            r.decided_by,
            state(r.result),
            text
        );
        if r.decided_by == "prev" {
            prop_assert_eq!(r.result, prev);
        }
    }
    if thin {
        prop_assert_eq!(r.target, prev, "the thin path's target is prev");
    }

    // The scan against the oracle: where select_idle_cpu ran its per-CPU loop (no idle core,
    // no cluster pass, the single-pass eras), the CPUs it probed, what it found and the budget
    // left are exactly those of fair.c's loop written plainly.
    let looked = |c: u32| {
        r.steps
            .iter()
            .any(|s| s.cpu == c && s.rule != Rule::WakeAffine)
    };
    let llc_cpus: Vec<u32> = topo.llc_span(topo.llc_of(r.target)).iter().collect();
    let per_cpu_scan = r
        .steps
        .iter()
        .all(|s| !matches!(s.rule, Rule::SelectIdleCore | Rule::SelectIdleCluster))
        && matches!(
            r.scan_end,
            Some(ScanEnd::Found | ScanEnd::Exhausted | ScanEnd::Budget)
        );
    // SIS_FILTER leaves out the LLC's overloaded CPUs (two or more non-SCHED_IDLE tasks: here
    // busy CPUs with nr_running 2, the mask as their last tick saw them) when there are two or more.
    let overloaded = |c: u32| state(c) == "busy" && f.cpus[c as usize].nr_running.unwrap_or(1) > 1;
    let nro = llc_cpus.iter().filter(|c| overloaded(**c)).count();
    let filtered = feats.sis_filter && nro > 1;
    if !thin && !node_scan && feats.single_pass && per_cpu_scan {
        let cpus: Vec<u32> = llc_cpus
            .iter()
            .copied()
            .filter(|c| allowed.contains(c) && !(filtered && overloaded(*c)))
            .collect();
        let start = if feats.scan_from_next {
            r.target + 1
        } else {
            r.target
        };
        let cache_hot = |c: u32| f.cpus[c as usize].cache_hot_ns.is_some_and(|ns| ns > 0);
        let hot: Option<&dyn Fn(u32) -> bool> = feats.sis_cache.then_some(&cache_hot);
        let hot = hot.filter(|_| feats.sis_util);
        let want = oracle_select_idle_cpu(&cpus, start, r.nr_before, &choose_idle_cpu, hot);
        let probed: Vec<u32> = r
            .steps
            .iter()
            .filter(|s| s.rule == Rule::SelectIdleCpu)
            .map(|s| s.cpu)
            .collect();
        prop_assert_eq!(&probed, &want.probed, "probes vs the oracle\n{}", text);
        prop_assert_eq!(r.nr_after, want.nr_left, "nr left vs the oracle\n{}", text);
        prop_assert_eq!(
            r.scan_end,
            Some(want.end),
            "scan end vs the oracle\n{}",
            text
        );
        if let Some(c) = want.found {
            prop_assert_eq!(
                (r.result, r.decided_by.as_str()),
                (c, "select_idle_cpu"),
                "{}",
                text
            );
        }
        if want.end == ScanEnd::Exhausted {
            // Completeness: an exhausted scan looked at every allowed CPU of the LLC.
            prop_assert!(
                cpus.iter().all(|c| looked(*c)),
                "exhausted but not all probed\n{}",
                text
            );
        }
    }

    // missed_idle is complete: every idle allowed CPU of the target's LLC that no step looked
    // at, in CPU order (the thin path counts fully idle CPUs only).
    let candidate = |c: u32| {
        if thin {
            state(c) == "idle"
        } else {
            choose_idle_cpu(c)
        }
    };
    let want_missed: Vec<u32> = llc_cpus
        .iter()
        .copied()
        .filter(|c| allowed.contains(c) && candidate(*c) && !looked(*c))
        .collect();
    prop_assert_eq!(&r.missed_idle, &want_missed, "missed_idle\n{}", text);

    // missed_idle: idle, allowed, in the target's LLC, and never looked at.
    for &m in &r.missed_idle {
        // (counted with the preset's idleness, so a sched-idle CPU is "missed" by the thin path too)
        prop_assert!(
            state(m) == "idle" || (feats.sched_idle_as_idle && state(m) == "sched_idle"),
            "missed {m} is {}\n{text}",
            state(m)
        );
        prop_assert!(
            allowed.contains(&m) && topo.llc_of(m) == topo.llc_of(r.target),
            "missed {m}\n{text}"
        );
        prop_assert!(
            !r.steps
                .iter()
                .any(|s| s.cpu == m && s.rule != Rule::WakeAffine),
            "missed {m} was probed\n{text}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn wakeup_path_invariants(inp in input()) {
        check(&inp)?;
    }

    #[test]
    fn update_idle_cpu_scan_is_bounded_and_non_increasing(w in 1u32..=1024, pct in 100u32..=200, a in 0u64..=1024 * 1024, b in 0u64..=1024 * 1024) {
        let (lo, hi) = (a.min(b), a.max(b));
        let (n_lo, n_hi) = (update_idle_cpu_scan(lo, w, pct), update_idle_cpu_scan(hi, w, pct));
        prop_assert!(n_lo <= w && n_hi <= w, "w={w} pct={pct}: {n_lo} {n_hi}");
        prop_assert!(n_lo >= n_hi, "w={w} pct={pct}: nr({lo})={n_lo} < nr({hi})={n_hi}");
        prop_assert_eq!(update_idle_cpu_scan(0, w, pct), w);
        // The whole range 0..=w*1024 of an LLC's sum_util stays within 0..=w.
        prop_assert!(update_idle_cpu_scan(lo % (w as u64 * 1024 + 1), w, pct) <= w);
    }
}

#[test]
fn mel_gormans_counters_count_what_his_patch_counts() {
    // Eight busy CPUs, SIS_PROP's floor of nr = 4 (no idle time, dear scans), target 2 = prev.
    let state = |smt: u32, allowed: &str| {
        StateFile::from_json(&format!(
            r#"{{"topology": {{"llcs": 1, "llc_weight": 8, "smt": {smt}, "numbering": "contiguous"}},
                "cpus": [{cpus}],
                "llc": {{"has_idle_cores": false, "avg_scan_cost": 5000}},
                "wakee": {{"prev": 2, "allowed": [{allowed}]}},
                "waker": {{"cpu": 0}}, "target": 2}}"#,
            cpus = (0..8)
                .map(|c| format!(r#"{{"cpu": {c}, "state": "busy", "avg_idle": 0}}"#))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .unwrap()
    };
    let scanned = |f: &StateFile, preset: &str| {
        let traced = decide_outcome(f, preset, true).unwrap();
        assert_eq!(
            traced,
            decide_outcome(f, preset, false).unwrap(),
            "{preset}"
        );
        assert_eq!(traced.result, 2, "{preset}: nothing idle, target stays");
        traced.counters.sis_scanned
    };
    let all = "0, 1, 2, 3, 4, 5, 6, 7";
    // The 2020 patch on the two-pass select_idle_cpu bumps sis_scanned before
    // `if (!--nr) return -1`: 1 (target/prev/recent) + 3 probes + the exhausting iteration.
    assert_eq!(scanned(&state(1, all), "linux-5.10"), 5);
    // Single pass (5.12): the budget check comes first; the exhausting iteration is not counted.
    assert_eq!(scanned(&state(1, all), "linux-5.12"), 4);
    // select_idle_smt(prev = 2) on core {2, 3} with 3 not allowed: both siblings count as
    // looked at (prev skipped, 3 disallowed), neither probed; then 3 probes of the LLC scan.
    assert_eq!(scanned(&state(2, "0, 1, 2, 4, 5, 6, 7"), "linux-5.13"), 6);
}
