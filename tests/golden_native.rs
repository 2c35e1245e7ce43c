//! Determinism across platforms, native side: `sis_core::run` of a short netperf scenario,
//! serialised with serde_json, equals the committed `tests/golden/run-netperf-16.json`
//! byte for byte. `tests/web_embed.rs` runs the same scenario in the browser (wasm) and
//! compares with the same file. `UPDATE_GOLDEN=1 cargo test -p sisviz --test golden_native`
//! rewrites it (only when the simulator's behaviour changes on purpose).

#![cfg(not(target_arch = "wasm32"))]

use sis_core::Scenario;

/// Keep in sync with `golden_scenario()` in tests/web_embed.rs.
fn golden_scenario() -> Scenario {
    Scenario::from_pairs([
        ("llc_weight", "16"),
        ("workload", "netperf"),
        ("duration", "30ms"),
        ("seed", "7"),
    ])
    .unwrap()
}

#[test]
fn run_netperf_16_matches_the_golden_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/run-netperf-16.json"
    );
    let got = serde_json::to_string(&sis_core::run(&golden_scenario()).unwrap()).unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &got).unwrap();
    }
    // A missing golden is a failure, never a fresh file: deleting it must not pass.
    let want = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{path}: {e}; regenerate it on purpose with \
             `UPDATE_GOLDEN=1 cargo test -p sisviz --test golden_native` and commit it alone"
        )
    });
    assert!(
        got == want,
        "sis_core::run differs from {path}; if intended, rerun with UPDATE_GOLDEN=1"
    );
}
