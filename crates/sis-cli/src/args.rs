//! The scenario flags shared by `run`, `sweep` and `trace`, and how they become a
//! [`Scenario`]: the scenario file's fields first, then the flags over them, all as text
//! through `Scenario::from_pairs` (so `Scenario::set_field` is the only validation).

use clap::Args;
use sis_core::sim::scenario::file_pairs;
use sis_core::{InputError, Scenario};

/// Scenario flags: each one is a scenario field (dashes for underscores), taken as text.
#[derive(Args, Debug, Default, Clone)]
pub struct ScenarioArgs {
    /// Scenario file (JSON object of scenario fields); flags override its fields
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub scenario: Option<String>,
    /// CPUs per LLC (1..=1024) [default: 16]
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    pub llc_weight: Option<String>,
    /// Number of LLCs (1..=16) [default: 1]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub llcs: Option<String>,
    /// SMT threads per core: 1, 2 or 4 [default: 2]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub smt: Option<String>,
    /// CPUs per cluster (0 = no clusters) [default: 0]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub cluster_size: Option<String>,
    /// CPU numbering: contiguous or interleaved [default: contiguous]
    #[arg(long, value_name = "NUMBERING", allow_hyphen_values = true)]
    pub numbering: Option<String>,
    /// Kernel preset (see `sis presets`) [default: linux-6.0]
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub preset: Option<String>,
    /// Feature override on top of the preset, e.g. SIS_PROP=on (repeatable) [default: none:
    /// the preset's features]
    #[arg(
        long = "feature",
        value_name = "NAME=on|off",
        allow_hyphen_values = true
    )]
    pub feature: Vec<String>,
    /// The LLC domain's imbalance_pct (100..=1000) [default: the preset's, 117 for linux-6.0;
    /// `sis presets` lists each]
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub imbalance_pct: Option<String>,
    /// netperf, tbench, hackbench, schbench, uniform or pinned [default: netperf]
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    pub workload: Option<String>,
    /// Load in percent of the CPUs (0..=1000) [default: 100]
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub load: Option<String>,
    /// Explicit task count (overrides --load when non-zero) [default: 0]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub tasks: Option<String>,
    /// PRNG seed [default: 1]
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Simulated duration, like 500ms or 2s [default: 1s]
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub duration: Option<String>,
    /// Warm-up before the counters start: auto (until PELT and nr_idle_scan settle) or a
    /// fixed duration like 100ms, honoured exactly [default: auto]
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub warmup: Option<String>,
    /// Simulated cost of probing one runqueue, ns [default: 400]
    #[arg(long, value_name = "NS", allow_hyphen_values = true)]
    pub probe_cost_ns: Option<String>,
    /// % of probe_cost_ns each other CPU scanning the LLC at once adds to a probe [default: 0]
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub probe_contention_pct: Option<String>,
    /// Who pays for the scan: delay (the wakee only) or waker (also the waker's CPU) [default: waker]
    #[arg(long, value_name = "WHO", allow_hyphen_values = true)]
    pub scan_cost: Option<String>,
    /// When the CPU a scan found is taken before the wakee arrives: stack (queue there) or
    /// rescan (the scan goes on with its budget left) [default: rescan]
    #[arg(long, value_name = "WHAT", allow_hyphen_values = true)]
    pub collision: Option<String>,
    /// Tick rate: 100, 250, 300 or 1000 [default: 1000]
    #[arg(long, value_name = "HZ", allow_hyphen_values = true)]
    pub hz: Option<String>,
    /// Workload service time override, us (0 = the workload's default) [default: 0]
    #[arg(long, value_name = "US", allow_hyphen_values = true)]
    pub service_us: Option<String>,
}

/// A resolved scenario, and whether imbalance_pct was given explicitly (file or flag).
#[derive(Debug)]
pub struct Resolved {
    pub scenario: Scenario,
    pub explicit_imbalance_pct: bool,
}

/// A file's text; the error names `field` (the flag's field) and the path.
pub fn read_file(field: &str, path: &str) -> Result<String, InputError> {
    std::fs::read_to_string(path)
        .map_err(|e| InputError::range(field, path, &format!("a readable file ({e})")))
}

/// An error found reading the `kind` file (`scenario`, `state`) at `path`, located in it: a
/// parse error's value becomes `PATH:LINE:COL` (serde_json's "at line L column C") with the
/// parser's words after what was expected; a field's error keeps its field and says the file.
pub fn in_file(e: InputError, kind: &str, path: &str) -> InputError {
    if e.field != kind {
        let expected = format!("{} (in {path})", e.expected);
        return InputError::range(&e.field, &e.value, &expected);
    }
    let at = e.value.rsplit_once(" at line ").and_then(|(words, lc)| {
        let (l, c) = lc.split_once(" column ")?;
        Some((words, l.parse::<u64>().ok()?, c.parse::<u64>().ok()?))
    });
    let (value, problem) = match at {
        Some((words, l, c)) => (format!("{path}:{l}:{c}"), words.to_string()),
        None => (path.to_string(), e.value.clone()),
    };
    let expected = format!("{} ({problem})", e.expected);
    InputError::range(&format!("{kind} file"), value, &expected)
}

/// A comma-separated list flag's entries: none empty, none repeated, at least one.
pub fn parse_list<'a>(field: &str, v: &'a str, what: &str) -> Result<Vec<&'a str>, InputError> {
    let items: Vec<&str> = v.split(',').map(str::trim).collect();
    if items.iter().all(|s| s.is_empty()) {
        return Err(InputError::range(
            field,
            v,
            &format!("a comma-separated list of {what}"),
        ));
    }
    if items.iter().any(|s| s.is_empty()) {
        return Err(InputError::range(
            field,
            v,
            &format!("a comma-separated list of {what} with no empty entry"),
        ));
    }
    if let Some(d) = items
        .iter()
        .enumerate()
        .find(|(i, s)| items[..*i].contains(s))
    {
        return Err(InputError::range(
            field,
            v,
            &format!(
                "a comma-separated list of {what}, each once ('{}' is repeated)",
                d.1
            ),
        ));
    }
    Ok(items)
}

impl ScenarioArgs {
    /// The flags as (field, value) pairs, in FIELDS order (`--feature`s joined).
    fn flag_pairs(&self) -> Vec<(&'static str, String)> {
        let f = |v: &Option<String>| v.clone();
        let mut out: Vec<(&'static str, Option<String>)> = vec![
            ("llc_weight", f(&self.llc_weight)),
            ("llcs", f(&self.llcs)),
            ("smt", f(&self.smt)),
            ("cluster_size", f(&self.cluster_size)),
            ("numbering", f(&self.numbering)),
            ("preset", f(&self.preset)),
            ("imbalance_pct", f(&self.imbalance_pct)),
            ("workload", f(&self.workload)),
            ("load", f(&self.load)),
            ("tasks", f(&self.tasks)),
            ("seed", f(&self.seed)),
            ("duration", f(&self.duration)),
            ("warmup", f(&self.warmup)),
            ("probe_cost_ns", f(&self.probe_cost_ns)),
            ("probe_contention_pct", f(&self.probe_contention_pct)),
            ("scan_cost", f(&self.scan_cost)),
            ("collision", f(&self.collision)),
            ("hz", f(&self.hz)),
            ("service_us", f(&self.service_us)),
        ];
        if !self.feature.is_empty() {
            out.push(("features", Some(self.feature.join(","))));
        }
        out.into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect()
    }

    /// File first, flags over it; `--feature`s add to the file's features (later wins).
    pub fn resolve(&self) -> Result<Resolved, InputError> {
        let mut pairs: Vec<(String, String)> = match &self.scenario {
            Some(path) => file_pairs(&read_file("scenario", path)?)
                .map_err(|e| in_file(e, "scenario", path))?,
            None => Vec::new(),
        };
        for (k, v) in self.flag_pairs() {
            match pairs.iter_mut().find(|(pk, _)| pk == k) {
                Some(slot) if k == "features" && !slot.1.trim().is_empty() => {
                    slot.1 = format!("{},{v}", slot.1);
                }
                Some(slot) => slot.1 = v,
                None => pairs.push((k.to_string(), v)),
            }
        }
        let explicit_imbalance_pct = pairs.iter().any(|(k, _)| k == "imbalance_pct");
        let mut scenario =
            Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        scenario.features = dedupe_features(&scenario.features);
        Ok(Resolved {
            scenario,
            explicit_imbalance_pct,
        })
    }
}

/// "A=on,B=off,A=off" -> "B=off,A=off": one entry per feature, the last one given.
fn dedupe_features(s: &str) -> String {
    let items: Vec<&str> = s.split(',').filter(|x| !x.is_empty()).collect();
    let name = |x: &str| x.split('=').next().unwrap_or("").to_string();
    items
        .iter()
        .enumerate()
        .filter(|(i, x)| !items[i + 1..].iter().any(|y| name(y) == name(x)))
        .map(|(_, x)| *x)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_keep_the_last_setting() {
        assert_eq!(
            dedupe_features("SIS_PROP=on,SIS_UTIL=off,SIS_PROP=off"),
            "SIS_UTIL=off,SIS_PROP=off"
        );
        assert_eq!(dedupe_features(""), "");
    }

    #[test]
    fn help_shows_each_scenario_flag_default() {
        use clap::{Args, Command};
        let cmd = ScenarioArgs::augment_args(Command::new("t"));
        let defaults = Scenario::default().to_pairs();
        let mut checked = 0;
        for arg in cmd.get_arguments() {
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            let id = arg.get_id().as_str();
            if id == "scenario" {
                continue;
            }
            assert!(
                help.contains("[default: "),
                "--{id}: no default in {help:?}"
            );
            let Some((_, v)) = defaults.iter().find(|(k, _)| *k == id) else {
                continue; // --feature: the preset's features
            };
            let want = match id {
                "imbalance_pct" => format!("[default: the preset's, {v} for linux-6.0;"),
                _ => format!("[default: {v}]"),
            };
            assert!(help.contains(&want), "--{id}: {help:?} lacks {want:?}");
            checked += 1;
        }
        assert_eq!(
            checked,
            defaults.len() - 1,
            "every field but features has a flag"
        );
    }

    #[test]
    fn list_flags_reject_empty_and_repeated_entries() {
        assert_eq!(parse_list("loads", "25, 50", "x").unwrap(), ["25", "50"]);
        for bad in ["", ",", "25,,50", "25,", "25,25"] {
            let e = parse_list("loads", bad, "load percents").unwrap_err();
            assert_eq!((e.field.as_str(), e.value.as_str()), ("loads", bad));
        }
    }

    #[test]
    fn a_file_error_names_the_path_line_and_column() {
        let e = Scenario::from_json("{\n \"load\": 3,,\n}").unwrap_err();
        let e = in_file(e, "scenario", "/tmp/s.json");
        assert_eq!(e.field, "scenario file");
        assert_eq!(e.value, "/tmp/s.json:2:12");
        let e = in_file(
            InputError::range("load", "[1]", "an integer"),
            "scenario",
            "/tmp/s.json",
        );
        assert_eq!(
            (e.field.as_str(), e.expected.as_str()),
            ("load", "an integer (in /tmp/s.json)")
        );
    }

    #[test]
    fn flags_override_and_preset_keeps_explicit_imbalance() {
        let a = ScenarioArgs {
            preset: Some("linux-4.13".into()),
            imbalance_pct: Some("130".into()),
            llc_weight: Some("8".into()),
            feature: vec!["SIS_UTIL=on".into(), "sis_util=off".into()],
            ..Default::default()
        };
        let r = a.resolve().unwrap();
        assert_eq!(r.scenario.imbalance_pct, 130);
        assert!(r.explicit_imbalance_pct);
        assert_eq!(r.scenario.features, "SIS_UTIL=off");
        let e = ScenarioArgs {
            llc_weight: Some("abc".into()),
            ..Default::default()
        }
        .resolve()
        .unwrap_err();
        assert_eq!(e.field, "llc_weight");
    }
}
