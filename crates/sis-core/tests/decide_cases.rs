//! Table-driven tests of `sis_core::decide`: every `testdata/decide/*.json` file holds cases
//! whose expectations were derived by hand from kernel-semantics.md and the seeds.
//!
//! File shape:
//! ```text
//! { "cases": [ { "name": "...", "why": "...", "state": { StateFile },
//!                "presets": ["linux-6.0", ...],
//!                "expect": { ... },                       // checked for every preset
//!                "expect_by_preset": { "linux-5.12": { ... } } } ] }   // optional overrides
//! ```
//! Expectation keys (all optional):
//! - `result`, `decided_by`, `target`, `nr_before`, `nr_after`, `scan_end`, `missed_idle`:
//!   compared with the field of the same name of `DecideResult` as JSON (`null` = None);
//! - `probes`: the number of steps whose rule is one of the LLC-search rules
//!   (select_idle_cpu / select_idle_core / select_idle_smt / select_idle_cluster / thin_llc /
//!   thin_rest), `not_allowed` steps included;
//! - `steps_rules`: the rule names of all steps, in order;
//! - `steps`: all steps in order as `"<rule> <cpu> <saw>"`, e.g. `"select_idle_cpu 3 idle"`.

use serde_json::{Map, Value};
use sis_core::decide::{decide, DecideResult, StateFile};
use std::path::PathBuf;

const SCAN_RULES: [&str; 6] = [
    "select_idle_cpu",
    "select_idle_core",
    "select_idle_smt",
    "select_idle_cluster",
    "thin_llc",
    "thin_rest",
];
const FIELD_KEYS: [&str; 7] = [
    "result",
    "decided_by",
    "target",
    "nr_before",
    "nr_after",
    "scan_end",
    "missed_idle",
];

struct Case {
    file: String,
    name: String,
    why: String,
    state: Value,
    presets: Vec<String>,
    expect: Map<String, Value>,
    expect_by_preset: Map<String, Value>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join("decide")
}

fn load_cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir().display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let v: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: not JSON: {e}"));
        let cases = v
            .get("cases")
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{file}: no \"cases\" array"));
        for (i, c) in cases.iter().enumerate() {
            let obj = c
                .as_object()
                .unwrap_or_else(|| panic!("{file}: case {i} is not an object"));
            for k in obj.keys() {
                assert!(
                    [
                        "name",
                        "why",
                        "state",
                        "presets",
                        "expect",
                        "expect_by_preset"
                    ]
                    .contains(&k.as_str()),
                    "{file}: case {i}: unknown key {k:?}"
                );
            }
            let s = |k: &str| {
                obj.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("{file}: case {i}: missing string {k:?}"))
                    .to_string()
            };
            let presets = obj
                .get("presets")
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("{file}: case {i}: missing \"presets\""))
                .iter()
                .map(|p| p.as_str().expect("preset names are strings").to_string())
                .collect();
            out.push(Case {
                file: file.clone(),
                name: s("name"),
                why: s("why"),
                state: obj
                    .get("state")
                    .cloned()
                    .unwrap_or_else(|| panic!("{file}: case {i}: missing \"state\"")),
                presets,
                expect: obj
                    .get("expect")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_else(|| panic!("{file}: case {i}: missing \"expect\" object")),
                expect_by_preset: obj
                    .get("expect_by_preset")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            });
        }
    }
    out
}

fn step_string(r: &DecideResult) -> Vec<String> {
    r.steps
        .iter()
        .map(|s| format!("{} {} {}", s.rule.name(), s.cpu, s.saw.name()))
        .collect()
}

/// Checks `r` against `expect`; returns one line per mismatch.
fn check(r: &DecideResult, expect: &Map<String, Value>) -> Vec<String> {
    let got = serde_json::to_value(r).unwrap();
    let mut errs = Vec::new();
    for (k, want) in expect {
        let have = match k.as_str() {
            k if FIELD_KEYS.contains(&k) => got.get(k).cloned().unwrap_or(Value::Null),
            "probes" => Value::from(
                r.steps
                    .iter()
                    .filter(|s| SCAN_RULES.contains(&s.rule.name()))
                    .count(),
            ),
            "steps_rules" => Value::from(r.steps.iter().map(|s| s.rule.name()).collect::<Vec<_>>()),
            "steps" => Value::from(step_string(r)),
            other => {
                errs.push(format!("unknown expectation key {other:?}"));
                continue;
            }
        };
        if &have != want {
            errs.push(format!("{k}: expected {want}, got {have}"));
        }
    }
    errs
}

#[test]
fn decide_cases_from_testdata() {
    let cases = load_cases();
    assert!(!cases.is_empty(), "no cases in {}", dir().display());
    let mut failures = Vec::new();
    let mut runs = 0;
    for c in &cases {
        let state: StateFile = serde_json::from_value(c.state.clone())
            .unwrap_or_else(|e| panic!("{}: {}: bad state: {e}", c.file, c.name));
        assert!(
            !c.presets.is_empty(),
            "{}: {}: empty preset list",
            c.file,
            c.name
        );
        for k in c.expect_by_preset.keys() {
            assert!(
                c.presets.contains(k),
                "{}: {}: expect_by_preset names {k:?}, which is not in presets",
                c.file,
                c.name
            );
        }
        for p in &c.presets {
            let mut expect = c.expect.clone();
            if let Some(o) = c.expect_by_preset.get(p).and_then(Value::as_object) {
                for (k, v) in o {
                    expect.insert(k.clone(), v.clone());
                }
            }
            runs += 1;
            match decide(&state, p) {
                Ok(r) => {
                    let errs = check(&r, &expect);
                    if !errs.is_empty() {
                        failures.push(format!(
                            "--- {} / {} / {}\n  why: {}\n  {}\n  expected: {}\n  got:\n{}  steps: {:?}\n",
                            c.file,
                            c.name,
                            p,
                            c.why,
                            errs.join("\n  "),
                            Value::Object(expect.clone()),
                            r.to_text(),
                            step_string(&r)
                        ));
                    }
                }
                Err(e) => failures.push(format!(
                    "--- {} / {} / {}\n  decide failed: {e}\n",
                    c.file, c.name, p
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} decide runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{} cases, {runs} decide runs passed", cases.len());
}

#[test]
fn every_preset_named_in_testdata_exists() {
    let known: Vec<&str> = sis_core::presets().iter().map(|p| p.name).collect();
    let cases = load_cases();
    assert!(!cases.is_empty(), "no cases in {}", dir().display());
    let mut bad = Vec::new();
    for c in &cases {
        for p in c.presets.iter().chain(c.expect_by_preset.keys()) {
            if !known.contains(&p.as_str()) {
                bad.push(format!("{}: {}: {p}", c.file, c.name));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "unknown presets (known: {known:?}):\n{}",
        bad.join("\n")
    );
}

#[test]
fn case_names_are_unique_and_explained() {
    let cases = load_cases();
    let mut seen = std::collections::BTreeSet::new();
    for c in &cases {
        assert!(
            seen.insert((c.file.clone(), c.name.clone())),
            "{}: duplicate case name {}",
            c.file,
            c.name
        );
        assert!(
            !c.why.trim().is_empty(),
            "{}: {}: empty why",
            c.file,
            c.name
        );
        assert!(
            !c.expect.is_empty() || !c.expect_by_preset.is_empty(),
            "{}: {}: nothing expected",
            c.file,
            c.name
        );
    }
}
