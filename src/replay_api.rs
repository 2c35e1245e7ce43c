//! The Replay tab's handle on its worker and the page's side of the wire. The replay itself
//! runs in `static/replay-worker.js` on its own wasm (`crates/sisviz-replay-worker`, loaded only
//! when a trace is opened, so the page's wasm carries no trace parser or replay): it reads the
//! trace file in chunks, keeps the `Replay` and its kept wake-ups, and answers one wake-up at a
//! time. Texts cross as space-separated numbers ([`Summary::parse`] / [`WakeView::parse`] read
//! what the worker crate writes): no serde code for them.

use sis_core::analysis::replay::CLASSES;
use sis_core::kernel::trace::{Decision, Rule, Saw, ScanEnd, Step};
use wasm_bindgen::prelude::*;

/// The topology fields a trace does not record, as the Replay tab names them.
pub const TOPOLOGY_FIELDS: [&str; 5] = ["llcs", "llc_weight", "smt", "numbering", "cluster_size"];

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
        d.scan_end = n.opt()?.and_then(|i| ScanEnd::ALL.get(i as usize).copied());
        d.decided_by = n.opt()?.and_then(|i| Rule::ALL.get(i as usize).copied());
        for _ in 0..steps {
            let cpu = n.u()?;
            let rule = *Rule::ALL.get(n.n()? as usize)?;
            let saw = *Saw::ALL.get(n.opt()?? as usize)?;
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
    /// Starts a worker replaying `file` on the topology `query` (fields of TOPOLOGY_FIELDS); the
    /// worker loads the replay wasm itself.
    pub fn start(
        file: &web_sys::File,
        query: &str,
        on_msg: impl Fn(ReplayMsg) + 'static,
    ) -> Result<Self, String> {
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
    use sis_core::analysis::replay::{Replay, ReplayConfig};
    use sis_core::Scenario;
    use sisviz_replay_worker::{replay_end, replay_feed, replay_get, replay_open};

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
