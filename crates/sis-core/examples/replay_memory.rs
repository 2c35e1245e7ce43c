//! Peak heap of a replay configured as the browser's worker configures it, on the sample
//! repeated N times with shifted stamps (as tests/e2e/replay.mjs builds its 100 MB trace).
//! `cargo run --release -p sis-core --example replay_memory -- N`
use sis_core::analysis::replay::{Replay, ReplayConfig};
use sis_core::kernel::topology::{Numbering, TopologySpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(n, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
}
#[global_allocator]
static A: Counting = Counting;

fn main() {
    let copies: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(16);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/traces/many-threads.ftrace.txt.xz"
    );
    let out = std::process::Command::new("xz")
        .args(["-dc", path])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let spec = TopologySpec {
        llcs: 1,
        llc_weight: 8,
        smt: 2,
        cluster_size: 0,
        numbering: Numbering::Interleaved,
        nodes: 1,
    };
    let cfg = ReplayConfig {
        topology: Some(spec),
        keep: 20_000,
        keep_disagreements: 2_000,
        timeline: true,
        ..Default::default()
    };
    let mut r = Replay::new(cfg).unwrap();
    let mut line = String::new();
    for c in 0..copies {
        for l in &body {
            line.clear();
            // " 123.456789: " -> seconds + c * 100
            if let Some(i) = l.find(": ") {
                let head = &l[..i];
                let j = head.rfind(' ').unwrap();
                let (s, f) = head[j + 1..].split_once('.').unwrap();
                let s: u64 = s.parse().unwrap();
                line.push_str(&head[..j + 1]);
                line.push_str(&format!("{}.{}", s + c * 100, f));
                line.push_str(&l[i..]);
            } else {
                line.push_str(l);
            }
            r.feed_line(line.as_bytes()).unwrap();
        }
        eprintln!(
            "copy {}: heap {} MB (peak {} MB)",
            c + 1,
            (NOW.load(Relaxed) - base) / 1_000_000,
            (PEAK.load(Relaxed) - base) / 1_000_000
        );
    }
    let _ = r.end().unwrap();
    println!(
        "{copies} copies: heap {} MB, peak {} MB",
        (NOW.load(Relaxed) - base) / 1_000_000,
        (PEAK.load(Relaxed) - base) / 1_000_000
    );
}
