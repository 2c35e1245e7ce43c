//! Property tests of the URL decoder (`src/url.rs`): arbitrary query strings never panic, and
//! always give a valid scenario plus errors that each name a field.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use sis_core::sim::scenario::FIELDS;
use sisviz::url::{parse_query, to_query, VIEW_KEYS};

/// Keys worth generating: real fields and view keys (so values get validated), plus junk.
fn key() -> impl Strategy<Value = String> {
    let mut known: Vec<String> = FIELDS.iter().map(|f| f.name.to_string()).collect();
    known.extend(VIEW_KEYS.iter().map(|k| k.to_string()));
    prop_oneof![
        3 => proptest::sample::select(known),
        1 => "[a-z_%0-9+]{0,12}",
        1 => any::<String>(),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "[0-9]{15,40}",
        "-?[0-9]{1,4}(\\.[0-9]{1,3})?(e[+-]?[0-9]{1,3})?",
        "(%[0-9A-Fa-f]{2}|%[g-z]?|[a-z0-9+,=.-]){0,20}",
        proptest::sample::select(vec![
            "linux-4.13",
            "linux-6.0",
            "full-scan",
            "netperf",
            "hackbench",
            "pinned",
            "interleaved",
            "SIS_PROP=on,SIS_UTIL=off",
            "SIS_NOPE=on",
            "500ms",
            "2s",
            "0ms",
            "3601s",
            "curve",
            "cpus",
            "trace",
            "full",
            "dark",
            "",
            "%",
            "%%",
            "%zz",
            "%FF%FE",
        ])
        .prop_map(str::to_string),
        any::<String>(),
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec((key(), value()), 0..12).prop_map(|kv| {
            let parts: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("?{}", parts.join("&"))
        }),
        any::<String>(),
        "[?&=%a-z0-9_+]{0,80}",
    ]
}

/// The field an error message names: `invalid NAME ...`.
fn named_field(e: &str) -> Option<&str> {
    let rest = e.strip_prefix("invalid ")?;
    rest.split([' ', ':']).next()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_valid_scenario_or_errors_naming_a_field(q in query()) {
        let p = parse_query(&q);
        prop_assert!(p.scenario.check().is_ok(), "{q}: invalid scenario {:?}", p.scenario);
        for e in &p.errors {
            let f = named_field(e);
            let ok = f.is_some_and(|f| {
                f == "field" || f == "scenario" || f == "feature"
                    || FIELDS.iter().any(|x| x.name == f)
                    || VIEW_KEYS.contains(&f)
            });
            prop_assert!(ok, "{q}: error names no field: {e}");
        }
        // What the app writes back reads back to the same state, without errors.
        let again = parse_query(&to_query(&p.scenario, &p.view));
        prop_assert!(again.errors.is_empty(), "{q}: {:?}", again.errors);
        prop_assert_eq!(&again.scenario, &p.scenario);
        prop_assert_eq!(&again.view, &p.view);
    }

    #[test]
    fn repeated_keys_last_wins(a in 1u32..=1024, b in 1u32..=1024) {
        let p = parse_query(&format!("?llc_weight={a}&smt=1&llc_weight={b}"));
        prop_assert!(p.errors.is_empty(), "{:?}", p.errors);
        prop_assert_eq!(p.scenario.llc_weight, b);
    }
}
