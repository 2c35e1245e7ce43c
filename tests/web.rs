//! Browser tests (wasm-bindgen-test in headless Chromium):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown -p sisviz`

#![cfg(target_arch = "wasm32")]

use sisviz::draw::cpus::{draw_cpus, layout, CpuSnap, LlcSnap};
use sisviz::draw::curve::{draw_scan_curve, CurveData};
use sisviz::draw::hist::draw_scan_hist;
use sisviz::draw::Palette;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
};

wasm_bindgen_test_configure!(run_in_browser);

const TESTIDS: &[&str] = &[
    "llc-weight",
    "imbalance-pct",
    "load",
    "smt",
    "preset",
    "workload",
    "seed",
    "speed",
    "play",
    "step",
    "step-probe",
    "reset",
    "cpu-bars",
    "scan-curve",
    "scan-hist",
    "decision-log",
    "metrics",
    "metric-se_eff",
    "metric-dom_eff",
    "metric-fast_rate",
    "metric-success_rate",
    "nr-scan",
    "sim-time",
];

fn doc() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn fresh_div() -> Element {
    let div = doc().create_element("div").unwrap();
    div.set_attribute("style", "width: 1100px").unwrap();
    doc().body().unwrap().append_child(&div).unwrap();
    div
}

/// Waits until Yew has rendered everything pending (and run the effects).
async fn settle() {
    yew::scheduler::flush().await;
}

fn q(root: &Element, id: &str) -> Option<Element> {
    root.query_selector(&format!("[data-testid=\"{id}\"]"))
        .unwrap()
}

fn decisions(root: &Element) -> u32 {
    root.query_selector_all("[data-testid=\"decision-log\"] [data-testid=\"decision\"]")
        .unwrap()
        .length()
}

fn click(root: &Element, id: &str) {
    q(root, id)
        .unwrap()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
}

fn text(root: &Element, id: &str) -> String {
    q(root, id).unwrap().text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn mount_shows_every_testid_and_step_adds_a_decision() {
    let div = fresh_div();
    let mut h = sisviz::mount_config(div.clone(), "");
    settle().await;
    for id in TESTIDS {
        assert!(q(&div, id).is_some(), "missing data-testid {id}");
    }
    assert_eq!(decisions(&div), 0);
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 1);
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 2);
    // Metric texts are plain numbers; nr-scan is an integer within the LLC.
    for id in [
        "metric-se_eff",
        "metric-dom_eff",
        "metric-fast_rate",
        "metric-success_rate",
    ] {
        assert!(
            text(&div, id).parse::<f64>().is_ok(),
            "{id}: {}",
            text(&div, id)
        );
    }
    let nr: u32 = text(&div, "nr-scan").parse().unwrap();
    assert!(nr <= 16);
    // Step probe walks the checks of a new decision, one by one.
    click(&div, "step-probe");
    settle().await;
    assert!(div.query_selector("tr.current").unwrap().is_some());
    assert!(h.mounted());
    h.destroy();
    settle().await;
    assert!(!h.mounted());
    assert!(q(&div, "cpu-bars").is_none(), "destroy() unmounts");
    h.destroy(); // idempotent
}

#[wasm_bindgen_test]
async fn two_instances_are_independent() {
    let (a, b) = (fresh_div(), fresh_div());
    let mut ha = sisviz::mount_config(a.clone(), r#"{"llc_weight": 8, "smt": 1}"#);
    let mut hb = sisviz::mount_config(b.clone(), "?llc_weight=112&view=trace&embed=1");
    settle().await;
    assert!(q(&b, "decision-log").is_some());
    assert!(
        q(&b, "scan-curve").is_none(),
        "embed view=trace shows only the trace"
    );
    click(&a, "step");
    settle().await;
    assert_eq!(decisions(&a), 1);
    assert_eq!(decisions(&b), 0);
    ha.destroy();
    hb.destroy();
}

#[wasm_bindgen_test]
async fn invalid_input_shows_an_error_and_keeps_running() {
    let div = fresh_div();
    let mut h = sisviz::mount_config(div.clone(), "?llc_weight=0");
    settle().await;
    assert!(text(&div, "error").contains("llc_weight"));
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 1);
    // A typed invalid value names its field; a valid one clears the error.
    let input: HtmlInputElement = q(&div, "imbalance-pct").unwrap().dyn_into().unwrap();
    input.set_value("99");
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    assert!(
        text(&div, "error").contains("imbalance_pct"),
        "{}",
        text(&div, "error")
    );
    input.set_value("130");
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    assert!(q(&div, "error").is_none());
    h.destroy();
}

#[wasm_bindgen_test]
fn config_as_json_or_query() {
    let p = sisviz::parse_config(
        r#"{"llc_weight": 112, "load": "200", "view": "curve", "embed": true, "seed": "18446744073709551615"}"#,
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.scenario.llc_weight, 112);
    assert_eq!(p.scenario.load, 200);
    assert_eq!(p.scenario.seed, u64::MAX);
    assert_eq!(p.view.view, sisviz::url::View::Curve);
    assert!(p.view.embed);
    assert!(sisviz::parse_config("?llc_weight=0").errors[0].contains("llc_weight"));
    assert!(!sisviz::parse_config("[1,2]").errors.is_empty());
    assert!(!sisviz::parse_config("{nope").errors.is_empty());
    assert!(sisviz::parse_config("").errors.is_empty());
}

fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let c: HtmlCanvasElement = doc().create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc().body().unwrap().append_child(&c).unwrap();
    c
}

#[wasm_bindgen_test]
fn draw_fns_work_on_a_real_canvas() {
    let c = canvas(640, 320);
    for w in [1u32, 4, 112, 1024] {
        for dark in [false, true] {
            let mut d = CurveData::new(w, 117);
            d.live = Some((50.0, w / 2));
            d.trail = vec![(40.0, w), (45.0, w / 2)];
            d.util_now = Some(52.0);
            d.sis_prop_nr = Some(5000);
            draw_scan_curve(&c, &d, &Palette::of(dark), 1.0)
                .unwrap_or_else(|e| panic!("w={w}: {e}"));
        }
    }
    draw_scan_curve(&c, &CurveData::new(16, 1000), &Palette::LIGHT, 2.0).unwrap();
    let mut buckets = vec![0u64; 19];
    draw_scan_hist(&c, &buckets, &Palette::DARK, 1.0).unwrap();
    buckets[3] = 10;
    buckets[18] = 1;
    draw_scan_hist(&c, &buckets, &Palette::LIGHT, 2.0).unwrap();
    // The CPU bars with the raw 2D context.
    let groups: Vec<Vec<Vec<u32>>> = vec![(0..128).map(|k| vec![2 * k, 2 * k + 1]).collect()];
    let lay = layout(1000.0, &groups, 256);
    let cb = canvas(1000, lay.height as u32);
    let ctx: CanvasRenderingContext2d = cb.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let snaps = vec![
        CpuSnap {
            state: sis_core::state::CpuState::Busy,
            util_avg: 700,
            nr_running: 3
        };
        256
    ];
    let llcs = [LlcSnap {
        nr_idle_scan: 30,
        has_idle_cores: false,
        sum_util_pct: 70,
    }];
    draw_cpus(&ctx, &lay, &snaps, &llcs, None, &Palette::LIGHT);
}

/// The exported `sweep_point`, on the points `SweepSpec::points()` gives for the golden's
/// sweep, returns exactly the reports `sis sweep --format json` computed natively.
#[wasm_bindgen_test]
fn sweep_point_matches_the_native_golden() {
    use sis_core::sweep::SweepSpec;
    let golden = include_str!("golden/sweep-llc8-20ms.json");
    let base = sis_core::Scenario::from_pairs([("llc_weight", "8"), ("duration", "20ms")]).unwrap();
    let spec = SweepSpec::new(
        base,
        vec!["linux-5.15".into(), "linux-6.0".into()],
        vec![50, 150],
    )
    .unwrap();
    let items: Vec<String> = spec
        .points()
        .iter()
        .map(|sc| {
            let report = sisviz::worker_api::sweep_point(&sisviz::worker_api::point_query(sc));
            assert!(!report.starts_with("error"), "{report}");
            format!(
                "{{\"preset\":\"{}\",\"load\":{},\"report\":{report}}}",
                sc.preset, sc.load
            )
        })
        .collect();
    let got = js_sys::JSON::parse(&format!("[{}]", items.join(","))).unwrap();
    let want = js_sys::JSON::parse(golden).unwrap();
    assert_eq!(
        String::from(js_sys::JSON::stringify(&got).unwrap()),
        String::from(js_sys::JSON::stringify(&want).unwrap())
    );
}
