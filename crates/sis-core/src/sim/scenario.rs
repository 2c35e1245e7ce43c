//! The one scenario type. CLI flags, scenario files, URL queries and the embed API are four
//! spellings of it, and all of them go through [`Scenario::set_field`]: one validation path.

use crate::error::InputError;
use crate::kernel::features::{preset, Features};
use crate::kernel::topology::{Numbering, TopologySpec};
use serde::{Deserialize, Serialize};

/// A workload kind (design.md "Workloads").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    Netperf,
    Tbench,
    Hackbench,
    Schbench,
    Uniform,
    Pinned,
}

pub const WORKLOADS: &[(&str, WorkloadKind, &str)] = &[
    ("netperf", WorkloadKind::Netperf, "TCP_RR pairs: client and server wake each other (sync), ~10 us runs; load = pairs per CPU"),
    ("tbench", WorkloadKind::Tbench, "like netperf with longer server runs (~50 us); load = pairs per CPU"),
    ("hackbench", WorkloadKind::Hackbench, "groups of senders and receivers; each sender wakes every receiver of its group"),
    ("schbench", WorkloadKind::Schbench, "message threads wake worker threads that run a fixed time"),
    ("uniform", WorkloadKind::Uniform, "independent tasks with exponential run and sleep times (timer wake-ups)"),
    ("pinned", WorkloadKind::Pinned, "the seeds' corner case: hogs bound to CPU0..W-2 of LLC 0 at util 1024, the last CPU idle, plus wakers"),
];

impl WorkloadKind {
    pub fn name(self) -> &'static str {
        WORKLOADS
            .iter()
            .find(|w| w.1 == self)
            .map(|w| w.0)
            .unwrap_or("?")
    }
}

/// A complete, validated description of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub llcs: u32,
    pub llc_weight: u32,
    pub smt: u32,
    pub cluster_size: u32,
    pub numbering: Numbering,
    pub preset: String,
    /// Feature overrides on top of the preset, e.g. "SIS_PROP=on,SIS_UTIL=off" ("" = none).
    pub features: String,
    pub imbalance_pct: u32,
    pub workload: WorkloadKind,
    /// Tasks (or pairs/groups, per workload) per CPU of the LLCs, percent.
    pub load: u32,
    /// Explicit task count; overrides `load` when non-zero.
    pub tasks: u32,
    pub seed: u64,
    /// Simulated duration, e.g. "1s", "500ms".
    pub duration: String,
    /// Time before counters start: "auto" (the default: warm until PELT and nr_idle_scan
    /// have settled, see `engine/warmup.rs`) or a duration, e.g. "100ms", honoured exactly.
    pub warmup: String,
    /// Simulated cost of probing one runqueue, ns, with no other CPU of the LLC scanning.
    pub probe_cost_ns: u64,
    /// Each other CPU of the LLC scanning at the same time adds this % of probe_cost_ns to a
    /// probe (the runqueue lines bounce between the scanners and their owners): see
    /// docs/scan-cost.md for the mechanism and its one global calibration.
    #[serde(default = "default_probe_contention_pct")]
    pub probe_contention_pct: u32,
    /// Who pays for the scan: "waker" (the default: the waker CPU's time, as try_to_wake_up
    /// runs select_task_rq_fair in the waker's context, and the wakee is enqueued after it) or
    /// "delay" (the wakee only: the waker's CPU goes on at once). docs/scan-cost.md.
    #[serde(default)]
    pub scan_cost: ScanCost,
    /// What a wake-up does when the CPU its scan found was taken by another wake-up before
    /// the wakee arrives: "rescan" (the default: the scan goes on from that CPU with the budget
    /// it had left, as the kernel's loop would have when its probe found the CPU busy) or
    /// "stack" (it queues there). docs/scan-cost.md.
    #[serde(default)]
    pub collision: Collision,
    pub hz: u32,
    /// Workload service time override (0 = the workload's default), us.
    pub service_us: u32,
}

/// Who pays for select_task_rq_fair's scan (see [`Scenario::scan_cost`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanCost {
    Delay,
    #[default]
    Waker,
}

impl ScanCost {
    pub fn name(self) -> &'static str {
        match self {
            ScanCost::Delay => "delay",
            ScanCost::Waker => "waker",
        }
    }
}

/// What a wake-up does when its scan's CPU was taken before the wakee arrived (see
/// [`Scenario::collision`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Collision {
    Stack,
    #[default]
    Rescan,
}

impl Collision {
    pub fn name(self) -> &'static str {
        match self {
            Collision::Stack => "stack",
            Collision::Rescan => "rescan",
        }
    }
}

/// The calibrated contention per concurrent scanner (docs/scan-cost.md): one global value.
pub const PROBE_CONTENTION_PCT: u32 = 0;

fn default_probe_contention_pct() -> u32 {
    PROBE_CONTENTION_PCT
}

/// The `warmup` value that warms until PELT and nr_idle_scan have settled (the default).
pub const WARMUP_AUTO: &str = "auto";
/// An auto warm-up's minimum (a tenth of runs shorter than 1 s): the measured window is the
/// duration less this, however long the warm-up turns out.
pub const WARMUP_AUTO_MIN_NS: u64 = 100_000_000;

/// Field names, in URL/CLI order, with their allowed values (for errors and `--help`).
pub const FIELDS: &[(&str, &str)] = &[
    ("llc_weight", "an integer in 1..=1024"),
    ("llcs", "an integer in 1..=16"),
    ("smt", "1, 2 or 4"),
    ("cluster_size", "0 or a multiple of smt dividing llc_weight"),
    ("numbering", "contiguous or interleaved"),
    ("preset", "a preset name (sis presets)"),
    ("features", "comma-separated NAME=on|off"),
    ("imbalance_pct", "an integer in 100..=1000"),
    (
        "workload",
        "netperf, tbench, hackbench, schbench, uniform or pinned",
    ),
    ("load", "an integer percent in 0..=1000"),
    ("tasks", "an integer in 0..=65536"),
    ("seed", "an integer in 0..=18446744073709551615"),
    ("duration", "a duration in 1ms..=3600s, like 500ms or 2s"),
    (
        "warmup",
        "auto (warm until settled) or a duration in 0..duration, like 100ms",
    ),
    ("probe_cost_ns", "an integer in 0..=1000000"),
    ("probe_contention_pct", "an integer in 0..=1000"),
    ("scan_cost", "delay or waker"),
    ("collision", "stack or rescan"),
    ("hz", "100, 250, 300 or 1000"),
    (
        "service_us",
        "an integer in 0..=1000000 (0 = workload default)",
    ),
];

/// A scenario file's members as (field, text) pairs in file order: strings as they are,
/// numbers and booleans as written (each field's parser judges them); null, an array or an
/// object is an error naming the field. Read by `flat_json`, not serde_json (the page's size).
pub fn file_pairs(text: &str) -> Result<Vec<(String, String)>, InputError> {
    let members = crate::sim::flat_json::object_members(text)
        .map_err(|e| InputError::range("scenario", e, "a JSON object of scenario fields"))?;
    members
        .into_iter()
        .map(|(k, v)| match v {
            crate::sim::flat_json::Value::Scalar(s) => Ok((k, s)),
            crate::sim::flat_json::Value::Other(raw) => {
                let expected = FIELDS
                    .iter()
                    .find(|f| f.0 == k)
                    .map_or("a scenario field", |f| f.1);
                Err(InputError::range(&k, raw, expected))
            }
        })
        .collect()
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            llcs: 1,
            llc_weight: 16,
            smt: 2,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            preset: "linux-6.0".into(),
            features: String::new(),
            imbalance_pct: 117,
            workload: WorkloadKind::Netperf,
            load: 100,
            tasks: 0,
            seed: 1,
            duration: "1s".into(),
            warmup: WARMUP_AUTO.into(),
            probe_cost_ns: 400,
            probe_contention_pct: default_probe_contention_pct(),
            scan_cost: ScanCost::Waker,
            collision: Collision::Rescan,
            hz: 1000,
            service_us: 0,
        }
    }
}

fn parse_int<T: std::str::FromStr + PartialOrd + Copy + std::fmt::Display>(
    field: &str,
    v: &str,
    lo: T,
    hi: T,
    expected: &str,
) -> Result<T, InputError> {
    match v.trim().parse::<T>() {
        Ok(x) if x >= lo && x <= hi => Ok(x),
        _ => Err(InputError::range(field, v, expected)),
    }
}

/// Parses "500ms", "2s", "2.5s", "100us" or "1500ns" (a bare "0" is zero). None if malformed;
/// `parse_duration` says why.
pub fn parse_duration_ns(v: &str) -> Option<u64> {
    parse_duration(v).ok()
}

/// Parses a duration as `parse_duration_ns`, or says what is wrong with it (for the error's
/// "expected ..." text). A decimal must be a whole number of ns ("1.5us" yes, "1.5ns" no).
pub fn parse_duration(v: &str) -> Result<u64, &'static str> {
    const NEED: &str = "a number and a unit (ns, us, ms or s), like 500ms or 2.5s";
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
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits_ok(whole)
        || !digits_ok(frac)
        || (num.contains('.') && frac.is_empty())
    {
        return Err(NEED);
    }
    const TOO_BIG: &str = "a duration of at most 3600s";
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
        .ok_or("a whole number of ns")?;
    let f: u64 = frac.parse().map_err(|_| NEED)?;
    if !mul.is_multiple_of(scale) {
        return Err("a whole number of ns");
    }
    whole_ns.checked_add(f * (mul / scale)).ok_or(TOO_BIG)
}

/// A duration field's value, or an error that says what is malformed before the range.
fn duration_field(name: &str, value: &str, expected: &str) -> Result<u64, InputError> {
    parse_duration(value)
        .map_err(|why| InputError::range(name, value, &format!("{why} ({expected})")))
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

impl Scenario {
    /// Sets one field from its text form, validating it. Unknown names suggest the closest.
    pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), InputError> {
        let expected = FIELDS
            .iter()
            .find(|f| f.0 == name)
            .map(|f| f.1)
            .unwrap_or("");
        match name {
            "llc_weight" => self.llc_weight = parse_int(name, value, 1, 1024, expected)?,
            "llcs" => self.llcs = parse_int(name, value, 1, 16, expected)?,
            "smt" => {
                self.smt = parse_int(name, value, 1, 4, expected)?;
                if self.smt == 3 {
                    return Err(InputError::range(name, value, expected));
                }
            }
            "cluster_size" => self.cluster_size = parse_int(name, value, 0, 1024, expected)?,
            "numbering" => {
                self.numbering = match value {
                    "contiguous" => Numbering::Contiguous,
                    "interleaved" => Numbering::Interleaved,
                    _ => {
                        return Err(InputError::unknown(
                            name,
                            value,
                            ["contiguous", "interleaved"],
                        ))
                    }
                }
            }
            "preset" => {
                let p = preset(value)?;
                // A new preset brings its own imbalance_pct unless one is set after it.
                self.imbalance_pct = p.imbalance_pct;
                self.preset = p.name.to_string();
            }
            "features" => {
                let mut f = Features::default_for_check();
                let mut norm = Vec::new();
                for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let (k, v) = item.split_once('=').ok_or_else(|| {
                        InputError::range("features", item, "NAME=on|off, e.g. SIS_PROP=on")
                    })?;
                    let on = match v.trim() {
                        "on" | "true" | "1" => true,
                        "off" | "false" | "0" => false,
                        _ => return Err(InputError::range("features", item, "NAME=on|off")),
                    };
                    f.set(k.trim(), on)?;
                    let canonical = crate::kernel::features::FEATURES
                        .iter()
                        .find(|x| x.name.eq_ignore_ascii_case(k.trim()))
                        .map(|x| x.name)
                        .unwrap_or("");
                    norm.push(format!("{canonical}={}", if on { "on" } else { "off" }));
                }
                self.features = norm.join(",");
            }
            "imbalance_pct" => self.imbalance_pct = parse_int(name, value, 100, 1000, expected)?,
            "workload" => {
                self.workload = WORKLOADS
                    .iter()
                    .find(|w| w.0 == value)
                    .map(|w| w.1)
                    .ok_or_else(|| {
                        InputError::unknown(name, value, WORKLOADS.iter().map(|w| w.0))
                    })?
            }
            "load" => self.load = parse_int(name, value, 0, 1000, expected)?,
            "tasks" => self.tasks = parse_int(name, value, 0, 65536, expected)?,
            "seed" => self.seed = parse_int(name, value, 0, u64::MAX, expected)?,
            "duration" => {
                let ns = duration_field(name, value, expected)?;
                if !(1_000_000..=3_600_000_000_000).contains(&ns) {
                    return Err(InputError::range(name, value, expected));
                }
                self.duration = format_duration(ns);
            }
            "warmup" if value.trim() == WARMUP_AUTO => self.warmup = WARMUP_AUTO.into(),
            "warmup" => {
                let ns = duration_field(name, value, expected)?;
                if ns > 3_600_000_000_000 {
                    return Err(InputError::range(name, value, expected));
                }
                self.warmup = format_duration(ns);
            }
            "probe_cost_ns" => self.probe_cost_ns = parse_int(name, value, 0, 1_000_000, expected)?,
            "probe_contention_pct" => {
                self.probe_contention_pct = parse_int(name, value, 0, 1000, expected)?
            }
            "scan_cost" => {
                self.scan_cost = match value {
                    "delay" => ScanCost::Delay,
                    "waker" => ScanCost::Waker,
                    _ => return Err(InputError::unknown(name, value, ["delay", "waker"])),
                }
            }
            "collision" => {
                self.collision = match value {
                    "stack" => Collision::Stack,
                    "rescan" => Collision::Rescan,
                    _ => return Err(InputError::unknown(name, value, ["stack", "rescan"])),
                }
            }
            "hz" => {
                self.hz = parse_int(name, value, 100, 1000, expected)?;
                if ![100, 250, 300, 1000].contains(&self.hz) {
                    return Err(InputError::range(name, value, expected));
                }
            }
            "service_us" => self.service_us = parse_int(name, value, 0, 1_000_000, expected)?,
            _ => {
                return Err(InputError::unknown(
                    "field",
                    name,
                    FIELDS.iter().map(|f| f.0),
                ))
            }
        }
        Ok(())
    }

    /// Builds a scenario from name/value pairs over the defaults, then checks the whole.
    /// `preset` is applied first so a later `imbalance_pct` overrides the preset's.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, InputError> {
        Self::from_pair_vec(pairs.into_iter().collect())
    }

    /// [`Scenario::from_pairs`]'s body, not generic (one copy in a wasm build, not one per
    /// caller's iterator type).
    fn from_pair_vec(pairs: Vec<(&str, &str)>) -> Result<Self, InputError> {
        // `preset` first, the rest in their order (a stable partition: no sort code in wasm).
        let (mut pairs, rest): (Vec<_>, Vec<_>) =
            pairs.into_iter().partition(|(k, _)| *k == "preset");
        pairs.extend(rest);
        let warmup_given = pairs.iter().any(|(k, _)| *k == "warmup");
        let mut s = Scenario::default();
        for (k, v) in pairs {
            s.set_field(k, v)?;
        }
        // A given fixed warm-up too long for the run is an error (check); a fixed one that
        // came from elsewhere (never the default, which is auto) shrinks to a tenth.
        if !warmup_given && !s.warmup_auto() && s.warmup_ns() >= s.duration_ns() {
            s.warmup = format_duration(s.duration_ns() / 10);
        }
        s.check()?;
        Ok(s)
    }

    /// Parses a scenario file (JSON object with the field names; numbers or strings).
    pub fn from_json(text: &str) -> Result<Self, InputError> {
        let pairs = file_pairs(text)?;
        Self::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Every field as text, in FIELDS order (URL query, CLI echo).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        FIELDS
            .iter()
            .map(|(k, _)| {
                let v = match *k {
                    "llc_weight" => self.llc_weight.to_string(),
                    "llcs" => self.llcs.to_string(),
                    "smt" => self.smt.to_string(),
                    "cluster_size" => self.cluster_size.to_string(),
                    "numbering" => self.numbering.name().to_string(),
                    "preset" => self.preset.clone(),
                    "features" => self.features.clone(),
                    "imbalance_pct" => self.imbalance_pct.to_string(),
                    "workload" => self.workload.name().to_string(),
                    "load" => self.load.to_string(),
                    "tasks" => self.tasks.to_string(),
                    "seed" => self.seed.to_string(),
                    "duration" => self.duration.clone(),
                    "warmup" => self.warmup.clone(),
                    "probe_cost_ns" => self.probe_cost_ns.to_string(),
                    "probe_contention_pct" => self.probe_contention_pct.to_string(),
                    "scan_cost" => self.scan_cost.name().to_string(),
                    "collision" => self.collision.name().to_string(),
                    "hz" => self.hz.to_string(),
                    "service_us" => self.service_us.to_string(),
                    _ => String::new(),
                };
                (*k, v)
            })
            .collect()
    }

    /// Cross-field checks (topology shape, warmup within duration).
    pub fn check(&self) -> Result<(), InputError> {
        self.topology_spec().check()?;
        if !self.warmup_auto() && self.warmup_ns() >= self.duration_ns() {
            return Err(InputError::range(
                "warmup",
                &self.warmup,
                &format!("less than duration {}", self.duration),
            ));
        }
        Ok(())
    }

    pub fn topology_spec(&self) -> TopologySpec {
        TopologySpec {
            llcs: self.llcs,
            llc_weight: self.llc_weight,
            smt: self.smt,
            cluster_size: self.cluster_size,
            numbering: self.numbering,
        }
    }

    pub fn duration_ns(&self) -> u64 {
        parse_duration_ns(&self.duration).unwrap_or(1_000_000_000)
    }

    /// The fixed warm-up, or for `auto` its minimum: WARMUP_AUTO_MIN_NS, or a tenth of a
    /// shorter run (the run may warm longer: `Simulation::warmup_ns`).
    pub fn warmup_ns(&self) -> u64 {
        if self.warmup_auto() {
            return WARMUP_AUTO_MIN_NS.min(self.duration_ns() / 10);
        }
        parse_duration_ns(&self.warmup).unwrap_or(0)
    }

    /// Whether the warm-up is `auto` (warm until settled) rather than a fixed duration.
    pub fn warmup_auto(&self) -> bool {
        self.warmup == WARMUP_AUTO
    }

    /// The preset's features with this scenario's overrides.
    pub fn features(&self) -> Result<Features, InputError> {
        let mut f = preset(&self.preset)?.features;
        for item in self.features.split(',').filter(|s| !s.is_empty()) {
            if let Some((k, v)) = item.split_once('=') {
                f.set(k, v == "on")?;
            }
        }
        Ok(f)
    }

    pub fn busy_factor(&self) -> u32 {
        preset(&self.preset).map(|p| p.busy_factor).unwrap_or(16)
    }

    /// Whether newidle balance is also gated by sysctl_sched_migration_cost (kernels before 5.16).
    pub fn newidle_migration_cost_gate(&self) -> bool {
        preset(&self.preset).is_ok_and(|p| p.newidle_migration_cost_gate)
    }

    pub fn nr_cpus(&self) -> u32 {
        self.llcs * self.llc_weight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_round_trip_through_pairs_and_json() {
        let s = Scenario::default();
        s.check().unwrap();
        let pairs = s.to_pairs();
        let back = Scenario::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
        assert_eq!(back, s);
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }

    #[test]
    fn errors_name_field_value_and_range() {
        let e = Scenario::from_pairs([("llc_weight", "0")])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "invalid llc_weight '0': expected an integer in 1..=1024");
        let e = Scenario::from_pairs([("llc_wieght", "8")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean 'llc_weight'"), "{e}");
        let e = Scenario::from_pairs([("preset", "linux-6.00")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("preset") && e.contains("did you mean"), "{e}");
        let e = Scenario::from_pairs([("smt", "3")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("smt '3'"), "{e}");
        let e = Scenario::from_pairs([("llc_weight", "6"), ("smt", "4")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("smt"), "{e}");
        let e = Scenario::from_pairs([("features", "SIS_UTLI=on")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("SIS_UTIL"), "{e}");
        let e = Scenario::from_pairs([("duration", "10ms"), ("warmup", "20ms")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("warmup"), "{e}");
        assert!(Scenario::from_json("[1]").is_err());
        assert!(Scenario::from_json("{\"load\": -3}")
            .unwrap_err()
            .to_string()
            .contains("load"));
    }

    #[test]
    fn a_scenario_file_reads_as_its_pairs() {
        // Any order: the preset first, then the file's imbalance_pct. A repeated key is an error.
        let sc =
            Scenario::from_json(r#"{"imbalance_pct": 130, "preset": "linux-6.0", "load": 200}"#)
                .unwrap();
        let e = Scenario::from_json(r#"{"load": 100, "preset": "linux-6.0", "load": 200}"#)
            .unwrap_err();
        assert!(e.value.contains("duplicate key `load`"), "{e}");
        assert_eq!(
            (sc.imbalance_pct, sc.load, sc.preset.as_str()),
            (130, 200, "linux-6.0")
        );
        // Numbers as written reach the field's parser; what no field takes names the field.
        for (text, field, value) in [
            (r#"{"load": 1e3}"#, "load", "1e3"),
            (
                r#"{"seed": 18446744073709551616}"#,
                "seed",
                "18446744073709551616",
            ),
            (r#"{"smt": [2]}"#, "smt", "[2]"),
            (r#"{"hz": null}"#, "hz", "null"),
            (
                r#"{"load": 3,}"#,
                "scenario",
                "trailing comma at line 1 column 12",
            ),
        ] {
            let e = Scenario::from_json(text).unwrap_err();
            assert_eq!(
                (e.field.as_str(), e.value.as_str()),
                (field, value),
                "{text}"
            );
        }
    }

    #[test]
    fn preset_brings_its_imbalance_pct_unless_overridden() {
        let s = Scenario::from_pairs([("imbalance_pct", "130"), ("preset", "linux-4.13")]).unwrap();
        assert_eq!(s.imbalance_pct, 130);
        // linux-4.13 topology.c sd_init: the LLC level (SD_SHARE_PKG_RESOURCES) has 117.
        let mut s = Scenario::from_pairs([("imbalance_pct", "130")]).unwrap();
        s.set_field("preset", "linux-4.13").unwrap();
        assert_eq!(s.imbalance_pct, 117);
    }

    #[test]
    fn default_warmup_shrinks_for_short_runs_but_an_explicit_one_is_checked() {
        let s = Scenario::from_pairs([("duration", "50ms")]).unwrap();
        assert_eq!((s.warmup.as_str(), s.warmup_ns()), ("auto", 5_000_000));
        assert_eq!(Scenario::default().warmup_ns(), WARMUP_AUTO_MIN_NS);
        let s = Scenario::from_pairs([("warmup", "auto"), ("duration", "2s")]).unwrap();
        assert!(s.warmup_auto());
        let s = Scenario::from_pairs([("warmup", "300ms")]).unwrap();
        assert!(!s.warmup_auto() && s.warmup_ns() == 300_000_000);
        assert!(Scenario::from_pairs([("duration", "50ms"), ("warmup", "100ms")]).is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("500ms"), Some(500_000_000));
        assert_eq!(parse_duration_ns("2s"), Some(2_000_000_000));
        assert_eq!(parse_duration_ns("2 s"), Some(2_000_000_000));
        assert_eq!(parse_duration_ns("2h"), None);
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
        assert_eq!(parse_duration_ns("99999999999999999999s"), None);
        assert_eq!(format_duration(1_500_000), "1500us");
    }
}
