//! Why a scan stops: `cargo run --release -p sis-core --example budget -- [field=value ...]`,
//! e.g. `llc_weight=112 smt=2 load=200 preset=linux-5.15 scan_cost=waker
//! probe_contention_pct=30`. After 300 ms of simulated warm-up it follows 200,000 wake-up
//! decisions and prints, for the LLC searches: how many had `has_idle_core` set (no SIS_PROP
//! budget in 5.13-6.x), the SIS_PROP budget `nr` at the scan's start, how each scan ended, the
//! LLC's idle CPUs at the decision, and the mean idle period those imply (idle CPUs / idle CPUs
//! taken per second). docs/scan-cost.md quotes it.

use sis_core::kernel::state::CpuState;
use sis_core::kernel::trace::ScanEnd;
use sis_core::{Scenario, Simulation};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs = args
        .iter()
        .map(|a| a.split_once('=').unwrap_or((a.as_str(), "")));
    let built = Scenario::from_pairs(pairs.chain([("duration", "10s"), ("warmup", "0")]))
        .and_then(|sc| Simulation::new(&sc));
    let mut sim = match built {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("budget: {e}");
            std::process::exit(2);
        }
    };
    sim.run_for(300_000_000);
    let cpus = sim.topology().nr_cpus();
    let (t0, n) = (sim.now_ns(), 200_000u64);
    let (mut dom, mut core, mut found) = (0u64, 0u64, 0u64);
    let mut budgets: Vec<i64> = Vec::new();
    let (mut ends, mut idle_sum, mut samples, mut onto_idle) = ([0u64; 4], 0u64, 0u64, 0u64);
    for i in 0..n {
        // The LLC's idle CPUs just before this decision's batch (every 8th, to keep it quick).
        if i % 8 == 0 {
            idle_sum += (0..cpus)
                .filter(|&c| sim.cpu_view(c).state == CpuState::Idle)
                .count() as u64;
            samples += 1;
        }
        let Some(d) = sim.next_wakeup() else { break };
        if d.decided_by.is_some_and(|r| r.is_domain_search()) || d.scan_end.is_some() {
            dom += 1;
            core += d.has_idle_core as u64;
            if let (false, Some(nr)) = (d.has_idle_core, d.nr_before) {
                budgets.push(nr);
            }
            match d.scan_end {
                Some(ScanEnd::Found) => ends[0] += 1,
                Some(ScanEnd::Budget) => ends[1] += 1,
                Some(ScanEnd::Exhausted) => ends[2] += 1,
                _ => ends[3] += 1,
            }
            found += d.decided_by.is_some_and(|r| r.is_domain_search()) as u64;
        }
        onto_idle += d
            .steps
            .iter()
            .any(|s| s.cpu == d.result && s.saw == sis_core::kernel::trace::Saw::Idle)
            as u64;
    }
    let secs = (sim.now_ns() - t0) as f64 / 1e9;
    budgets.sort_unstable();
    let q = |f: f64| {
        budgets
            .get((budgets.len() as f64 * f) as usize)
            .copied()
            .unwrap_or(0)
    };
    let pct = |a: u64, b: u64| 100.0 * a as f64 / b.max(1) as f64;
    let idle_cpus = idle_sum as f64 / samples.max(1) as f64;
    let taken_per_s = onto_idle as f64 / secs;
    println!(
        "{n} wake-ups in {:.1} ms simulated ({:.2} M/s)",
        secs * 1e3,
        n as f64 / secs / 1e6
    );
    println!(
        "LLC searches {dom}: has_idle_core {:.1}%, found {:.1}%; ended found {:.1}% / budget {:.1}% / exhausted {:.1}% / other {:.1}%",
        pct(core, dom),
        pct(found, dom),
        pct(ends[0], dom),
        pct(ends[1], dom),
        pct(ends[2], dom),
        pct(ends[3], dom)
    );
    println!(
        "SIS_PROP budget nr at the scan's start ({} scans without has_idle_core): p10 {} p50 {} p90 {}, at the minimum 4: {:.1}%",
        budgets.len(),
        q(0.1),
        q(0.5),
        q(0.9),
        pct(budgets.iter().filter(|&&b| b <= 4).count() as u64, budgets.len() as u64)
    );
    println!(
        "idle CPUs at a decision {idle_cpus:.2} of {cpus}; wake-ups placed on an idle CPU {:.2} M/s; mean idle period {:.2} us",
        taken_per_s / 1e6,
        idle_cpus / taken_per_s.max(1.0) * 1e6
    );
}
