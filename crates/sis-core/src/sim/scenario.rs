//! The one scenario type. CLI flags, scenario files, URL queries and the embed API are four
//! spellings of it, and all of them go through [`Scenario::set_field`]: one validation path.

use super::fields::names;
pub use super::fields::{
    format_duration, parse_duration, parse_duration_ns, Choice, Field, FieldValue, Kind,
    WARMUP_AUTO,
};
use crate::error::InputError;
use crate::kernel::features::{preset, Features};
use crate::kernel::topology::{Numbering, TopologySpec};
pub use crate::sim::machine::{Machine, MachineName};
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

pub static WORKLOADS: &[(&str, WorkloadKind, &str)] = &[
    ("netperf", WorkloadKind::Netperf, "TCP_RR pairs: client and server wake each other (sync), ~10 us runs; load = pairs per CPU"),
    ("tbench", WorkloadKind::Tbench, "like netperf with longer server runs (~50 us); load = pairs per CPU"),
    ("hackbench", WorkloadKind::Hackbench, "groups of senders and receivers; each sender wakes every receiver of its group"),
    ("schbench", WorkloadKind::Schbench, "message threads wake 28 workers each, which spin 30 ms and post back"),
    ("uniform", WorkloadKind::Uniform, "independent tasks with exponential run and sleep times (timer wake-ups)"),
    ("pinned", WorkloadKind::Pinned, "the seeds' corner case: hogs bound to CPU0..W-2 of LLC 0 at util 1024, the last CPU idle, plus wakers"),
];

impl WorkloadKind {
    pub const ALL: &'static [Self] = &[
        WorkloadKind::Netperf,
        WorkloadKind::Tbench,
        WorkloadKind::Hackbench,
        WorkloadKind::Schbench,
        WorkloadKind::Uniform,
        WorkloadKind::Pinned,
    ];
    pub fn name(self) -> &'static str {
        WORKLOADS
            .iter()
            .find(|w| w.1 == self)
            .map(|w| w.0)
            .unwrap_or("?")
    }
}

/// The calibrated contention per concurrent scanner (docs/scan-cost.md): one global value.
pub const PROBE_CONTENTION_PCT: u32 = 0;

/// netperf/tbench's wire time by default, us (see [`Scenario::wire_us`]).
pub const WIRE_US: u32 = 18;

fn default_wire_us() -> u32 {
    WIRE_US
}

/// The CONFIG_HZ values a kernel can be built with (kernel/Kconfig.hz): the scenario's `hz`
/// and the replay's (`ReplayConfig::hz`).
pub const HZ_VALUES: [u64; 4] = [100, 250, 300, 1000];

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn default_probe_contention_pct() -> u32 {
    PROBE_CONTENTION_PCT
}

/// An auto warm-up's minimum (a tenth of runs shorter than 1 s): the measured window is the
/// duration less this, however long the warm-up turns out.
pub const WARMUP_AUTO_MIN_NS: u64 = 100_000_000;

/// One millisecond and one hour, ns: the durations' bounds.
const MS: u64 = 1_000_000;
const HOUR: u64 = 3_600_000_000_000;

/// Declares the scenario's fields once: each entry is the field's doc and serde attributes,
/// `name: Type = default;`, then its kind (range or names), CLI flag, flag placeholder, unit
/// and help. Generates [`Scenario`], its `Default`, [`FIELDS`] (URL, CLI and `to_pairs`
/// order), the parsing `set_field` dispatches to, and `to_pairs`.
macro_rules! scenario_fields {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ty = $default:expr;
            $kind:expr, $flag:literal, $value_name:literal, $unit:literal, $help:literal;
    )*) => {
        /// A complete, validated description of a run (its fields: `scenario_fields!`).
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Scenario {
            $( $(#[$attr])* pub $name: $ty, )*
        }

        impl Default for Scenario {
            fn default() -> Self {
                Scenario { $( $name: $default, )* }
            }
        }

        /// Every field, in URL/CLI order.
        pub static FIELDS: &[Field] = &[
            $( Field {
                name: stringify!($name),
                kind: $kind,
                flag: $flag,
                value_name: $value_name,
                unit: $unit,
            }, )*
        ];

        /// A field's one line for `--help` and the guide (kept out of [`FIELDS`], so a build
        /// that never asks, like the page's wasm, does not carry the text).
        pub fn field_help(name: &str) -> &'static str {
            match name {
                $( stringify!($name) => $help, )*
                _ => "",
            }
        }

        impl Scenario {
            /// Reads `value` into the field `f` (one of FIELDS).
            fn set_parsed(&mut self, f: &Field, value: &str) -> Result<(), InputError> {
                match f.name {
                    $( stringify!($name) => self.$name = <$ty as FieldValue>::parse(f, value)?, )*
                    _ => {}
                }
                Ok(())
            }

            /// Every field as text, in FIELDS order (URL query, CLI echo).
            pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
                vec![ $( (stringify!($name), FieldValue::text(&self.$name)), )* ]
            }
        }
    };
}

scenario_fields! {
    /// The machine whose wake-up costs the run pays (sim/machine.rs, `sis machines`): `auto`
    /// (the machine whose LLC is the scenario's, else seed 000's) or a name, which also sets
    /// the topology and probe cost (given fields after it override them).
    #[serde(default)]
    machine: MachineName = MachineName::Auto;
        Kind::Choice(names::<MachineName>), "machine", "NAME", "",
        "Machine preset: its topology and wake-up costs (auto: the one whose LLC this is, else the seed's; see `sis machines`)";
    llcs: u32 = 1;
        Kind::int(1, 16), "llcs", "N", "", "Number of LLCs";
    llc_weight: u32 = 16;
        Kind::int(1, 1024), "llc-weight", "W", "", "CPUs per LLC";
    smt: u32 = 2;
        Kind::Int { min: 1, max: 4, only: &[1, 2, 4], note: "" },
        "smt", "N", "", "SMT threads per core";
    cluster_size: u32 = 0;
        Kind::Int { min: 0, max: 1024, only: &[], note: "0 = no clusters, else a multiple of smt dividing llc_weight" },
        "cluster-size", "N", "", "CPUs per cluster";
    numbering: Numbering = Numbering::Contiguous;
        Kind::Choice(names::<Numbering>), "numbering", "NUMBERING", "",
        "CPU numbering (contiguous: SMT siblings adjacent; interleaved: the sibling of i is i + N/2)";
    preset: String = "linux-6.0".into();
        Kind::Preset, "preset", "P", "", "Kernel preset (see `sis presets`)";
    /// Feature overrides on top of the preset, e.g. "SIS_PROP=on,SIS_UTIL=off" ("" = none).
    features: String = String::new();
        Kind::Features, "feature", "NAME=on|off", "",
        "Feature override on top of the preset, e.g. SIS_PROP=on (repeatable)";
    imbalance_pct: u32 = 117;
        Kind::int(100, 1000), "imbalance-pct", "P", "%", "The LLC domain's imbalance_pct";
    workload: WorkloadKind = WorkloadKind::Netperf;
        Kind::Choice(names::<WorkloadKind>), "workload", "W", "", "Workload";
    /// Tasks (or pairs/groups, per workload) per CPU of the LLCs, percent.
    load: u32 = 100;
        Kind::Int { min: 0, max: 1000, only: &[], note: "percent of the CPUs" },
        "load", "PCT", "%", "Load in percent of the CPUs";
    /// Explicit task count; overrides `load` when non-zero.
    tasks: u32 = 0;
        Kind::int(0, 65536), "tasks", "N", "", "Explicit task count (overrides --load when non-zero)";
    seed: u64 = 1;
        Kind::int(0, u64::MAX), "seed", "S", "", "PRNG seed";
    /// Simulated duration, e.g. "1s", "500ms".
    duration: String = "1s".into();
        Kind::Duration { min_ns: MS, max_ns: HOUR, auto: false }, "duration", "D", "",
        "Simulated duration, like 500ms or 2s";
    /// Time before counters start: "auto" (the default: warm until PELT and nr_idle_scan
    /// have settled, see `sim/engine/warmup.rs`) or a duration, e.g. "100ms", honoured exactly.
    warmup: String = WARMUP_AUTO.into();
        Kind::Duration { min_ns: 0, max_ns: HOUR, auto: true }, "warmup", "D", "",
        "Warm-up before the counters start: auto (until PELT and nr_idle_scan settle) or a fixed duration like 100ms, honoured exactly";
    /// Simulated cost of probing one runqueue, ns, with no other CPU of the LLC scanning.
    probe_cost_ns: u64 = 400;
        Kind::int(0, 1_000_000), "probe-cost-ns", "NS", "ns", "Simulated cost of probing one runqueue, ns";
    /// Each other CPU of the LLC scanning at the same time adds this % of probe_cost_ns to a
    /// probe (the runqueue lines bounce between the scanners and their owners): see
    /// docs/scan-cost.md for the mechanism and its one global calibration.
    #[serde(default = "default_probe_contention_pct")]
    probe_contention_pct: u32 = PROBE_CONTENTION_PCT;
        Kind::int(0, 1000), "probe-contention-pct", "PCT", "%",
        "% of probe_cost_ns each other CPU scanning the LLC at once adds to a probe";
    /// Who pays for the scan: "waker" (the default: the waker CPU's time, as try_to_wake_up
    /// runs select_task_rq_fair in the waker's context, and the wakee is enqueued after it) or
    /// "delay" (the wakee only: the waker's CPU goes on at once). docs/scan-cost.md.
    #[serde(default)]
    scan_cost: ScanCost = ScanCost::Waker;
        Kind::Choice(names::<ScanCost>), "scan-cost", "WHO", "",
        "Who pays for the scan (delay: the wakee only; waker: also the waker's CPU)";
    /// What a wake-up does when the CPU its scan found was taken by another wake-up before
    /// the wakee arrives, and what the scan saw of CPUs that changed while it ran: "timed"
    /// (the default: the scan is walked again at its end, each probe seeing its CPU as it was
    /// when the kernel's loop reached it, taken since the scan began or freed; presets
    /// without the single-pass loop, or with a cluster pass, SIS_FILTER, SIS_CACHE or
    /// SIS_NODE, use rescan's rule), "rescan" (if the CPU found was taken before the kernel's
    /// loop would have probed it, the scan goes on from that CPU with the budget it had left;
    /// taken later, or remembered by an idle-core scan that went on past it, the wakee queues
    /// there) or "stack" (it always queues there). docs/scan-cost.md.
    #[serde(default)]
    collision: Collision = Collision::Timed;
        Kind::Choice(names::<Collision>), "collision", "WHAT", "",
        "What a scan sees of CPUs taken or freed while it runs (timed: each probe sees its CPU at its own time; rescan: a found CPU taken before its probe makes the scan go on; stack: the wakee queues where the scan found a CPU)";
    /// How each CPU orders its waiting tasks: "fifo" (the default: first come, first run, a
    /// slice each when others wait) or "cfs" (CFS's vruntime order, the sleeper's placement,
    /// wake-up preemption and the tick's sched_slice, as 4.4-6.5 fair.c: the guide's model
    /// page). Left out of the JSON when fifo, so scenarios without it read as before.
    #[serde(default, skip_serializing_if = "Runqueue::is_fifo")]
    runqueue: Runqueue = Runqueue::Fifo;
        Kind::Choice(names::<Runqueue>), "runqueue", "ORDER", "",
        "How a CPU orders its waiting tasks (fifo: first come first run; cfs: vruntime order, sleeper placement and wake-up preemption, kernels up to 6.5)";
    hz: u32 = 1000;
        Kind::Int { min: 100, max: 1000, only: &HZ_VALUES, note: "" },
        "hz", "HZ", "", "Tick rate";
    /// Workload service time override (0 = the workload's default), us.
    service_us: u32 = 0;
        Kind::Int { min: 0, max: 1_000_000, only: &[], note: "0 = the workload's default" },
        "service-us", "US", "us", "Workload service time override, us";
    /// netperf/tbench: the reply spends this long on a wire, both ends blocked, and is a
    /// non-sync wake-up from the receiving CPU's softirq. 0 = loopback: the sender wakes the
    /// peer with WF_SYNC from its own context. The default stays 18 us: on loopback each pair
    /// always has a runnable task, so a stacked LLC never sees an idle CPU again; linux-6.0
    /// stacks from 140 threads, where the seed's still scans at 168, and linux-5.19 at 196-224
    /// threads within seconds, where the seed's stayed spread for 100 s (guide, differs.md).
    #[serde(default = "default_wire_us")]
    wire_us: u32 = WIRE_US;
        Kind::Int { min: 0, max: 100_000, only: &[], note: "0 = loopback, no wire" },
        "wire-us", "US", "us", "netperf/tbench: time a reply spends on a NIC's wire, us (0 = loopback)";
    /// netperf/tbench on loopback (wire_us 0): the share of each send's run that is the
    /// NET_RX softirq on the sender's CPU (v5.19 `netif_rx()` queues the packet on the local
    /// backlog, `do_softirq()` runs it at `local_bh_enable()`; `sock_def_readable()` wakes the
    /// peer from it, so that wake-up's scan is softirq time too). With
    /// CONFIG_IRQ_TIME_ACCOUNTING, `update_rq_clock_task()` takes that time out of PELT's clock:
    /// the CPU is busy, its util neither grows nor decays. 0 = no such time. Left out of the
    /// JSON when 0, so scenarios without it read as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    softirq_pct: u32 = 0;
        Kind::Int { min: 0, max: 90, only: &[], note: "0 = none" },
        "softirq-pct", "PCT", "%", "netperf/tbench on loopback: share of each send run in the softirq, kept out of PELT (IRQ time accounting)";
    /// A scan-depth rule of the user's own, replacing the preset's throttle ("" = none):
    /// `kernel::nr_expr`. Left out of the JSON when empty, so scenarios without one read as
    /// before.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    nr_expr: String = String::new();
        Kind::NrExpr, "nr-expr", "EXPR", "",
        "A scan-depth rule of your own, replacing the preset's throttle (e.g. SIS_UTIL: llc_weight * (1024 - min(1024, (sum_util / llc_weight) * (sum_util / llc_weight) * imbalance_pct * imbalance_pct / 10240000)) / 1024)";
}

// The enum fields' names, for parsing and `Kind::Choice`.
impl Choice for WorkloadKind {
    const ALL: &'static [Self] = WorkloadKind::ALL;
    fn name(self) -> &'static str {
        WorkloadKind::name(self)
    }
}

impl Choice for MachineName {
    const ALL: &'static [Self] = MachineName::ALL;
    fn name(self) -> &'static str {
        MachineName::name(self)
    }
}

impl Choice for ScanCost {
    const ALL: &'static [Self] = ScanCost::ALL;
    fn name(self) -> &'static str {
        ScanCost::name(self)
    }
}

impl Choice for Runqueue {
    const ALL: &'static [Self] = Runqueue::ALL;
    fn name(self) -> &'static str {
        Runqueue::name(self)
    }
}

impl Choice for Collision {
    const ALL: &'static [Self] = Collision::ALL;
    fn name(self) -> &'static str {
        Collision::name(self)
    }
}

/// The `machine` pairs first, then `preset`, then the others, each in their order: a machine
/// brings its topology and a preset its imbalance_pct, which given ones must override whatever
/// the order they were written in (stable partitions: no sort's code in the wasm). Every
/// spelling applies pairs in this order.
pub fn preset_first<K: AsRef<str>, V>(pairs: &[(K, V)]) -> Vec<&(K, V)> {
    let (machine, rest): (Vec<_>, Vec<_>) =
        pairs.iter().partition(|(k, _)| k.as_ref() == "machine");
    let (preset, rest): (Vec<_>, Vec<_>) =
        rest.into_iter().partition(|(k, _)| k.as_ref() == "preset");
    machine.into_iter().chain(preset).chain(rest).collect()
}

/// The field named `name`.
pub fn field(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// An integer field's range, for the app's number inputs.
pub fn int_range(name: &str) -> Option<(u64, u64)> {
    match field(name)?.kind {
        Kind::Int { min, max, .. } => Some((min, max)),
        _ => None,
    }
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
    pub const ALL: &'static [Self] = &[ScanCost::Delay, ScanCost::Waker];
    pub fn name(self) -> &'static str {
        match self {
            ScanCost::Delay => "delay",
            ScanCost::Waker => "waker",
        }
    }
}

/// How a CPU orders its waiting tasks (see [`Scenario::runqueue`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runqueue {
    #[default]
    Fifo,
    Cfs,
}

impl Runqueue {
    pub const ALL: &'static [Self] = &[Runqueue::Fifo, Runqueue::Cfs];
    pub fn name(self) -> &'static str {
        match self {
            Runqueue::Fifo => "fifo",
            Runqueue::Cfs => "cfs",
        }
    }
    pub fn is_fifo(&self) -> bool {
        *self == Runqueue::Fifo
    }
}

/// What a wake-up does when its scan's CPU was taken before the wakee arrived (see
/// [`Scenario::collision`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Collision {
    Stack,
    Rescan,
    #[default]
    Timed,
}

impl Collision {
    pub const ALL: &'static [Self] = &[Collision::Stack, Collision::Rescan, Collision::Timed];
    pub fn name(self) -> &'static str {
        match self {
            Collision::Stack => "stack",
            Collision::Rescan => "rescan",
            Collision::Timed => "timed",
        }
    }
}

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
                let expected = field(&k).map_or("a scenario field".into(), |f| f.kind.expected());
                Err(InputError::range(&k, raw, &expected))
            }
        })
        .collect()
}

impl Scenario {
    /// Sets one field from its text form, validating it. Unknown names suggest the closest.
    pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), InputError> {
        let f = field(name)
            .ok_or_else(|| InputError::unknown("field", name, FIELDS.iter().map(|f| f.name)))?;
        self.set_parsed(f, value)?;
        if name == "preset" {
            // A new preset brings its own imbalance_pct unless one is set after it.
            self.imbalance_pct = preset(&self.preset)?.imbalance_pct;
        }
        if let Some(m) = self.machine.machine().filter(|_| name == "machine") {
            // A named machine brings its topology and probe cost unless given after it.
            (self.llcs, self.llc_weight, self.smt) = (m.llcs, m.llc_weight, m.smt);
            (self.cluster_size, self.numbering) = (m.cluster_size, m.numbering);
            self.probe_cost_ns = m.probe_cost_ns;
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
        let warmup_given = pairs.iter().any(|(k, _)| *k == "warmup");
        let mut s = Scenario::default();
        for (k, v) in preset_first(&pairs) {
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

    /// Cross-field checks (topology shape, warmup within duration).
    pub fn check(&self) -> Result<(), InputError> {
        self.topology_spec().check()?;
        if self.runqueue == Runqueue::Cfs {
            let p = crate::kernel::features::preset(&self.preset)?;
            if p.eevdf() {
                return Err(InputError::range(
                    "runqueue",
                    "cfs",
                    &format!(
                        "fifo with preset {}: it is on 6.7's path, where EEVDF (6.6) replaced \
                         CFS's vruntime order; cfs is for the presets up to linux-6.0 and the \
                         patches on them",
                        self.preset
                    ),
                ));
            }
        }
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
            nodes: 1,
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

    /// The machine whose costs this run pays (`machine`, `auto` resolved).
    pub fn machine_spec(&self) -> &'static Machine {
        crate::sim::machine::resolve(self.machine, self.llc_weight, self.smt, self.cluster_size)
    }

    /// The `nr_expr` rule, if one is set (validated when it was set).
    pub fn nr_expr_rule(&self) -> Option<crate::kernel::nr_expr::NrExpr> {
        crate::kernel::nr_expr::NrExpr::parse(&self.nr_expr)
            .ok()
            .filter(|_| !self.nr_expr.is_empty())
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

    /// Whether task_hot() lets a balance pull a cache-hot task from an SMT sibling: from 5.10
    /// (ec73240b1627, "sched/fair: Ignore cache hotness for SMT migration").
    pub fn task_hot_ignores_smt(&self) -> bool {
        preset(&self.preset).is_ok_and(|p| p.task_hot_ignores_smt())
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
}
