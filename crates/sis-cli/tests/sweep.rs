//! `sis sweep` and `sis merge` end to end: table, CSV and JSON (the golden file), replicates,
//! shards merged byte for byte, and mismatched shards named.

use crate::cli::{json, ok, sis, temp_file};
use serde_json::Value;
use std::path::PathBuf;

#[test]
fn sweep_table_csv_and_job_independence() {
    let base = [
        "sweep",
        "--workload",
        "netperf",
        "--llc-weight",
        "8",
        "--duration",
        "30ms",
        "--warmup",
        "5ms",
        "--presets",
        "linux-5.13,linux-6.0",
        "--loads",
        "50,200",
    ];
    let with = |extra: &[&'static str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        a
    };
    let t = ok(&with(&[]));
    assert_eq!(t.matches("preset linux-5.13").count(), 1, "{t}");
    assert_eq!(t.matches("preset linux-6.0").count(), 1, "{t}");
    assert!(
        t.contains("TCP_RR") && t.contains("4 threads") && t.contains("16 threads"),
        "{t}"
    );
    assert!(t.contains("baseline") && t.contains("compare%"), "{t}");
    let csv1 = ok(&with(&["--format", "csv", "--jobs", "1"]));
    let csv3 = ok(&with(&["--format", "csv", "--jobs", "3"]));
    assert_eq!(csv1, csv3, "results do not depend on --jobs");
    let lines: Vec<&str> = csv1.lines().collect();
    // The one-preset columns, then the comparison's (the baseline and compare% of each).
    assert!(
        lines[0].starts_with(
            "preset,workload,load,wakeups,sis_search,sis_domain_search,sis_scanned,sis_failed,se_eff,dom_eff,fast_rate,success_rate,scanned_per_wakeup,migrations,wakeups_per_s,messages_per_s,latency_p50_us,latency_p99_us,scan_cpu_pct,cpu_busy_pct,ttwu_lock_wait_ms,remote_wakeups,involuntary_switches,idle_pick_taken,baseline,wakeups_baseline,wakeups_compare_pct,"
        ),
        "{}",
        lines[0]
    );
    let keys: Vec<(&str, &str)> = lines[1..]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0], f[2])
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("linux-5.13", "50"),
            ("linux-5.13", "200"),
            ("linux-6.0", "50"),
            ("linux-6.0", "200")
        ]
    );
}

/// The sweep of tests/golden/sweep-llc8-20ms.json, tiny enough to run often.
const TINY_SWEEP: [&str; 9] = [
    "sweep",
    "--llc-weight",
    "8",
    "--duration",
    "20ms",
    "--loads",
    "50,150",
    "--presets",
    "linux-5.15,linux-6.0",
];

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = base.to_vec();
    a.extend(extra);
    a
}

/// `--format json` prints the golden file the browser is checked against, byte for byte;
/// its `rows` are the runs as `{preset, load, report}` in point order.
#[test]
fn sweep_json_matches_the_golden_and_carries_the_comparison() {
    let text = ok(&with(&TINY_SWEEP, &["--format", "json"]));
    assert!(
        text == include_str!("../../../tests/golden/sweep-llc8-20ms.json"),
        "sis sweep --format json differs from tests/golden/sweep-llc8-20ms.json (regenerate it: tests/golden/README.md)"
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let golden = v["rows"].clone();
    assert_eq!(
        v["sweep"]["presets"],
        serde_json::json!(["linux-5.15", "linux-6.0"])
    );
    // The table's compare sections, per load, as numbers.
    let cmp = v["compare"].as_array().unwrap();
    assert_eq!(cmp.len(), 2);
    let rows = golden.as_array().unwrap();
    let (b, c) = (&rows[1]["report"], &rows[3]["report"]);
    let q = &cmp[1]["quantities"]["sis_scanned"];
    assert_eq!(cmp[1]["load"], 150);
    assert_eq!(
        q["baseline"],
        b["counters"]["sis_scanned"].as_f64().unwrap()
    );
    assert_eq!(q["compare"], c["counters"]["sis_scanned"].as_f64().unwrap());
    let (vb, vc) = (
        q["baseline"].as_f64().unwrap(),
        q["compare"].as_f64().unwrap(),
    );
    assert_eq!(q["compare_pct"].as_f64().unwrap(), 100.0 * (vc - vb) / vb);
    // The table prints the same compare% (one decimal).
    let t = ok(&TINY_SWEEP);
    let sec = t
        .split("\n\n")
        .find(|s| s.starts_with("sis_scanned"))
        .unwrap();
    assert!(
        sec.contains(&format!("{:+.1}%", 100.0 * (vc - vb) / vb)),
        "{sec}"
    );
    // And the CSV.
    let csv = ok(&with(&TINY_SWEEP, &["--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    let head: Vec<&str> = lines[0].split(',').collect();
    let at = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let last: Vec<&str> = lines[4].split(',').collect();
    assert_eq!(last[at("baseline")], "linux-5.15");
    assert_eq!(
        last[at("sis_scanned_compare_pct")],
        format!("{:.3}", 100.0 * (vc - vb) / vb)
    );
}

/// Replicates: each point once per seed; table, CSV and JSON all summarise them, and the
/// result does not depend on --jobs.
#[test]
fn sweep_replicates_report_mean_std_and_interval() {
    let a = with(&TINY_SWEEP, &["--seeds", "1-3", "--format", "json"]);
    let one = ok(&with(&a, &["--jobs", "1"]));
    assert_eq!(
        ok(&with(&a, &["--jobs", "3"])),
        one,
        "results do not depend on --jobs"
    );
    let v: Value = serde_json::from_str(&one).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 2 * 3);
    let seeds: Vec<u64> = rows[..3]
        .iter()
        .map(|r| r["report"]["scenario"]["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds, [1, 2, 3]);
    // Seed 1's run is the single-seed sweep's run.
    let single = json(&with(&TINY_SWEEP, &["--format", "json"]));
    assert_eq!(rows[0], single["rows"][0]);
    let s = &v["summary"][1];
    assert_eq!(
        (s["load"].as_u64(), s["runs"].as_u64()),
        (Some(150), Some(3))
    );
    let xs: Vec<f64> = rows[3..6]
        .iter()
        .map(|r| r["report"]["wakeups"].as_f64().unwrap())
        .collect();
    let e = &s["quantities"]["wakeups"];
    let mean = e["mean"].as_f64().unwrap();
    assert!((mean - xs.iter().sum::<f64>() / 3.0).abs() < 1e-9);
    let (lo, hi) = (
        e["ci95_lo"].as_f64().unwrap(),
        e["ci95_hi"].as_f64().unwrap(),
    );
    assert!(lo < mean && mean < hi, "{e}");
    assert!(v["compare"][0]["quantities"]["wakeups"]["ci_overlap"].is_boolean());
    let t = ok(&with(&TINY_SWEEP, &["--seeds", "1-3"]));
    assert!(t.contains("seeds 1-3, mean (std%) of 3 runs"), "{t}");
    assert!(
        t.contains("baseline(std%)") && t.contains("compare%( std%)"),
        "{t}"
    );
    assert!(t.contains(" 1.00 ("), "{t}");
    let csv = ok(&with(&TINY_SWEEP, &["--seeds", "1-3", "--format", "csv"]));
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains(",runs,wakeups_std_pct,wakeups_ci95_lo,"));
}

fn write_shards(args: &[&str], n: u32) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let out = ok(&with(args, &["--shard", &shard]));
            temp_file(&format!("shard-{k}-of-{n}.json"), &out)
        })
        .collect()
}

fn merge_args<'a>(files: &'a [PathBuf], extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["merge"];
    a.extend(files.iter().map(|f| f.to_str().unwrap()));
    a.extend(extra);
    a
}

/// `--shard K/N` for every K, merged in any order, prints exactly what one run prints.
#[test]
fn shards_merge_into_the_unsharded_run_byte_for_byte() {
    let sweep = with(&TINY_SWEEP, &["--seeds", "1-2"]);
    let whole: Vec<(&str, String)> = ["table", "csv", "json"]
        .iter()
        .map(|f| (*f, ok(&with(&sweep, &["--format", f]))))
        .collect();
    for n in 1..=5 {
        let mut files = write_shards(&sweep, n);
        files.reverse();
        for (format, want) in &whole {
            let got = ok(&merge_args(&files, &["--format", format]));
            assert!(
                &got == want,
                "N = {n}, --format {format}: merge differs from one run"
            );
        }
        assert_eq!(
            ok(&merge_args(&files, &[])),
            whole[0].1,
            "default format: table"
        );
    }
}

fn merge_error(files: &[PathBuf]) -> String {
    let o = sis(&merge_args(files, &[]));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
    err
}

#[test]
fn mismatched_shards_are_rejected_naming_the_file() {
    let three = write_shards(&TINY_SWEEP, 3);
    let name = |p: &PathBuf| p.to_str().unwrap().to_string();
    // Missing.
    let e = merge_error(&three[..2]);
    assert!(e.contains("missing 3/3"), "{e}");
    // Repeated.
    let e = merge_error(&[
        three[0].clone(),
        three[1].clone(),
        three[2].clone(),
        three[1].clone(),
    ]);
    assert!(
        e.contains(&name(&three[1])) && e.contains("each shard once"),
        "{e}"
    );
    // Another sweep (other loads).
    let other = write_shards(&with(&TINY_SWEEP, &["--loads", "50"]), 3);
    let e = merge_error(&[three[0].clone(), three[1].clone(), other[2].clone()]);
    assert!(e.contains(&name(&other[2])) && e.contains("loads"), "{e}");
    // Another split.
    let two = write_shards(&TINY_SWEEP, 2);
    let e = merge_error(&[three[0].clone(), two[1].clone(), three[2].clone()]);
    assert!(e.contains(&name(&two[1])) && e.contains("2/2"), "{e}");
    // Not a shard: the whole sweep's JSON.
    let whole = temp_file("whole.json", &ok(&with(&TINY_SWEEP, &["--format", "json"])));
    let e = merge_error(std::slice::from_ref(&whole));
    assert!(e.contains(&name(&whole)) && e.contains("--shard"), "{e}");
    // A shard whose rows were edited (a point moved to another shard).
    let text = std::fs::read_to_string(&three[0]).unwrap();
    let edited = temp_file(
        "edited.json",
        &text.replacen("\"point\":0", "\"point\":1", 1),
    );
    let e = merge_error(&[edited.clone(), three[1].clone(), three[2].clone()]);
    assert!(
        e.contains(&name(&edited)) && e.contains("points of shard 1/3"),
        "{e}"
    );
    // Truncated JSON.
    let cut = temp_file("cut.json", &text[..text.len() / 2]);
    let e = merge_error(std::slice::from_ref(&cut));
    assert!(e.contains(&name(&cut)) && e.contains("EOF"), "{e}");
}

/// A rule is a sweep entry of its own (issue 30): `nr_expr=EXPR` runs `--preset` with the
/// rule, its rows carry the entry's name, and SIS_UTIL's own formula as the rule runs
/// exactly as linux-6.0 does (every counter equal), while another rule does not.
#[test]
fn a_rule_is_a_sweep_entry_beside_the_presets() {
    let sis_util = format!("nr_expr={}", sis_core::kernel::nr_expr::SIS_UTIL_RULE);
    let presets = format!("linux-6.0,{sis_util},nr_expr=min(llc_weight, 2)");
    let v = json(&[
        "sweep",
        "--llc-weight",
        "16",
        "--duration",
        "30ms",
        "--warmup",
        "10ms",
        "--loads",
        "50,150",
        "--presets",
        &presets,
        "--format",
        "json",
    ]);
    let rows = v["rows"].as_array().unwrap();
    let named =
        |name: &str| -> Vec<&Value> { rows.iter().filter(|r| r["preset"] == name).collect() };
    let (kernel, same, other) = (
        named("linux-6.0"),
        named(&sis_util),
        named("nr_expr=min(llc_weight, 2)"),
    );
    assert_eq!((kernel.len(), same.len(), other.len()), (2, 2, 2), "{v}");
    for ((k, s), o) in kernel.iter().zip(&same).zip(&other) {
        // The rule runs on --preset (linux-6.0 by default), its scenario says which rule.
        assert_eq!(s["report"]["scenario"]["preset"], "linux-6.0");
        assert_eq!(
            s["report"]["scenario"]["nr_expr"],
            sis_core::kernel::nr_expr::SIS_UTIL_RULE
        );
        assert_eq!(
            k["report"]["counters"], s["report"]["counters"],
            "load {}",
            k["load"]
        );
        if k["load"] == 150 {
            assert_ne!(k["report"]["counters"], o["report"]["counters"]);
        }
    }
    // The table and the compare sections name the rule.
    let t = ok(&[
        "sweep",
        "--llc-weight",
        "16",
        "--duration",
        "20ms",
        "--loads",
        "150",
        "--presets",
        "linux-6.0,nr_expr=min(llc_weight, 2)",
    ]);
    assert!(t.contains("compare nr_expr=min(llc_weight, 2))"), "{t}");
    // A malformed rule, or an entry with none, names the field and what it expects.
    let bad = sis(&[
        "sweep",
        "--llc-weight",
        "16",
        "--presets",
        "linux-6.0,nr_expr=min(2,",
    ]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("invalid nr_expr"),
        "{err}"
    );
    let bad = sis(&[
        "sweep",
        "--llc-weight",
        "16",
        "--presets",
        "linux-6.0,nr_expr=",
    ]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("invalid presets 'nr_expr='"),
        "{err}"
    );
}
