//! Metrics: Chen Yu's schedstat_parse.py percentages as big numbers, nr_idle_scan, sim time,
//! sparklines over recent windows, and the select_idle_cpu time histogram with a readout of
//! the bar under the mouse. The canvases are drawn by the frame loop (`main_view`).

use super::kernel_term;
use crate::draw::plot::ChartMapCell;
use crate::runner::Snapshot;
use sis_core::kernel::stats::ScanHistogram;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    pub snap: Rc<Snapshot>,
    pub hist_canvas: NodeRef,
    /// Where the histogram was drawn (hover).
    pub hist_map: ChartMapCell,
    pub spark_se_eff: NodeRef,
    pub spark_scanned: NodeRef,
}

/// The histogram bucket under x (bucket i is centred on x = i): its label and count.
pub fn bucket_at(buckets: &[u64], x: f64) -> Option<(String, u64)> {
    let i = x.round();
    if i < 0.0 {
        return None;
    }
    let n = *buckets.get(i as usize)?;
    Some((ScanHistogram::label(i as usize), n))
}

pub fn fmt_time(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

/// A metric's text: "–" where its denominator is 0 (a 0/0 is no data, not the metric's
/// default), else the value with `decimals`.
pub fn metric_text(v: f64, denominator: u64, decimals: usize) -> String {
    if denominator == 0 {
        "–".into()
    } else {
        format!("{v:.decimals$}")
    }
}

/// The window the counters, metrics, histogram and sparklines cover, in words.
pub fn window_text(s: &Snapshot) -> String {
    if !s.measuring {
        return format!(
            "Warming up: nothing is counted until {:.0} ms (PELT and nr_idle_scan settle first).",
            s.warmup_ns as f64 / 1e6
        );
    }
    format!(
        "Counted since {:.1} ms, the warm-up's end: the {} wake-ups after #{} ({} of simulated time).",
        s.counted_from_ns as f64 / 1e6,
        s.counters.wakeups,
        s.counted_after_seq,
        fmt_time(s.now_ns.saturating_sub(s.counted_from_ns)),
    )
}

#[component]
pub fn Metrics(p: &MetricsProps) -> Html {
    let s = &p.snap;
    let m = &s.metrics;
    let c = &s.counters;
    let big = |id: &'static str,
               term: &'static str,
               label: &'static str,
               v: f64,
               denominator: u64| {
        html! {
            <div class="metric">
                <div class="metric-label">{kernel_term(term, label)}</div>
                <div class="metric-value"><span data-testid={format!("metric-{id}")}>{metric_text(v, denominator, 3)}</span>{if denominator > 0 { html!{<small>{"%"}</small>} } else { html!{} }}</div>
            </div>
        }
    };
    // One stat of the row: its label, the value's test id, the value.
    let stat = |label: Html, id: Option<&'static str>, value: String| {
        html! {<div class="stat">{label}<b data-testid={id}>{value}</b></div>}
    };
    let se_last = s.sparks.last().map(|x| x.se_eff);
    let sc_last = s.sparks.last().map(|x| x.scanned_per_wakeup);
    let hover = use_state(String::new);
    let on_hist_hover = {
        let (map, hover, hist) = (p.hist_map.clone(), hover.clone(), s.hist.clone());
        Callback::from(move |e: MouseEvent| {
            let at = map
                .get()
                .and_then(|m| m.from_px(e.offset_x(), e.offset_y()))
                .and_then(|(x, _)| bucket_at(&hist, x));
            hover.set(at.map_or(String::new(), |(label, n)| format!("{label} µs: {n} calls")));
        })
    };
    let speed_note = if s.work_ms > 0.0 {
        format!(
            "sim {:.0} µs/ms real · {:.1} ms/frame",
            s.achieved_speed, s.work_ms
        )
    } else {
        String::new()
    };
    html! {
        <section class="panel metrics-panel" data-testid="metrics">
            <div class="panel-head">
                <h2>{"Metrics"}</h2>
                <span class="hint">{speed_note}</span>
            </div>
            <p class="hint window" data-testid="metrics-window">{window_text(s)}</p>
            <div class="metric-grid">
                {big("se_eff", "se_eff", "se_eff", m.se_eff, c.sis_scanned)}
                {big("dom_eff", "dom_eff", "dom_eff", m.dom_eff, c.sis_domain_search)}
                {big("fast_rate", "fast_rate", "fast_rate", m.fast_rate, c.sis_search)}
                {big("success_rate", "success_rate", "success_rate", m.success_rate, c.sis_search)}
            </div>
            <div class="stat-row">
                {stat(kernel_term("nr_idle_scan", "nr_idle_scan"), Some("nr-scan"), s.nr_idle_scan.to_string())}
                {stat(kernel_term("sum_util", "sum_util"), None, format!("{:.1}%", s.util_balance_pct))}
                {stat(kernel_term("has_idle_cores", "has_idle_cores"), None, s.has_idle_cores.to_string())}
                {stat(kernel_term("scanned_per_wakeup", "scanned / wake-up"), Some("scanned-per-wakeup"), metric_text(m.scanned_per_wakeup, c.wakeups, 2))}
                {stat(kernel_term("scan_cpu_pct", "CPU time scanning"), Some("scan-cpu-pct"), if s.measuring { format!("{:.1}%", s.scan_cpu_pct) } else { "–".into() })}
                {stat(kernel_term("migrations", "migrations"), Some("migrations"), s.counters.migrations.to_string())}
                {stat(kernel_term("wakeups", "wake-ups"), Some("wakeups"), s.counters.wakeups.to_string())}
                {stat(html! {<span>{"simulated time"}</span>}, Some("sim-time"), fmt_time(s.now_ns))}
            </div>
            <div class="sparks">
                <figure>
                    <figcaption>{kernel_term("se_eff", "se_eff per 250 ms of play")}{format!(" ({})", se_last.map_or("–".into(), |v| format!("{v:.1}%")))}</figcaption>
                    <canvas ref={p.spark_se_eff.clone()} class="spark" data-testid="spark-se_eff"
                        role="img" aria-label="se_eff over recent windows, 0 to 100%"></canvas>
                </figure>
                <figure>
                    <figcaption>{kernel_term("scanned_per_wakeup", "scanned / wake-up per 250 ms")}{format!(" ({})", sc_last.map_or("–".into(), |v| format!("{v:.2}")))}</figcaption>
                    <canvas ref={p.spark_scanned.clone()} class="spark" data-testid="spark-scanned"
                        role="img" aria-label="runqueues scanned per wake-up over recent windows"></canvas>
                </figure>
            </div>
            <figure class="hist">
                <figcaption>{kernel_term("scan_hist", "time in select_idle_cpu() per call, µs (@usecs)")}
                    {format!(" · {} calls", s.hist.iter().sum::<u64>())}</figcaption>
                <canvas ref={p.hist_canvas.clone()} data-testid="scan-hist" class="chart small"
                    role="img" aria-label="Histogram of time spent in select_idle_cpu per call"
                    onmousemove={on_hist_hover}></canvas>
                <div class="hover-readout" data-testid="hist-hover" aria-live="polite">{(*hover).clone()}</div>
            </figure>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_bucket_readouts() {
        assert_eq!(fmt_time(1_234_567), "1.235 ms");
        // Issue 27: 0/0 read "se_eff 100.000%" beside "wake-ups 0".
        assert_eq!(metric_text(100.0, 0, 3), "–");
        assert_eq!(metric_text(15.8, 19, 3), "15.800");
        let b = [0, 5, 7];
        assert_eq!(bucket_at(&b, 1.2), Some((ScanHistogram::label(1), 5)));
        assert_eq!(bucket_at(&b, -0.7), None);
        assert_eq!(bucket_at(&b, 3.0), None);
    }
}
