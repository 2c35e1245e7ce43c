//! Every figure (`sis run`, `sis sweep`, the benches, the app's permalink replay) comes from the
//! untraced wake-up path, whose select_idle_cpu reads the idle mask a word at a time; every
//! hand-derived `decide` case runs the traced one, CPU by CPU. Here the same scenario runs
//! both ways over presets x topologies x workloads and must report the same bytes.

use sis_core::{presets, Scenario, Simulation};

/// The topologies of the grid: SMT 1/2/4, clusters, 112 and 256 CPUs, several LLCs, both
/// numberings.
const TOPOLOGIES: &[&[(&str, &str)]] = &[
    &[("llc_weight", "16"), ("smt", "1")],
    &[("llc_weight", "16"), ("smt", "2")],
    &[("llc_weight", "32"), ("smt", "4")],
    &[("llc_weight", "32"), ("smt", "2"), ("cluster_size", "4")],
    &[
        ("llc_weight", "24"),
        ("smt", "2"),
        ("llcs", "2"),
        ("numbering", "interleaved"),
    ],
    &[("llc_weight", "112"), ("smt", "2")],
    &[
        ("llc_weight", "256"),
        ("smt", "2"),
        ("numbering", "interleaved"),
    ],
];

fn report(sc: &Scenario, recording: bool) -> String {
    let mut sim = Simulation::new(sc).expect("scenario");
    sim.set_recording(recording);
    let r = sim.run_to_end();
    assert!(r.wakeups > 0, "{sc:?}: no wake-up");
    serde_json::to_string(&r).expect("json")
}

/// Runs the grid for `workloads` at `load`; returns how many runs compared.
fn grid(workloads: &[&str], load: &str, duration: &str, extra: &[(&str, &str)]) -> usize {
    let mut runs = 0;
    for topo in TOPOLOGIES {
        for p in presets() {
            for workload in workloads {
                let mut pairs = topo.to_vec();
                pairs.extend([
                    ("preset", p.name),
                    ("workload", *workload),
                    ("load", load),
                    ("duration", duration),
                    ("warmup", "0ms"),
                ]);
                pairs.extend_from_slice(extra);
                let sc = Scenario::from_pairs(pairs.iter().copied()).expect("scenario");
                let (off, on) = (report(&sc, false), report(&sc, true));
                assert!(off == on, "traced and untraced runs differ: {pairs:?}");
                runs += 1;
            }
        }
    }
    runs
}

#[test]
fn traced_and_untraced_runs_report_the_same_bytes_under_load() {
    // 150%: scans that find an idle CPU, run out of budget and (SIS_UTIL) do not start.
    let runs = grid(&["netperf", "hackbench"], "150", "12ms", &[]);
    assert_eq!(runs, TOPOLOGIES.len() * presets().len() * 2);
}

#[test]
fn traced_and_untraced_runs_report_the_same_bytes_at_low_load_and_with_affinity() {
    // 60%: idle cores (the single-pass core scan); `pinned` restricts affinity.
    let runs = grid(&["uniform", "pinned", "schbench"], "60", "40ms", &[]);
    assert_eq!(runs, TOPOLOGIES.len() * presets().len() * 3);
}

#[test]
fn traced_and_untraced_runs_report_the_same_bytes_with_rescan() {
    // collision=rescan: a wakee whose CPU was taken goes on scanning; recording only adds the
    // probes to the decision. `pinned` restricts the CPUs the rescan may take.
    let runs = grid(
        &["netperf", "pinned"],
        "150",
        "12ms",
        &[("collision", "rescan")],
    );
    assert_eq!(runs, TOPOLOGIES.len() * presets().len() * 2);
}
