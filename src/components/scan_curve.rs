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
}

#[component]
pub fn ScanCurve(p: &ScanCurveProps) -> Html {
    let throttle = match (p.sis_util, p.sis_prop) {
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
        </section>
    }
}
