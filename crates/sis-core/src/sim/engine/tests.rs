//! Unit tests of the engine's private state.

use super::*;

fn sim(preset: &str) -> Simulation {
    let mut sc = Scenario::default();
    sc.set_field("llc_weight", "112").unwrap();
    sc.set_field("preset", preset).unwrap();
    sc.set_field("probe_cost_ns", "400").unwrap();
    Simulation::new(&sc).unwrap()
}

#[test]
fn newidle_gate_follows_the_era() {
    // max_newidle_lb_cost of a 112-CPU LLC at 400 ns per runqueue: 44.8 us.
    for (preset, avg_idle, allowed) in [
        ("linux-6.0", 44_799, false),
        ("linux-6.0", 44_800, true),
        ("linux-6.0", 499_999, true),
        // Before 5.16 newidle also needs avg_idle >= sysctl_sched_migration_cost.
        ("linux-5.15", 499_999, false),
        ("linux-5.15", 500_000, true),
        ("linux-4.13", 100_000, false),
    ] {
        let mut s = sim(preset);
        s.st.rqs[3].avg_idle = avg_idle;
        assert_eq!(
            s.newidle_allowed(3),
            allowed,
            "{preset} avg_idle {avg_idle}"
        );
    }
}

#[test]
fn the_waker_gets_its_cpu_as_recent_used_cpu_until_5_16() {
    // 4.16-5.15: `if (want_affine) current->recent_used_cpu = cpu;` (gone in 5.16).
    for (preset, always) in [("linux-5.13", true), ("linux-6.0", false)] {
        let mut sc = Scenario::default();
        // tbench: its client is still running its syscall tail when the wake-up returns.
        let fields = [
            ("llc_weight", "16"),
            ("load", "100"),
            ("workload", "tbench"),
            ("preset", preset),
        ];
        for (k, v) in fields {
            sc.set_field(k, v).unwrap();
        }
        let mut s = Simulation::new(&sc).unwrap();
        s.set_recording(true);
        let (mut sync, mut set) = (0, 0);
        for _ in 0..400 {
            let Some(d) = s.next_wakeup() else { break };
            let (waker_cpu, is_sync) = (d.id.waker_cpu, d.id.sync);
            if !is_sync {
                continue;
            }
            let cur = s.cpus[waker_cpu as usize]
                .curr
                .expect("a sync waker is running");
            sync += 1;
            set += u32::from(s.tasks[cur as usize].recent_used_cpu == Some(waker_cpu));
        }
        assert!(sync > 100, "{preset}: {sync} sync wake-ups");
        if always {
            assert_eq!(set, sync, "{preset}");
        } else {
            assert!(
                set < sync,
                "{preset}: every waker had its CPU as recent_used_cpu"
            );
        }
    }
}

#[test]
fn a_scanned_wakee_reaches_its_cpu_after_the_scan() {
    // While the waker scans, the chosen CPU is still idle to everyone else; the wakee is on
    // no runqueue until the Enqueue event.
    let mut sc = Scenario::default();
    for (k, v) in [
        ("llc_weight", "112"),
        ("smt", "2"),
        ("load", "150"),
        ("preset", "linux-5.13"),
    ] {
        sc.set_field(k, v).unwrap();
    }
    let mut s = Simulation::new(&sc).unwrap();
    s.run_for(20_000_000);
    let mut seen = 0;
    for _ in 0..200_000 {
        let before = s.wakeups_total();
        s.step();
        if s.wakeups_total() == before {
            continue;
        }
        if let Some(t) =
            (0..s.tasks.len()).find(|t| matches!(s.tasks[*t].state, TaskState::Waking(_)))
        {
            let TaskState::Waking(cpu) = s.tasks[t].state else {
                unreachable!()
            };
            assert!(!s.cpus[cpu as usize]
                .queue
                .iter(&s.tasks)
                .any(|q| q == t as u32));
            assert_ne!(s.cpus[cpu as usize].curr, Some(t as u32));
            s.check_invariants().unwrap();
            seen += 1;
        }
    }
    assert!(seen > 0, "no wake-up scanned at 150% load");
}

#[test]
fn a_task_queued_behind_a_hog_runs_within_a_slice() {
    // The pinned corner case: wakers queue behind CPU hogs that never block. CFS's tick
    // preempts the hog once it has run its slice with another task waiting.
    let mut sc = Scenario::default();
    for (k, v) in [
        ("llc_weight", "8"),
        ("smt", "1"),
        ("workload", "pinned"),
        ("preset", "linux-6.0"),
        ("duration", "300ms"),
        ("warmup", "0ms"),
    ] {
        sc.set_field(k, v).unwrap();
    }
    let r = Simulation::new(&sc).unwrap().run_to_end();
    let c = r.counters;
    assert!(c.wakeup_latency_count > 100, "{c:?}");
    // Two wakers may queue behind one hog: a slice each, plus a waker's 200 us run.
    assert!(c.wakeup_latency_max_ns <= 2 * SLICE_NS + 1_000_000, "{c:?}");
}

/// A `workload` run at `load`% on 16 CPUs with UTIL_EST as given, after 200 ms, just after a
/// periodic balance of LLC 0: the sum it saw and the per-CPU (util_avg, util_est.enqueued).
fn balanced_state(
    util_est: bool,
    workload: &str,
    load: &str,
) -> (Simulation, u64, Vec<(u64, u64)>) {
    let mut sc = Scenario::default();
    for (k, v) in [
        ("llc_weight", "16"),
        ("workload", workload),
        ("load", load),
        ("preset", "linux-6.0"),
        ("duration", "1s"),
        ("warmup", "0ms"),
    ] {
        sc.set_field(k, v).unwrap();
    }
    let on = if util_est {
        "UTIL_EST=on"
    } else {
        "UTIL_EST=off"
    };
    sc.set_field("features", on).unwrap();
    let mut s = Simulation::new(&sc).unwrap();
    s.run_for(200_000_000);
    s.periodic_balance(0, 0);
    let per_cpu = (0..16)
        .map(|c| {
            let p = &s.st.rqs[c].pelt;
            (p.util_avg as u64, p.util_est.enqueued as u64)
        })
        .collect();
    let sum = s.st.llcs[0].last_sum_util;
    (s, sum, per_cpu)
}

#[test]
fn sis_util_sums_max_of_util_avg_and_util_est() {
    // linux-6.0 update_sg_lb_stats: group_util += cpu_util_cfs(i), which is
    // min(max(util_avg, util_est.enqueued), capacity). Tasks of `uniform` run ~1 ms bursts
    // and wake wherever the scan puts them, so a CPU's runqueue often holds a task whose
    // estimate (its util at its last sleep) is above the CPU's own util_avg: the sum passed to
    // update_idle_cpu_scan is then above the util_avg sum. (netperf's tasks run ~10 us a
    // time: their estimates stay far below their CPUs' util_avg, as in the kernel.)
    let (s, sum, cpus) = balanced_state(true, "uniform", "100");
    s.check_invariants().unwrap();
    let want: u64 = cpus.iter().map(|&(a, e)| a.max(e).min(1024)).sum();
    let avg_only: u64 = cpus.iter().map(|&(a, _)| a).sum();
    assert_eq!(sum, want, "{cpus:?}");
    assert!(
        cpus.iter().any(|&(a, e)| e > a),
        "no CPU with util_est above util_avg: {cpus:?}"
    );
    assert!(sum > avg_only, "{sum} vs {avg_only}: {cpus:?}");
    assert_eq!(
        s.st.llcs[0].nr_idle_scan,
        crate::kernel::throttle::update_idle_cpu_scan(sum, 16, 117)
    );
    // UTIL_EST off: the runqueues keep no estimate and the sum is util_avg's.
    let (_, sum, cpus) = balanced_state(false, "uniform", "100");
    assert!(cpus.iter().all(|&(_, e)| e == 0), "{cpus:?}");
    assert_eq!(sum, cpus.iter().map(|&(a, _)| a).sum::<u64>());
}

fn netperf_16(warmup: Option<&str>) -> RunReport {
    let mut sc = Scenario::default();
    for (k, v) in [("llc_weight", "16"), ("load", "150"), ("duration", "800ms")] {
        sc.set_field(k, v).unwrap();
    }
    if let Some(w) = warmup {
        sc.set_field("warmup", w).unwrap();
    }
    run(&sc).unwrap()
}

#[test]
fn the_default_warm_up_lasts_until_settled_and_keeps_the_window() {
    use super::warmup::{WARMUP_AUTO_MIN_NS, WARMUP_CAP_NS, WARMUP_STEP_NS};
    let r = netperf_16(None);
    let w = r.warmup;
    assert!(w.auto && w.settled, "{w:?}");
    // PELT ramps for ~200 ms from an idle start: the first check (50 -> 100 ms) cannot pass.
    assert!(w.ns > WARMUP_AUTO_MIN_NS, "{w:?}");
    assert!(
        w.ns <= WARMUP_CAP_NS && w.ns.is_multiple_of(WARMUP_STEP_NS),
        "{w:?}"
    );
    // The measured window is the duration less the auto minimum (a tenth of a run shorter
    // than 1 s), however long it warmed.
    assert_eq!(r.sim_time_ns, 800_000_000 - 80_000_000);
    // An explicit warm-up is honoured exactly, and the report says whether it had settled.
    let short = netperf_16(Some("30ms"));
    assert_eq!(short.warmup.ns, 30_000_000);
    assert!(
        !short.warmup.auto && !short.warmup.settled,
        "{:?}",
        short.warmup
    );
    assert_eq!(short.sim_time_ns, 770_000_000);
    // At 200 ms this LLC's util is still climbing (its band over the last checks is over 2%
    // of capacity: the auto warm-up above settles one step later, at 250 ms); at 600 ms it
    // has settled.
    let mid = netperf_16(Some("200ms"));
    assert!(!mid.warmup.settled, "{:?}", mid.warmup);
    let long = netperf_16(Some("600ms"));
    assert_eq!(
        (long.warmup.ns, long.sim_time_ns),
        (600_000_000, 200_000_000)
    );
    assert!(long.warmup.settled, "{:?}", long.warmup);
    // A fixed warm-up as long as the auto one ended up, and the same window, is the same
    // run: the settle checks only read the state.
    let mut sc = r.scenario.clone();
    let ms = |ns: u64| format!("{}ms", ns / 1_000_000);
    sc.set_field("duration", &ms(w.ns + r.sim_time_ns)).unwrap();
    sc.set_field("warmup", &ms(w.ns)).unwrap();
    let fixed = run(&sc).unwrap();
    assert_eq!(fixed.counters, r.counters);
    assert!(fixed.warmup.settled);
}

#[test]
fn settle_tolerances() {
    use super::warmup::{settled_nr_tolerance, settled_util_tolerance};
    // 2% of the LLC's capacity; 5% of its CPUs, at least 2.
    assert_eq!(settled_util_tolerance(112), 2293);
    assert_eq!(settled_util_tolerance(8), 163);
    assert_eq!(settled_nr_tolerance(112), 5);
    assert_eq!(settled_nr_tolerance(8), 2);
}

/// Steps a 16-CPU netperf run at 150% until a wake-up's scan found a CPU and the wakee is on
/// its way there; returns that task and CPU.
fn waking_after_a_scan(collision: &str) -> (Simulation, u32, u32) {
    waking_after_a_scan_with("linux-6.0", collision, "waker", |_, t| {
        t.rescan.is_none_or(|r| r.nr_left > 2)
    })
}

fn waking_after_a_scan_with(
    preset: &str,
    collision: &str,
    scan_cost: &str,
    want: impl Fn(&Simulation, &Task) -> bool,
) -> (Simulation, u32, u32) {
    let mut sc = Scenario::default();
    // The rescan's mechanism on its own: no wake-up costs beyond the scan.
    for (k, v) in [
        ("machine", "ideal"),
        ("llc_weight", "16"),
        ("smt", "1"),
        ("load", "150"),
        ("preset", preset),
        ("warmup", "0ms"),
        ("collision", collision),
        ("scan_cost", scan_cost),
    ] {
        sc.set_field(k, v).unwrap();
    }
    let mut s = Simulation::new(&sc).unwrap();
    s.set_recording(true);
    s.run_for(20_000_000);
    for _ in 0..200_000 {
        s.step();
        let found = (0..s.tasks.len() as u32).find_map(|t| match s.tasks[t as usize].state {
            TaskState::Waking(cpu)
                if s.st.choose_idle_cpu(cpu)
                    && s.tasks[t as usize].rescan.is_none_or(|r| r.target != cpu) =>
            {
                Some((t, cpu))
            }
            _ => None,
        });
        if let Some((t, cpu)) = found {
            let task = &s.tasks[t as usize];
            if (collision == "stack" || task.rescan.is_some()) && want(&s, task) {
                return (s, t, cpu);
            }
        }
    }
    panic!("no wake-up went to a CPU its scan found");
}

/// Another wake-up takes `cpu` first: a sleeping task is enqueued there.
fn take_cpu(s: &mut Simulation, cpu: u32) {
    let other = (0..s.tasks.len() as u32)
        .find(|&o| {
            s.tasks[o as usize].state == TaskState::Sleeping && !s.tasks[o as usize].wake_pending
        })
        .expect("a sleeping task");
    s.enqueue(other, cpu);
}

#[test]
fn a_rescan_goes_on_from_the_taken_cpu_with_the_budget_left() {
    // collision=rescan: another wake-up takes the CPU first; the kernel's probe of it would
    // have seen it busy and select_idle_cpu's loop gone on from the next CPU with its nr.
    // A wake-up whose rescan has an idle CPU to find within its budget: the kernel's loop
    // probes cpu + 1 .. cpu + nr_left - 1.
    let (mut s, t, cpu) = waking_after_a_scan_with("linux-6.0", "rescan", "waker", |s, t| {
        let (TaskState::Waking(cpu), Some(r)) = (t.state, t.rescan) else {
            return false;
        };
        r.nr_left > 2 && (1..r.nr_left as u32 - 1).any(|i| s.st.choose_idle_cpu((cpu + i) % 16))
    });
    let nr_left = s.tasks[t as usize].rescan.expect("a rescan").nr_left;
    take_cpu(&mut s, cpu);
    assert!(!s.st.choose_idle_cpu(cpu));
    // The kernel's walk by hand: for_each_cpu_wrap from cpu + 1, `if (!--nr) return -1`.
    let (n, mut nr, mut expected, mut probes) = (16u32, nr_left, None, 0u64);
    for i in 1..n {
        let c = (cpu + i) % n;
        nr -= 1;
        if nr <= 0 {
            break;
        }
        probes += 1;
        if s.st.choose_idle_cpu(c) {
            expected = Some(c);
            break;
        }
    }
    assert!(probes >= 1 && expected.is_some(), "nr left {nr_left}");
    let (scanned, failed) = (s.counters.sis_scanned, s.counters.sis_failed);
    let seq = s.tasks[t as usize].rescan.expect("a rescan").seq;
    let steps_before = s
        .decisions
        .iter()
        .find(|d| d.id.seq == seq)
        .map_or(0, |d| d.steps.len());
    assert!(seq > 0 && steps_before > 0, "the wake-up was recorded");
    s.arrive(t, cpu);
    assert_eq!(s.counters.sis_scanned - scanned, probes);
    match expected {
        Some(c) => {
            assert_eq!(
                s.tasks[t as usize].state,
                TaskState::Waking(c),
                "nr left {nr_left}"
            );
            assert_eq!(s.counters.sis_failed, failed);
        }
        None => assert_eq!(s.counters.sis_failed, failed + 1),
    }
    // The recorded decision now ends with the rescan: its probes, and where the wakee went.
    let d = s
        .decisions
        .iter()
        .find(|d| d.id.seq == seq)
        .expect("still in the ring");
    assert_eq!(Some(d.result), expected);
    assert_eq!(
        d.decided_by,
        Some(crate::kernel::trace::Rule::SelectIdleCpu)
    );
    assert_eq!(d.steps.len(), steps_before + probes as usize);
    assert_eq!(d.steps.last().map(|st| st.cpu), expected);
    s.check_invariants().unwrap();
}

#[test]
fn a_rescan_that_runs_out_of_budget_counts_the_exhausting_iteration_where_the_era_does() {
    // The 2020 schedstat patch on the two-pass select_idle_cpu (4.13-5.11) bumps sis_scanned
    // before `if (!--nr) return -1`; the single pass (5.12+) does not. With 2 left: one probe
    // of the (busy) next CPU, then the budget ends the loop.
    for (preset, exhausting) in [("linux-5.15", 0), ("linux-5.10", 1), ("linux-4.13", 1)] {
        let (mut s, t, cpu) =
            waking_after_a_scan_with(preset, "rescan", "delay", |_, t| t.rescan.is_some());
        s.tasks[t as usize]
            .rescan
            .as_mut()
            .expect("a rescan")
            .nr_left = 2;
        take_cpu(&mut s, cpu);
        let next = (cpu + 1) % 16;
        if s.st.choose_idle_cpu(next) {
            take_cpu(&mut s, next);
        }
        let (scanned, failed) = (s.counters.sis_scanned, s.counters.sis_failed);
        assert!(s.measuring, "{preset}");
        s.arrive(t, cpu);
        assert_eq!(
            s.counters.sis_scanned - scanned,
            1 + exhausting,
            "{preset}: one probe, and the exhausting iteration where counted"
        );
        assert_eq!(s.counters.sis_failed, failed + 1, "{preset}");
        assert!(s.tasks[t as usize].rescan.is_none(), "{preset}");
    }
}

#[test]
fn a_cpu_taken_after_the_scan_saw_it_is_where_the_wakee_queues() {
    // The kernel's loop claims the CPU it found right after probing it; taken between that
    // probe and the enqueue (the waker waiting for the runqueue's lock), the wakee queues
    // there: ttwu_queue does not look again.
    let (mut s, t, cpu) = waking_after_a_scan("rescan");
    let r = s.tasks[t as usize].rescan.as_mut().expect("a rescan");
    r.seen_at = s.now.saturating_sub(1);
    assert_taken_cpu_gets_the_wakee(&mut s, t, cpu);
}

/// Another wake-up takes `cpu`, then `t` arrives: it queues there without a probe.
fn assert_taken_cpu_gets_the_wakee(s: &mut Simulation, t: u32, cpu: u32) {
    take_cpu(s, cpu);
    let scanned = s.counters.sis_scanned;
    s.arrive(t, cpu);
    assert_eq!(s.tasks[t as usize].state, TaskState::Queued(cpu));
    assert_eq!(s.counters.sis_scanned, scanned);
}

#[test]
fn an_idle_cpu_an_idle_core_scan_went_on_past_is_claimed_without_a_second_look() {
    // linux-6.0 select_idle_cpu with has_idle_core: select_idle_core() remembers the first
    // idle CPU (`*idle_cpu = cpu`), the loop goes on over every core, and `return idle_cpu`
    // hands it to ttwu_queue however long ago it was seen. A CPU the loop stopped at keeps
    // its rescan.
    let sc = Scenario::from_pairs([
        ("llc_weight", "16"),
        ("load", "100"),
        ("warmup", "0ms"),
        ("collision", "rescan"),
    ]);
    let mut s = Simulation::new(&sc.unwrap()).unwrap();
    s.set_recording(true);
    let (mut remembered, mut stopped_at) = (0, 0);
    while s.now < 50_000_000 && (remembered < 5 || stopped_at < 5) {
        let seq = s.decision_seq;
        s.step();
        if s.decision_seq != seq + 1 {
            continue;
        }
        let d = s.decisions.back().unwrap();
        let t = &s.tasks[d.id.wakee as usize];
        if !matches!(t.state, TaskState::Waking(_))
            || d.scan_end != Some(crate::kernel::trace::ScanEnd::Found)
        {
            continue;
        }
        if s.st.scan_idle_cpu_remembered {
            assert!(t.rescan.is_none(), "{d:?}");
            remembered += 1;
        } else {
            assert!(t.rescan.is_some(), "{d:?}");
            stopped_at += 1;
        }
    }
    assert!(
        remembered >= 5 && stopped_at >= 5,
        "{remembered} {stopped_at}"
    );
}

#[test]
fn with_collision_stack_a_wakee_stacks_on_the_cpu_its_scan_found_even_if_taken() {
    let (mut s, t, cpu) = waking_after_a_scan("stack");
    assert!(s.tasks[t as usize].rescan.is_none());
    assert_taken_cpu_gets_the_wakee(&mut s, t, cpu);
}

#[test]
fn a_rescan_adds_its_time_to_the_same_scan_sample() {
    // linux-5.15 fair.c select_idle_cpu times the whole loop into one sample: the rescan's
    // probes come off the waker's wake_avg_idle, add their eighth to its avg_scan_cost, and
    // move the call's @usecs entry to the longer time.
    // One whose rescan will find an idle CPU within its budget (a loop that runs out of
    // budget is not timed).
    let (mut s, t, cpu) = waking_after_a_scan_with("linux-5.15", "rescan", "delay", |s, t| {
        let TaskState::Waking(cpu) = t.state else {
            return false;
        };
        t.rescan.is_some_and(|r| {
            let after = (1..16).map(|i| (cpu + i) % 16).take(r.nr_left as usize - 1);
            r.nr_left > 2
                && r.timed
                && r.counted_ns > 0
                && after.into_iter().any(|c| s.st.choose_idle_cpu(c))
        })
    });
    let r = s.tasks[t as usize].rescan.expect("a rescan");
    let (first_ns, waker) = (r.counted_ns, r.waker_cpu);
    take_cpu(&mut s, cpu);
    s.st.rqs[waker as usize].wake_avg_idle = 1_000_000;
    let (cost_before, hist_before) = (s.st.rqs[waker as usize].avg_scan_cost, s.hist.clone());
    let scanned = s.counters.sis_scanned;
    s.arrive(t, cpu);
    let cost = (s.counters.sis_scanned - scanned) * s.st.probe_cost_ns;
    assert!(cost > 0, "the rescan probed");
    let rq = &s.st.rqs[waker as usize];
    assert_eq!(rq.avg_scan_cost, cost_before + cost / 8);
    assert_eq!(rq.wake_avg_idle, 1_000_000 - cost);
    let mut expected = hist_before;
    expected.move_ns(first_ns, first_ns + cost);
    assert_eq!(s.hist, expected);
    assert_eq!(
        s.hist.buckets.iter().sum::<u64>(),
        expected.buckets.iter().sum::<u64>()
    );
}

#[test]
fn under_scan_cost_waker_a_rescan_is_the_waker_cpus_time_too() {
    // The rescan is the rest of the waker's select_idle_cpu loop, run in try_to_wake_up on
    // the waker's CPU: whatever runs there now ends its stint that much later, and the CPU
    // shows as scanning meanwhile.
    let (mut s, t, cpu) = waking_after_a_scan_with("linux-5.15", "rescan", "waker", |_, t| {
        t.rescan.is_some_and(|r| r.nr_left > 2)
    });
    let waker = s.tasks[t as usize].rescan.expect("a rescan").waker_cpu;
    take_cpu(&mut s, cpu);
    let c = &s.cpus[waker as usize];
    let (curr, stint_end, scan_until) = (c.curr, c.stint_end_at, c.scan_until);
    let scanned = s.counters.sis_scanned;
    s.arrive(t, cpu);
    let cost = (s.counters.sis_scanned - scanned) * s.st.probe_cost_ns;
    assert!(cost > 0, "the rescan probed");
    let c = &s.cpus[waker as usize];
    assert_eq!(c.scan_until, scan_until.max(s.now) + cost);
    // Here the waker's CPU runs a task (the client in its send's tail, or another).
    assert!(curr.is_some() && c.curr == curr, "{curr:?} {:?}", c.curr);
    assert_eq!(c.stint_end_at, stint_end + cost);
    // The same rescan under scan_cost=delay leaves the waker's CPU as it was.
    let (mut s, t, cpu) = waking_after_a_scan_with("linux-5.15", "rescan", "delay", |_, t| {
        t.rescan.is_some_and(|r| r.nr_left > 2)
    });
    let waker = s.tasks[t as usize].rescan.expect("a rescan").waker_cpu;
    take_cpu(&mut s, cpu);
    let before = (
        s.cpus[waker as usize].stint_end_at,
        s.cpus[waker as usize].scan_until,
    );
    let scanned = s.counters.sis_scanned;
    s.arrive(t, cpu);
    assert!(s.counters.sis_scanned > scanned, "the rescan probed");
    let c = &s.cpus[waker as usize];
    assert_eq!((c.stint_end_at, c.scan_until), before);
}

#[test]
fn a_run_in_slices_reports_what_a_run_in_one_go_does() {
    // The CLI's progress bar steps a run in slices; the report must not notice.
    for pairs in [
        vec![("llc_weight", "16"), ("load", "150"), ("duration", "300ms")],
        vec![
            ("llc_weight", "8"),
            ("preset", "linux-5.15"),
            ("warmup", "20ms"),
            ("duration", "200ms"),
        ],
        vec![
            ("llc_weight", "16"),
            ("workload", "hackbench"),
            ("load", "200"),
            ("duration", "250ms"),
        ],
        vec![
            ("llc_weight", "8"),
            ("workload", "schbench"),
            ("preset", "linux-4.13"),
            ("duration", "150ms"),
        ],
    ] {
        let sc = Scenario::from_pairs(pairs.clone()).unwrap();
        let whole = Simulation::new(&sc).unwrap().run_to_end();
        let mut calls = 0;
        let mut last = 0;
        let sliced = Simulation::new(&sc)
            .unwrap()
            .run_to_end_with(7_000_000, |now, end| {
                assert!(now >= last && now <= end);
                last = now;
                calls += 1;
            });
        assert_eq!(format!("{sliced:?}"), format!("{whole:?}"), "{pairs:?}");
        assert!(calls >= 10, "{pairs:?}: {calls} progress calls");
    }
}
