//! The scenario flags shared by `run`, `sweep` and `trace`, and how they become a
//! [`Scenario`]: the scenario file's fields first, then the flags over them, all as text
//! through `Scenario::from_pairs` (so `Scenario::set_field` is the only validation).

use clap::{Arg, ArgAction};
use sis_core::sim::scenario::{file_pairs, Field, FIELDS};
use sis_core::{InputError, Scenario};

/// Scenario flags: one per scenario field, made from sis-core's field table (`FIELDS`: flag,
/// placeholder, help, and the default from `Scenario::default()`), each taken as text; plus
/// `--scenario FILE`. `--feature` is repeatable.
#[derive(Debug, Default, Clone)]
pub struct ScenarioArgs {
    /// Scenario file (JSON object of scenario fields); flags override its fields.
    pub scenario: Option<String>,
    /// The fields given as flags, in FIELDS order (`--feature`s joined with commas).
    given: Vec<(&'static str, String)>,
}

impl ScenarioArgs {
    /// The text given for `field` by its flag, if any.
    pub fn get(&self, field: &str) -> Option<&str> {
        self.given
            .iter()
            .find(|(k, _)| *k == field)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `field` as if its flag were given (tests, and callers that fix a field).
    pub fn set(&mut self, field: &'static str, value: &str) {
        self.given.retain(|(k, _)| *k != field);
        self.given.push((field, value.to_string()));
    }
}

/// A scenario field's `--help` line for a command whose default is not the scenario's (`sis
/// curve`, `sis replay`): the field table's help and range, then `[default]` as given.
pub fn field_help(name: &str, default: &str) -> String {
    match sis_core::sim::scenario::field(name) {
        Some(f) => format!(
            "{}: {} [{default}]",
            sis_core::sim::scenario::field_help(f.name),
            f.kind.expected()
        ),
        None => format!("[{default}]"),
    }
}

/// `--help`'s default for a field: the preset's for imbalance_pct and features.
fn default_help(f: &Field, default: &str) -> String {
    match f.name {
        "imbalance_pct" => {
            format!("[default: the preset's, {default} for linux-6.0; `sis presets` lists each]")
        }
        "features" => "[default: none: the preset's features]".into(),
        _ => format!("[default: {default}]"),
    }
}

impl clap::Args for ScenarioArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let defaults = Scenario::default().to_pairs();
        let mut cmd = cmd.arg(
            Arg::new("scenario")
                .long("scenario")
                .value_name("FILE")
                .allow_hyphen_values(true)
                .help("Scenario file (JSON object of scenario fields); flags override its fields"),
        );
        for (f, (_, default)) in FIELDS.iter().zip(&defaults) {
            let arg = Arg::new(f.name)
                .long(f.flag)
                .value_name(f.value_name)
                .allow_hyphen_values(true)
                .help(format!(
                    "{}: {} {}",
                    sis_core::sim::scenario::field_help(f.name),
                    f.kind.expected(),
                    default_help(f, default)
                ));
            cmd = cmd.arg(if f.name == "features" {
                arg.action(ArgAction::Append)
            } else {
                arg
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for ScenarioArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut a = ScenarioArgs::default();
        a.update_from_arg_matches(m)?;
        Ok(a)
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        if let Some(v) = m.get_one::<String>("scenario") {
            self.scenario = Some(v.clone());
        }
        for f in FIELDS {
            let values: Vec<&String> = m
                .get_many::<String>(f.name)
                .map(|v| v.collect())
                .unwrap_or_default();
            if !values.is_empty() {
                let joined: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
                self.set(f.name, &joined.join(","));
            }
        }
        Ok(())
    }
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
    check_list(field, v, what, v.split(',').map(str::trim).collect())
}

/// [`parse_list`], split only at the commas outside parentheses (`a,nr_expr=min(b,c)` is two
/// entries).
pub fn parse_list_nested<'a>(
    field: &str,
    v: &'a str,
    what: &str,
) -> Result<Vec<&'a str>, InputError> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in v.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                items.push(v[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(v[start..].trim());
    check_list(field, v, what, items)
}

fn check_list<'a>(
    field: &str,
    v: &'a str,
    what: &str,
    items: Vec<&'a str>,
) -> Result<Vec<&'a str>, InputError> {
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
    /// File first, flags over it; `--feature`s add to the file's features (later wins).
    pub fn resolve(&self) -> Result<Resolved, InputError> {
        let mut pairs: Vec<(String, String)> = match &self.scenario {
            Some(path) => file_pairs(&read_file("scenario", path)?)
                .map_err(|e| in_file(e, "scenario", path))?,
            None => Vec::new(),
        };
        for (k, v) in self.given.iter().cloned() {
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
                "features" => "[default: none: the preset's features]".to_string(),
                _ => format!("[default: {v}]"),
            };
            assert!(help.contains(&want), "--{id}: {help:?} lacks {want:?}");
            // The allowed values, from the same table that validates them.
            let f = FIELDS.iter().find(|f| f.name == id).unwrap();
            assert!(help.contains(&f.kind.expected()), "--{id}: {help:?}");
            checked += 1;
        }
        assert_eq!(checked, defaults.len(), "every field has a flag");
    }

    #[test]
    fn field_help_takes_the_range_from_the_table() {
        assert_eq!(
            field_help("llc_weight", "required"),
            "CPUs per LLC: an integer in 1..=1024 [required]"
        );
        assert_eq!(
            field_help("smt", "default: 1"),
            "SMT threads per core: 1, 2 or 4 [default: 1]"
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
        let mut a = ScenarioArgs::default();
        a.set("preset", "linux-4.13");
        a.set("imbalance_pct", "130");
        a.set("llc_weight", "8");
        a.set("features", "SIS_UTIL=on,sis_util=off");
        let r = a.resolve().unwrap();
        assert_eq!(r.scenario.imbalance_pct, 130);
        assert!(r.explicit_imbalance_pct);
        assert_eq!(r.scenario.features, "SIS_UTIL=off");
        let mut bad = ScenarioArgs::default();
        bad.set("llc_weight", "abc");
        let e = bad.resolve().unwrap_err();
        assert_eq!(e.field, "llc_weight");
    }
}
