//! The sync inference's window in the traced machine's own time (replay/pending.rs
//! `SyncWindow`): a waker that blocks 94 us after its waking is taken as sync on a machine
//! whose local wake-ups take 20 us (an emulated CPU), not on one where they take 1 us.

use crate::replay::{flat, HDR};
use sis_core::analysis::replay::replay_text;
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
}
