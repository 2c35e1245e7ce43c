//! The seed-style text tables of a sweep: `schedstat_parse.py`'s efficiency table per preset
//! and mmtests' `baseline compare%` sections, or with replicates seed 000's
//! `baseline(std%) compare%( std%)`.

use super::stats::{quantity, summarise, PointSummary, COMPARE_KEYS, TABLE_KEYS};
use super::{seeds_text, SweepRow};
use crate::sim::scenario::{Scenario, WorkloadKind};
use crate::sim::workload::GROUP_TASKS;
use crate::text::Text;

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

pub(crate) fn plural(n: u64, one: &str) -> String {
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
    let mut features = if sc.features.is_empty() {
        String::new()
    } else {
        format!(" [{}]", sc.features)
    };
    if !sc.nr_expr.is_empty() {
        // The user's rule replaces the preset's throttle: the header says so.
        features.push_str(&format!(" [nr_expr: {}]", sc.nr_expr));
    }
    // The measured window: the duration less a fixed warm-up, or less an auto warm-up's
    // minimum (the auto warm-up itself lasts until settled).
    let window =
        crate::sim::scenario::format_duration(sc.duration_ns().saturating_sub(sc.warmup_ns()));
    let warmup = if sc.warmup_auto() {
        "an auto".to_string()
    } else {
        format!("a {}", sc.warmup)
    };
    format!(
        "preset {}{features}: {} on {} x {} CPUs (smt {}, {}), imbalance_pct {}, {} measured after {} warm-up, {seeds}",
        sc.preset,
        sc.workload.name(),
        plural(sc.llcs as u64, "LLC"),
        sc.llc_weight,
        sc.smt,
        sc.numbering.name(),
        sc.imbalance_pct,
        window,
        warmup,
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
pub(crate) fn presets_in(rows: &[SweepRow]) -> Vec<&str> {
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
            s.line(format_args!(
                "{}",
                replicate_header(sc0, &seeds_of(block.clone()))
            ));
            s.put(format_args!("{:<CASE_W$}{:>LOAD_W$}", "case", "load"));
            for k in TABLE_KEYS {
                s.put(format_args!(
                    "{:>REP_W$}",
                    format!("{}(std%)", quantity(k).label)
                ));
            }
            s.push('\n');
        } else {
            s.line(format_args!("{}", block_header(sc0)));
            s.line(format_args!("{}", table_header()));
        }
        for r in block {
            let sc = &r.first.scenario;
            s.put(format_args!(
                "{:<CASE_W$}{:>LOAD_W$}",
                case_name(sc.workload),
                load_label(sc)
            ));
            for (k, w) in TABLE_KEYS.iter().zip([12, 12, 12, 15]) {
                let e = r.estimate(k);
                if replicated {
                    let cell = format!("{:.3} ({})", e.mean, std_cell(e.std_pct));
                    s.put(format_args!("{cell:>REP_W$}"));
                } else {
                    s.put(format_args!("{:>w$.3}", e.mean));
                }
            }
            s.push('\n');
        }
        let unsettled: Vec<String> = rows
            .iter()
            .filter(|r| r.preset == p && !r.report.warmup.settled)
            .map(|r| load_label(&r.report.scenario))
            .fold(Vec::new(), |mut v, l| {
                if !v.contains(&l) {
                    v.push(l);
                }
                v
            });
        if !unsettled.is_empty() {
            s.line(format_args!(
                "warm-up had not settled (PELT or nr_idle_scan still moving) at: {}",
                unsettled.join(", ")
            ));
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
    // A workload without messages (schbench, uniform, pinned) has no messages/s section.
    let has = |key: &str| {
        pairs
            .iter()
            .any(|(b, c)| b.estimate(key).mean != 0.0 || c.estimate(key).mean != 0.0)
    };
    let keys = COMPARE_KEYS
        .iter()
        .filter(|k| **k != "messages_per_s" || has(k));
    for (i, key) in keys.enumerate() {
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
            s.line(format_args!(
                "{} (baseline {baseline}, compare {compare}; seeds {}, mean (std%) of {})",
                q.label,
                seeds_text(&seeds),
                plural(seeds.len() as u64, "run")
            ));
        } else {
            s.line(format_args!(
                "{} (baseline {baseline}, compare {compare})",
                q.label
            ));
        }
        s.line(format_args!("{}", "=".repeat(q.label.len())));
        if replicated {
            s.line(format_args!(
                "{:<CASE_W$}{:>LOAD_W$}{:>16}{:>18} {:>14}{:>14}",
                "case", "load", "baseline(std%)", "compare%( std%)", "baseline", "compare"
            ));
        } else {
            s.line(format_args!(
                "{:<CASE_W$}{:>LOAD_W$}{:>14}{:>12}{:>14}",
                "case", "load", "baseline", "compare%", "compare"
            ));
        }
        let mut marked = false;
        for (b, c) in &pairs {
            let (eb, ec) = (b.estimate(key), c.estimate(key));
            let sc = &b.first.scenario;
            s.put(format_args!(
                "{:<CASE_W$}{:>LOAD_W$}",
                case_name(sc.workload),
                load_label(sc)
            ));
            if replicated {
                let cmp = super::stats::Compared::of(eb, ec);
                let mark = if cmp.unsupported() { '*' } else { ' ' };
                marked |= cmp.unsupported();
                s.line(format_args!(
                    "{:>16}{:>18}{mark}{:>14}{:>14}",
                    format!("1.00 ({})", std_cell(eb.std_pct)),
                    format!("{:+.2} ({})", cmp.compare_pct, std_cell(ec.std_pct)),
                    fmt(eb.mean),
                    fmt(ec.mean)
                ));
            } else {
                s.line(format_args!(
                    "{:>14}{:>12}{:>14}",
                    fmt(eb.mean),
                    format_compare_pct(compare_pct(eb.mean, ec.mean)),
                    fmt(ec.mean)
                ));
            }
        }
        if marked {
            s.line(format_args!("{UNSUPPORTED_NOTE}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sweep::testing::*;

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
    fn replicates_print_mean_and_std_as_the_seed() {
        let rows = replicate_rows();
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
    }
}
