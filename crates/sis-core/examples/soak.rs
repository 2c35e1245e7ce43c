//! Soak: `cargo run --release -p sis-core --example soak -- [wake-ups]` (default 10^8) runs the
//! bench's scenario (112 CPUs, SMT 2, one LLC, 200% netperf, linux-6.0) with decision
//! recording ON (the ring of the last 256 decisions) and prints, at 10^6, 10^7 and the end:
//! wake-ups/s so far, peak RSS (VmHWM) and heap allocations per wake-up since the previous
//! line, to show that memory stays bounded and recording allocates nothing per probe.

use sis_core::Simulation;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting allocations (and reallocations).
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak resident set size, kB (Linux /proc/self/status VmHWM).
fn vm_hwm_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let total: u64 = std::env::args()
        .nth(1)
        .map_or(100_000_000, |s| s.parse().expect("wake-ups: an integer"));
    let sc = sis_core::sim::bench::scenario("linux-6.0").expect("scenario");
    let mut sim = Simulation::new(&sc).expect("simulation");
    sim.set_recording(true);
    println!(
        "soak: {total} wake-ups, 112 CPUs (SMT 2), 200% netperf, linux-6.0, recording on \
         (ring of {})",
        sis_core::sim::engine::DECISION_RING
    );
    println!(
        "{:>12} {:>10} {:>14} {:>12} {:>16} {:>6}",
        "wake-ups", "seconds", "wake-ups/s", "VmHWM kB", "allocs/wake-up", "ring"
    );
    let start = Instant::now();
    let mut checkpoints: Vec<u64> = [1_000_000, 10_000_000]
        .into_iter()
        .filter(|&c| c < total)
        .collect();
    checkpoints.push(total);
    let (mut last_n, mut last_allocs) = (0u64, ALLOCS.load(Relaxed));
    for c in checkpoints {
        while sim.wakeups_total() < c {
            if !sim.step() {
                panic!("the simulation ran out of events");
            }
        }
        let s = start.elapsed().as_secs_f64();
        let n = sim.wakeups_total();
        let allocs = ALLOCS.load(Relaxed);
        println!(
            "{:>12} {:>10.2} {:>14.0} {:>12} {:>16.6} {:>6}",
            n,
            s,
            n as f64 / s,
            vm_hwm_kb().map_or("?".into(), |k| k.to_string()),
            (allocs - last_allocs) as f64 / (n - last_n) as f64,
            sim.decisions().len()
        );
        (last_n, last_allocs) = (n, allocs);
    }
    sim.check_invariants().expect("invariants");
}
