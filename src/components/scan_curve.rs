//! SIS_UTIL's scan-depth curve (`scan-curve` canvas, drawn by `draw::curve`).

use super::tm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScanCurveProps {
    pub canvas: NodeRef,
    pub llc_weight: u32,
    pub imbalance_pct: u32,
    pub sis_util: bool,
    pub sis_prop: bool,
}

#[component]
pub fn ScanCurve(p: &ScanCurveProps) -> Html {
    let throttle = match (p.sis_util, p.sis_prop) {
        (true, false) => "This preset throttles the scan with SIS_UTIL (the blue curve).",
        (true, true) => "SIS_PROP computes nr, then SIS_UTIL overrides it: the curve decides.",
        (false, true) => "This preset throttles with SIS_PROP (orange line): the curve is shown for comparison only.",
        (false, false) => "No SIS_PROP or SIS_UTIL: the scan may visit every CPU of the LLC.",
    };
    html! {
        <section class="panel curve-panel">
            <div class="panel-head">
                <h2>{tm("nr_idle_scan", "Scan depth")}{" vs "}{tm("sum_util", "LLC utilisation")}</h2>
            </div>
            <p class="caption">
                <code>{"nr = llc_weight × (1 − (x · pct/100)²)"}</code>
                {format!(" with llc_weight {}, imbalance_pct {}. ", p.llc_weight, p.imbalance_pct)}
                {throttle}
            </p>
            <canvas ref={p.canvas.clone()} data-testid="scan-curve" class="chart"
                role="img" aria-label="SIS_UTIL nr_idle_scan against LLC utilisation, with the live operating point"></canvas>
        </section>
    }
}
