//! Wake-ups that never reach select_task_rq_fair(): no flip for their waker (record_wakee()
//! is that function's), no check and nothing it keeps for a wakee bound to one CPU; and a new
//! task starting with its parent's flips (replay/rebuild.rs, replay/evaluate.rs).

use super::*;

const TRACE: &str = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 16/16   #P:2
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=001
               a-100   [000] 10.000011: sched_wakeup: comm=b pid=200 prio=120 target_cpu=001
               a-100   [000] 10.000020: sched_waking: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
               a-100   [000] 10.000021: sched_wakeup: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
               a-100   [000] 10.000030: sched_waking: comm=irq/5 pid=301 prio=49 target_cpu=001
               a-100   [000] 10.000031: sched_wakeup: comm=irq/5 pid=301 prio=49 target_cpu=001
               a-100   [000] 10.000040: sched_waking: comm=c pid=202 prio=120 target_cpu=001
               a-100   [000] 10.000041: sched_wakeup: comm=c pid=202 prio=120 target_cpu=001
               a-100   [000] 10.000050: sched_wakeup_new: comm=a pid=400 prio=120 target_cpu=001
               x-7     [001] 10.000060: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=a next_pid=400 next_prio=120
               a-400   [001] 10.000070: sched_waking: comm=e pid=500 prio=120 target_cpu=000
               a-400   [001] 10.000071: sched_wakeup: comm=e pid=500 prio=120 target_cpu=000
";

/// A fresh state of preset `name` on one LLC of `w` CPUs.
fn state(name: &str, w: u32) -> SchedState {
    let p = crate::kernel::features::preset(name).unwrap();
    SchedState::new(
        Topology::new(TopologySpec::one_llc(w)).unwrap(),
        p.features,
        p.imbalance_pct,
        400,
    )
}

fn replayed() -> (Replay, ReplayReport) {
    replay_of(TRACE, "linux-6.0")
}

/// `trace` replayed on one LLC of 2 CPUs with `preset`, every record kept.
pub(super) fn replay_of(trace: &str, preset: &str) -> (Replay, ReplayReport) {
    replay_on(trace, preset, 2)
}

/// `trace` without its lines that contain `mark`.
fn lines_without(trace: &str, mark: &str) -> String {
    trace
        .lines()
        .filter(|l| !l.contains(mark))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The same on one LLC of `cpus` CPUs.
fn replay_on(trace: &str, preset: &str, cpus: u32) -> (Replay, ReplayReport) {
    let mut r = Replay::new(ReplayConfig {
        topology: Some(TopologySpec::one_llc(cpus)),
        presets: vec![preset.into()],
        keep: usize::MAX,
        ..Default::default()
    })
    .unwrap();
    r.feed_text(trace.as_bytes()).unwrap();
    let report = r.end().unwrap();
    (r, report)
}

/// The waker's flips as the wake-up at trace line `line` read them.
fn waker_flips(r: &Replay, line: u64) -> u32 {
    let rec = r.records().iter().find(|w| w.line == line);
    rec.unwrap_or_else(|| panic!("no record of line {line}"))
        .waker_dur
        .wakee_flips
}

#[test]
fn only_a_wakeup_through_select_task_rq_fair_counts_a_flip() {
    let (r, _) = replayed();
    // a wakes b (a flip), a per-CPU kworker (select_task_rq() skips the class hook when
    // nr_cpus_allowed == 1) and an RT task (select_task_rq_rt), then c: its second flip.
    assert_eq!(waker_flips(&r, 6), 1);
    assert_eq!(
        waker_flips(&r, 12),
        2,
        "the kworker and the RT wakee are no flips"
    );
}

#[test]
fn a_new_task_starts_with_its_parents_flips() {
    let (r, report) = replayed();
    assert_eq!(report.notes.counts.flips_inherited, 1);
    // d (pid 400), forked by a with 2 flips and c as last_wakee, wakes e: a third flip.
    assert_eq!(waker_flips(&r, 16), 3);
}

#[test]
fn a_bound_wakee_wakes_on_its_cpu_without_select_task_rq_fair() {
    // CPU1 busy with x; a on CPU0 wakes CPU1's kworker. select_task_rq() calls no class hook
    // for a task with one allowed CPU, so there is no scan of the LLC to count.
    let trace = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 4/4   #P:2
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000020: sched_waking: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
               a-100   [000] 10.000021: sched_wakeup: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
";
    let (r, report) = replay_of(trace, "linux-5.10");
    let rec = &r.records()[0];
    assert_eq!(
        (rec.bound_cpu(), rec.kernel, rec.chosen.as_slice()),
        (Some(1), 1, &[1][..])
    );
    let d = r.decision(rec, 0).unwrap();
    assert!(d.steps.is_empty() && d.decided_by.is_none(), "{d:?}");
    assert_eq!(
        report.notes.sis_scanned,
        vec![("linux-5.10".to_string(), 0)]
    );
}

/// A counterfactual decision (the wakelist's, the autogroups', the flips') leaves the state
/// as it found it: with 5.14's aged wake_avg_idle, select_idle_cpu() ages it by the jiffies
/// gone and charges it with the scan, and the real decision after it must not see either.
#[test]
fn a_decision_aside_puts_back_what_select_task_rq_fair_writes() {
    use crate::kernel::select::TaskDuration;
    let mut st = state("linux-5.15", 8);
    for rq in st.rqs.iter_mut().take(6) {
        rq.nr_running = 1; // CPUs 0-5 busy, 6-7 idle: the scan runs and finds one
    }
    st.rqs[0].wake_stamp = 10;
    let before = |st: &SchedState| {
        let rq = &st.rqs[0];
        (
            rq.avg_scan_cost,
            rq.wake_avg_idle,
            rq.wake_stamp,
            format!("{:?}", st.llcs),
        )
    };
    let was = before(&st);
    let all = CpuMask::full(8);
    let wakee = Wakee {
        prev: 1,
        recent_used_cpu: None,
        allowed: &all,
        load: 0,
        wake_wide: true,
        dur: TaskDuration::default(),
    };
    let waker = Waker {
        cpu: 0,
        sync: false,
        load: 0,
        now_ns: 20_000_000,
        jiffies: 20, // 10 jiffies after the stamp: wake_avg_idle is aged
        curr: TaskDuration::default(),
        exiting: false,
    };
    let mut scratch = Vec::new();
    let cpu = super::evaluate::select_aside(&mut st, &mut scratch, &wakee, &waker);
    assert_eq!(cpu, 6, "the scan from prev's LLC finds CPU 6");
    assert_eq!(before(&st), was);
    // The same decision for real does write them (so the test above can fail).
    let out = st.select_task_rq_fair(&wakee, &waker, &mut Counters::default(), &mut ());
    assert_eq!(out.cpu, 6);
    assert_ne!(before(&st), was);
}

/// 5.14's wake_avg_idle, as select_idle_cpu() ages and charges it, is each preset's own until
/// a wake-up onto the idle CPU sets it again (ttwu_do_wakeup()); the rebuild's reset, not
/// every snapshot, overwrites it.
#[test]
fn a_presets_charged_wake_avg_idle_lasts_until_the_cpu_wakes_from_idle() {
    let mut st = state("linux-5.15", 2);
    let mut cpus = vec![rebuild::CpuSnap::default(); 2];
    cpus[0].wake_avg_idle = 900_000;
    let mut seen = vec![0; 2];
    st.rqs[0].wake_avg_idle = 123; // charged by this preset's scans
    super::records::load_snapshot(&mut st, &cpus, None, 1, &mut seen, None);
    assert_eq!(
        st.rqs[0].wake_avg_idle, 123,
        "no reset since: the preset's own"
    );
    cpus[0].wake_resets = 1;
    cpus[0].wake_stamp = 7;
    super::records::load_snapshot(&mut st, &cpus, None, 1, &mut seen, None);
    assert_eq!(
        (st.rqs[0].wake_avg_idle, st.rqs[0].wake_stamp),
        (900_000, 7)
    );
    assert_eq!(seen, [1, 0]);
}

/// From 4.16 an exiting waker's WF_SYNC is not sync to select_task_rq_fair (PF_EXITING); 4.14
/// still pulls to the waker's CPU. Both CPUs busy, prev lighter: only a sync pull moves it.
#[test]
fn an_exiting_wakers_sync_pulls_only_before_4_16() {
    use crate::kernel::select::TaskDuration;
    let all = CpuMask::full(2);
    let decide = |preset: &str, sync: bool, exiting: bool| {
        let mut st = state(preset, 2);
        st.cpu_load_known = true;
        for (rq, load) in st.rqs.iter_mut().zip([1024, 2048]) {
            (rq.nr_running, rq.load_avg) = (1, load);
        }
        let wakee = Wakee {
            prev: 0,
            recent_used_cpu: None,
            allowed: &all,
            load: 0,
            wake_wide: false,
            dur: TaskDuration::default(),
        };
        let waker = Waker {
            cpu: 1,
            sync,
            load: 2048,
            now_ns: 0,
            jiffies: 0,
            curr: TaskDuration::default(),
            exiting,
        };
        let out = st.select_task_rq_fair(&wakee, &waker, &mut Counters::default(), &mut ());
        out.cpu
    };
    for preset in ["linux-4.14", "linux-5.10", "linux-6.0"] {
        assert_eq!(decide(preset, true, false), 1, "{preset}: sync pulls");
        assert_eq!(
            decide(preset, false, false),
            0,
            "{preset}: the loads keep prev"
        );
    }
    assert_eq!(
        decide("linux-4.14", true, true),
        1,
        "4.14 has no PF_EXITING test"
    );
    assert_eq!(decide("linux-5.10", true, true), 0);
    assert_eq!(decide("linux-6.0", true, true), 0);
}

/// A child that wakes its parent and exits next woke it from do_exit() (exit_notify()).
#[test]
fn a_childs_wakeup_of_its_parent_as_it_exits_is_an_exiting_wakers() {
    let trace = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 7/7   #P:2
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
              sh-100   [000] 10.000010: sched_wakeup_new: comm=sh pid=101 prio=120 target_cpu=001
              sh-100   [000] 10.000020: sched_switch: prev_comm=sh prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
               x-7     [001] 10.000030: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=101 next_prio=120
              sh-101   [001] 10.000100: sched_waking: comm=sh pid=100 prio=120 target_cpu=000
              sh-101   [001] 10.000101: sched_wakeup: comm=sh pid=100 prio=120 target_cpu=000
              sh-101   [001] 10.000110: sched_switch: prev_comm=sh prev_pid=101 prev_prio=120 prev_state=Z ==> next_comm=x next_pid=7 next_prio=120
";
    let (r, report) = replay_of(trace, "linux-5.10");
    assert_eq!(report.notes.counts.exit_wakes, 1);
    let rec = r.records().iter().find(|w| w.line == 9).unwrap();
    assert!(
        rec.id.sync && rec.waker_exiting,
        "sync inferred, and the waker exiting"
    );
}

/// A waking whose CPU 2 switches to idle before the kernel's select path asks about it (TCG
/// can put milliseconds between the sched_waking and the asks): available_idle_cpu() reads the
/// runqueue at the ask, so the wake-up sees CPU 2 idle where the kernel's asks show it, or
/// where select_task_rq_fair() was entered (`sis_select`) after the switch, and busy, as at
/// its sched_waking, where the trace shows the selection only before it.
#[test]
fn a_wakeup_reads_the_runqueues_at_the_kernels_asks_not_at_its_waking() {
    let asked = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 12/12   #P:3
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=y next_pid=8 next_prio=120
          <idle>-0     [002] 10.000002: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=001
               a-100   [000] 10.000011: sis_select: (select_task_rq_fair+0x0/0x11d0) prev_cpu=1 wake_flags=0x8
               x-7     [002] 10.000500: sched_switch: prev_comm=x prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
               a-100   [000] 10.000600: sis_idle: (available_idle_cpu+0x0/0x60) cpu=2
               a-100   [000] 10.000601: sis_idle_ret: (select_task_rq_fair+0x9ff/0x11d0 <- available_idle_cpu) ret=1
               a-100   [000] 10.000610: sched_migrate_task: comm=b pid=200 prio=120 orig_cpu=1 dest_cpu=2
               a-100   [000] 10.000620: sched_wakeup: comm=b pid=200 prio=120 target_cpu=002
";
    let not_asked = lines_without(asked, "sis_idle");
    let run = |trace: &str| {
        let (r, report) = replay_on(trace, "linux-6.0", 3);
        let rec = r
            .records()
            .iter()
            .find(|w| w.line == 7)
            .expect("the waking's record")
            .clone();
        (
            rec.cpus[2].nr_running,
            rec.chosen[0],
            report.notes.counts.reread_at_selection,
        )
    };
    assert_eq!(
        run(asked),
        (0, 2, 1),
        "CPU 2 idle at the ask: the scan finds it"
    );
    // The same without the asks, select_task_rq_fair() entered after CPU 2's switch.
    let select = asked.lines().find(|l| l.contains("sis_select")).unwrap();
    let switch = asked
        .lines()
        .find(|l| l.contains("next_comm=swapper/2"))
        .unwrap();
    let late = select.replace("10.000011", "10.000550");
    let selected_late = not_asked
        .replace(&format!("{select}\n"), "")
        .replace(switch, &format!("{switch}\n{late}"));
    assert_eq!(
        run(&selected_late),
        (0, 2, 1),
        "entered after CPU 2's switch"
    );
    let (nr, chosen, reread) = run(&not_asked);
    assert_eq!(
        (nr, reread),
        (1, 0),
        "no asks: CPU 2 as at the sched_waking"
    );
    assert_ne!(chosen, 2);
}

/// Three CPUs: a runs on CPU 0, c on CPU 1, CPU 2 idle since b slept there. a wakes b (its
/// selection seen), c then wakes d, and CPU 2 emits b's sched_wakeup 3 ms on.
const B_THEN_D: &str = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 11/11   #P:3
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=101 next_prio=120
          <idle>-0     [002] 10.000002: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=200 next_prio=120
               b-200   [002] 10.000005: sched_switch: prev_comm=b prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
               a-100   [000] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=002
               a-100   [000] 10.000011: sis_select: (select_task_rq_fair+0x0/0x11d0) prev_cpu=2 wake_flags=0x8
               c-101   [001] 10.000100: sched_waking: comm=d pid=300 prio=120 target_cpu=001
               c-101   [001] 10.000101: sis_select: (select_task_rq_fair+0x0/0x11d0) prev_cpu=1 wake_flags=0x8
               c-101   [001] 10.000120: sched_wakeup: comm=d pid=300 prio=120 target_cpu=001
          <idle>-0     [002] 10.003000: sched_wakeup: comm=b pid=200 prio=120 target_cpu=002
";

/// `trace` replayed on 3 CPUs with linux-6.0: whether d's wake-up saw CPU 2 holding a
/// wake-up, d's CPU, and the replay's counts.
fn d_sees(trace: &str) -> (bool, u32, super::report::RebuildCounts) {
    let (r, report) = replay_on(trace, "linux-6.0", 3);
    let rec = r
        .records()
        .iter()
        .find(|w| w.id.wakee == 300)
        .expect("d's record");
    (rec.cpus[2].ttwu_pending, rec.chosen[0], report.notes.counts)
}

/// [`B_THEN_D`] with b's sched_wakeup from its waker's CPU 0: activated there, no wakelist.
fn b_by_its_wakers_cpu() -> String {
    B_THEN_D.replace(
        "<idle>-0     [002] 10.003000",
        "     a-100   [000] 10.003000",
    )
}

/// A task woken onto idle CPU 2 whose sched_wakeup comes late (under TCG the resched IPI
/// between the enqueue and the tracepoint can take milliseconds): where a `sis_load` kprobe
/// shows its enqueue, CPU 2 is busy from then for a wake-up selecting meanwhile, as
/// idle_cpu() reads it; without it, from the selection's end (an inference, counted); without
/// the selection's kprobe either, it looks idle until the sched_wakeup.
#[test]
fn a_cpu_is_busy_from_a_woken_tasks_enqueue_where_the_trace_shows_it() {
    // b activated by its waker's CPU (no wakelist), its enqueue on CPU 2 shown at once.
    let by_waker = b_by_its_wakers_cpu();
    let select_b = "prev_cpu=2 wake_flags=0x8\n";
    let load = "               a-100   [000] 10.000012: sis_load: (enqueue_task_fair+0x0/0x5b0) \
                cpu=2 pid=200 flags=0x9 load=0 util=0 lut=10000000000\n";
    let enqueued = by_waker.replacen(select_b, &format!("{select_b}{load}"), 1);
    let enqueued = enqueued.as_str();
    let not_shown = lines_without(enqueued, "sis_load");
    let run = |trace: &str| {
        let (busy, cpu, c) = d_sees(trace);
        (busy, cpu, c.activated_since_selection)
    };
    assert_eq!(run(enqueued), (true, 1, 0), "CPU 2 holds b: nothing idle");
    assert_eq!(
        run(&not_shown),
        (true, 1, 1),
        "CPU 2 busy from b's selection's end, inferred"
    );
    assert_eq!(
        run(&lines_without(&not_shown, "sis_select")),
        (false, 2, 0),
        "CPU 2 idle until b's sched_wakeup"
    );
}

/// b's wake-up is queued on idle CPU 2's wakelist, which activates it late (its sched_wakeup
/// comes from CPU 2, 3 ms on): d's wake-up, selecting in between, finds CPU 2 busy
/// (`rq->ttwu_pending`) and keeps d on CPU 1, as the kernel did. Without b's selection kprobe
/// the window starts at b's sched_waking (an inference, counted apart).
#[test]
fn a_cpu_is_busy_from_a_wakelist_wakeups_selection_to_its_activation() {
    let queued = B_THEN_D;
    let run = |trace: &str| {
        let (busy, cpu, c) = d_sees(trace);
        (
            busy,
            cpu,
            (c.wakelist_since_selection, c.wakelist_since_waking),
        )
    };
    assert_eq!(
        run(queued),
        (true, 1, (1, 0)),
        "CPU 2 busy from b's selection"
    );
    let inferred = lines_without(queued, "sis_select");
    assert_eq!(run(&inferred), (true, 1, (1, 1)), "from b's sched_waking");
    // Activated by its waker's CPU (no wakelist): not the wakelist's count (CPU 2 is busy for
    // d by the direct activation's inference, the test above).
    assert_eq!(run(&b_by_its_wakers_cpu()).2, (0, 0));
}

/// On 8 CPUs, 0-5 running and 6-7 idle, the task on CPU 1 wakes b, first seen there (older
/// than the trace), with the `sis_wflips` probe reading b's recent_used_cpu as `recent`.
fn older_wakee_with_recent(recent: &str) -> String {
    let mut t = String::from("# entries-in-buffer/entries-written: 20/20   #P:8\n");
    for c in 0..8 {
        t += &format!("          <idle>-0     [{c:03}] 10.00000{c}: sched_switch: prev_comm=swapper/{c} prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t{c} next_pid={} next_prio=120\n", 10 + c);
    }
    for c in 6..8 {
        t += &format!("              t{c}-{}     [{c:03}] 10.00001{c}: sched_switch: prev_comm=t{c} prev_pid={} prev_prio=120 prev_state=S ==> next_comm=swapper/{c} next_pid=0 next_prio=120\n", 10 + c, 10 + c);
    }
    t + &format!(
        "\
              t1-11    [001] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=001
              t1-11    [001] 10.000101: sis_wflips: (select_task_rq_fair+0x0/0x11d0) task=0xb00 flips=0 decay=10000 last=0x0 {recent}jif=10000
              t1-11    [001] 10.000102: sis_select: (select_task_rq_fair+0x0/0x11d0) prev_cpu=1 sd_flag=0x8 wake_flags=0x0
              t1-11    [001] 10.000103: sched_wakeup: comm=b pid=200 prio=120 target_cpu=006
"
    )
}

/// v5.10 fair.c select_idle_sibling(): with target and prev busy (CPU 1), p->recent_used_cpu
/// idle and sharing the LLC is taken before any scan. A task older than the trace has one the
/// rebuild cannot know: the probe's reading gives it, and the wake-up is counted.
#[test]
fn a_wakee_older_than_the_trace_takes_its_recent_used_cpu_from_the_probe() {
    let (r, report) = replay_on(&older_wakee_with_recent("recent=6 "), "linux-5.10", 8);
    let w = &r.records()[0];
    assert_eq!(w.inputs[0].recent, Some(6));
    assert_eq!(w.chosen, vec![6]);
    assert_eq!(report.notes.counts.recent_read, 1);
    let (r, report) = replay_on(&older_wakee_with_recent(""), "linux-5.10", 8);
    assert_eq!(r.records()[0].inputs[0].recent, None);
    assert_eq!(report.notes.counts.recent_read, 0);
    // A reading outside the machine's CPUs is not taken.
    let (r, _) = replay_on(&older_wakee_with_recent("recent=-1 "), "linux-5.10", 8);
    assert_eq!(r.records()[0].inputs[0].recent, None);
}
