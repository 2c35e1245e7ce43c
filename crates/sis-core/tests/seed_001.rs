//! Seed 001 (the SIS_UTIL RFC): its vanilla tables that seed 000 does not repeat.

use sis_core::Scenario;

/// tbench on seed 000's machine (one 112-CPU LLC, SMT 2) with linux-5.19 (the seeds'
/// vanilla, v5.19-rc1) at `load`%, 100 ms measured after a fixed 300 ms warm-up, seed 1.
fn tbench_vanilla(load: &str) -> sis_core::kernel::stats::Metrics {
    let sc = Scenario::from_pairs([
        ("llc_weight", "112"),
        ("smt", "2"),
        ("workload", "tbench"),
        ("load", load),
        ("preset", "linux-5.19"),
        ("duration", "400ms"),
        ("warmup", "300ms"),
    ])
    .unwrap();
    let r = sis_core::run(&sc).unwrap();
    assert!(r.wakeups > 10_000, "tbench {load}%: {} wake-ups", r.wakeups);
    r.metrics
}

#[test]
fn tbench_vanillas_efficiency_is_seed_001s_at_75_and_100_percent() {
    // Seed 001's `schedstat_parse.py -f tbench_vanilla.log` (112 CPUs): se_eff / dom_eff /
    // fast_rate / success 19.723 / 6.819 / 70.215 / 100 at 84 threads and 11.283 / 5.371 /
    // 55.371 / 99.999 at 112. The model, seed 1: 20.0 / 7.5 / 67.5 / 100 and 10.3 / 4.8 /
    // 56.3 / 100. (From 140 threads the seed prints 0.000 in every column, which the model
    // does not reproduce: guide/src/differs.md, "tbench".)
    for (load, seed) in [
        ("75", [19.723, 6.819, 70.215]),
        ("100", [11.283, 5.371, 55.371]),
    ] {
        let m = tbench_vanilla(load);
        let model = [m.se_eff, m.dom_eff, m.fast_rate];
        for (name, (got, want)) in ["se_eff", "dom_eff", "fast_rate"]
            .iter()
            .zip(model.iter().zip(seed))
        {
            assert!(
                (got - want).abs() <= 8.0,
                "tbench {load}%: {name} {got:.3}, seed 001 {want}"
            );
        }
        assert!(m.success_rate >= 99.99, "tbench {load}%: {m:?}");
    }
}
