//! EEVDF's delayed dequeue in the rebuild (6.12): a task left queued `sched_delayed`, how
//! its wake-up is placed, what happens when the balancer moves it, and its load.

use crate::replay::{agree, class, flat, HDR};
use sis_core::analysis::replay::{replay_text, Replay, ReplayConfig};

/// a runs on CPU0 and x on CPU1; a wakes b onto CPU0 and blocks 1 ms later behind it, not
/// eligible: it stays queued `sched_delayed` there.
const A_DELAYED_BEHIND_B: &str = "\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.001100: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120
";

/// The load signals linux-6.7 and linux-6.12 read (replay/load.rs).
fn load_eras() -> (usize, usize) {
    use sis_core::analysis::replay::load_era;
    let era = |name: &str| load_era(&sis_core::kernel::features::preset(name).unwrap());
    (era("linux-6.7"), era("linux-6.12"))
}

/// A task left `sched_delayed` that the balancer moves while it sleeps (v6.12
/// can_migrate_task(): migrate_load may take a delayed task) leaves its old runqueue and
/// stays delayed on the new one until that CPU picks: at once where the new CPU is idle.
#[test]
fn a_delayed_task_moved_by_the_balancer_leaves_its_old_runqueue() {
    let cfg = flat(3, &["linux-6.12"]);
    let hdr = HDR.replace("#P:2", "#P:3");
    // a blocks behind b on CPU0 and stays delayed there; x runs on CPU1, CPU2 is idle.
    let start = "\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
          <idle>-0     [002] 10.000002: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=swapper/2 next_pid=0 next_prio=120
               a-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.001100: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120
";
    let delayed = |r: &Replay| -> Vec<u32> { r.cpu_states().iter().map(|c| c.delayed).collect() };
    let mut r = Replay::new(cfg.clone()).unwrap();
    r.feed_text(format!("{hdr}{start}").as_bytes()).unwrap();
    assert_eq!(delayed(&r), [1, 0, 0], "a delayed behind b on CPU0");
    // CPU1's balancer takes it: delayed on CPU1 (x runs), gone from CPU0.
    let to_busy = "\
               x-7     [001] 10.001200: sched_migrate_task: comm=a pid=100 prio=120 orig_cpu=0 dest_cpu=1
";
    r.feed_text(to_busy.as_bytes()).unwrap();
    assert_eq!(delayed(&r), [0, 1, 0]);
    // CPU1's next pick (x blocks) dequeues it: CPU1 goes idle with nothing delayed.
    let pick = "\
               x-7     [001] 10.001300: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
";
    r.feed_text(pick.as_bytes()).unwrap();
    assert_eq!(delayed(&r), [0, 0, 0]);
    // Moved to idle CPU2 instead: its idle task's pick dequeues it at once.
    let mut r = Replay::new(cfg).unwrap();
    let to_idle = "\
          <idle>-0     [002] 10.001200: sched_migrate_task: comm=a pid=100 prio=120 orig_cpu=0 dest_cpu=2
";
    r.feed_text(format!("{hdr}{start}{to_idle}").as_bytes())
        .unwrap();
    assert_eq!(delayed(&r), [0, 0, 0]);
}

/// v6.12 dequeue_entity() leaves a delayed task's weight in cfs_rq->load and its own load
/// accruing as on_rq, so linux-6.12's wake_affine_weight() reads it in cpu_load() until the
/// pick that ends the delay; 5.7-6.11's load_avg (linux-6.7's) has only the running task.
#[test]
fn a_delayed_task_keeps_its_weight_in_6_12s_cpu_load() {
    // At HZ=100 the first tick after b's request runs out is at 10.010, and its pick would
    // dequeue a (ev_tick): until then a stays delayed.
    let cfg = ReplayConfig {
        hz: 100,
        ..flat(2, &["linux-6.7", "linux-6.12"])
    };
    let (e67, e612) = load_eras();
    assert_ne!(e67, e612, "linux-6.12 reads a load signal of its own");
    // a blocks behind b on CPU0 and stays delayed there while b runs 8.8 ms; then x on CPU1
    // wakes y, and the wake-up reads every CPU's load.
    let trace = "\
               x-7     [001] 10.009900: sched_waking: comm=y pid=300 prio=120 target_cpu=001
               x-7     [001] 10.009901: sched_wakeup: comm=y pid=300 prio=120 target_cpu=001
";
    let mut r = Replay::new(cfg).unwrap();
    r.feed_text(format!("{HDR}{A_DELAYED_BEHIND_B}{trace}").as_bytes())
        .unwrap();
    let cpu0 = &r.cpu_states()[0];
    assert_eq!(cpu0.delayed, 1, "a delayed behind b on CPU0");
    let (l67, l612) = (cpu0.load[e67], cpu0.load[e612]);
    // 8.8 ms at twice the weight: about 1024 * (1 - y^8.6) = 176 more (y^32 = 1/2).
    assert!(
        l612 >= l67 + 150 && l612 <= l67 + 300,
        "CPU0's load: linux-6.7 {l67}, linux-6.12 {l612}"
    );
    // CPU1 never held a delayed task: the same load in both.
    let cpu1 = &r.cpu_states()[1];
    assert_eq!(cpu1.load[e67], cpu1.load[e612]);
}

/// EEVDF's delayed dequeue (6.12, DELAY_DEQUEUE): `a` runs 1 ms after waking `b` onto its
/// CPU, so when it blocks it is past `b` in vruntime, not eligible, and stays queued
/// `sched_delayed`. When `b` wakes it, 6.12's ttwu_runnable() requeues it on CPU0 with no CPU
/// selection, where linux-6.7's scan finds idle CPU1. Had nothing been queued behind `a`, it
/// would have left the runqueue and both presets scan.
#[test]
fn a_task_that_blocks_behind_a_fairer_one_stays_delayed_and_wakes_in_place() {
    let cfg = ReplayConfig {
        show: 10,
        ..flat(2, &["linux-6.7", "linux-6.12"])
    };
    let start = "\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=swapper/1 next_pid=0 next_prio=120
";
    let queued_behind = "\
               a-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.001100: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120
               b-200   [000] 10.001200: sched_waking: comm=a pid=100 prio=120 target_cpu=000
               b-200   [000] 10.001201: sched_wakeup: comm=a pid=100 prio=120 target_cpu=000
               b-200   [000] 10.001300: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
";
    let r = replay_text(
        cfg.clone(),
        format!("{HDR}{start}{queued_behind}").as_bytes(),
    )
    .unwrap();
    assert_eq!(r.notes.counts.delayed_dequeues, 1, "{:?}", r.notes.counts);
    assert_eq!(r.notes.counts.delayed_wakeups, 1);
    // The inference alone placed a's wake-up, and the kernel kept a on prev.
    assert_eq!(r.notes.delayed_classified, (1, 1));
    // Had the kernel put a on CPU1, the move would be the inference's miss, said so.
    let moved = queued_behind
        .replace(
            "sched_wakeup: comm=a pid=100 prio=120 target_cpu=000",
            "sched_wakeup: comm=a pid=100 prio=120 target_cpu=001",
        )
        .replace(
            "prev_state=R ==> next_comm=a next_pid=100",
            "prev_state=S ==> next_comm=swapper/0 next_pid=0",
        );
    let m = replay_text(cfg.clone(), format!("{HDR}{start}{moved}").as_bytes()).unwrap();
    assert_eq!(m.notes.delayed_classified, (1, 0));
    assert!(m.to_table().contains(
        "wake-ups DELAY_DEQUEUE presets placed by the delayed inference alone (ttwu_runnable on \
         prev): 1; the kernel kept prev for 0 (0.0%) and moved 1"
    ));
    // b's wake-up (CPU0 runs a, CPU1 idle) and a's: prev busy, another CPU idle. The kernel
    // here queued b behind a, which both presets' scans do not (they take CPU1); a's wake-up
    // only linux-6.12 follows.
    assert_eq!(class(&r, "prev_busy_some_idle"), 2);
    assert_eq!(agree(&r, "prev_busy_some_idle", "linux-6.12"), 1);
    assert_eq!(agree(&r, "prev_busy_some_idle", "linux-6.7"), 0);
    let d = r
        .disagreements
        .iter()
        .find(|d| d.wakee == 100)
        .expect("linux-6.7 disagrees on a's wake-up");
    assert_eq!(d.decisions.len(), 1, "only linux-6.7: {:?}", d.decisions);
    assert_eq!(
        d.decisions[0].1.result, 1,
        "linux-6.7's scan takes idle CPU1"
    );
    // Nothing queued behind a when it blocks: it leaves, and its wake-up is a selection.
    let alone = "\
               a-100   [000] 10.001100: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
               x-7     [001] 10.001150: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               x-7     [001] 10.001200: sched_waking: comm=a pid=100 prio=120 target_cpu=000
               x-7     [001] 10.001201: sched_wakeup: comm=a pid=100 prio=120 target_cpu=000
";
    let r = replay_text(cfg, format!("{HDR}{start}{alone}").as_bytes()).unwrap();
    assert_eq!(r.notes.counts.delayed_dequeues, 0);
    assert_eq!(r.notes.counts.delayed_wakeups, 0);
    assert_eq!(r.notes.delayed_classified, (0, 0));
    assert_eq!(
        agree(&r, "all", "linux-6.12"),
        agree(&r, "all", "linux-6.7")
    );
}

/// v6.12 detach_task() -> dequeue_entity() detaches a migrating task's load (DO_DETACH) and
/// attach_task() -> enqueue_entity() attaches it on the new CPU, so the balancer's move of a
/// delayed task takes its load along in 6.12's signal. To 5.7-6.11's signal (linux-6.7's) it
/// is a sleeping task: its load stays on its old CPU until it wakes elsewhere.
#[test]
fn a_delayed_task_moved_by_the_balancer_takes_its_load_along_in_6_12() {
    let (e67, e612) = load_eras();
    // a blocks behind b on CPU0 and stays delayed there; x runs on CPU1, whose balancer
    // takes a; then x wakes y, and the wake-up reads every CPU's load.
    let trace = "\
               x-7     [001] 10.001200: sched_migrate_task: comm=a pid=100 prio=120 orig_cpu=0 dest_cpu=1
               x-7     [001] 10.001300: sched_waking: comm=y pid=300 prio=120 target_cpu=001
               x-7     [001] 10.001301: sched_wakeup: comm=y pid=300 prio=120 target_cpu=001
";
    let mut r = Replay::new(flat(2, &["linux-6.7", "linux-6.12"])).unwrap();
    r.feed_text(format!("{HDR}{A_DELAYED_BEHIND_B}{trace}").as_bytes())
        .unwrap();
    let loads = |r: &mut Replay, cpu: usize| {
        let c = &r.cpu_states()[cpu];
        (c.load[e67], c.load[e612])
    };
    let (cpu0_67, cpu0_612) = loads(&mut r, 0);
    let (cpu1_67, cpu1_612) = loads(&mut r, 1);
    // Every task here is older than the trace (full weight, 1024) and it is 1.3 ms long.
    assert_eq!(
        (cpu0_67, cpu1_67),
        (2048, 1024),
        "linux-6.7: a's load on CPU0"
    );
    assert_eq!(
        (cpu0_612, cpu1_612),
        (1024, 2048),
        "linux-6.12: a's load on CPU1"
    );
}

/// A delayed task leaves its runqueue at the first pick that would choose it, and a tick is
/// such a pick once the running task has used up its request (v6.12 `entity_tick()` ->
/// `update_curr()` -> `resched_curr()`, then `pick_next_entity()` dequeues it), even when the
/// running task is picked again and the trace shows no switch. `a` is delayed behind `b`;
/// woken 0.5 ms into `b`'s 1.5 ms request it is still delayed (ttwu_runnable), woken 3.5 ms
/// in, after the tick that ended the request, it is not, and its wake-up selects a CPU.
#[test]
fn the_tick_that_ends_the_running_tasks_request_dequeues_a_delayed_task() {
    let woken_at_hz = |t: &str, hz: u64| {
        let wake = format!(
            "               b-200   [000] {t}: sched_waking: comm=a pid=100 prio=120 target_cpu=000\n               b-200   [000] {t}: sched_wakeup: comm=a pid=100 prio=120 target_cpu=000\n"
        );
        let r = replay_text(
            ReplayConfig {
                hz,
                ..flat(2, &["linux-6.12"])
            },
            format!("{HDR}{A_DELAYED_BEHIND_B}{wake}").as_bytes(),
        )
        .unwrap();
        (
            r.notes.counts.delayed_dequeues,
            r.notes.counts.delayed_wakeups,
        )
    };
    let woken_at = |t: &str| woken_at_hz(t, 1000);
    assert_eq!(woken_at("10.001600"), (1, 1), "within b's request");
    assert_eq!(
        woken_at("10.004600"),
        (1, 0),
        "after the tick that ended it"
    );
    // At HZ=250 the first tick after the request ran out is at 10.004: woken at 10.0035 it is
    // still delayed there, and not at 1,000 Hz (a tick at 10.003).
    assert_eq!(woken_at("10.003500"), (1, 0), "HZ=1000");
    assert_eq!(woken_at_hz("10.003500", 250), (1, 1), "HZ=250");
    // CONFIG_HZ is one of Kconfig.hz's values.
    let bad = ReplayConfig {
        hz: 200,
        ..flat(2, &["linux-6.12"])
    };
    let e = sis_core::analysis::replay::Replay::new(bad).err().unwrap();
    assert!(e.to_string().contains("hz"), "{e}");
}
