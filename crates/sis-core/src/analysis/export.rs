//! Exports: a run's decisions as a Chrome/Perfetto JSON trace, and a run's metrics as text
//! laid out like the seeds' tables (pasteable into a mail) or CSV.

use crate::kernel::trace::Decision;
use crate::sim::engine::RunReport;

/// The Chrome trace-event format (`{"traceEvents": [...]}`) as JSON text: one track (tid) per
/// CPU, named "CPU n"; each wake-up is a complete event on the chosen CPU, each LLC scan a
/// complete event of probes × the decision's probe cost (or `probe_cost_ns`) on the waker's
/// CPU, with the decision's details in `args`. Times are microseconds with three decimals.
/// Written as text, not built as a serde_json `Value`: the page's wasm carries this.
pub fn chrome_trace<'a>(
    decisions: impl IntoIterator<Item = &'a Decision>,
    nr_cpus: u32,
    probe_cost_ns: u64,
) -> String {
    use std::fmt::Write;
    let mut s = String::from(
        r#"{"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"sisviz"}}"#,
    );
    for cpu in 0..nr_cpus {
        let _ = write!(
            s,
            r#",{{"name":"thread_name","ph":"M","pid":1,"tid":{cpu},"args":{{"name":"CPU {cpu}"}}}},{{"name":"thread_sort_index","ph":"M","pid":1,"tid":{cpu},"args":{{"sort_index":{cpu}}}}}"#
        );
    }
    for d in decisions {
        let probes: Vec<u32> = d
            .steps
            .iter()
            .filter(|s| s.rule.is_domain_search())
            .map(|s| s.cpu)
            .collect();
        let cost = if d.probe_cost_ns > 0 {
            d.probe_cost_ns
        } else {
            probe_cost_ns
        };
        let scan_ns = probes.len() as u64 * cost;
        if !probes.is_empty() {
            let _ = write!(
                s,
                r#",{{"name":"select_idle_cpu","cat":"scan","ph":"X","pid":1,"tid":{},"ts":{},"dur":{},"args":{{"seq":{},"probed":{},"nr_before":{},"nr_after":{},"missed_idle":{}}}}}"#,
                d.id.waker_cpu,
                Us(d.id.time_ns),
                Us(scan_ns.max(1)),
                d.id.seq,
                List(&probes),
                Opt(d.nr_before),
                Opt(d.nr_after),
                List(&d.missed_idle)
            );
        }
        let _ = write!(
            s,
            r#",{{"name":"wake task {}","cat":"wakeup","ph":"X","pid":1,"tid":{},"ts":{},"dur":1.000,"args":{{"seq":{},"waker_cpu":{},"prev":{},"target":{},"decided_by":{},"steps":{}}}}}"#,
            d.id.wakee,
            d.result,
            Us(d.id.time_ns + scan_ns),
            d.id.seq,
            d.id.waker_cpu,
            d.id.prev,
            d.target,
            Opt(d.decided_by.map(|r| Quoted(r.name()))),
            d.steps.len()
        );
    }
    s.push_str(r#"],"displayTimeUnit":"ns"}"#);
    s
}

/// Nanoseconds as microseconds with three decimals (exact: no float).
struct Us(u64);
impl std::fmt::Display for Us {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// A JSON array of numbers.
struct List<'a>(&'a [u32]);
impl std::fmt::Display for List<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, x) in self.0.iter().enumerate() {
            write!(f, "{}{x}", if i == 0 { "" } else { "," })?;
        }
        f.write_str("]")
    }
}

/// A value, or JSON's null.
struct Opt<T>(Option<T>);
impl<T: std::fmt::Display> std::fmt::Display for Opt<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match &self.0 {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("null"),
        }
    }
}

/// A JSON string of a name that needs no escaping (a rule's: ASCII letters and underscores).
struct Quoted(&'static str);
impl std::fmt::Display for Quoted {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}

/// The seed's schedstat_parse.py layout for one run.
pub fn metrics_text(r: &RunReport) -> String {
    let m = &r.metrics;
    let c = &r.counters;
    let sc = &r.scenario;
    let mut s = format!(
        "sisviz {} {} llc_weight={} smt={} llcs={} load={}% seed={} duration={}\n",
        sc.preset,
        sc.workload.name(),
        sc.llc_weight,
        sc.smt,
        sc.llcs,
        sc.load,
        sc.seed,
        sc.duration
    );
    s.push_str("case\tload\tse_eff%\tdom_eff%\tfast_rate%\tsuccess_rate%\n");
    s.push_str(&format!(
        "{}\t{}%\t{:.3}\t{:.3}\t{:.3}\t{:.3}\n",
        sc.workload.name(),
        sc.load,
        m.se_eff,
        m.dom_eff,
        m.fast_rate,
        m.success_rate
    ));
    s.push_str(&format!(
        "sis_search {}  sis_domain_search {}  sis_scanned {}  sis_failed {}  wakeups {}  migrations {}  scanned/wakeup {:.2}\n",
        c.sis_search, c.sis_domain_search, c.sis_scanned, c.sis_failed, r.wakeups, r.migrations, m.scanned_per_wakeup
    ));
    s
}

/// One CSV header line and one row for a run.
pub fn metrics_csv(r: &RunReport) -> String {
    let m = &r.metrics;
    let c = &r.counters;
    format!(
        "preset,workload,load,wakeups,sis_search,sis_domain_search,sis_scanned,sis_failed,se_eff,dom_eff,fast_rate,success_rate,scanned_per_wakeup,migrations\n{},{},{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{}\n",
        r.scenario.preset, r.scenario.workload.name(), r.scenario.load, r.wakeups, c.sis_search, c.sis_domain_search, c.sis_scanned, c.sis_failed,
        m.se_eff, m.dom_eff, m.fast_rate, m.success_rate, m.scanned_per_wakeup, r.migrations
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scenario, Simulation};
    use serde_json::{json, Value};

    #[test]
    fn chrome_trace_has_one_track_per_cpu_and_valid_events() {
        let sc = Scenario::from_pairs([
            ("llc_weight", "8"),
            ("load", "150"),
            ("preset", "full-scan"),
        ])
        .unwrap();
        let mut sim = Simulation::new(&sc).unwrap();
        // Past the instances' launch (12 pairs one after another), unrecorded.
        sim.run_for(20_000_000);
        for _ in 0..50 {
            sim.next_wakeup();
        }
        let text = chrome_trace(sim.decisions(), 8, sc.probe_cost_ns);
        let back: Value = serde_json::from_str(&text).unwrap();
        let evs = back["traceEvents"].as_array().unwrap();
        let names: Vec<u64> = evs
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| e["tid"].as_u64().unwrap())
            .collect();
        assert_eq!(names, (0..8).collect::<Vec<u64>>());
        let wakes: Vec<&Value> = evs.iter().filter(|e| e["cat"] == "wakeup").collect();
        assert_eq!(wakes.len(), 50);
        for e in evs.iter().filter(|e| e["ph"] == "X") {
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() > 0.0);
            assert!(e["tid"].as_u64().unwrap() < 8);
        }
        assert!(
            evs.iter().any(|e| e["cat"] == "scan"),
            "full-scan at 150% scans"
        );
        // Every decision, where it happened: the wake-up on the chosen CPU after the scan's
        // cost, the scan on the waker's CPU with the CPUs it probed.
        for d in sim.decisions() {
            let of = |cat: &str| -> Vec<&Value> {
                evs.iter()
                    .filter(|e| e["cat"] == cat && e["args"]["seq"] == d.id.seq)
                    .collect()
            };
            let probed: Vec<u32> = d
                .steps
                .iter()
                .filter(|s| s.rule.is_domain_search())
                .map(|s| s.cpu)
                .collect();
            let scan_ns = probed.len() as u64 * sc.probe_cost_ns;
            let wake = of("wakeup");
            assert_eq!(wake.len(), 1, "decision {}", d.id.seq);
            assert_eq!(wake[0]["tid"], d.result);
            assert_eq!(wake[0]["ts"], (d.id.time_ns + scan_ns) as f64 / 1000.0);
            assert_eq!(wake[0]["name"], format!("wake task {}", d.id.wakee));
            let scan = of("scan");
            if probed.is_empty() {
                assert!(scan.is_empty(), "decision {}", d.id.seq);
            } else {
                assert_eq!(scan.len(), 1, "decision {}", d.id.seq);
                assert_eq!(scan[0]["tid"], d.id.waker_cpu);
                assert_eq!(scan[0]["dur"], scan_ns as f64 / 1000.0);
                assert_eq!(scan[0]["args"]["probed"], json!(probed));
            }
        }
    }

    #[test]
    fn text_and_csv_carry_the_metrics() {
        let sc =
            Scenario::from_pairs([("llc_weight", "8"), ("duration", "20ms"), ("warmup", "0ms")])
                .unwrap();
        let r = crate::run(&sc).unwrap();
        let t = metrics_text(&r);
        assert!(t.contains("se_eff%\tdom_eff%\tfast_rate%\tsuccess_rate%"));
        assert!(t.contains(&format!("{:.3}", r.metrics.se_eff)));
        let csv = metrics_csv(&r);
        assert_eq!(csv.lines().count(), 2);
        assert_eq!(
            csv.lines().next().unwrap().split(',').count(),
            csv.lines().nth(1).unwrap().split(',').count()
        );
    }
}
