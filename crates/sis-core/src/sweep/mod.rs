//! Sweeps: one base scenario run over several presets, loads and seeds, and the seed-style
//! tables (`schedstat_parse.py`'s efficiency table, mmtests' `baseline compare%` table, seed
//! 000's `baseline(std%) compare%( std%)` with replicates) and CSV/JSON of the results.
//!
//! Pure and single-threaded: the CLI runs [`SweepSpec::points`] in parallel (or one
//! [`shard`] of them per machine) and the browser app runs them one at a time or on a worker
//! pool; all format the same [`SweepRow`]s, in point order, with the same functions, so their
//! output is identical byte for byte.

pub mod output;
pub mod shard;
pub mod stats;

use crate::engine::{run, RunReport};
use crate::error::InputError;
use crate::features::preset;
use crate::scenario::{Scenario, WorkloadKind};
use crate::workload::GROUP_TASKS;
use serde::{Deserialize, Serialize};
use stats::{quantity, summarise, PointSummary, COMPARE_KEYS, TABLE_KEYS};
use std::fmt::Write;

pub use output::{format_csv, format_json, format_output, format_tables, SweepJson, FORMATS};

/// The seeds' loads: 25%..200% of the CPUs in steps of 25.
pub const DEFAULT_LOADS: [u32; 8] = [25, 50, 75, 100, 125, 150, 175, 200];

/// The most seeds (replicates) a sweep runs per point.
pub const MAX_SEEDS: usize = 1000;

/// A sweep: `base` run once per (preset, load, seed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepSpec {
    pub base: Scenario,
    pub presets: Vec<String>,
    pub loads: Vec<u32>,
    /// An explicit imbalance_pct kept for every preset. `None`: each preset brings its own
    /// (as `Scenario::set_field("preset", ..)` does).
    #[serde(default)]
    pub imbalance_pct: Option<u32>,
    /// The PRNG seeds each (preset, load) runs with (replicates); empty: `base.seed` only.
    #[serde(default)]
    pub seeds: Vec<u64>,
}

impl SweepSpec {
    /// A sweep whose presets and loads are checked through [`Scenario::set_field`].
    pub fn new(base: Scenario, presets: Vec<String>, loads: Vec<u32>) -> Result<Self, InputError> {
        let spec = SweepSpec {
            base,
            presets,
            loads,
            imbalance_pct: None,
            seeds: Vec::new(),
        };
        spec.validate()?;
        Ok(spec)
    }

    /// The same sweep run with each of `seeds` (see [`parse_seeds`]) per (preset, load).
    pub fn with_seeds(mut self, seeds: Vec<u64>) -> Result<Self, InputError> {
        self.seeds = seeds;
        self.validate()?;
        Ok(self)
    }

    /// The seeds each (preset, load) runs with: [`SweepSpec::seeds`], or `base.seed`.
    pub fn seed_list(&self) -> Vec<u64> {
        if self.seeds.is_empty() {
            vec![self.base.seed]
        } else {
            self.seeds.clone()
        }
    }

    /// How many runs [`SweepSpec::points`] holds.
    pub fn point_count(&self) -> usize {
        self.presets.len() * self.loads.len() * self.seed_list().len()
    }

    /// Checks that there is something to run and that every point is a valid scenario.
    pub fn validate(&self) -> Result<(), InputError> {
        if self.presets.is_empty() {
            return Err(InputError::range(
                "presets",
                "",
                "a comma-separated list of preset names",
            ));
        }
        if self.loads.is_empty() {
            return Err(InputError::range(
                "loads",
                "",
                "a comma-separated list of load percents, like 25,50,100",
            ));
        }
        if self.seeds.len() > MAX_SEEDS {
            return Err(InputError::range(
                "seeds",
                format!("{} seeds", self.seeds.len()),
                &format!("at most {MAX_SEEDS} seeds"),
            ));
        }
        if let Some(d) = first_duplicate(&self.seeds) {
            return Err(InputError::range(
                "seeds",
                seeds_text(&self.seeds),
                &format!("distinct seeds ({d} is given twice)"),
            ));
        }
        if self.base.tasks != 0 {
            return Err(InputError::range(
                "tasks",
                self.base.tasks,
                "0 in a sweep (a sweep varies the load)",
            ));
        }
        for p in self.points() {
            validated(&p)?;
        }
        Ok(())
    }

    /// Every run, **preset-major**: all loads of the first preset (in `loads` order), then
    /// all loads of the second, ..., and within a load every seed in [`SweepSpec::seed_list`]
    /// order. With `S` seeds, index `i` is preset `i / (loads.len() * S)`, load
    /// `i / S % loads.len()`, seed `i % S`. A point is `base` with `preset`, `load` and `seed`
    /// replaced; the preset brings its imbalance_pct unless [`SweepSpec::imbalance_pct`] is
    /// set. The list depends on nothing but the spec: the CLI's threads and shards and the
    /// browser's workers split it by index.
    pub fn points(&self) -> Vec<Scenario> {
        let seeds = self.seed_list();
        let mut out = Vec::with_capacity(self.point_count());
        for p in &self.presets {
            for &load in &self.loads {
                for &seed in &seeds {
                    let mut sc = self.base.clone();
                    sc.preset = p.clone();
                    sc.imbalance_pct = self
                        .imbalance_pct
                        .or_else(|| preset(p).ok().map(|x| x.imbalance_pct))
                        .unwrap_or(sc.imbalance_pct);
                    sc.load = load;
                    sc.seed = seed;
                    out.push(sc);
                }
            }
        }
        out
    }
}

/// The first value of `xs` that appears again later.
fn first_duplicate(xs: &[u64]) -> Option<u64> {
    let mut sorted = xs.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

const SEEDS_EXPECTED: &str =
    "a comma-separated list of seeds (integers in 0..=18446744073709551615) or ranges low-high, like 1,2,3 or 1-10";

/// `--seeds`: comma-separated seeds and inclusive ranges (`1,2,3`, `1-10`, `1-3,7`), in the
/// order given. Rejects an empty list, a reversed range, a seed given twice and more than
/// [`MAX_SEEDS`] seeds, naming `seeds` and the allowed range.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, InputError> {
    let bad = |expected: &str| InputError::range("seeds", text.trim(), expected);
    let num = |s: &str| s.trim().parse::<u64>().map_err(|_| bad(SEEDS_EXPECTED));
    let mut out: Vec<u64> = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(bad(SEEDS_EXPECTED));
        }
        let (lo, hi) = match item.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let v = num(item)?;
                (v, v)
            }
        };
        if lo > hi {
            return Err(bad(&format!(
                "ranges low-high with low <= high ({item} is reversed; {hi}-{lo}?)"
            )));
        }
        // Count before expanding, so `0-18446744073709551615` allocates nothing.
        if (hi - lo) as u128 + 1 + out.len() as u128 > MAX_SEEDS as u128 {
            return Err(bad(&format!("at most {MAX_SEEDS} seeds")));
        }
        out.extend(lo..=hi);
    }
    if let Some(d) = first_duplicate(&out) {
        return Err(bad(&format!("distinct seeds ({d} is given twice)")));
    }
    Ok(out)
}

/// Seeds as short text: consecutive runs as ranges (`1-3,7`).
pub fn seeds_text(seeds: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < seeds.len() {
        let mut j = i;
        while j + 1 < seeds.len() && seeds[j].checked_add(1) == Some(seeds[j + 1]) {
            j += 1;
        }
        parts.push(if j > i + 1 {
            format!("{}-{}", seeds[i], seeds[j])
        } else if j == i + 1 {
            format!("{},{}", seeds[i], seeds[j])
        } else {
            seeds[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The scenario re-read through the one validation path (every field via `set_field`).
fn validated(sc: &Scenario) -> Result<Scenario, InputError> {
    let pairs = sc.to_pairs();
    Scenario::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
}

/// Runs one point (validating it first, so a hand-built scenario cannot slip past the checks).
pub fn run_point(sc: &Scenario) -> Result<RunReport, InputError> {
    run(&validated(sc)?)
}

/// Runs every point one after the other, calling `progress(done, total)` after each.
pub fn run_serial(
    spec: &SweepSpec,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<SweepRow>, InputError> {
    let points = spec.points();
    let mut rows = Vec::with_capacity(points.len());
    for (i, sc) in points.iter().enumerate() {
        rows.push(SweepRow::new(sc, run_point(sc)?));
        progress(i + 1, points.len());
    }
    Ok(rows)
}

/// One point's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub preset: String,
    pub load: u32,
    pub report: RunReport,
}

impl SweepRow {
    pub fn new(sc: &Scenario, report: RunReport) -> Self {
        SweepRow {
            preset: sc.preset.clone(),
            load: sc.load,
            report,
        }
    }
}

/// The seed's `case` column: the benchmark's own name for the workload.
pub fn case_name(w: WorkloadKind) -> &'static str {
    match w {
        WorkloadKind::Netperf => "TCP_RR",
        WorkloadKind::Tbench => "loopback",
        WorkloadKind::Hackbench => "process-pipe",
        WorkloadKind::Schbench => "normal",
        other => other.name(),
    }
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The seed's `load` column: "28 threads" (netperf/tbench: instances = load% of the CPUs),
/// "2 groups" (hackbench: groups of 28 tasks), "2 mthreads" (schbench, as the seed writes its
/// message threads), "N tasks" (uniform) and "N%" (pinned). Counts as the workload builds them.
pub fn load_label(sc: &Scenario) -> String {
    let cpus = sc.nr_cpus() as u64;
    // workload::build's units: per-unit count from tasks or load, at least 1 when load > 0.
    let units = |per: u64| -> u64 {
        if sc.tasks > 0 {
            (sc.tasks as u64 / per).max(1)
        } else {
            (sc.load as u64 * cpus / 100 / per).max(u64::from(sc.load > 0))
        }
    };
    match sc.workload {
        WorkloadKind::Netperf | WorkloadKind::Tbench => {
            let n = if sc.tasks > 0 {
                (sc.tasks as u64 / 2).max(1)
            } else {
                units(1)
            };
            plural(n, "thread")
        }
        WorkloadKind::Hackbench => plural(units(GROUP_TASKS as u64), "group"),
        WorkloadKind::Schbench => plural(units(GROUP_TASKS as u64), "mthread"),
        WorkloadKind::Uniform => plural(units(1), "task"),
        WorkloadKind::Pinned => format!("{}%", sc.load),
    }
}

/// One line naming the preset and what was run.
pub fn block_header(sc: &Scenario) -> String {
    header_with(sc, &format!("seed {}", sc.seed))
}

/// [`block_header`] of a point run with several seeds.
fn replicate_header(sc: &Scenario, seeds: &[u64]) -> String {
    header_with(
        sc,
        &format!(
            "seeds {}, mean (std%) of {}",
            seeds_text(seeds),
            plural(seeds.len() as u64, "run")
        ),
    )
}

fn header_with(sc: &Scenario, seeds: &str) -> String {
    let features = if sc.features.is_empty() {
        String::new()
    } else {
        format!(" [{}]", sc.features)
    };
    format!(
        "preset {}{features}: {} on {} x {} CPUs (smt {}, {}), imbalance_pct {}, {} after {} warm-up, {seeds}",
        sc.preset,
        sc.workload.name(),
        plural(sc.llcs as u64, "LLC"),
        sc.llc_weight,
        sc.smt,
        sc.numbering.name(),
        sc.imbalance_pct,
        sc.duration,
        sc.warmup,
    )
}

const CASE_W: usize = 16;
const LOAD_W: usize = 14;
/// A `mean (std%)` column of the replicate table.
const REP_W: usize = 20;

/// The column header of [`format_table`].
pub fn table_header() -> String {
    format!(
        "{:<CASE_W$}{:>LOAD_W$}{:>12}{:>12}{:>12}{:>15}",
        "case", "load", "se_eff%", "dom_eff%", "fast_rate%", "success_rate%"
    )
}

/// Presets in order of first appearance.
fn presets_in(rows: &[SweepRow]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.preset.as_str()) {
            out.push(&r.preset);
        }
    }
    out
}

/// Seeds in order of first appearance over `points`.
fn seeds_of<'a>(points: impl IntoIterator<Item = &'a PointSummary>) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for p in points {
        for s in &p.seeds {
            if !out.contains(s) {
                out.push(*s);
            }
        }
    }
    out
}

/// A std% as the seeds print it inside `( )`: `%6.2f`, `-` when undefined.
fn std_cell(std_pct: Option<f64>) -> String {
    match std_pct {
        Some(v) => format!("{v:6.2}"),
        None => format!("{:>6}", "-"),
    }
}

/// `schedstat_parse.py`'s table: one block per preset (a header line naming it, the column
/// header, one row per load in the rows' order), blocks separated by a blank line. When a
/// point has several runs (seeds), each value is `mean (std%)` over them.
pub fn format_table(rows: &[SweepRow]) -> String {
    let sums = summarise(rows);
    let replicated = sums.iter().any(|p| p.runs() > 1);
    let mut s = String::new();
    for (i, p) in presets_in(rows).into_iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let block: Vec<&PointSummary> = sums.iter().filter(|r| r.preset == p).collect();
        let sc0 = &block[0].first.scenario;
        if replicated {
            let _ = writeln!(s, "{}", replicate_header(sc0, &seeds_of(block.clone())));
            let _ = write!(s, "{:<CASE_W$}{:>LOAD_W$}", "case", "load");
            for k in TABLE_KEYS {
                let _ = write!(s, "{:>REP_W$}", format!("{}(std%)", quantity(k).label));
            }
            s.push('\n');
        } else {
            let _ = writeln!(s, "{}", block_header(sc0));
            let _ = writeln!(s, "{}", table_header());
        }
        for r in block {
            let sc = &r.first.scenario;
            let _ = write!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}",
                case_name(sc.workload),
                load_label(sc)
            );
            for (k, w) in TABLE_KEYS.iter().zip([12, 12, 12, 15]) {
                let e = r.estimate(k);
                if replicated {
                    let cell = format!("{:.3} ({})", e.mean, std_cell(e.std_pct));
                    let _ = write!(s, "{cell:>REP_W$}");
                } else {
                    let _ = write!(s, "{:>w$.3}", e.mean);
                }
            }
            s.push('\n');
        }
    }
    s
}

/// mmtests' compare%: `100 * (compare - baseline) / baseline`. Defined for `baseline == 0`:
/// 0 when both are 0, else +/-infinity (printed `+inf%` / `-inf%`).
pub fn compare_pct(baseline: f64, compare: f64) -> f64 {
    if baseline == 0.0 {
        if compare == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(compare)
        }
    } else {
        100.0 * (compare - baseline) / baseline
    }
}

/// compare% as the seed prints it: sign always, one decimal, a trailing `%`.
pub fn format_compare_pct(pct: f64) -> String {
    format!("{pct:+.1}%")
}

/// The footnote under a replicate compare section that marked a difference.
pub const UNSUPPORTED_NOTE: &str = "* the 95% confidence intervals of baseline and compare overlap: the runs do not support this difference";

/// mmtests' comparison of two presets, one section per quantity (`wakeups` as the throughput
/// of the fixed simulated time, the four metrics, `sis_scanned`, `sis_failed`), one row per
/// load of the baseline that the compare preset also ran. With one run per point the
/// columns are `case load baseline compare% compare`. With several runs (seeds) they are seed
/// 000's `baseline(std%) compare%( std%)` (the baseline as 1.00 with its std%, compare% with
/// the compare preset's std%, `*` where the 95% intervals overlap, i.e. the runs do not
/// support the difference) followed by the two means.
pub fn format_compare(rows: &[SweepRow], baseline: &str, compare: &str) -> String {
    let sums = summarise(rows);
    let pairs: Vec<(&PointSummary, &PointSummary)> = sums
        .iter()
        .filter(|r| r.preset == baseline)
        .filter_map(|b| {
            sums.iter()
                .find(|c| c.preset == compare && c.load == b.load)
                .map(|c| (b, c))
        })
        .collect();
    let replicated = pairs.iter().any(|(b, c)| b.runs() > 1 || c.runs() > 1);
    let mut s = String::new();
    for (i, key) in COMPARE_KEYS.iter().enumerate() {
        let q = quantity(key);
        if i > 0 {
            s.push('\n');
        }
        let fmt = |v: f64| match (q.count, replicated) {
            (false, _) => format!("{v:.3}"),
            (true, false) => format!("{v:.0}"),
            (true, true) => format!("{v:.1}"),
        };
        if replicated {
            let seeds = seeds_of(pairs.iter().flat_map(|(b, c)| [*b, *c]));
            let _ = writeln!(
                s,
                "{} (baseline {baseline}, compare {compare}; seeds {}, mean (std%) of {})",
                q.label,
                seeds_text(&seeds),
                plural(seeds.len() as u64, "run")
            );
        } else {
            let _ = writeln!(s, "{} (baseline {baseline}, compare {compare})", q.label);
        }
        let _ = writeln!(s, "{}", "=".repeat(q.label.len()));
        if replicated {
            let _ = writeln!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}{:>16}{:>18} {:>14}{:>14}",
                "case", "load", "baseline(std%)", "compare%( std%)", "baseline", "compare"
            );
        } else {
            let _ = writeln!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}{:>14}{:>12}{:>14}",
                "case", "load", "baseline", "compare%", "compare"
            );
        }
        let mut marked = false;
        for (b, c) in &pairs {
            let (eb, ec) = (b.estimate(key), c.estimate(key));
            let sc = &b.first.scenario;
            let _ = write!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}",
                case_name(sc.workload),
                load_label(sc)
            );
            if replicated {
                let cmp = stats::Compared::of(eb, ec);
                let mark = if cmp.unsupported() { '*' } else { ' ' };
                marked |= cmp.unsupported();
                let _ = writeln!(
                    s,
                    "{:>16}{:>18}{mark}{:>14}{:>14}",
                    format!("1.00 ({})", std_cell(eb.std_pct)),
                    format!("{:+.2} ({})", cmp.compare_pct, std_cell(ec.std_pct)),
                    fmt(eb.mean),
                    fmt(ec.mean)
                );
            } else {
                let _ = writeln!(
                    s,
                    "{:>14}{:>12}{:>14}",
                    fmt(eb.mean),
                    format_compare_pct(compare_pct(eb.mean, ec.mean)),
                    fmt(ec.mean)
                );
            }
        }
        if marked {
            let _ = writeln!(s, "{UNSUPPORTED_NOTE}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::HistogramReport;
    use crate::stats::{Counters, Metrics};

    fn row(preset: &str, workload: &str, load: u32, counters: Counters) -> SweepRow {
        let sc = Scenario::from_pairs([
            ("preset", preset),
            ("workload", workload),
            ("llc_weight", "112"),
            ("load", &load.to_string()),
        ])
        .unwrap();
        let metrics: Metrics = counters.metrics();
        SweepRow::new(
            &sc,
            RunReport {
                scenario: sc.clone(),
                sim_time_ns: 0,
                wakeups: counters.wakeups,
                migrations: counters.migrations,
                counters,
                metrics,
                nr_idle_scan: vec![],
                per_cpu: vec![],
                scan_histogram: HistogramReport {
                    unit: "usecs".into(),
                    labels: vec![],
                    buckets: vec![],
                },
            },
        )
    }

    #[test]
    fn compare_pct_matches_the_seed() {
        // seed 000, 224 threads: sis_scanned.avg 128300000 -> 15551326 is -87.9%.
        assert_eq!(
            format_compare_pct(compare_pct(128300000.0, 15551326.0)),
            "-87.9%"
        );
        assert_eq!(
            format_compare_pct(compare_pct(4544492.0, 15338634.0)),
            "+237.5%"
        );
        assert_eq!(
            format_compare_pct(compare_pct(5842896.0, 15347978.0)),
            "+162.7%"
        );
        // sis_failed.avg 38539 -> 15333634: the seed prints +39686.8%, computed from the
        // unrounded per-CPU mean (~38539.5, printed truncated as 38539). From the printed
        // integers the formula gives +39687.3%; from the mean it gives the seed's figure.
        assert_eq!(
            format_compare_pct(compare_pct(38539.0, 15333634.0)),
            "+39687.3%"
        );
        assert_eq!(
            format_compare_pct(compare_pct(38539.5, 15333634.0)),
            "+39686.8%"
        );
    }

    #[test]
    fn compare_pct_is_defined_for_a_zero_baseline() {
        assert_eq!(compare_pct(0.0, 0.0), 0.0);
        assert_eq!(format_compare_pct(compare_pct(0.0, 5.0)), "+inf%");
        assert_eq!(format_compare_pct(compare_pct(0.0, -5.0)), "-inf%");
        assert_eq!(format_compare_pct(compare_pct(10.0, 10.0)), "+0.0%");
    }

    fn counters(search: u64, dom: u64, scanned: u64, failed: u64) -> Counters {
        Counters {
            sis_search: search,
            sis_domain_search: dom,
            sis_scanned: scanned,
            sis_failed: failed,
            wakeups: search,
            ..Default::default()
        }
    }

    #[test]
    fn table_has_the_seed_columns_and_one_row_per_load() {
        let rows: Vec<SweepRow> = [25, 50, 200]
            .iter()
            .map(|&l| row("linux-6.0", "netperf", l, counters(100, 40, 400, 10)))
            .collect();
        let t = format_table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 3, "{t}");
        assert!(lines[0].starts_with("preset linux-6.0: netperf"), "{t}");
        let cols: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(
            cols,
            [
                "case",
                "load",
                "se_eff%",
                "dom_eff%",
                "fast_rate%",
                "success_rate%"
            ]
        );
        // 25% of 112 CPUs = 28 netperf threads; se_eff 22.5, dom_eff 30/340, fast 60, succ 90.
        let r: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            r,
            ["TCP_RR", "28", "threads", "22.500", "8.824", "60.000", "90.000"]
        );
        assert!(lines[4].contains("224 threads"), "{t}");
        // Right-aligned columns: every row as wide as the header.
        for l in &lines[2..] {
            assert_eq!(l.len(), lines[1].len(), "{t}");
        }
    }

    #[test]
    fn one_block_per_preset_and_a_compare_table() {
        let mut rows = Vec::new();
        for p in ["linux-5.13", "linux-6.0"] {
            for l in [25, 200] {
                let scanned = if p == "linux-6.0" {
                    15551326
                } else {
                    128300000
                };
                rows.push(row(p, "hackbench", l, counters(1000, 500, scanned, 0)));
            }
        }
        let t = format_table(&rows);
        assert_eq!(t.matches("preset linux-5.13").count(), 1, "{t}");
        assert_eq!(t.matches("preset linux-6.0").count(), 1, "{t}");
        assert!(t.contains("process-pipe") && t.contains("1 group ") && t.contains("8 groups"));
        let c = format_compare(&rows, "linux-5.13", "linux-6.0");
        let sec = c
            .split("\n\n")
            .find(|s| s.starts_with("sis_scanned"))
            .unwrap();
        let lines: Vec<&str> = sec.lines().collect();
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["case", "load", "baseline", "compare%", "compare"]
        );
        assert_eq!(lines.len(), 3 + 2, "{sec}");
        assert!(lines[3].contains("128300000") && lines[3].contains("-87.9%"));
        let failed = c
            .split("\n\n")
            .find(|s| s.starts_with("sis_failed"))
            .unwrap();
        assert!(failed.contains("+0.0%"), "{failed}");
    }

    #[test]
    fn load_labels_follow_the_seed() {
        let sc = |w: &str, load: &str| {
            Scenario::from_pairs([("workload", w), ("llc_weight", "112"), ("load", load)]).unwrap()
        };
        assert_eq!(load_label(&sc("netperf", "25")), "28 threads");
        assert_eq!(load_label(&sc("tbench", "200")), "224 threads");
        assert_eq!(load_label(&sc("hackbench", "25")), "1 group");
        assert_eq!(load_label(&sc("hackbench", "200")), "8 groups");
        assert_eq!(load_label(&sc("schbench", "50")), "2 mthreads");
        assert_eq!(load_label(&sc("uniform", "50")), "56 tasks");
        assert_eq!(load_label(&sc("pinned", "50")), "50%");
        assert_eq!(case_name(WorkloadKind::Uniform), "uniform");
    }

    #[test]
    fn csv_header_and_rows() {
        let rows = vec![row("linux-6.0", "netperf", 25, counters(100, 40, 400, 10))];
        let c = format_csv(&rows);
        let lines: Vec<&str> = c.lines().collect();
        // One preset, one seed: the columns as before comparisons and replicates.
        assert_eq!(
            lines[0],
            "preset,workload,load,wakeups,sis_search,sis_domain_search,sis_scanned,sis_failed,se_eff,dom_eff,fast_rate,success_rate,scanned_per_wakeup,migrations"
        );
        assert_eq!(lines[0], output::csv_header(false, false));
        assert_eq!(
            lines[1],
            "linux-6.0,netperf,25,100,100,40,400,10,22.500,8.824,60.000,90.000,4.000,0"
        );
        let spec = spec_of(&rows);
        let v: serde_json::Value = serde_json::from_str(&format_json(&spec, &rows)).unwrap();
        let back: Vec<SweepRow> = serde_json::from_value(v["rows"].clone()).unwrap();
        assert_eq!(back, rows);
        assert_eq!(v["compare"], serde_json::json!([]));
        assert_eq!(v["summary"][0]["runs"], 1);
        assert_eq!(v["summary"][0]["quantities"]["se_eff"]["mean"], 22.5);
        assert!(v["summary"][0]["quantities"]["se_eff"]["std_pct"].is_null());
    }

    /// A spec whose points are the rows' (preset, load) pairs (for the JSON's `sweep`).
    fn spec_of(rows: &[SweepRow]) -> SweepSpec {
        let mut presets: Vec<String> = Vec::new();
        let mut loads: Vec<u32> = Vec::new();
        for r in rows {
            if !presets.contains(&r.preset) {
                presets.push(r.preset.clone());
            }
            if !loads.contains(&r.load) {
                loads.push(r.load);
            }
        }
        SweepSpec::new(rows[0].report.scenario.clone(), presets, loads).unwrap()
    }

    fn row_seed(preset: &str, load: u32, seed: u64, c: Counters) -> SweepRow {
        let mut r = row(preset, "netperf", load, c);
        r.report.scenario.seed = seed;
        r
    }

    #[test]
    fn csv_and_json_carry_the_comparison() {
        let mut rows = Vec::new();
        for (p, scanned) in [("linux-5.13", 128300000), ("linux-6.0", 15551326)] {
            for l in [25, 200] {
                rows.push(row(p, "netperf", l, counters(1000, 500, scanned, 0)));
            }
        }
        let c = format_csv(&rows);
        let lines: Vec<&str> = c.lines().collect();
        let head: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(lines.len(), 5, "{c}");
        let col = |line: &str, name: &str| -> String {
            let i = head.iter().position(|h| *h == name).unwrap();
            line.split(',').nth(i).unwrap().to_string()
        };
        // Every line has every column.
        assert!(lines.iter().all(|l| l.split(',').count() == head.len()));
        assert_eq!(col(lines[3], "preset"), "linux-6.0");
        assert_eq!(col(lines[3], "baseline"), "linux-5.13");
        assert_eq!(col(lines[3], "sis_scanned_baseline"), "128300000");
        assert_eq!(col(lines[3], "sis_scanned"), "15551326");
        // The table's -87.9%, with three decimals.
        assert_eq!(col(lines[3], "sis_scanned_compare_pct"), "-87.879");
        assert_eq!(col(lines[3], "sis_failed_compare_pct"), "0.000");
        // The baseline's own lines compare to themselves.
        assert_eq!(col(lines[1], "sis_scanned_compare_pct"), "0.000");
        assert!(!head.contains(&"runs"), "no replicate columns for one seed");

        let v: serde_json::Value =
            serde_json::from_str(&format_json(&spec_of(&rows), &rows)).unwrap();
        let cmp = v["compare"].as_array().unwrap();
        assert_eq!(cmp.len(), 2);
        assert_eq!(cmp[1]["preset"], "linux-6.0");
        assert_eq!(cmp[1]["baseline"], "linux-5.13");
        assert_eq!(cmp[1]["load"], 200);
        let q = &cmp[1]["quantities"]["sis_scanned"];
        assert_eq!(q["baseline"], 128300000.0);
        assert_eq!(q["compare"], 15551326.0);
        assert_eq!(
            format_compare_pct(q["compare_pct"].as_f64().unwrap()),
            "-87.9%"
        );
        assert!(q["ci_overlap"].is_null());
        // Keys in the quantities' order, as the CSV columns.
        let keys: Vec<&String> = cmp[0]["quantities"].as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), stats::QUANTITIES.len());
    }

    #[test]
    fn replicates_print_mean_and_std_as_the_seed() {
        // sis_scanned over seeds 1-3: baseline 100/110/90 (mean 100, std 10%), compare
        // 50/55/45 (-50%, std 10%): intervals apart. sis_failed 10/20/30 vs 12/22/32: the
        // intervals overlap, so the +10% gets the seed's `*`.
        let mut rows = Vec::new();
        for (p, scanned, failed) in [
            ("linux-5.13", [100, 110, 90], [10, 20, 30]),
            ("linux-6.0", [50, 55, 45], [12, 22, 32]),
        ] {
            for i in 0..3 {
                rows.push(row_seed(
                    p,
                    50,
                    i as u64 + 1,
                    counters(1000, 500, scanned[i], failed[i]),
                ));
            }
        }
        let t = format_table(&rows);
        assert!(t.contains("seeds 1-3, mean (std%) of 3 runs"), "{t}");
        assert!(t.contains("se_eff%(std%)"), "{t}");
        let c = format_compare(&rows, "linux-5.13", "linux-6.0");
        let sec = |name: &str| {
            c.split("\n\n")
                .find(|s| s.starts_with(name))
                .unwrap()
                .to_string()
        };
        let scanned = sec("sis_scanned");
        let lines: Vec<&str> = scanned.lines().collect();
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            [
                "case",
                "load",
                "baseline(std%)",
                "compare%(",
                "std%)",
                "baseline",
                "compare"
            ]
        );
        assert_eq!(
            lines[3].split_whitespace().collect::<Vec<_>>(),
            [
                "TCP_RR", "56", "threads", "1.00", "(", "10.00)", "-50.00", "(", "10.00)", "100.0",
                "50.0"
            ],
            "{scanned}"
        );
        assert!(lines[3].contains("1.00 ( 10.00)"), "{scanned}");
        assert!(!scanned.contains('*'), "{scanned}");
        let failed = sec("sis_failed");
        assert!(failed.contains("+10.00 ( 45.45)*"), "{failed}");
        assert!(failed.contains(UNSUPPORTED_NOTE), "{failed}");

        let csv = format_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        let head: Vec<&str> = lines[0].split(',').collect();
        let col = |line: &str, name: &str| -> String {
            let i = head.iter().position(|h| *h == name).unwrap();
            line.split(',').nth(i).unwrap().to_string()
        };
        assert_eq!(lines.len(), 3, "one line per (preset, load): {csv}");
        assert_eq!(col(lines[1], "runs"), "3");
        assert_eq!(col(lines[1], "sis_scanned"), "100.000");
        assert_eq!(col(lines[1], "sis_scanned_std_pct"), "10.000");
        // 100 -/+ 4.303 * 10 / sqrt(3)
        assert_eq!(col(lines[1], "sis_scanned_ci95_lo"), "75.157");
        assert_eq!(col(lines[1], "sis_scanned_ci95_hi"), "124.843");
        assert_eq!(col(lines[2], "sis_scanned_ci_overlap"), "false");
        assert_eq!(col(lines[2], "sis_failed_ci_overlap"), "true");

        let v: serde_json::Value =
            serde_json::from_str(&format_json(&spec_of(&rows), &rows)).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 6);
        assert_eq!(v["summary"][0]["seeds"], serde_json::json!([1, 2, 3]));
        let e = &v["summary"][0]["quantities"]["sis_scanned"];
        assert_eq!(e["std_pct"], 10.0);
        assert!(e["ci95_lo"].as_f64().unwrap() < 100.0);
        assert_eq!(
            v["compare"][0]["quantities"]["sis_failed"]["ci_overlap"],
            true
        );
    }

    #[test]
    fn seeds_parse_and_reject_bad_lists() {
        assert_eq!(parse_seeds("1,2,3").unwrap(), [1, 2, 3]);
        assert_eq!(parse_seeds("1-10").unwrap(), (1..=10).collect::<Vec<_>>());
        assert_eq!(parse_seeds(" 7, 1-3 ").unwrap(), [7, 1, 2, 3]);
        assert_eq!(parse_seeds("5-5").unwrap(), [5]);
        assert_eq!(parse_seeds("18446744073709551615").unwrap(), [u64::MAX]);
        for (bad, why) in [
            ("", "comma-separated"),
            ("1,,2", "comma-separated"),
            ("a", "comma-separated"),
            ("-3", "comma-separated"),
            ("10-1", "reversed"),
            ("1,2,1", "1 is given twice"),
            ("1-5,3", "3 is given twice"),
            ("1-1001", "at most 1000"),
            ("0-18446744073709551615", "at most 1000"),
        ] {
            let e = parse_seeds(bad).unwrap_err();
            assert_eq!(e.field, "seeds", "{bad}");
            assert!(e.expected.contains(why), "{bad}: {e}");
        }
        assert_eq!(seeds_text(&[1, 2, 3, 7, 9, 10]), "1-3,7,9,10");
        assert_eq!(seeds_text(&[u64::MAX]), "18446744073709551615");
    }

    #[test]
    fn points_vary_the_seed_innermost() {
        let base = Scenario::from_pairs([("llc_weight", "8"), ("seed", "42")]).unwrap();
        let spec = SweepSpec::new(base.clone(), vec!["linux-6.0".into()], vec![50, 100]).unwrap();
        assert!(spec.points().iter().all(|p| p.seed == 42));
        let spec = spec.with_seeds(vec![3, 1]).unwrap();
        let pts: Vec<(u32, u64)> = spec.points().iter().map(|p| (p.load, p.seed)).collect();
        assert_eq!(pts, [(50, 3), (50, 1), (100, 3), (100, 1)]);
        assert_eq!(spec.point_count(), 4);
        let e = spec.clone().with_seeds(vec![1, 1]).unwrap_err();
        assert_eq!(e.field, "seeds");
        let e = spec.with_seeds((0..1001).collect()).unwrap_err();
        assert_eq!(e.field, "seeds");
    }

    #[test]
    fn points_are_preset_major_and_validated() {
        let base = Scenario::from_pairs([("llc_weight", "8"), ("duration", "200ms")]).unwrap();
        let spec = SweepSpec::new(
            base.clone(),
            vec!["linux-4.13".into(), "linux-6.0".into()],
            vec![50, 100],
        )
        .unwrap();
        let pts: Vec<(String, u32, u32)> = spec
            .points()
            .into_iter()
            .map(|s| (s.preset, s.load, s.imbalance_pct))
            .collect();
        assert_eq!(
            pts,
            [
                ("linux-4.13".into(), 50, 125),
                ("linux-4.13".into(), 100, 125),
                ("linux-6.0".into(), 50, 117),
                ("linux-6.0".into(), 100, 117)
            ]
        );
        let mut fixed = spec.clone();
        fixed.imbalance_pct = Some(130);
        assert!(fixed.points().iter().all(|s| s.imbalance_pct == 130));
        let e = SweepSpec::new(base.clone(), vec!["linux-9.9".into()], vec![50]).unwrap_err();
        assert_eq!(e.field, "preset");
        let e = SweepSpec::new(base.clone(), vec!["linux-6.0".into()], vec![5000]).unwrap_err();
        assert_eq!(e.field, "load");
        assert!(SweepSpec::new(base, vec![], vec![50]).is_err());
    }

    #[test]
    fn serial_run_is_deterministic() {
        let base =
            Scenario::from_pairs([("llc_weight", "8"), ("duration", "30ms"), ("warmup", "5ms")])
                .unwrap();
        let spec = SweepSpec::new(base, vec!["linux-6.0".into()], vec![50, 150]).unwrap();
        let mut seen = Vec::new();
        let a = run_serial(&spec, |d, n| seen.push((d, n))).unwrap();
        let b = run_serial(&spec, |_, _| {}).unwrap();
        assert_eq!(seen, [(1, 2), (2, 2)]);
        assert_eq!(format_json(&spec, &a), format_json(&spec, &b));
        assert_eq!(a[1].load, 150);
        assert!(a[0].report.wakeups > 0);
    }
}
