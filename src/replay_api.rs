//! The Replay tab's worker side and its handle. `static/replay-worker.js` loads the same
//! wasm-bindgen glue and wasm as the page (as the sweep worker does), reads the trace file in
//! chunks (gunzipped by the browser's DecompressionStream) and feeds them to [`replay_feed`];
//! the [`Replay`] and its kept wake-ups stay in the worker, and the page asks for one wake-up
//! at a time ([`replay_get`]), with the selected preset's decision recomputed there. Texts
//! cross as space-separated numbers (`encode_*` / [`Summary::parse`] / [`WakeView::parse`]):
//! no serde code for them in the wasm. The exports (and so the replay code in the wasm) exist
//! only with the `replay` feature; natively everything here compiles and is tested.

use sis_core::replay::{Replay, ReplayConfig, WakeRecord, CLASSES};
use sis_core::trace::{Decision, Rule, Saw, ScanEnd, Step};
use sis_core::Scenario;
use std::cell::RefCell;
use std::fmt::Write;
use wasm_bindgen::prelude::*;

/// Wake-ups kept for stepping: the first KEEP (fewer on large machines: KEEP_CPU_SLOTS CPU
/// snapshots at most) and then KEEP_DISAGREEMENTS more where some preset disagrees.
pub const KEEP: usize = 20_000;
pub const KEEP_CPU_SLOTS: usize = 1_280_000;
pub const KEEP_DISAGREEMENTS: usize = 2_000;

/// The topology fields a trace does not record, as the Replay tab names them.
pub const TOPOLOGY_FIELDS: [&str; 5] = ["llcs", "llc_weight", "smt", "numbering", "cluster_size"];

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

/// Starts a replay on a query of the topology fields (`llcs=1&llc_weight=8&...`); "" or
/// `error: ...` naming the field.
#[cfg_attr(feature = "replay", wasm_bindgen)]
pub fn replay_open(query: &str) -> String {
    let mut sc = Scenario::default();
    for (k, v) in crate::url::split_query(query) {
        if let Err(e) = sc.set_field(&k, &v) {
            return format!("error: {e}");
        }
    }
    let spec = sc.topology_spec();
    let nr = (spec.llcs * spec.llc_weight).max(1) as usize;
    let cfg = ReplayConfig {
        topology: Some(spec),
        keep: KEEP.min(KEEP_CPU_SLOTS / nr),
        keep_disagreements: KEEP_DISAGREEMENTS,
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
#[cfg_attr(feature = "replay", wasm_bindgen)]
pub fn replay_feed(chunk: &[u8]) -> String {
    with(|s| {
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|b| *b == b'\n') {
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
        if s.carry.len() + rest.len() > sis_core::replay::MAX_LINE_BYTES {
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
#[cfg_attr(feature = "replay", wasm_bindgen)]
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
                let mut o = String::from("presets");
                for p in s.replay.preset_names() {
                    o.push(' ');
                    o.push_str(p);
                }
                for (name, c) in &rep.classes.0 {
                    let _ = write!(o, "\n{name} {}", c.wakeups);
                    for (_, k) in &c.agree {
                        let _ = write!(o, " {k}");
                    }
                }
                let t = &rep.trace;
                let recs = s.replay.records();
                let _ = write!(
                    o,
                    "\ntrace {} {} {} {} {} {} {} {}",
                    t.events,
                    t.wakeups,
                    t.cpus,
                    t.skipped_lines,
                    t.incomplete,
                    rep.notes.on_rq,
                    recs.len(),
                    recs.iter()
                        .enumerate()
                        .take_while(|(i, r)| r.index == *i as u64)
                        .count()
                );
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
#[cfg_attr(feature = "replay", wasm_bindgen)]
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
            Some(d) => encode_view(i, r, &d),
            None => String::new(),
        }
    })
    .unwrap_or_default()
}

fn opt(o: &mut String, v: Option<i64>) {
    match v {
        Some(v) => {
            let _ = write!(o, " {v}");
        }
        None => o.push_str(" -"),
    }
}

const RULES: [Rule; 11] = [
    Rule::WakeAffine,
    Rule::Target,
    Rule::Prev,
    Rule::RecentUsedCpu,
    Rule::SelectIdleSmt,
    Rule::SelectIdleCore,
    Rule::SelectIdleCpu,
    Rule::SelectIdleCluster,
    Rule::ThinLlc,
    Rule::ThinRest,
    Rule::Fallback,
];
const SAWS: [Saw; 4] = [Saw::Idle, Saw::SchedIdle, Saw::Busy, Saw::NotAllowed];
const ENDS: [ScanEnd; 5] = [
    ScanEnd::Found,
    ScanEnd::Budget,
    ScanEnd::Exhausted,
    ScanEnd::NoScan,
    ScanEnd::AvgCpu,
];

fn index_of<T: PartialEq>(all: &[T], v: Option<T>) -> Option<i64> {
    v.and_then(|v| all.iter().position(|x| *x == v).map(|i| i as i64))
}

/// One kept wake-up and a preset's decision on it, as numbers.
pub fn encode_view(pos: usize, r: &WakeRecord, d: &Decision) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "{pos} {} {} {} {} {} {} {} {} {} {} {}",
        r.index,
        d.seq,
        r.line,
        r.time_ns,
        r.waker_cpu,
        r.wakee,
        r.prev,
        r.kernel,
        r.sync_inferred as u8,
        r.class,
        r.chosen.len()
    );
    for c in &r.chosen {
        let _ = write!(o, " {c}");
    }
    let _ = write!(o, " {}", r.cpus.len());
    for c in &r.cpus {
        let _ = write!(o, " {} {}", c.nr_running, c.util_avg);
    }
    let _ = write!(
        o,
        " {} {} {} {} {}",
        d.target,
        d.has_idle_core as u8,
        d.nr_idle_scan,
        d.result,
        d.steps.len()
    );
    opt(&mut o, d.recent_used_cpu.map(i64::from));
    opt(&mut o, d.nr_before);
    opt(&mut o, d.nr_after);
    opt(&mut o, index_of(&ENDS, d.scan_end));
    opt(&mut o, index_of(&RULES, d.decided_by));
    for s in &d.steps {
        let _ = write!(
            o,
            " {} {}",
            s.cpu,
            index_of(&RULES, Some(s.rule)).unwrap_or(0)
        );
        opt(&mut o, index_of(&SAWS, Some(s.saw)));
        opt(&mut o, s.nr);
    }
    for m in &d.missed_idle {
        let _ = write!(o, " {m}");
    }
    o
}

/// A space-separated number reader; `None` once the text ends or a token is not a number.
struct Nums<'a>(std::str::SplitAsciiWhitespace<'a>);

impl Nums<'_> {
    fn opt(&mut self) -> Option<Option<i64>> {
        let t = self.0.next()?;
        if t == "-" {
            Some(None)
        } else {
            t.parse().ok().map(Some)
        }
    }
    fn n(&mut self) -> Option<u64> {
        self.0.next()?.parse().ok()
    }
    fn u(&mut self) -> Option<u32> {
        self.n().map(|v| v as u32)
    }
}

/// One kept wake-up as the page shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WakeView {
    /// Its place among the kept wake-ups.
    pub pos: usize,
    pub index: u64,
    /// The sched_waking's place among all sched_waking events, from 1.
    pub seq: u64,
    pub line: u64,
    pub time_ns: u64,
    pub waker_cpu: u32,
    pub wakee: u32,
    pub prev: u32,
    pub kernel: u32,
    pub sync_inferred: bool,
    /// Index into CLASSES.
    pub class: usize,
    pub chosen: Vec<u32>,
    /// (nr_running, util_avg) per CPU.
    pub cpus: Vec<(u32, u32)>,
    pub decision: Decision,
}

impl WakeView {
    pub fn parse(text: &str) -> Option<WakeView> {
        let mut n = Nums(text.split_ascii_whitespace());
        let mut v = WakeView {
            pos: n.n()? as usize,
            index: n.n()?,
            seq: n.n()?,
            line: n.n()?,
            time_ns: n.n()?,
            waker_cpu: n.u()?,
            wakee: n.u()?,
            prev: n.u()?,
            kernel: n.u()?,
            sync_inferred: n.n()? != 0,
            class: (n.n()? as usize).min(CLASSES.len() - 1),
            ..Default::default()
        };
        for _ in 0..n.n()? {
            v.chosen.push(n.u()?);
        }
        for _ in 0..n.n()? {
            v.cpus.push((n.u()?, n.u()?));
        }
        let d = &mut v.decision;
        d.seq = v.seq;
        d.time_ns = v.time_ns;
        d.waker_cpu = v.waker_cpu;
        d.wakee = v.wakee;
        d.sync = v.sync_inferred;
        d.prev = v.prev;
        d.target = n.u()?;
        d.has_idle_core = n.n()? != 0;
        d.nr_idle_scan = n.u()?;
        d.result = n.u()?;
        let steps = n.n()?;
        d.recent_used_cpu = n.opt()?.map(|c| c as u32);
        d.nr_before = n.opt()?;
        d.nr_after = n.opt()?;
        d.scan_end = n.opt()?.and_then(|i| ENDS.get(i as usize).copied());
        d.decided_by = n.opt()?.and_then(|i| RULES.get(i as usize).copied());
        for _ in 0..steps {
            let cpu = n.u()?;
            let rule = *RULES.get(n.n()? as usize)?;
            let saw = *SAWS.get(n.opt()?? as usize)?;
            d.steps.push(Step {
                rule,
                cpu,
                saw,
                nr: n.opt()?,
            });
        }
        d.missed_idle = n.0.filter_map(|t| t.parse().ok()).collect();
        Some(v)
    }
}

/// The replay's table and counts as the page shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub presets: Vec<String>,
    /// Per class (CLASSES order): wake-ups and per preset agreeing wake-ups.
    pub classes: Vec<(u64, Vec<u64>)>,
    /// events, wakeups, cpus, skipped_lines, incomplete, on_rq, kept, of which the first
    /// wake-ups (the rest are later disagreements).
    pub trace: [u64; 8],
}

impl Summary {
    pub fn parse(text: &str) -> Option<Summary> {
        let mut lines = text.lines();
        let mut s = Summary {
            presets: lines
                .next()?
                .strip_prefix("presets")?
                .split_ascii_whitespace()
                .map(String::from)
                .collect(),
            ..Default::default()
        };
        for _ in CLASSES {
            let mut n = Nums(lines.next()?.split_ascii_whitespace());
            n.0.next()?;
            let w = n.n()?;
            let agree = (0..s.presets.len()).map(|_| n.n()).collect::<Option<_>>()?;
            s.classes.push((w, agree));
        }
        let mut n = Nums(
            lines
                .next()?
                .strip_prefix("trace")?
                .split_ascii_whitespace(),
        );
        for slot in &mut s.trace {
            *slot = n.n()?;
        }
        Some(s)
    }
}

/// A message from the replay worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayMsg {
    /// Bytes of the file read so far, of `total`.
    Progress {
        read: f64,
        total: f64,
    },
    /// The replay ended: [`Summary::parse`]'s text and the real time it took, ms.
    Done {
        summary: String,
        ms: f64,
    },
    /// A kept wake-up ([`WakeView::parse`]'s text; "" = none in that direction).
    Record(String),
    Failed(String),
}

/// A replay in a module worker, and afterwards the worker that holds its kept wake-ups.
/// Dropping it terminates the worker.
pub struct ReplayJob {
    worker: web_sys::Worker,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

fn set(o: &js_sys::Object, k: &str, v: &JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), v);
}

impl ReplayJob {
    /// Starts a worker replaying `file` on the topology `query` (fields of TOPOLOGY_FIELDS).
    pub fn start(
        file: &web_sys::File,
        query: &str,
        on_msg: impl Fn(ReplayMsg) + 'static,
    ) -> Result<Self, String> {
        let (js, wasm) =
            crate::worker_api::boot_urls().ok_or("cannot find the app's JS/wasm URLs")?;
        let base = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.base_uri().ok().flatten())
            .ok_or("no base URI")?;
        let url = web_sys::Url::new_with_base("static/replay-worker.js", &base)
            .map_err(|_| "bad worker URL")?
            .href();
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(&url, &opts)
            .map_err(|e| format!("cannot start the replay worker: {e:?}"))?;
        let on_msg = std::rc::Rc::new(on_msg);
        let cb = on_msg.clone();
        let onmessage =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let d = e.data();
                let get = |k: &str| js_sys::Reflect::get(&d, &JsValue::from_str(k)).ok();
                let text = |k: &str| get(k).and_then(|v| v.as_string());
                let num = |k: &str| get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
                cb(if let Some(e) = text("error") {
                    ReplayMsg::Failed(e)
                } else if let Some(summary) = text("summary") {
                    ReplayMsg::Done {
                        summary,
                        ms: num("ms"),
                    }
                } else if let Some(r) = text("record") {
                    ReplayMsg::Record(r)
                } else {
                    ReplayMsg::Progress {
                        read: num("progress"),
                        total: num("total"),
                    }
                });
            });
        let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let msg = js_sys::Reflect::get(&e, &JsValue::from_str("message"))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_else(|| "the replay worker failed to load".into());
            on_msg(ReplayMsg::Failed(msg));
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        let msg = js_sys::Object::new();
        set(&msg, "op", &"start".into());
        set(&msg, "js", &js.into());
        set(&msg, "wasm", &wasm.into());
        set(&msg, "query", &query.into());
        set(&msg, "file", file);
        worker
            .post_message(&msg)
            .map_err(|e| format!("cannot talk to the replay worker: {e:?}"))?;
        Ok(ReplayJob {
            worker,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }

    /// Asks for kept wake-up `pos` moved by `step` (see [`replay_get`]); the answer comes
    /// back as [`ReplayMsg::Record`].
    pub fn get(&self, pos: usize, step: i32, preset: usize, only: bool) {
        let msg = js_sys::Object::new();
        set(&msg, "op", &"get".into());
        set(&msg, "pos", &(pos as f64).into());
        set(&msg, "step", &step.into());
        set(&msg, "preset", &(preset as f64).into());
        set(&msg, "only", &only.into());
        let _ = self.worker.post_message(&msg);
    }
}

impl Drop for ReplayJob {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOPO: &str = "llcs=1&llc_weight=8&smt=2&numbering=interleaved&cluster_size=0";
    const TRACE: &[u8] = include_bytes!("../crates/sis-core/testdata/traces/many-threads-head.txt");

    #[test]
    fn chunks_summary_and_wakeups_cross_as_the_core_computed_them() {
        // Fed in pieces that split lines anywhere, as the worker's stream does.
        assert_eq!(replay_open(TOPO), "");
        for piece in TRACE.chunks(7) {
            assert_eq!(replay_feed(piece), "");
        }
        let text = replay_end();
        let s = Summary::parse(&text).unwrap_or_else(|| panic!("{text}"));
        let mut native = Replay::new(ReplayConfig {
            topology: Some(
                Scenario::from_pairs(
                    crate::url::split_query(TOPO)
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str())),
                )
                .unwrap()
                .topology_spec(),
            ),
            keep: usize::MAX,
            ..Default::default()
        })
        .unwrap();
        native.feed_text(TRACE).unwrap();
        let rep = native.end().unwrap();
        assert_eq!(s.presets, native.preset_names());
        for ((_, c), (w, agree)) in rep.classes.0.iter().zip(&s.classes) {
            assert_eq!(c.wakeups, *w);
            assert_eq!(&c.agree.iter().map(|x| x.1).collect::<Vec<_>>(), agree);
        }
        assert_eq!(s.trace[0], rep.trace.events);
        assert_eq!(s.trace[6] as usize, native.records().len());
        assert!(!native.records().is_empty());
        for (i, r) in native.records().iter().enumerate() {
            for p in 0..s.presets.len() {
                let v = WakeView::parse(&replay_get(i as u32, 0, p as u32, false)).unwrap();
                assert_eq!(v.pos, i);
                assert_eq!((v.line, v.kernel, v.prev), (r.line, r.kernel, r.prev));
                assert_eq!(v.chosen, r.chosen);
                assert_eq!(v.decision, native.decision(r, p).unwrap());
            }
        }
        // Stepping with the filter lands only on disagreements of that preset.
        let p = (0..s.presets.len())
            .find(|p| native.records().iter().any(|r| r.disagrees(*p)))
            .expect("some preset disagrees on the small trace");
        let v = WakeView::parse(&replay_get(0, 0, p as u32, true)).unwrap();
        assert_ne!(v.chosen[p], v.kernel);
        assert_eq!(replay_get(u32::MAX, 1, p as u32, true), "");
    }

    #[test]
    fn bad_input_is_an_error_naming_the_line() {
        assert!(replay_open("llc_weight=0").starts_with("error: "));
        assert_eq!(replay_open("llc_weight=2"), "");
        let e = replay_feed(b"<idle>-0 [005] 1.000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n");
        assert!(e.contains("line 1") && e.contains("cpu] column 5"), "{e}");
        assert!(e.contains("read so far"), "{e}");
        assert_eq!(replay_open(""), "");
        let e = replay_feed(b"\x00\x01binary\n");
        assert!(e.contains("binary"), "{e}");
    }
}
