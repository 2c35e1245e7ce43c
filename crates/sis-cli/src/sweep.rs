//! `sis sweep`: presets x loads x seeds, run in parallel, printed with sis-core's sweep
//! formatters (the same ones the app and `sis merge` use), in an order that does not depend on
//! `--jobs`; or one shard of it (`--shard K/N`) as JSON for `sis merge`.

use crate::args::ScenarioArgs;
use crate::format_of;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sis_core::analysis::sweep::shard::{shard_points, ShardFile, ShardId};
use sis_core::analysis::sweep::{
    format_output, parse_seeds, run_point, SweepRow, SweepSpec, DEFAULT_LOADS, FORMATS,
};
use sis_core::sim::engine::RunReport;
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
    /// Presets to compare; the first is the baseline [default: --preset, or linux-6.0]. An
    /// entry nr_expr=EXPR runs --preset with your own scan-depth rule beside them
    #[arg(long, value_name = "P,P,...", allow_hyphen_values = true)]
    presets: Option<String>,
    /// table, csv or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
    /// Worker threads [default: available parallelism]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    jobs: Option<String>,
    /// Replicates: run each point with each seed, like 1,2,3 or 1-10 (at most 1000); tables
    /// show mean (std%), CSV/JSON add the 95% interval [default: --seed]
    #[arg(long, value_name = "S,S-S,...", allow_hyphen_values = true)]
    seeds: Option<String>,
    /// Run only the K-th of N round-robin slices of the points (1 <= K <= N) and print it as
    /// JSON for `sis merge`
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    shard: Option<String>,
}

/// The sweep the flags describe; every value checked by `Scenario::set_field`.
fn spec(a: &SweepArgs) -> Result<SweepSpec, InputError> {
    // A one-value flag beside its list flag would be ignored: say so instead.
    for (list, list_flag, one, one_flag) in [
        (&a.loads, "loads", a.sc.get("load"), "--load"),
        (&a.presets, "presets", a.sc.get("preset"), "--preset"),
    ] {
        if let (Some(v), Some(_)) = (list, one) {
            return Err(InputError::range(
                list_flag,
                v,
                &format!(
                    "either {one_flag} or --{list_flag}, not both (--{list_flag} replaces the \
                     {} of every point)",
                    &one_flag[2..]
                ),
            ));
        }
    }
    let resolved = a.sc.resolve()?;
    let base = resolved.scenario;
    let mut probe = Scenario::default();
    let presets: Vec<String> = match &a.presets {
        Some(v) => {
            let mut out = Vec::new();
            // Split at the commas outside parentheses: a rule's min(a,b) stays one entry.
            for p in crate::args::parse_list_nested("presets", v, "preset names")? {
                let entry = match sis_core::analysis::sweep::rule_of(p) {
                    Some(rule) => {
                        probe.set_field("nr_expr", rule)?;
                        format!("{}{}", sis_core::analysis::sweep::RULE_ENTRY, probe.nr_expr)
                    }
                    None => {
                        probe.set_field("preset", p)?;
                        probe.preset.clone()
                    }
                };
                if !out.contains(&entry) {
                    out.push(entry);
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
            for l in crate::args::parse_list("loads", v, "load percents")? {
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
        None if a.sc.get("load").is_some() => vec![base.load],
        None => DEFAULT_LOADS.to_vec(),
    };
    let imbalance = resolved
        .explicit_imbalance_pct
        .then_some(base.imbalance_pct);
    let mut spec = SweepSpec::new(base, presets, loads)?;
    spec.imbalance_pct = imbalance;
    if let Some(v) = &a.seeds {
        if a.sc.get("seed").is_some() {
            return Err(InputError::range(
                "seeds",
                v,
                "either --seed or --seeds, not both (--seeds replaces the seed of every point)",
            ));
        }
        spec = spec.with_seeds(parse_seeds(v)?)?;
    }
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

/// A progress bar on stderr for `len` `unit`s when stderr is a terminal, else hidden.
pub fn progress_bar(label: &str, len: usize, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{label} {{bar:40}} {{pos}}/{{len}} {unit} [{{elapsed_precise}}, eta {{eta}}]"
    )) {
        b.set_style(style);
    }
    b
}

pub fn main(a: &SweepArgs) -> Result<String, InputError> {
    let spec = spec(a)?;
    let jobs = jobs(&a.jobs)?;
    if let Some(text) = &a.shard {
        let id = ShardId::parse(text)?;
        if let Some(f) = a.format.as_deref().filter(|f| *f != "json") {
            return Err(InputError::range(
                "format",
                f,
                "json with --shard (a shard is JSON for sis merge; give --format to sis merge)",
            ));
        }
        let (index, points): (Vec<usize>, Vec<Scenario>) =
            shard_points(&spec, id).into_iter().unzip();
        let bar = progress_bar(&format!("shard {id}"), points.len(), "points");
        let reports = run_parallel(&points, jobs, &bar);
        bar.finish_and_clear();
        let rows = index
            .into_iter()
            .zip(points.iter().zip(reports?))
            .map(|(i, (sc, r))| (i, SweepRow::new(spec.entry_of_point(i), sc, r)))
            .collect();
        return Ok(ShardFile::new(&spec, id, rows).to_json());
    }
    let format = format_of(&a.format, &FORMATS)?;
    let points = spec.points();
    let bar = progress_bar("sweep", points.len(), "points");
    let reports = run_parallel(&points, jobs, &bar);
    bar.finish_and_clear();
    let rows: Vec<SweepRow> = points
        .iter()
        .zip(reports?)
        .enumerate()
        .map(|(i, (sc, r))| SweepRow::new(spec.entry_of_point(i), sc, r))
        .collect();
    Ok(format_output(&spec, &rows, format))
}
