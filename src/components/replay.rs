//! The Replay tab: a real kernel trace (file picker or drag-and-drop) replayed through every
//! preset in a Web Worker (`replay_api::ReplayJob`), one progress bar and a cancel button; the
//! agreement table per preset and class; scrub and step through the kept wake-ups (all or
//! only where the selected preset disagrees with the kernel), each with its rebuilt CPUs, the
//! kernel's CPU, the preset's CPU and the preset's checks as the decision log shows them.

use super::decision_log::detail_view;
use crate::replay_api::{ReplayJob, ReplayMsg, Summary, WakeView, TOPOLOGY_FIELDS};
use sis_core::analysis::replay::{BASELINES, CLASSES, HZ_VALUES};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What the guide's replay page (guide/src/replay.md) assumes for the sample: 4 cores x 2 threads, one LLC,
/// x86's interleaved numbering.
const DEFAULTS: [&str; 6] = ["1", "8", "2", "interleaved", "0", "1000"];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReplayRun {
    pub generation: u64,
    pub file: String,
    pub running: bool,
    pub cancelled: bool,
    pub read: f64,
    pub total: f64,
    pub summary: Option<Rc<Summary>>,
    pub ms: f64,
    /// The worker's wasm memory at the end, bytes (its peak).
    pub memory: f64,
    pub error: Option<String>,
    pub view: Option<Rc<WakeView>>,
}

pub enum RunAction {
    Start(u64, String, f64),
    Msg(u64, ReplayMsg),
    Cancel,
}

impl Reducible for ReplayRun {
    type Action = RunAction;
    fn reduce(self: Rc<Self>, a: RunAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            RunAction::Start(generation, file, total) => {
                s = ReplayRun {
                    generation,
                    file,
                    total,
                    running: true,
                    ..Default::default()
                }
            }
            RunAction::Msg(g, _) if g != s.generation || s.cancelled => return self,
            RunAction::Msg(_, m) => match m {
                ReplayMsg::Progress {
                    read,
                    total,
                    memory,
                } => {
                    s.read = read;
                    s.total = total;
                    s.memory = memory;
                }
                ReplayMsg::Done {
                    summary,
                    ms,
                    memory,
                } => {
                    s.running = false;
                    s.ms = ms;
                    s.memory = memory;
                    match Summary::parse(&summary) {
                        Some(x) => s.summary = Some(Rc::new(x)),
                        None => s.error = Some(summary),
                    }
                }
                ReplayMsg::Record(r) => {
                    if let Some(v) = WakeView::parse(&r) {
                        s.view = Some(Rc::new(v));
                    }
                }
                ReplayMsg::Failed(e) => {
                    s.running = false;
                    s.error = Some(e);
                }
            },
            RunAction::Cancel => {
                s.running = false;
                s.cancelled = true;
            }
        }
        Rc::new(s)
    }
}

fn pct(k: u64, n: u64) -> String {
    if n == 0 {
        return "-".into();
    }
    format!("{:.1}% ({k})", k as f64 * 100.0 / n as f64)
}

fn table(s: &Summary) -> Html {
    html! {
        <table class="replay-table" data-testid="replay-table">
            <thead><tr><th>{"agree with the kernel"}</th>
                { for CLASSES.iter().map(|c| html! { <th>{*c}</th> }) }</tr></thead>
            <tbody>
                <tr><th>{"wake-ups"}</th>{ for s.classes.iter().map(|(w, _)| html! { <td>{w}</td> }) }</tr>
                { for s.presets.iter().map(String::as_str).chain(BASELINES).enumerate().map(|(i, p)| html! {
                    <tr data-preset={p.to_string()} class={classes!((i >= s.presets.len()).then_some("baseline"))}>
                        <th title={if i >= s.presets.len() { "A baseline, not a preset: keep prev, or take the waker's CPU" } else { "" }}>{p}</th>
                        { for s.classes.iter().zip(CLASSES).map(|((w, a), c)| html! {
                            <td data-class={c}>{pct(a.get(i).copied().unwrap_or(0), *w)}</td>
                        }) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn cpu_bars(v: &WakeView, preset_cpu: u32) -> Html {
    html! {
        <div class="replay-cpus" data-testid="replay-cpus">
            { for v.cpus.iter().enumerate().map(|(c, (nr, util))| {
                let c = c as u32;
                let class = classes!(
                    "rcpu",
                    if *nr == 0 { "idle" } else { "busy" },
                    (c == v.kernel).then_some("kernel"),
                    (c == preset_cpu).then_some("model"),
                );
                let tags = [(c == v.decision.id.waker_cpu, "W"), (c == v.decision.id.prev, "P"), (c == v.kernel, "K"), (c == preset_cpu, "M")];
                html! {
                    <div {class} data-testid="replay-cpu" title={format!("CPU {c}: nr_running {nr}, util_avg {util}")}>
                        <div class="bar"><div class="fill" style={format!("height:{}%", (*util as u64 * 100 / 1024).min(100))}></div></div>
                        <div class="n">{c}</div>
                        <div class="tags">{ for tags.iter().filter(|t| t.0).map(|t| t.1) }</div>
                    </div>
                }
            }) }
        </div>
    }
}

fn file_of(files: Option<web_sys::FileList>) -> Option<web_sys::File> {
    files?.get(0)
}

#[component]
pub fn ReplayPanel() -> Html {
    let run = use_reducer(ReplayRun::default);
    let job = use_mut_ref(|| None::<ReplayJob>);
    let fields = use_state(|| DEFAULTS.map(String::from));
    let autogroup = use_state(|| false);
    let preset = use_state(|| None::<usize>);
    let only = use_state(|| false);
    {
        let job = job.clone();
        use_effect_with((), move |_| move || drop(job.borrow_mut().take()));
    }
    let start = {
        let (run, job, fields) = (run.clone(), job.clone(), fields.clone());
        let autogroup = autogroup.clone();
        Callback::from(move |file: web_sys::File| {
            drop(job.borrow_mut().take());
            let g = run.generation + 1;
            run.dispatch(RunAction::Start(g, file.name(), file.size()));
            let query = TOPOLOGY_FIELDS
                .iter()
                .zip(fields.iter())
                .map(|(k, v)| format!("{k}={}", crate::url::encode(v)))
                .chain((*autogroup).then(|| "autogroup=1".to_string()))
                .collect::<Vec<_>>()
                .join("&");
            let d = run.dispatcher();
            match ReplayJob::start(&file, &query, move |m| d.dispatch(RunAction::Msg(g, m))) {
                Ok(j) => *job.borrow_mut() = Some(j),
                Err(e) => run.dispatch(RunAction::Msg(g, ReplayMsg::Failed(e))),
            }
        })
    };
    let s = run.summary.clone();
    let preset_i = (*preset)
        .or_else(|| s.as_ref()?.presets.iter().position(|p| p == "linux-4.4"))
        .unwrap_or(0);
    // A finished replay, another preset or the filter: (re)load the current wake-up.
    {
        let job = job.clone();
        let pos = run.view.as_ref().map_or(0, |v| v.pos);
        use_effect_with(
            (run.generation, s.is_some(), preset_i, *only),
            move |(_, done, p, only)| {
                if let (true, Some(j)) = (*done, job.borrow().as_ref()) {
                    j.get(pos, 0, *p, *only);
                }
            },
        );
    }
    let get = {
        let job = job.clone();
        let only = *only;
        move |pos: usize, step: i32| {
            if let Some(j) = job.borrow().as_ref() {
                j.get(pos, step, preset_i, only);
            }
        }
    };
    let pos = run.view.as_ref().map_or(0, |v| v.pos);
    // The timeline keeps its zoom from wake-up to wake-up and centres on each.
    let tl = use_state(super::timeline::View::default);
    {
        let tl = tl.clone();
        use_effect_with(pos, move |_| {
            tl.set(super::timeline::View {
                center_ns: 0,
                ..*tl
            })
        });
    }
    let on_pick = {
        let get = get.clone();
        Callback::from(move |p: usize| get(p, 0))
    };
    let on_window = {
        let tl = tl.clone();
        Callback::from(move |w| tl.set(w))
    };
    let step = |d: i32| {
        let get = get.clone();
        Callback::from(move |_: MouseEvent| get(pos, d))
    };
    let onkeydown = {
        let get = get.clone();
        Callback::from(move |e: KeyboardEvent| {
            let d = match e.key().as_str() {
                "ArrowLeft" => -1,
                "ArrowRight" => 1,
                _ => return,
            };
            // The panel's own → / ←: not the main view's step.
            e.stop_propagation();
            let is_input = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .is_some();
            if !is_input {
                e.prevent_default();
                get(pos, d);
            }
        })
    };
    let on_scrub = {
        let get = get.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                get(t.value().parse().unwrap_or(0), 0);
            }
        })
    };
    let on_file = {
        let start = start.clone();
        Callback::from(move |e: Event| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                if let Some(f) = file_of(t.files()) {
                    // Cleared, so picking the same file again (after Cancel) starts it again.
                    t.set_value("");
                    start.emit(f);
                }
            }
        })
    };
    let ondrop = {
        let start = start.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(f) = file_of(e.data_transfer().and_then(|d| d.files())) {
                start.emit(f);
            }
        })
    };
    let on_cancel = {
        let (run, job) = (run.clone(), job.clone());
        Callback::from(move |_: MouseEvent| {
            drop(job.borrow_mut().take());
            run.dispatch(RunAction::Cancel);
        })
    };
    let inputs = TOPOLOGY_FIELDS.iter().enumerate().map(|(i, k)| {
        let v = fields[i].clone();
        let fields = fields.clone();
        let onchange = Callback::from(move |e: Event| {
            let v = if let Some(t) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                t.value()
            } else if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                t.value()
            } else {
                return;
            };
            let mut f = (*fields).clone();
            f[i] = v;
            fields.set(f);
        });
        let id = format!("replay-{}", k.replace('_', "-"));
        let input = if *k == "numbering" {
            html! { <select data-testid={id} {onchange}>
                { for ["contiguous", "interleaved"].iter().map(|n| html! { <option value={*n} selected={v == *n}>{*n}</option> }) }
            </select> }
        } else if *k == "hz" {
            // The traced kernel's CONFIG_HZ: its jiffies and tick (250 on Debian's kernels).
            html! { <select data-testid={id} {onchange}>
                { for HZ_VALUES.iter().map(|n| { let n = n.to_string(); html! { <option value={n.clone()} selected={v == n}>{n}</option> } }) }
            </select> }
        } else {
            html! { <input type="number" min="0" data-testid={id} value={v} {onchange} /> }
        };
        html! { <label>{*k}{" "}{input}</label> }
    });
    let on_autogroup = {
        let autogroup = autogroup.clone();
        Callback::from(move |_: Event| autogroup.set(!*autogroup))
    };
    // What the worker holds (its wasm memory, which never shrinks: the peak so far); its kept
    // wake-ups and timeline are capped, so it levels off whatever the file's size, which the
    // 100 MB trace's e2e check reads from this line.
    let memory = if run.memory > 0.0 {
        format!("; worker memory {:.0} MB", run.memory / 1e6)
    } else {
        String::new()
    };
    let status = if let Some(e) = &run.error {
        format!("error: {e}")
    } else if run.cancelled {
        "cancelled".into()
    } else if run.running {
        format!(
            "reading {} in a Web Worker: {:.0}%{memory}",
            run.file,
            run.read * 100.0 / run.total.max(1.0)
        )
    } else if let Some(s) = &s {
        let ev = s.trace.events as f64;
        format!(
            "{}: {} sched events, {} wake-ups paired, {} classified in {:.2} s ({:.0} events/s){memory}",
            run.file,
            s.trace.events,
            s.trace.wakeups,
            s.classes[0].0,
            run.ms / 1000.0,
            ev * 1000.0 / run.ms.max(1.0)
        )
    } else {
        String::new()
    };
    let results = s.as_ref().map(|s| {
        let kept = s.trace.kept;
        let first = s.trace.kept_first;
        let on_preset = {
            let preset = preset.clone();
            let names = s.presets.clone();
            Callback::from(move |e: Event| {
                if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                    preset.set(names.iter().position(|p| *p == t.value()));
                }
            })
        };
        let on_only = {
            let only = only.clone();
            Callback::from(move |_: Event| only.set(!*only))
        };
        let view = run.view.as_ref().map(|v| {
            let mine = v.chosen.get(preset_i).copied().unwrap_or(v.kernel);
            html! { <>
                <p class="replay-wakeup" data-testid="replay-wakeup">
                    {format!("Wake-up at trace line {} (t = {} ns): CPU {} wakes pid {}{}, prev CPU {} [{}]. Kernel chose ",
                        v.line, v.decision.id.time_ns, v.decision.id.waker_cpu, v.decision.id.wakee,
                        match (v.decision.id.sync, v.sync_read) { (true, true) => " (sync: WF_SYNC in the trace's wake flags)", (true, false) => " (sync, inferred)", _ => "" }, v.decision.id.prev, CLASSES[v.class])}
                    <b>{"CPU "}<span data-testid="replay-kernel-cpu">{v.kernel}</span></b>
                    {format!(", {} chose ", s.presets.get(preset_i).map_or("", |p| p.as_str()))}
                    <b class={classes!((mine != v.kernel).then_some("differs"))}>{"CPU "}<span data-testid="replay-preset-cpu">{mine}</span></b>
                    {"."}
                </p>
                if !v.kernel_asked.is_empty() {
                    <p class="hint" data-testid="replay-kernel-asked"
                        title="The trace's sis_idle kprobes (init.sh sis_idle=1): each available_idle_cpu(cpu) the kernel's own select path called for this wake-up, in order, and its answer. select_idle_sibling() and select_idle_cpu() are inlined into select_task_rq_fair(), so this is what they looked at.">
                        {format!("The kernel asked available_idle_cpu() about: {}.", kernel_asked_text(&v.kernel_asked))}
                    </p>
                }
                {cpu_bars(v, mine)}
                <p class="legend" data-testid="replay-cpus-legend">
                    {"Bars: each CPU's util_avg as the wake-up saw it (shaded: idle, nothing queued). "}
                    <b>{"W"}</b>{" the waker's CPU, "}<b>{"P"}</b>{" prev, "}<b>{"K"}</b>{" the kernel's choice, "}<b>{"M"}</b>{" the selected preset's."}
                </p>
                <super::timeline::Timeline view={v.clone()} preset_cpu={mine} window={*tl} on_window={on_window.clone()} on_pick={on_pick.clone()} />
                <div class="detail" data-testid="replay-steps">
                if v.task_class == 3 {
                    <p class="hint">{format!(
                        "A wakee bound to CPU {} (a per-CPU kthread, by its comm): select_task_rq() calls no scheduling class's hook when nr_cpus_allowed is 1, so the kernel and every preset wake it there, and select_task_rq_fair keeps nothing from it.",
                        v.decision.result)}</p>
                } else if v.task_class != 0 {
                    <p class="hint">{format!(
                        "A {} wakee: the kernel and every preset place it with {}, not the fair path's checks.",
                        if v.task_class == 1 { "real-time" } else { "deadline" },
                        if v.task_class == 1 { "select_task_rq_rt (stay unless prev runs a task of its priority or above, else find_lowest_rq's lowest-priority CPU)" } else { "select_task_rq_dl (find_later_rq: a CPU with no deadline task)" })}</p>
                } else {
                    {detail_view(&v.decision, None, false, NodeRef::default(), Some(format!("line {}", v.line)))}
                }
                </div>
            </> }
        });
        html! { <>
            {table(s)}
            <p class="hint" data-testid="replay-kept">{format!(
                "Stepping through the first {first} wake-ups and {} later disagreements ({kept} kept in the worker; a whole large trace's states would not fit in memory); the table counts all {} classified wake-ups.",
                kept - first, s.classes[0].0)}</p>
            <div class="replay-nav">
                <label>{"preset "}<select data-testid="replay-preset" onchange={on_preset}>
                    { for s.presets.iter().enumerate().map(|(i, p)| html! { <option value={p.clone()} selected={i == preset_i}>{p}</option> }) }
                </select></label>
                <label><input type="checkbox" data-testid="replay-only" checked={*only} onchange={on_only} />{" disagreements only"}</label>
                <button data-testid="replay-prev" onclick={step(-1)}>{"← prev"}</button>
                <button data-testid="replay-next" onclick={step(1)}>{"next →"}</button>
                <input type="range" data-testid="replay-scrub" aria-label="wake-up" min="0"
                    max={kept.saturating_sub(1).to_string()} value={pos.to_string()} oninput={on_scrub} />
            </div>
            {view.unwrap_or_default()}
        </> }
    });
    html! {
        <div class="replay" data-testid="replay-view" {onkeydown}
            ondragover={Callback::from(|e: DragEvent| e.prevent_default())} {ondrop}>
            <p class="hint" data-testid="replay-note">{"Open a kernel trace (trace file, trace-cmd report or perf script text; .gz read here, .xz only by the CLI). It is read in this browser only: a permalink can't carry the trace, so the URL keeps the rest of the state as before."}</p>
            <div class="replay-topology">{ for inputs }
                <label title="CONFIG_SCHED_AUTOGROUP: take each comm's tasks to share a task group (kernel threads in the root), so linux-4.4's wake_affine weighs loads through effective_load(), as on the sample's Arch 4.4 desktop. Off: every task in the root group.">
                    <input type="checkbox" data-testid="replay-autogroup" checked={*autogroup} onchange={on_autogroup} />{" autogroups (4.4)"}</label></div>
            <div class="replay-drop" data-testid="replay-drop">
                <input type="file" data-testid="replay-file" aria-label="trace file" onchange={on_file} />
                {" or drop a trace file here"}
            </div>
            <div class="sweep-progress">
                <progress data-testid="replay-progress" max={run.total.max(1.0).to_string()} value={run.read.to_string()} aria-label="replay progress"></progress>
                <button data-testid="replay-cancel" disabled={!run.running} onclick={on_cancel}>{"Cancel"}</button>
                <span class={classes!("status", run.error.is_some().then_some("bad"))} data-testid="replay-status">{status}</span>
            </div>
            {results.unwrap_or_default()}
        </div>
    }
}

/// "9 busy, 14 busy, 10 idle": the kernel's own available_idle_cpu() asks, in order.
fn kernel_asked_text(asked: &[(u32, Option<bool>)]) -> String {
    asked
        .iter()
        .map(|(cpu, idle)| {
            let told = match idle {
                Some(true) => "idle",
                Some(false) => "busy",
                None => "no answer",
            };
            format!("CPU {cpu} {told}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_workers_messages_and_a_bad_summary_are_handled() {
        let s = Rc::new(ReplayRun::default()).reduce(RunAction::Start(2, "t.txt".into(), 10.0));
        let s = s.reduce(RunAction::Msg(
            1,
            ReplayMsg::Progress {
                read: 5.0,
                total: 10.0,
                memory: 1.0,
            },
        ));
        assert_eq!(s.read, 0.0, "a cancelled worker's progress is ignored");
        let s = s.reduce(RunAction::Msg(
            2,
            ReplayMsg::Done {
                summary: "presets x".into(),
                ms: 1.0,
                memory: 0.0,
            },
        ));
        assert!(!s.running);
        assert!(s.summary.is_none());
        assert_eq!(s.error.as_deref(), Some("presets x"));
        let s = s.reduce(RunAction::Cancel);
        let s = s.reduce(RunAction::Msg(2, ReplayMsg::Failed("late".into())));
        assert!(s.cancelled);
        assert_eq!(s.error.as_deref(), Some("presets x"));
    }

    #[test]
    fn the_kernels_asks_read_in_order_with_their_answers() {
        assert_eq!(
            kernel_asked_text(&[(9, Some(false)), (14, None), (12, Some(true))]),
            "CPU 9 busy, CPU 14 no answer, CPU 12 idle"
        );
        assert_eq!(kernel_asked_text(&[]), "");
    }
}
