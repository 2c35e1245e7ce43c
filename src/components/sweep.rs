//! The load sweep and the heatmap, both run point by point in a Web Worker
//! (`worker_api::SweepJob`), so the page stays responsive; progress bar, cancel, the seed's
//! table (sis-core's `format_table` / `format_compare`) and plots (`draw::sweep`).

use super::workbench::{dispatch_input, dispatch_to, preset_select, Wb, WbAction};
use crate::draw::sweep::{draw_heatmap, draw_sweep_lines, Heat, Series};
use crate::draw::Palette;
use crate::worker_api::{point_query, report_from_json, JobMsg, SweepJob};
use sis_core::sweep::{format_compare, format_table, SweepRow, SweepSpec};
use sis_core::Scenario;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// One sweep run: its points and what came back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Job {
    pub gen: u64,
    pub running: bool,
    pub cancelled: bool,
    pub done: usize,
    pub points: Rc<Vec<Scenario>>,
    /// RunReport JSON per point (as `sis sweep --format json`'s `report`).
    pub reports: Vec<Option<String>>,
    pub error: Option<String>,
    /// Real time the sweep took, ms.
    pub started_ms: f64,
    pub took_ms: Option<f64>,
}

pub enum JobAction {
    Start { gen: u64, points: Rc<Vec<Scenario>> },
    Msg { gen: u64, msg: JobMsg },
    Cancel,
    Fail(String),
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl Reducible for Job {
    type Action = JobAction;
    fn reduce(self: Rc<Self>, a: JobAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            JobAction::Start { gen, points } => {
                s = Job {
                    gen,
                    running: true,
                    reports: vec![None; points.len()],
                    points,
                    started_ms: now_ms(),
                    ..Job::default()
                };
            }
            JobAction::Msg { gen, .. } if gen != s.gen || !s.running => return self,
            JobAction::Msg { msg, .. } => match msg {
                JobMsg::Progress { done, report, .. } => {
                    if report.starts_with("error: ") {
                        s.error = Some(report.trim_start_matches("error: ").to_string());
                        s.running = false;
                    } else if let Some(slot) =
                        done.checked_sub(1).and_then(|i| s.reports.get_mut(i))
                    {
                        *slot = Some(report);
                        s.done = done;
                        if done >= s.reports.len() {
                            s.running = false;
                            s.took_ms = Some(now_ms() - s.started_ms);
                        }
                    }
                }
                JobMsg::Failed(e) => {
                    s.error = Some(e);
                    s.running = false;
                }
            },
            JobAction::Cancel => {
                s.running = false;
                s.cancelled = true;
            }
            JobAction::Fail(e) => {
                s = Job {
                    gen: s.gen,
                    error: Some(e),
                    ..Job::default()
                };
            }
        }
        Rc::new(s)
    }
}

impl Job {
    /// The finished points as sweep rows, in point order (preset-major, as `SweepSpec::points`).
    pub fn rows(&self) -> Vec<SweepRow> {
        self.points
            .iter()
            .zip(&self.reports)
            .filter_map(|(sc, r)| {
                let r = report_from_json(sc, r.as_deref()?).ok()?;
                Some(SweepRow::new(sc, r))
            })
            .collect()
    }

    /// The results as `sis sweep --format json` prints them (compact): `[{preset, load, report}]`.
    pub fn json(&self) -> String {
        let items: Vec<String> = self
            .points
            .iter()
            .zip(&self.reports)
            .filter_map(|(sc, r)| {
                Some(format!(
                    "{{\"preset\":\"{}\",\"load\":{},\"report\":{}}}",
                    sc.preset,
                    sc.load,
                    r.as_deref()?
                ))
            })
            .collect();
        format!("[{}]", items.join(","))
    }
}

/// The job state plus the worker that feeds it.
#[derive(Clone)]
pub struct JobHandle {
    pub job: UseReducerHandle<Job>,
    worker: Rc<RefCell<Option<SweepJob>>>,
}

impl JobHandle {
    pub fn start(&self, points: Vec<Scenario>) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.cancel();
        }
        let gen = self.job.gen + 1;
        let queries: Vec<String> = points.iter().map(point_query).collect();
        self.job.dispatch(JobAction::Start {
            gen,
            points: Rc::new(points),
        });
        let d = self.job.dispatcher();
        match SweepJob::start(&queries, move |msg| d.dispatch(JobAction::Msg { gen, msg })) {
            Ok(w) => *self.worker.borrow_mut() = Some(w),
            Err(e) => self.job.dispatch(JobAction::Fail(e)),
        }
    }

    pub fn cancel(&self) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.cancel();
        }
        self.job.dispatch(JobAction::Cancel);
    }
}

#[hook]
pub fn use_job() -> JobHandle {
    let job = use_reducer(Job::default);
    let worker = use_mut_ref(|| None::<SweepJob>);
    {
        let worker = worker.clone();
        use_effect_with((), move |_| move || drop(worker.borrow_mut().take()));
    }
    JobHandle { job, worker }
}

fn progress(job: &Job, what: &str) -> Html {
    let total = job.points.len();
    let status = if let Some(e) = &job.error {
        format!("error: {e}")
    } else if job.cancelled {
        format!("cancelled after {}/{total} {what}", job.done)
    } else if job.running {
        format!("running in a Web Worker: {}/{total} {what}", job.done)
    } else if let Some(ms) = job.took_ms {
        format!("done: {total} {what} in {:.1} s", ms / 1000.0)
    } else {
        String::new()
    };
    html! {
        <div class="sweep-progress">
            <progress data-testid="sweep-progress" max={total.max(1).to_string()} value={job.done.to_string()}
                aria-label="sweep progress">{format!("{}/{total}", job.done)}</progress>
            <span class="count" data-testid="sweep-count">{format!("{}/{total}", job.done)}</span>
            <span class={classes!("status", job.error.is_some().then_some("bad"))}>{status}</span>
        </div>
    }
}

fn fit(c: &HtmlCanvasElement) -> f64 {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0));
    let (w, h) = (c.client_width(), c.client_height());
    c.set_width((w as f64 * dpr).round() as u32);
    c.set_height((h as f64 * dpr).round() as u32);
    dpr
}

/// Metrics the plots can show: (key, label, value).
#[allow(clippy::type_complexity)]
const PLOTTED: &[(&str, &str, fn(&SweepRow) -> f64)] = &[
    ("scanned_per_wakeup", "runqueues scanned per wake-up", |r| {
        r.report.metrics.scanned_per_wakeup
    }),
    ("success_rate", "success_rate %", |r| {
        r.report.metrics.success_rate
    }),
    ("se_eff", "se_eff %", |r| r.report.metrics.se_eff),
    ("fast_rate", "fast_rate %", |r| r.report.metrics.fast_rate),
    ("wakeups", "wake-ups (throughput)", |r| {
        r.report.wakeups as f64
    }),
];

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

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub scenario: Scenario,
    pub wb: UseReducerHandle<Wb>,
    pub dark: bool,
}

/// The sweep's spec: the app's scenario (tasks=0) over presets A[,B] and the loads; each
/// preset brings its imbalance_pct, as `sis sweep` without `--imbalance-pct`.
fn spec_of(base: &Scenario, wb: &Wb) -> Result<SweepSpec, String> {
    let mut base = base.clone();
    base.tasks = 0;
    let mut presets = vec![wb.a.clone()];
    if !wb.b.is_empty() && wb.b != wb.a {
        presets.push(wb.b.clone());
    }
    SweepSpec::new(base, presets, parse_loads(&wb.loads)?).map_err(|e| e.to_string())
}

#[component]
pub fn SweepPanel(p: &PanelProps) -> Html {
    let h = use_job();
    let job = h.job.clone();
    let metric = use_state(|| 0usize);
    let canvas = use_node_ref();
    let err = use_state(|| None::<String>);

    // A seed asked for a sweep: run it once per token, on the seed's scenario.
    {
        let (h, wb, err) = (h.clone(), p.wb.clone(), err.clone());
        let token = p.wb.run.as_ref().map(|r| r.0);
        use_effect_with(token, move |_| {
            if let Some((_, sc)) = wb.run.as_ref() {
                match spec_of(sc, &wb) {
                    Ok(spec) => {
                        err.set(None);
                        h.start(spec.points());
                    }
                    Err(e) => err.set(Some(e)),
                }
            }
        });
    }
    let on_run = {
        let (h, wb, sc, err) = (h.clone(), p.wb.clone(), p.scenario.clone(), err.clone());
        Callback::from(move |_: MouseEvent| match spec_of(&sc, &wb) {
            Ok(spec) => {
                err.set(None);
                h.start(spec.points());
            }
            Err(e) => err.set(Some(e)),
        })
    };
    let on_cancel = {
        let h = h.clone();
        Callback::from(move |_: MouseEvent| h.cancel())
    };
    let rows = job.rows();
    let presets: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for sc in job.points.iter() {
            if !v.contains(&sc.preset) {
                v.push(sc.preset.clone());
            }
        }
        v
    };
    let mut table = format_table(&rows);
    if let [a, b] = presets.as_slice() {
        table.push('\n');
        table.push_str(&format_compare(&rows, a, b));
    }
    // Plot: metric vs load, one line per preset.
    {
        let (canvas, dark, m) = (canvas.clone(), p.dark, *metric);
        let series: Vec<Series> = presets
            .iter()
            .map(|name| Series {
                name: name.clone(),
                points: rows
                    .iter()
                    .filter(|r| &r.preset == name)
                    .map(|r| (r.load as f64, (PLOTTED[m].2)(r)))
                    .collect(),
            })
            .collect();
        use_effect_with((series, dark, m), move |(series, dark, m)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                if c.client_width() > 0 {
                    let dpr = fit(&c);
                    let pal = Palette::of(*dark);
                    if let Err(e) = draw_sweep_lines(&c, series, PLOTTED[*m].1, &pal, dpr) {
                        gloo::console::warn!(format!("sweep-plot: {e}"));
                    }
                }
            }
        });
    }
    let wb = &p.wb;
    let on_a = dispatch_to(wb, WbAction::A);
    let on_b = dispatch_to(wb, WbAction::B);
    let on_loads = dispatch_input(wb, WbAction::Loads);
    let on_metric = {
        let metric = metric.clone();
        Callback::from(move |e: Event| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                metric.set(t.selected_index().max(0) as usize);
            }
        })
    };
    let sc = &p.scenario;
    let n_points = spec_of(sc, wb).map_or(0, |s| s.points().len());
    html! {
        <div class="sweep" data-testid="sweep-view">
            <p class="caption">
                {format!("Runs the current scenario ({} on {} x {} CPUs, smt {}, seed {}, {} simulated per point) at each load, for preset A and, if set, preset B: the same points as ",
                    sc.workload.name(), sc.llcs, sc.llc_weight, sc.smt, sc.seed, sc.duration)}
                <code>{"sis sweep"}</code>{", computed by the same sis-core code in a Web Worker, so the numbers are identical to the CLI's."}
            </p>
            <div class="bench-controls">
                <label>{"A (baseline) "}{preset_select("sweep-preset-a", &wb.a, None, on_a)}</label>
                <label>{"B (compare) "}{preset_select("sweep-preset-b", &wb.b, Some("none"), on_b)}</label>
                <label>{"loads % "}<input type="text" data-testid="sweep-loads" value={wb.loads.clone()} onchange={on_loads} size="28" /></label>
                <button class="primary" data-testid="sweep-run" onclick={on_run} disabled={job.running}>{format!("Run sweep ({n_points} points)")}</button>
                <button data-testid="sweep-cancel" onclick={on_cancel} disabled={!job.running}>{"Cancel"}</button>
            </div>
            if let Some(e) = (*err).clone() { <div class="error" role="alert">{e}</div> }
            {progress(&job, "points")}
            <div class="sweep-out">
                <div class="sweep-plot">
                    <label>{"plot "}
                        <select data-testid="sweep-metric" onchange={on_metric}>
                            { for PLOTTED.iter().enumerate().map(|(i, m)| html! { <option value={m.0} selected={i == *metric}>{m.1}</option> }) }
                        </select>
                    </label>
                    <canvas ref={canvas} class="chart sweep-chart" data-testid="sweep-plot" role="img"
                        aria-label="the chosen metric against load, one line per preset"></canvas>
                </div>
                <pre class="seed-table" data-testid="sweep-table">{table}</pre>
            </div>
            <details>
                <summary>{"JSON (as sis sweep --format json)"}</summary>
                <pre class="seed-table" data-testid="sweep-json">{if job.running || job.points.is_empty() { String::new() } else { job.json() }}</pre>
            </details>
        </div>
    }
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
pub fn HeatPanel(p: &PanelProps) -> Html {
    let h = use_job();
    let job = h.job.clone();
    let y = use_state(|| YParam::LlcWeight);
    let err = use_state(|| None::<String>);
    let c1 = use_node_ref();
    let c2 = use_node_ref();
    let on_run = {
        let (h, wb, sc, y, err) = (
            h.clone(),
            p.wb.clone(),
            p.scenario.clone(),
            y.clone(),
            err.clone(),
        );
        Callback::from(move |_: MouseEvent| match heat_points(&sc, &wb.a, *y) {
            Ok(points) => {
                err.set(None);
                h.start(points);
            }
            Err(e) => err.set(Some(e)),
        })
    };
    let on_cancel = {
        let h = h.clone();
        Callback::from(move |_: MouseEvent| h.cancel())
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
    let on_a = dispatch_to(&p.wb, WbAction::A);
    // The grid of the job that ran (its points say which parameter).
    let (ys, y_name): (Vec<u32>, &str) = match job.points.first() {
        Some(_)
            if job
                .points
                .iter()
                .any(|s| s.llc_weight != job.points[0].llc_weight) =>
        {
            (HEAT_LLC.to_vec(), "llc_weight")
        }
        Some(_) => (HEAT_PCT.to_vec(), "imbalance_pct"),
        None => (Vec::new(), ""),
    };
    let rows: Vec<Option<SweepRow>> = job
        .points
        .iter()
        .zip(&job.reports)
        .map(|(sc, r)| Some(SweepRow::new(sc, report_from_json(sc, r.as_deref()?).ok()?)))
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
    let preset = job
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
                    if c.client_width() > 0 && !hm.ys.is_empty() {
                        let dpr = fit(&c);
                        if let Err(e) = draw_heatmap(&c, hm, hot, &pal, dpr) {
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
                <label>{"preset "}{preset_select("heat-preset", &p.wb.a, None, on_a)}</label>
                <label>{"against "}
                    <select data-testid="heat-y" onchange={on_y}>
                        <option value="llc_weight" selected={*y == YParam::LlcWeight}>{"load × llc_weight"}</option>
                        <option value="imbalance_pct" selected={*y == YParam::ImbalancePct}>{"load × imbalance_pct"}</option>
                    </select>
                </label>
                <button class="primary" data-testid="heat-run" onclick={on_run} disabled={job.running}>{"Run heatmap"}</button>
                <button data-testid="heat-cancel" onclick={on_cancel} disabled={!job.running}>{"Cancel"}</button>
            </div>
            if let Some(e) = (*err).clone() { <div class="error" role="alert">{e}</div> }
            {progress(&job, "cells")}
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
