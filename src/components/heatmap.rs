//! The heatmap: a metric over load × llc_weight (or imbalance_pct) for the baseline preset,
//! run cell by cell (and seed by seed: each cell is the mean of its replicates) on a pool of
//! Web Workers (`hooks::use_sweep_job`), drawn by `draw::sweep`; the readout under the mouse
//! gives a cell's std% and 95% interval (sis-core's `Estimate`, as `sis sweep --seeds`).

use super::sweep::estimate_text;
use super::widgets::{entry_of_choice, preset_select, sweep_progress, PoolSetup};
use crate::draw::plot::ChartMap;
use crate::draw::sweep::{draw_heatmap, heat_colour, Heat};
use crate::draw::Palette;
use crate::hooks::use_sweep_job;
use sis_core::analysis::sweep::stats::{quantity, Estimate};
use sis_core::analysis::sweep::RULE_ENTRY;
use sis_core::Scenario;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeatmapPanelProps {
    pub scenario: Scenario,
    pub preset: String,
    pub on_preset: Callback<String>,
    pub pool: PoolSetup,
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

/// The grid's points: y-major, then load, then each of `seeds` (empty: the scenario's seed)
/// innermost, so cell `c` is points `c * S .. (c + 1) * S`.
fn heat_points(
    base: &Scenario,
    preset: &str,
    y: YParam,
    seeds: &[u64],
) -> Result<Vec<Scenario>, String> {
    let seeds = if seeds.is_empty() {
        vec![base.seed]
    } else {
        seeds.to_vec()
    };
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
            // A preset runs as the kernel; "your rule" is the scenario's preset with its rule.
            let r = match entry_of_choice(preset, base)?.strip_prefix(RULE_ENTRY) {
                Some(_) => Ok(()),
                None => set(&mut sc, "nr_expr", String::new())
                    .and_then(|()| set(&mut sc, "preset", preset.to_string())),
            };
            let r = r
                .and_then(|()| set(&mut sc, "duration", HEAT_DURATION.into()))
                .and_then(|()| set(&mut sc, "warmup", HEAT_WARMUP.into()))
                .and_then(|()| set(&mut sc, "load", load.to_string()))
                .and_then(|()| match y {
                    YParam::LlcWeight => set(&mut sc, "llc_weight", yv.to_string()),
                    YParam::ImbalancePct => set(&mut sc, "imbalance_pct", yv.to_string()),
                })
                .and_then(|()| sc.check());
            r.map_err(|e| e.to_string())?;
            for &seed in &seeds {
                let mut sc = sc.clone();
                sc.seed = seed;
                out.push(sc);
            }
        }
    }
    Ok(out)
}

/// Each cell's estimate of `key` over its `runs` seeds, once all of them finished.
fn cell_estimates(
    reports: &[Option<std::rc::Rc<sis_core::sim::engine::RunReport>>],
    runs: usize,
    key: &str,
) -> Vec<Option<Estimate>> {
    let q = quantity(key);
    reports
        .chunks(runs.max(1))
        .map(|cell| {
            let xs: Option<Vec<f64>> = cell.iter().map(|r| r.as_deref().map(q.get)).collect();
            xs.map(|xs| Estimate::of(&xs))
        })
        .collect()
}

/// The two maps: (testid, title, quantity key, decimals).
const MAPS: [(&str, &str, &str, usize); 2] = [
    (
        "heat-scanned",
        "runqueues scanned per wake-up",
        "scanned_per_wakeup",
        2,
    ),
    ("heat-success", "success_rate %", "success_rate", 1),
];

#[component]
pub fn HeatmapPanel(p: &HeatmapPanelProps) -> Html {
    let job = use_sweep_job();
    let run = job.run.clone();
    let y = use_state(|| YParam::LlcWeight);
    let err = use_state(|| None::<String>);
    let c1 = use_node_ref();
    let c2 = use_node_ref();
    let maps = use_mut_ref(|| [None::<ChartMap>, None]);
    let hover = use_state(String::new);
    let on_run = {
        let (job, preset, sc, y, err, pool) = (
            job.clone(),
            p.preset.clone(),
            p.scenario.clone(),
            y.clone(),
            err.clone(),
            p.pool.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let planned = pool.seed_list().and_then(|seeds| {
                Ok((heat_points(&sc, &preset, *y, &seeds)?, pool.worker_count()?))
            });
            match planned {
                Ok((points, workers)) => {
                    err.set(None);
                    job.start(points, None, workers);
                }
                Err(e) => err.set(Some(e)),
            }
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
    // The grid of the job that ran (its points say which parameter and how many seeds).
    let (ys, y_name): (Vec<u32>, &str) = match run.points.first() {
        Some(first) if run.points.iter().any(|s| s.llc_weight != first.llc_weight) => {
            (HEAT_LLC.to_vec(), "llc_weight")
        }
        Some(_) => (HEAT_PCT.to_vec(), "imbalance_pct"),
        None => (Vec::new(), ""),
    };
    let runs = match run.points.first() {
        Some(first) => run
            .points
            .iter()
            .take_while(|s| s.load == first.load && s.llc_weight == first.llc_weight)
            .count(),
        None => 1,
    };
    let preset = run.points.first().map_or(String::new(), |s| {
        if s.nr_expr.is_empty() {
            s.preset.clone()
        } else {
            format!("{} with your rule {}", s.preset, s.nr_expr)
        }
    });
    let cells: Vec<Vec<Option<Estimate>>> = MAPS
        .iter()
        .map(|m| cell_estimates(&run.reports, runs, m.2))
        .collect();
    let heats: Vec<Heat> = MAPS
        .iter()
        .zip(&cells)
        .map(|(m, cells)| Heat {
            title: format!(
                "{preset}: {}{}",
                m.1,
                if runs > 1 {
                    format!(" (mean of {runs} seeds)")
                } else {
                    String::new()
                }
            ),
            x_desc: "load, % of the CPUs".into(),
            y_desc: y_name.to_string(),
            xs: HEAT_LOADS.to_vec(),
            ys: ys.clone(),
            values: cells.iter().map(|c| c.map(|e| e.mean)).collect(),
            decimals: m.3,
        })
        .collect();
    {
        let (c1, c2, dark, maps) = (c1.clone(), c2.clone(), p.dark, maps.clone());
        use_effect_with((heats.clone(), dark), move |(heats, dark)| {
            let pal = Palette::of(*dark);
            for (i, (c, hot)) in [(c1, pal.busy), (c2, pal.idle)].into_iter().enumerate() {
                if let Some(c) = c.cast::<HtmlCanvasElement>() {
                    let size = crate::canvas::fit(&c);
                    if !size.is_empty() && !heats[i].ys.is_empty() {
                        match draw_heatmap(&c, &heats[i], hot, &pal, size.dpr) {
                            Ok(m) => maps.borrow_mut()[i] = Some(m),
                            Err(e) => gloo::console::warn!(format!("heatmap: {e}")),
                        }
                    }
                }
            }
        });
    }
    // The cell under the mouse: its mean, std% and interval over the seeds.
    let on_hover = |i: usize| {
        let (maps, hover, cells, ys, y_name) = (
            maps.clone(),
            hover.clone(),
            cells[i].clone(),
            ys.clone(),
            y_name.to_string(),
        );
        Callback::from(move |e: MouseEvent| {
            let text = maps.borrow()[i].as_ref().and_then(|map| {
                let (x, y) = map.from_px(e.offset_x(), e.offset_y())?;
                let (xi, yi) = (x.round(), y.round());
                if xi < 0.0 || yi < 0.0 {
                    return None;
                }
                let (xi, yi) = (xi as usize, yi as usize);
                let (load, yv) = (HEAT_LOADS.get(xi)?, ys.get(yi)?);
                let est = cells.get(yi * HEAT_LOADS.len() + xi)?.as_ref()?;
                Some(format!(
                    "load {load}%, {y_name} {yv}: {} = {}",
                    MAPS[i].1,
                    estimate_text(est)
                ))
            });
            hover.set(text.unwrap_or_default());
        })
    };
    let sc = &p.scenario;
    let tip = (*hover).clone();
    // Each map's colour scale: its lowest and highest value at the ends of its ramp.
    let pal = Palette::of(p.dark);
    let scale = |i: usize, hot: crate::draw::Rgb| {
        let Some((lo, hi)) = heats[i].range() else {
            return html! {};
        };
        let d = MAPS[i].3;
        let ramp = format!(
            "background: linear-gradient(to right, {}, {})",
            heat_colour(&pal, hot, 0.0).css(),
            heat_colour(&pal, hot, 1.0).css()
        );
        html! {
            <div class="heat-scale" data-testid={format!("{}-scale", MAPS[i].0)}>
                <span>{format!("{lo:.d$}")}</span><span class="ramp" style={ramp}></span><span>{format!("{hi:.d$}")}</span>
            </div>
        }
    };
    html! {
        <div class="sweep heat" data-testid="heat-view">
            <p class="caption">
                {format!("{} × {} grid, {} simulated per cell ({} of it warm-up): {} at loads {:?} against ",
                    HEAT_LOADS.len(), HEAT_LLC.len(), HEAT_DURATION, HEAT_WARMUP, sc.workload.name(), HEAT_LOADS)}
                {"llc_weight 4–32 (1 LLC, the scenario's smt) or imbalance_pct 105–150 (the scenario's LLC); with seeds, each cell is the mean of its runs (std% under the mouse). Run on a pool of Web Workers; takes a few seconds."}
            </p>
            <div class="bench-controls">
                <label>{"preset "}{preset_select("heat-preset", &p.preset, None, Some(&p.scenario.nr_expr), p.on_preset.clone())}</label>
                <label>{"against "}
                    <select data-testid="heat-y" onchange={on_y}>
                        <option value="llc_weight" selected={*y == YParam::LlcWeight}>{"load × llc_weight"}</option>
                        <option value="imbalance_pct" selected={*y == YParam::ImbalancePct}>{"load × imbalance_pct"}</option>
                    </select>
                </label>
                {p.pool.controls("heat")}
                <button class="primary" data-testid="heat-run" onclick={on_run} disabled={run.running}>{"Run heatmap"}</button>
                <button data-testid="heat-cancel" onclick={on_cancel} disabled={!run.running}>{"Cancel"}</button>
            </div>
            if let Some(e) = (*err).clone() { <div class="error" role="alert">{e}</div> }
            {sweep_progress(&run, "runs")}
            <div class="heat-row">
                <figure>
                    <canvas ref={c1} class="chart heat-chart" data-testid={MAPS[0].0} role="img" aria-label="heatmap of runqueues scanned per wake-up"
                        title={tip.clone()} onmousemove={on_hover(0)}></canvas>
                    {scale(0, pal.busy)}
                </figure>
                <figure>
                    <canvas ref={c2} class="chart heat-chart" data-testid={MAPS[1].0} role="img" aria-label="heatmap of success rate"
                        title={tip.clone()} onmousemove={on_hover(1)}></canvas>
                    {scale(1, pal.idle)}
                </figure>
            </div>
            <div class="hover-readout" data-testid="heat-hover" aria-live="polite">{tip}</div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::widgets::RULE_CHOICE;

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
                let points = heat_points(&base, "linux-6.0", y, &[]).unwrap();
                assert_eq!(points.len(), HEAT_LOADS.len() * ys.len());
                for sc in &points {
                    sc.check().unwrap();
                    assert_eq!(sc.preset, "linux-6.0");
                    assert_eq!(sc.duration_ns(), 150_000_000);
                }
            }
        }
    }

    /// "your rule" is the scenario's preset with its rule; a preset runs without the rule.
    #[test]
    fn the_rule_choice_runs_the_rule_and_a_preset_runs_without_it() {
        let mut base = Scenario::default();
        base.set_field("preset", "linux-6.7").unwrap();
        base.set_field("nr_expr", "llc_weight / 4").unwrap();
        let rule = heat_points(&base, RULE_CHOICE, YParam::LlcWeight, &[]).unwrap();
        assert!(rule
            .iter()
            .all(|s| s.preset == "linux-6.7" && s.nr_expr == "llc_weight / 4"));
        let plain = heat_points(&base, "linux-5.15", YParam::LlcWeight, &[]).unwrap();
        assert!(plain
            .iter()
            .all(|s| s.preset == "linux-5.15" && s.nr_expr.is_empty()));
        base.set_field("nr_expr", "").unwrap();
        let e = heat_points(&base, RULE_CHOICE, YParam::LlcWeight, &[]).unwrap_err();
        assert!(e.contains("needs a rule"), "{e}");
    }

    #[test]
    fn replicate_cells_are_the_estimate_of_their_seeds() {
        let pts = heat_points(
            &Scenario::default(),
            "linux-6.0",
            YParam::LlcWeight,
            &[3, 1],
        )
        .unwrap();
        assert_eq!(pts.len(), 2 * HEAT_LOADS.len() * HEAT_LLC.len());
        assert_eq!((pts[0].seed, pts[1].seed, pts[2].seed), (3, 1, 3));
        assert_eq!(pts[0].load, pts[1].load);
        assert_ne!(pts[1].load, pts[2].load);
        // Two cells of two seeds; the second cell is missing a run.
        let run = |seed: &str| {
            let sc =
                Scenario::from_pairs([("llc_weight", "8"), ("duration", "5ms"), ("seed", seed)])
                    .unwrap();
            sis_core::analysis::sweep::run_point(&sc).unwrap()
        };
        let (a, b) = (run("1"), run("2"));
        let (a, b) = (std::rc::Rc::new(a), std::rc::Rc::new(b));
        let reports = vec![Some(a.clone()), Some(b.clone()), Some(a.clone()), None];
        let cells = cell_estimates(&reports, 2, "sis_scanned");
        let xs = [a.counters.sis_scanned as f64, b.counters.sis_scanned as f64];
        assert_eq!(cells, vec![Some(Estimate::of(&xs)), None]);
        assert_ne!(xs[0], xs[1], "the seeds differ, so std% is not trivially 0");
    }
}
