//! `sis run` (one run, summarised) and `sis trace` (its first decisions, step by step).

use crate::args::ScenarioArgs;
use crate::format_of;
use clap::Args;
use sis_core::analysis::sweep::{block_header, load_label};
use sis_core::kernel::stats::ScanHistogram;
use sis_core::kernel::trace::Decision;
use sis_core::sim::engine::RunReport;
use sis_core::text::Text;
use sis_core::{InputError, Simulation};

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    sc: ScenarioArgs,
    /// table or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

#[derive(Args, Debug)]
pub struct TraceArgs {
    #[command(flatten)]
    sc: ScenarioArgs,
    /// Number of wake-up decisions to print (1..=100000) [default: 10]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    wakeups: Option<String>,
    /// text or json [default: text]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

pub fn run(a: &RunArgs) -> Result<String, InputError> {
    let sc = a.sc.resolve()?.scenario;
    let format = format_of(&a.format, &["table", "json"])?;
    let report = sis_core::run(&sc)?;
    Ok(match format {
        "json" => {
            let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
            s.push('\n');
            s
        }
        _ => summary(&report),
    })
}

/// The readable summary of a run.
pub fn summary(r: &RunReport) -> String {
    let sc = &r.scenario;
    let k = &r.counters;
    let m = &r.metrics;
    let mut s = String::new();
    s.line(format_args!("{}", block_header(sc)));
    s.line(format_args!(
        "load {}% ({}), measured {:.3} ms of simulated time",
        sc.load,
        load_label(sc),
        r.sim_time_ns as f64 / 1e6
    ));
    let w = &r.warmup;
    s.line(format_args!(
        "warm-up {:.0} ms ({}): {}",
        w.ns as f64 / 1e6,
        if w.auto {
            "auto, until settled"
        } else {
            "fixed"
        },
        if w.settled {
            "settled (util sum and nr_idle_scan steady)"
        } else {
            "NOT settled: PELT or nr_idle_scan still moving, these figures are a transient"
        }
    ));
    s.line(format_args!(
        "wake-ups {}  migrations {}  balance pulls {}  wake-up latency avg {:.2} us max {:.2} us",
        r.wakeups,
        r.migrations,
        k.balance_pulls,
        m.avg_wakeup_latency_us,
        k.wakeup_latency_max_ns as f64 / 1000.0
    ));
    let t = &r.throughput;
    let us = |ns: u64| ns as f64 / 1000.0;
    s.line(format_args!(
        "throughput {} wake-ups/s; wake-up latency p50 {:.2} us p90 {:.2} us p99 {:.2} us",
        t.wakeups_per_s,
        us(t.latency_p50_ns),
        us(t.latency_p90_ns),
        us(t.latency_p99_ns)
    ));
    s.line(format_args!("idle CPU time while tasks waited in the LLC: {:.3} ms; time in select_idle_cpu: {:.3} ms ({:.2}% of CPU time)",
        k.wasted_ns as f64 / 1e6,
        k.scan_time_ns as f64 / 1e6,
        r.scan_cpu_pct()));
    s.push('\n');
    s.line(format_args!("counters"));
    for (name, v) in [
        ("sis_search", k.sis_search),
        ("sis_domain_search", k.sis_domain_search),
        ("sis_scanned", k.sis_scanned),
        ("sis_failed", k.sis_failed),
        ("sis_recent_hit", k.sis_recent_hit),
        ("sis_recent_miss", k.sis_recent_miss),
        ("sis_core_search", k.sis_core_search),
        ("sis_core_miss", k.sis_core_miss),
    ] {
        s.line(format_args!("  {name:<20}{v:>14}"));
    }
    s.push('\n');
    s.line(format_args!("schedstat_parse.py (Chen Yu)"));
    for (name, v) in [
        ("se_eff%", m.se_eff),
        ("dom_eff%", m.dom_eff),
        ("fast_rate%", m.fast_rate),
        ("success_rate%", m.success_rate),
    ] {
        s.line(format_args!("  {name:<28}{v:>10.3}"));
    }
    s.line(format_args!("mmtests (Mel Gorman)"));
    for (name, v) in [
        ("SIS Search Efficiency", m.mmtests_search_eff),
        ("SIS Domain Search Eff", m.mmtests_domain_eff),
        ("SIS Fast Success Rate", m.mmtests_fast_rate),
        ("SIS Success Rate", m.mmtests_success_rate),
        ("SIS Recent Success Rate", m.recent_success_rate),
        ("SIS Core Search Eff", m.core_search_eff),
    ] {
        s.line(format_args!("  {name:<28}{v:>10.3}"));
    }
    s.line(format_args!(
        "  {:<28}{:>10.3}",
        "runqueues scanned/wake-up", m.scanned_per_wakeup
    ));
    s.line(format_args!(
        "nr_idle_scan per LLC at the end: {:?}",
        r.nr_idle_scan
    ));
    s.push('\n');
    if r.per_cpu.len() <= 64 {
        s.line(format_args!(
            "{:>5}{:>12}{:>15}{:>10}",
            "cpu", "placed", "found_by_scan", "util_avg"
        ));
        for p in &r.per_cpu {
            s.line(format_args!(
                "{:>5}{:>12}{:>15}{:>10}",
                p.cpu, p.placed, p.found_by_scan, p.util_avg
            ));
        }
    } else {
        let utils: Vec<u32> = r.per_cpu.iter().map(|p| p.util_avg).collect();
        let sum: u64 = utils.iter().map(|u| *u as u64).sum();
        s.line(format_args!(
            "per CPU ({} CPUs; all of them with --format json): util_avg min {} mean {} max {}; \
             placed min {} max {}",
            utils.len(),
            utils.iter().min().unwrap_or(&0),
            sum / utils.len().max(1) as u64,
            utils.iter().max().unwrap_or(&0),
            r.per_cpu.iter().map(|p| p.placed).min().unwrap_or(0),
            r.per_cpu.iter().map(|p| p.placed).max().unwrap_or(0),
        ));
    }
    s.push('\n');
    let hist = ScanHistogram {
        buckets: r.scan_histogram.buckets.clone(),
    };
    s.line(format_args!(
        "time spent in select_idle_cpu ({} calls):",
        hist.total()
    ));
    s.push_str(&hist.to_text());
    s
}

pub fn trace(a: &TraceArgs) -> Result<String, InputError> {
    let sc = a.sc.resolve()?.scenario;
    let n: u64 = match &a.wakeups {
        None => 10,
        Some(v) => v
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=100_000).contains(n))
            .ok_or_else(|| InputError::range("wakeups", v, "an integer in 1..=100000"))?,
    };
    let format = format_of(&a.format, &["text", "json"])?;
    let mut sim = Simulation::new(&sc)?;
    let mut decisions: Vec<Decision> = Vec::new();
    while (decisions.len() as u64) < n {
        match sim.next_wakeup() {
            Some(d) => decisions.push(d.clone()),
            None => break,
        }
    }
    Ok(match format {
        "json" => {
            let mut s = serde_json::to_string_pretty(&decisions).unwrap_or_default();
            s.push('\n');
            s
        }
        _ => {
            let mut s = format!("# {}\n", block_header(&sc));
            for d in &decisions {
                s.push_str(&d.to_text());
            }
            if (decisions.len() as u64) < n {
                s.line(format_args!("# no wake-up after #{}", decisions.len()));
            }
            s
        }
    })
}
