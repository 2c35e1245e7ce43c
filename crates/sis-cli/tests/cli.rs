//! End-to-end tests of the `sis` binary (design.md "Contracts → CLI"). Small scenarios only:
//! the whole file runs in well under a few seconds in a debug build.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const SIS: &str = env!("CARGO_BIN_EXE_sis");

/// A small, fast run: 8 CPUs, 50 ms of simulated time.
const SMALL: [&str; 6] = [
    "--llc-weight",
    "8",
    "--duration",
    "50ms",
    "--warmup",
    "10ms",
];

pub(crate) fn sis(args: &[&str]) -> Output {
    Command::new(SIS)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("cannot start sis")
}

/// The command's stdout; it must succeed without writing to stderr.
pub(crate) fn ok(args: &[&str]) -> String {
    let o = sis(args);
    assert!(
        o.status.success(),
        "sis {args:?} failed ({:?}): {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "sis {args:?} wrote to stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("stdout is UTF-8")
}

pub(crate) fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("sis {args:?}: not JSON ({e}): {out}"))
}

/// A fresh file under cargo's per-test temporary directory.
pub(crate) fn temp_file(name: &str, text: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "sis-cli-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SEED_PCTS: [u32; 11] = [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86];

fn curve_csv(w: u32) -> Vec<(u64, u32, u32)> {
    let out = ok(&["curve", "--llc-weight", &w.to_string(), "--format", "csv"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("sum_util,util_pct,nr_scan"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 3, "{l}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn curve_reproduces_the_seed_tables() {
    for (w, want) in [
        (112u32, [112u32, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0]),
        (16, [16, 15, 15, 14, 13, 11, 9, 6, 3, 0, 0]),
    ] {
        let rows = curve_csv(w);
        assert_eq!(rows.len(), 101, "util_pct 0..=100");
        let got: Vec<u32> = SEED_PCTS
            .iter()
            .map(|p| {
                let (sum, pct, nr) = rows[*p as usize];
                assert_eq!(pct, *p);
                assert_eq!(
                    sum,
                    *p as u64 * w as u64 * 1024 / 100,
                    "floor(pct*W*1024/100)"
                );
                nr
            })
            .collect();
        assert_eq!(got, want, "llc_weight {w}");
    }
}

/// SIS_UTIL's formula as a user's rule draws the kernel's curve, at every sum_util.
#[test]
fn curve_draws_an_nr_expr_rule_beside_sis_util() {
    let rule = "llc_weight * (1024 - min(1024, (sum_util / llc_weight) * (sum_util / llc_weight) \
                * imbalance_pct * imbalance_pct / 10240000)) / 1024";
    let csv = ok(&[
        "curve",
        "--llc-weight",
        "16",
        "--points",
        "all",
        "--format",
        "csv",
        "--nr-expr",
        rule,
    ]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("sum_util,util_pct,nr_scan,nr_expr"));
    let mut n = 0;
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f[2], f[3], "{l}");
        n += 1;
    }
    assert_eq!(n, 16 * 1024 + 1);
    // Another rule differs, and the table gains its column.
    let t = ok(&["curve", "--llc-weight", "16", "--nr-expr", "llc_weight / 2"]);
    assert!(t.contains("nr_scan  nr_expr"), "{t}");
}

#[test]
fn curve_all_points_and_formats() {
    let out = ok(&[
        "curve",
        "--llc-weight",
        "2",
        "--points",
        "all",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        1 + 2 * 1024 + 1,
        "header + every sum_util 0..=2048"
    );
    assert_eq!(lines[1], "0,0.00,2");
    assert_eq!(lines.last().copied(), Some("2048,100.00,0"));
    let j = json(&["curve", "--llc-weight", "112", "--format", "json"]);
    assert_eq!(j["curve"][25]["nr_scan"], 102);
    assert_eq!(j["curve"][25]["sum_util"], 25 * 112 * 1024 / 100);
    let t = ok(&["curve", "--llc-weight", "112", "--imbalance-pct", "117"]);
    assert!(t.contains("112  111  108  102   93"), "{t}");
}

#[test]
fn run_json_is_deterministic_and_has_the_contract_keys() {
    let args = |seed: &'static str| {
        let mut a = vec!["run", "--format", "json", "--seed", seed];
        a.extend(SMALL);
        a
    };
    let a = ok(&args("7"));
    let b = ok(&args("7"));
    assert!(
        a == b,
        "same scenario and seed must give byte-identical JSON"
    );
    let c = ok(&args("8"));
    assert_ne!(a, c, "another seed gives another run");

    let j: Value = serde_json::from_str(&a).unwrap();
    for k in [
        "scenario",
        "counters",
        "metrics",
        "wakeups",
        "migrations",
        "per_cpu",
        "scan_histogram",
    ] {
        assert!(j.get(k).is_some(), "run JSON lacks {k}");
    }
    assert_eq!(j["scenario"]["llc_weight"], 8);
    assert_eq!(j["scenario"]["seed"], 7);
    assert_eq!(j["scenario"]["preset"], "linux-6.0");
    for k in [
        "sis_search",
        "sis_domain_search",
        "sis_scanned",
        "sis_failed",
    ] {
        assert!(j["counters"][k].is_u64(), "counters.{k}");
    }
    for k in ["se_eff", "dom_eff", "fast_rate", "success_rate"] {
        let v = j["metrics"][k].as_f64().unwrap_or(-1.0);
        assert!((0.0..=100.0).contains(&v), "metrics.{k} = {v}");
    }
    // The wake-up's own price (design.md's contract for sis run JSON).
    for k in [
        "ttwu_lock_wait_ns",
        "remote_wakeups",
        "ipis",
        "context_switches",
        "involuntary_switches",
    ] {
        assert!(j["counters"][k].is_u64(), "counters.{k}");
    }
    let busy = j["cpu_busy_pct"].as_f64().unwrap_or(-1.0);
    assert!(busy > 0.0 && busy <= 100.0, "cpu_busy_pct = {busy}");
    assert_eq!(j["scenario"]["machine"], "auto");
    assert!(j["wakeups"].as_u64().unwrap() > 0);
    let per_cpu = j["per_cpu"].as_array().unwrap();
    assert_eq!(per_cpu.len(), 8);
    for (i, p) in per_cpu.iter().enumerate() {
        assert_eq!(p["cpu"], i);
        for k in ["placed", "found_by_scan", "util_avg"] {
            assert!(p[k].is_u64(), "per_cpu[{i}].{k}");
        }
    }
    assert!(!j["scan_histogram"]["buckets"]
        .as_array()
        .unwrap()
        .is_empty());

    let t = ok(&[
        "run",
        "--llc-weight",
        "8",
        "--duration",
        "50ms",
        "--warmup",
        "10ms",
    ]);
    assert!(t.contains("se_eff%") && t.contains("@usecs:"), "{t}");
}

#[test]
fn scenario_file_then_flags() {
    let f = temp_file(
        "sc.json",
        r#"{"llc_weight": 8, "duration": "50ms", "warmup": "10ms", "imbalance_pct": 130, "seed": 3}"#,
    );
    let f = f.to_str().unwrap();
    let j = json(&[
        "run",
        "--scenario",
        f,
        "--seed",
        "4",
        "--preset",
        "linux-4.13",
        "--format",
        "json",
    ]);
    let sc = &j["scenario"];
    assert_eq!(sc["llc_weight"], 8);
    assert_eq!(sc["seed"], 4, "the flag overrides the file");
    assert_eq!(sc["preset"], "linux-4.13");
    assert_eq!(
        sc["imbalance_pct"], 130,
        "an explicit imbalance_pct beats the preset's"
    );
    let j = json(&[
        "run",
        "--scenario",
        f,
        "--feature",
        "SIS_PROP=on",
        "--format",
        "json",
    ]);
    assert_eq!(j["scenario"]["features"], "SIS_PROP=on");
    let j = json(&[
        "run",
        "--scenario",
        f,
        "--feature",
        "SIS_PROP=on",
        "--feature",
        "SIS_AVG_CPU=on",
        "--feature",
        "sis_prop=off",
        "--format",
        "json",
    ]);
    assert_eq!(
        j["scenario"]["features"], "SIS_AVG_CPU=on,SIS_PROP=off",
        "repeatable, last wins"
    );
}

#[test]
fn trace_prints_decisions() {
    let mut a = vec!["trace", "--wakeups", "3"];
    a.extend(SMALL);
    let t = ok(&a);
    assert_eq!(
        t.lines()
            .filter(|l| l.starts_with('#') && l.contains(" t="))
            .count(),
        3,
        "{t}"
    );
    assert!(t.contains("=> cpu"), "{t}");
    a.extend(["--format", "json"]);
    let j: Value = serde_json::from_str(&ok(&a)).unwrap();
    let d = j.as_array().unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(d[0]["seq"], 1);
    assert!(d[0]["steps"].is_array());
}

/// `sis trace` streams its decisions: the JSON is exactly serde_json's pretty array of them,
/// the text and the JSON show the same decisions, and a reader that goes away early (`| head`)
/// is not an error.
#[test]
fn trace_streams_the_pretty_json_array_and_survives_a_closed_pipe() {
    use sis_core::kernel::trace::Decision;
    let mut a = vec!["trace", "--wakeups", "40", "--format", "json"];
    a.extend(SMALL);
    let text = ok(&a);
    let decisions: Vec<Decision> = serde_json::from_str(&text).unwrap();
    assert_eq!(decisions.len(), 40);
    assert_eq!(
        serde_json::to_string_pretty(&decisions).unwrap() + "\n",
        text
    );
    let seqs: Vec<u64> = decisions.iter().map(|d| d.id.seq).collect();
    assert_eq!(seqs, (1..=40).collect::<Vec<u64>>());
    // The text form: one header line per decision, the same ones.
    let mut t = vec!["trace", "--wakeups", "40"];
    t.extend(SMALL);
    let text = ok(&t);
    for d in &decisions {
        assert!(
            text.contains(&format!("#{} t={}ns ", d.id.seq, d.id.time_ns)),
            "#{}",
            d.id.seq
        );
    }
    // A reader that closes the pipe after a few bytes.
    let mut child = Command::new(SIS)
        .args([
            "trace",
            "--wakeups",
            "20000",
            "--llc-weight",
            "64",
            "--load",
            "300",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 64];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut head).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every case of sis-core's decide testdata, through the binary with --all-presets.
#[test]
fn decide_matches_the_testdata() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sis-core/testdata/decide");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut checked = 0;
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for c in v["cases"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap_or("?");
            let state = temp_file("state.json", &c["state"].to_string());
            let all = json(&[
                "decide",
                "--state",
                state.to_str().unwrap(),
                "--all-presets",
                "--format",
                "json",
            ]);
            let all = all.as_array().unwrap();
            for p in c["presets"].as_array().unwrap() {
                let p = p.as_str().unwrap();
                let got = all.iter().find(|r| r["preset"] == p).unwrap();
                let mut expect = c["expect"].as_object().cloned().unwrap_or_default();
                if let Some(o) = c["expect_by_preset"][p].as_object() {
                    expect.extend(o.clone());
                }
                let steps = got["steps"].as_array().unwrap();
                for (k, want) in &expect {
                    let have = match k.as_str() {
                        "result" | "decided_by" | "target" | "nr_before" | "nr_after"
                        | "scan_end" | "missed_idle" => got[k].clone(),
                        // The CLI's steps as the testdata spells them.
                        "steps" => Value::from(
                            steps
                                .iter()
                                .map(|s| {
                                    format!(
                                        "{} {} {}",
                                        s["rule"].as_str().unwrap(),
                                        s["cpu"],
                                        s["saw"].as_str().unwrap()
                                    )
                                })
                                .collect::<Vec<_>>(),
                        ),
                        "steps_rules" => {
                            Value::from(steps.iter().map(|s| s["rule"].clone()).collect::<Vec<_>>())
                        }
                        "probes" => Value::from(
                            steps
                                .iter()
                                .filter(|s| {
                                    matches!(
                                        s["rule"].as_str().unwrap(),
                                        "select_idle_cpu"
                                            | "group_walk"
                                            | "select_idle_core"
                                            | "select_idle_smt"
                                            | "select_idle_cluster"
                                            | "thin_llc"
                                            | "thin_rest"
                                    )
                                })
                                .count(),
                        ),
                        other => panic!("{}: {name}: unknown expectation key {other}", f.display()),
                    };
                    assert_eq!(&have, want, "{}: {name}: {p}: {k}", f.display());
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0);

    // The seed's corner case, spelled out: default preset linux-6.0, a JSON object.
    let state = temp_file(
        "corner.json",
        r#"{ "topology": { "llc_weight": 8 },
             "cpus": [ {"cpu":0,"state":"busy","util_avg":1024}, {"cpu":1,"state":"busy","util_avg":1024},
                       {"cpu":2,"state":"busy","util_avg":1024}, {"cpu":3,"state":"busy","util_avg":1024},
                       {"cpu":4,"state":"busy","util_avg":1024}, {"cpu":5,"state":"busy","util_avg":1024},
                       {"cpu":6,"state":"busy","util_avg":1024}, {"cpu":7,"state":"idle","util_avg":0} ],
             "wakee": { "prev": 0 }, "waker": { "cpu": 0 }, "target": 0 }"#,
    );
    let s = state.to_str().unwrap();
    let j = json(&["decide", "--state", s, "--format", "json"]);
    assert_eq!(j["preset"], "linux-6.0");
    assert_eq!(j["result"], 0);
    assert_eq!(j["missed_idle"], serde_json::json!([7]));
    assert_eq!(
        j["steps"],
        serde_json::json!([{"rule": "target", "cpu": 0, "saw": "busy"}])
    );
    // nr_idle_scan 0 (seven CPUs at 1024 of eight: over the 85% cut-off): nr = 0 + 1 = 1,
    // `if (nr == 1) return -1`.
    assert_eq!(j["nr_before"], 1);
    assert_eq!(j["nr_after"], 1);
    assert_eq!(j["scan_end"], "no_scan");
    let j = json(&[
        "decide",
        "--state",
        s,
        "--preset",
        "linux-5.13",
        "--format",
        "json",
    ]);
    assert_eq!(j["result"], 7, "SIS_PROP finds CPU7");
    let t = ok(&["decide", "--state", s]);
    assert!(t.starts_with("linux-6.0: cpu 0"), "{t}");
}

#[test]
fn help_and_version_exit_zero() {
    for a in [&["--help"][..], &["sweep", "--help"], &["--version"]] {
        let o = sis(a);
        assert_eq!(o.status.code(), Some(0), "{a:?}");
        assert!(!o.stdout.is_empty());
    }
}

/// Bad input: exit 2, exactly one line on stderr naming the field, nothing like a panic.
#[test]
fn bad_input_exits_2_with_one_line() {
    let unknown_field = temp_file("unknown.json", r#"{"llc_weight": 8, "llc_wieght": 8}"#);
    let unknown_field = unknown_field.to_str().unwrap().to_string();
    let bad_cpu = temp_file(
        "badcpu.json",
        r#"{"topology": {"llc_weight": 8}, "cpus": [{"cpu": 99, "state": "busy"}]}"#,
    );
    let bad_cpu = bad_cpu.to_str().unwrap().to_string();
    let twice = temp_file("twice.json", "{\"load\": 50,\n \"load\": 80}");
    let twice = twice.to_str().unwrap().to_string();
    let twice_at = format!("{twice}:2:2");
    let dup_cpu = temp_file(
        "dupcpu.json",
        r#"{"topology": {"llc_weight": 8}, "cpus": [{"cpu": 1, "state": "busy"}, {"cpu": 1}]}"#,
    );
    let dup_cpu = dup_cpu.to_str().unwrap().to_string();
    let small: Vec<&str> = SMALL.to_vec();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["curve", "--llc-weight", "0"], "llc_weight"),
        (vec!["curve", "--llc-weight", "abc"], "llc_weight"),
        (vec!["run", "--llc-weight", "0"], "llc_weight"),
        (vec!["run", "--llc-weight", "abc"], "llc_weight"),
        (vec!["run", "--smt", "3"], "smt"),
        (vec!["run", "--preset", "linux-9.9"], "preset"),
        (vec!["run", "--feature", "SIS_UTL=on"], "feature"),
        (vec!["run", "--workload", "nope"], "workload"),
        (vec!["run", "--duration", "10x"], "duration"),
        (vec!["run", "--load", "-1"], "load"),
        (
            vec!["run", "--scenario", "/nonexistent/scenario.json"],
            "scenario",
        ),
        (vec!["run", "--scenario", &unknown_field], "llc_wieght"),
        (vec!["run", "--format", "xml"], "format"),
        (vec!["decide", "--state", &bad_cpu], "cpus[0].cpu"),
        (vec!["decide", "--state", &dup_cpu], "cpus[1].cpu"),
        (vec!["run", "--scenario", &twice], &twice_at),
        (
            vec!["decide", "--state", "/nonexistent/state.json"],
            "state",
        ),
        (vec!["sweep", "--presets", "linux-6.0,linux-9.9"], "preset"),
        (vec!["sweep", "--loads", "25,abc"], "load"),
        (vec!["sweep", "--loads", "25,50,25"], "loads"),
        (vec!["sweep", "--jobs", "0"], "jobs"),
        (vec!["sweep", "--seeds", "5-1"], "seeds"),
        (vec!["sweep", "--seeds", "1,2,1"], "seeds"),
        (vec!["sweep", "--seeds", "1-5000"], "seeds"),
        (vec!["sweep", "--seeds", ","], "seeds"),
        (vec!["sweep", "--seed", "2", "--seeds", "1-3"], "seeds"),
        (
            vec!["sweep", "--load", "50", "--loads", "25,50"],
            "either --load or --loads",
        ),
        (
            vec!["curve", "--llc-weight", "8", "--nr-expr", "min(3,"],
            "at character 7",
        ),
        (
            vec!["curve", "--llc-weight", "8", "--nr-expr", "avg_idle / 2"],
            "per wake-up",
        ),
        (
            vec!["run", "--nr-expr", "llc_wieght"],
            "unknown name 'llc_wieght'",
        ),
        (
            vec!["sweep", "--preset", "linux-5.15", "--presets", "linux-6.0"],
            "either --preset or --presets",
        ),
        (vec!["run", "--duration", "500"], "a number and a unit"),
        (vec!["run", "--duration", "1.5ns"], "whole number of ns"),
        (vec!["sweep", "--shard", "0/4"], "shard"),
        (vec!["sweep", "--shard", "5/4"], "shard"),
        (vec!["sweep", "--shard", "2"], "shard"),
        (vec!["sweep", "--shard", "1/2", "--format", "csv"], "format"),
        (vec!["merge"], "FILE"),
        (
            vec!["merge", "/nonexistent/shard.json"],
            "/nonexistent/shard.json",
        ),
        (vec!["merge", "x.json", "--format", "xml"], "format"),
        (vec!["trace", "--wakeups", "0"], "wakeups"),
        (vec!["run", "--windows", "0"], "windows"),
        (vec!["run", "--windows", "abc"], "windows"),
        (
            vec!["run", "--windows", "500us"],
            "from 1ms to the measured window",
        ),
        (vec!["run", "--windows", "1h"], "windows"),
        (vec!["run", "--llc-wieght", "8"], "--llc-wieght"),
        (vec!["frobnicate"], "frobnicate"),
        (vec![], "subcommand"),
    ];
    for (mut args, field) in cases {
        if args.first() == Some(&"run") || args.first() == Some(&"trace") {
            // Valid small values first, so only the bad one can fail (later flags win).
            let mut a = vec![args[0]];
            a.extend(
                small
                    .iter()
                    .copied()
                    .filter(|_| !args.contains(&"--scenario")),
            );
            a.extend(&args[1..]);
            args = a;
        }
        let o = sis(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "sis {args:?}: stderr {err}");
        assert_eq!(
            err.lines().count(),
            1,
            "sis {args:?}: one line, got {err:?}"
        );
        assert!(err.ends_with('\n') && err.starts_with("sis: "), "{err:?}");
        assert!(
            err.contains(field),
            "sis {args:?}: {err:?} should name {field}"
        );
        for bad in ["panicked", "RUST_BACKTRACE", "backtrace"] {
            assert!(!err.contains(bad), "sis {args:?}: {err:?}");
        }
        assert!(o.stdout.is_empty(), "sis {args:?} printed to stdout");
    }
}

/// Extreme but well-formed numbers in a state file are not input errors and must not panic
/// (u64 avg_scan_cost / avg_idle once overflowed SIS_PROP's arithmetic and update_avg).
#[test]
fn extreme_state_values_do_not_panic() {
    for v in [
        "18446744073709551615",
        "9223372036854775808",
        "9223372036854775807",
    ] {
        let state = temp_file(
            "extreme.json",
            &format!(
                r#"{{ "topology": {{ "llc_weight": 8, "smt": 2 }},
                     "cpus": [ {{"cpu": 0, "state": "busy", "avg_idle": {v}}},
                               {{"cpu": 1, "state": "busy", "avg_idle": {v}}},
                               {{"cpu": 4, "state": "busy", "avg_idle": {v}}} ],
                     "llc": {{ "avg_scan_cost": {v} }},
                     "wakee": {{ "prev": 0 }}, "waker": {{ "cpu": 0 }} }}"#
            ),
        );
        let j = json(&[
            "decide",
            "--state",
            state.to_str().unwrap(),
            "--all-presets",
            "--format",
            "json",
        ]);
        assert!(!j.as_array().unwrap().is_empty());
    }
}

#[test]
fn run_windows_slices_the_measured_window_and_changes_no_figure() {
    let with = |extra: &[&'static str]| {
        let mut a = vec!["run"];
        a.extend(SMALL);
        a.extend(extra);
        a
    };
    let sliced = json(&with(&["--windows", "10ms", "--format", "json"]));
    let rows = sliced["windows"].as_array().expect("a windows array");
    // 40 ms measured after the 10 ms warm-up: four slices, their wake-ups the run's.
    assert_eq!(rows.len(), 4);
    let total: u64 = rows.iter().map(|r| r["wakeups"].as_u64().unwrap()).sum();
    assert_eq!(total, sliced["wakeups"].as_u64().unwrap());
    assert!(rows.iter().all(|r| r["len_ns"] == 10_000_000));
    // The rest of the JSON is the run's report without --windows.
    let mut report = sliced.clone();
    report.as_object_mut().unwrap().remove("windows");
    assert_eq!(report, json(&with(&["--format", "json"])));
    // The table: the run's summary, then a header and one line a slice.
    let text = ok(&with(&["--windows", "10ms"]));
    let tail = text.split("(--windows)").nth(1).expect("the windows table");
    assert_eq!(tail.lines().count(), 2 + rows.len(), "{tail}");
}
