//! The replay's task classes (RT, deadline, stop: each placed by its own class's
//! select_task_rq) and its load signal (nice weights, each era's form).

use sis_core::analysis::replay::{replay_text, Replay, ReplayConfig, ReplayReport};
use sis_core::kernel::topology::{Numbering, TopologySpec};

/// 4 CPUs, one LLC, no SMT.
fn four_cpus(presets: &[&str]) -> ReplayConfig {
    ReplayConfig {
        topology: Some(TopologySpec {
            llcs: 1,
            llc_weight: 4,
            smt: 1,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        }),
        presets: presets.iter().map(|p| p.to_string()).collect(),
        show: 10,
        ..Default::default()
    }
}

fn agree(r: &ReplayReport, class: &str, preset: &str) -> u64 {
    let c = r.classes.get(class).unwrap();
    c.agree.iter().find(|(p, _)| p == preset).unwrap().1
}

fn wakeups(r: &ReplayReport, class: &str) -> u64 {
    r.classes.get(class).unwrap().wakeups
}

const HDR: &str = "# tracer: nop\n#\n# entries-in-buffer/entries-written: 9/9   #P:4\n";

/// CPU0 runs fair task a; CPU1 runs RT task r1 (prio 10); CPU2 runs fair task f; CPU3 is
/// idle. a wakes RT task w (prio 50), whose prev is CPU1.
fn rt_trace(kernel: u32, wakee_prio: i32) -> String {
    format!(
        "{HDR}\
          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 1.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=r1 next_pid=101 next_prio=10
          <idle>-0     [002] 1.000002: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=f next_pid=102 next_prio=120
               x-7     [003] 1.000003: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120
               a-100   [000] 1.000100: sched_waking: comm=w pid=200 prio={wakee_prio} target_cpu=001
               a-100   [000] 1.000101: sched_wakeup: comm=w pid=200 prio={wakee_prio} target_cpu=00{kernel}
"
    )
}

/// select_task_rq_rt: prev runs a higher-priority RT task, so find_lowest_rq looks for the
/// lowest cpupri level (CPUs without RT tasks: 0, 2, 3; idle is not lower than fair), and
/// the waker's CPU 0 is in it and in the LLC: CPU 0, for every preset and era.
#[test]
fn an_rt_wakee_behind_a_higher_rt_task_goes_to_the_wakers_cpu() {
    let r = replay_text(
        four_cpus(&["linux-4.4", "linux-6.0"]),
        rt_trace(0, 50).as_bytes(),
    )
    .unwrap();
    assert_eq!(wakeups(&r, "rt"), 1);
    assert_eq!(wakeups(&r, "all"), 1, "an RT wake-up is in `all` too");
    assert_eq!(wakeups(&r, "dl"), 0);
    for p in ["linux-4.4", "linux-6.0", "waker_cpu"] {
        assert_eq!(agree(&r, "rt", p), 1, "{p}");
    }
    assert_eq!(agree(&r, "rt", "keep_prev"), 0);
    // A fair wakee (prio 120) of the same trace is no RT wake-up.
    let fair = replay_text(four_cpus(&["linux-6.0"]), rt_trace(0, 120).as_bytes()).unwrap();
    assert_eq!(wakeups(&fair, "rt"), 0);
}

/// The same wakee with a higher priority than the running RT task (prio 5 < 10) preempts it
/// on prev: it stays. A disagreement (the kernel put it on CPU 3) is shown with no fair
/// checks.
#[test]
fn an_rt_wakee_that_outranks_prevs_task_stays() {
    let r = replay_text(four_cpus(&["linux-6.0"]), rt_trace(1, 5).as_bytes()).unwrap();
    assert_eq!(agree(&r, "rt", "linux-6.0"), 1);
    let r = replay_text(four_cpus(&["linux-6.0"]), rt_trace(3, 5).as_bytes()).unwrap();
    assert_eq!(agree(&r, "rt", "linux-6.0"), 0);
    let d = &r.disagreements[0];
    assert_eq!(d.decisions[0].1.result, 1);
    assert!(d.decisions[0].1.steps.is_empty());
}

/// A migration/N wake-up is a stop task: counted and left out of every class.
#[test]
fn stop_tasks_are_counted_and_left_out() {
    let trace = format!(
        "{HDR}\
          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 1.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=101 next_prio=120
          <idle>-0     [002] 1.000002: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=f next_pid=102 next_prio=120
               x-7     [003] 1.000003: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120
               a-100   [000] 1.000100: sched_waking: comm=migration/2 pid=20 prio=0 target_cpu=002
               a-100   [000] 1.000101: sched_wakeup: comm=migration/2 pid=20 prio=0 target_cpu=002
"
    );
    let r = replay_text(four_cpus(&["linux-6.0"]), trace.as_bytes()).unwrap();
    assert_eq!(r.notes.stop, 1);
    assert_eq!(wakeups(&r, "all"), 0);
    assert_eq!(wakeups(&r, "rt"), 0);
}

/// The load wake_affine reads is weighted by nice level: the same running pattern at prio
/// 100 (nice -20) carries 88761/1024 times the load of prio 120, and a 4.x era's runnable
/// load drops back when the task sleeps while 5.7+'s load_avg keeps it as blocked load.
#[test]
fn cpu_load_follows_nice_weights_and_each_eras_blocked_rule() {
    let run = |prio: i32| {
        let mut t = String::from(HDR);
        t += "               x-7     [001] 1.000000: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
        t += "          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120\n";
        // b: runnable at `prio` on CPU1 for 200 ms.
        t += &format!("               a-100   [000] 1.000010: sched_waking: comm=b pid=200 prio={prio} target_cpu=001\n");
        t += &format!("               a-100   [000] 1.000011: sched_wakeup: comm=b pid=200 prio={prio} target_cpu=001\n");
        t += &format!("          <idle>-0     [001] 1.000012: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=200 next_prio={prio}\n");
        let mut r = Replay::new(four_cpus(&["linux-6.0"])).unwrap();
        r.feed_text(t.as_bytes()).unwrap();
        // A wake-up at 1.2 s snapshots every CPU's load (b still runs).
        let w = "               a-100   [000] 1.200000: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n";
        r.feed_text(w.as_bytes()).unwrap();
        let running = r.cpu_states()[1].load;
        // b sleeps; the next wake-up's snapshot.
        let s = format!("               b-200   [001] 1.200100: sched_switch: prev_comm=b prev_pid=200 prev_prio={prio} prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n               a-100   [000] 1.200200: sched_waking: comm=d pid=400 prio=120 target_cpu=002\n");
        r.feed_text(s.as_bytes()).unwrap();
        (running, r.cpu_states()[1].load)
    };
    let (nice0, nice0_slept) = run(120);
    let (heavy, heavy_slept) = run(100);
    for era in 0..3 {
        assert!((1000..=1024).contains(&nice0[era]), "era {era}: {nice0:?}");
        let ratio = heavy[era] as f64 / nice0[era] as f64;
        assert!((ratio - 88761.0 / 1024.0).abs() < 1.0, "era {era}: {ratio}");
    }
    // 4.x: the sleeper's runnable load comes off, up to the two sums' drift.
    for era in 0..2 {
        assert!(
            nice0_slept[era] < nice0[era] / 20,
            "era {era}: {nice0_slept:?}"
        );
        assert!(
            heavy_slept[era] < heavy[era] / 20,
            "era {era}: {heavy_slept:?}"
        );
    }
    // 5.7+: it stays, as blocked load.
    assert!(nice0_slept[2] > nice0[2] * 9 / 10, "{nice0_slept:?}");
}

/// A replay (linux-6.0, 4 CPUs) where CPU0 runs a, CPU1 goes idle, `wake` puts b on CPU1
/// (by 1.000011) and CPU1 switches to b at 1.000012.
fn b_starts_on_cpu1(wake: &str) -> Replay {
    let mut t = String::from(HDR);
    t += "               x-7     [001] 1.000000: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
    t += "          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120\n";
    t += wake;
    t += "          <idle>-0     [001] 1.000012: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=200 next_prio=120\n";
    let mut r = Replay::new(four_cpus(&["linux-6.0"])).unwrap();
    r.feed_text(t.as_bytes()).unwrap();
    r
}

/// 5.7+'s load_avg as the kernel keeps it around a task's birth and death: a forked task is
/// attached "seen as heavy" (linux-5.10 fair.c init_entity_runnable_average() gives it its
/// weight as load_avg, attach_entity_load_avg() rebuilds load_sum from it), and a task that
/// exits takes its blocked load off its CPU (task_dead_fair() -> remove_entity_load_avg()) at
/// that cfs_rq's next update (update_cfs_rq_load_avg() takes `removed` off first): until
/// then cpu_load() still counts it, as the kernel's own value read at an enqueue shows
/// (init.sh `sis_load`). One that sleeps leaves its load there, decaying.
#[test]
fn a_new_task_starts_heavy_and_a_dead_one_takes_its_load_away_at_the_next_update() {
    let run = |state: &str| {
        // a forks b onto CPU1; b runs 2 ms.
        let mut r = b_starts_on_cpu1(
            "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=001\n",
        );
        let w = "               a-100   [000] 1.002000: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n";
        r.feed_text(w.as_bytes()).unwrap();
        let young = r.cpu_states()[1].load[2];
        // b leaves its CPU in `state`; the next wake-up's snapshot.
        let s = format!("               b-200   [001] 1.002100: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state={state} ==> next_comm=swapper/1 next_pid=0 next_prio=120\n               a-100   [000] 1.002200: sched_waking: comm=d pid=400 prio=120 target_cpu=002\n");
        r.feed_text(s.as_bytes()).unwrap();
        let after = r.cpu_states()[1].load[2];
        // 40 ms on, past the nohz blocked-load update of idle CPU1 (every 32 ms).
        let w = "               a-100   [000] 1.042200: sched_waking: comm=e pid=500 prio=120 target_cpu=002\n";
        r.feed_text(w.as_bytes()).unwrap();
        (young, after, r.cpu_states()[1].load[2])
    };
    let (young, slept, slept_later) = run("S");
    // Two periods into its life its load has decayed from 1024 by about y^2, not built up
    // from 0 (which would be about 2048 * 1024 / 47742 = 44).
    assert!((950..=1024).contains(&young), "{young}");
    assert!(
        slept > young * 9 / 10,
        "{slept} after sleeping, {young} before"
    );
    // 40 ms of decay: about y^39, 0.43.
    assert!(
        (young * 3 / 10..young / 2).contains(&slept_later),
        "{slept_later} 40 ms into its sleep, {young} before"
    );
    for state in ["Z", "X"] {
        let (_, dead, dead_later) = run(state);
        assert!(
            dead > young * 9 / 10,
            "{dead} just after exiting, {young} before"
        );
        assert_eq!(
            dead_later, 0,
            "{state}: after CPU1's next update, {young} before"
        );
    }
}

/// A CPU's blocked load and util are brought up to now before each of its balances
/// (v6.12 sched_balance_softirq() and sched_balance_newidle():
/// sched_balance_update_blocked_averages()), which takes off what dead tasks left queued in
/// `removed`: where the trace shows the balance (init.sh's `sis_lb` kprobe), a dead task's
/// load leaves its idle CPU there, not at the next blocked-load update 32 ms on.
#[test]
fn a_dead_tasks_load_leaves_its_idle_cpu_at_the_cpus_next_balance_the_trace_shows() {
    let run = |balance: bool| {
        // a forks b onto CPU1; b runs 2 ms and exits; CPU1 balances 1 ms later.
        let mut r = b_starts_on_cpu1(
            "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=001\n",
        );
        // A wake-up before the exit: the 32 ms blocked-load update is not due again until 1.034.
        let mut t = String::from("               a-100   [000] 1.002000: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n");
        t += "               b-200   [001] 1.002100: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=Z ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
        if balance {
            t += "          <idle>-0     [001] 1.003100: sis_lb: (sched_balance_rq+0x0/0xf20) cpu=1 idle=1 span=4 nr=3\n";
        }
        // The next wake-up's snapshot.
        t += "               a-100   [000] 1.003200: sched_waking: comm=d pid=400 prio=120 target_cpu=002\n";
        r.feed_text(t.as_bytes()).unwrap();
        let s = r.cpu_states()[1];
        (s.load[2], s.util_avg)
    };
    let (load, util) = run(false);
    assert!(load > 900 && util > 0, "{load} {util}");
    assert_eq!(run(true), (0, 0));
}

/// A forked task's util is its share of its new CPU's cfs_rq util as that cfs_rq's last update
/// left it: v6.12 core.c wake_up_new_task() calls post_init_entity_util_avg() before
/// activate_task(), whose update_load_avg() is what takes off the util of tasks that left. So
/// a task forked onto a CPU whose busy task has just exited gets the little room that task
/// left (cap = (1024 - util) / 2), not half the CPU, as the kernel's own values read at an
/// enqueue show (init.sh `sis_load`, flags 0x88).
#[test]
fn a_forked_task_gets_its_share_of_the_cfs_rq_before_that_takes_off_the_dead() {
    // a forks b onto CPU1; b runs 100 ms and exits; a forks c onto CPU1.
    let mut r = b_starts_on_cpu1(
        "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=001\n",
    );
    let t = "               b-200   [001] 1.100000: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=Z ==> next_comm=swapper/1 next_pid=0 next_prio=120
               a-100   [000] 1.100100: sched_wakeup_new: comm=c pid=300 prio=120 target_cpu=001
";
    r.feed_text(t.as_bytes()).unwrap();
    // b's util after 100 ms of running, from its own 512: about 512 y^97 + 1024 (1 - y^97),
    // 961; c's cap (1024 - 961) / 2 = 31. Read after the removal, CPU1 would be empty and c
    // would take half of it, 512.
    let util = r.cpu_states()[1].util_avg;
    assert!((20..=45).contains(&util), "{util}");
}

/// A sleeping task's load leaves its old CPU at its wake-up's set_task_cpu() (the trace's
/// sched_migrate_task), not at its enqueue elsewhere: v6.1 and v6.12 migrate_task_rq_fair() ->
/// remove_entity_load_avg(), taken off at the old cfs_rq's next update. So the old CPU still
/// counts it until it updates, and an update there before the wakee's sched_wakeup (another
/// task's enqueue) takes it off.
#[test]
fn a_waking_tasks_load_leaves_its_old_cpu_at_its_migration() {
    // a forks b onto CPU1; b runs 2 ms and sleeps; a wakes b onto CPU2.
    let mut r = b_starts_on_cpu1(
        "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=001\n",
    );
    let mut feed = |text: &str| {
        r.feed_text(text.as_bytes()).unwrap();
        r.cpu_states()[1].load[2]
    };
    let t = "               b-200   [001] 1.002100: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               a-100   [000] 1.003000: sched_waking: comm=b pid=200 prio=120 target_cpu=002
               a-100   [000] 1.003001: sched_migrate_task: comm=b pid=200 prio=120 orig_cpu=1 dest_cpu=2
               a-100   [000] 1.003002: sched_waking: comm=c pid=300 prio=120 target_cpu=003
";
    let pending = feed(t);
    // y wakes on CPU1 (an enqueue there: the cfs_rq updates), then a wakes d: CPU1 holds y's
    // load alone, with b's sched_wakeup on CPU2 still to come.
    let t =
        "          <idle>-0     [001] 1.003005: sched_waking: comm=y pid=9 prio=120 target_cpu=001
          <idle>-0     [001] 1.003006: sched_wakeup: comm=y pid=9 prio=120 target_cpu=001
               a-100   [000] 1.003010: sched_waking: comm=d pid=400 prio=120 target_cpu=003
";
    let updated = feed(t);
    assert!(
        pending > 900,
        "b's load pending removal still counts: {pending}"
    );
    assert!(
        (900..1100).contains(&updated),
        "y's load alone once CPU1 updated, b's taken off: {updated} (b's {pending})"
    );
}

/// Where the trace shows the scheduler ticks (init.sh `sis_tick`), a wake-up reads a busy
/// CPU's load as its last update left it, as cpu_load() does (v6.12 fair.c
/// wake_affine_weight()): the tick's entity_tick() is that update. Where it does not, the
/// rebuild brings the CPU up to the wake-up, the tick being within a jiffy.
#[test]
fn with_the_ticks_in_the_trace_a_busy_cpus_load_is_read_as_its_last_tick_left_it() {
    // a, forked onto CPU0, runs 1 ms and sleeps 200 ms (its load decays to about 1/80), then
    // runs again from 1.201, its load and CPU0's accruing.
    let start = format!(
        "{HDR}          <idle>-0     [001] 1.000000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               x-7     [001] 1.000000: sched_wakeup_new: comm=a pid=100 prio=120 target_cpu=000
          <idle>-0     [000] 1.000001: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
               a-100   [000] 1.001000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
               x-7     [001] 1.201000: sched_waking: comm=a pid=100 prio=120 target_cpu=000
          <idle>-0     [000] 1.201001: sched_wakeup: comm=a pid=100 prio=120 target_cpu=000
          <idle>-0     [000] 1.201002: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
"
    );
    let cpu0_load = |rest: &str| {
        let mut r = Replay::new(four_cpus(&["linux-6.0"])).unwrap();
        r.feed_text(format!("{start}{rest}").as_bytes()).unwrap();
        r.cpu_states()[0].load[2]
    };
    let waking = |t: &str| {
        format!("               x-7     [001] {t}: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n")
    };
    let tick = "               a-100   [000] 1.205000: sis_tick: (sched_tick+0x4/0x270)\n";
    let at_tick = cpu0_load(&waking("1.205001"));
    let ticked = cpu0_load(&format!("{tick}{}", waking("1.212000")));
    let unticked = cpu0_load(&waking("1.212000"));
    assert_eq!(ticked, at_tick, "as the tick at 1.205 left it");
    assert!(
        unticked > ticked + 100,
        "brought up to 1.212: {unticked} against {ticked}"
    );
}

/// cpu_util_cfs() reads the larger of util_avg and the runqueue's util_est (UTIL_EST, 4.17
/// on): a task's estimate is its util_avg when it last slept (linux-6.0 fair.c
/// util_est_update()), and its CPU's sum holds it while the task is queued there again, after
/// the CPU's own util_avg has decayed over the sleep.
#[test]
fn a_queued_task_brings_its_util_est_to_its_cpu() {
    let mut r = b_starts_on_cpu1(
        "               a-100   [000] 1.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n               a-100   [000] 1.000011: sched_wakeup: comm=b pid=200 prio=120 target_cpu=001\n",
    );
    // b runs 40 ms, then sleeps.
    let s = "               b-200   [001] 1.040012: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
    r.feed_text(s.as_bytes()).unwrap();
    let at_sleep = r.cpu_states()[1];
    assert_eq!(
        at_sleep.util_est, 0,
        "a sleeping task is not on its CPU's sum"
    );
    // 30 ms later a wakes it onto CPU1, where it waits while another wake-up looks.
    let w = "               a-100   [000] 1.070000: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n               a-100   [000] 1.070001: sched_wakeup: comm=b pid=200 prio=120 target_cpu=001\n               a-100   [000] 1.070010: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n";
    r.feed_text(w.as_bytes()).unwrap();
    let queued = r.cpu_states()[1];
    // About 1024 * (1 - y^39) = 588 when it slept; its CPU's util_avg has decayed by y^30.
    assert!((540..=620).contains(&queued.util_est), "{queued:?}");
    assert!(queued.util_avg < queued.util_est * 3 / 4, "{queued:?}");
}

/// linux-4.4's wake_affine in an autogroup (`ReplayConfig::autogroup`): effective_load()
/// reads the group's cfs_rq `avg.load_avg`, which keeps a sleeping task's load on the CPU it
/// slept on, where the root runqueue's runnable_load_avg dropped it at the dequeue. Four
/// threads of one process (one comm, so one inferred group) run on the four CPUs; thread w
/// ran 20 ms on CPU1 and slept 2 ms while b ran there; a (CPU0) wakes it and runs on (not
/// sync). In the root group the waker's side carries w's load and prev's does not, so prev
/// stays; in the group prev's side carries it too, and the wake-up is affine.
#[test]
fn in_an_autogroup_4_4_counts_the_wakees_blocked_load_on_prev_and_goes_affine() {
    let mut t = String::from(HDR);
    for (cpu, pid) in [(0, 100), (1, 200), (2, 102), (3, 103)] {
        t += &format!("          <idle>-0     [00{cpu}] 1.000000: sched_switch: prev_comm=swapper/{cpu} prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid={pid} next_prio=120\n");
    }
    t += "             app-200   [001] 1.020000: sched_switch: prev_comm=app prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=app next_pid=101 next_prio=120\n";
    t += "             app-100   [000] 1.022000: sched_waking: comm=app pid=200 prio=120 target_cpu=001\n";
    t += "             app-100   [000] 1.022001: sched_wakeup: comm=app pid=200 prio=120 target_cpu=000\n";
    let run = |autogroup: bool| {
        let cfg = ReplayConfig {
            autogroup,
            ..four_cpus(&["linux-4.4"])
        };
        let r = replay_text(cfg, t.as_bytes()).unwrap();
        assert_eq!(wakeups(&r, "none_idle"), 1);
        let c = &r.notes.counts;
        (
            agree(&r, "none_idle", "linux-4.4"),
            (c.autogroups, c.autogroup_joined),
        )
    };
    assert_eq!(run(false), (0, (0, 0)), "root group: prev (CPU1) stays");
    // One group, made by the first thread; the other four joined it by their comm.
    assert_eq!(run(true), (1, (1, 4)), "autogroup: the waker's CPU 0");
}

/// Which tasks the replay takes as created during the trace: alloc_pid() counts upwards, so a
/// task first seen with a pid above every earlier one is new (init_entity_runnable_average()'s
/// full weight and period_contrib 1023, whose first update decays it by a period its CPU's sum
/// has not: about 2% of it stays in 4.4's runnable_load_avg when a short-lived task goes); one
/// below is older than the trace (full weight, no such artefact). The first task seen (400) is
/// older; then 500 is new and 150 older; each runs 200 us on CPU1 and exits.
#[test]
fn a_pid_above_every_earlier_one_is_a_new_task_and_only_it_leaves_the_new_task_residue() {
    let run = |pid: u32| {
        let mut t = String::from(HDR);
        t += "          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=400 next_prio=120\n";
        for (cpu, p) in [(1, 390), (2, 380), (3, 370)] {
            t += &format!("               x-{p}   [00{cpu}] 1.000000: sched_switch: prev_comm=x prev_pid={p} prev_prio=120 prev_state=S ==> next_comm=swapper/{cpu} next_pid=0 next_prio=120\n");
        }
        t += &format!("          <idle>-0     [001] 1.001000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid={pid} next_prio=120\n");
        t += &format!("               t-{pid}   [001] 1.001200: sched_switch: prev_comm=t prev_pid={pid} prev_prio=120 prev_state=x ==> next_comm=swapper/1 next_pid=0 next_prio=120\n");
        t += "               a-400   [000] 1.001300: sched_waking: comm=c pid=90 prio=120 target_cpu=002\n";
        t += "               a-400   [000] 1.001301: sched_wakeup: comm=c pid=90 prio=120 target_cpu=002\n";
        let mut r = Replay::new(four_cpus(&["linux-4.4"])).unwrap();
        r.feed_text(t.as_bytes()).unwrap();
        let residue = r.cpu_states()[1].load[0];
        let c = r.end().unwrap().notes.counts;
        (residue, c.tasks_created, c.tasks_older)
    };
    let (new_residue, created, older) = run(500);
    assert_eq!(
        (created, older),
        (1, 5),
        "500 new; 400, 390, 380, 370 and 90 older"
    );
    let (old_residue, created, older) = run(150);
    assert_eq!((created, older), (0, 6));
    // 1024 * (1 - y) = 22 of the new task's load stays; the older one leaves none.
    assert!((15..=30).contains(&new_residue), "{new_residue}");
    assert_eq!(old_residue, 0);
}

/// The cfs_rq util that SIS_UTIL sums, as the kernel keeps it (replay/util.rs): a forked
/// task joins its CPU with post_init_entity_util_avg()'s share (half the room an idle cfs_rq
/// leaves, 512), and a task that wakes elsewhere takes its util with it: the new CPU holds it
/// at once (attach_entity_load_avg()); the old one, idle, still shows it until its next
/// update applies the removal (remove_entity_load_avg()'s `removed`).
#[test]
fn a_tasks_util_joins_its_new_cpu_at_once_and_leaves_an_idle_one_at_its_next_update() {
    let mut r = b_starts_on_cpu1(
        "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=001\n",
    );
    let w = "               a-100   [000] 1.000020: sched_waking: comm=c pid=300 prio=120 target_cpu=002\n";
    r.feed_text(w.as_bytes()).unwrap();
    let born = r.cpu_states()[1].util_avg;
    assert!((505..=520).contains(&born), "{born}");
    // b runs to 1.010 and sleeps; at 1.012 a wakes it onto CPU2.
    let s = "               b-200   [001] 1.010000: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n               a-100   [000] 1.012000: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n               a-100   [000] 1.012001: sched_migrate_task: comm=b pid=200 prio=120 orig_cpu=1 dest_cpu=2\n               a-100   [000] 1.012002: sched_wakeup: comm=b pid=200 prio=120 target_cpu=002\n               a-100   [000] 1.012010: sched_waking: comm=d pid=400 prio=120 target_cpu=003\n";
    r.feed_text(s.as_bytes()).unwrap();
    let moved = r.cpu_states();
    let (old, new) = (moved[1].util_avg, moved[2].util_avg);
    // About 512 * y^10 + 1024 * (1 - y^10) = 611 when it slept, decayed a little since.
    assert!((560..=640).contains(&new), "{new}");
    assert!(
        old * 10 >= new * 9,
        "{old} on the idle old CPU against {new}"
    );
    // CPU1 runs a task again: its update takes b's util off.
    let e = "          <idle>-0     [001] 1.013000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120\n               a-100   [000] 1.013010: sched_waking: comm=e pid=500 prio=120 target_cpu=003\n";
    r.feed_text(e.as_bytes()).unwrap();
    let after = r.cpu_states()[1].util_avg;
    assert!(after < old / 10, "{after} after the update, {old} before");
}

/// A forked task's `recent_used_cpu` is the CPU that forked it (v4.16+ core.c
/// wake_up_new_task(): `p->recent_used_cpu = task_cpu(p)` before the fork balance), so its
/// first wake-up's select_idle_sibling() has it to try; a task first seen waking has none.
#[test]
fn a_forked_task_wakes_first_with_its_forking_cpu_as_recent_used_cpu() {
    let cfg = ReplayConfig {
        keep: 10,
        ..four_cpus(&["linux-6.0"])
    };
    let mut r = Replay::new(cfg).unwrap();
    let mut t = String::from(HDR);
    for c in 1..4 {
        t += &format!("          <idle>-0     [00{c}] 1.000000: sched_switch: prev_comm=swapper/{c} prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x{c} next_pid={c}0 next_prio=120\n");
    }
    t += "          <idle>-0     [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120\n";
    // a forks b on CPU0; fork balance puts it on CPU2, where it runs and sleeps.
    t += "               a-100   [000] 1.000010: sched_wakeup_new: comm=b pid=200 prio=120 target_cpu=002\n";
    t += "              x2-20    [002] 1.000020: sched_switch: prev_comm=x2 prev_pid=20 prev_prio=120 prev_state=R ==> next_comm=b next_pid=200 next_prio=120\n";
    t += "               b-200   [002] 1.000500: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=x2 next_pid=20 next_prio=120\n";
    // a wakes b, and an older task c it has not seen before.
    t += "               a-100   [000] 1.001000: sched_waking: comm=b pid=200 prio=120 target_cpu=002\n";
    t += "               a-100   [000] 1.001001: sched_wakeup: comm=b pid=200 prio=120 target_cpu=002\n";
    t += "               a-100   [000] 1.001010: sched_waking: comm=c pid=50 prio=120 target_cpu=003\n";
    t += "               a-100   [000] 1.001011: sched_wakeup: comm=c pid=50 prio=120 target_cpu=003\n";
    r.feed_text(t.as_bytes()).unwrap();
    let _ = r.end().unwrap();
    let recs = r.records();
    assert_eq!(recs.len(), 2, "{recs:?}");
    let recent = |i: usize| r.decision(&recs[i], 0).unwrap().recent_used_cpu;
    assert_eq!(recent(0), Some(0));
    assert_eq!(recent(1), None);
}
