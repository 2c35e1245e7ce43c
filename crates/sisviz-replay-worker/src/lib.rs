//! The Replay tab's worker wasm (issue 14): `static/replay-worker.js` loads it, when a trace is
//! opened, reads the file in chunks (gunzipped by the browser's DecompressionStream) and feeds
//! them to [`replay_feed`]; the [`Replay`] and its kept wake-ups stay in the worker, and the page
//! asks for one wake-up at a time ([`replay_get`]), with the selected preset's decision
//! recomputed here. Texts cross as space-separated `name=value` fields ([`replay_end`] /
//! [`encode_view`]; the page's `replay_api::Summary::parse` / `WakeView::parse` read them by
//! name): no serde code on either side. A separate wasm from the page's: the page never loads the replay core.

use sis_core::analysis::replay::{Replay, ReplayConfig, WakeRecord};
use sis_core::kernel::trace::Decision;
use sis_core::sim::query::split_query;
use sis_core::text::Text;
use sis_core::Scenario;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// Wake-ups kept for stepping: the first KEEP (fewer on large machines: KEEP_CPU_SLOTS CPU
/// snapshots at most) and then KEEP_DISAGREEMENTS more where some preset disagrees.
pub const KEEP: usize = 20_000;
pub const KEEP_CPU_SLOTS: usize = 1_280_000;
pub const KEEP_DISAGREEMENTS: usize = 2_000;
/// The timeline sent with a wake-up: what ran this long before and after it, at most
/// TIMELINE_SPANS runs per CPU and TIMELINE_MARKS other kept wake-ups.
pub const TIMELINE_NS: u64 = 5_000_000;
pub const TIMELINE_SPANS: usize = 2_000;
pub const TIMELINE_MARKS: usize = 500;

struct Session {
    replay: Replay,
    /// The end of the last chunk, up to its first newline-less tail.
    carry: Vec<u8>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

fn with<T>(f: impl FnOnce(&mut Session) -> T) -> Option<T> {
    SESSION.with(|s| s.borrow_mut().as_mut().map(f))
}

/// Starts a replay on a query of the topology fields and CONFIG_HZ (`llcs=1&llc_weight=8&...
/// &hz=250`) and `autogroup=0|1` (ReplayConfig::autogroup); "" or `error: ...` naming the field.
#[wasm_bindgen]
pub fn replay_open(query: &str) -> String {
    let mut sc = Scenario::default();
    let mut autogroup = false;
    for (k, v) in split_query(query) {
        if k == "autogroup" {
            autogroup = match v.as_str() {
                "0" => false,
                "1" => true,
                _ => return format!("error: autogroup: '{v}' is not 0 or 1"),
            };
        } else if let Err(e) = sc.set_field(&k, &v) {
            return format!("error: {e}");
        }
    }
    let spec = sc.topology_spec();
    let nr = (spec.llcs * spec.llc_weight).max(1) as usize;
    let cfg = ReplayConfig {
        topology: Some(spec),
        keep: KEEP.min(KEEP_CPU_SLOTS / nr),
        keep_disagreements: KEEP_DISAGREEMENTS,
        timeline: true,
        autogroup,
        hz: sc.hz as u64,
        ..Default::default()
    };
    match Replay::new(cfg) {
        Ok(replay) => {
            SESSION.with(|s| {
                *s.borrow_mut() = Some(Session {
                    replay,
                    carry: Vec::new(),
                })
            });
            String::new()
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Feeds a chunk of the file (lines may span chunks); "" or `error: ...` (the core's error,
/// naming the line, with what was read so far).
#[wasm_bindgen]
pub fn replay_feed(chunk: &[u8]) -> String {
    with(|s| {
        let mut rest = chunk;
        while let Some(i) = sis_core::analysis::replay::line_end(rest) {
            let r = if s.carry.is_empty() {
                s.replay.feed_line(&rest[..i])
            } else {
                s.carry.extend_from_slice(&rest[..i]);
                let line = std::mem::take(&mut s.carry);
                let r = s.replay.feed_line(&line);
                s.carry = line;
                s.carry.clear();
                r
            };
            if let Err(e) = r {
                return format!("error: {e}");
            }
            rest = &rest[i + 1..];
        }
        // A line longer than the core's limit fails here rather than growing without bound.
        if s.carry.len() + rest.len() > sis_core::analysis::replay::MAX_LINE_BYTES {
            let line = std::mem::take(&mut s.carry);
            if let Err(e) = s.replay.feed_line(&[line.as_slice(), rest].concat()) {
                return format!("error: {e}");
            }
        } else {
            s.carry.extend_from_slice(rest);
        }
        String::new()
    })
    .unwrap_or_else(|| "error: no replay started".into())
}

/// Ends the replay: the summary ([`Summary::parse`]) or `error: ...`.
#[wasm_bindgen]
pub fn replay_end() -> String {
    with(|s| {
        if !s.carry.is_empty() {
            let line = std::mem::take(&mut s.carry);
            if let Err(e) = s.replay.feed_line(&line) {
                return format!("error: {e}");
            }
        }
        match s.replay.end() {
            Ok(rep) => {
                let mut o = format!("presets={}", s.replay.preset_names().join(","));
                for (name, c) in &rep.classes.0 {
                    let agree: Vec<String> = c.agree.iter().map(|(_, k)| k.to_string()).collect();
                    o.put(format_args!(
                        "\nclass={name} wakeups={} agree={}",
                        c.wakeups,
                        agree.join(",")
                    ));
                }
                let t = &rep.trace;
                let recs = s.replay.records();
                let kept_first = recs
                    .iter()
                    .enumerate()
                    .take_while(|(i, r)| r.index == *i as u64)
                    .count();
                o.put(format_args!(
                    "\ntrace events={} wakeups={} cpus={} skipped_lines={} incomplete={} \
                     on_rq={} kept={} kept_first={kept_first}",
                    t.events,
                    t.wakeups,
                    t.cpus,
                    t.skipped_lines,
                    t.incomplete,
                    rep.notes.on_rq,
                    recs.len(),
                ));
                o
            }
            Err(e) => format!("error: {e}"),
        }
    })
    .unwrap_or_else(|| "error: no replay started".into())
}

/// Kept wake-up `pos` moved by `step` (-1, 0, +1; with `only`, to the nearest one in that
/// direction where preset `preset` disagrees with the kernel), with that preset's decision:
/// [`WakeView::parse`] reads it; "" when there is none.
#[wasm_bindgen]
pub fn replay_get(pos: u32, step: i32, preset: u32, only: bool) -> String {
    with(|s| {
        let recs = s.replay.records();
        let p = preset as usize;
        let ok = |i: usize| !only || recs[i].disagrees(p);
        let mut i = (pos as usize).min(recs.len().saturating_sub(1));
        if recs.is_empty() {
            return String::new();
        }
        if step != 0 || !ok(i) {
            let dir = if step < 0 { -1 } else { 1 };
            let mut j = i as i64 + if step == 0 { 0 } else { dir };
            loop {
                if j < 0 || j as usize >= recs.len() {
                    return String::new();
                }
                if ok(j as usize) {
                    break;
                }
                j += dir;
            }
            i = j as usize;
        }
        let r = &recs[i];
        match s.replay.decision(r, p) {
            Some(d) => encode_view(i, r, &d) + &encode_timeline(&s.replay, i),
            None => String::new(),
        }
    })
    .unwrap_or_default()
}

/// The runs within TIMELINE_NS of kept wake-up `i` and the other kept wake-ups there, times
/// relative to it: ` spans=cpu:start:end:pid,... marks=pos:line:time:kernel_cpu,...`.
pub fn encode_timeline(replay: &Replay, i: usize) -> String {
    let recs = replay.records();
    let (Some(r), Some((tl, now))) = (recs.get(i), replay.timeline()) else {
        return String::new();
    };
    let t = r.id.time_ns;
    let (from, to) = (t.saturating_sub(TIMELINE_NS), t + TIMELINE_NS);
    let rel = |x: u64| x as i64 - t as i64;
    let mut spans = Vec::new();
    for cpu in 0..r.cpus.len() as u32 {
        for s in tl.window(cpu, from, to, now, TIMELINE_SPANS) {
            spans.push(format!(
                "{cpu}:{}:{}:{}",
                rel(s.start_ns),
                rel(s.end_ns),
                s.pid
            ));
        }
    }
    let lo = recs.partition_point(|x| x.id.time_ns < from);
    let marks = recs[lo..]
        .iter()
        .enumerate()
        .map(|(k, x)| (lo + k, x))
        .take_while(|(_, x)| x.id.time_ns < to)
        .filter(|(k, _)| *k != i)
        .take(TIMELINE_MARKS)
        .map(|(k, x)| format!("{k}:{}:{}:{}", x.line, rel(x.id.time_ns), x.kernel));
    format!(
        " spans={} marks={} dropped={}",
        spans.join(","),
        list(marks),
        tl.dropped
    )
}

/// `-` for none.
fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn list<T: std::fmt::Display>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// One kept wake-up and a preset's decision on it, as `name=value` fields (lists
/// comma-separated; a step is `rule:cpu:saw:nr`; wake_affine_weight's terms colon-separated;
/// `-` for none).
pub fn encode_view(pos: usize, r: &WakeRecord, d: &Decision) -> String {
    let cpus = list(
        r.cpus
            .iter()
            .map(|c| format!("{}:{}", c.nr_running, c.util_avg)),
    );
    let steps = list(
        d.steps
            .iter()
            .map(|s| format!("{}:{}:{}:{}", s.rule.name(), s.cpu, s.saw.name(), opt(s.nr))),
    );
    format!(
        "pos={pos} index={} line={} kernel={} class={} chosen={} cpus={cpus} seq={} time_ns={} \
         waker_cpu={} wakee={} sync={} prev={} target={} has_idle_core={} nr_idle_scan={} \
         result={} recent_used_cpu={} nr_before={} nr_after={} scan_end={} decided_by={} \
         steps={steps} missed_idle={} task_class={} affine={} kernel_asked={}",
        r.index,
        r.line,
        r.kernel,
        r.class,
        list(&r.chosen),
        d.id.seq,
        d.id.time_ns,
        d.id.waker_cpu,
        d.id.wakee,
        // 1 inferred, 2 read from the trace's wake flags (sis_select).
        u8::from(d.id.sync) * if r.sync_read { 2 } else { 1 },
        d.id.prev,
        d.target,
        u8::from(d.has_idle_core),
        d.nr_idle_scan,
        d.result,
        opt(d.recent_used_cpu),
        opt(d.nr_before),
        opt(d.nr_after),
        opt(d.scan_end.map(|e| e.name())),
        opt(d.decided_by.map(|r| r.name())),
        list(&d.missed_idle),
        // What placed the wakee: 0 the fair path, 1 real-time, 2 deadline (its own class), 3
        // its one allowed CPU (no class hook).
        match r.rt.as_ref().map(|w| w.class) {
            None if r.bound_cpu().is_some() => 3,
            None => 0,
            Some(sis_core::analysis::replay::classes::TaskClass::Dl) => 2,
            Some(_) => 1,
        },
        // wake_affine_weight()'s terms (kernel::trace::AffineWeight, in field order).
        d.affine_weight.map_or("-".into(), |a| {
            format!(
                "{}:{}:{}:{}:{}:{}:{}:{}:{}:{}",
                a.this_load,
                a.prev_load,
                a.task_load,
                opt(a.current_load),
                a.this_pct,
                a.prev_pct,
                a.this_eff_load,
                a.prev_eff_load,
                u8::from(a.waker_heavier),
                u8::from(a.this_wins)
            )
        }),
        // The kernel's own available_idle_cpu() asks (cpu:1 idle, cpu:0 busy, cpu:- unknown).
        list(r.kernel_asked.iter().map(|(cpu, idle)| format!(
            "{cpu}:{}",
            idle.map_or("-", |i| if i { "1" } else { "0" })
        ))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_decodes_as_the_page_encodes_it() {
        assert_eq!(
            split_query("llcs=1&numbering=inter%6Ceaved&smt=%202+&x"),
            [
                ("llcs".into(), "1".into()),
                ("numbering".into(), "interleaved".into()),
                ("smt".into(), " 2 ".into()),
                ("x".into(), String::new()),
            ]
        );
        assert!(replay_open("llcs=1&llc_weight=8&smt=%32").is_empty());
        assert!(replay_open("llc_weight=%30").starts_with("error: "));
    }

    /// The wire names what placed each wakee: a fair one (0), and a per-CPU kworker bound to
    /// its CPU (3), which select_task_rq() wakes there without any class's hook.
    #[test]
    fn the_view_says_a_bound_wakee_was_placed_by_its_one_cpu() {
        assert!(replay_open("llcs=1&llc_weight=2&smt=1").is_empty());
        let trace = "\
# tracer: nop
#
# entries-in-buffer/entries-written: 6/6   #P:2
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=7 next_prio=120
               a-100   [000] 10.000010: sched_waking: comm=b pid=200 prio=120 target_cpu=001
               a-100   [000] 10.000011: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000
               a-100   [000] 10.000020: sched_waking: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
               a-100   [000] 10.000021: sched_wakeup: comm=kworker/1:1 pid=300 prio=120 target_cpu=001
";
        assert_eq!(replay_feed(trace.as_bytes()), "");
        assert!(!replay_end().starts_with("error"));
        let class = |pos: u32| {
            let v = replay_get(pos, 0, 0, false);
            let f = v.split(' ').find(|f| f.starts_with("task_class="));
            f.map(|f| f["task_class=".len()..].to_string())
        };
        assert_eq!(class(0).as_deref(), Some("0"));
        assert_eq!(class(1).as_deref(), Some("3"));
    }
}
