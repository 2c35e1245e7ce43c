//! A sweep's results in each output format. Every format carries the same facts: per
//! (preset, load) the mean of each quantity over the point's runs (with std% and a 95%
//! interval when it has several seeds), and with two or more presets the first preset as the
//! baseline and compare% of each quantity per load.

use super::stats::{
    comparisons, summarise, Compared, EstimateJson, Keyed, PointSummary, QUANTITIES,
};
use super::{format_compare, format_table, presets_in, SweepRow, SweepSpec};
use crate::text::Text;
use serde::Serialize;

/// The output formats of a sweep (the first is the default).
pub const FORMATS: [&str; 3] = ["table", "csv", "json"];

/// The sweep in `format` (one of [`FORMATS`]; anything else is the table). `sis sweep` and
/// `sis merge` print exactly this, so a merge of shards equals the unsharded run byte for
/// byte.
pub fn format_output(spec: &SweepSpec, rows: &[SweepRow], format: &str) -> String {
    match format {
        "csv" => format_csv(rows),
        "json" => format_json(spec, rows) + "\n",
        _ => format_tables(rows),
    }
}

/// The schedstat table of every preset, then the compare sections of each later preset
/// against the first.
pub fn format_tables(rows: &[SweepRow]) -> String {
    let mut s = format_table(rows);
    let presets = presets_in(rows);
    if let Some((base, rest)) = presets.split_first() {
        for other in rest {
            s.push('\n');
            s.push_str(&format_compare(rows, base, other));
        }
    }
    s
}

fn num(v: f64, count: bool, replicated: bool) -> String {
    if count && !replicated {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_default()
}

/// The CSV header of [`format_csv`] for `comparing` (two or more presets) and `replicated`
/// (several runs per point) sweeps.
pub fn csv_header(comparing: bool, replicated: bool) -> String {
    let mut h = String::from("preset,workload,load");
    for q in QUANTITIES {
        h.put(format_args!(",{}", q.key));
    }
    if comparing {
        h.push_str(",baseline");
        for q in QUANTITIES {
            h.put(format_args!(",{0}_baseline,{0}_compare_pct", q.key));
        }
    }
    if replicated {
        h.push_str(",runs");
        for q in QUANTITIES {
            h.put(format_args!(",{0}_std_pct,{0}_ci95_lo,{0}_ci95_hi", q.key));
            if comparing {
                h.put(format_args!(",{}_ci_overlap", q.key));
            }
        }
    }
    h
}

/// One line per (preset, load) after [`csv_header`]: the columns `preset,workload,load` and
/// each quantity's mean (counts as integers with one run, else 3 decimals); with two or more
/// presets `baseline` (the first preset) and per quantity `<q>_baseline` (its mean at this
/// load) and `<q>_compare_pct` (`inf`/`-inf` over a zero baseline; the baseline's own lines
/// compare to themselves); with several seeds `runs` and per quantity `<q>_std_pct`,
/// `<q>_ci95_lo`, `<q>_ci95_hi` and, when comparing, `<q>_ci_overlap` (`true`: the
/// intervals do not support the difference). Undefined values are empty cells.
pub fn format_csv(rows: &[SweepRow]) -> String {
    let sums = summarise(rows);
    let presets = presets_in(rows);
    let comparing = presets.len() >= 2;
    let replicated = sums.iter().any(|p| p.runs() > 1);
    let baseline_at: std::collections::BTreeMap<u32, &PointSummary> = sums
        .iter()
        .filter(|b| comparing && b.preset == presets[0])
        .map(|b| (b.load, b))
        .collect();
    let mut s = csv_header(comparing, replicated);
    s.push('\n');
    for r in &sums {
        s.put(format_args!(
            "{},{},{}",
            r.preset,
            r.first.scenario.workload.name(),
            r.load
        ));
        for q in QUANTITIES {
            s.put(format_args!(
                ",{}",
                num(r.estimate(q.key).mean, q.count, replicated)
            ));
        }
        let base = baseline_at.get(&r.load);
        let compared = |key: &str| base.map(|b| Compared::of(b.estimate(key), r.estimate(key)));
        if comparing {
            s.put(format_args!(",{}", presets[0]));
            for q in QUANTITIES {
                match compared(q.key) {
                    Some(c) => {
                        s.put(format_args!(
                            ",{},{:.3}",
                            num(c.baseline, q.count, replicated),
                            c.compare_pct
                        ));
                    }
                    None => s.push_str(",,"),
                }
            }
        }
        if replicated {
            s.put(format_args!(",{}", r.runs()));
            for q in QUANTITIES {
                let e = r.estimate(q.key);
                s.put(format_args!(
                    ",{},{},{}",
                    opt(e.std_pct),
                    opt(e.ci95.map(|c| c.0)),
                    opt(e.ci95.map(|c| c.1))
                ));
                if comparing {
                    let overlap = compared(q.key).and_then(|c| c.ci_overlap);
                    s.put(format_args!(
                        ",{}",
                        overlap.map(|o| o.to_string()).unwrap_or_default()
                    ));
                }
            }
        }
        s.push('\n');
    }
    s
}

/// One (preset, load) of [`SweepJson::summary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryJson {
    pub preset: String,
    pub load: u32,
    pub runs: usize,
    pub seeds: Vec<u64>,
    /// Every quantity: `{mean, std_pct, ci95_lo, ci95_hi}`.
    pub quantities: Keyed<EstimateJson>,
}

impl From<&PointSummary> for SummaryJson {
    fn from(p: &PointSummary) -> Self {
        SummaryJson {
            preset: p.preset.clone(),
            load: p.load,
            runs: p.runs(),
            seeds: p.seeds.clone(),
            quantities: Keyed(
                p.estimates
                    .0
                    .iter()
                    .map(|(k, e)| (*k, EstimateJson::from(e)))
                    .collect(),
            ),
        }
    }
}

/// One load of [`SweepJson::compare`]: `preset` against `baseline`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareJson {
    pub preset: String,
    pub baseline: String,
    pub load: u32,
    /// Every quantity: `{baseline, compare, compare_pct, ci_overlap}`.
    pub quantities: Keyed<Compared>,
}

/// `sis sweep --format json`: the sweep, every run in point order (`{preset, load, report}`,
/// as before replicates), each (preset, load) summarised over its runs, and each later
/// preset compared with the first per load (empty with one preset).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepJson<'a> {
    pub sweep: &'a SweepSpec,
    pub rows: &'a [SweepRow],
    pub summary: Vec<SummaryJson>,
    pub compare: Vec<CompareJson>,
}

impl<'a> SweepJson<'a> {
    pub fn new(spec: &'a SweepSpec, rows: &'a [SweepRow]) -> Self {
        let sums = summarise(rows);
        SweepJson {
            sweep: spec,
            rows,
            summary: sums.iter().map(SummaryJson::from).collect(),
            compare: comparisons(&sums)
                .into_iter()
                .map(|c| CompareJson {
                    preset: c.preset,
                    baseline: c.baseline,
                    load: c.load,
                    quantities: c.quantities,
                })
                .collect(),
        }
    }
}

/// [`SweepJson`] as pretty JSON (no trailing newline).
pub fn format_json(spec: &SweepSpec, rows: &[SweepRow]) -> String {
    serde_json::to_string_pretty(&SweepJson::new(spec, rows)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sweep::testing::*;
    use crate::analysis::sweep::{format_compare_pct, stats};

    #[test]
    fn csv_header_and_rows() {
        let rows = vec![row("linux-6.0", "netperf", 25, counters(100, 40, 400, 10))];
        let c = format_csv(&rows);
        let lines: Vec<&str> = c.lines().collect();
        // One preset, one seed: the columns as before comparisons and replicates.
        assert_eq!(
            lines[0],
            "preset,workload,load,wakeups,sis_search,sis_domain_search,sis_scanned,sis_failed,se_eff,dom_eff,fast_rate,success_rate,scanned_per_wakeup,migrations,wakeups_per_s,messages_per_s,latency_p50_us,latency_p99_us,scan_cpu_pct,cpu_busy_pct,ttwu_lock_wait_ms,remote_wakeups,involuntary_switches,idle_pick_taken"
        );
        assert_eq!(lines[0], csv_header(false, false));
        assert_eq!(
            lines[1],
            "linux-6.0,netperf,25,100,100,40,400,10,22.500,8.824,60.000,90.000,4.000,0,0,0,0.000,0.000,0.000,0.000,0.000,0,0,0"
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
    fn replicate_csv_and_json_have_std_and_intervals() {
        let rows = replicate_rows();
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
}
