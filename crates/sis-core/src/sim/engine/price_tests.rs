//! The wake-up's own price (issue 25): each cost paid where the kernel pays it, from the
//! machine preset's cited values (sim/machine.rs).

use super::*;

/// One task of `workload` on a machine, nothing run yet (every CPU idle since time 1).
fn sim_on(machine: &str, extra: &[(&str, &str)]) -> Simulation {
    let mut pairs = vec![
        ("machine", machine),
        ("workload", "uniform"),
        ("tasks", "1"),
        ("warmup", "0ms"),
    ];
    pairs.extend_from_slice(extra);
    let sc = Scenario::from_pairs(pairs).unwrap();
    let mut s = Simulation::new(&sc).unwrap();
    s.measuring = true;
    s
}

#[test]
fn a_wakeup_onto_an_idle_cpu_waits_for_the_governors_state_and_an_ipi_if_it_does_not_poll() {
    // The governor entered the deepest state whose target residency fits the last idle
    // period (menu_select); the woken task runs after its exit latency, plus an IPI where
    // the state does not poll need_resched (resched_curr: set_nr_and_not_polling).
    for (machine, predicted_ns, waker, delay, ipis) in [
        // xeon-spr: C1E (2 us) even for a 1 ms prediction, C6 being disabled on the seed's
        // machine; mwait polls, so no IPI.
        ("xeon-spr", 1_000_000, 0, 2_000, 0),
        // C1E (2 us) for a 10 us prediction; C1 (1 us) for 2 us.
        ("xeon-spr", 10_000, 0, 2_000, 0),
        ("xeon-spr", 2_000, 0, 1_000, 0),
        // arm-cluster: WFI (1 us) and the IPI (5669 ns) from another CPU...
        ("arm-cluster", 10_000, 0, 1_000 + 5_669, 1),
        // ...but none from the CPU itself (a timer there already woke it).
        ("arm-cluster", 10_000, 3, 1_000, 0),
        // epyc-chiplet: C2 (I/O port, no polling) for 1 ms: the measured IPI-and-exit.
        ("epyc-chiplet", 1_000_000, 0, 2_400, 1),
        ("ideal", 1_000_000, 0, 0, 0),
    ] {
        let mut s = sim_on(machine, &[]);
        s.now = 500_000;
        s.cpus[3].predicted_idle_ns = predicted_ns;
        s.tasks[0].waker_cpu = waker;
        s.enqueue(0, 3);
        let what = format!("{machine}, predicted {predicted_ns} ns, waker {waker}");
        assert_eq!(s.tasks[0].state, TaskState::Running(3), "{what}");
        assert_eq!(s.cpus[3].stint_start, 500_000 + delay, "{what}");
        assert_eq!(s.counters.ipis, ipis, "{what}");
        // The idle time runs to the end of the exit; the next prediction is this period.
        assert_eq!(s.counters.idle_ns, 500_000 - 1 + delay, "{what}");
        assert_eq!(s.cpus[3].predicted_idle_ns, 500_000 - 1, "{what}");
        assert_eq!(s.tasks[0].waker_cpu, NONE, "{what}: consumed");
    }
}

#[test]
fn a_balance_pull_onto_an_idle_cpu_pays_no_exit() {
    // A pull runs on the puller, awake in its softirq (waker_cpu NONE): no exit, no IPI.
    let mut s = sim_on("xeon-spr", &[]);
    s.now = 500_000;
    s.cpus[3].predicted_idle_ns = 1_000_000;
    s.enqueue(0, 3);
    assert_eq!(s.cpus[3].stint_start, 500_000);
    assert_eq!(s.counters.ipis, 0);
}

#[test]
fn a_remote_wakeup_spins_for_the_runqueue_lock_and_holds_it_one_transfer() {
    // ttwu_queue's rq_lock on a CPU of the waker's LLC: the line's transfer (132 ns on
    // xeon-spr), after whoever holds it. Local and other-LLC wake-ups take no remote lock.
    // v5.19 takes it for an idle CPU too (every CPU is idle here).
    let mut s = sim_on(
        "xeon-spr",
        &[("llcs", "2"), ("llc_weight", "8"), ("preset", "linux-5.19")],
    );
    let t = 1_000_000;
    assert_eq!(s.ttwu_lock(0, 3, t), 132);
    // A second waker at the same instant waits for the first to let go.
    assert_eq!(s.ttwu_lock(1, 3, t), 132 + 132 + 132);
    assert_eq!(s.counters.ttwu_lock_wait_ns, 132 + 396);
    assert_eq!(s.cpus[1].lock_wait_until, t + 396);
    // Long after, the lock is free again: one transfer.
    assert_eq!(s.ttwu_lock(2, 3, t + 10_000), 132);
    assert_eq!(s.ttwu_lock(3, 3, t), 0, "local");
    assert_eq!(
        s.ttwu_lock(0, 12, t),
        0,
        "another LLC: the wakelist, no lock"
    );
    assert_eq!(s.counters.remote_wakeups, 4);
    let mut ideal = sim_on("ideal", &[]);
    assert_eq!(ideal.ttwu_lock(0, 3, t), 0);
}

#[test]
fn a_wakee_queued_behind_another_on_the_idle_cpu_it_picked_counts_as_a_pick_taken() {
    // v5.19 try_to_wake_up: select_task_rq() reads the CPU idle, ttwu_queue() takes its rq
    // lock after: nothing reserves the CPU between the two, so two wakers that both picked
    // idle CPU 3 take its lock in turn and the second wakee queues behind the first.
    let mut s = sim_on(
        "xeon-spr",
        &[
            ("llc_weight", "8"),
            ("tasks", "3"),
            ("preset", "linux-5.19"),
        ],
    );
    s.now = 1_000_000;
    let picked = |cpu| Outcome {
        cpu,
        rule: crate::kernel::trace::Rule::Prev,
        target: cpu,
        found_by_scan: false,
        probes: 1,
        select_idle_cpu_ns: None,
        recent_used_cpu: None,
        waker_recent_used_cpu: None,
    };
    s.after_select(0, 0, 3, &picked(3), 0);
    s.after_select(1, 1, 3, &picked(3), 0);
    assert!(s.tasks[0].picked_idle && s.tasks[1].picked_idle);
    // Each arrives when its waker holds the lock: 132 ns, then 396 ns.
    s.now = 1_000_132;
    s.arrive(0, 3);
    assert_eq!(s.counters.idle_pick_taken, 0, "the first finds CPU 3 idle");
    s.now = 1_000_396;
    s.arrive(1, 3);
    assert_eq!(s.tasks[1].state, TaskState::Queued(3));
    assert_eq!(s.counters.idle_pick_taken, 1, "the second finds it taken");
    // A wake-up that picked a busy CPU (select_idle_sibling's fallback: its target) is not
    // one, though it queues behind a task too.
    s.after_select(2, 2, 3, &picked(3), 0);
    assert!(!s.tasks[2].picked_idle);
    s.now = 1_010_000;
    s.arrive(2, 3);
    assert_eq!(s.counters.idle_pick_taken, 1);
    assert!(
        !s.tasks[0].picked_idle && !s.tasks[1].picked_idle,
        "consumed"
    );
}

#[test]
fn from_6_0_a_wakeup_onto_an_idle_cpu_of_the_llc_goes_on_its_wakelist_without_the_lock() {
    // v6.0 core.c ttwu_queue_cond: `if (!cpu_rq(cpu)->nr_running) return true;`
    // (f3dd3f674555): the waker queues the task on the idle CPU's wakelist and takes no lock.
    let mut s = sim_on("xeon-spr", &[("llc_weight", "8"), ("preset", "linux-6.0")]);
    let t = 1_000_000;
    assert_eq!(s.ttwu_lock(0, 3, t), 0, "idle: the wakelist");
    assert_eq!(s.counters.remote_wakeups, 1, "still a remote wake-up");
    // A CPU with a task on its runqueue is locked as in 5.19.
    s.st.rqs[3].nr_running = 1;
    assert_eq!(s.ttwu_lock(0, 3, t), 132);
    assert_eq!(s.counters.ttwu_lock_wait_ns, 132);
    // The feature alone makes the difference.
    let mut off = sim_on(
        "xeon-spr",
        &[
            ("llc_weight", "8"),
            ("preset", "linux-6.0"),
            ("features", "TTWU_QUEUE_IDLE=off"),
        ],
    );
    assert_eq!(off.ttwu_lock(0, 3, t), 132);
}

#[test]
fn a_wakeup_onto_a_cpu_other_than_its_last_starts_cache_cold_once() {
    // The same wake-up on two machines that differ only in their costs: a migrating wakee
    // runs cold_start_ns (3.8 us, Li et al. 2007) longer on xeon-spr.
    let remaining = |machine: &str, prev: u32| {
        let mut s = sim_on(machine, &[("llc_weight", "8"), ("smt", "1")]);
        s.now = 500_000;
        s.tasks[0].prev = prev;
        s.tasks[0].wake_pending = false;
        // Every CPU idle: wake_affine and select_idle_sibling keep prev, or the idle waker.
        s.wake_from(None, 5, 0, false);
        let cpu = match s.tasks[0].state {
            TaskState::Running(c) | TaskState::Queued(c) | TaskState::Waking(c) => c,
            TaskState::Sleeping => panic!("not woken"),
        };
        (cpu, s.tasks[0].remaining)
    };
    let (cpu, stay) = remaining("xeon-spr", 5);
    let (_, stay_ideal) = remaining("ideal", 5);
    assert_eq!((cpu, stay), (5, stay_ideal), "no migration, no cold start");
    let (cpu, moved) = remaining("xeon-spr", 2);
    let (cpu_ideal, moved_ideal) = remaining("ideal", 2);
    assert_eq!(cpu, cpu_ideal);
    if cpu != 2 {
        assert_eq!(moved, moved_ideal + 3_800);
    } else {
        assert_eq!(moved, moved_ideal);
    }
}

#[test]
fn loopback_replies_are_sync_wakeups_and_a_wire_makes_them_softirq_ones() {
    // wire_us=0: both directions are WF_SYNC wake-ups from the sender's context (v5.19
    // sock_def_readable: wake_up_interruptible_sync_poll). wire_us>0: the reply arrives from
    // the NIC's softirq, not sync.
    for (wire, want_async) in [("0", false), ("18", true)] {
        let sc = Scenario::from_pairs([
            ("llc_weight", "8"),
            ("load", "50"),
            ("duration", "50ms"),
            ("warmup", "0ms"),
            ("wire_us", wire),
        ])
        .unwrap();
        let mut s = Simulation::new(&sc).unwrap();
        let mut sync = [0u32; 2];
        while let Some(d) = s.next_wakeup() {
            if d.id.time_ns > 20_000_000 {
                break;
            }
            // (Each client's first start is a timer's: the 4 instances' launch, 1 ms of jitter.)
            let launched = 1_000_000 + 4 * crate::sim::workload::NETPERF_LAUNCH_GAP_NS;
            if d.id.time_ns > launched {
                sync[usize::from(d.id.sync)] += 1;
            }
        }
        assert!(sync[1] > 100, "wire {wire}: {sync:?}");
        assert_eq!(sync[0] > 0, want_async, "wire {wire}: {sync:?}");
    }
}

#[test]
fn the_run_counts_switches_preemptions_and_busy_time() {
    // The pinned corner case on 8 CPUs: seven hogs never block, so at least 7/8 of the time
    // is busy, and wakers queued behind hogs get them preempted at their slice's end.
    let sc = Scenario::from_pairs([
        ("llc_weight", "8"),
        ("smt", "1"),
        ("workload", "pinned"),
        ("duration", "300ms"),
        ("warmup", "0ms"),
    ])
    .unwrap();
    let r = Simulation::new(&sc).unwrap().run_to_end();
    let c = r.counters;
    assert!(c.involuntary_switches > 0, "{c:?}");
    assert!(
        c.context_switches >= c.wakeups + c.involuntary_switches,
        "{c:?}"
    );
    assert!(
        r.cpu_busy_pct >= 87.5 && r.cpu_busy_pct <= 100.0,
        "{}",
        r.cpu_busy_pct
    );
    // Nothing to run: every CPU idle the whole window.
    let none =
        Scenario::from_pairs([("llc_weight", "8"), ("load", "0"), ("duration", "10ms")]).unwrap();
    assert_eq!(crate::sim::engine::run(&none).unwrap().cpu_busy_pct, 0.0);
}

#[test]
fn a_loopback_sends_softirq_keeps_the_cpu_busy_but_out_of_its_util() {
    // softirq_pct: the end of each send's run and the wake-up's scan are the NET_RX softirq,
    // which IRQ time accounting keeps out of PELT's clock. The CPUs are as busy; their
    // util_avg (SIS_UTIL's sum) is lower. Each pair runs spread (client on one CPU, server on
    // another, no gap between): a CPU's util is its task's PELT-visible run over that plus
    // the peer's run, so with 40% of each run frozen the pair's sum goes from
    // 10/30 + 20/30 = 1 to 6/26 + 12/22 = 0.78 of a CPU (10 and 20 us runs).
    let run = |softirq: &str| {
        let sc = Scenario::from_pairs([
            ("llc_weight", "8"),
            ("smt", "1"),
            ("load", "50"),
            ("duration", "300ms"),
            ("warmup", "0ms"),
            ("wire_us", "0"),
            ("softirq_pct", softirq),
        ])
        .unwrap();
        let mut s = Simulation::new(&sc).unwrap();
        s.measuring = true;
        s.run_for(300_000_000);
        let util = s.llc_sum_util_now(0);
        (util, s.report().cpu_busy_pct)
    };
    let (util0, busy0) = run("0");
    let (util40, busy40) = run("40");
    assert!((busy0 - busy40).abs() < 5.0, "busy {busy0} vs {busy40}");
    let ratio = util40 * 100 / util0;
    assert!((74..=84).contains(&ratio), "util {util40} vs {util0}");
}
