//! Compare mode: two Simulations built from the same scenario except the preset (and B's
//! feature overrides), stepped one wake-up decision each, drawn side by side; their decisions
//! diffed and their counters tabled with mmtests' `baseline compare% compare` columns
//! (sis-core's `compare_pct`).

use super::workbench::{dispatch_input, dispatch_to, preset_select, Wb, WbAction};
use crate::draw::cpus::{draw_cpus, layout, Overlay};
use crate::draw::Palette;
use crate::runner::{found_idle, Runner};
use sis_core::stats::{Counters, Metrics};
use sis_core::sweep::{compare_pct, format_compare_pct};
use sis_core::trace::Decision;
use sis_core::Scenario;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

/// Decision pairs kept for the diff.
const PAIRS: usize = 200;

/// Scenario `base` with `preset` (bringing its imbalance_pct) and `features`.
pub fn variant(base: &Scenario, preset: &str, features: &str) -> Result<Scenario, String> {
    let mut sc = base.clone();
    sc.set_field("preset", preset)
        .and_then(|()| sc.set_field("features", features))
        .and_then(|()| sc.check())
        .map_err(|e| e.to_string())?;
    Ok(sc)
}

/// Whether two decisions are the same wake-up (same task, waker, time): true until the two
/// runs diverge.
pub fn same_wakeup(a: &Decision, b: &Decision) -> bool {
    a.time_ns == b.time_ns && a.wakee == b.wakee && a.waker_cpu == b.waker_cpu && a.prev == b.prev
}

/// The CPUs a decision looked at, in order ("-" if none).
pub fn scanned(d: &Decision) -> String {
    if d.steps.is_empty() {
        return "-".into();
    }
    d.steps
        .iter()
        .map(|s| format!("{}:{}", s.cpu, &s.saw.name()[..1]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows of the counters table: (name, value) per quantity.
#[allow(clippy::type_complexity)]
/// Which way a quantity is better: `+1` higher, `-1` lower, `0` neither (it just counts).
pub type Better = i8;

/// How a row reads its value from a run's counters and metrics.
pub type Getter = fn(&Counters, &Metrics) -> f64;

/// The compare table's rows: name, value, shown as a percentage, and which way is better.
pub const TABLE: &[(&str, Getter, bool, Better)] = &[
    ("wakeups", |c, _| c.wakeups as f64, false, 1),
    ("migrations", |c, _| c.migrations as f64, false, -1),
    ("sis_search", |c, _| c.sis_search as f64, false, 0),
    (
        "sis_domain_search",
        |c, _| c.sis_domain_search as f64,
        false,
        0,
    ),
    ("sis_scanned", |c, _| c.sis_scanned as f64, false, -1),
    ("sis_failed", |c, _| c.sis_failed as f64, false, -1),
    ("se_eff%", |_, m| m.se_eff, true, 1),
    ("dom_eff%", |_, m| m.dom_eff, true, 1),
    ("fast_rate%", |_, m| m.fast_rate, true, 1),
    ("success_rate%", |_, m| m.success_rate, true, 1),
    ("scanned/wake-up", |_, m| m.scanned_per_wakeup, true, -1),
    (
        "wake-up latency us",
        |_, m| m.avg_wakeup_latency_us,
        true,
        -1,
    ),
];

/// The class of a compare% cell: green when the change is for the better, red when for the
/// worse, none when the quantity has no better direction or did not change.
pub fn change_class(compare_pct: f64, better: Better) -> &'static str {
    let signed = compare_pct * better as f64;
    if signed > 0.0 {
        "better"
    } else if signed < 0.0 {
        "worse"
    } else {
        ""
    }
}

#[derive(Default)]
struct Pair {
    a: Runner,
    b: Runner,
    key: Option<(Scenario, Scenario, u64)>,
    /// (A's decision, B's decision) per step, newest last.
    pairs: Vec<(Decision, Decision)>,
    /// Index in the whole stream of the first pair that was not the same wake-up.
    diverged: Option<u64>,
    steps: u64,
    error: Option<String>,
}

impl Pair {
    fn step(&mut self) -> bool {
        let (Some(sa), Some(sb)) = (self.a.step_decision(), self.b.step_decision()) else {
            return false;
        };
        let (Some(da), Some(db)) = (self.a.decision(sa).cloned(), self.b.decision(sb).cloned())
        else {
            return false;
        };
        self.steps += 1;
        if self.diverged.is_none() && !same_wakeup(&da, &db) {
            self.diverged = Some(self.steps);
        }
        self.pairs.push((da, db));
        if self.pairs.len() > PAIRS {
            self.pairs.remove(0);
        }
        true
    }
}

fn ctx2d(c: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    c.get_context("2d").ok()??.dyn_into().ok()
}

fn draw_runner(r: &mut Runner, canvas: &HtmlCanvasElement, dark: bool) {
    let cw = canvas.client_width();
    let Some(sim) = r.sim.as_ref() else { return };
    if cw <= 0 {
        return;
    }
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0));
    let lay = layout(cw as f64, &r.groups, sim.topology().nr_cpus() as usize);
    let _ = canvas.set_attribute("style", &format!("height:{}px", lay.height));
    canvas.set_width((lay.width * dpr).round() as u32);
    canvas.set_height((lay.height * dpr).round() as u32);
    let Some(ctx) = ctx2d(canvas) else { return };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    let mut snaps = Vec::new();
    r.cpu_snaps(&mut snaps);
    let llcs = r.llc_snaps();
    let ov = r.newest().map(|d| Overlay {
        missed: !found_idle(d),
        decision: d,
        shown: d.steps.len(),
        reveal: true,
        guess: None,
    });
    draw_cpus(&ctx, &lay, &snaps, &llcs, ov.as_ref(), &Palette::of(dark));
}

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub scenario: Scenario,
    pub wb: UseReducerHandle<Wb>,
    pub dark: bool,
}

fn decision_text(d: &Decision) -> String {
    format!(
        "task {} woken by CPU {} (prev {}, target {}) → CPU {} by {}; {} probe{}{}",
        d.wakee,
        d.waker_cpu,
        d.prev,
        d.target,
        d.result,
        d.decided_by.map_or("-", |r| r.name()),
        d.probes(),
        if d.probes() == 1 { "" } else { "s" },
        if found_idle(d) || d.missed_idle.is_empty() {
            String::new()
        } else {
            format!("; missed idle CPU(s) {:?}", d.missed_idle)
        }
    )
}

#[component]
pub fn ComparePanel(p: &CompareProps) -> Html {
    let pair = use_mut_ref(Pair::default);
    let force = use_force_update();
    let ca = use_node_ref();
    let cb = use_node_ref();
    let wb = &p.wb;

    // (Re)build both runs when the scenario or the presets change.
    let built = variant(&p.scenario, &wb.a, "")
        .and_then(|a| Ok((a, variant(&p.scenario, &wb.b, &wb.b_features)?)));
    {
        let mut pr = pair.borrow_mut();
        match built {
            Ok((sa, sb)) => {
                let key = Some((sa.clone(), sb.clone(), wb.seed_gen));
                if pr.key != key {
                    let res =
                        pr.a.rebuild(&sa, 1, None)
                            .and_then(|()| pr.b.rebuild(&sb, 1, None));
                    pr.key = key;
                    pr.pairs.clear();
                    pr.diverged = None;
                    pr.steps = 0;
                    pr.error = res.err();
                }
            }
            Err(e) => pr.error = Some(e),
        }
    }
    // Draw both CPU views after every render.
    {
        let (pair, ca, cb, dark) = (pair.clone(), ca.clone(), cb.clone(), p.dark);
        use_effect(move || {
            let mut pr = pair.borrow_mut();
            if let Some(c) = ca.cast::<HtmlCanvasElement>() {
                draw_runner(&mut pr.a, &c, dark);
            }
            if let Some(c) = cb.cast::<HtmlCanvasElement>() {
                draw_runner(&mut pr.b, &c, dark);
            }
        });
    }
    let stepper = |n: u32, label: &str, testid: &str| {
        let (pair, force) = (pair.clone(), force.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            {
                let mut pr = pair.borrow_mut();
                for _ in 0..n {
                    if !pr.step() {
                        break;
                    }
                }
            }
            force.force_update();
        });
        html! { <button data-testid={testid.to_string()} {onclick}>{label}</button> }
    };
    let run_ms = {
        let (pair, force) = (pair.clone(), force.clone());
        Callback::from(move |_: MouseEvent| {
            {
                let pr = &mut *pair.borrow_mut();
                for r in [&mut pr.a, &mut pr.b] {
                    if let Some(s) = r.sim.as_mut() {
                        s.run_for(100_000_000);
                    }
                    r.after_change();
                }
                let next = pr.steps + 1;
                pr.diverged.get_or_insert(next);
                pr.steps += 1;
            }
            force.force_update();
        })
    };
    let on_reset = {
        let (pair, force) = (pair.clone(), force.clone());
        Callback::from(move |_: MouseEvent| {
            pair.borrow_mut().key = None;
            force.force_update();
        })
    };
    let on_a = dispatch_to(wb, WbAction::A);
    let on_b = dispatch_to(wb, WbAction::B);
    let on_feat = dispatch_input(wb, WbAction::BFeatures);

    let pr = pair.borrow();
    let snap = |r: &Runner| {
        r.sim.as_ref().map(|s| {
            (
                *s.counters(),
                s.metrics(),
                s.now_ns(),
                s.scenario().warmup_ns(),
            )
        })
    };
    let (sa, sb) = (snap(&pr.a), snap(&pr.b));
    let name_b = if wb.b_features.is_empty() {
        wb.b.clone()
    } else {
        format!("{} [{}]", wb.b, wb.b_features)
    };
    let table = match (sa, sb) {
        (Some((ca_, ma, now, warm)), Some((cb_, mb, _, _))) => html! {
            <table class="compare-table" data-testid="compare-table">
                <caption>{format!("baseline = {} · compare = {name_b} · compare% = 100 × (compare − baseline) / baseline{}",
                    wb.a, if now < warm { format!(" · counters start after the {} warm-up (now {:.1} ms)", p.scenario.warmup, now as f64 / 1e6) } else { String::new() })}</caption>
                <thead><tr><th>{"quantity"}</th><th>{"baseline"}</th><th>{"compare%"}</th><th>{"compare"}</th></tr></thead>
                <tbody>
                { for TABLE.iter().map(|(name, get, pct, better)| {
                    let (va, vb) = (get(&ca_, &ma), get(&cb_, &mb));
                    let f = |v: f64| if *pct { format!("{v:.3}") } else { format!("{v:.0}") };
                    let c = compare_pct(va, vb);
                    html! { <tr data-testid={format!("compare-row-{name}")}>
                        <td>{*name}</td><td class="num">{f(va)}</td>
                        <td class={classes!("num", change_class(c, *better))}>{format_compare_pct(c)}</td>
                        <td class="num">{f(vb)}</td></tr> }
                }) }
                </tbody>
            </table>
        },
        _ => html! {},
    };
    let diff = pr.pairs.last().map(|(da, db)| {
        let same = same_wakeup(da, db);
        let verdict = if !same {
            "different wake-ups (the streams have diverged)".to_string()
        } else if da.result == db.result {
            format!("same wake-up, same choice: CPU {}", da.result)
        } else {
            format!("same wake-up, DIFFERENT choice: CPU {} vs CPU {}", da.result, db.result)
        };
        html! {
            <div class={classes!("compare-diff", (same && da.result != db.result).then_some("differs"))} data-testid="compare-diff">
                <b>{verdict}</b>
                <div><span class="tag a">{"A"}</span>{decision_text(da)}<br/><span class="scan">{format!("checked: {}", scanned(da))}</span></div>
                <div><span class="tag b">{"B"}</span>{decision_text(db)}<br/><span class="scan">{format!("checked: {}", scanned(db))}</span></div>
            </div>
        }
    });
    let n_diff = pr
        .pairs
        .iter()
        .filter(|(a, b)| same_wakeup(a, b) && a.result != b.result)
        .count();
    let log = html! {
        <table class="compare-log" data-testid="compare-log">
            <thead><tr><th>{"#"}</th><th>{"wake-up (A)"}</th><th>{"A → CPU"}</th><th>{"A checked"}</th><th>{"B → CPU"}</th><th>{"B checked"}</th></tr></thead>
            <tbody>
            { for pr.pairs.iter().rev().take(12).map(|(a, b)| {
                let same = same_wakeup(a, b);
                let cls = if !same { "diverged" } else if a.result != b.result { "differs" } else { "" };
                html! { <tr class={cls} data-testid="compare-pair">
                    <td>{a.seq}</td>
                    <td>{format!("task {} by CPU {}{}", a.wakee, a.waker_cpu, if same { String::new() } else { format!(" (B: task {} by CPU {})", b.wakee, b.waker_cpu) })}</td>
                    <td class="num">{a.result}</td><td class="scan">{scanned(a)}</td>
                    <td class="num">{b.result}</td><td class="scan">{scanned(b)}</td>
                </tr> }
            }) }
            </tbody>
        </table>
    };
    let diverged_note = match pr.diverged {
        Some(n) => format!("The streams diverged at step {n}: from there the two runs wake different tasks at different times (placement, scan cost and balancing differ), so later rows pair unrelated wake-ups; compare the counters instead."),
        None if pr.steps > 0 => format!("{} steps, still the same wake-up stream; {n_diff} of the shown pairs chose differently.", pr.steps),
        None => "Both runs start from the same state and the same wake-up stream. Step: each takes its next wake-up decision.".into(),
    };
    html! {
        <div class="compare" data-testid="compare-view">
            <div class="bench-controls">
                <label>{"A (baseline) "}{preset_select("compare-preset-a", &wb.a, None, on_a)}</label>
                <label>{"B (compare) "}{preset_select("compare-preset-b", &wb.b, None, on_b)}</label>
                <label title="feature overrides on top of B, e.g. SIS_PROP=on,SIS_UTIL=off">{"B features "}
                    <input type="text" data-testid="compare-features" placeholder="SIS_PROP=on" value={wb.b_features.clone()} onchange={on_feat} size="22" /></label>
                {stepper(1, "Step both", "compare-step")}
                {stepper(10, "+10", "compare-step-10")}
                {stepper(100, "+100", "compare-step-100")}
                <button data-testid="compare-run" onclick={run_ms} title="advance both runs by 100 ms of simulated time">{"+100 ms"}</button>
                <button data-testid="compare-reset" onclick={on_reset}>{"Reset"}</button>
            </div>
            if let Some(e) = pr.error.clone() { <div class="error" role="alert">{e}</div> }
            <p class="caption" data-testid="compare-note">{format!("Same topology, workload, load and seed ({}); only the kernel differs. ", p.scenario.seed)}{diverged_note}</p>
            <div class="compare-cpus">
                <figure><figcaption><span class="tag a">{"A"}</span>{wb.a.clone()}</figcaption>
                    <canvas ref={ca} class="cpu-canvas" data-testid="compare-cpus-a"></canvas></figure>
                <figure><figcaption><span class="tag b">{"B"}</span>{name_b.clone()}</figcaption>
                    <canvas ref={cb} class="cpu-canvas" data-testid="compare-cpus-b"></canvas></figure>
            </div>
            {diff.unwrap_or_default()}
            <div class="compare-out">{table}{log}</div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_colour_follows_which_way_is_better() {
        let better_of = |name: &str| TABLE.iter().find(|r| r.0 == name).unwrap().3;
        // SIS_UTIL's -87.9% sis_scanned is an improvement; a lower success rate is not.
        assert_eq!(change_class(-87.9, better_of("sis_scanned")), "better");
        assert_eq!(change_class(-5.0, better_of("success_rate%")), "worse");
        assert_eq!(change_class(164.9, better_of("wakeups")), "better");
        assert_eq!(change_class(12.0, better_of("wake-up latency us")), "worse");
        assert_eq!(change_class(30.0, better_of("sis_search")), "");
        assert_eq!(change_class(0.0, better_of("se_eff%")), "");
    }
}
