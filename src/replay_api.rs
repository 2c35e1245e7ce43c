//! The Replay tab's handle on its worker and the page's side of the wire. The replay itself
//! runs in `static/replay-worker.js` on its own wasm (`crates/sisviz-replay-worker`, loaded only
//! when a trace is opened, so the page's wasm carries no trace parser or replay): it reads the
//! trace file in chunks, keeps the `Replay` and its kept wake-ups, and answers one wake-up at a
//! time. Texts cross as space-separated numbers ([`Summary::parse`] / [`WakeView::parse`] read
//! what the worker crate writes): no serde code for them.

use sis_core::analysis::replay::CLASSES;
use sis_core::kernel::trace::{AffineWeight, Decision, Rule, Saw, ScanEnd, Step, WakeupId};
use wasm_bindgen::prelude::*;

/// The machine's fields a trace does not record, as the Replay tab names them: the topology
/// and the traced kernel's CONFIG_HZ.
pub const TOPOLOGY_FIELDS: [&str; 6] = [
    "llcs",
    "llc_weight",
    "smt",
    "numbering",
    "cluster_size",
    "hz",
];

/// A line of space-separated `name=value` fields, read by name.
struct Fields<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Fields<'a> {
    fn new(line: &'a str) -> Self {
        Fields(
            line.split_ascii_whitespace()
                .filter_map(|t| t.split_once('='))
                .collect(),
        )
    }
    fn text(&self, name: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
    }
    fn n<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        self.text(name)?.parse().ok()
    }
    /// `-` is none.
    fn opt<T: std::str::FromStr>(&self, name: &str) -> Option<Option<T>> {
        opt(self.text(name)?)
    }
    /// A comma-separated list ("" is empty).
    fn list<T: std::str::FromStr>(&self, name: &str) -> Option<Vec<T>> {
        let t = self.text(name)?;
        t.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| x.parse().ok())
            .collect()
    }
}

/// wake_affine_weight()'s terms as the worker writes them (`affine=`, colon-separated).
fn affine_weight(t: &str) -> Option<AffineWeight> {
    let v: Vec<&str> = t.split(':').collect();
    let [this_load, prev_load, task_load, current_load, this_pct, prev_pct, this_eff_load, prev_eff_load, waker_heavier, this_wins] =
        v[..]
    else {
        return None;
    };
    let n = |x: &str| x.parse::<i64>().ok();
    Some(AffineWeight {
        this_load: n(this_load)?,
        prev_load: n(prev_load)?,
        task_load: n(task_load)?,
        current_load: opt(current_load)?,
        this_pct: n(this_pct)?,
        prev_pct: n(prev_pct)?,
        this_eff_load: n(this_eff_load)?,
        prev_eff_load: n(prev_eff_load)?,
        waker_heavier: waker_heavier == "1",
        this_wins: this_wins == "1",
    })
}

fn opt<T: std::str::FromStr>(t: &str) -> Option<Option<T>> {
    if t == "-" {
        Some(None)
    } else {
        t.parse().ok().map(Some)
    }
}

fn by_name<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, t: &str) -> Option<T> {
    all.iter().copied().find(|x| name(*x) == t)
}

/// One kept wake-up as the page shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WakeView {
    /// Its place among the kept wake-ups.
    pub pos: usize,
    pub index: u64,
    pub line: u64,
    pub kernel: u32,
    /// Index into CLASSES.
    pub class: usize,
    pub chosen: Vec<u32>,
    /// (nr_running, util_avg) per CPU.
    pub cpus: Vec<(u32, u32)>,
    pub decision: Decision,
    /// What placed the wakee: 0 the fair path, 1 real-time, 2 deadline (its own class), 3 its
    /// one allowed CPU (a per-CPU kthread: no class hook).
    pub task_class: u8,
    /// The wake-up's WF_SYNC came from the trace's wake flags (sis_select), not the inference.
    pub sync_read: bool,
    /// What the kernel's own path asked available_idle_cpu() about and its answers (the
    /// trace's sis_idle kprobes; empty without them).
    pub kernel_asked: Vec<(u32, Option<bool>)>,
    /// What ran around it: (cpu, start, end, pid), ns relative to the wake-up.
    pub spans: Vec<(u32, i64, i64, u32)>,
    /// The other kept wake-ups in that window: (pos, trace line, time relative to this one,
    /// kernel's CPU).
    pub marks: Vec<(usize, u64, i64, u32)>,
    /// Runs the worker's timeline no longer kept (its bound).
    pub spans_dropped: u64,
}

impl WakeView {
    pub fn parse(text: &str) -> Option<WakeView> {
        let f = Fields::new(text);
        let mut v = WakeView {
            pos: f.n("pos")?,
            index: f.n("index")?,
            line: f.n("line")?,
            kernel: f.n("kernel")?,
            class: f.n::<usize>("class")?.min(CLASSES.len() - 1),
            chosen: f.list("chosen")?,
            ..Default::default()
        };
        for c in f.text("cpus")?.split(',').filter(|x| !x.is_empty()) {
            let (nr, util) = c.split_once(':')?;
            v.cpus.push((nr.parse().ok()?, util.parse().ok()?));
        }
        let d = &mut v.decision;
        // Which wake-up: the decision's id, as the worker's record has it (sync 1 inferred, 2
        // read from the trace's wake flags).
        let sync = f.n::<u8>("sync")?;
        d.id = WakeupId {
            seq: f.n("seq")?,
            time_ns: f.n("time_ns")?,
            waker_cpu: f.n("waker_cpu")?,
            wakee: f.n("wakee")?,
            sync: sync != 0,
            prev: f.n("prev")?,
        };
        v.sync_read = sync == 2;
        d.target = f.n("target")?;
        d.has_idle_core = f.n::<u8>("has_idle_core")? != 0;
        d.nr_idle_scan = f.n("nr_idle_scan")?;
        d.result = f.n("result")?;
        d.recent_used_cpu = f.opt("recent_used_cpu")?;
        d.nr_before = f.opt("nr_before")?;
        d.nr_after = f.opt("nr_after")?;
        d.scan_end = match f.text("scan_end")? {
            "-" => None,
            t => Some(by_name(&ScanEnd::ALL, ScanEnd::name, t)?),
        };
        d.decided_by = match f.text("decided_by")? {
            "-" => None,
            t => Some(by_name(&Rule::ALL, Rule::name, t)?),
        };
        for s in f.text("steps")?.split(',').filter(|x| !x.is_empty()) {
            let mut parts = s.split(':');
            let (rule, cpu, saw, nr) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            d.steps.push(Step {
                rule: by_name(&Rule::ALL, Rule::name, rule)?,
                cpu: cpu.parse().ok()?,
                saw: by_name(&Saw::ALL, Saw::name, saw)?,
                nr: opt(nr)?,
            });
        }
        d.missed_idle = f.list("missed_idle")?;
        d.affine_weight = match f.text("affine").unwrap_or("-") {
            "-" => None,
            t => Some(affine_weight(t)?),
        };
        v.task_class = f.n("task_class").unwrap_or(0);
        for a in f
            .text("kernel_asked")
            .unwrap_or("")
            .split(',')
            .filter(|x| !x.is_empty())
        {
            let (cpu, idle) = a.split_once(':')?;
            let idle = match idle {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            };
            v.kernel_asked.push((cpu.parse().ok()?, idle));
        }
        for s in f
            .text("spans")
            .unwrap_or("")
            .split(',')
            .filter(|x| !x.is_empty())
        {
            let p: Vec<&str> = s.split(':').collect();
            let [cpu, a, b, pid] = p[..] else { return None };
            v.spans.push((
                cpu.parse().ok()?,
                a.parse().ok()?,
                b.parse().ok()?,
                pid.parse().ok()?,
            ));
        }
        for s in f
            .text("marks")
            .unwrap_or("")
            .split(',')
            .filter(|x| !x.is_empty())
        {
            let p: Vec<&str> = s.split(':').collect();
            let [pos, line, t, cpu] = p[..] else {
                return None;
            };
            v.marks.push((
                pos.parse().ok()?,
                line.parse().ok()?,
                t.parse().ok()?,
                cpu.parse().ok()?,
            ));
        }
        v.spans_dropped = f.n("dropped").unwrap_or(0);
        Some(v)
    }
}

/// The replay's table and counts as the page shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub presets: Vec<String>,
    /// Per class (CLASSES order): wake-ups and the agreeing wake-ups of each preset, then of
    /// each baseline (BASELINES order).
    pub classes: Vec<(u64, Vec<u64>)>,
    pub trace: TraceSummary,
}

/// The trace's counts, as the worker names them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceSummary {
    pub events: u64,
    pub wakeups: u64,
    pub cpus: u64,
    pub skipped_lines: u64,
    pub incomplete: u64,
    pub on_rq: u64,
    /// Wake-ups kept for stepping, of which the first `kept_first` of the trace (the rest
    /// are later disagreements).
    pub kept: u64,
    pub kept_first: u64,
}

impl Summary {
    pub fn parse(text: &str) -> Option<Summary> {
        let mut lines = text.lines();
        let presets = Fields::new(lines.next()?).text("presets")?;
        let mut s = Summary {
            presets: presets
                .split(',')
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect(),
            ..Default::default()
        };
        for class in CLASSES {
            let f = Fields::new(lines.next()?);
            if f.text("class")? != class {
                return None;
            }
            let agree: Vec<u64> = f.list("agree")?;
            if agree.len() != s.presets.len() + sis_core::analysis::replay::BASELINES.len() {
                return None;
            }
            s.classes.push((f.n("wakeups")?, agree));
        }
        let f = Fields::new(lines.next()?.strip_prefix("trace ")?);
        s.trace = TraceSummary {
            events: f.n("events")?,
            wakeups: f.n("wakeups")?,
            cpus: f.n("cpus")?,
            skipped_lines: f.n("skipped_lines")?,
            incomplete: f.n("incomplete")?,
            on_rq: f.n("on_rq")?,
            kept: f.n("kept")?,
            kept_first: f.n("kept_first")?,
        };
        Some(s)
    }
}

/// A message from the replay worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayMsg {
    /// Bytes of the file read so far, of `total`, and the worker's wasm memory, bytes.
    Progress {
        read: f64,
        total: f64,
        memory: f64,
    },
    /// The replay ended: [`Summary::parse`]'s text, the real time it took, ms, and the
    /// worker's wasm memory, bytes (its peak: linear memory never shrinks; 0 if not sent).
    Done {
        summary: String,
        ms: f64,
        memory: f64,
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
                        memory: num("memory"),
                    }
                } else if let Some(r) = text("record") {
                    ReplayMsg::Record(r)
                } else {
                    ReplayMsg::Progress {
                        read: num("progress"),
                        total: num("total"),
                        memory: num("memory"),
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

    /// TOPO as the core's topology, through the scenario's fields as the worker reads it.
    fn topo() -> sis_core::kernel::topology::TopologySpec {
        let pairs = crate::url::split_query(TOPO);
        Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .unwrap()
            .topology_spec()
    }
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
            topology: Some(topo()),
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
        assert_eq!(s.trace.events, rep.trace.events);
        assert_eq!(s.trace.kept as usize, native.records().len());
        assert!(!native.records().is_empty());
        for (i, r) in native.records().iter().enumerate() {
            for p in 0..s.presets.len() {
                let v = WakeView::parse(&replay_get(i as u32, 0, p as u32, false)).unwrap();
                assert_eq!(v.pos, i);
                assert_eq!(
                    (v.line, v.kernel, v.decision.id.prev),
                    (r.line, r.kernel, r.id.prev)
                );
                assert_eq!(v.chosen, r.chosen);
                assert_eq!(v.decision, native.decision(r, p).unwrap());
            }
        }
        // The timeline around each kept wake-up: per CPU, runs in order that do not overlap,
        // within the window; the wakee's first run after its wake-up is on the kernel's CPU.
        let (mut first_on_kernel, mut seen) = (0, 0);
        for i in 0..native.records().len() {
            let v = WakeView::parse(&replay_get(i as u32, 0, 0, false)).unwrap();
            assert!(!v.spans.is_empty(), "wake-up {i} has a timeline");
            for cpu in 0..v.cpus.len() as u32 {
                let runs: Vec<_> = v.spans.iter().filter(|s| s.0 == cpu).collect();
                for w in runs.windows(2) {
                    assert!(
                        w[0].2 <= w[1].1,
                        "CPU {cpu}: {:?} overlaps {:?}",
                        w[0],
                        w[1]
                    );
                }
                for s in runs {
                    assert!(s.1 <= s.2 && s.2 > -5_000_000 && s.1 < 5_000_000, "{s:?}");
                }
            }
            if let Some(run) = v
                .spans
                .iter()
                .filter(|s| s.3 == v.decision.id.wakee && s.1 >= 0)
                .min_by_key(|s| s.1)
            {
                seen += 1;
                first_on_kernel += usize::from(run.0 == v.kernel);
            }
            for m in &v.marks {
                assert_ne!(m.0, i);
                assert_eq!(
                    m.1,
                    native.records()[m.0].line,
                    "a tick names its trace line"
                );
                assert!(m.2.abs() < 5_000_000);
            }
        }
        assert!(
            seen > 10 && first_on_kernel * 100 >= seen * 95,
            "{first_on_kernel} of {seen}"
        );
        // Stepping with the filter lands only on disagreements of that preset.
        let p = (0..s.presets.len())
            .find(|p| native.records().iter().any(|r| r.disagrees(*p)))
            .expect("some preset disagrees on the small trace");
        let v = WakeView::parse(&replay_get(0, 0, p as u32, true)).unwrap();
        assert_ne!(v.chosen[p], v.kernel);
        assert_eq!(replay_get(u32::MAX, 1, p as u32, true), "");
    }

    /// wake_affine_weight()'s terms cross too: x on CPU0 wakes b (last on CPU1, busy) and
    /// blocks 300 us later, not sync, so wake_affine_weight() weighs the two CPUs.
    #[test]
    fn wake_affine_weights_terms_cross_as_the_core_computed_them() {
        let trace = "# tracer: nop\n#\n# entries-in-buffer/entries-written: 5/5   #P:2\n\
          <idle>-0     [000] 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=100 next_prio=120\n\
          <idle>-0     [001] 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=y next_pid=7 next_prio=120\n\
               x-100   [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n\
               x-100   [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000\n\
               x-100   [000] 10.000400: sched_switch: prev_comm=x prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=b next_pid=200 next_prio=120\n";
        let topo_q = "llcs=1&llc_weight=2&smt=1&numbering=contiguous&cluster_size=0";
        assert_eq!(replay_open(topo_q), "");
        assert_eq!(replay_feed(trace.as_bytes()), "");
        Summary::parse(&replay_end()).unwrap();
        let mut native = Replay::new(ReplayConfig {
            topology: Some(sis_core::kernel::topology::TopologySpec {
                llc_weight: 2,
                smt: 1,
                numbering: sis_core::kernel::topology::Numbering::Contiguous,
                ..topo()
            }),
            keep: usize::MAX,
            ..Default::default()
        })
        .unwrap();
        native.feed_text(trace.as_bytes()).unwrap();
        native.end().unwrap();
        let r = &native.records()[0];
        let p = native
            .preset_names()
            .iter()
            .position(|n| *n == "linux-6.0")
            .unwrap();
        let d = native.decision(r, p).unwrap();
        assert!(d.affine_weight.is_some_and(|a| !a.this_wins), "{d:?}");
        assert_eq!(
            WakeView::parse(&replay_get(0, 0, p as u32, false))
                .unwrap()
                .decision,
            d
        );
    }

    #[test]
    fn autogroup_in_the_query_is_the_cores_autogroup() {
        let e = replay_open(&format!("{TOPO}&autogroup=2"));
        assert!(e.starts_with("error: autogroup: '2'"), "{e}");
        let agree = |autogroup: bool| {
            let flag = if autogroup { "1" } else { "0" };
            assert_eq!(replay_open(&format!("{TOPO}&autogroup={flag}")), "");
            assert_eq!(replay_feed(TRACE), "");
            let s = Summary::parse(&replay_end()).unwrap();
            let mut native = Replay::new(ReplayConfig {
                topology: Some(topo()),
                autogroup,
                ..Default::default()
            })
            .unwrap();
            native.feed_text(TRACE).unwrap();
            let rep = native.end().unwrap();
            let all = rep.classes.0[0]
                .1
                .agree
                .iter()
                .map(|x| x.1)
                .collect::<Vec<_>>();
            assert_eq!(s.classes[0].1, all);
            (all, rep.notes.autogroup)
        };
        let (root, off) = agree(false);
        let (groups, on) = agree(true);
        assert!(!off && on);
        // Only linux-4.4 reads the groups.
        let i = Replay::new(ReplayConfig::default())
            .unwrap()
            .preset_names()
            .iter()
            .position(|p| *p == "linux-4.4")
            .unwrap();
        for (k, (a, b)) in root.iter().zip(&groups).enumerate() {
            if k != i {
                assert_eq!(a, b, "preset {k}");
            }
        }
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

    /// A wake-up whose WF_SYNC the trace's sis_select kprobe recorded crosses as read (sync=2),
    /// one without as inferred (sync=1 or 0).
    #[test]
    fn a_wake_flag_read_from_the_trace_crosses_as_read() {
        let mut t =
            String::from("# tracer: nop\n#\n# entries-in-buffer/entries-written: 20/20   #P:8\n");
        for cpu in 0..8 {
            t.push_str(&format!(
                "  <idle>-0 [00{cpu}] 10.00000{cpu}: sched_switch: prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t{cpu} next_pid={} next_prio=120\n",
                100 + cpu
            ));
        }
        t.push_str(
            "  t0-100 [000] 10.000100: sched_waking: comm=b pid=200 prio=120 target_cpu=001\n",
        );
        t.push_str("  t0-100 [000] 10.000100: sis_select: (select_task_rq_fair+0x0/0x1840) prev_cpu=1 wake_flags=0x18\n");
        t.push_str("  t0-100 [000] 10.000100: sis_idle: (available_idle_cpu+0x4/0x60) cpu=0\n");
        t.push_str("  t0-100 [000] 10.000100: sis_idle_ret: (select_task_rq_fair+0x34a/0x17d0 <- available_idle_cpu) ret=0\n");
        t.push_str("  t0-100 [000] 10.000100: sis_idle: (available_idle_cpu+0x4/0x60) cpu=1\n");
        t.push_str("  t0-100 [000] 10.000100: sis_idle_ret: (select_task_rq_fair+0x34a/0x17d0 <- available_idle_cpu) ret=1\n");
        t.push_str(
            "  t0-100 [000] 10.000101: sched_wakeup: comm=b pid=200 prio=120 target_cpu=000\n",
        );
        t.push_str("  t0-100 [000] 10.000200: sched_switch: prev_comm=t0 prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=b next_pid=200 next_prio=120\n");
        assert_eq!(replay_open(TOPO), "");
        assert_eq!(replay_feed(t.as_bytes()), "");
        let s = Summary::parse(&replay_end()).unwrap();
        assert_eq!(s.trace.kept, 1);
        let v = WakeView::parse(&replay_get(0, 0, 0, false)).unwrap();
        assert!(v.decision.id.sync && v.sync_read);
        // The kernel's own asks (sis_idle kprobes) cross as the core kept them.
        assert_eq!(v.kernel_asked, [(0, Some(false)), (1, Some(true))]);
        // With a fork's flags (no WF_TTWU: ignored) it is inferred: the waker was preempted,
        // not blocked, so not sync.
        let t = t.replace("wake_flags=0x18", "wake_flags=0x4");
        assert_eq!(replay_open(TOPO), "");
        assert_eq!(replay_feed(t.as_bytes()), "");
        Summary::parse(&replay_end()).unwrap();
        let v = WakeView::parse(&replay_get(0, 0, 0, false)).unwrap();
        assert!(!v.decision.id.sync && !v.sync_read);
    }
}
