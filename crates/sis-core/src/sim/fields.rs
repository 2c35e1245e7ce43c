//! What the scenario's field table is made of: a [`Field`] (name, kind, CLI flag, unit, help)
//! and the [`FieldValue`] each field's type implements to be read from and written as text.
//! The table itself is the `scenario_fields!` invocation in `scenario.rs`: one entry a field,
//! from which the struct, its defaults, [`FIELDS`](super::scenario::FIELDS), parsing and
//! `to_pairs` are generated, and the CLI's flags and the app's controls read.

use crate::error::InputError;
use crate::kernel::features::{preset, Features, FEATURES};
use crate::kernel::topology::Numbering;

/// One scenario field: its URL key / file key is `name`.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// The CLI flag, without its dashes (`llc-weight`; `feature` is repeatable).
    pub flag: &'static str,
    /// The flag's value placeholder in `--help` (`--llc-weight W`).
    pub value_name: &'static str,
    /// The unit of a number ("ns", "us", "%"), or "".
    pub unit: &'static str,
}

/// What values a field takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An integer in `min..=max`; if `only` is not empty, one of those values. `note` is said
    /// after the range in errors ("0 = the workload's default").
    Int {
        min: u64,
        max: u64,
        only: &'static [u64],
        note: &'static str,
    },
    /// One of the names the function lists (an enum's [`Choice::ALL`]).
    Choice(fn() -> Vec<&'static str>),
    /// A duration in `min_ns..=max_ns` with a unit; with `auto`, also the word "auto".
    Duration {
        min_ns: u64,
        max_ns: u64,
        auto: bool,
    },
    /// A preset name (`sis presets`).
    Preset,
    /// Comma-separated `NAME=on|off` feature overrides.
    Features,
    /// A scan-depth rule (`kernel::nr_expr`), or "" for the preset's own throttle.
    NrExpr,
}

impl Kind {
    pub const fn int(min: u64, max: u64) -> Kind {
        Kind::Int {
            min,
            max,
            only: &[],
            note: "",
        }
    }

    /// What the field allows, as an error's "expected ..." says it.
    pub fn expected(&self) -> String {
        match *self {
            Kind::Int { only, note, .. } if !only.is_empty() => {
                let v: Vec<String> = only.iter().map(u64::to_string).collect();
                let (last, rest) = v.split_last().map_or(("", &[][..]), |(l, r)| (l, r));
                let list = if rest.is_empty() {
                    last.to_string()
                } else {
                    format!("{} or {last}", rest.join(", "))
                };
                with_note(list, note)
            }
            Kind::Int { min, max, note, .. } => {
                with_note(format!("an integer in {min}..={max}"), note)
            }
            Kind::Choice(names) => {
                let n = names();
                match n.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => n.join(""),
                }
            }
            Kind::Duration {
                min_ns,
                max_ns,
                auto,
            } => format!(
                "{}a duration in {}..={}, like 500ms or 2.5s",
                if auto {
                    "auto (warm until settled) or "
                } else {
                    ""
                },
                format_duration(min_ns),
                format_duration(max_ns)
            ),
            Kind::Preset => "a preset name (sis presets)".into(),
            Kind::Features => "comma-separated NAME=on|off".into(),
            Kind::NrExpr => format!(
                "an integer expression over {} with + - * / %, comparisons, min, max and if \
                 (empty: the preset's throttle)",
                crate::kernel::nr_expr::INPUTS.join(", ")
            ),
        }
    }
}

fn with_note(s: String, note: &str) -> String {
    if note.is_empty() {
        s
    } else {
        format!("{s} ({note})")
    }
}

/// A field's type: read from text against its [`Field`], written back as text.
pub trait FieldValue: Sized {
    fn parse(f: &Field, value: &str) -> Result<Self, InputError>;
    fn text(&self) -> String;
}

/// An integer field's value, checked against its `Kind::Int`.
fn parse_int(f: &Field, value: &str) -> Result<u64, InputError> {
    let bad = || InputError::range(f.name, value, &f.kind.expected());
    let Kind::Int { min, max, only, .. } = f.kind else {
        return Err(bad());
    };
    match value.trim().parse::<u64>() {
        Ok(x) if (min..=max).contains(&x) && (only.is_empty() || only.contains(&x)) => Ok(x),
        _ => Err(bad()),
    }
}

impl FieldValue for u32 {
    fn parse(f: &Field, value: &str) -> Result<Self, InputError> {
        let x = parse_int(f, value)?;
        u32::try_from(x).map_err(|_| InputError::range(f.name, value, &f.kind.expected()))
    }
    fn text(&self) -> String {
        self.to_string()
    }
}

impl FieldValue for u64 {
    fn parse(f: &Field, value: &str) -> Result<Self, InputError> {
        parse_int(f, value)
    }
    fn text(&self) -> String {
        self.to_string()
    }
}

/// Text fields: durations, the preset and the feature overrides, each kept in its canonical
/// spelling (`2.5s` -> `2500ms`, `LINUX-6.0` -> `linux-6.0`, `sis_util=1` -> `SIS_UTIL=on`).
impl FieldValue for String {
    fn parse(f: &Field, value: &str) -> Result<Self, InputError> {
        match f.kind {
            Kind::Duration { auto: true, .. } if value.trim() == WARMUP_AUTO => {
                Ok(WARMUP_AUTO.into())
            }
            Kind::Duration { min_ns, max_ns, .. } => {
                let expected = f.kind.expected();
                let ns = parse_duration(value).map_err(|why| {
                    InputError::range(f.name, value, &format!("{why} ({expected})"))
                })?;
                if !(min_ns..=max_ns).contains(&ns) {
                    return Err(InputError::range(f.name, value, &expected));
                }
                Ok(format_duration(ns))
            }
            Kind::Preset => Ok(preset(value)?.name.to_string()),
            Kind::Features => canonical_features(value),
            Kind::NrExpr if value.trim().is_empty() => Ok(String::new()),
            Kind::NrExpr => crate::kernel::nr_expr::NrExpr::parse(value)
                .map(|e| e.text().to_string())
                .map_err(|e| {
                    InputError::range(f.name, value, &format!("{e}; {}", f.kind.expected()))
                }),
            Kind::Int { .. } | Kind::Choice(_) => Ok(value.to_string()),
        }
    }
    fn text(&self) -> String {
        self.clone()
    }
}

/// "sis_util=1, SIS_PROP=off" -> "SIS_UTIL=on,SIS_PROP=off", each name checked.
fn canonical_features(value: &str) -> Result<String, InputError> {
    let mut f = Features::default_for_check();
    let mut norm = Vec::new();
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| InputError::range("features", item, "NAME=on|off, e.g. SIS_PROP=on"))?;
        let on = match v.trim() {
            "on" | "true" | "1" => true,
            "off" | "false" | "0" => false,
            _ => return Err(InputError::range("features", item, "NAME=on|off")),
        };
        f.set(k.trim(), on)?;
        let canonical = FEATURES
            .iter()
            .find(|x| x.name.eq_ignore_ascii_case(k.trim()))
            .map_or("", |x| x.name);
        norm.push(format!("{canonical}={}", if on { "on" } else { "off" }));
    }
    Ok(norm.join(","))
}

/// An enum field: its values and their names.
pub trait Choice: Copy + PartialEq + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
}

/// The names of a [`Choice`], for `Kind::Choice`.
pub fn names<T: Choice>() -> Vec<&'static str> {
    T::ALL.iter().map(|x| x.name()).collect()
}

impl<T: Choice> FieldValue for T {
    fn parse(f: &Field, value: &str) -> Result<Self, InputError> {
        T::ALL
            .iter()
            .copied()
            .find(|x| x.name() == value.trim())
            .ok_or_else(|| InputError::unknown(f.name, value, names::<T>()))
    }
    fn text(&self) -> String {
        self.name().to_string()
    }
}

impl Choice for Numbering {
    const ALL: &'static [Self] = &[Numbering::Contiguous, Numbering::Interleaved];
    fn name(self) -> &'static str {
        Numbering::name(self)
    }
}

/// The `warmup` value that warms until PELT and nr_idle_scan have settled (the default).
pub const WARMUP_AUTO: &str = "auto";

/// Parses "500ms", "2s", "2.5s", "100us" or "1500ns" (a bare "0" is zero). None if malformed;
/// `parse_duration` says why.
pub fn parse_duration_ns(v: &str) -> Option<u64> {
    parse_duration(v).ok()
}

/// Parses a duration as `parse_duration_ns`, or says what is wrong with it (for the error's
/// "expected ..." text). A decimal must be a whole number of ns ("1.5us" yes, "1.5ns" no).
pub fn parse_duration(v: &str) -> Result<u64, &'static str> {
    const NEED: &str = "a number and a unit (ns, us, ms or s), like 500ms or 2.5s";
    const TOO_BIG: &str = "a duration of at most 3600s";
    let v = v.trim();
    if v == "0" {
        return Ok(0);
    }
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let mul: u64 = match unit.trim() {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        "" => return Err(NEED),
        _ => return Err("a unit of ns, us, ms or s"),
    };
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || (num.contains('.') && frac.is_empty())
    {
        return Err(NEED);
    }
    let whole_ns = whole
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .ok_or(TOO_BIG)?;
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        return Ok(whole_ns);
    }
    let scale = u32::try_from(frac.len())
        .ok()
        .and_then(|d| 10u64.checked_pow(d))
        .filter(|s| mul.is_multiple_of(*s))
        .ok_or("a whole number of ns")?;
    let f: u64 = frac.parse().map_err(|_| NEED)?;
    whole_ns.checked_add(f * (mul / scale)).ok_or(TOO_BIG)
}

/// Formats ns as the shortest exact unit string.
pub fn format_duration(ns: u64) -> String {
    if ns.is_multiple_of(1_000_000_000) && ns > 0 {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("500ms"), Some(500_000_000));
        assert_eq!(parse_duration_ns("2s"), Some(2_000_000_000));
        assert_eq!(parse_duration_ns("2 s"), Some(2_000_000_000));
        assert_eq!(parse_duration_ns("2h"), None);
        assert_eq!(parse_duration_ns("99999999999999999999s"), None);
        assert_eq!(parse_duration_ns("2.5s"), Some(2_500_000_000));
        assert_eq!(parse_duration_ns("0.25ms"), Some(250_000));
        assert_eq!(parse_duration_ns("1.5us"), Some(1_500));
        assert_eq!(parse_duration_ns("0"), Some(0));
        assert_eq!(parse_duration("1.5ns"), Err("a whole number of ns"));
        assert!(
            parse_duration("500").unwrap_err().contains("unit"),
            "no unit is an error"
        );
        for bad in ["", "s", ".5s", "5.s", "1.2.3s", "-1s", "1e3ms"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert_eq!(format_duration(1_500_000), "1500us");
    }

    #[test]
    fn expected_texts_follow_the_kind() {
        assert_eq!(Kind::int(1, 1024).expected(), "an integer in 1..=1024");
        let smt = Kind::Int {
            min: 1,
            max: 4,
            only: &[1, 2, 4],
            note: "",
        };
        assert_eq!(smt.expected(), "1, 2 or 4");
        assert_eq!(
            Kind::Choice(names::<Numbering>).expected(),
            "contiguous or interleaved"
        );
        let d = Kind::Duration {
            min_ns: 1_000_000,
            max_ns: 3_600_000_000_000,
            auto: false,
        };
        assert_eq!(
            d.expected(),
            "a duration in 1ms..=3600s, like 500ms or 2.5s"
        );
    }
}
