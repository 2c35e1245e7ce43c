//! Wake-ups per second of the engine (issue 9), each scenario next to a minimal loop over the
//! same kind of random wake-up stream measured in the same run, so that figures from different
//! machines compare as ratios.
//!
//! `cargo bench -p sis-core` (about a minute). Every scenario is 112 CPUs (SMT 2, one LLC) at
//! 200% netperf load; a Simulation is warmed up once (outside the timing, [`WARMUP_NS`] of
//! simulated time) and then each iteration runs the next [`WAKEUPS`] wake-ups of the same
//! long run.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sis_core::sim::rng::Rng;
use sis_core::Simulation;
use std::time::{Duration, Instant};

/// Wake-ups per iteration.
const WAKEUPS: u64 = 200_000;
use sis_core::sim::bench::{run_wakeups, WARMUP_NS};

/// One timed case: its name, the preset, scenario fields on top, and whether it records.
type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], bool);

fn warmed(preset: &str, extra: &[(&str, &str)], recording: bool) -> Simulation {
    let sc = sis_core::sim::bench::scenario_with(preset, extra).expect("bench scenario");
    let mut sim = Simulation::new(&sc).expect("simulation");
    sim.set_recording(recording);
    sim.run_for(WARMUP_NS);
    sim
}

/// The floor: per wake-up, the RNG draws a netperf wake-up makes (the wakee's burst jitter and
/// the wire/tail delay), a clock advance, and a trivial placement (prev if free, else the next
/// CPU) with per-CPU bookkeeping. No event queue, no wake-up path.
struct MinimalLoop {
    rng: Rng,
    now: u64,
    prev: Vec<u32>,
    busy_until: Vec<u64>,
    placed: Vec<u64>,
    next_task: u32,
}

impl MinimalLoop {
    const CPUS: u32 = 112;
    const TASKS: u32 = 448;

    fn new() -> Self {
        MinimalLoop {
            rng: Rng::new(1),
            now: 0,
            prev: (0..Self::TASKS).map(|t| t % Self::CPUS).collect(),
            busy_until: vec![0; Self::CPUS as usize],
            placed: vec![0; Self::CPUS as usize],
            next_task: 0,
        }
    }

    fn wakeups(&mut self, n: u64) {
        for _ in 0..n {
            let wakee = self.next_task;
            self.next_task = (self.next_task + 1) % Self::TASKS;
            let burst = self.rng.around(if wakee.is_multiple_of(2) {
                8_000
            } else {
                10_000
            });
            let delay = self.rng.around(18_000);
            self.now += delay / Self::TASKS as u64 + 1;
            let prev = self.prev[wakee as usize];
            let cpu = if self.busy_until[prev as usize] <= self.now {
                prev
            } else {
                (prev + 1) % Self::CPUS
            };
            self.busy_until[cpu as usize] = self.now + burst;
            self.prev[wakee as usize] = cpu;
            self.placed[cpu as usize] += 1;
        }
    }
}

fn bench_engine(c: &mut Criterion, group: &str, cases: &[Case]) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(WAKEUPS));
    g.bench_function("minimal_loop", |b| {
        let mut m = MinimalLoop::new();
        b.iter(|| {
            m.wakeups(WAKEUPS);
            black_box(m.placed[0])
        })
    });
    for &(name, preset, extra, recording) in cases {
        g.bench_function(name, |b| {
            let mut sim = warmed(preset, extra, recording);
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    assert!(
                        run_wakeups(&mut sim, WAKEUPS),
                        "the simulation ran out of events"
                    );
                }
                t.elapsed()
            });
            black_box(sim.counters().sis_scanned);
        });
    }
    g.finish();
}

fn wakeups(c: &mut Criterion) {
    bench_engine(
        c,
        "netperf_112cpu_200pct",
        &[
            ("linux-6.0", "linux-6.0", &[], false),
            // Seed 000's vanilla kernel: SIS_PROP's scans at 200% (issue 28's second target).
            ("linux-5.19", "linux-5.19", &[], false),
            ("full-scan", "full-scan", &[], false),
            // The earlier model (the scan costs no CPU time; the wakee stacks on a taken CPU):
            // the workload the 12.2 M/s figure was measured on, to compare the code's speed.
            (
                "linux-6.0_delay_stack",
                "linux-6.0",
                &[("scan_cost", "delay"), ("collision", "stack")],
                false,
            ),
        ],
    );
    bench_engine(
        c,
        "recording_linux-6.0",
        &[
            ("off", "linux-6.0", &[], false),
            ("on", "linux-6.0", &[], true),
        ],
    );
}

criterion_group!(benches, wakeups);
criterion_main!(benches);
