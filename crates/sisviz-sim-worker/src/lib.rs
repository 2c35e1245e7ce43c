//! The sweep workers' wasm (issue 28): `static/sweep-worker.js` loads it and calls
//! [`sweep_point`] on each point the page deals it (the pool is the page's
//! `sweep_pool.rs`). A point runs `sis_core::analysis::sweep::run_point` exactly as
//! `sis sweep` does; the report crosses back as its scenario query and its integers
//! ([`encode_report`]; the page's `worker_api::report_from_wire` reads them): no serde code on
//! either side.
//!
//! A wasm of its own, built at opt-level 3 (`wasm-fast` in Cargo.toml), where the page's is
//! built for size: the simulator ran at 0.46-0.59 of native in the page's wasm and 0.69-0.76
//! in this build (tests/e2e/bench.mjs, docs/performance.md).

use sis_core::analysis::sweep::run_point;
use sis_core::sim::engine::{PerCpu, RunReport, ThroughputReport, WarmupReport};
use sis_core::sim::query::{scenario_query, split_query};
use sis_core::Scenario;
use wasm_bindgen::prelude::*;

/// Runs one sweep point given as a URL query of scenario fields (`llc_weight=8&load=50&...`)
/// and returns its `RunReport` as [`encode_report`] writes it, or `error: <message naming the
/// field>`.
#[wasm_bindgen]
pub fn sweep_point(scenario_query: &str) -> String {
    let pairs = split_query(scenario_query);
    let sc = match Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(sc) => sc,
        Err(e) => return format!("error: {e}"),
    };
    match run_point(&sc) {
        Ok(r) => encode_report(&r),
        Err(e) => format!("error: {e}"),
    }
}

/// A report as the worker sends it: its scenario as a query (first line), then its integers
/// space-separated (sim_time_ns, wakeups, migrations, the counters, the throughput, the
/// warm-up (ns, settled, auto), then nr_idle_scan, per_cpu and the histogram's buckets, each a
/// count and its values). The metrics, cpu_busy_pct, the histogram's unit and labels are derived, as
/// `Simulation::report` derives them.
pub fn encode_report(r: &RunReport) -> String {
    let RunReport {
        scenario,
        sim_time_ns,
        wakeups,
        migrations,
        counters,
        metrics: _,
        nr_idle_scan,
        per_cpu,
        scan_histogram,
        throughput,
        warmup,
        cpu_busy_pct: _,
    } = r;
    let mut o = scenario_query(scenario);
    o.push('\n');
    let mut nums: Vec<u64> = vec![*sim_time_ns, *wakeups, *migrations];
    nums.extend(counters.to_array());
    let ThroughputReport {
        wakeups_per_s,
        messages_per_s,
        latency_p50_ns,
        latency_p90_ns,
        latency_p99_ns,
        latency_max_ns,
    } = *throughput;
    nums.extend([
        wakeups_per_s,
        messages_per_s,
        latency_p50_ns,
        latency_p90_ns,
        latency_p99_ns,
        latency_max_ns,
    ]);
    let WarmupReport { ns, settled, auto } = *warmup;
    nums.extend([ns, settled as u64, auto as u64]);
    nums.push(nr_idle_scan.len() as u64);
    nums.extend(nr_idle_scan.iter().map(|v| *v as u64));
    nums.push(per_cpu.len() as u64);
    for p in per_cpu {
        let PerCpu {
            cpu,
            placed,
            found_by_scan,
            util_avg,
        } = *p;
        nums.extend([cpu as u64, placed, found_by_scan, util_avg as u64]);
    }
    nums.push(scan_histogram.buckets.len() as u64);
    nums.extend(&scan_histogram.buckets);
    for (i, v) in nums.iter().enumerate() {
        if i > 0 {
            o.push(' ');
        }
        o.push_str(&v.to_string());
    }
    o
}
