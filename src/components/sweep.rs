//! The load sweep: the app's scenario over the baseline (and compare) preset at each load and
//! seed, run on a pool of Web Workers (`hooks::use_sweep_job`) so the page stays responsive;
//! the tables and JSON of `sis sweep` (sis-core's `format_tables` / `format_output`) and a plot
//! of the means with 95% intervals (`draw::sweep`), with a readout of the point under the mouse.

use super::widgets::{entry_of_choice, on_input_change, preset_select, sweep_progress, PoolSetup};
use crate::draw::plot::ChartMap;
use crate::draw::sweep::{draw_sweep_lines, nearest_point, Series};
use crate::draw::Palette;
use crate::hooks::use_sweep_job;
use crate::workbench_state::SweepRequest;
use sis_core::analysis::sweep::stats::{summarise, Estimate, PointSummary};
use sis_core::analysis::sweep::{format_tables, parse_seeds, SweepSpec};
use sis_core::Scenario;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// A metric the plot can show: one of sis-core's sweep quantities.
pub struct PlottedMetric {
    /// The `sis_core::analysis::sweep::stats::QUANTITIES` key.
    pub key: &'static str,
    pub label: &'static str,
}

pub static PLOTTED: &[PlottedMetric] = &[
    PlottedMetric {
        key: "scanned_per_wakeup",
        label: "runqueues scanned per wake-up",
    },
    PlottedMetric {
        key: "success_rate",
        label: "success_rate %",
    },
    PlottedMetric {
        key: "se_eff",
        label: "se_eff %",
    },
    PlottedMetric {
        key: "fast_rate",
        label: "fast_rate %",
    },
    PlottedMetric {
        key: "messages_per_s",
        label: "throughput, messages/s",
    },
    PlottedMetric {
        key: "wakeups",
        label: "wake-ups",
    },
    PlottedMetric {
        key: "scan_cpu_pct",
        label: "select_idle_cpu time, % of CPU time",
    },
    PlottedMetric {
        key: "cpu_busy_pct",
        label: "CPU busy, % of CPU time",
    },
    PlottedMetric {
        key: "idle_pick_taken",
        label: "idle picks taken by another wake-up first",
    },
];

/// One line per preset of `key`'s mean against load, with its 95% interval where a point
/// has several seeds.
pub fn series_of(sums: &[PointSummary], key: &str) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for p in sums {
        let i = match out.iter().position(|s| s.name == p.preset) {
            Some(i) => i,
            None => {
                out.push(Series {
                    name: p.preset.clone(),
                    points: Vec::new(),
                    ci: Vec::new(),
                });
                out.len() - 1
            }
        };
        let e = p.estimate(key);
        let x = p.load as f64;
        out[i].points.push((x, e.mean));
        if let Some((lo, hi)) = e.ci95 {
            out[i].ci.push((x, lo, hi));
        }
    }
    out
}

/// What the panel shows of a run, computed once per change of the run.
struct SweepOut {
    sums: Vec<PointSummary>,
    table: String,
    json: String,
}

/// "12.345 (std 1.2%, 95% CI 11.0 to 13.7, 3 seeds)", or the value alone for one run.
pub fn estimate_text(e: &Estimate) -> String {
    let mut t = format!("{:.3}", e.mean);
    if e.n > 1 {
        let std = e
            .std_pct
            .map_or("std n/a".into(), |s| format!("std {s:.1}%"));
        let ci = e.ci95.map_or(String::new(), |(lo, hi)| {
            format!(", 95% CI {lo:.3} to {hi:.3}")
        });
        t.push_str(&format!(" ({std}{ci}, {} seeds)", e.n));
    }
    t
}

fn parse_loads(s: &str) -> Result<Vec<u32>, String> {
    let mut probe = Scenario::default();
    let mut out = Vec::new();
    for l in s.split(',').map(str::trim).filter(|l| !l.is_empty()) {
        probe.set_field("load", l).map_err(|e| e.to_string())?;
        out.push(probe.load);
    }
    if out.is_empty() {
        return Err(
            "invalid loads '': expected a comma-separated list of load percents, like 25,50,100"
                .into(),
        );
    }
    Ok(out)
}

/// What a sweep runs: presets and loads over a base scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSetup {
    pub baseline_preset: String,
    /// "" = the baseline alone.
    pub compare_preset: String,
    pub loads: String,
    /// Replicate seeds as `sis sweep --seeds` ("" = the scenario's seed).
    pub seeds: String,
}

impl SweepSetup {
    /// The sweep's spec: `base` (tasks=0) over the presets and loads; each preset brings its
    /// imbalance_pct, as `sis sweep` without `--imbalance-pct`; with seeds, each point runs
    /// once per seed, as `sis sweep --seeds`. The scenario's rule runs only as its own entry
    /// ("your rule", `nr_expr=EXPR` on the scenario's preset): the presets run as the kernel.
    pub fn spec(&self, base: &Scenario) -> Result<SweepSpec, String> {
        let mut presets = vec![entry_of_choice(&self.baseline_preset, base)?];
        if !self.compare_preset.is_empty() && self.compare_preset != self.baseline_preset {
            presets.push(entry_of_choice(&self.compare_preset, base)?);
        }
        let mut base = base.clone();
        base.tasks = 0;
        base.nr_expr.clear();
        let spec = SweepSpec::new(base, presets, parse_loads(&self.loads)?);
        let spec = if self.seeds.trim().is_empty() {
            spec
        } else {
            spec.and_then(|s| s.with_seeds(parse_seeds(&self.seeds)?))
        };
        spec.map_err(|e| e.to_string())
    }
}

#[derive(Properties, PartialEq)]
pub struct SweepPanelProps {
    pub scenario: Scenario,
    pub setup: SweepSetup,
    /// Run this sweep now (once per token), on its scenario.
    pub request: Option<SweepRequest>,
    pub on_baseline_preset: Callback<String>,
    pub on_compare_preset: Callback<String>,
    pub on_loads: Callback<String>,
    /// Seeds (also in `setup`) and workers.
    pub pool: PoolSetup,
    pub dark: bool,
}

#[component]
pub fn SweepPanel(p: &SweepPanelProps) -> Html {
    let job = use_sweep_job();
    let run = job.run.clone();
    let metric = use_state(|| 0usize);
    let canvas = use_node_ref();
    let err = use_state(|| None::<String>);
    let map = use_mut_ref(|| None::<ChartMap>);
    let hover = use_state(String::new);

    let start = {
        let (job, err, pool) = (job.clone(), err.clone(), p.pool.clone());
        move |spec: Result<SweepSpec, String>| match spec
            .and_then(|s| Ok((s, pool.worker_count()?)))
        {
            Ok((spec, workers)) => {
                err.set(None);
                job.start(spec.points(), Some(spec), workers);
            }
            Err(e) => err.set(Some(e)),
        }
    };
    // A patch scenario asked for a sweep: run it once per token, on its scenario.
    {
        let (start, setup, request) = (start.clone(), p.setup.clone(), p.request.clone());
        use_effect_with(request.as_ref().map(|r| r.token), move |_| {
            if let Some(r) = request {
                start(setup.spec(&r.scenario));
            }
        });
    }
    let on_run = {
        let (start, setup, sc) = (start.clone(), p.setup.clone(), p.scenario.clone());
        Callback::from(move |_: MouseEvent| start(setup.spec(&sc)))
    };
    let on_cancel = {
        let job = job.clone();
        Callback::from(move |_: MouseEvent| job.cancel())
    };
    // The tables, summaries and JSON, recomputed when the run changes (not on hover), and
    // while it runs at most ~50 times (a sweep of thousands of runs would otherwise redo
    // them all at every point).
    let step = run.points.len().div_ceil(50).max(1);
    let out = {
        let run = run.clone();
        let settled = (!run.running).then_some(run.done);
        let key = (run.generation, run.running, run.done / step, settled);
        use_memo(key, move |_| {
            let rows = run.rows();
            SweepOut {
                sums: summarise(&rows),
                table: format_tables(&rows),
                json: run.json().unwrap_or_default(),
            }
        })
    };
    // Plot: the metric's mean vs load, one line per preset, 95% intervals as error bars.
    let series = series_of(&out.sums, PLOTTED[*metric].key);
    {
        let (canvas, map, dark, m) = (canvas.clone(), map.clone(), p.dark, *metric);
        use_effect_with((series.clone(), dark, m), move |(series, dark, m)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let size = crate::canvas::fit(&c);
                if !size.is_empty() {
                    let pal = Palette::of(*dark);
                    match draw_sweep_lines(&c, series, PLOTTED[*m].label, &pal, size.dpr) {
                        Ok(m) => *map.borrow_mut() = Some(m),
                        Err(e) => gloo::console::warn!(format!("sweep-plot: {e}")),
                    }
                }
            }
        });
    }
    let on_hover = {
        let (map, hover, m, out) = (map.clone(), hover.clone(), *metric, out.clone());
        Callback::from(move |e: MouseEvent| {
            let text = map.borrow().as_ref().and_then(|map| {
                let (i, (load, _)) = nearest_point(map, &series, (e.offset_x(), e.offset_y()))?;
                let name = &series[i].name;
                let point = out
                    .sums
                    .iter()
                    .find(|p| &p.preset == name && p.load as f64 == load)?;
                Some(format!(
                    "{name} at load {load}%: {} = {}",
                    PLOTTED[m].label,
                    estimate_text(point.estimate(PLOTTED[m].key))
                ))
            });
            hover.set(text.unwrap_or_default());
        })
    };
    let on_metric = {
        let metric = metric.clone();
        Callback::from(move |e: Event| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                metric.set(t.selected_index().max(0) as usize);
            }
        })
    };
    let sc = &p.scenario;
    let setup = &p.setup;
    let n_points = setup.spec(sc).map_or(0, |s| s.point_count());
    html! {
        <div class="sweep" data-testid="sweep-view">
            <p class="caption">
                {format!("Runs the scenario ({} on {} x {} CPUs, smt {}, seed {} or each seed given, {} per point) at each load for A and B (\"your rule\": the scenario's nr_expr on its preset), as ",
                    sc.workload.name(), sc.llcs, sc.llc_weight, sc.smt, sc.seed, sc.duration)}
                <code>{"sis sweep [--seeds]"}</code>{" does, on Web Workers: identical numbers. With seeds: mean (std%) and 95% intervals."}
            </p>
            <div class="bench-controls">
                <label>{"A (baseline) "}{preset_select("sweep-preset-a", &setup.baseline_preset, None, Some(&sc.nr_expr), p.on_baseline_preset.clone())}</label>
                <label>{"B (compare) "}{preset_select("sweep-preset-b", &setup.compare_preset, Some("none"), Some(&sc.nr_expr), p.on_compare_preset.clone())}</label>
                <label>{"loads % "}<input type="text" data-testid="sweep-loads" value={setup.loads.clone()} onchange={on_input_change(p.on_loads.clone())} size="28" /></label>
                {p.pool.controls("sweep")}
                <button class="primary" data-testid="sweep-run" onclick={on_run} disabled={run.running}>{format!("Run sweep ({n_points} points)")}</button>
                <button data-testid="sweep-cancel" onclick={on_cancel} disabled={!run.running}>{"Cancel"}</button>
            </div>
            if let Some(e) = (*err).clone() { <div class="error" role="alert">{e}</div> }
            {sweep_progress(&run, "points")}
            <div class="sweep-out">
                <div class="sweep-plot">
                    <label>{"plot "}
                        <select data-testid="sweep-metric" onchange={on_metric}>
                            { for PLOTTED.iter().enumerate().map(|(i, m)| html! { <option value={m.key} selected={i == *metric}>{m.label}</option> }) }
                        </select>
                    </label>
                    <canvas ref={canvas} class="chart sweep-chart" data-testid="sweep-plot" role="img"
                        aria-label="the chosen metric against load, one line per preset" onmousemove={on_hover}></canvas>
                    <div class="hover-readout" data-testid="sweep-hover" aria-live="polite">{(*hover).clone()}</div>
                </div>
                <pre class="schedstat-table" data-testid="sweep-table">{out.table.clone()}</pre>
            </div>
            <details>
                <summary>{"JSON (as sis sweep --format json)"}</summary>
                <pre class="schedstat-table" data-testid="sweep-json">{out.json.clone()}</pre>
            </details>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::widgets::RULE_CHOICE;

    /// "your rule" beside linux-6.0: the rule is an entry of its own on the scenario's preset,
    /// and linux-6.0 runs as the kernel, without the scenario's rule.
    #[test]
    fn the_rule_choice_is_its_own_entry_and_the_presets_run_without_it() {
        let mut base = Scenario::default();
        base.set_field("llc_weight", "8").unwrap();
        base.set_field("nr_expr", "min(llc_weight, 2)").unwrap();
        let setup = SweepSetup {
            baseline_preset: "linux-6.0".into(),
            compare_preset: RULE_CHOICE.into(),
            loads: "50,100".into(),
            seeds: String::new(),
        };
        let spec = setup.spec(&base).unwrap();
        assert_eq!(spec.presets, ["linux-6.0", "nr_expr=min(llc_weight, 2)"]);
        let got: Vec<(&str, String)> = spec
            .points()
            .iter()
            .enumerate()
            .map(|(i, p)| (spec.entry_of_point(i), p.nr_expr.clone()))
            .collect();
        assert_eq!(got[0], ("linux-6.0", String::new()));
        assert_eq!(
            got[3],
            ("nr_expr=min(llc_weight, 2)", "min(llc_weight, 2)".into())
        );
        base.set_field("nr_expr", "").unwrap();
        assert!(setup.spec(&base).unwrap_err().contains("needs a rule"));
    }

    /// Every metric the plot offers is a sweep quantity (`quantity()` falls back to the first
    /// one for an unknown key, which would plot the wrong numbers under the right label).
    #[test]
    fn every_plotted_metric_is_a_sweep_quantity() {
        for m in PLOTTED {
            assert_eq!(sis_core::analysis::sweep::stats::quantity(m.key).key, m.key);
        }
    }
}
