//! `sis presets` and `sis machines`: the catalogues of kernel and machine presets.

use crate::cli::{json, ok, sis};
use serde_json::Value;

#[test]
fn presets_lists_every_preset() {
    let j = json(&["presets", "--format", "json"]);
    let names: Vec<&str> = j
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let every: Vec<&str> = sis_core::presets().iter().map(|p| p.name).collect();
    assert_eq!(names, every, "every preset, in order");
    let six = j
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "linux-6.0")
        .unwrap();
    let f = six["features"].as_array().unwrap();
    assert!(f.contains(&Value::from("SIS_UTIL")) && !f.contains(&Value::from("SIS_PROP")));
    assert!(ok(&["presets"]).contains("SIS_UTIL"));
    // Newidle's sysctl_sched_migration_cost floor went in 5.16.
    let floor = |name: &str| {
        j.as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["newidle_min_avg_idle_ns"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(floor("linux-5.15"), 500_000);
    assert_eq!(floor("linux-6.0"), 0);
}

#[test]
fn machines_lists_every_machine_with_its_costs() {
    let j = json(&["machines", "--format", "json"]);
    let all = j.as_array().unwrap();
    let names: Vec<&str> = all.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "xeon-spr",
            "desktop",
            "epyc-chiplet",
            "arm-cluster",
            "ideal"
        ]
    );
    // The seed's machine: 112 CPUs per LLC, SMT2, intel_idle's spr_cstates (v6.0) less C6,
    // which the seed's harness disables (`pepc cstates config --disable C6`).
    let spr = &all[0];
    assert_eq!(
        (spr["llc_weight"].as_u64(), spr["smt"].as_u64()),
        (Some(112), Some(2))
    );
    let states = spr["idle_states"].as_array().unwrap();
    let names: Vec<&str> = states.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["POLL", "C1", "C1E"]);
    assert_eq!(states[2]["exit_latency_ns"], 2_000);
    assert_eq!(states[2]["target_residency_ns"], 4_000);
    let table = ok(&["machines"]);
    assert!(table.contains("xeon-spr"));
    // The one cost without a source says so (docs/machines.md, probe_cost_ns).
    assert!(table.contains("probe 400 ns (no source: the simulator's)"));
    // --machine sets the topology; a flag given with it overrides.
    let r = json(&[
        "run",
        "--machine",
        "desktop",
        "--llcs",
        "2",
        "--duration",
        "20ms",
        "--format",
        "json",
    ]);
    assert_eq!(r["scenario"]["machine"], "desktop");
    assert_eq!(
        (
            r["scenario"]["llc_weight"].as_u64(),
            r["scenario"]["llcs"].as_u64()
        ),
        (Some(8), Some(2))
    );
    let o = sis(&["run", "--machine", "vax"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("machine") && e.contains("xeon-spr"), "{e}");
}
