//! `sis sweep`: presets x loads, run in parallel, printed with sis-core's sweep formatters
//! (the same ones the app uses), in an order that does not depend on `--jobs`.

use crate::args::ScenarioArgs;
use crate::format_of;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sis_core::engine::RunReport;
use sis_core::sweep::{
    format_compare, format_csv, format_json, format_table, run_point, SweepRow, SweepSpec,
    DEFAULT_LOADS,
};
use sis_core::{InputError, Scenario};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    sc: ScenarioArgs,
    /// Loads in percent of the CPUs [default: 25,50,75,100,125,150,175,200, or --load]
    #[arg(long, value_name = "PCT,PCT,...", allow_hyphen_values = true)]
    loads: Option<String>,
    /// Presets to compare; the first is the baseline [default: --preset, or linux-6.0]
    #[arg(long, value_name = "P,P,...", allow_hyphen_values = true)]
    presets: Option<String>,
    /// table, csv or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
    /// Worker threads [default: available parallelism]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    jobs: Option<String>,
}

fn list(v: &str) -> Vec<&str> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The sweep the flags describe; every value checked by `Scenario::set_field`.
fn spec(a: &SweepArgs) -> Result<SweepSpec, InputError> {
    let resolved = a.sc.resolve()?;
    let base = resolved.scenario;
    let mut probe = Scenario::default();
    let presets: Vec<String> = match &a.presets {
        Some(v) => {
            let mut out = Vec::new();
            for p in list(v) {
                probe.set_field("preset", p)?;
                if !out.contains(&probe.preset) {
                    out.push(probe.preset.clone());
                }
            }
            if out.is_empty() {
                return Err(InputError::range(
                    "presets",
                    v,
                    "a comma-separated list of preset names",
                ));
            }
            out
        }
        None => vec![base.preset.clone()],
    };
    let loads: Vec<u32> = match &a.loads {
        Some(v) => {
            let mut out = Vec::new();
            for l in list(v) {
                probe.set_field("load", l)?;
                out.push(probe.load);
            }
            if out.is_empty() {
                return Err(InputError::range(
                    "loads",
                    v,
                    "a comma-separated list of load percents, like 25,50,100",
                ));
            }
            out
        }
        None if a.sc.load.is_some() => vec![base.load],
        None => DEFAULT_LOADS.to_vec(),
    };
    let imbalance = resolved
        .explicit_imbalance_pct
        .then_some(base.imbalance_pct);
    let mut spec = SweepSpec::new(base, presets, loads)?;
    spec.imbalance_pct = imbalance;
    spec.validate()?;
    Ok(spec)
}

fn jobs(v: &Option<String>) -> Result<usize, InputError> {
    match v {
        None => Ok(std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)),
        Some(v) => v
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=1024).contains(n))
            .ok_or_else(|| InputError::range("jobs", v, "an integer in 1..=1024")),
    }
}

/// Runs the points on `jobs` threads; result `i` is point `i` whatever the scheduling.
fn run_parallel(
    points: &[Scenario],
    jobs: usize,
    bar: &ProgressBar,
) -> Result<Vec<RunReport>, InputError> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<RunReport, InputError>>>> =
        points.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(points.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(sc) = points.get(i) else { break };
                let r = run_point(sc);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                bar.inc(1);
            });
        }
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(InputError::range("sweep", "?", "every point to run")))
        })
        .collect()
}

pub fn main(a: &SweepArgs) -> Result<String, InputError> {
    let spec = spec(a)?;
    let format = format_of(&a.format, &["table", "csv", "json"])?;
    let jobs = jobs(&a.jobs)?;
    let points = spec.points();
    let bar = if std::io::stderr().is_terminal() {
        let b =
            ProgressBar::with_draw_target(Some(points.len() as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "sweep {bar:40} {pos}/{len} points [{elapsed_precise}, eta {eta}]",
        ) {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let reports = run_parallel(&points, jobs, &bar);
    bar.finish_and_clear();
    let rows: Vec<SweepRow> = points
        .iter()
        .zip(reports?)
        .map(|(sc, r)| SweepRow::new(sc, r))
        .collect();
    Ok(match format {
        "csv" => format_csv(&rows),
        "json" => format_json(&rows) + "\n",
        _ => {
            let mut s = format_table(&rows);
            if let Some((base, rest)) = spec.presets.split_first() {
                for other in rest.iter().filter(|p| *p != base) {
                    s.push('\n');
                    s.push_str(&format_compare(&rows, base, other));
                }
            }
            s
        }
    })
}
