//! Table-driven tests of `sis_core::analysis::decide`: every `testdata/decide/*.json` file holds cases
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

use serde::{Deserialize, Deserializer};
use sis_core::analysis::decide::{decide, DecideResult, StateFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SCAN_RULES: [&str; 7] = [
    "group_walk",
    "select_idle_cpu",
    "select_idle_core",
    "select_idle_smt",
    "select_idle_cluster",
    "thin_llc",
    "thin_rest",
];

/// One `testdata/decide/*.json` file (format: testdata/README.md).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    why: String,
    state: StateFile,
    presets: Vec<String>,
    expect: Expect,
    #[serde(default)]
    expect_by_preset: BTreeMap<String, Expect>,
}

/// What a case expects; an absent key is not checked, `null` expects None.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    result: Option<u32>,
    decided_by: Option<String>,
    target: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    nr_before: Option<Option<i64>>,
    #[serde(default, deserialize_with = "present")]
    nr_after: Option<Option<i64>>,
    #[serde(default, deserialize_with = "present")]
    scan_end: Option<Option<String>>,
    missed_idle: Option<Vec<u32>>,
    probes: Option<usize>,
    steps_rules: Option<Vec<String>>,
    steps: Option<Vec<String>>,
}

/// A key that is present (even as `null`) is `Some`: `null` then expects None.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl Expect {
    /// `over`'s keys on top of these.
    fn with(&self, over: &Expect) -> Expect {
        macro_rules! pick {
            ($($f:ident),*) => { Expect { $($f: over.$f.clone().or_else(|| self.$f.clone()),)* } };
        }
        pick!(
            result,
            decided_by,
            target,
            nr_before,
            nr_after,
            scan_end,
            missed_idle,
            probes,
            steps_rules,
            steps
        )
    }

    fn is_empty(&self) -> bool {
        self.describe().is_empty()
    }

    /// The keys it checks, for messages.
    fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        macro_rules! show {
            ($($f:ident),*) => { $(if let Some(v) = &self.$f { out.push(format!("{}: {:?}", stringify!($f), v)); })* };
        }
        show!(
            result,
            decided_by,
            target,
            nr_before,
            nr_after,
            scan_end,
            missed_idle,
            probes,
            steps_rules,
            steps
        );
        out
    }

    /// Checks `r`; one line per mismatch.
    fn check(&self, r: &DecideResult) -> Vec<String> {
        let mut errs = Vec::new();
        let mut cmp = |key: &str, want: String, have: String| {
            if want != have {
                errs.push(format!("{key}: expected {want}, got {have}"));
            }
        };
        let scan_end = r.scan_end.map(|e| {
            serde_json::to_value(e)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        });
        if let Some(w) = self.result {
            cmp("result", w.to_string(), r.result.to_string());
        }
        if let Some(w) = &self.decided_by {
            cmp("decided_by", w.clone(), r.decided_by.clone());
        }
        if let Some(w) = self.target {
            cmp("target", w.to_string(), r.target.to_string());
        }
        if let Some(w) = self.nr_before {
            cmp("nr_before", format!("{w:?}"), format!("{:?}", r.nr_before));
        }
        if let Some(w) = self.nr_after {
            cmp("nr_after", format!("{w:?}"), format!("{:?}", r.nr_after));
        }
        if let Some(w) = &self.scan_end {
            cmp("scan_end", format!("{w:?}"), format!("{scan_end:?}"));
        }
        if let Some(w) = &self.missed_idle {
            cmp(
                "missed_idle",
                format!("{w:?}"),
                format!("{:?}", r.missed_idle),
            );
        }
        if let Some(w) = self.probes {
            let probes = r
                .steps
                .iter()
                .filter(|s| SCAN_RULES.contains(&s.rule.name()))
                .count();
            cmp("probes", w.to_string(), probes.to_string());
        }
        if let Some(w) = &self.steps_rules {
            let rules: Vec<&str> = r.steps.iter().map(|s| s.rule.name()).collect();
            cmp("steps_rules", format!("{w:?}"), format!("{rules:?}"));
        }
        if let Some(w) = &self.steps {
            cmp("steps", format!("{w:?}"), format!("{:?}", step_strings(r)));
        }
        errs
    }
}

struct LoadedCase {
    file: String,
    case: Case,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join("decide")
}

fn read_case_file(path: &Path) -> Result<CaseFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))
}

fn load_cases() -> Vec<LoadedCase> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir().display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let parsed = read_case_file(&path).unwrap_or_else(|e| panic!("{e}"));
        out.extend(parsed.cases.into_iter().map(|case| LoadedCase {
            file: file.clone(),
            case,
        }));
    }
    out
}

fn step_strings(r: &DecideResult) -> Vec<String> {
    r.steps
        .iter()
        .map(|s| format!("{} {} {}", s.rule.name(), s.cpu, s.saw.name()))
        .collect()
}

#[test]
fn decide_cases_from_testdata() {
    let cases = load_cases();
    assert!(!cases.is_empty(), "no cases in {}", dir().display());
    let mut failures = Vec::new();
    let mut runs = 0;
    for LoadedCase { file, case: c } in &cases {
        assert!(
            !c.presets.is_empty(),
            "{file}: {}: empty preset list",
            c.name
        );
        for k in c.expect_by_preset.keys() {
            assert!(
                c.presets.contains(k),
                "{file}: {}: expect_by_preset names {k:?}, which is not in presets",
                c.name
            );
        }
        for p in &c.presets {
            let expect = match c.expect_by_preset.get(p) {
                Some(over) => c.expect.with(over),
                None => c.expect.clone(),
            };
            runs += 1;
            match decide(&c.state, p) {
                Ok(r) => {
                    let errs = expect.check(&r);
                    if !errs.is_empty() {
                        failures.push(format!(
                            "--- {file} / {} / {p}\n  why: {}\n  {}\n  expected: {}\n  got:\n{}  steps: {:?}\n",
                            c.name,
                            c.why,
                            errs.join("\n  "),
                            expect.describe().join(", "),
                            r.to_text(),
                            step_strings(&r)
                        ));
                    }
                }
                Err(e) => failures.push(format!(
                    "--- {file} / {} / {p}\n  decide failed: {e}\n",
                    c.name
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
    for LoadedCase { file, case: c } in &cases {
        for p in c.presets.iter().chain(c.expect_by_preset.keys()) {
            if !known.contains(&p.as_str()) {
                bad.push(format!("{file}: {}: {p}", c.name));
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
    for LoadedCase { file, case: c } in &cases {
        assert!(
            seen.insert((file.clone(), c.name.clone())),
            "{file}: duplicate case name {}",
            c.name
        );
        assert!(!c.why.trim().is_empty(), "{file}: {}: empty why", c.name);
        assert!(
            !c.expect.is_empty() || c.expect_by_preset.values().any(|e| !e.is_empty()),
            "{file}: {}: nothing expected",
            c.name
        );
    }
}

#[test]
fn a_misspelt_expectation_key_is_an_error_naming_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("sis-decide-cases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.json");
    std::fs::write(
        &path,
        "{ \"cases\": [ { \"name\": \"n\", \"why\": \"w\",\n  \"state\": { \"topology\": { \"llc_weight\": 8 } },\n  \"presets\": [\"linux-6.0\"], \"expect\": { \"reslt\": 3 } } ] }",
    )
    .unwrap();
    let err = match read_case_file(&path) {
        Err(e) => e,
        Ok(_) => panic!("a misspelt key was accepted"),
    };
    std::fs::remove_dir_all(&dir).ok();
    assert!(err.contains("typo.json:3:"), "{err}");
    assert!(err.contains("reslt"), "{err}");
}
