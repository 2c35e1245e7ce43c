//! The heatmap: a metric over load × llc_weight (or imbalance_pct) for the baseline preset,
//! run cell by cell in a Web Worker (`hooks::use_sweep_job`), drawn by `draw::sweep`.

use super::widgets::{preset_select, sweep_progress};
use crate::draw::sweep::{draw_heatmap, Heat};
use crate::draw::Palette;
use crate::hooks::use_sweep_job;
use sis_core::sweep::SweepRow;
use sis_core::Scenario;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeatmapPanelProps {
    pub scenario: Scenario,
    pub preset: String,
    pub on_preset: Callback<String>,
    pub dark: bool,
}

/// The heatmap's second parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum YParam {
    LlcWeight,
    ImbalancePct,
}

const HEAT_LOADS: &[u32] = &[50, 100, 150, 200];
const HEAT_LLC: &[u32] = &[4, 8, 16, 32];
const HEAT_PCT: &[u32] = &[105, 117, 125, 150];
const HEAT_DURATION: &str = "150ms";
/// Each cell's warm-up, set explicitly: the scenario's own may not fit in HEAT_DURATION.
const HEAT_WARMUP: &str = "50ms";

fn heat_points(base: &Scenario, preset: &str, y: YParam) -> Result<Vec<Scenario>, String> {
    let ys = match y {
        YParam::LlcWeight => HEAT_LLC,
        YParam::ImbalancePct => HEAT_PCT,
    };
    let mut out = Vec::new();
    for &yv in ys {
        for &load in HEAT_LOADS {
            let mut sc = base.clone();
            sc.tasks = 0;
            let set = |sc: &mut Scenario, k: &str, v: String| sc.set_field(k, &v);
            let r = set(&mut sc, "preset", preset.to_string())
                .and_then(|()| set(&mut sc, "duration", HEAT_DURATION.into()))
                .and_then(|()| set(&mut sc, "warmup", HEAT_WARMUP.into()))
                .and_then(|()| set(&mut sc, "load", load.to_string()))
                .and_then(|()| match y {
                    YParam::LlcWeight => set(&mut sc, "llc_weight", yv.to_string()),
                    YParam::ImbalancePct => set(&mut sc, "imbalance_pct", yv.to_string()),
                })
                .and_then(|()| sc.check());
            r.map_err(|e| e.to_string())?;
            out.push(sc);
        }
    }
    Ok(out)
}

#[component]
pub fn HeatmapPanel(p: &HeatmapPanelProps) -> Html {
    let job = use_sweep_job();
    let run = job.run.clone();
    let y = use_state(|| YParam::LlcWeight);
    let err = use_state(|| None::<String>);
    let c1 = use_node_ref();
    let c2 = use_node_ref();
    let on_run = {
        let (job, preset, sc, y, err) = (
            job.clone(),
            p.preset.clone(),
            p.scenario.clone(),
            y.clone(),
            err.clone(),
        );
        Callback::from(move |_: MouseEvent| match heat_points(&sc, &preset, *y) {
            Ok(points) => {
                err.set(None);
                job.start(points);
            }
            Err(e) => err.set(Some(e)),
        })
    };
    let on_cancel = {
        let job = job.clone();
        Callback::from(move |_: MouseEvent| job.cancel())
    };
    let on_y = {
        let y = y.clone();
        Callback::from(move |e: Event| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                y.set(if t.value() == "imbalance_pct" {
                    YParam::ImbalancePct
                } else {
                    YParam::LlcWeight
                });
            }
        })
    };
    // The grid of the job that ran (its points say which parameter).
    let (ys, y_name): (Vec<u32>, &str) = match run.points.first() {
        Some(first) if run.points.iter().any(|s| s.llc_weight != first.llc_weight) => {
            (HEAT_LLC.to_vec(), "llc_weight")
        }
        Some(_) => (HEAT_PCT.to_vec(), "imbalance_pct"),
        None => (Vec::new(), ""),
    };
    let rows: Vec<Option<SweepRow>> = run
        .points
        .iter()
        .zip(&run.reports)
        .map(|(sc, r)| Some(SweepRow::new(sc, r.clone()?)))
        .collect();
    let heat = |title: &str, f: fn(&SweepRow) -> f64, decimals: usize| Heat {
        title: title.to_string(),
        x_desc: "load, % of the CPUs".into(),
        y_desc: y_name.to_string(),
        xs: HEAT_LOADS.to_vec(),
        ys: ys.clone(),
        values: rows.iter().map(|r| r.as_ref().map(f)).collect(),
        decimals,
    };
    let preset = run
        .points
        .first()
        .map_or(String::new(), |s| s.preset.clone());
    let h1 = heat(
        &format!("{preset}: runqueues scanned per wake-up"),
        |r| r.report.metrics.scanned_per_wakeup,
        2,
    );
    let h2 = heat(
        &format!("{preset}: success_rate %"),
        |r| r.report.metrics.success_rate,
        1,
    );
    {
        let (c1, c2, dark) = (c1.clone(), c2.clone(), p.dark);
        use_effect_with((h1, h2, dark), move |(h1, h2, dark)| {
            let pal = Palette::of(*dark);
            for (c, hm, hot) in [(c1, h1, pal.busy), (c2, h2, pal.idle)] {
                if let Some(c) = c.cast::<HtmlCanvasElement>() {
                    let size = crate::canvas::fit(&c);
                    if !size.is_empty() && !hm.ys.is_empty() {
                        if let Err(e) = draw_heatmap(&c, hm, hot, &pal, size.dpr) {
                            gloo::console::warn!(format!("heatmap: {e}"));
                        }
                    }
                }
            }
        });
    }
    let sc = &p.scenario;
    html! {
        <div class="sweep heat" data-testid="heat-view">
            <p class="caption">
                {format!("{} × {} grid, {} simulated per cell ({} of it warm-up): {} at loads {:?} against ",
                    HEAT_LOADS.len(), HEAT_LLC.len(), HEAT_DURATION, HEAT_WARMUP, sc.workload.name(), HEAT_LOADS)}
                {"llc_weight 4–32 (1 LLC, the scenario's smt) or imbalance_pct 105–150 (the scenario's LLC). Run in a Web Worker; takes a few seconds."}
            </p>
            <div class="bench-controls">
                <label>{"preset "}{preset_select("heat-preset", &p.preset, None, p.on_preset.clone())}</label>
                <label>{"against "}
                    <select data-testid="heat-y" onchange={on_y}>
                        <option value="llc_weight" selected={*y == YParam::LlcWeight}>{"load × llc_weight"}</option>
                        <option value="imbalance_pct" selected={*y == YParam::ImbalancePct}>{"load × imbalance_pct"}</option>
                    </select>
                </label>
                <button class="primary" data-testid="heat-run" onclick={on_run} disabled={run.running}>{"Run heatmap"}</button>
                <button data-testid="heat-cancel" onclick={on_cancel} disabled={!run.running}>{"Cancel"}</button>
            </div>
            if let Some(e) = (*err).clone() { <div class="error" role="alert">{e}</div> }
            {sweep_progress(&run, "cells")}
            <div class="heat-row">
                <canvas ref={c1} class="chart heat-chart" data-testid="heat-scanned" role="img" aria-label="heatmap of runqueues scanned per wake-up"></canvas>
                <canvas ref={c2} class="chart heat-chart" data-testid="heat-success" role="img" aria-label="heatmap of success rate"></canvas>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_points_are_valid_from_any_scenario() {
        // The default scenario's 1 s duration and a 5 ms one: neither warm-up may leak into the
        // cells (a cell whose warm-up outlasts it would be rejected).
        let mut short = Scenario::default();
        short.set_field("duration", "5ms").unwrap();
        short.set_field("warmup", "1ms").unwrap();
        for base in [Scenario::default(), short] {
            for (y, ys) in [
                (YParam::LlcWeight, HEAT_LLC),
                (YParam::ImbalancePct, HEAT_PCT),
            ] {
                let points = heat_points(&base, "linux-6.0", y).unwrap();
                assert_eq!(points.len(), HEAT_LOADS.len() * ys.len());
                for sc in &points {
                    sc.check().unwrap();
                    assert_eq!(sc.preset, "linux-6.0");
                    assert_eq!(sc.duration_ns(), 150_000_000);
                }
            }
        }
    }
}
