//! The trace line parser's cases (parse.rs): each layout, field split and error.

use super::*;

fn ev(line: &str) -> TraceEvent<'_> {
    match parse_line(line) {
        Ok(Line::Event(e)) => e,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn ftrace_ns_without_flags() {
    let e = ev("          <idle>-0       [002] 63982.794565804: sched_waking: comm=lttng-consumerd pid=4297 prio=120 target_cpu=005");
    assert_eq!(e.cpu, 2);
    assert_eq!(e.time_ns, 63_982_794_565_804);
    assert_eq!(e.comm, "lttng-consumerd");
    assert_eq!(e.prio, Some(120));
    assert_eq!(
        e.event,
        SchedEvent::Waking {
            pid: 4297,
            target_cpu: 5
        }
    );
}

#[test]
fn ftrace_us_with_irq_flags_and_blank_comm() {
    let e = ev("  Web Content-4242  [011] d..2 12345.678901: sched_switch: prev_comm=Web Content prev_pid=4242 prev_prio=120 prev_state=R+ ==> next_comm=swapper/11 next_pid=0 next_prio=120");
    assert_eq!(e.cpu, 11);
    assert_eq!(e.time_ns, 12_345_678_901_000);
    assert_eq!(
        (e.comm, e.prio, e.prev_prio),
        ("swapper/11", Some(120), Some(120))
    );
    assert_eq!(e.prev_comm, "Web Content");
    assert_eq!(
        e.event,
        SchedEvent::Switch {
            prev_pid: 4242,
            prev_runnable: true,
            prev_dead: false,
            next_pid: 0
        }
    );
    let e = ev("kworker/u16:2-99 [000] dNh3. 1.5: sched_wakeup: comm=Web Content pid=7 prio=120 success=1 target_cpu=003");
    assert_eq!(e.comm, "Web Content");
    assert_eq!(e.time_ns, 1_500_000_000);
    assert_eq!(
        e.event,
        SchedEvent::Wakeup {
            pid: 7,
            target_cpu: 3,
            new: false
        }
    );
}

#[test]
fn prios_of_every_class_and_a_blank_next_comm() {
    let e = ev("  bash-1 [003] 5.000001: sched_switch: prev_comm=bash prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=irq/35-i2c hid next_pid=77 next_prio=49");
    assert_eq!(
        (e.comm, e.prio, e.prev_prio),
        ("irq/35-i2c hid", Some(49), Some(120))
    );
    let e =
        ev("  <idle>-0 [000] 5.000002: sched_waking: comm=sugov:0 pid=9 prio=-1 target_cpu=000");
    assert_eq!(e.prio, Some(-1), "a deadline task");
    let e = ev("  <idle>-0 [000] 5.000003: sched_wakeup: comm=x pid=9 prio=bogus target_cpu=000");
    assert_eq!(e.prio, None, "an unreadable prio is absent, not an error");
    let e = ev("  <idle>-0 [000] 5.000004: sched_wakeup: comm=x pid=9 target_cpu=000");
    assert_eq!(e.prio, None);
}

#[test]
fn fields_split_at_any_ascii_space_and_at_a_tokens_first_equals_only() {
    // A tab between fields, an '=' inside a comm and a token without '=' (the switch's
    // "==>" is one): the field scan's token split (parse.rs Fields::scan).
    let e = ev("a-1 [001] 1.000001: sched_switch: prev_comm=k=v x\tprev_pid=12 prev_prio=120 prev_state=D ==>\tnext_comm=a b=c next_pid=13\tnext_prio=100\r");
    assert_eq!((e.prev_comm, e.comm), ("k=v x", "a b=c"));
    assert_eq!((e.prev_prio, e.prio), (Some(120), Some(100)));
    assert_eq!(
        e.event,
        SchedEvent::Switch {
            prev_pid: 12,
            prev_runnable: false,
            prev_dead: false,
            next_pid: 13
        }
    );
    // A key with an empty value, and a value running to the end of the line.
    let e = ev("a-1 [001] 1.000002: sched_waking: comm= pid=5 prio=120 target_cpu=003");
    assert_eq!((e.comm, e.prio), ("", Some(120)));
    assert_eq!(
        parse_line("a-1 [001] 1.000003: sched_waking: comm=x pid= prio=120 target_cpu=003"),
        Err(LineError(
            "sched_waking with an empty pid= (truncated line?)".into()
        ))
    );
}

#[test]
fn fields_split_around_utf8_tabs_and_control_bytes() {
    // The field scan's word steps (words.rs) across multi-byte comm bytes, a tab, a
    // control byte and the switch's "==>".
    let text = "prev_comm=caf\u{e9} w\u{f6}rker prev_pid=12\tx\u{1}y==>\r next_comm=a";
    let line = format!("a-1 [001] 1.000001: sched_switch: {text} next_pid=3 next_prio=120")
        .replace("prev_pid=12", "prev_pid=12 prev_state=S");
    let e = ev(&line);
    assert_eq!(e.prev_comm, "caf\u{e9} w\u{f6}rker");
    assert_eq!(e.comm, "a");
}

#[test]
fn perf_script_layout() {
    let e = ev("         swapper     0 [002] 63982.794565:       sched:sched_migrate_task: comm=foo pid=4297 prio=120 orig_cpu=2 dest_cpu=5");
    assert_eq!(
        e.event,
        SchedEvent::Migrate {
            pid: 4297,
            orig_cpu: 2,
            dest_cpu: 5
        }
    );
    assert_eq!(
        parse_line("\t    ffffffff810a1b2c __schedule+0x3cc ([kernel.kallsyms])"),
        Ok(Line::NotEvent)
    );
}

#[test]
fn headers_other_events_and_errors() {
    assert_eq!(
        parse_line("# entries-in-buffer/entries-written: 41811/41811   #P:8"),
        Ok(Line::CpuCount(8))
    );
    assert_eq!(parse_line("cpus=16"), Ok(Line::CpuCount(16)));
    assert_eq!(
        parse_line("  bash-1 [000] 1.000001: irq_handler_entry: irq=1 name=x"),
        Ok(Line::OtherEvent)
    );
    assert_eq!(parse_line("CPU:2 [LOST 10 EVENTS]"), Ok(Line::NotEvent));
    let e = parse_line("  bash-1 [000] 1.000001: sched_waking: comm=x pid=12 prio=1").unwrap_err();
    assert!(e.0.contains("target_cpu"), "{e:?}");
    let e = parse_line("  bash-1 [000] 1.000001: sched_waking: comm=x pid=1x2 prio=1 target_cpu=1")
        .unwrap_err();
    assert!(e.0.contains("pid='1x2'"), "{e:?}");
    let e = parse_line("  bash-1 [000] 1.0000000001: sched_waking: comm=x pid=1 target_cpu=1")
        .unwrap_err();
    assert!(e.0.contains("timestamp"), "{e:?}");
    // A switch cut after prev_state.
    let e = parse_line("  bash-1 [000] 1.000001: sched_switch: prev_comm=bash prev_pid=1 prev_prio=120 prev_state=S ==> next_co")
        .unwrap_err();
    assert!(e.0.contains("next_pid"), "{e:?}");
}

#[test]
fn the_flips_probes_and_a_timer_expirys_jiffies() {
    let e = ev("          usleep-546     [008] d..3.    11.417766: sis_flips: (__probestub_sched_switch+0x4/0x10) task=0xff205270c25b0000 pid=545 flips=7 decay=4294894842 last=0xff205270c3c88000 jif=4294895086");
    assert_eq!(
        e.event,
        SchedEvent::Flips(FlipsRead {
            pid: Some(545),
            task: 0xff20_5270_c25b_0000,
            wakee_flips: 7,
            decay_jiffies: 4_294_894_842,
            last_wakee: 0xff20_5270_c3c8_8000,
            jiffies: Some(4_294_895_086),
            recent_used_cpu: None,
        })
    );
    // arm64's reads no jiffies; a wakee's names no pid.
    let e = ev("            init-423     [000] d..3.    11.515123: sis_wflips: (select_task_rq_fair+0x4/0x17d0) task=0xff3e3b5544aa2100 flips=10 decay=4294894923 last=0x0");
    let SchedEvent::Flips(r) = e.event else {
        panic!("{e:?}")
    };
    assert_eq!(
        (r.pid, r.wakee_flips, r.last_wakee, r.jiffies),
        (None, 10, 0, None)
    );
    // Session 42's probe reads the wakee's recent_used_cpu too (`:s32`).
    let e = ev("            gzip-213     [002] d...     8.428069: sis_wflips: (select_task_rq_fair+0x0/0x11d0) task=0xffff8a244e591f80 flips=3 decay=4294894380 last=0xffff8a244e593f00 recent=4 jif=4294894414");
    let SchedEvent::Flips(r) = e.event else {
        panic!("{e:?}")
    };
    assert_eq!(
        (r.recent_used_cpu, r.jiffies),
        (Some(4), Some(4_294_894_414))
    );
    let bad = parse_line(
        "  a-1 [000] d..3. 1.000000: sis_wflips: (x+0x4/0x10) task=0xb00 flips=1 decay=1 last=0x0 recent=x",
    );
    assert!(
        matches!(&bad, Err(LineError(m)) if m.contains("recent='x'")),
        "{bad:?}"
    );
    let e = ev("          <idle>-0       [001] ..s1.    11.520000: timer_expire_entry: timer=00000000d4c3b2a1 function=process_timeout now=4294895130 baseclk=4294895130");
    assert_eq!(e.event, SchedEvent::Jiffies(4_294_895_130));
    let bad = parse_line(
        "  a-1 [000] d..3. 1.000000: sis_wflips: (x+0x4/0x10) task=ff3e flips=1 decay=1 last=0x0",
    );
    let Err(LineError(msg)) = bad else {
        panic!("{bad:?}")
    };
    assert!(msg.contains("sis_wflips: task='ff3e'"), "{msg}");
}
