//! No panics on user data: random scenario inputs either give a clear error naming a field,
//! or a simulation that runs and keeps its invariants.

use proptest::prelude::*;
use sis_core::sim::scenario::FIELDS;
use sis_core::{Scenario, Simulation};

fn value_for(field: &str) -> BoxedStrategy<String> {
    let weird = prop_oneof![
        Just(String::new()),
        Just("-1".to_string()),
        Just("abc".to_string()),
        Just("18446744073709551616".to_string()),
        Just("1e3".to_string()),
        Just(" 8".to_string()),
        "[a-z0-9=,_.-]{0,12}",
    ];
    let good: BoxedStrategy<String> = match field {
        "llc_weight" => prop_oneof![
            Just(1u32),
            Just(2),
            Just(3),
            Just(4),
            Just(8),
            Just(16),
            Just(1024),
            1u32..64
        ]
        .prop_map(|v| v.to_string())
        .boxed(),
        "llcs" => (0u32..5).prop_map(|v| v.to_string()).boxed(),
        "smt" => (0u32..6).prop_map(|v| v.to_string()).boxed(),
        "cluster_size" => prop_oneof![Just(0u32), Just(2), Just(4), Just(3)]
            .prop_map(|v| v.to_string())
            .boxed(),
        "numbering" => prop_oneof![Just("contiguous"), Just("interleaved"), Just("Interleaved")]
            .prop_map(String::from)
            .boxed(),
        "preset" => prop::sample::select(
            sis_core::presets()
                .iter()
                .map(|p| p.name.to_string())
                .chain(["linux-6.1".to_string()])
                .collect::<Vec<_>>(),
        )
        .boxed(),
        "features" => prop_oneof![
            Just("SIS_PROP=on"),
            Just("SIS_UTIL=off,SIS_PROP=on"),
            Just("LB_PROMOTE=on"),
            Just("SIS_UTIL=maybe"),
            Just("NOPE=on")
        ]
        .prop_map(String::from)
        .boxed(),
        "imbalance_pct" => prop_oneof![
            Just(99u32),
            Just(100),
            Just(117),
            Just(125),
            Just(1000),
            Just(1001)
        ]
        .prop_map(|v| v.to_string())
        .boxed(),
        "workload" => prop_oneof![
            Just("netperf"),
            Just("tbench"),
            Just("hackbench"),
            Just("schbench"),
            Just("uniform"),
            Just("pinned"),
            Just("pined")
        ]
        .prop_map(String::from)
        .boxed(),
        "load" => prop_oneof![
            Just(0u32),
            Just(1),
            Just(25),
            Just(200),
            Just(1000),
            Just(1001)
        ]
        .prop_map(|v| v.to_string())
        .boxed(),
        "tasks" => prop_oneof![Just(0u32), Just(1), Just(2), Just(3), Just(57)]
            .prop_map(|v| v.to_string())
            .boxed(),
        "seed" => any::<u64>().prop_map(|v| v.to_string()).boxed(),
        "duration" => prop_oneof![
            Just("1ms"),
            Just("5ms"),
            Just("0ms"),
            Just("3601s"),
            Just("2x")
        ]
        .prop_map(String::from)
        .boxed(),
        "warmup" => prop_oneof![Just("0ms"), Just("1ms"), Just("10ms")]
            .prop_map(String::from)
            .boxed(),
        "probe_cost_ns" => prop_oneof![Just(0u64), Just(400), Just(1_000_000), Just(1_000_001)]
            .prop_map(|v| v.to_string())
            .boxed(),
        "hz" => prop_oneof![Just(100u32), Just(250), Just(1000), Just(999)]
            .prop_map(|v| v.to_string())
            .boxed(),
        "service_us" => prop_oneof![Just(0u32), Just(1), Just(5000)]
            .prop_map(|v| v.to_string())
            .boxed(),
        _ => Just("1".to_string()).boxed(),
    };
    prop_oneof![4 => good, 1 => weird].boxed()
}

fn pairs() -> impl Strategy<Value = Vec<(String, String)>> {
    let field = prop_oneof![20 => prop::sample::select(FIELDS.iter().map(|f| f.name.to_string()).collect::<Vec<_>>()), 1 => "[a-z_]{1,12}"];
    prop::collection::vec(
        field.prop_flat_map(|f| value_for(&f).prop_map(move |v| (f.clone(), v))),
        0..8,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_input_is_an_error_naming_a_field_or_a_run_that_keeps_invariants(mut p in pairs()) {
        // Keep runs short: a duration the generator did not set is 3 ms.
        if !p.iter().any(|(k, _)| k == "duration") {
            p.push(("duration".into(), "3ms".into()));
            p.push(("warmup".into(), "0ms".into()));
        }
        match Scenario::from_pairs(p.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.starts_with("invalid "), "{msg}");
                prop_assert!(!e.field.is_empty());
                prop_assert!(!e.expected.is_empty());
            }
            Ok(sc) => {
                let mut sim = Simulation::new(&sc).map_err(|e| TestCaseError::fail(e.to_string()))?;
                sim.set_recording(true);
                let mut steps = 0;
                while !sim.finished() && steps < 20_000 && sim.step() {
                    steps += 1;
                }
                prop_assert!(sim.check_invariants().is_ok(), "{:?}: {:?}", sc, sim.check_invariants());
                let report = sim.report();
                prop_assert!(report.metrics.se_eff.is_finite() && report.metrics.success_rate.is_finite());
                // The scenario echoed in a report parses back to itself.
                prop_assert_eq!(Scenario::from_json(&serde_json::to_string(&report.scenario).unwrap()).unwrap(), sc);
            }
        }
    }

    #[test]
    fn scenario_json_parser_never_panics(text in "\\PC{0,80}") {
        let _ = Scenario::from_json(&text);
        let _ = sis_core::analysis::decide::StateFile::from_json(&text);
    }

    #[test]
    fn json_objects_with_wrong_types_are_errors(key in prop::sample::select(FIELDS.iter().map(|f| f.name).collect::<Vec<_>>()), v in prop_oneof![Just("null"), Just("[1]"), Just("{}"), Just("true"), Just("-5"), Just("1.5")]) {
        // No field takes null, an array, an object, a boolean, a negative or a fraction (but
        // nr_expr, whose rules may be a negative constant: it scans nothing).
        prop_assume!(!(key == "nr_expr" && v == "-5"));
        let text = format!("{{\"{key}\": {v}}}");
        match Scenario::from_json(&text) {
            Ok(sc) => prop_assert!(false, "{text} accepted as {sc:?}"),
            Err(e) => prop_assert_eq!(e.field.as_str(), key, "{}", e),
        }
    }
}

#[test]
fn extremes_run() {
    for pairs in [
        vec![("llc_weight", "1"), ("smt", "1"), ("load", "1000")],
        vec![("llc_weight", "2"), ("smt", "2"), ("workload", "pinned")],
        vec![("llc_weight", "1"), ("workload", "pinned"), ("smt", "1")],
        vec![("tasks", "1"), ("workload", "uniform")],
        vec![("load", "0")],
        vec![
            ("llc_weight", "1024"),
            ("smt", "4"),
            ("load", "25"),
            ("preset", "linux-4.13"),
        ],
        vec![
            ("llcs", "4"),
            ("llc_weight", "4"),
            ("numbering", "interleaved"),
            ("smt", "2"),
            ("preset", "lb-promote-thin"),
            ("load", "300"),
        ],
    ] {
        let mut p = pairs.clone();
        p.push(("duration", "5ms"));
        p.push(("warmup", "0ms"));
        let sc = Scenario::from_pairs(p).unwrap();
        let mut sim = Simulation::new(&sc).unwrap();
        let r = sim.run_to_end();
        sim.check_invariants()
            .unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
        assert!(r.metrics.se_eff.is_finite());
    }
    // SMT wider than the LLC is an error, not a panic.
    let e = Scenario::from_pairs([("llc_weight", "2"), ("smt", "4")]).unwrap_err();
    assert_eq!(e.field, "smt");
}

// Pieces an `--nr-expr` is made of besides its inputs' names, to build near-valid
// expressions as well as noise.
use sis_core::kernel::nr_expr::PIECES as EXPR_TOKENS;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// A malformed or extreme rule is an error with a position, never a panic: random text,
    /// and random sequences of the language's own tokens, at any inputs.
    #[test]
    fn nr_expr_never_panics(
        noise in ".{0,80}",
        toks in prop::collection::vec(
            prop::sample::select([&EXPR_TOKENS[..], &sis_core::kernel::nr_expr::INPUTS[..]].concat()),
            0..40,
        ),
        v in prop::array::uniform7(any::<i64>()),
    ) {
        use sis_core::kernel::nr_expr::{Inputs, NrExpr};
        let inputs = Inputs {
            sum_util: v[0], llc_weight: v[1], imbalance_pct: v[2], nr_idle: v[3],
            avg_idle: v[4], avg_scan_cost: v[5], nr_running: v[6],
        };
        for text in [noise.clone(), toks.join(" "), toks.concat()] {
            match NrExpr::parse(&text) {
                Ok(e) => {
                    let _ = e.eval(&inputs);
                    let n = e.nr_scan(&inputs);
                    prop_assert!(n as i64 <= inputs.llc_weight.max(0));
                }
                Err(err) => prop_assert!(err.pos >= 1 && err.pos <= text.chars().count() + 2, "{text:?}: {err}"),
            }
        }
        // Scenario fields carry it too: never a panic through set_field.
        let mut sc = Scenario::default();
        let _ = sc.set_field("nr_expr", &toks.join(" "));
    }
}
