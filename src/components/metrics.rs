//! Metrics: Chen Yu's schedstat_parse.py percentages as big numbers, nr_idle_scan, sim time,
//! sparklines over recent windows, and the select_idle_cpu time histogram canvas.

use super::tm;
use crate::runner::Snapshot;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    pub snap: Rc<Snapshot>,
    pub hist_canvas: NodeRef,
}

/// An SVG polyline of `vals` scaled into 0..max (or their own max).
pub fn spark_points(vals: &[f64], max: Option<f64>) -> String {
    if vals.is_empty() {
        return String::new();
    }
    let hi = max
        .unwrap_or_else(|| vals.iter().copied().fold(0.0, f64::max))
        .max(1e-9);
    let n = vals.len().max(2) - 1;
    vals.iter()
        .enumerate()
        .map(|(i, v)| {
            let x = i as f64 * 100.0 / n as f64;
            let y = 30.0 - (v / hi).clamp(0.0, 1.0) * 28.0 - 1.0;
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn fmt_time(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

#[component]
pub fn Metrics(p: &MetricsProps) -> Html {
    let s = &p.snap;
    let m = &s.metrics;
    let big = |id: &'static str, term: &'static str, label: &'static str, v: f64| {
        html! {
            <div class="metric">
                <div class="metric-label">{tm(term, label)}</div>
                <div class="metric-value"><span data-testid={format!("metric-{id}")}>{format!("{v:.3}")}</span><small>{"%"}</small></div>
            </div>
        }
    };
    let se: Vec<f64> = s.sparks.iter().map(|x| x.0).collect();
    let sc: Vec<f64> = s.sparks.iter().map(|x| x.1).collect();
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
            { if s.now_ns < s.warmup_ns { html!{ <p class="hint warm">{format!("Counting starts after the {:.0} ms warm-up.", s.warmup_ns as f64 / 1e6)}</p> } } else { html!{} } }
            <div class="metric-grid">
                {big("se_eff", "se_eff", "se_eff", m.se_eff)}
                {big("dom_eff", "dom_eff", "dom_eff", m.dom_eff)}
                {big("fast_rate", "fast_rate", "fast_rate", m.fast_rate)}
                {big("success_rate", "success_rate", "success_rate", m.success_rate)}
            </div>
            <div class="stat-row">
                <div class="stat">{tm("nr_idle_scan", "nr_idle_scan")}<b data-testid="nr-scan">{s.nr_idle_scan}</b></div>
                <div class="stat">{tm("sum_util", "sum_util")}<b>{format!("{:.1}%", s.util_balance_pct)}</b></div>
                <div class="stat">{tm("has_idle_cores", "has_idle_cores")}<b>{s.has_idle_cores.to_string()}</b></div>
                <div class="stat">{tm("scanned_per_wakeup", "scanned / wake-up")}<b data-testid="scanned-per-wakeup">{format!("{:.2}", m.scanned_per_wakeup)}</b></div>
                <div class="stat">{tm("migrations", "migrations")}<b data-testid="migrations">{s.counters.migrations}</b></div>
                <div class="stat">{tm("wakeups", "wake-ups")}<b data-testid="wakeups">{s.counters.wakeups}</b></div>
                <div class="stat"><span>{"simulated time"}</span><b data-testid="sim-time">{fmt_time(s.now_ns)}</b></div>
            </div>
            <div class="sparks">
                <figure>
                    <figcaption>{tm("se_eff", "se_eff over time")}{format!(" ({})", se.last().map_or("–".into(), |v| format!("{v:.1}%")))}</figcaption>
                    <svg viewBox="0 0 100 30" preserveAspectRatio="none" class="spark">
                        <polyline points={spark_points(&se, Some(100.0))} />
                    </svg>
                </figure>
                <figure>
                    <figcaption>{tm("scanned_per_wakeup", "scanned / wake-up over time")}{format!(" ({})", sc.last().map_or("–".into(), |v| format!("{v:.2}")))}</figcaption>
                    <svg viewBox="0 0 100 30" preserveAspectRatio="none" class="spark">
                        <polyline points={spark_points(&sc, None)} />
                    </svg>
                </figure>
            </div>
            <figure class="hist">
                <figcaption>{tm("scan_hist", "time in select_idle_cpu() per call, µs (@usecs)")}
                    {format!(" · {} calls", s.hist.iter().sum::<u64>())}</figcaption>
                <canvas ref={p.hist_canvas.clone()} data-testid="scan-hist" class="chart small"
                    role="img" aria-label="Histogram of time spent in select_idle_cpu per call"></canvas>
            </figure>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_points_stay_in_the_box() {
        assert_eq!(spark_points(&[], None), "");
        let p = spark_points(&[0.0, 50.0, 100.0], Some(100.0));
        assert_eq!(p, "0.0,29.0 50.0,15.0 100.0,1.0");
        assert_eq!(fmt_time(1_234_567), "1.235 ms");
    }
}
