//! Browser tests of permalinks, the embed API, exports and cross-platform determinism:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown -p sisviz --test web_embed`

#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use sis_core::{Scenario, Simulation};
use sisviz::components::metrics::fmt_time;
use sisviz::runner::Runner;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

fn doc() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn fresh_div() -> Element {
    let div = doc().create_element("div").unwrap();
    div.set_attribute("style", "width: 1000px").unwrap();
    doc().body().unwrap().append_child(&div).unwrap();
    div
}

/// Waits until Yew has rendered everything pending (and run the effects).
async fn settle() {
    yew::scheduler::flush().await;
}

/// Lets the requestAnimationFrame loop run for `ms` of real time (playing), then settles.
async fn play_for(ms: u32) {
    TimeoutFuture::new(ms).await;
    settle().await;
}

fn q(root: &Element, sel: &str) -> Option<Element> {
    root.query_selector(sel).unwrap()
}

fn tid(root: &Element, id: &str) -> Option<Element> {
    q(root, &format!("[data-testid=\"{id}\"]"))
}

fn text(root: &Element, id: &str) -> String {
    tid(root, id).unwrap().text_content().unwrap_or_default()
}

fn click(root: &Element, id: &str) {
    tid(root, id)
        .unwrap()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
}

fn decisions(root: &Element) -> u32 {
    root.query_selector_all("[data-testid=\"decision-log\"] [data-testid=\"decision\"]")
        .unwrap()
        .length()
}

fn obj(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

#[wasm_bindgen_test]
async fn a_permalink_restores_step_and_selected_decision() {
    let query = "?llc_weight=8&load=150&seed=3&step=40&sel=31";
    // The app's URL-restore path: the page's start() reads location.search with parse_query.
    let parsed = sisviz::url::parse_query(query);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let div = fresh_div();
    let mut h = sisviz::mount_config(div.clone(), query);
    settle().await;
    // The state it encodes: replayed to wake-up 40 (natively computed sim-time), 31 selected.
    let mut sim = Simulation::new(&parsed.scenario).unwrap();
    sim.advance_to_wakeup(40);
    assert_eq!(text(&div, "sim-time"), fmt_time(sim.now_ns()));
    assert_eq!(text(&div, "wakeups"), sim.counters().wakeups.to_string());
    let selected = q(&div, "li.selected").expect("a selected decision");
    let seq = selected.query_selector(".seq").unwrap().unwrap();
    assert!(
        seq.text_content().unwrap().contains("31"),
        "{:?}",
        seq.text_content()
    );
    assert!(decisions(&div) > 0);
    // And the state writes back to the same query fields.
    let q2 = sisviz::url::to_query(&parsed.scenario, &parsed.view);
    assert!(q2.contains("step=40") && q2.contains("sel=31"), "{q2}");
    h.destroy();
}

#[wasm_bindgen_test]
async fn two_api_mounts_destroy_one_the_other_keeps_running() {
    let (a, b) = (fresh_div(), fresh_div());
    let mut ha = sisviz::mount(
        a.clone().into(),
        obj(r#"{"llc_weight": 8, "smt": 1, "view": "full", "embed": 1}"#),
    )
    .unwrap();
    let hb = sisviz::mount(
        b.clone().into(),
        obj(r#"{"llc_weight": 16, "load": 200, "embed": 1, "controls": 1, "cold": 1, "speed": 500}"#),
    )
    .unwrap();
    settle().await;
    ha.destroy();
    settle().await;
    assert!(!ha.mounted() && tid(&a, "cpu-bars").is_none());
    assert!(hb.mounted());
    // b still steps...
    click(&b, "step");
    settle().await;
    assert_eq!(decisions(&b), 1);
    // ... and plays: its simulated time advances.
    let t0 = text(&b, "sim-time");
    click(&b, "play");
    play_for(400).await;
    click(&b, "play");
    settle().await;
    assert_ne!(
        text(&b, "sim-time"),
        t0,
        "the remaining instance keeps running"
    );
    let mut hb = hb;
    hb.destroy();
}

#[wasm_bindgen_test]
async fn the_embed_api_takes_only_a_scenario_object() {
    let div = fresh_div();
    for bad in [
        JsValue::from_str("llc_weight=8"),
        JsValue::from_str(r#"{"llc_weight": 8}"#),
        JsValue::NULL,
        JsValue::UNDEFINED,
        JsValue::from_f64(8.0),
        obj("[1, 2]"),
    ] {
        assert!(sisviz::mount(div.clone().into(), bad).is_err());
    }
    let e = sisviz::scenario_object_pairs(&JsValue::from_str("x")).unwrap_err();
    assert!(e.contains("expected a scenario object"), "{e}");
    let e = sisviz::scenario_object_pairs(&obj(r#"{"llc_weight": [8]}"#)).unwrap_err();
    assert!(e.contains("llc_weight"), "{e}");
    // Not an element.
    assert!(sisviz::mount(JsValue::from_str("#here"), obj("{}")).is_err());
    // A valid object with a bad value mounts and shows the error naming the field, the value
    // and the allowed range.
    let mut h = sisviz::mount(div.clone().into(), obj(r#"{"llc_weight": 0}"#)).unwrap();
    settle().await;
    let shown = text(&div, "error");
    assert!(
        shown.contains("llc_weight") && shown.contains("'0'") && shown.contains("1..=1024"),
        "{shown}"
    );
    h.destroy();
}

#[wasm_bindgen_test]
fn exported_trace_is_chrome_trace_json_with_one_track_per_cpu() {
    let sc = Scenario::from_pairs([
        ("llc_weight", "16"),
        ("load", "150"),
        ("preset", "full-scan"),
    ])
    .unwrap();
    let mut r = Runner::default();
    r.rebuild(&sc, 1, Some(60)).unwrap();
    let text = sisviz::components::export::trace_of(&r).unwrap();
    let v = js_sys::JSON::parse(&text).expect("valid JSON");
    let evs: js_sys::Array = js_sys::Reflect::get(&v, &"traceEvents".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let get = |e: &JsValue, k: &str| js_sys::Reflect::get(e, &k.into()).unwrap();
    let mut tracks = Vec::new();
    let mut wakeups = 0;
    for e in evs.iter() {
        let ph = get(&e, "ph").as_string().unwrap();
        assert!(get(&e, "pid").as_f64().is_some());
        let tid = get(&e, "tid").as_f64().unwrap() as u32;
        match ph.as_str() {
            "M" if get(&e, "name").as_string().as_deref() == Some("thread_name") => {
                let name = get(&get(&e, "args"), "name").as_string().unwrap();
                assert_eq!(name, format!("CPU {tid}"));
                tracks.push(tid);
            }
            "M" => {}
            "X" => {
                assert!(get(&e, "ts").as_f64().unwrap() >= 0.0);
                assert!(get(&e, "dur").as_f64().unwrap() > 0.0);
                assert!(tid < 16);
                if get(&e, "cat").as_string().as_deref() == Some("wakeup") {
                    wakeups += 1;
                }
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    assert_eq!(
        tracks,
        (0..16).collect::<Vec<u32>>(),
        "one named track per CPU"
    );
    assert_eq!(wakeups, 60.min(sis_core::sim::engine::DECISION_RING));
    // A recording made while playing holds more than the ring.
    r.start_recording();
    r.advance(2_000_000, 1e9, &|| 0.0);
    let rec = r.rec.as_ref().unwrap();
    assert!(
        rec.decisions.len() > sis_core::sim::engine::DECISION_RING,
        "{}",
        rec.decisions.len()
    );
    assert_eq!(rec.lost, 0);
}

/// Keep in sync with `golden_scenario()` in tests/golden_native.rs.
fn golden_scenario() -> Scenario {
    Scenario::from_pairs([
        ("llc_weight", "16"),
        ("workload", "netperf"),
        ("duration", "30ms"),
        ("seed", "7"),
    ])
    .unwrap()
}

#[wasm_bindgen_test]
fn the_golden_run_is_byte_identical_in_wasm() {
    let got = serde_json::to_string(&sis_core::run(&golden_scenario()).unwrap()).unwrap();
    assert!(
        got == include_str!("golden/run-netperf-16.json"),
        "wasm run differs from tests/golden/run-netperf-16.json:\n{got}"
    );
}

#[wasm_bindgen_test]
fn a_saved_scenario_file_loads_back_in_the_browser() {
    let sc =
        Scenario::from_pairs([("llc_weight", "32"), ("seed", "18446744073709551615")]).unwrap();
    let file = sc.to_json();
    assert_eq!(Scenario::from_json(&file).unwrap(), sc);
    let e = Scenario::from_json(r#"{"llc_weight": "<b>x</b>"}"#).unwrap_err();
    assert_eq!(e.field, "llc_weight");
}
