//! Sweeps off the main thread: the `sweep_point` export that `static/sweep-worker.js` calls
//! for each point, and the page's URLs a worker loads (the pool is `crate::sweep_pool`).
//!
//! The worker loads the same wasm-bindgen glue and the same wasm as the page (their hashed
//! URLs come from `static/boot.js`), so a point runs `sis_core::analysis::sweep::run_point` exactly as
//! `sis sweep` does; the report crosses back as its scenario query and its integers
//! ([`encode_report`] / [`report_from_wire`]): no serde_json deserialiser in the wasm (~10 KB
//! gzipped), and the page's JSON export still serialises the rebuilt report byte for byte as
//! `sis sweep --format json` does.

use sis_core::analysis::sweep::run_point;
use sis_core::kernel::stats::{Counters, ScanHistogram};
use sis_core::sim::engine::{HistogramReport, PerCpu, RunReport, ThroughputReport, WarmupReport};
use sis_core::Scenario;
use wasm_bindgen::prelude::*;

/// Runs one sweep point given as a URL query of scenario fields (`llc_weight=8&load=50&...`)
/// and returns its `RunReport` as [`encode_report`] writes it, or `error: <message naming the
/// field>`.
#[cfg_attr(feature = "page", wasm_bindgen)]
pub fn sweep_point(scenario_query: &str) -> String {
    let pairs = crate::url::split_query(scenario_query);
    let sc = match Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(sc) => sc,
        Err(e) => return format!("error: {e}"),
    };
    match run_point(&sc) {
        Ok(r) => encode_report(&r),
        Err(e) => format!("error: {e}"),
    }
}

/// A point as the worker receives it: every scenario field, `&`-joined.
pub fn point_query(sc: &Scenario) -> String {
    sc.to_pairs()
        .into_iter()
        .map(|(k, v)| format!("{k}={}", crate::url::encode(&v)))
        .collect::<Vec<_>>()
        .join("&")
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
    let mut o = point_query(scenario);
    o.push('\n');
    let mut nums: Vec<u64> = vec![*sim_time_ns, *wakeups, *migrations];
    nums.extend(counters.to_array());
    let ThroughputReport {
        wakeups_per_s,
        latency_p50_ns,
        latency_p90_ns,
        latency_p99_ns,
        latency_max_ns,
    } = *throughput;
    nums.extend([
        wakeups_per_s,
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

/// The hashed glue/wasm URLs the page was loaded with (set by static/boot.js; else read from
/// its script tag's data attributes).
pub(crate) fn boot_urls() -> Option<(String, String)> {
    let win = web_sys::window()?;
    let get = |k: &str| {
        js_sys::Reflect::get(&win, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
    };
    if let (Some(js), Some(wasm)) = (get("sisvizJsUrl"), get("sisvizWasmUrl")) {
        return Some((js, wasm));
    }
    let doc = win.document()?;
    let tag = doc.query_selector("script[data-sisviz-js]").ok()??;
    let base = doc.base_uri().ok()??;
    let abs = |a: &str| {
        let rel = tag.get_attribute(a)?;
        web_sys::Url::new_with_base(&rel, &base)
            .ok()
            .map(|u| u.href())
    };
    Some((abs("data-sisviz-js")?, abs("data-sisviz-wasm")?))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let text = sweep_point(&point_query(&sc));
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
