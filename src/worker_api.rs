//! Sweeps off the main thread, the page's side (the pool is `crate::sweep_pool`): each worker
//! (`static/sweep-worker.js`) loads the sweep workers' own wasm (`crates/sisviz-sim-worker`,
//! built for speed where the page's is built for size) and runs its `sweep_point` on the
//! queries [`point_query`] writes, so a point runs `sis_core::analysis::sweep::run_point`
//! exactly as `sis sweep` does. The report crosses back as its scenario query and its integers
//! (`sisviz_sim_worker::encode_report` / [`report_from_wire`]): no serde_json deserialiser in
//! the wasm (~10 KB gzipped), and the page's JSON export still serialises the rebuilt report
//! byte for byte as `sis sweep --format json` does.

use sis_core::kernel::stats::{Counters, ScanHistogram};
use sis_core::sim::engine::{HistogramReport, PerCpu, RunReport, ThroughputReport, WarmupReport};
use sis_core::Scenario;

/// A point as the worker receives it: every scenario field, `&`-joined.
pub use sis_core::sim::query::scenario_query as point_query;

/// A point's report from what `sweep_point` returned (or its `error: ...`). The metrics are
/// recomputed from the integer counters, as the run computed them.
pub fn report_from_wire(text: &str) -> Result<RunReport, String> {
    if let Some(e) = text.strip_prefix("error: ") {
        return Err(e.to_string());
    }
    let bad = || format!("bad report from a sweep worker: {text:.60}");
    let (query, numbers) = text.split_once('\n').ok_or_else(bad)?;
    let pairs = crate::url::split_query(query);
    let scenario = Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| format!("bad report from a sweep worker: {e}"))?;
    let mut it = numbers.split_ascii_whitespace().map(|t| t.parse::<u64>());
    let mut n = || it.next().and_then(|v| v.ok()).ok_or_else(bad);
    let (sim_time_ns, wakeups, migrations) = (n()?, n()?, n()?);
    let mut c = [0u64; Counters::LEN];
    for v in &mut c {
        *v = n()?;
    }
    let counters = Counters::from_array(c);
    let throughput = ThroughputReport {
        wakeups_per_s: n()?,
        messages_per_s: n()?,
        latency_p50_ns: n()?,
        latency_p90_ns: n()?,
        latency_p99_ns: n()?,
        latency_max_ns: n()?,
    };
    let warmup = WarmupReport {
        ns: n()?,
        settled: n()? != 0,
        auto: n()? != 0,
    };
    let mut nr_idle_scan = Vec::new();
    for _ in 0..n()? {
        nr_idle_scan.push(n()? as u32);
    }
    let mut per_cpu = Vec::new();
    for _ in 0..n()? {
        per_cpu.push(PerCpu {
            cpu: n()? as u32,
            placed: n()?,
            found_by_scan: n()?,
            util_avg: n()? as u32,
        });
    }
    let mut buckets = Vec::new();
    for _ in 0..n()? {
        buckets.push(n()?);
    }
    if n().is_ok() {
        return Err(bad());
    }
    let cpus = scenario.nr_cpus() as u64;
    Ok(RunReport {
        cpu_busy_pct: sis_core::kernel::stats::cpu_busy_pct(counters.idle_ns, cpus, sim_time_ns),
        scenario,
        sim_time_ns,
        wakeups,
        migrations,
        metrics: counters.metrics(),
        counters,
        nr_idle_scan,
        per_cpu,
        scan_histogram: HistogramReport {
            unit: "usecs".into(),
            labels: (0..buckets.len()).map(ScanHistogram::label).collect(),
            buckets,
        },
        throughput,
        warmup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sis_core::analysis::sweep::run_point;

    #[test]
    fn a_report_crosses_from_the_worker_unchanged() {
        for (preset, load) in [("linux-6.0", "150"), ("linux-5.15", "50")] {
            let sc = Scenario::from_pairs([
                ("llc_weight", "8"),
                ("duration", "20ms"),
                ("preset", preset),
                ("load", load),
            ])
            .unwrap();
            let r = run_point(&sc).unwrap();
            let text = sisviz_sim_worker::sweep_point(&point_query(&sc));
            let back = report_from_wire(&text).unwrap();
            assert_eq!(back, r);
            // The sweep JSON export serialises the rebuilt report as the CLI does its own.
            assert_eq!(
                serde_json::to_string(&back).unwrap(),
                serde_json::to_string(&r).unwrap()
            );
            assert!(report_from_wire(text.rsplit_once(' ').unwrap().0).is_err());
            assert!(report_from_wire(&format!("{text} 7")).is_err());
        }
        assert_eq!(
            report_from_wire("error: invalid load").unwrap_err(),
            "invalid load"
        );
    }
}
