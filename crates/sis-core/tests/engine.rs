//! Engine invariants, determinism, and the seeds' corner case run as whole workloads.

use sis_core::kernel::trace::{Rule, Saw};
use sis_core::{Scenario, Simulation};

fn scenario(pairs: &[(&str, &str)]) -> Scenario {
    Scenario::from_pairs(pairs.iter().copied()).unwrap()
}

#[test]
fn same_seed_same_bytes_different_seed_different_run() {
    let base = [
        ("llc_weight", "16"),
        ("load", "150"),
        ("duration", "40ms"),
        ("warmup", "5ms"),
        ("preset", "linux-5.15"),
    ];
    let a = serde_json::to_string(&sis_core::run(&scenario(&base)).unwrap()).unwrap();
    let b = serde_json::to_string(&sis_core::run(&scenario(&base)).unwrap()).unwrap();
    assert_eq!(a, b);
    let mut other = base.to_vec();
    other.push(("seed", "2"));
    let c = serde_json::to_string(&sis_core::run(&scenario(&other)).unwrap()).unwrap();
    assert_ne!(a, c);
}

#[test]
fn invariants_hold_for_every_workload_and_preset_family() {
    for workload in [
        "netperf",
        "tbench",
        "hackbench",
        "schbench",
        "uniform",
        "pinned",
    ] {
        for (preset, smt, numbering, llcs) in [
            ("linux-4.13", "2", "contiguous", "1"),
            ("linux-5.13", "2", "interleaved", "2"),
            ("linux-6.0", "1", "contiguous", "1"),
            ("linux-6.7", "4", "contiguous", "1"),
            ("lb-promote-thin", "1", "contiguous", "2"),
            ("linux-5.19 cfs", "2", "contiguous", "1"),
        ] {
            // "PRESET cfs": that preset with runqueue=cfs.
            let (preset, runqueue) = preset.split_once(' ').unwrap_or((preset, "fifo"));
            // scan_cost=waker with dear probes: long scan tails, during which a reply can come.
            for (load, scan_cost, probe_cost_ns) in [
                ("0", "delay", "400"),
                ("50", "delay", "400"),
                ("200", "delay", "400"),
                ("200", "waker", "20000"),
            ] {
                let sc = scenario(&[
                    ("scan_cost", scan_cost),
                    ("probe_cost_ns", probe_cost_ns),
                    ("llc_weight", "8"),
                    ("llcs", llcs),
                    ("smt", smt),
                    ("numbering", numbering),
                    ("preset", preset),
                    ("runqueue", runqueue),
                    ("workload", workload),
                    ("load", load),
                    ("duration", "20ms"),
                    ("warmup", "0ms"),
                ]);
                let mut sim = Simulation::new(&sc).unwrap();
                let mut last = 0;
                let mut n = 0u64;
                while !sim.finished() && sim.step() {
                    assert!(sim.now_ns() >= last, "time went backwards");
                    last = sim.now_ns();
                    n += 1;
                    if n.is_multiple_of(97) {
                        sim.check_invariants().unwrap_or_else(|e| {
                            panic!("{workload} {preset} load {load} scan_cost {scan_cost}: {e}")
                        });
                    }
                }
                sim.check_invariants().unwrap_or_else(|e| {
                    panic!("{workload} {preset} load {load} scan_cost {scan_cost}: {e}")
                });
                for cpu in 0..sc.nr_cpus() {
                    assert!(sim.cpu_view(cpu).util_avg <= 1024);
                }
                let c = sim.counters();
                assert_eq!(c.sis_search, c.wakeups, "{workload} {preset}");
            }
        }
    }
}

#[test]
fn counters_agree_with_the_recorded_trace() {
    for preset in [
        "linux-4.13",
        "linux-5.10",
        "linux-5.13",
        "linux-6.0",
        "linux-6.7",
        "lb-promote-thin",
        "full-scan",
    ] {
        let sc = scenario(&[
            ("llc_weight", "16"),
            ("smt", "2"),
            ("preset", preset),
            ("load", "150"),
            ("duration", "1s"),
            ("warmup", "0ms"),
        ]);
        let mut sim = Simulation::new(&sc).unwrap();
        let f = *sim.features();
        let mut scanned = 0u64;
        let mut failed = 0u64;
        for _ in 0..200 {
            sim.next_wakeup().expect("a wake-up");
        }
        // Read the ring after the run: a rescan (collision=rescan) adds its steps to its
        // decision when the wakee arrives, after next_wakeup returned it.
        for d in sim.decisions() {
            // Mel Gorman's sis_scanned: every probe, plus what his patch counts at the top of
            // a loop without probing: select_idle_smt's disallowed siblings (and prev itself,
            // skipped by select_idle_smt(prev)), 4.13's disallowed CPUs, and the two-pass
            // select_idle_cpu's iteration that exhausts nr.
            // select_idle_smt(prev) walks the core's mask in order and counts prev itself
            // only if it got that far: not when a lower sibling was idle (it returned there).
            let last_smt = d.steps.iter().rev().find(|s| s.rule == Rule::SelectIdleSmt);
            let prev_counted = last_smt
                .is_some_and(|s| !(d.decided_by == Some(Rule::SelectIdleSmt) && s.cpu < d.id.prev));
            scanned += 1
                + d.steps
                    .iter()
                    .filter(|s| {
                        s.rule.is_domain_search()
                            && (s.saw != Saw::NotAllowed
                                || matches!(s.rule, Rule::SelectIdleSmt | Rule::SelectIdleCpu))
                    })
                    .count() as u64
                + u64::from(f.smt_prev && prev_counted)
                + u64::from(
                    !f.single_pass && d.scan_end == Some(sis_core::kernel::trace::ScanEnd::Budget),
                );
            failed += u64::from(
                d.decided_by == Some(Rule::Fallback)
                    && (preset == "lb-promote-thin" || d.result == d.target),
            );
        }
        let c = sim.counters();
        assert_eq!(c.wakeups, 200, "{preset}");
        assert_eq!(c.sis_scanned, scanned, "{preset}");
        assert_eq!(c.sis_failed, failed, "{preset}");
        assert_eq!(sim.decisions().len(), 200);
    }
}

#[test]
fn decision_ring_is_bounded() {
    let sc = scenario(&[("llc_weight", "8"), ("load", "100"), ("duration", "2s")]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.set_recording(true);
    sim.run_for(200_000_000);
    assert!(sim.wakeups_total() > 1000);
    assert_eq!(sim.decisions().len(), sis_core::sim::engine::DECISION_RING);
    let seqs: Vec<u64> = sim.decisions().iter().map(|d| d.id.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
    assert_eq!(*seqs.last().unwrap(), sim.wakeups_total());
}

#[test]
fn advance_to_wakeup_reproduces_the_same_decision() {
    let sc = scenario(&[
        ("llc_weight", "16"),
        ("load", "120"),
        ("preset", "linux-5.13"),
    ]);
    let mut a = Simulation::new(&sc).unwrap();
    for _ in 0..500 {
        a.next_wakeup();
    }
    let mut b = Simulation::new(&sc).unwrap();
    assert!(b.advance_to_wakeup(500));
    assert_eq!(a.last_decision(), b.last_decision());
    assert_eq!(a.now_ns(), b.now_ns());
}

/// One event can make many decisions (a hackbench sender wakes every receiver of its group, a
/// schbench message thread its workers): `next_wakeup` still hands out every one, in seq
/// order with no gap, and a recorded run's ring holds the same decisions.
#[test]
fn next_wakeup_hands_out_every_decision_of_a_batch() {
    for workload in ["hackbench", "schbench", "netperf"] {
        let sc = scenario(&[
            ("llc_weight", "16"),
            ("smt", "1"),
            ("load", "100"),
            ("workload", workload),
            ("warmup", "0ms"),
        ]);
        let mut stepped = Simulation::new(&sc).unwrap();
        let mut seqs = Vec::new();
        let mut wakees = Vec::new();
        // schbench's message threads wake their workers every ~94 ms (spins of 30 ms, a sleep of
        // 30-37.5).
        let horizon_ns = if workload == "schbench" {
            300_000_000
        } else {
            40_000_000
        };
        while stepped.now_ns() < horizon_ns {
            let d = stepped.next_wakeup().expect("a wake-up");
            seqs.push(d.id.seq);
            wakees.push(d.id.wakee);
        }
        let n = seqs.len() as u64;
        assert!(n > 100, "{workload}: {n} decisions");
        assert_eq!(seqs, (1..=n).collect::<Vec<_>>(), "{workload}");
        assert!(stepped.wakeups_total() >= n);
        // The same run recorded: the same decisions (wakees) in the same order.
        let mut recorded = Simulation::new(&sc).unwrap();
        recorded.set_recording(true);
        let mut ring = Vec::new();
        while recorded.wakeups_total() < n {
            assert!(recorded.step());
            let have = ring.len() as u64;
            ring.extend(
                recorded
                    .decisions()
                    .iter()
                    .filter(|d| d.id.seq > have)
                    .map(|d| d.id.wakee),
            );
        }
        assert_eq!(&ring[..n as usize], &wakees[..], "{workload}");
        if workload == "hackbench" {
            assert!(
                stepped.wakeups_total() > seqs[seqs.len() / 2] + 1 || n > 1000,
                "no batch seen"
            );
        }
    }
}

#[test]
fn advance_to_wakeup_then_next_wakeup_continues_inside_a_batch() {
    let sc = scenario(&[
        ("llc_weight", "16"),
        ("smt", "1"),
        ("workload", "hackbench"),
        ("warmup", "0ms"),
    ]);
    // Find a decision that is not the last of its batch.
    let mut a = Simulation::new(&sc).unwrap();
    let mut inside = None;
    for _ in 0..5000 {
        let seq = a.next_wakeup().expect("a wake-up").id.seq;
        if a.wakeups_total() > seq {
            inside = Some(seq);
            break;
        }
    }
    let n = inside.expect("hackbench makes batches");
    let want = a.next_wakeup().cloned();
    let mut b = Simulation::new(&sc).unwrap();
    assert!(b.advance_to_wakeup(n));
    assert_eq!(b.stepped_seq(), n);
    assert!(b.wakeups_total() > n);
    assert_eq!(b.next_wakeup().cloned(), want);
    assert_eq!(want.map(|d| d.id.seq), Some(n + 1));
}

/// Seed 000/001 corner case: 7 hogs on CPU0..6 at util 1024, CPU7 idle. SIS_UTIL never scans,
/// so CPU7 is never found by a scan; SIS_PROP (5.13) and the idle-aware sum find it.
#[test]
fn pinned_corner_case_cpu7_found_by_scan_only_without_sis_util() {
    let found = |preset: &str| {
        let sc = scenario(&[
            ("llc_weight", "8"),
            ("smt", "1"),
            ("workload", "pinned"),
            ("preset", preset),
            ("duration", "2s"),
            ("warmup", "0ms"),
        ]);
        let mut sim = Simulation::new(&sc).unwrap();
        // From the first wake-up: seven CPUs at util 1024 of eight is 87.5%, over the 85%
        // cut-off, so update_idle_cpu_scan gives x = 7168/8 = 896, 896^2 * 117^2 / (10000 *
        // 1024) = 1073 -> capped at 1024 -> nr_idle_scan 0. The idle-aware sum subtracts the
        // capacity of the idle CPUs, and at that first balance (t = 0) the hogs have not started
        // running: 8 idle CPUs, sum 0, nr_idle_scan = llc_weight = 8. linux-5.13 has no
        // SIS_UTIL: its scan never reads nr_idle_scan.
        match preset {
            "linux-6.0" => assert_eq!(sim.llc(0).nr_idle_scan, 0),
            "sis-util-idle-aware" => assert_eq!(sim.llc(0).nr_idle_scan, 8),
            _ => assert!(!sim.features().sis_util, "{preset}"),
        }
        let r = sim.run_to_end();
        assert!(r.wakeups > 100, "{preset}: {} wake-ups", r.wakeups);
        r.per_cpu[7].found_by_scan
    };
    assert_eq!(found("linux-6.0"), 0);
    assert!(found("linux-5.13") > 0);
    assert!(found("sis-util-idle-aware") > 0);
}

/// Seed 000's machine: netperf on one 112-CPU LLC (SMT 2) at `load`% with `preset`, 400 ms
/// measured after a fixed 300 ms warm-up, with `extra` scenario fields on top.
fn run_seed_000(load: &str, preset: &str, extra: &[(&str, &str)]) -> sis_core::RunReport {
    let mut pairs = vec![
        ("llc_weight", "112"),
        ("smt", "2"),
        ("load", load),
        ("preset", preset),
        ("duration", "400ms"),
        ("warmup", "300ms"),
    ];
    pairs.extend_from_slice(extra);
    let r = sis_core::run(&scenario(&pairs)).unwrap();
    assert!(
        r.wakeups > 10_000,
        "{load} {preset} {extra:?}: {} wake-ups",
        r.wakeups
    );
    r
}

#[test]
fn sis_util_cuts_sis_scanned_as_seed_000_did_at_200_percent() {
    // Seed 000 at 224 netperf threads on a 112-CPU LLC: sis_scanned -87.9% with SIS_UTIL
    // against v5.19-rc1. The model: -88.6% with seed 1 (linux-6.0 stops scanning there), inside
    // the issue's -80..-95% band.
    let prop = run_seed_000("200", "linux-5.19", &[]);
    let util = run_seed_000("200", "linux-6.0", &[]);
    let change =
        100.0 * (util.counters.sis_scanned as f64 / prop.counters.sis_scanned as f64 - 1.0);
    assert!(
        (-95.0..=-80.0).contains(&change),
        "sis_scanned {change:+.1}% (seed -87.9%): linux-6.0 {:?} vs linux-5.19 {:?}",
        util.counters,
        prop.counters
    );
    // The vanilla kernel's efficiency collapses (seed: se_eff 4.9%).
    assert!(prop.metrics.se_eff < 10.0, "linux-5.19 {:?}", prop.metrics);
}

#[test]
fn with_cfs_linux_6_0s_stacked_wakees_preempt_where_vanilla_never_does_as_seed_000_says() {
    // Seed 000 of stress-ng.sock: "SIS_UTIL terminates the scan and chooses a previous CPU
    // earlier, and this might introduce more context switch, especially involuntary
    // preemption". netperf at 224 threads, runqueue=cfs: linux-5.19's scan finds an idle CPU
    // for its wakees, which never preempt; linux-6.0 stops scanning and stacks them, and they
    // preempt (check_preempt_wakeup). seed 1: 0 against 127,994 in 400 ms.
    let inv = |preset: &str, rq: &str| {
        let r = run_seed_000("200", preset, &[("runqueue", rq)]);
        r.counters.involuntary_switches
    };
    let (vanilla, v6_0) = (inv("linux-5.19", "cfs"), inv("linux-6.0", "cfs"));
    assert_eq!(vanilla, 0, "linux-5.19");
    assert!(v6_0 > 10_000, "linux-6.0 {v6_0}");
    // Without CFS's order the netperf runs, microseconds each, are never preempted.
    assert_eq!(inv("linux-6.0", "fifo"), 0);
}

#[test]
fn sis_util_is_level_at_112_threads_and_6_0_gains_the_seeds_size_at_224() {
    // Seed 000, netperf on a 112-CPU LLC, SIS_UTIL against its vanilla (v5.19-rc1): -0.66% at
    // 112 threads, +197.3% at 224 ("The time spent in select_idle_cpu() is visible to
    // netperf").
    // 1. At 112 threads both SIS_UTIL kernels are level with vanilla (seed 1: sis-util-v4
    //    +0.0%, linux-6.0 +1.5%): linux-6.0 queues a wake-up onto an idle CPU on its wakelist
    //    (core.c ttwu_queue_cond, f3dd3f674555), so it spins for no remote rq lock there.
    // 2. At 224 threads linux-6.0 stops scanning and stacks each pair, and gains the seed's
    //    size (seed 1: +128%, scanning 0.0% of its CPU time). The patch as posted on v5.19-rc1
    //    (sis-util-v4) gains +2.1% there: its LLC's util stays under the cut-off (the README's
    //    "Where the model differs").
    let prop = |load: &str| run_seed_000(load, "linux-5.19", &[]);
    let gain = |util: &sis_core::RunReport, prop: &sis_core::RunReport| {
        100.0
            * (util.throughput.messages_per_s as f64 / prop.throughput.messages_per_s as f64 - 1.0)
    };
    let p100 = prop("100");
    for preset in ["sis-util-v4", "linux-6.0"] {
        let g = gain(&run_seed_000("100", preset, &[]), &p100);
        assert!(g.abs() <= 5.0, "{preset}, 112 threads: {g:+.1}%");
    }
    let v60 = run_seed_000("100", "linux-6.0", &[]);
    assert_eq!(
        v60.counters.ttwu_lock_wait_ns, 0,
        "112 threads: every target idle"
    );
    assert!(p100.counters.ttwu_lock_wait_ns > 0);
    let (u200, p200) = (run_seed_000("200", "linux-6.0", &[]), prop("200"));
    let (g, util_scan) = (gain(&u200, &p200), u200.scan_cpu_pct());
    assert!(
        g >= 100.0 && util_scan < 1.0,
        "linux-6.0, 224 threads: {g:+.1}%, scanning {util_scan:.2}%"
    );
    // 3. What vanilla's successes are worth there: its scans run long, and the idle CPU a scan
    //    picked is often another wakee's by the time ttwu_queue queues this one (seed 1 here:
    //    41% of its wake-ups; docs/sweep-112.txt, seeds 1-3: 41%). linux-6.0's stacked
    //    wake-ups pick no idle CPU.
    let taken_pct = |r: &sis_core::RunReport| {
        100.0 * r.counters.idle_pick_taken as f64 / r.counters.wakeups.max(1) as f64
    };
    let (vanilla, util) = (taken_pct(&p200), taken_pct(&u200));
    assert!(
        vanilla >= 25.0 && util < 1.0,
        "224 threads, idle picks taken: linux-5.19 {vanilla:.1}%, linux-6.0 {util:.1}% of wake-ups"
    );
}

#[test]
fn vanilla_finds_an_idle_cpu_as_seed_000s_did_by_default_and_with_a_scan_costing_no_cpu_time() {
    // Seed 000's vanilla (v5.19-rc1) at 196 / 224 netperf threads on a 112-CPU LLC: success
    // 99.982% / 99.767%, fast_rate 32.3% / 25.8%, se_eff 5.4% / 4.9%. With scan_cost=delay
    // (the scan delays the wakee but costs no CPU time), seed 1, both collision rules meet the
    // success marks (rescan 100% / 99.7%, stack 100% / 100%) and se_eff within 8 points, with
    // a fast path too fast (rescan 46.6% / 42.5%, stack 50.8% / 48.5%; stack's was 31.8% /
    // 28.3% before balance pulls honoured task_hot()).
    // The defaults (scan_cost=waker, collision=timed) meet them too (99.91% / 98.67%, se_eff
    // 5.9% / 4.9%); with collision=rescan under scan_cost=waker none of them was met.
    let run = |load: &str, collision: &str| {
        let extra: &[(&str, &str)] = match collision {
            "default" => &[],
            "rescan" => &[("collision", "rescan"), ("scan_cost", "delay")],
            _ => &[("collision", "stack"), ("scan_cost", "delay")],
        };
        run_seed_000(load, "linux-5.19", extra).metrics
    };
    for (load, min_success, se_eff) in [("175", 99.0, 5.4), ("200", 95.0, 4.9)] {
        for collision in ["default", "rescan", "stack"] {
            let m = run(load, collision);
            assert!(
                m.success_rate >= min_success,
                "{collision} load {load}: {m:?}"
            );
            assert!(
                (m.se_eff - se_eff).abs() <= 8.0,
                "{collision} load {load}: {m:?}"
            );
        }
    }
}

#[test]
fn schbench_matches_seed_000s_vanilla_at_four_message_threads_and_falls_from_five() {
    // Seed 000's vanilla schbench table (`schbench -m N -t 28 -s 30000 -c 30000`, 112 CPUs):
    // 4 message threads se_eff 55.3 / fast_rate 98.6 / success 99.8; 5: 7.0 / 45.6 / 61.0;
    // 8: 1.7 / 7.8 / 15.5. With schbench's own loop (schbench.c 2eef447: 28 workers a message
    // thread, wall-clock spins, the message thread's 30 ms spin after a worker's post, its
    // sleep of 30 ms plus up to 7.5) the model (seeds 1-3, 5 s, C6 off): 4: 49-78 / 97-99 /
    // 99.6-99.9; 5: 12-21 / 75-88 / 94-98; 8: 5-6 / 48-58 / 73-85. Pinned: 4 as the seed (the model
    // before it said 100 / 100 / 100), efficiency and the fast path falling from 5 and further
    // by 8 (not as far as the seed's: guide/src/differs.md).
    let run = |mthreads: u32| {
        let sc = scenario(&[
            ("llc_weight", "112"),
            ("smt", "2"),
            ("workload", "schbench"),
            ("load", &(mthreads * 25).to_string()),
            ("preset", "linux-5.19"),
            ("duration", "5s"),
            ("warmup", "1s"),
        ]);
        let r = sis_core::run(&sc).unwrap();
        assert!(r.wakeups > 5_000, "{mthreads}: {} wake-ups", r.wakeups);
        r.metrics
    };
    let m4 = run(4);
    assert!(
        m4.success_rate >= 99.0 && m4.fast_rate >= 95.0 && (30.0..75.0).contains(&m4.se_eff),
        "4 message threads {m4:?}"
    );
    let m5 = run(5);
    assert!(
        m5.se_eff < 30.0 && m5.fast_rate < 92.0,
        "5 message threads {m5:?}"
    );
    let m8 = run(8);
    assert!(
        m8.se_eff < 12.0 && m8.fast_rate < 75.0 && m8.success_rate < 95.0,
        "8 message threads {m8:?}"
    );
}

#[test]
fn low_load_is_all_fast_path() {
    let sc = scenario(&[
        ("llc_weight", "112"),
        ("smt", "2"),
        ("load", "25"),
        ("duration", "60ms"),
        ("warmup", "20ms"),
    ]);
    let r = sis_core::run(&sc).unwrap();
    assert!(r.wakeups > 1000, "{} wake-ups", r.wakeups);
    let m = r.metrics;
    assert!(m.fast_rate > 99.0 && m.success_rate > 99.0, "{m:?}");
}

#[test]
fn each_probe_costs_more_for_every_other_scan_in_flight_in_the_llc() {
    // docs/scan-cost.md: a probe costs probe_cost_ns + probe_contention_pct% of it per other
    // scan still running in the LLC, and a scan runs from the wake-up for its LLC-search
    // probes x that cost. Recomputed here from the recorded decisions alone.
    let (base, pct) = (1_000u64, 40u64);
    let sc = scenario(&[
        ("llc_weight", "16"),
        ("smt", "2"),
        ("load", "200"),
        ("preset", "linux-5.15"),
        ("scan_cost", "waker"),
        ("probe_cost_ns", "1000"),
        ("probe_contention_pct", "40"),
        ("duration", "30ms"),
        ("warmup", "0ms"),
    ]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.set_recording(true);
    let mut all = Vec::new();
    while !sim.finished() && sim.step() {
        let last = all
            .last()
            .map_or(0, |d: &sis_core::kernel::trace::Decision| d.id.seq);
        all.extend(sim.decisions().iter().filter(|d| d.id.seq > last).cloned());
    }
    assert!(all.len() > 1000, "{} decisions", all.len());
    let mut ends: Vec<u64> = Vec::new();
    let mut dearer = 0;
    for (i, d) in all.iter().enumerate() {
        assert_eq!(d.id.seq, i as u64 + 1, "a decision is missing");
        ends.retain(|&e| e > d.id.time_ns);
        let want = base + base * pct * ends.len() as u64 / 100;
        assert_eq!(
            d.probe_cost_ns,
            want,
            "decision {}: {} scans in flight",
            d.id.seq,
            ends.len()
        );
        dearer += usize::from(d.probe_cost_ns > base);
        // The scan's probes: the checks past select_idle_sibling's fast ones (those count as
        // the one probe the scan's time leaves out).
        let probes = d.steps.iter().filter(|s| s.rule.is_domain_search()).count() as u64;
        let scan = probes * d.probe_cost_ns;
        if scan > 0 {
            ends.push(d.id.time_ns + scan);
        }
    }
    assert!(
        dearer * 10 > all.len(),
        "contention in only {dearer} of {} scans",
        all.len()
    );
}

#[test]
fn scan_cost_waker_spends_the_scan_on_the_waker_cpu() {
    // With dear probes the waker's CPU is busy scanning (and seen so), so fewer transactions
    // fit in the same time than when only the wakee waits for the scan.
    let run = |scan_cost: &str| {
        let sc = scenario(&[
            ("llc_weight", "16"),
            ("smt", "2"),
            ("load", "150"),
            ("preset", "linux-5.15"),
            ("scan_cost", scan_cost),
            ("probe_cost_ns", "3000"),
            ("duration", "60ms"),
            ("warmup", "20ms"),
        ]);
        let mut sim = Simulation::new(&sc).unwrap();
        let mut seen_scanning = false;
        while !sim.finished() && sim.step() {
            seen_scanning |= (0..16).any(|c| sim.cpu_view(c).scanning);
        }
        (sim.run_to_end(), seen_scanning)
    };
    let (delay, delay_scanning) = run("delay");
    let (waker, waker_scanning) = run("waker");
    assert!(!delay_scanning && waker_scanning);
    assert!(waker.counters.sis_scanned > 0);
    assert!(
        waker.wakeups * 10 < delay.wakeups * 9,
        "waker {} vs delay {} wake-ups",
        waker.wakeups,
        delay.wakeups
    );
}

/// SIS_UTIL's update_idle_cpu_scan written as an `nr_expr` rule (seed 000's equations).
const SIS_UTIL_RULE: &str = "llc_weight * (1024 - min(1024, (sum_util / llc_weight) * \
    (sum_util / llc_weight) * imbalance_pct * imbalance_pct / 10240000)) / 1024";

#[test]
fn sis_util_as_an_nr_expr_rule_runs_exactly_as_linux_6_0() {
    // An LLC-wide rule is evaluated where periodic balance writes nr_idle_scan and used as
    // SIS_UTIL uses it, replacing the preset's throttle: on linux-5.19 (SIS_PROP) it must give
    // linux-6.0's run to the last counter, and on linux-6.0 change nothing. (6.0's wakelist for
    // an idle CPU, core.c and not the scan, is left out of the comparison.)
    let report = |preset: &str, rule: &str| {
        let mut r = sis_core::run(&scenario(&[
            ("llc_weight", "16"),
            ("smt", "2"),
            ("load", "175"),
            ("duration", "300ms"),
            ("preset", preset),
            ("nr_expr", rule),
            ("features", "TTWU_QUEUE_IDLE=off"),
        ]))
        .unwrap();
        r.scenario = Scenario::default();
        format!("{r:?}")
    };
    let v60 = report("linux-6.0", "");
    assert_eq!(report("linux-5.19", SIS_UTIL_RULE), v60);
    assert_eq!(report("linux-6.0", SIS_UTIL_RULE), v60);
    assert_ne!(report("linux-5.19", ""), v60, "SIS_PROP's own run differs");
    // A rule that never scans: select_idle_cpu is called and returns at once, taking no time
    // (a rule of 4 does scan).
    let run_with = |rule: &str| {
        sis_core::run(&scenario(&[
            ("llc_weight", "16"),
            ("load", "100"),
            ("duration", "200ms"),
            ("nr_expr", rule),
        ]))
        .unwrap()
    };
    let none = run_with("0");
    assert!(none.counters.sis_domain_search > 0);
    assert_eq!(none.counters.scan_time_ns, 0);
    assert!(run_with("4").counters.scan_time_ns > 0);
}

/// `counters.messages` is the benchmark's own throughput unit: a netperf transaction is two
/// wake-ups (the request, the reply), so the two counts agree but for the transactions the
/// window's edges cut; a hackbench receiver reads every message queued since it last ran in
/// one wake-up, so at overload it reads several a wake-up; schbench has none.
#[test]
fn messages_count_what_each_benchmark_reports() {
    let run = |workload: &str, load: &str| {
        let sc = scenario(&[
            ("llc_weight", "16"),
            ("workload", workload),
            ("load", load),
            ("duration", "60ms"),
            ("warmup", "20ms"),
        ]);
        sis_core::run(&sc).unwrap()
    };
    let net = run("netperf", "50");
    let (m, w) = (net.counters.messages, net.counters.wakeups);
    let pairs = 8; // 50% of 16 CPUs
    assert!(m > 1000, "{m}");
    assert!(
        (2 * m).abs_diff(w) <= 2 * pairs,
        "{m} transactions, {w} wake-ups"
    );
    assert_eq!(
        net.throughput.messages_per_s,
        m * 1_000_000_000 / 40_000_000
    );
    let hack = run("hackbench", "200");
    let (m, w) = (hack.counters.messages, hack.counters.wakeups);
    assert!(m > 2 * w, "{m} messages, {w} wake-ups");
    assert_eq!(run("schbench", "100").counters.messages, 0);
}
