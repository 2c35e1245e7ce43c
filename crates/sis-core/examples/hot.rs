//! A profiling target: `cargo run --release -p sis-core --example hot -- [preset] [wake-ups]
//! [rec] [field=value ...]`, e.g. under `perf record -g`. Runs the bench's scenario (112 CPUs,
//! SMT 2, 200% netperf; `field=value` arguments set scenario fields on top, e.g.
//! `scan_cost=delay collision=stack`) past the bench's warm-up (500 ms simulated), then times
//! the given number of wake-ups (default 3,000,000).

use sis_core::Simulation;
use std::time::Instant;

fn main() {
    let (fields, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.contains('='));
    let extra: Vec<(&str, &str)> = fields.iter().filter_map(|f| f.split_once('=')).collect();
    let preset = args.first().map_or("linux-6.0", |s| s.as_str());
    let n: u64 = args
        .get(1)
        .map_or(3_000_000, |s| s.parse().expect("wake-ups"));
    let recording = args.get(2).is_some_and(|s| s == "rec");
    let sc = sis_core::sim::bench::scenario_with(preset, &extra).expect("scenario");
    let mut sim = Simulation::new(&sc).expect("simulation");
    sim.set_recording(recording);
    // The bench's warm-up: by 500 ms of simulated time the LLC's scan hints have settled.
    sim.run_for(sis_core::sim::bench::WARMUP_NS);
    let (t, cpu0) = (Instant::now(), cpu_ns());
    sis_core::sim::bench::run_wakeups(&mut sim, n);
    let s = t.elapsed().as_secs_f64();
    let cpu = cpu0.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9);
    println!(
        "{preset}{}: {n} wake-ups in {s:.3}s = {:.2}M/s, on-CPU {} (sim time {:.1}ms, scanned/wake-up {:.2})",
        if recording { " (recording)" } else { "" },
        n as f64 / s / 1e6,
        cpu.map_or("?".into(), |c| format!("{:.2}M/s", n as f64 / c / 1e6)),
        sim.now_ns() as f64 / 1e6,
        sim.metrics().scanned_per_wakeup
    );
}

/// This thread's time on a CPU, ns (Linux: the first field of /proc/thread-self/schedstat), so
/// that a busy machine's time slicing does not count.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
