//! The last decisions (newest first) and, for the selected one, every check in order beside
//! the kernel function it comes from, with the current probe highlighted.

use super::kernel_term;
use crate::runner::{found_idle, passed_idle, scan_end_text, Summary};
use sis_core::kernel::trace::{Decision, Rule};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DecisionLogProps {
    pub decisions: Vec<Summary>,
    /// The decision shown in detail.
    pub detail: Option<Decision>,
    pub selected: Option<u64>,
    /// Steps shown (probe walk); None = all.
    pub probe: Option<usize>,
    /// A decision whose result is hidden (predict mode).
    pub hidden: Option<u64>,
    pub on_select: Callback<u64>,
    /// Decisions up to this seq were made before counting started (the warm-up).
    pub counted_after_seq: u64,
}

/// `s` with its first letter upper-cased (ASCII only: the texts are ASCII, and `char::to_uppercase`
/// would pull ~12 KB of Unicode tables into the wasm).
fn capitalise(s: &str) -> String {
    let mut o = s.to_string();
    if let Some(f) = o.get_mut(..1) {
        f.make_ascii_uppercase();
    }
    o
}

fn fmt_nr(n: Option<i64>) -> String {
    n.map_or("∞".to_string(), |v| v.to_string())
}

#[component]
pub fn DecisionLog(p: &DecisionLogProps) -> Html {
    let detail_seq = p.detail.as_ref().map(|d| d.id.seq);
    // Keep the current check in view while stepping probe by probe (scrolls the table only).
    let wrap = use_node_ref();
    // Whether the table was scrolled: back to the top on the next decision only then (setting
    // scrollTop forces a layout, which while playing would cost every text refresh).
    let scrolled = use_mut_ref(|| false);
    {
        let wrap = wrap.clone();
        use_effect_with((detail_seq, p.probe), move |_| {
            if let Some(w) = wrap.cast::<web_sys::HtmlElement>() {
                if let Ok(Some(row)) = w.query_selector("tr.current") {
                    if let Ok(row) = row.dyn_into::<web_sys::HtmlElement>() {
                        let top = row.offset_top() - w.client_height() / 2;
                        w.set_scroll_top(top.max(0));
                        *scrolled.borrow_mut() = true;
                    }
                } else if scrolled.replace(false) {
                    w.set_scroll_top(0);
                }
            }
        });
    }
    let items = p.decisions.iter().map(|d| {
        let hidden = p.hidden == Some(d.id.seq);
        let sel = detail_seq == Some(d.id.seq);
        let seq = d.id.seq;
        let warm = seq <= p.counted_after_seq;
        let on_select = p.on_select.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_select.emit(seq));
        let result = if hidden {
            html! { <span class="res">{"→ ?"}</span> }
        } else {
            html! { <>
                <span class="res">{format!("→ CPU {}", d.result)}</span>
                <span class="rule">{d.rule}</span>
                <span class="probes">{format!("{} probe{}", d.probes, if d.probes == 1 { "" } else { "s" })}</span>
                { if d.missed > 0 { html!{ <span class="missed">{format!("{} idle missed", d.missed)}</span> } } else { html!{} } }
            </> }
        };
        html! {
            <li data-testid="decision" class={classes!(sel.then_some("selected"), warm.then_some("warm"))} key={d.id.seq.to_string()}
                title={warm.then_some("made in the warm-up: not in the counters")}>
                <button class="row" {onclick} aria-current={sel.then_some("true")}>
                    <span class="seq">{format!("#{}", d.id.seq)}</span>
                    <span class="who">{format!("task {} · W{} P{} T{}", d.id.wakee, d.id.waker_cpu, d.id.prev, d.target)}</span>
                    {result}
                    { if warm { html!{ <span class="warm-tag">{"warm-up"}</span> } } else { html!{} } }
                </button>
            </li>
        }
    });
    let detail = match &p.detail {
        None => html! {
            <p class="empty">{"No decision yet. Press "}<b>{"Step"}</b>{" (or →) to make the next wake-up, or "}<b>{"Play"}</b>{"."}</p>
        },
        Some(d) => detail_view(d, p.probe, p.hidden == Some(d.id.seq), wrap.clone(), None),
    };
    html! {
        <section class="panel log-panel">
            <div class="panel-head">
                <h2>{kernel_term("select_idle_sibling", "Decisions")}</h2>
                <span class="hint">{"newest first · click one to inspect · "}{if p.counted_after_seq == u64::MAX { "still warming up: none counted yet".to_string() } else { format!("counted: after #{}", p.counted_after_seq) }}</span>
            </div>
            <div class="log-grid">
                <ol class="log" data-testid="decision-log">{ for items }</ol>
                // A scroll box when the view is fitted to a frame: keyboard-scrollable.
                <div class="detail" data-testid="decision-detail" tabindex="0" role="region" aria-label="the selected decision's checks">{detail}</div>
            </div>
        </section>
    }
}

/// `number`: what the head calls the wake-up (`#seq` when None; the replay's trace line, so
/// that a wake-up has one number on its page).
pub(crate) fn detail_view(
    d: &Decision,
    probe: Option<usize>,
    hidden: bool,
    wrap: NodeRef,
    number: Option<String>,
) -> Html {
    let head = html! {
        <p class="dhead">
            <b>{number.unwrap_or_else(|| format!("#{}", d.id.seq))}{" "}</b>
            {format!("at {:.3} ms: task {} woken by CPU {}{}; ", d.id.time_ns as f64 / 1e6, d.id.wakee, d.id.waker_cpu, if d.id.sync { " (sync)" } else { "" })}
            {kernel_term("prev", format!("prev {}", d.id.prev))}{", "}
            {kernel_term("target", format!("target {}", d.target))}{", "}
            {kernel_term("recent_used_cpu", format!("recent_used_cpu {}", d.recent_used_cpu.map_or("–".into(), |c| c.to_string())))}{", "}
            {kernel_term("has_idle_cores", format!("has_idle_core {}", d.has_idle_core))}{", "}
            {kernel_term("nr_idle_scan", format!("nr_idle_scan {}", d.nr_idle_scan))}
        </p>
    };
    if hidden {
        return html! { <>
            {head}
            <p class="predict-ask">{"Which CPU will the kernel pick? Click its bar in the CPU view."}</p>
        </> };
    }
    let shown = probe.map_or(d.steps.len(), |p| (p + 1).min(d.steps.len()));
    let cur = probe.map(|p| p.min(d.steps.len().saturating_sub(1)));
    let rows = d.steps.iter().enumerate().map(|(i, s)| {
        let class = classes!(
            (Some(i) == cur).then_some("current"),
            (i >= shown).then_some("future"),
            format!("saw-{}", s.saw.name())
        );
        let nr = if s.rule == Rule::WakeAffine { String::new() } else { s.nr.map_or(String::new(), |v| v.to_string()) };
        html! {
            <tr {class}>
                <td class="n">{i + 1}</td>
                <td><code>{s.rule.name()}</code></td>
                <td class="fn"><code>{s.rule.kernel_function()}</code></td>
                <td class="n">{format!("CPU {}", s.cpu)}</td>
                <td><span class={classes!("saw", s.saw.name().to_string())}>{if i < shown { s.saw.name() } else { "…" }}</span></td>
                <td class="n">{if i < shown { nr } else { String::new() }}</td>
            </tr>
        }
    });
    let done = shown >= d.steps.len();
    let result = if done && d.decided_by == Some(sis_core::kernel::trace::Rule::TtwuRunnable) {
        // No selection ran: the verdict is the wake-up path's, not a scan's.
        html! {
            <p class="dres">
                {"→ "}<b>{format!("CPU {}", d.result)}</b>
                {format!(", decided by ttwu_runnable in ttwu_runnable(). The task was still queued on CPU {} (sched_delayed, inferred from EEVDF's lag), so the wake-up requeued it there and selected no CPU.", d.result)}
            </p>
        }
    } else if done {
        let rule = d.decided_by;
        html! {
            <p class="dres">
                {"→ "}<b>{format!("CPU {}", d.result)}</b>
                {format!(", decided by {} in {}", rule.map_or("-", |r| r.name()), rule.map_or("-", |r| r.kernel_function()))}
                {". "}
                { if d.scan_end.is_some() { html!{ <>{kernel_term("nr", format!("Budget nr {} → {}", fmt_nr(d.nr_before), fmt_nr(d.nr_after)))}{". "}</> } } else { html!{} } }
                {format!("{}. ", capitalise(scan_end_text(d)))}
                { if found_idle(d) { html!{ <span>{"It landed on an idle CPU."}</span> } } else {
                  // A check can see an idle CPU and pass it over (4.4's group walk takes only a
                  // wholly idle core): the verdict names those before the unprobed ones.
                  let seen = passed_idle(d);
                  html!{ <>
                    { if seen.is_empty() { html!{} } else { html!{ <span class="missed">{format!("Idle CPUs seen and passed over: {seen:?}. ")}</span> } } }
                    { if !d.missed_idle.is_empty() { html!{ <span class="missed">{kernel_term("missed_idle", "idle CPUs never probed")}{format!(": {:?}", d.missed_idle)}</span> } }
                      else if seen.is_empty() { html!{ <span>{"No idle CPU was left to find."}</span> } } else { html!{} } }
                  </> } } }
            </p>
        }
    } else {
        html! { <p class="dres pending">{format!("probe {} of {}: press “Step probe” to continue", shown, d.steps.len())}</p> }
    };
    // wake_affine_weight()'s terms, once its step (the first) is shown.
    let affine = match (&d.affine_weight, d.steps.first()) {
        (Some(a), Some(s)) if s.rule == Rule::WakeAffine && shown > 0 => html! {
            <p class="affine">{kernel_term("wake_affine_weight", "wake_affine_weight")}{": "}<code>{a.to_text(d.id.waker_cpu, d.id.prev)}</code></p>
        },
        _ => html! {},
    };
    html! { <>
        {head}
        {affine}
        <div class="steps-wrap" ref={wrap} tabindex="0" role="region" aria-label="checks, in order">
        <table class="steps">
            <thead><tr><th>{"#"}</th><th>{"check"}</th><th>{"kernel function"}</th><th>{"cpu"}</th><th>{"saw"}</th><th>{kernel_term("nr", "nr")}</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
        </div>
        {result}
    </> }
}
