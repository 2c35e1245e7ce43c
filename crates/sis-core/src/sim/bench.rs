//! The one scenario every speed figure is measured on (criterion's `benches/wakeups.rs`, the
//! `hot` profiling target and the `soak` memory check): 112 CPUs, SMT 2, one LLC, 200%
//! netperf, long enough never to end (they only step).

use crate::{InputError, Scenario, Simulation};

/// Simulated time run before timing starts, ns: by 500 ms the LLC's nr_idle_scan and
/// has_idle_cores have settled (the first ~400 ms scan far more), and the ring is full.
pub const WARMUP_NS: u64 = 500_000_000;

/// The bench scenario with `preset`.
pub fn scenario(preset: &str) -> Result<Scenario, InputError> {
    scenario_with(preset, &[])
}

/// The bench scenario with `preset` and other scenario fields set on top (e.g. the earlier
/// model's `scan_cost=delay`, `collision=stack`, to time the same code on that workload).
pub fn scenario_with(preset: &str, extra: &[(&str, &str)]) -> Result<Scenario, InputError> {
    let base = [
        ("llc_weight", "112"),
        ("smt", "2"),
        ("load", "200"),
        ("workload", "netperf"),
        ("preset", preset),
        ("duration", "3600s"),
        ("warmup", "0ms"),
    ];
    Scenario::from_pairs(base.iter().chain(extra).copied())
}

/// Steps until `n` more wake-up decisions have been made; false if the events ran out first.
pub fn run_wakeups(sim: &mut Simulation, n: u64) -> bool {
    let target = sim.wakeups_total() + n;
    while sim.wakeups_total() < target {
        if !sim.step() {
            return false;
        }
    }
    true
}
