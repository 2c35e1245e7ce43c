//! `sis run` (one run, summarised) and `sis trace` (its first decisions, step by step).

use crate::args::ScenarioArgs;
use crate::format_of;
use clap::Args;
use sis_core::analysis::sweep::{block_header, load_label};
use sis_core::kernel::stats::ScanHistogram;
use sis_core::sim::engine::RunReport;
use sis_core::sim::scenario::WorkloadKind;
use sis_core::text::Text;
use sis_core::{InputError, Simulation};
use std::io::Write;

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    sc: ScenarioArgs,
    /// table or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
    /// Also cut the measured window into slices of this length, like 50ms, and show each:
    /// wake-ups, success and fast rates, runqueues scanned a search, CPU busy, and at its end
    /// the idle CPUs, has_idle_cores, nr_idle_scan and the LLC's util (JSON: `windows`): a
    /// duration from 1ms to the measured window, at most 10000 slices [default: none]
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    windows: Option<String>,
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
    let mut sim = Simulation::new(&sc)?;
    // Progress in simulated ms on a terminal's stderr (hidden in pipes and for JSON); the
    // slices change nothing in the report (run_to_end_with).
    let bar = match format {
        "json" => indicatif::ProgressBar::hidden(),
        _ => crate::sweep::progress_bar("run", (sim.end_ns() / 1_000_000) as usize, "ms simulated"),
    };
    let windows = windows_ns(&a.windows, &sc)?;
    let mut rows = Vec::new();
    let report = match windows {
        Some(w) => sim.run_to_end_in_windows(w, |r| {
            bar.set_position(r.end_ns / 1_000_000);
            rows.push(r.clone());
        }),
        None => {
            let slice_ns = (sim.end_ns() / 200).max(1_000_000);
            sim.run_to_end_with(slice_ns, |now, end| {
                bar.set_length(end / 1_000_000);
                bar.set_position(now / 1_000_000);
            })
        }
    };
    bar.finish_and_clear();
    Ok(match (format, windows) {
        ("json", None) => pretty_json(&report),
        // The report's keys in their order, then `windows`.
        ("json", Some(_)) => pretty_json(&WithWindows {
            report: &report,
            windows: &rows,
        }),
        (_, None) => summary(&report),
        (_, Some(w)) => summary(&report) + "\n" + &windows_table(w, &rows),
    })
}

/// `sis run --windows --format json`: the report with a `windows` array after its keys.
#[derive(serde::Serialize)]
struct WithWindows<'a> {
    #[serde(flatten)]
    report: &'a RunReport,
    windows: &'a [sis_core::sim::engine::WindowRow],
}

fn pretty_json(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// `--windows`: the slice length, ns, checked against the scenario's measured window.
fn windows_ns(v: &Option<String>, sc: &sis_core::Scenario) -> Result<Option<u64>, InputError> {
    let Some(v) = v else { return Ok(None) };
    // The measured window's length (an auto warm-up that extends keeps it).
    let window = sc.duration_ns() - sc.warmup_ns().min(sc.duration_ns());
    let expected = format!(
        "a duration from 1ms to the measured window ({}), at most 10000 slices",
        sis_core::sim::fields::format_duration(window)
    );
    sis_core::sim::fields::parse_duration_ns(v)
        .filter(|&ns| ns >= 1_000_000 && ns <= window && window.div_ceil(ns) <= 10_000)
        .map(Some)
        .ok_or_else(|| InputError::range("windows", v, &expected))
}

/// The `--windows` table: one line a slice.
fn windows_table(slice_ns: u64, rows: &[sis_core::sim::engine::WindowRow]) -> String {
    let mut s = String::new();
    s.line(format_args!(
        "the measured window in slices of {} (--windows): counts in the slice (rq/wake: runqueues \
         scanned a wake-up); idle CPUs, LLCs with has_idle_cores, nr_idle_scan and util (mean of the LLCs) at its end",
        sis_core::sim::fields::format_duration(slice_ns)
    ));
    s.line(format_args!(
        "{:>10}{:>11}{:>10}{:>8}{:>10}{:>9}{:>11}{:>12}{:>14}{:>8}",
        "end_ms",
        "wake-ups",
        "success%",
        "fast%",
        "rq/wake",
        "busy%",
        "idle CPUs",
        "idle_cores",
        "nr_idle_scan",
        "util%"
    ));
    for r in rows {
        let n = r.llc_util_pct.len().max(1) as f64;
        let m = &r.metrics;
        s.line(format_args!(
            "{:>10.1}{:>11}{:>10.3}{:>8.2}{:>10.2}{:>9.2}{:>11}{:>12}{:>14.1}{:>8.1}",
            r.end_ns as f64 / 1e6,
            r.wakeups,
            m.success_rate,
            m.fast_rate,
            m.scanned_per_wakeup,
            r.cpu_busy_pct,
            r.idle_cpus,
            format!("{}/{}", r.has_idle_cores, r.nr_idle_scan.len()),
            r.nr_idle_scan.iter().map(|&x| x as f64).sum::<f64>() / n,
            r.llc_util_pct.iter().sum::<f64>() / n,
        ));
    }
    s
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
    let messages = match t.messages_per_s {
        0 => String::new(),
        n => format!("{n} messages/s ({}), ", message_unit(sc.workload)),
    };
    s.line(format_args!(
        "throughput {messages}{} wake-ups/s; wake-up latency p50 {:.2} us p90 {:.2} us p99 {:.2} us",
        t.wakeups_per_s,
        us(t.latency_p50_ns),
        us(t.latency_p90_ns),
        us(t.latency_p99_ns)
    ));
    s.line(format_args!("idle CPU time while tasks waited in the LLC: {:.3} ms; time in select_idle_cpu: {:.3} ms ({:.2}% of CPU time)",
        k.wasted_ns as f64 / 1e6,
        k.scan_time_ns as f64 / 1e6,
        r.scan_cpu_pct()));
    s.line(format_args!(
        "CPU busy {:.2}% (scanning included); the wake-up's price on machine {}: rq lock spin {:.3} ms over {} remote wake-ups, {} IPIs",
        r.cpu_busy_pct,
        sc.machine_spec().name,
        k.ttwu_lock_wait_ns as f64 / 1e6,
        k.remote_wakeups,
        k.ipis
    ));
    s.line(format_args!(
        "context switches {} ({} involuntary preemptions); idle CPUs picked and taken before the wakee was queued: {}",
        k.context_switches, k.involuntary_switches, k.idle_pick_taken
    ));
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

/// `sis trace`: each decision is written to `out` as the simulation makes it (text, or one
/// element of a JSON array), so memory stays bounded whatever the count. Input errors come
/// before any output; the write's own result is returned inside.
pub fn trace(a: &TraceArgs, out: &mut dyn Write) -> Result<std::io::Result<()>, InputError> {
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
    let json = format_of(&a.format, &["text", "json"])? == "json";
    let mut sim = Simulation::new(&sc)?;
    let bar = match json {
        true => indicatif::ProgressBar::hidden(),
        false => crate::sweep::progress_bar("trace", n as usize, "wake-ups"),
    };
    let written = stream_decisions(&mut sim, n, json, &sc, out, &bar);
    bar.finish_and_clear();
    Ok(written)
}

fn stream_decisions(
    sim: &mut Simulation,
    n: u64,
    json: bool,
    sc: &sis_core::Scenario,
    out: &mut dyn Write,
    bar: &indicatif::ProgressBar,
) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    if json {
        // serde_json's pretty array, its elements serialized straight into the writer as the
        // simulation makes them.
        let stream = DecisionStream {
            sim: std::cell::RefCell::new(sim),
            n,
            bar,
        };
        serde_json::to_writer_pretty(&mut w, &stream)?;
        w.write_all(b"\n")?;
        return w.flush();
    }
    writeln!(w, "# {}", block_header(sc))?;
    let mut count = 0u64;
    while count < n {
        let Some(d) = sim.next_wakeup() else { break };
        w.write_all(d.to_text().as_bytes())?;
        count += 1;
        if count.is_multiple_of(256) {
            bar.set_position(count);
        }
    }
    if count < n {
        writeln!(w, "# no wake-up after #{count}")?;
    }
    w.flush()
}

/// The first `n` decisions of a simulation as a JSON sequence, made while it is written.
struct DecisionStream<'a, 'b> {
    sim: std::cell::RefCell<&'a mut Simulation>,
    n: u64,
    bar: &'b indicatif::ProgressBar,
}

impl serde::Serialize for DecisionStream<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut sim = self.sim.borrow_mut();
        let mut seq = s.serialize_seq(None)?;
        for count in 1..=self.n {
            let Some(d) = sim.next_wakeup() else { break };
            seq.serialize_element(d)?;
            if count.is_multiple_of(256) {
                self.bar.set_position(count);
            }
        }
        seq.end()
    }
}

/// What one of `counters.messages` is, per workload (the benchmark's own throughput unit).
fn message_unit(w: WorkloadKind) -> &'static str {
    match w {
        WorkloadKind::Hackbench => "hackbench messages read",
        _ => "transactions",
    }
}
