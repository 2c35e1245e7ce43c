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
pub mod table;

use crate::error::InputError;
use crate::kernel::features::preset;
use crate::sim::engine::{run, RunReport};
use crate::sim::scenario::Scenario;
use serde::{Deserialize, Serialize};

pub use output::{format_csv, format_json, format_output, format_tables, SweepJson, FORMATS};
use table::presets_in;
pub use table::{
    block_header, case_name, compare_pct, format_compare, format_compare_pct, format_table,
    load_label, table_header, UNSUPPORTED_NOTE,
};

/// The seeds' loads: 25%..200% of the CPUs in steps of 25.
pub const DEFAULT_LOADS: [u32; 8] = [25, 50, 75, 100, 125, 150, 175, 200];

/// The most seeds (replicates) a sweep runs per point.
pub const MAX_SEEDS: usize = 1000;

/// A sweep entry that is a scan-depth rule of the user's own rather than a preset's name:
/// `nr_expr=EXPR` runs the base scenario's preset with `EXPR` as its throttle, beside the
/// presets (`--presets linux-6.0,nr_expr=min(llc_weight,4)`).
pub const RULE_ENTRY: &str = "nr_expr=";

/// The rule of a `nr_expr=EXPR` sweep entry; `None` for a preset's name.
pub fn rule_of(entry: &str) -> Option<&str> {
    entry.strip_prefix(RULE_ENTRY)
}

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
        if let Some(i) =
            (1..self.presets.len()).find(|&i| self.presets[..i].contains(&self.presets[i]))
        {
            return Err(InputError::range(
                "presets",
                self.presets.join(","),
                &format!("distinct presets ({} is given twice)", self.presets[i]),
            ));
        }
        if let Some(p) = self
            .presets
            .iter()
            .find(|p| rule_of(p).is_some_and(str::is_empty))
        {
            return Err(InputError::range(
                "presets",
                p,
                "a preset's name, or nr_expr=EXPR with a rule (like nr_expr=llc_weight/4)",
            ));
        }
        let loads: Vec<u64> = self.loads.iter().map(|&l| u64::from(l)).collect();
        if let Some(d) = first_duplicate(&loads) {
            let text: Vec<String> = self.loads.iter().map(u32::to_string).collect();
            return Err(InputError::range(
                "loads",
                text.join(","),
                &format!("distinct loads ({d} is given twice)"),
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
                    match rule_of(p) {
                        // The base preset, throttled by the rule instead of its own.
                        Some(rule) => sc.nr_expr = rule.to_string(),
                        None => sc.preset = p.clone(),
                    }
                    sc.imbalance_pct = self
                        .imbalance_pct
                        .or_else(|| preset(&sc.preset).ok().map(|x| x.imbalance_pct))
                        .unwrap_or(sc.imbalance_pct);
                    sc.load = load;
                    sc.seed = seed;
                    out.push(sc);
                }
            }
        }
        out
    }

    /// The entry (a preset's name, or `nr_expr=EXPR`) point `i` of [`SweepSpec::points`]
    /// runs: its rows' `preset`.
    pub fn entry_of_point(&self, i: usize) -> &str {
        let per_entry = (self.loads.len() * self.seed_list().len()).max(1);
        &self.presets[(i / per_entry).min(self.presets.len().saturating_sub(1))]
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
        rows.push(SweepRow::new(spec.entry_of_point(i), sc, run_point(sc)?));
        progress(i + 1, points.len());
    }
    Ok(rows)
}

/// One point's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// The sweep entry: a preset's name, or `nr_expr=EXPR` (the rule on the base preset).
    pub preset: String,
    pub load: u32,
    pub report: RunReport,
}

impl SweepRow {
    /// `sc`'s run as sweep entry `entry` ([`SweepSpec::entry_of_point`]).
    pub fn new(entry: &str, sc: &Scenario, report: RunReport) -> Self {
        SweepRow {
            preset: entry.to_string(),
            load: sc.load,
            report,
        }
    }
}

/// Hand-made rows for the formatters' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::kernel::stats::{Counters, Metrics};
    use crate::sim::engine::HistogramReport;

    pub fn row(preset: &str, workload: &str, load: u32, counters: Counters) -> SweepRow {
        let sc = Scenario::from_pairs([
            ("preset", preset),
            ("workload", workload),
            ("llc_weight", "112"),
            ("load", &load.to_string()),
        ])
        .unwrap();
        let metrics: Metrics = counters.metrics();
        SweepRow::new(
            preset,
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
                throughput: Default::default(),
                cpu_busy_pct: 0.0,
                warmup: crate::sim::engine::WarmupReport {
                    settled: true,
                    ..Default::default()
                },
            },
        )
    }

    pub fn counters(search: u64, dom: u64, scanned: u64, failed: u64) -> Counters {
        Counters {
            sis_search: search,
            sis_domain_search: dom,
            sis_scanned: scanned,
            sis_failed: failed,
            wakeups: search,
            ..Default::default()
        }
    }

    pub fn row_seed(preset: &str, load: u32, seed: u64, c: Counters) -> SweepRow {
        let mut r = row(preset, "netperf", load, c);
        r.report.scenario.seed = seed;
        r
    }

    /// A spec whose points are the rows' (preset, load) pairs (for the JSON's `sweep`).
    pub fn spec_of(rows: &[SweepRow]) -> SweepSpec {
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

    /// sis_scanned over seeds 1-3: baseline 100/110/90 (mean 100, std 10%), compare
    /// 50/55/45 (-50%, std 10%): intervals apart. sis_failed 10/20/30 vs 12/22/32: the
    /// intervals overlap (+10%).
    pub fn replicate_rows() -> Vec<SweepRow> {
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
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A `nr_expr=EXPR` entry runs the base preset with the rule; plain entries keep the
    /// base's (no rule); each point knows its entry.
    #[test]
    fn a_rule_entry_runs_the_base_preset_with_the_rule() {
        let base = Scenario::from_pairs([("llc_weight", "8"), ("preset", "linux-6.7")]).unwrap();
        let entries = vec![
            "linux-5.15".to_string(),
            "nr_expr=llc_weight / 4".to_string(),
        ];
        let spec = SweepSpec::new(base, entries, vec![50, 100]).unwrap();
        let spec = spec.with_seeds(vec![1, 2]).unwrap();
        let pts = spec.points();
        let got: Vec<(&str, &str, &str)> = pts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    spec.entry_of_point(i),
                    p.preset.as_str(),
                    p.nr_expr.as_str(),
                )
            })
            .collect();
        let plain = ("linux-5.15", "linux-5.15", "");
        let rule = ("nr_expr=llc_weight / 4", "linux-6.7", "llc_weight / 4");
        assert_eq!(got, [plain, plain, plain, plain, rule, rule, rule, rule]);
        let bad = Scenario::from_pairs([("llc_weight", "8")]).unwrap();
        let e = SweepSpec::new(bad.clone(), vec!["nr_expr=".into()], vec![50]).unwrap_err();
        assert_eq!(e.field, "presets");
        let e = SweepSpec::new(bad, vec!["nr_expr=min(".into()], vec![50]).unwrap_err();
        assert_eq!(e.field, "nr_expr");
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
                ("linux-4.13".into(), 50, 117),
                ("linux-4.13".into(), 100, 117),
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
        assert!(SweepSpec::new(base.clone(), vec![], vec![50]).is_err());
        // A load or preset twice would read as replicates of one point: rejected.
        let e =
            SweepSpec::new(base.clone(), vec!["linux-6.0".into()], vec![50, 100, 50]).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("loads", "50,100,50"));
        assert!(e.expected.contains("50 is given twice"), "{e}");
        let e = SweepSpec::new(base, vec!["linux-6.0".into(), "linux-6.0".into()], vec![50])
            .unwrap_err();
        assert_eq!(e.field, "presets");
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
