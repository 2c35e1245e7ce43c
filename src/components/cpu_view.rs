//! The CPU view: the `cpu-bars` canvas (drawn by the app's animation loop with
//! `draw::cpus`), its legend, and the line that says what the current wake-up is doing.

use super::kernel_term;
use crate::runner::Snapshot;
use crate::state::UiState;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CpuViewProps {
    pub canvas: NodeRef,
    pub onclick: Callback<MouseEvent>,
    /// What the current wake-up is doing, in one line.
    pub caption: Html,
    /// Predict mode prompt / verdict.
    #[prop_or_default]
    pub predict: Html,
    pub predicting: bool,
    /// The canvas's text alternative: what it shows now (the current decision, in words).
    pub label: AttrValue,
}

#[component]
pub fn CpuView(p: &CpuViewProps) -> Html {
    html! {
        <section class="panel cpu-panel">
            <div class="panel-head">
                <h2>{"CPUs"}</h2>
                <ul class="legend">
                    <li><i class="sw idle"></i>{"idle"}</li>
                    <li><i class="sw sched-idle"></i>{"sched-idle"}</li>
                    <li><i class="sw busy"></i>{"busy"}</li>
                    <li title="bar height">{kernel_term("util_avg", "height = util_avg")}</li>
                    <li title="runnable tasks waiting behind the running one"><i class="sw queue"></i>{"queued task"}</li>
                    <li><i class="sw scanning"></i>{kernel_term("scanning", "scanning")}</li>
                    <li><i class="sw lock-wait"></i>{kernel_term("lock_wait", "rq lock spin")}</li>
                    <li><i class="sw idle-exit"></i>{kernel_term("idle_exit", "leaving idle")}</li>
                    <li><b class="tag waker">{"W"}</b>{kernel_term("waker", "waker")}</li>
                    <li><b class="tag prev">{"P"}</b>{kernel_term("prev", "prev")}</li>
                    <li><b class="tag target">{"T"}</b>{kernel_term("target", "target")}</li>
                    <li><i class="dot"></i>{kernel_term("select_idle_cpu", "probe (what it saw)")}</li>
                    <li><i class="sw chosen"></i>{"chosen"}</li>
                    <li><i class="sw missed"></i>{kernel_term("missed_idle", "idle, never probed")}</li>
                </ul>
            </div>
            <p class="caption" data-testid="cpu-caption">{p.caption.clone()}</p>
            {p.predict.clone()}
            <canvas ref={p.canvas.clone()} data-testid="cpu-bars"
                class={classes!("cpu-bars", p.predicting.then_some("picking"))}
                role="img" aria-label={p.label.clone()}
                onclick={p.onclick.clone()}></canvas>
        </section>
    }
}

/// The line under the CPU legend: what the shown wake-up is doing.
pub fn caption(
    snap: &Snapshot,
    d: Option<&sis_core::kernel::trace::Decision>,
    state: &UiState,
) -> Html {
    let Some(d) = d else {
        return html! { <>{format!("{} CPUs. Press ", snap.nr_cpus)}<b>{"Play"}</b>{" to run, or "}<b>{"Step"}</b>{" for one wake-up."}</> };
    };
    if state.playing {
        return html! { <>{format!("Playing · {} {}", d.who(), d.outcome())}</> };
    }
    if state.hidden == Some(d.id.seq) {
        return html! { <>{format!("{} (W, P and T on the bars). Where does it go?", d.who())}</> };
    }
    let shown = state
        .probe
        .map_or(d.steps.len(), |p| (p + 1).min(d.steps.len()));
    if shown < d.steps.len() {
        let s = d.steps[shown.saturating_sub(1)];
        return html! { <>{format!("Wake-up #{}, check {} of {}: {} looks at CPU {} and sees {}{}", d.id.seq, shown, d.steps.len(), s.rule.kernel_function(), s.cpu, s.saw.name(), s.nr.map_or(String::new(), |n| format!("; budget left nr = {n}")))}</> };
    }
    html! { <>{format!(
        "{} {}{}",
        d.who(), d.outcome(),
        if d.missed_idle.is_empty() || crate::runner::found_idle(d) { String::new() } else { format!("; {} idle CPU(s) never probed", d.missed_idle.len()) }
    )}</> }
}

/// Predict mode's prompt, score and verdict.
pub fn predict_box(state: &UiState) -> Html {
    if !state.predict {
        return html! {};
    }
    let score = format!("score {}/{}", state.score.right, state.score.guesses);
    let body = match (&state.verdict, state.hidden) {
        (_, Some(_)) => {
            html! { <span>{"Click the CPU you think select_idle_sibling() will pick."}</span> }
        }
        (Some(v), None) => {
            html! { <span class={if v.right { "right" } else { "wrong" }}>{v.text.clone()}</span> }
        }
        (None, None) => {
            html! { <span>{"Press Step: the next wake-up is shown without its result."}</span> }
        }
    };
    html! { <div class="predict-box" data-testid="predict-box" aria-live="polite"><b>{"Predict · "}{score}</b>{" "}{body}</div> }
}

/// The CPU canvas's text alternative: the machine and the shown decision in one sentence
/// (without its result while predict mode hides it).
pub fn label(
    snap: &Snapshot,
    d: Option<&sis_core::kernel::trace::Decision>,
    state: &UiState,
) -> String {
    let bars = format!(
        "One bar per CPU ({} CPUs): height util_avg, colour idle / sched-idle / busy.",
        snap.nr_cpus
    );
    let Some(d) = d else {
        return format!("{bars} No wake-up shown yet.");
    };
    let who = d.who();
    if state.hidden == Some(d.id.seq) {
        return format!("{bars} {who}; where does it go?");
    }
    format!(
        "{bars} {who} {}; {}.",
        d.outcome(),
        crate::runner::scan_end_text(d)
    )
}
