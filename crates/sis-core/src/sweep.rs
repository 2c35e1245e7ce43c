//! Sweeps: one base scenario run over several presets and loads, and the seed-style tables
//! (`schedstat_parse.py`'s efficiency table, mmtests' `baseline compare%` table) and CSV/JSON
//! of the results.
//!
//! Pure and single-threaded: the CLI runs [`SweepSpec::points`] in parallel and the browser
//! app runs them one at a time, and both format the same [`SweepRow`]s with the same
//! functions, so their output is identical.

use crate::engine::{run, RunReport};
use crate::error::InputError;
use crate::features::preset;
use crate::scenario::{Scenario, WorkloadKind};
use crate::workload::GROUP_TASKS;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The seeds' loads: 25%..200% of the CPUs in steps of 25.
pub const DEFAULT_LOADS: [u32; 8] = [25, 50, 75, 100, 125, 150, 175, 200];

/// A sweep: `base` run once per (preset, load).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepSpec {
    pub base: Scenario,
    pub presets: Vec<String>,
    pub loads: Vec<u32>,
    /// An explicit imbalance_pct kept for every preset. `None`: each preset brings its own
    /// (as `Scenario::set_field("preset", ..)` does).
    #[serde(default)]
    pub imbalance_pct: Option<u32>,
}

impl SweepSpec {
    /// A sweep whose presets and loads are checked through [`Scenario::set_field`].
    pub fn new(base: Scenario, presets: Vec<String>, loads: Vec<u32>) -> Result<Self, InputError> {
        let spec = SweepSpec {
            base,
            presets,
            loads,
            imbalance_pct: None,
        };
        spec.validate()?;
        Ok(spec)
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

    /// Every point, **preset-major**: all loads of the first preset (in `loads` order), then
    /// all loads of the second, ... Index `i` is preset `i / loads.len()`, load
    /// `i % loads.len()`. A point is `base` with `preset` and `load` replaced; the preset brings
    /// its imbalance_pct unless [`SweepSpec::imbalance_pct`] is set.
    pub fn points(&self) -> Vec<Scenario> {
        let mut out = Vec::with_capacity(self.presets.len() * self.loads.len());
        for p in &self.presets {
            for &load in &self.loads {
                let mut sc = self.base.clone();
                sc.preset = p.clone();
                sc.imbalance_pct = self
                    .imbalance_pct
                    .or_else(|| preset(p).ok().map(|x| x.imbalance_pct))
                    .unwrap_or(sc.imbalance_pct);
                sc.load = load;
                out.push(sc);
            }
        }
        out
    }
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
    let features = if sc.features.is_empty() {
        String::new()
    } else {
        format!(" [{}]", sc.features)
    };
    format!(
        "preset {}{features}: {} on {} x {} CPUs (smt {}, {}), imbalance_pct {}, {} after {} warm-up, seed {}",
        sc.preset,
        sc.workload.name(),
        plural(sc.llcs as u64, "LLC"),
        sc.llc_weight,
        sc.smt,
        sc.numbering.name(),
        sc.imbalance_pct,
        sc.duration,
        sc.warmup,
        sc.seed
    )
}

const CASE_W: usize = 16;
const LOAD_W: usize = 14;

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

/// `schedstat_parse.py`'s table: one block per preset (a header line naming it, the column
/// header, one row per load in the rows' order), blocks separated by a blank line.
pub fn format_table(rows: &[SweepRow]) -> String {
    let mut s = String::new();
    for (i, p) in presets_in(rows).into_iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let block: Vec<&SweepRow> = rows.iter().filter(|r| r.preset == p).collect();
        let _ = writeln!(s, "{}", block_header(&block[0].report.scenario));
        let _ = writeln!(s, "{}", table_header());
        for r in block {
            let sc = &r.report.scenario;
            let m = &r.report.metrics;
            let _ = writeln!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}{:>12.3}{:>12.3}{:>12.3}{:>15.3}",
                case_name(sc.workload),
                load_label(sc),
                m.se_eff,
                m.dom_eff,
                m.fast_rate,
                m.success_rate
            );
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

/// The quantities [`format_compare`] compares, with how to print their values.
#[allow(clippy::type_complexity)]
const COMPARED: &[(&str, fn(&RunReport) -> f64, bool)] = &[
    ("wakeups", |r| r.wakeups as f64, false),
    ("se_eff%", |r| r.metrics.se_eff, true),
    ("dom_eff%", |r| r.metrics.dom_eff, true),
    ("fast_rate%", |r| r.metrics.fast_rate, true),
    ("success_rate%", |r| r.metrics.success_rate, true),
    ("sis_scanned", |r| r.counters.sis_scanned as f64, false),
    ("sis_failed", |r| r.counters.sis_failed as f64, false),
];

/// mmtests' comparison of two presets, one section per quantity (`wakeups` as the throughput
/// of the fixed simulated time, the four metrics, `sis_scanned`, `sis_failed`), each with the
/// columns `case load baseline compare% compare` and one row per load of the baseline that
/// the compare preset also ran.
pub fn format_compare(rows: &[SweepRow], baseline: &str, compare: &str) -> String {
    let pairs: Vec<(&SweepRow, &SweepRow)> = rows
        .iter()
        .filter(|r| r.preset == baseline)
        .filter_map(|b| {
            rows.iter()
                .find(|c| c.preset == compare && c.load == b.load)
                .map(|c| (b, c))
        })
        .collect();
    let mut s = String::new();
    for (i, (name, get, is_pct)) in COMPARED.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let _ = writeln!(s, "{name} (baseline {baseline}, compare {compare})");
        let _ = writeln!(s, "{}", "=".repeat(name.len()));
        let _ = writeln!(
            s,
            "{:<CASE_W$}{:>LOAD_W$}{:>14}{:>12}{:>14}",
            "case", "load", "baseline", "compare%", "compare"
        );
        for (b, c) in &pairs {
            let (vb, vc) = (get(&b.report), get(&c.report));
            let fmt = |v: f64| {
                if *is_pct {
                    format!("{v:.3}")
                } else {
                    format!("{v:.0}")
                }
            };
            let sc = &b.report.scenario;
            let _ = writeln!(
                s,
                "{:<CASE_W$}{:>LOAD_W$}{:>14}{:>12}{:>14}",
                case_name(sc.workload),
                load_label(sc),
                fmt(vb),
                format_compare_pct(compare_pct(vb, vc)),
                fmt(vc)
            );
        }
    }
    s
}

/// The CSV header of [`format_csv`].
pub const CSV_HEADER: &str = "preset,workload,load,wakeups,sis_search,sis_domain_search,sis_scanned,sis_failed,se_eff,dom_eff,fast_rate,success_rate,scanned_per_wakeup,migrations";

/// One line per row (metrics with 3 decimals), after [`CSV_HEADER`].
pub fn format_csv(rows: &[SweepRow]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in rows {
        let k = &r.report.counters;
        let m = &r.report.metrics;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{}",
            r.preset,
            r.report.scenario.workload.name(),
            r.load,
            r.report.wakeups,
            k.sis_search,
            k.sis_domain_search,
            k.sis_scanned,
            k.sis_failed,
            m.se_eff,
            m.dom_eff,
            m.fast_rate,
            m.success_rate,
            m.scanned_per_wakeup,
            r.report.migrations
        );
    }
    s
}

/// The rows as a pretty JSON array of `{preset, load, report}`.
pub fn format_json(rows: &[SweepRow]) -> String {
    serde_json::to_string_pretty(rows).unwrap_or_default()
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
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[1],
            "linux-6.0,netperf,25,100,100,40,400,10,22.500,8.824,60.000,90.000,4.000,0"
        );
        let back: Vec<SweepRow> = serde_json::from_str(&format_json(&rows)).unwrap();
        assert_eq!(back, rows);
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
        assert_eq!(format_json(&a), format_json(&b));
        assert_eq!(a[1].load, 150);
        assert!(a[0].report.wakeups > 0);
    }
}
