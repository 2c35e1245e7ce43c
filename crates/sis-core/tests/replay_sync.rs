//! The sync inference's window in the traced machine's own time (replay/pending.rs
//! `SyncWindow`): a waker that blocks 94 us after its waking is taken as sync on a machine
//! whose local wake-ups take 20 us (an emulated CPU), not on one where they take 1 us. A
//! runqueue probe's cost is taken in the same time.

use crate::replay::{flat, HDR};
use sis_core::analysis::replay::parse::{parse_line, Line, SchedEvent};
use sis_core::analysis::replay::{replay_text, ReplayConfig, ReplayReport};
use std::fmt::Write;

/// `x` on CPU0 wakes sixteen sleeping tasks there, each activated `local_us` later on CPU0,
/// then wakes `b` (last on CPU1) and blocks 94 us after that waking.
fn trace(local_us: u64) -> String {
    let mut t = String::from(HDR);
    t.push_str("\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=y next_pid=7 next_prio=120
");
    let mut us = 100;
    for pid in 300..316 {
        let _ = writeln!(
            t,
            "               x-100   [000] 10.{us:06}: sched_waking: comm=w pid={pid} prio=120 target_cpu=000"
        );
        let done = us + local_us;
        let _ = writeln!(
            t,
            "               x-100   [000] 10.{done:06}: sched_wakeup: comm=w pid={pid} prio=120 target_cpu=000"
        );
        us = done + 100;
    }
    let (waking, block) = (us, us + 94);
    let _ = writeln!(
        t,
        "               x-100   [000] 10.{waking:06}: sched_waking: comm=b pid=200 prio=120 target_cpu=001"
    );
    let _ = writeln!(
        t,
        "               x-100   [000] 10.{:06}: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000",
        waking + 1
    );
    let _ = writeln!(
        t,
        "               x-100   [000] 10.{block:06}: sched_switch: prev_comm=x prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120"
    );
    t
}

#[test]
fn a_waker_blocking_94_us_later_is_sync_where_local_wake_ups_take_20_us() {
    let cfg = flat(2, &["linux-6.0"]);
    let fast = replay_text(cfg.clone(), trace(1).as_bytes()).unwrap();
    let slow = replay_text(cfg, trace(20).as_bytes()).unwrap();
    let (f, s) = (&fast.notes.counts, &slow.notes.counts);
    assert_eq!(
        (f.local_wakeup_median_ns, f.sync_window_ns),
        (1_000, 50_000)
    );
    assert_eq!(
        (s.local_wakeup_median_ns, s.sync_window_ns),
        (20_000, 1_000_000)
    );
    assert_eq!((f.sync_inferred, s.sync_inferred), (0, 1));
    // A runqueue probe in the same machine's time (SIS_PROP's avg_scan_cost): 400 ns per us.
    assert_eq!(
        (fast.notes.probe_cost_ns, slow.notes.probe_cost_ns),
        (400, 8000)
    );
}

/// `x` on CPU0 wakes `b` (last on CPU1, where `y` runs) onto CPU0, and blocks `block_us` later.
fn waker_blocks_after(block_us: u64) -> String {
    let mut t = String::from(HDR);
    t.push_str("\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=y next_pid=7 next_prio=120
               x-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=001
               x-100   [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
");
    let _ = writeln!(
        t,
        "               x-100   [000] 10.{:06}: sched_switch: prev_comm=x prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120",
        100 + block_us
    );
    t
}

#[test]
fn a_miss_the_other_sync_answer_turns_into_an_agreement_is_counted() {
    // Blocking 10 us after the waking is sync (window 50 us): wake_affine_idle() takes the
    // waker's CPU, where x runs alone, as the kernel did. Blocking 300 us later is not:
    // wake_affine_weight() weighs two CPUs of one task each and keeps b on prev (CPU1), a
    // miss that WF_SYNC the other way explains.
    let cfg = ReplayConfig {
        show: 1,
        ..flat(2, &["linux-6.0"])
    };
    let sync = replay_text(cfg.clone(), waker_blocks_after(10).as_bytes()).unwrap();
    let not_sync = replay_text(cfg, waker_blocks_after(300).as_bytes()).unwrap();
    let agree = |r: &ReplayReport| r.classes.0[0].1.agree[0].1;
    let explained = |r: &ReplayReport| r.notes.sync_explained[0].1;
    assert_eq!(
        (
            sync.notes.counts.sync_inferred,
            not_sync.notes.counts.sync_inferred
        ),
        (1, 0)
    );
    assert_eq!((agree(&sync), explained(&sync)), (1, 0));
    assert_eq!((agree(&not_sync), explained(&not_sync)), (0, 1));
    assert_eq!(not_sync.notes.sync_explained_was_sync[0].1, 0);
    // --show says why: wake_affine_weight()'s two sides, term by term.
    let why = not_sync.disagreements[0].decisions[0].1.to_text();
    assert!(
        why.contains(
            "  wake_affine_weight   this_eff_load 209715200 (cpu 0: load 1024 + wakee 1024, x100 \
             x1024) vs prev_eff_load 0 (cpu 1: load 1024 - wakee 1024, x108 x1024): prev\n"
        ),
        "{why}"
    );
    assert!(not_sync
        .to_table()
        .contains("disagreements the sync inference could explain (the same decision with the waker's WF_SYNC the other way picks the kernel's CPU): linux-6.0 1 (0 taken as sync)"));
}

/// The same wake-up with the `sis_select` kprobe's line after the waking (init.sh
/// `sis_select=1`): select_task_rq_fair()'s wake flags, 0x18 (WF_TTWU | WF_SYNC) or 0x08.
fn with_flags(trace: &str, wake_flags: &str) -> String {
    let waking = "               x-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n";
    assert!(trace.contains(waking));
    trace.replacen(
        waking,
        &format!(
            "{waking}               x-100   [000] 10.000100: sis_select: (select_task_rq_fair+0x0/0x1840) prev_cpu=1 wake_flags={wake_flags}\n"
        ),
        1,
    )
}

#[test]
fn the_kernels_wake_flags_from_the_sis_select_kprobe_replace_the_inference() {
    let cfg = flat(2, &["linux-6.0"]);
    let run = |t: String| replay_text(cfg.clone(), t.as_bytes()).unwrap();
    let agree = |r: &ReplayReport| r.classes.0[0].1.agree[0].1;
    // The waker blocks 300 us later: not sync by the window, but the kernel passed WF_SYNC,
    // so wake_affine_idle() takes the waker's CPU, as the kernel did.
    let read = run(with_flags(&waker_blocks_after(300), "0x18"));
    // The kprobe is read, not counted among the sched events.
    assert_eq!(read.trace.events, run(waker_blocks_after(300)).trace.events);
    let c = &read.notes.counts;
    assert_eq!((c.sync_read, c.sync_read_sync, c.sync_inferred), (1, 1, 0));
    assert_eq!(agree(&read), 1);
    // A flag the trace records is not an inference: no miss is put down to it.
    assert_eq!(read.notes.sync_explained[0].1, 0);
    // The waker blocks 10 us later (sync by the window), but the kernel passed no WF_SYNC.
    let read = run(with_flags(&waker_blocks_after(10), "0x8"));
    let c = &read.notes.counts;
    assert_eq!((c.sync_read, c.sync_read_sync, c.sync_inferred), (1, 0, 0));
    assert_eq!(agree(&read), 0);
    assert_eq!(read.notes.sync_explained[0].1, 0);
    // --show says which sync it was: here the kernel kept b on prev despite WF_SYNC.
    let kept = with_flags(&waker_blocks_after(300), "0x18").replace(
        "sched_wakeup: comm=b pid=200 prio=120 target_cpu=000",
        "sched_wakeup: comm=b pid=200 prio=120 target_cpu=001",
    );
    let shown = replay_text(
        ReplayConfig {
            show: 1,
            ..cfg.clone()
        },
        kept.as_bytes(),
    )
    .unwrap();
    let d = &shown.disagreements[0];
    assert_eq!((d.sync_read, d.sync_inferred), (true, false));
    assert!(d
        .to_text()
        .contains("kernel chose cpu 1, sync (read: WF_SYNC in the wake flags)"));
    // A fork's balancing (WF_FORK 0x04, no WF_TTWU) says nothing of this wake-up.
    let fork = run(with_flags(&waker_blocks_after(10), "0x4"));
    let c = &fork.notes.counts;
    assert_eq!((c.sync_read, c.sync_inferred), (0, 1));
    assert!(read.to_table().contains(
        "read: the wake flags of 1 wake-ups from the trace's sis_select kprobe on \
         select_task_rq_fair(), 0 of them WF_SYNC"
    ));
}

/// The kprobes' lines (init.sh `sis_select`, `sis_idle`), as ftrace and perf print them.
#[test]
fn the_sis_select_and_sis_idle_kprobes_parse() {
    fn ev(line: &str) -> sis_core::analysis::replay::parse::TraceEvent<'_> {
        match parse_line(line) {
            Ok(Line::Event(e)) => e,
            other => panic!("{line}: {other:?}"),
        }
    }
    let e = ev("              wc-230     [001] d..3.     3.999672: sis_select: (select_task_rq_fair+0x0/0x1840) prev_cpu=1 wake_flags=0x18");
    assert_eq!(e.cpu, 1);
    assert_eq!(
        e.event,
        SchedEvent::Select {
            prev_cpu: 1,
            wake_flags: 0x18,
            sync_read: true,
        }
    );
    let e = ev("  gzip 245 [003] 4.197773: probe:sis_select: (ffffffff81) prev_cpu=4 wake_flags=8");
    assert_eq!(
        e.event,
        SchedEvent::Select {
            prev_cpu: 4,
            wake_flags: 8,
            sync_read: true,
        }
    );
    // Before 5.11, select_task_rq_fair(p, prev_cpu, sd_flag, wake_flags) and WF_SYNC 0x01
    // (v5.10 sched.h): mapped to 5.11's layout, WF_SYNC 0x10 beside SD_BALANCE_WAKE's 0x08.
    for (fields, wake_flags, sync_read) in [
        ("sd_flag=0x8 wake_flags=0x1", 0x18, true),
        ("sd_flag=0x8 wake_flags=0x9", 0x18, true),
        ("sd_flag=0x4 wake_flags=0x0", 0x04, true),
        ("sd_flag=0x8 wake_flags=0x8", 0x08, true),
        // init.sh before session 42 read the third argument alone: no WF_SYNC read.
        ("sd_flag=0x8", 0x08, false),
    ] {
        let line = format!("  dd-165 [001] d... 2.527972: sis_select: (select_task_rq_fair+0x0/0xf70) prev_cpu=1 {fields}");
        assert_eq!(
            ev(&line).event,
            SchedEvent::Select {
                prev_cpu: 1,
                wake_flags,
                sync_read,
            },
            "{fields}"
        );
    }
    let e = ev("  init-472 [013] d..1. 13.199940: sis_idle: (available_idle_cpu+0x4/0x60) cpu=0");
    assert_eq!(e.event, SchedEvent::IdleAsk { cpu: 0 });
    let e = ev("  init-472 [013] d..1. 13.199952: sis_idle_ret: (select_task_rq_fair+0xc05/0x17d0 <- available_idle_cpu) ret=1");
    assert_eq!(
        e.event,
        SchedEvent::IdleAnswer {
            idle: true,
            site: 0xc05
        }
    );
    let e = ev("  <idle>-0 [008] ..s1. 7.845156: sis_lb: (sched_balance_rq+0x0/0xf20) cpu=8 idle=1 span=8 nr=3");
    assert_eq!(
        e.event,
        SchedEvent::Balance {
            cpu: 8,
            idle: 1,
            span: 8,
            nr: Some(3)
        }
    );
    // A domain with no shared LLC state: its nr is a fault, not a value.
    let e = ev("  x-1 [000] ..s1. 7.8: sis_lb: (sched_balance_rq+0x0/0xf20) cpu=0 idle=0 span=16 nr=(fault)");
    assert!(matches!(e.event, SchedEvent::Balance { nr: None, .. }));
    for bad in ["idle=x span=8", "span=8", "idle=1"] {
        let line =
            format!("  x-1 [000] 1.0: sis_lb: (sched_balance_rq+0x0/0xf20) cpu=0 {bad} nr=1");
        assert!(parse_line(&line).is_err(), "{bad}");
    }
    let e = ev("  init-472 [013] d..1. 13.2: sis_idle_ret: ret=0");
    assert_eq!(
        e.event,
        SchedEvent::IdleAnswer {
            idle: false,
            site: 0
        }
    );
    for bad in [
        "wake_flags=0x",
        "wake_flags=0x123456789",
        "wake_flags=sync",
        "",
    ] {
        let line = format!("  x-1 [000] 1.000000: sis_select: prev_cpu=0 {bad}");
        let err = parse_line(&line).unwrap_err().0;
        assert!(err.contains("wake_flags"), "{bad}: {err}");
    }
}
