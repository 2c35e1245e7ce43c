//! Trace events replayed per second (issue 14: >= 1 M/s natively): the 4.4 sample trace
//! (41,811 sched events, 6,743 wake-ups, 8 CPUs), decompressed once outside the timing, fed
//! line by line through parsing, the state rebuild and every preset's decision.
//!
//! `cargo bench -p sis-core --bench replay`; criterion prints `thrpt` in elements (trace
//! events) per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sis_core::analysis::replay::{replay_text, ReplayConfig};
use sis_core::kernel::topology::{Numbering, TopologySpec};
use std::io::Read;
use std::time::Duration;

fn sample() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/traces/many-threads.ftrace.txt.xz"
    );
    let mut out = Vec::new();
    xz2::read::XzDecoder::new(std::fs::File::open(path).expect("sample trace"))
        .read_to_end(&mut out)
        .expect("xz");
    out
}

fn bench(c: &mut Criterion) {
    let text = sample();
    let cfg = |presets: Vec<String>| ReplayConfig {
        topology: Some(TopologySpec {
            llcs: 1,
            llc_weight: 8,
            smt: 2,
            cluster_size: 0,
            numbering: Numbering::Interleaved,
            nodes: 1,
        }),
        presets,
        ..Default::default()
    };
    let events = replay_text(cfg(Vec::new()), &text).unwrap().trace.events;
    let mut g = c.benchmark_group("replay");
    g.throughput(Throughput::Elements(events));
    g.measurement_time(Duration::from_secs(5));
    g.sample_size(20);
    g.bench_function("sample, every preset", |b| {
        b.iter(|| black_box(replay_text(cfg(Vec::new()), &text).unwrap().trace.wakeups))
    });
    g.bench_function("sample, linux-6.0", |b| {
        b.iter(|| {
            black_box(
                replay_text(cfg(vec!["linux-6.0".into()]), &text)
                    .unwrap()
                    .trace
                    .wakeups,
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
