//! SIS_UTIL's scan-depth curve (`scan-curve` canvas, drawn by `draw::curve` in the frame
//! loop), with a readout of the curve's value under the mouse.

use super::kernel_term;
use crate::draw::curve::CurveData;
use crate::draw::plot::ChartMapCell;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScanCurveProps {
    pub canvas: NodeRef,
    /// Where the curve was drawn (hover).
    pub map: ChartMapCell,
    pub llc_weight: u32,
    pub imbalance_pct: u32,
    pub sis_util: bool,
    pub sis_prop: bool,
    /// The live operating point, for the text alternative: LLC utilisation at the last
    /// balance (%) and the nr_idle_scan it set.
    pub util_pct: f64,
    pub nr_idle_scan: u32,
    /// The scenario's `nr_expr` ("" for the preset's throttle) and where an edited rule goes
    /// once it parses (the scenario field, applied on change).
    pub nr_expr: AttrValue,
    pub on_nr_expr: Callback<String>,
    /// Sweeps the applied rule against linux-6.0 in the workbench (none in an embed).
    #[prop_or_default]
    pub on_sweep_rule: Option<Callback<()>>,
}

#[component]
pub fn ScanCurve(p: &ScanCurveProps) -> Html {
    let throttle = match (p.sis_util, p.sis_prop) {
        _ if !p.nr_expr.is_empty() => {
            "Your rule (below) replaces the preset's throttle: the orange curve, if it reads only the LLC."
        }
        (true, false) => "This preset throttles the scan with SIS_UTIL (the blue curve).",
        (true, true) => "SIS_PROP computes nr, then SIS_UTIL overrides it: the curve decides.",
        (false, true) => "This preset throttles with SIS_PROP (orange line): the curve is shown for comparison only.",
        (false, false) => "No SIS_PROP or SIS_UTIL: the scan may visit every CPU of the LLC.",
    };
    let hover = use_state(String::new);
    let on_hover = {
        let (map, hover) = (p.map.clone(), hover.clone());
        let curve = CurveData::new(p.llc_weight, p.imbalance_pct);
        Callback::from(move |e: MouseEvent| {
            let at = map
                .get()
                .and_then(|m| m.from_px(e.offset_x(), e.offset_y()));
            let text = at.and_then(|(x, _)| {
                let pct = x.round().clamp(0.0, 100.0);
                let nr = curve.nr_at(pct)?;
                Some(format!(
                    "at {pct:.0}% utilisation SIS_UTIL sets nr_idle_scan = {nr}"
                ))
            });
            hover.set(text.unwrap_or_default());
        })
    };
    let editor = html! { <NrExprEditor value={p.nr_expr.clone()} on_apply={p.on_nr_expr.clone()} on_sweep={p.on_sweep_rule.clone()} /> };
    html! {
        <section class="panel curve-panel">
            <div class="panel-head">
                <h2>{kernel_term("nr_idle_scan", "Scan depth")}{" vs "}{kernel_term("sum_util", "LLC utilisation")}</h2>
            </div>
            <p class="caption">
                <code>{"nr = llc_weight × (1 − (x · pct/100)²)"}</code>
                {format!(" with llc_weight {}, imbalance_pct {}. ", p.llc_weight, p.imbalance_pct)}
                {throttle}
            </p>
            <canvas ref={p.canvas.clone()} data-testid="scan-curve" class="chart"
                role="img" aria-label={format!("SIS_UTIL nr_idle_scan against LLC utilisation. Operating point: {:.0}% utilisation at the last balance, nr_idle_scan {}", p.util_pct, p.nr_idle_scan)}
                onmousemove={on_hover}></canvas>
            <div class="hover-readout" data-testid="curve-hover" aria-live="polite">{(*hover).clone()}</div>
            {editor}
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct NrExprEditorProps {
    pub value: AttrValue,
    pub on_apply: Callback<String>,
    /// Sweeps the applied rule against linux-6.0 (offered once a rule is applied).
    #[prop_or_default]
    pub on_sweep: Option<Callback<()>>,
}

/// What a rule's text means, or where it is wrong: sis-core's own parser, at every keystroke.
fn rule_status(text: &str) -> Result<&'static str, String> {
    if text.trim().is_empty() {
        return Ok("No rule: the preset's own throttle decides.");
    }
    match sis_core::kernel::nr_expr::NrExpr::parse(text) {
        Ok(r) if r.per_wakeup() => Ok("A per-wake-up rule (it reads the waker's CPU), evaluated at each scan as SIS_PROP is: no curve to draw."),
        Ok(_) => Ok("An LLC-wide rule, evaluated where SIS_UTIL's update_idle_cpu_scan runs: the orange curve."),
        Err(e) => Err(e.to_string()),
    }
}

/// A scan-depth rule of the reader's own (`nr_expr`): checked as it is typed, applied on
/// Enter or when the field loses focus, and only when it parses.
#[component]
pub fn NrExprEditor(p: &NrExprEditorProps) -> Html {
    let text = use_state(|| p.value.to_string());
    {
        // A rule set elsewhere (URL, Back, Reset) shows here.
        let text = text.clone();
        use_effect_with(p.value.clone(), move |v| text.set(v.to_string()));
    }
    let status = rule_status(&text);
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            text.set(el.value());
        })
    };
    let onchange = {
        let on_apply = p.on_apply.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            let v = el.value();
            if rule_status(&v).is_ok() {
                on_apply.emit(v.trim().to_string());
            }
        })
    };
    let sis_util = sis_core::kernel::nr_expr::SIS_UTIL_RULE;
    let (msg, class) = match &status {
        Ok(m) => (m.to_string(), "hint"),
        Err(e) => (format!("Not applied: {e}"), "hint bad"),
    };
    html! {
        <div class="nr-expr">
            <label for="nr-expr-input">{"Your own scan-depth rule ("}{kernel_term("nr_idle_scan", "nr_expr")}{")"}</label>
            <input id="nr-expr-input" type="text" data-testid="nr-expr" spellcheck="false"
                value={(*text).clone()} {oninput} {onchange}
                placeholder={format!("e.g. SIS_UTIL: {sis_util}")}
                aria-invalid={status.is_err().to_string()} aria-describedby="nr-expr-status" />
            <p id="nr-expr-status" class={class} data-testid="nr-expr-status" aria-live="polite">{msg}</p>
            if let Some(cb) = p.on_sweep.clone().filter(|_| !p.value.is_empty()) {
                <button data-testid="nr-expr-sweep" onclick={cb.reform(|_: MouseEvent| ())}>
                    {"Sweep your rule against linux-6.0 (seed 000's netperf) ↓"}</button>
            }
        </div>
    }
}
