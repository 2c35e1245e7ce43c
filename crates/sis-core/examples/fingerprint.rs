//! A hash of many runs' outputs, to check that a change meant to be a pure speed-up keeps every
//! result identical: `cargo run --release -p sis-core --example fingerprint [-- -v]` before and
//! after, and compare (`-v` prints one hash per run). Covers every workload x preset on four
//! topologies at two loads (reports, recorded rings, `next_wakeup` decisions, CPU views) and
//! four 800 ms 112-CPU netperf runs, hashed with FNV-1a over their Debug text.
use sis_core::{Scenario, Simulation};
use std::fmt::Write;

fn fnv(h: &mut u64, s: &str) {
    for b in s.bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

fn main() {
    let presets: Vec<String> = sis_core::kernel::features::presets()
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    let topos: &[&[(&str, &str)]] = &[
        &[("llc_weight", "112"), ("smt", "2")],
        &[("llc_weight", "16"), ("smt", "1")],
        &[
            ("llc_weight", "24"),
            ("smt", "2"),
            ("llcs", "2"),
            ("numbering", "interleaved"),
        ],
        &[("llc_weight", "32"), ("smt", "2"), ("cluster_size", "4")],
    ];
    let mut total = 0xcbf29ce484222325u64;
    for wl in [
        "netperf",
        "tbench",
        "hackbench",
        "schbench",
        "uniform",
        "pinned",
    ] {
        for p in &presets {
            for (ti, topo) in topos.iter().enumerate() {
                for load in ["50", "200"] {
                    let mut pairs: Vec<(&str, &str)> = topo.to_vec();
                    pairs.extend([
                        ("workload", wl),
                        ("preset", p.as_str()),
                        ("load", load),
                        ("duration", "15ms"),
                        ("warmup", "3ms"),
                    ]);
                    let sc = Scenario::from_pairs(pairs).unwrap();
                    let mut sim = Simulation::new(&sc).unwrap();
                    let mut s = String::new();
                    sim.set_recording(true);
                    sim.run_for(5_000_000);
                    for d in sim.decisions() {
                        write!(s, "{d:?}").unwrap();
                    }
                    sim.set_recording(false);
                    for _ in 0..50 {
                        if let Some(d) = sim.next_wakeup() {
                            write!(s, "{d:?}").unwrap();
                        }
                    }
                    let r = sim.run_to_end();
                    write!(s, "{r:?}").unwrap();
                    for c in 0..sim.topology().nr_cpus() {
                        write!(s, "{:?}", sim.cpu_view(c)).unwrap();
                    }
                    sim.check_invariants().unwrap();
                    let mut h = 0xcbf29ce484222325u64;
                    fnv(&mut h, &s);
                    fnv(&mut total, &s);
                    if std::env::args().any(|a| a == "-v") {
                        println!("{wl} {p} t{ti} {load}: {h:016x}");
                    }
                }
            }
        }
    }
    for p in ["linux-6.0", "full-scan", "linux-5.15", "linux-4.13"] {
        let sc = Scenario::from_pairs([
            ("llc_weight", "112"),
            ("smt", "2"),
            ("workload", "netperf"),
            ("preset", p),
            ("load", "200"),
            ("duration", "800ms"),
            ("warmup", "100ms"),
        ])
        .unwrap();
        let r = sis_core::sim::engine::run(&sc).unwrap();
        let s = format!("{r:?}");
        let mut h = 0xcbf29ce484222325u64;
        fnv(&mut h, &s);
        fnv(&mut total, &s);
        if std::env::args().any(|a| a == "-v") {
            println!("long {p}: {h:016x}");
        }
    }
    println!("fingerprint {total:016x}");
}
