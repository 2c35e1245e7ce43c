//! The CPU view: the `cpu-bars` canvas (drawn by the app's animation loop with
//! `draw::cpus`), its legend, and the line that says what the current wake-up is doing.

use super::kernel_term;
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
                    <li><b class="tag waker">{"W"}</b>{kernel_term("waker", "waker")}</li>
                    <li><b class="tag prev">{"P"}</b>{kernel_term("prev", "prev")}</li>
                    <li><b class="tag target">{"T"}</b>{kernel_term("target", "target")}</li>
                    <li><i class="dot"></i>{kernel_term("select_idle_cpu", "probe (what it saw)")}</li>
                    <li><i class="sw chosen"></i>{"chosen"}</li>
                    <li><i class="sw missed"></i>{kernel_term("missed_idle", "idle, never probed")}</li>
                </ul>
            </div>
            <p class="caption">{p.caption.clone()}</p>
            {p.predict.clone()}
            <canvas ref={p.canvas.clone()} data-testid="cpu-bars"
                class={classes!("cpu-bars", p.predicting.then_some("picking"))}
                role="img" aria-label="One bar per CPU: height util_avg, colour idle / sched-idle / busy; the current wake-up drawn over it"
                onclick={p.onclick.clone()}></canvas>
        </section>
    }
}
