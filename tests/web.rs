//! Browser tests (wasm-bindgen-test in headless Chromium):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown -p sisviz`

#![cfg(target_arch = "wasm32")]

use sisviz::draw::cpus::{draw_cpus, layout, CpuSnap, LlcSnap, Throttle, MAX_HEIGHT};
use sisviz::draw::curve::{draw_scan_curve, CurveData, OperatingPoint};
use sisviz::draw::hist::draw_scan_hist;
use sisviz::draw::spark::draw_sparkline;
use sisviz::draw::sweep::{draw_heatmap, draw_sweep_lines, Heat, Series};
use sisviz::draw::{Palette, Rgb};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
};

wasm_bindgen_test_configure!(run_in_browser);

/// The data-testids every full page shows: one list, shared with the end-to-end tests.
fn testids() -> impl Iterator<Item = &'static str> {
    include_str!("testids.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

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
    let mut h = sisviz::mount_config(div.clone(), "?cold=1");
    settle().await;
    for id in testids() {
        assert!(q(&div, id).is_some(), "missing data-testid {id}");
    }
    assert_eq!(decisions(&div), 0);
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 1);
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 2);
    // At t = 0 (cold) nothing is counted yet: the window says so and the metrics read "–"
    // (a 0/0 is no data), never a default percentage.
    assert!(
        text(&div, "metrics-window").starts_with("Warming up"),
        "{}",
        text(&div, "metrics-window")
    );
    for id in [
        "metric-se_eff",
        "metric-dom_eff",
        "metric-fast_rate",
        "metric-success_rate",
    ] {
        assert_eq!(text(&div, id), "–", "{id}");
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
    let mut ha = sisviz::mount_config(a.clone(), r#"{"llc_weight": 8, "smt": 1, "cold": 1}"#);
    let mut hb = sisviz::mount_config(b.clone(), "?llc_weight=112&view=trace&embed=1&cold=1");
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
    let mut h = sisviz::mount_config(div.clone(), "?llc_weight=0&cold=1");
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

fn op(util_pct: f64, nr_idle_scan: u32) -> OperatingPoint {
    OperatingPoint {
        util_pct,
        nr_idle_scan,
    }
}

#[wasm_bindgen_test]
fn draw_fns_work_on_a_real_canvas() {
    let c = canvas(640, 320);
    for w in [1u32, 4, 112, 1024] {
        for dark in [false, true] {
            let mut d = CurveData::new(w, 117);
            d.live = Some(op(50.0, w / 2));
            d.trail = vec![op(40.0, w), op(45.0, w / 2)];
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
    draw_sparkline(&c, &[], None, &Palette::LIGHT, 1.0).unwrap();
    draw_sparkline(&c, &[3.0, 1.0, 4.0], Some(100.0), &Palette::DARK, 1.0).unwrap();
    let series = vec![Series {
        name: "linux-6.0".into(),
        points: vec![(25.0, 1.0), (50.0, f64::NAN), (200.0, 3.5)],
        ci: vec![(25.0, 0.5, 1.5), (50.0, f64::NAN, f64::NAN)],
    }];
    draw_sweep_lines(&c, &series, "se_eff %", &Palette::LIGHT, 1.0).unwrap();
    draw_sweep_lines(&c, &[], "se_eff %", &Palette::DARK, 1.0).unwrap();
    let heat = Heat {
        title: "t".into(),
        x_desc: "load".into(),
        y_desc: "llc_weight".into(),
        xs: vec![50, 100],
        ys: vec![4, 8],
        values: vec![Some(1.0), None, Some(2.0), Some(f64::INFINITY)],
        decimals: 1,
    };
    draw_heatmap(&c, &heat, Rgb(200, 0, 0), &Palette::DARK, 1.0).unwrap();
    // The CPU bars with the raw 2D context.
    let groups: Vec<Vec<Vec<u32>>> = vec![(0..128).map(|k| vec![2 * k, 2 * k + 1]).collect()];
    let lay = layout(1000.0, MAX_HEIGHT, &groups, 256);
    let cb = canvas(1000, lay.height as u32);
    let ctx: CanvasRenderingContext2d = cb.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let snaps = vec![
        CpuSnap {
            state: sis_core::kernel::state::CpuState::Busy,
            util_avg: 700,
            nr_running: 3,
            scanning: false,
            lock_wait: false,
            idle_exit: false,
        };
        256
    ];
    let llcs = [LlcSnap {
        throttle: Throttle::NrIdleScan(30),
        has_idle_cores: false,
        sum_util_pct: 70,
    }];
    draw_cpus(&ctx, &lay, &snaps, &llcs, None, &Palette::LIGHT);
}

/// The RGB of one pixel of a canvas (device pixels).
fn pixel(c: &HtmlCanvasElement, x: i32, y: i32) -> Rgb {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx
        .get_image_data(x as f64, y as f64, 1.0, 1.0)
        .unwrap()
        .data();
    Rgb(d[0], d[1], d[2])
}

fn near(a: Rgb, b: Rgb) -> bool {
    let d = |x: u8, y: u8| (x as i32 - y as i32).abs();
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2) < 40
}

#[wasm_bindgen_test]
fn the_operating_point_sits_on_the_curve_at_its_utilisation() {
    let pal = Palette::LIGHT;
    let c = canvas(640, 320);
    let mut d = CurveData::new(16, 117);
    // Rows of column x where the curve alone is drawn.
    let util = 40.0;
    let nr = d.nr_at(util).unwrap();
    let map = draw_scan_curve(&c, &d, &pal, 1.0).unwrap();
    let (x, y) = map.to_px(util, nr as f64);
    let curve_rows: Vec<i32> = (0..320)
        .filter(|&r| near(pixel(&c, x, r), pal.accent))
        .collect();
    assert!(!curve_rows.is_empty(), "no curve in column {x}");
    let (top, bottom) = (curve_rows[0], *curve_rows.last().unwrap());
    assert!(
        (top - 2..=bottom + 2).contains(&y),
        "curve at rows {top}..={bottom} of column {x}, nr_scan {nr} maps to row {y}"
    );
    // The same point drawn live: accent centre, foreground ring around it, centred on x
    // (the circles are centred on the corner of pixel (x, y): pixel centres 5.5 px away lie
    // inside the ring, between radius 4 and 7, on every side).
    d.live = Some(op(util, nr));
    let map2 = draw_scan_curve(&c, &d, &pal, 1.0).unwrap();
    assert_eq!(map2, map, "the live point does not move the axes");
    assert!(near(pixel(&c, x, y), pal.accent), "{:?}", pixel(&c, x, y));
    for (dx, dy) in [(-6, 0), (5, 0), (0, -6), (0, 5)] {
        let p = pixel(&c, x + dx, y + dy);
        assert!(
            near(p, pal.fg),
            "ring at ({dx}, {dy}) from ({x}, {y}): {p:?}"
        );
    }
    // x is the utilisation: 40% of the way along the plot's x axis.
    let (x0, _) = map.to_px(0.0, 0.0);
    let (x100, _) = map.to_px(100.0, 0.0);
    let expected = x0 as f64 + (x100 - x0) as f64 * util / 100.0;
    assert!((x as f64 - expected).abs() <= 1.0, "{x} vs {expected}");
}

/// The RGBA of one pixel of a canvas (device pixels; colour not premultiplied).
fn pixel_a(c: &HtmlCanvasElement, x: i32, y: i32) -> (Rgb, u8) {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx
        .get_image_data(x as f64, y as f64, 1.0, 1.0)
        .unwrap()
        .data();
    (Rgb(d[0], d[1], d[2]), d[3])
}

#[wasm_bindgen_test]
fn a_cpu_bar_has_its_state_colour_and_util_height_and_the_chosen_one_its_outline() {
    use sis_core::kernel::state::CpuState;
    use sis_core::kernel::trace::{Decision, Rule, Saw, Step};
    use sisviz::draw::cpus::{state_colour, Overlay};
    let pal = Palette::LIGHT;
    let groups: Vec<Vec<Vec<u32>>> = vec![(0..4).map(|k| vec![k]).collect()];
    let lay = layout(600.0, MAX_HEIGHT, &groups, 4);
    let c = canvas(600, lay.height as u32);
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let snap = |state, util_avg| CpuSnap {
        state,
        util_avg,
        nr_running: u32::from(state != CpuState::Idle),
        scanning: util_avg == 1024,
        // CPU 0's waker spins for a remote rq lock; CPU 1 is leaving its idle state.
        lock_wait: util_avg == 512,
        idle_exit: state == CpuState::Idle,
    };
    let snaps = [
        snap(CpuState::Busy, 512),
        snap(CpuState::Idle, 0),
        snap(CpuState::SchedIdle, 256),
        snap(CpuState::Busy, 1024),
    ];
    let llcs = [LlcSnap {
        throttle: Throttle::NrIdleScan(4),
        has_idle_cores: false,
        sum_util_pct: 44,
    }];
    draw_cpus(&ctx, &lay, &snaps, &llcs, None, &pal);
    let bar_h = lay.bar_h as i32;
    for (cpu, s) in snaps.iter().enumerate() {
        let (x, y) = lay.pos[cpu];
        let (cx, y) = ((x + lay.bw / 2.0) as i32, y as i32);
        let colour = state_colour(&pal, s.state);
        // Opaque fill from the bottom up, util_avg / 1024 of the bar; the translucent track
        // (16% of the state colour) above it.
        let filled = (0..bar_h)
            .filter(|r| {
                let (p, a) = pixel_a(&c, cx, y + r);
                a == 255 && near(p, colour)
            })
            .count() as i32;
        // A fractional top row is anti-aliased (not opaque): floor or ceil of the height.
        let h = s.util_avg as f64 / 1024.0 * lay.bar_h;
        let want = h.round() as i32;
        assert!(
            filled == h.floor() as i32 || filled == h.ceil() as i32,
            "CPU {cpu}: {filled} px filled, util {} of {} px is {h}",
            s.util_avg,
            lay.bar_h
        );
        let (p, a) = pixel_a(&c, cx, y + bar_h - 1 - want - 2);
        if want + 3 < bar_h {
            assert!(
                near(p, colour) && (35..=48).contains(&a),
                "CPU {cpu} track: {p:?} alpha {a}"
            );
        }
    }
    // CPU 3 is scanning (scan_cost=waker): the accent band under its bar, under no other.
    for (cpu, s) in snaps.iter().enumerate() {
        let (x, y) = lay.pos[cpu];
        let (p, a) = pixel_a(&c, (x + lay.bw / 2.0) as i32, (y + lay.bar_h) as i32 + 2);
        let band = a == 255 && near(p, pal.accent);
        assert_eq!(band, s.scanning, "CPU {cpu}: {p:?} alpha {a} under the bar");
        // The lock spin: a band in the waker's colour below the scan's; leaving idle: a band
        // in the idle colour over the bar.
        let (p, a) = pixel_a(&c, (x + lay.bw / 2.0) as i32, (y + lay.bar_h) as i32 + 5);
        let lock = a == 255 && near(p, pal.waker);
        assert_eq!(lock, s.lock_wait, "CPU {cpu}: {p:?} alpha {a} lock band");
        let (p, a) = pixel_a(&c, (x + lay.bw / 2.0) as i32, y as i32 - 3);
        let exit = a == 255 && near(p, pal.idle);
        assert_eq!(
            exit, s.idle_exit,
            "CPU {cpu}: {p:?} alpha {a} idle-exit band"
        );
    }
    // The revealed decision: the chosen colour outlines CPU 2's bar (a 3 px stroke 2.5 px
    // out), on its left side below the label box at half height; no other bar has it.
    let d = Decision {
        result: 2,
        decided_by: Some(Rule::SelectIdleCpu),
        steps: vec![
            Step {
                rule: Rule::Target,
                cpu: 0,
                saw: Saw::Busy,
                nr: None,
            },
            Step {
                rule: Rule::SelectIdleCpu,
                cpu: 2,
                saw: Saw::SchedIdle,
                nr: Some(3),
            },
        ],
        ..Default::default()
    };
    let ov = Overlay {
        decision: &d,
        shown: 2,
        reveal: true,
        guess: None,
        missed: false,
    };
    draw_cpus(&ctx, &lay, &snaps, &llcs, Some(&ov), &pal);
    let outlined = |cpu: usize| {
        let (x, y) = lay.pos[cpu];
        let rows = (y + lay.bar_h * 0.7) as i32..(y + lay.bar_h * 0.95) as i32;
        let n = rows.len();
        let hits = rows
            .filter(|&r| {
                let (p, a) = pixel_a(&c, (x - 2.5).floor() as i32, r);
                a == 255 && near(p, pal.chosen)
            })
            .count();
        hits as f64 / n as f64
    };
    assert!(outlined(2) > 0.95, "CPU 2: {}", outlined(2));
    for cpu in [0, 1, 3] {
        assert!(outlined(cpu) < 0.05, "CPU {cpu}: {}", outlined(cpu));
    }
}

#[wasm_bindgen_test]
fn a_histogram_bar_is_as_tall_as_its_count() {
    let pal = Palette::LIGHT;
    let c = canvas(640, 300);
    let mut buckets = vec![0u64; 19];
    buckets[2] = 10;
    buckets[5] = 4;
    let map = draw_scan_hist(&c, &buckets, &pal, 1.0).unwrap();
    let bar_px = |i: usize| {
        let (x, _) = map.to_px(i as f64, 0.0);
        (0..300)
            .filter(|&r| near(pixel(&c, x, r), pal.accent))
            .count() as f64
    };
    let (_, zero) = map.to_px(0.0, 0.0);
    let (_, ten) = map.to_px(0.0, 10.0);
    let per_call = (zero - ten) as f64 / 10.0;
    assert!(per_call > 5.0, "{per_call} px per call");
    for (i, n) in [(2usize, 10.0), (5, 4.0)] {
        let h = bar_px(i);
        assert!(
            (h - n * per_call).abs() <= 2.0,
            "bucket {i}: {h} px tall, {n} calls x {per_call} px"
        );
    }
    assert_eq!(bar_px(3), 0.0, "an empty bucket draws no bar");
}

#[wasm_bindgen_test]
fn an_error_bar_spans_its_interval_with_caps() {
    let pal = Palette::LIGHT;
    let col = sisviz::draw::sweep::series_colour(&pal, 0);
    let c = canvas(640, 320);
    // One point at (100, 10) whose 95% interval is 4..16: the bar runs from 4 to 16 with
    // 10 px caps at both ends, and nothing of the series is drawn above 16.
    let mut series = vec![Series {
        name: "linux-6.0".into(),
        points: vec![(100.0, 10.0)],
        ci: vec![(100.0, 4.0, 16.0)],
    }];
    let map = draw_sweep_lines(&c, &series, "se_eff %", &pal, 1.0).unwrap();
    let at = |y: f64, dx: i32| {
        let (x, py) = map.to_px(100.0, y);
        near(pixel(&c, x + dx, py), col)
    };
    let (_, y16) = map.to_px(100.0, 16.0);
    let (_, y4) = map.to_px(100.0, 4.0);
    assert!(
        y4 - y16 > 100,
        "{} px between the interval's ends",
        y4 - y16
    );
    for y in [5.0, 7.0, 13.0, 15.0] {
        assert!(at(y, 0), "the bar covers {y}");
        assert!(!at(y, 4), "the bar is thin at {y}");
    }
    for y in [4.0, 16.0] {
        assert!(at(y, -4) && at(y, 4), "a cap at {y}");
    }
    assert!(!at(17.0, 0), "nothing above the interval");
    assert!(!at(3.0, 0), "nothing below the interval");
    // The same point without an interval draws no bar.
    series[0].ci.clear();
    let map = draw_sweep_lines(&c, &series, "se_eff %", &pal, 1.0).unwrap();
    let (x, y) = map.to_px(100.0, 7.0);
    assert!(!near(pixel(&c, x, y), col), "no interval, no bar");
}

/// The sweep workers' `sweep_point`, on the points `SweepSpec::points()` gives for the golden's
/// sweep, returns exactly the reports (`rows`) `sis sweep --format json` computed natively
/// (through the wire format the sweep workers use).
#[wasm_bindgen_test]
fn sweep_point_matches_the_native_golden() {
    use sis_core::analysis::sweep::SweepSpec;
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
        .enumerate()
        .map(|(i, sc)| {
            // The report crosses as the worker's wire text; rebuilt, it is the CLI's row.
            let wire = sisviz_sim_worker::sweep_point(&sisviz::worker_api::point_query(sc));
            let report = sisviz::worker_api::report_from_wire(&wire).unwrap();
            let row = sis_core::analysis::sweep::SweepRow::new(spec.entry_of_point(i), sc, report);
            serde_json::to_string(&row).unwrap()
        })
        .collect();
    let got = js_sys::JSON::parse(&format!("[{}]", items.join(","))).unwrap();
    let doc = js_sys::JSON::parse(golden).unwrap();
    let want = js_sys::Reflect::get(&doc, &"rows".into()).unwrap();
    assert_eq!(
        String::from(js_sys::JSON::stringify(&got).unwrap()),
        String::from(js_sys::JSON::stringify(&want).unwrap())
    );
}

/// The Replay tab before a trace: the permalink note, the sample's topology preset, an idle
/// progress bar and cancel, no table yet.
#[wasm_bindgen_test]
async fn replay_panel_opens_with_the_samples_topology_and_the_permalink_note() {
    let div = fresh_div();
    let app =
        yew::Renderer::<sisviz::components::replay::ReplayPanel>::with_root(div.clone()).render();
    settle().await;
    assert!(text(&div, "replay-note").contains("permalink can't carry the trace"));
    let value = |id: &str| {
        let el = q(&div, id).unwrap_or_else(|| panic!("no {id}"));
        js_sys::Reflect::get(&el, &"value".into())
            .unwrap()
            .as_string()
            .unwrap()
    };
    assert_eq!(value("replay-llcs"), "1");
    assert_eq!(value("replay-llc-weight"), "8");
    assert_eq!(value("replay-smt"), "2");
    assert_eq!(value("replay-numbering"), "interleaved");
    assert_eq!(value("replay-cluster-size"), "0");
    let autogroup = q(&div, "replay-autogroup").expect("no replay-autogroup");
    let checked = js_sys::Reflect::get(&autogroup, &"checked".into()).unwrap();
    assert_eq!(
        checked.as_bool(),
        Some(false),
        "the root group by default, as the CLI"
    );
    let file = q(&div, "replay-file").unwrap();
    assert_eq!(file.get_attribute("type").as_deref(), Some("file"));
    assert!(q(&div, "replay-cancel").unwrap().has_attribute("disabled"));
    assert!(q(&div, "replay-progress").is_some());
    assert!(q(&div, "replay-table").is_none());
    app.destroy();
}

/// A malformed or extreme rule never panics in wasm either (issue 30): sequences of the
/// language's own tokens from a fixed generator, parsed and evaluated at extreme inputs; a
/// malformed rule in the URL is an error naming nr_expr while the page keeps stepping; and a
/// sweep point with a rule that divides by zero answers instead of trapping.
#[wasm_bindgen_test]
async fn a_malformed_rule_never_panics_in_wasm() {
    use sis_core::kernel::nr_expr::{Inputs, NrExpr, INPUTS, PIECES};
    let tokens: Vec<&str> = PIECES.iter().chain(INPUTS.iter()).copied().collect();
    let extremes = [i64::MIN, -1, 0, 1, 1024, i64::MAX];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        // xorshift64: the same sequences on every run.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let (mut parsed, mut refused) = (0, 0);
    for _ in 0..3000 {
        let len = next(24);
        let text: Vec<&str> = (0..len).map(|_| tokens[next(tokens.len())]).collect();
        let v: Vec<i64> = (0..7).map(|_| extremes[next(extremes.len())]).collect();
        let inputs = Inputs {
            sum_util: v[0],
            llc_weight: v[1],
            imbalance_pct: v[2],
            nr_idle: v[3],
            avg_idle: v[4],
            avg_scan_cost: v[5],
            nr_running: v[6],
        };
        match NrExpr::parse(&text.join(" ")) {
            Ok(e) => {
                parsed += 1;
                let _ = e.eval(&inputs);
                assert!(e.nr_scan(&inputs) as i64 <= inputs.llc_weight.max(0));
            }
            Err(err) => {
                refused += 1;
                assert!(err.pos >= 1, "{text:?}: {err}");
            }
        }
    }
    assert!(
        parsed > 0 && refused > 0,
        "parsed {parsed}, refused {refused}"
    );
    let div = fresh_div();
    let mut h = sisviz::mount_config(div.clone(), "?llc_weight=8&cold=1&nr_expr=min(llc_weight,");
    settle().await;
    assert!(
        text(&div, "error").contains("nr_expr"),
        "{}",
        text(&div, "error")
    );
    click(&div, "step");
    settle().await;
    assert_eq!(decisions(&div), 1);
    h.destroy();
    let wire = sisviz_sim_worker::sweep_point(
        "llc_weight=8&duration=5ms&load=150&nr_expr=sum_util / (nr_idle - nr_idle)",
    );
    assert!(!wire.is_empty());
}
