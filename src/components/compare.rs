//! Compare mode: two Simulations built from the same scenario except the preset (and B's
//! feature overrides), stepped one wake-up decision each, drawn side by side; their decisions
//! diffed and their counters tabled with mmtests' `baseline compare% compare` columns
//! (sis-core's `compare_pct`).

use super::widgets::{entry_of_choice, on_input_change, preset_select};
use crate::cpu_canvas::{CpuCanvas, OverlayState};
use crate::hooks::use_animation_frame;
use crate::runner::{found_idle, Runner, Start};
use sis_core::analysis::sweep::{compare_pct, format_compare_pct, RULE_ENTRY};
use sis_core::kernel::stats::{Counters, Metrics};
use sis_core::kernel::trace::Decision;
use sis_core::Scenario;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Decision pairs kept for the diff.
const PAIRS: usize = 200;
/// Real time given to the warm-up at a rebuild and on each later frame, ms.
const FIRST_SLICE_MS: f64 = 40.0;
const WARM_SLICE_MS: f64 = 24.0;

/// Scenario `base` with `preset` (bringing its imbalance_pct) and `features`.
pub fn variant(base: &Scenario, preset: &str, features: &str) -> Result<Scenario, String> {
    let mut sc = base.clone();
    // A preset runs as the kernel; "your rule" is the scenario's preset with its rule.
    let rule = entry_of_choice(preset, base)?.starts_with(RULE_ENTRY);
    let r = if rule {
        Ok(())
    } else {
        sc.set_field("nr_expr", "")
            .and_then(|()| sc.set_field("preset", preset))
    };
    r.and_then(|()| sc.set_field("features", features))
        .and_then(|()| sc.check())
        .map_err(|e| e.to_string())?;
    Ok(sc)
}

/// Whether two decisions are the same wake-up (same task, waker, time): true until the two
/// runs diverge.
pub fn same_wakeup(a: &Decision, b: &Decision) -> bool {
    a.id.time_ns == b.id.time_ns
        && a.id.wakee == b.id.wakee
        && a.id.waker_cpu == b.id.waker_cpu
        && a.id.prev == b.id.prev
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

/// Which way a quantity is better: `+1` higher, `-1` lower, `0` neither (it just counts).
pub type Better = i8;

/// One row of the compare table.
pub struct CompareRow {
    pub name: &'static str,
    pub value: fn(&Counters, &Metrics) -> f64,
    /// Printed with three decimals (a percentage or ratio) rather than as a count.
    pub fractional: bool,
    pub better: Better,
}

const fn row(
    name: &'static str,
    value: fn(&Counters, &Metrics) -> f64,
    fractional: bool,
    better: Better,
) -> CompareRow {
    CompareRow {
        name,
        value,
        fractional,
        better,
    }
}

/// The compare table's rows.
pub static TABLE: &[CompareRow] = &[
    row("wakeups", |c, _| c.wakeups as f64, false, 1),
    // The benchmark's own throughput (netperf/tbench transactions, hackbench messages read).
    row("messages", |c, _| c.messages as f64, false, 1),
    row("migrations", |c, _| c.migrations as f64, false, -1),
    row("sis_search", |c, _| c.sis_search as f64, false, 0),
    row(
        "sis_domain_search",
        |c, _| c.sis_domain_search as f64,
        false,
        0,
    ),
    row("sis_scanned", |c, _| c.sis_scanned as f64, false, -1),
    row("sis_failed", |c, _| c.sis_failed as f64, false, -1),
    row("se_eff%", |_, m| m.se_eff, true, 1),
    row("dom_eff%", |_, m| m.dom_eff, true, 1),
    row("fast_rate%", |_, m| m.fast_rate, true, 1),
    row("success_rate%", |_, m| m.success_rate, true, 1),
    row("scanned/wake-up", |_, m| m.scanned_per_wakeup, true, -1),
    row(
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

/// A compare% cell: its text and class. "–" (and no colour) when either run has no counted
/// wake-up yet, or the baseline is 0 while the compare is not (no finite percentage).
pub fn pct_cell(va: f64, vb: f64, counted: bool, better: Better) -> (String, &'static str) {
    let c = compare_pct(va, vb);
    if !counted || !c.is_finite() {
        return ("–".into(), "");
    }
    (format_compare_pct(c), change_class(c, better))
}

/// The same step of both runs.
struct DecisionPair {
    baseline: Decision,
    compare: Decision,
}

/// What both runs were built from; a change rebuilds them.
#[derive(Clone, PartialEq)]
struct BuiltFrom {
    baseline: Scenario,
    compare: Scenario,
    generation: u64,
    cold: bool,
}

/// The two runs stepped together.
#[derive(Default)]
struct RunPair {
    baseline: Runner,
    compare: Runner,
    built_from: Option<BuiltFrom>,
    /// Both still warming up under A's kernel (B switches when they are done).
    warming: bool,
    /// When B switched kernel and both started counting, ns.
    switched_at_ns: Option<u64>,
    /// A warm start waits for the first Step (a 256-CPU warm-up of two runs would otherwise
    /// take the page's frames while the tab sits unseen below the main view).
    started: bool,
    /// What to build when it starts.
    waiting: Option<BuiltFrom>,
    /// Newest last.
    pairs: Vec<DecisionPair>,
    /// The step at which the two runs first woke different tasks.
    diverged: Option<u64>,
    steps: u64,
    error: Option<String>,
    baseline_canvas: CpuCanvas,
    compare_canvas: CpuCanvas,
}

impl RunPair {
    /// Builds both runs from A's scenario (one run twice: the same state and wake-up stream),
    /// to be warmed up by [`Self::warm`] as the main view warms up.
    fn build(&mut self, from: BuiltFrom) {
        // Cold: each run from t = 0 with its own kernel (counting after the warm-up).
        let (b_from, start) = if from.cold {
            (&from.compare, Start::Cold)
        } else {
            (&from.baseline, Start::Warm)
        };
        let res = self
            .baseline
            .rebuild_pending(&from.baseline, 1, start)
            .and_then(|()| self.compare.rebuild_pending(b_from, 1, start));
        self.warming = res.is_ok() && !from.cold;
        self.waiting = None;
        self.built_from = Some(from);
        self.pairs.clear();
        self.diverged = None;
        self.steps = 0;
        self.switched_at_ns = None;
        self.error = res.err();
    }

    /// Warms both runs for about `budget_ms`; when both are warm, brings them to the same
    /// instant (a deterministic run reaches one state at one time however it was sliced),
    /// switches B to its kernel and starts both counting there. Returns whether it finished.
    fn warm(&mut self, budget_ms: f64, clock: &dyn Fn() -> f64) -> bool {
        if !self.warming {
            return false;
        }
        let a_done = self.baseline.work(budget_ms / 2.0, clock) || self.baseline.pending.is_none();
        let b_done = self.compare.work(budget_ms / 2.0, clock) || self.compare.pending.is_none();
        if !(a_done && b_done) {
            return false;
        }
        self.warming = false;
        let (Some(a), Some(b), Some(from)) = (
            self.baseline.sim.as_mut(),
            self.compare.sim.as_mut(),
            self.built_from.as_ref(),
        ) else {
            return true;
        };
        let t = a.now_ns().max(b.now_ns());
        a.step_until(t);
        b.step_until(t);
        if let Err(e) = b.switch_kernel(&from.compare) {
            self.error = Some(e.to_string());
        }
        a.restart_counting();
        b.restart_counting();
        self.switched_at_ns = Some(t);
        self.baseline.after_change();
        self.compare.after_change();
        true
    }

    /// Starts a warm start that waits for the first Step (a click of any stepper).
    fn start_if_waiting(&mut self) {
        if let Some(from) = self.waiting.take() {
            self.started = true;
            self.build(from);
            self.warm(FIRST_SLICE_MS, &crate::canvas::now_ms);
        }
    }

    /// Pairs the runs' newest decisions (up to `n`), oldest first: after a jump in time the
    /// rows show what each run did last.
    fn pair_newest(&mut self, n: usize) {
        let take = |r: &Runner| -> Vec<Decision> {
            r.sim.as_ref().map_or(Vec::new(), |s| {
                let d = s.decisions();
                d.iter().skip(d.len().saturating_sub(n)).cloned().collect()
            })
        };
        let (a, b) = (take(&self.baseline), take(&self.compare));
        for (baseline, compare) in a.into_iter().zip(b) {
            self.pairs.push(DecisionPair { baseline, compare });
        }
        let extra = self.pairs.len().saturating_sub(PAIRS);
        self.pairs.drain(..extra);
    }

    fn step(&mut self) -> bool {
        if self.warming {
            return false;
        }
        let (Some(sa), Some(sb)) = (self.baseline.step_decision(), self.compare.step_decision())
        else {
            return false;
        };
        let (Some(baseline), Some(compare)) = (
            self.baseline.decision(sa).cloned(),
            self.compare.decision(sb).cloned(),
        ) else {
            return false;
        };
        self.steps += 1;
        if self.diverged.is_none() && !same_wakeup(&baseline, &compare) {
            self.diverged = Some(self.steps);
        }
        self.pairs.push(DecisionPair { baseline, compare });
        if self.pairs.len() > PAIRS {
            self.pairs.remove(0);
        }
        true
    }
}

/// The presets (and overrides) to compare.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareSetup {
    pub baseline_preset: String,
    pub compare_preset: String,
    /// Feature overrides on top of the compare preset.
    pub compare_features: String,
    /// A change rebuilds both runs even with the same presets (a patch scenario was chosen).
    pub generation: u64,
    /// Both runs from t = 0, each with its own kernel, instead of one warm state.
    pub cold: bool,
}

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub scenario: Scenario,
    pub setup: CompareSetup,
    pub on_baseline: Callback<String>,
    pub on_compare: Callback<String>,
    pub on_compare_features: Callback<String>,
    pub on_cold: Callback<bool>,
    pub dark: bool,
}

fn decision_text(d: &Decision) -> String {
    format!(
        "{} {}{}",
        d.who(),
        d.outcome(),
        if found_idle(d) || d.missed_idle.is_empty() {
            String::new()
        } else {
            format!("; missed idle CPU(s) {:?}", d.missed_idle)
        }
    )
}

#[component]
pub fn ComparePanel(p: &CompareProps) -> Html {
    let pair = use_mut_ref(RunPair::default);
    let force = use_force_update();
    let baseline_ref = use_node_ref();
    let compare_ref = use_node_ref();
    let setup = &p.setup;

    // (Re)build both runs when the scenario or the presets change.
    let built = variant(&p.scenario, &setup.baseline_preset, "").and_then(|baseline| {
        let compare = variant(&p.scenario, &setup.compare_preset, &setup.compare_features)?;
        Ok(BuiltFrom {
            baseline,
            compare,
            generation: setup.generation,
            cold: setup.cold,
        })
    });
    {
        let mut pr = pair.borrow_mut();
        match built {
            Ok(from) => {
                if pr.built_from.as_ref() != Some(&from) && pr.waiting.as_ref() != Some(&from) {
                    if from.cold || pr.started {
                        pr.build(from);
                        // The first slice now, the rest on the next frames (the tab stays live).
                        pr.warm(FIRST_SLICE_MS, &crate::canvas::now_ms);
                    } else {
                        pr.built_from = None;
                        pr.baseline = Runner::default();
                        pr.compare = Runner::default();
                        pr.pairs.clear();
                        pr.waiting = Some(from);
                    }
                }
            }
            Err(e) => pr.error = Some(e),
        }
    }
    // Warm-up slices, one per frame, until both runs count.
    {
        let (pair, force) = (pair.clone(), force.clone());
        use_animation_frame(move |_| {
            let mut pr = pair.borrow_mut();
            if pr.warming {
                pr.warm(WARM_SLICE_MS, &crate::canvas::now_ms);
                drop(pr);
                force.force_update();
            }
        });
    }
    // Draw both CPU views after every render (each skips an unchanged frame).
    {
        let (pair, baseline_ref, compare_ref, dark) = (
            pair.clone(),
            baseline_ref.clone(),
            compare_ref.clone(),
            p.dark,
        );
        use_effect(move || {
            let pr = &mut *pair.borrow_mut();
            let newest = OverlayState::default();
            if let Some(c) = baseline_ref.cast::<HtmlCanvasElement>() {
                pr.baseline_canvas.draw(&c, &pr.baseline, &newest, dark);
            }
            if let Some(c) = compare_ref.cast::<HtmlCanvasElement>() {
                pr.compare_canvas.draw(&c, &pr.compare, &newest, dark);
            }
        });
    }
    let stepper = |n: u32, label: &str, testid: &str| {
        let (pair, force) = (pair.clone(), force.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            {
                let mut pr = pair.borrow_mut();
                // The first click starts the warm-up; steps follow once both runs count.
                pr.start_if_waiting();
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
                pr.start_if_waiting();
                if pr.warming {
                    return;
                }
                for r in [&mut pr.baseline, &mut pr.compare] {
                    if let Some(s) = r.sim.as_mut() {
                        s.run_for(100_000_000);
                    }
                    r.after_change();
                }
                let next = pr.steps + 1;
                pr.diverged.get_or_insert(next);
                pr.steps += 1;
                pr.pair_newest(12);
            }
            force.force_update();
        })
    };
    let on_reset = {
        let (pair, force) = (pair.clone(), force.clone());
        Callback::from(move |_: MouseEvent| {
            pair.borrow_mut().built_from = None;
            force.force_update();
        })
    };

    let pr = pair.borrow();
    let compare_name = if setup.compare_features.is_empty() {
        setup.compare_preset.clone()
    } else {
        format!("{} [{}]", setup.compare_preset, setup.compare_features)
    };
    let table = match (pr.baseline.sim.as_ref(), pr.compare.sim.as_ref()) {
        (Some(a), Some(b)) => {
            let (ca, ma, cb, mb) = (a.counters(), a.metrics(), b.counters(), b.metrics());
            let ms = |ns: u64| ns as f64 / 1e6;
            let window = match pr.switched_at_ns {
                Some(t0) => format!(
                    " · counted from the switch at {:.1} ms: A to {:.1} ms, B to {:.1} ms",
                    ms(t0),
                    ms(a.now_ns()),
                    ms(b.now_ns())
                ),
                None if setup.cold => format!(
                    " · cold start: both from t = 0, each its own kernel; counting after the warm-up (now {:.1} ms)",
                    ms(a.now_ns())
                ),
                None => format!(" · warming up (now {:.1} ms): nothing counted yet", ms(a.now_ns())),
            };
            html! {
            <table class="compare-table" data-testid="compare-table">
                <caption>{format!("baseline = {} · compare = {compare_name} · compare% = 100 × (compare − baseline) / baseline{window}",
                    setup.baseline_preset)}</caption>
                <thead><tr><th>{"quantity"}</th><th>{"baseline"}</th><th>{"compare%"}</th><th>{"compare"}</th></tr></thead>
                <tbody>
                { for TABLE.iter().map(|row| {
                    let (va, vb) = ((row.value)(ca, &ma), (row.value)(cb, &mb));
                    // A run with no counted wake-up has no value (its metrics' 0/0 defaults
                    // are not data): "–", never a number or a percentage.
                    let f = |v: f64, counted: bool| match (counted, row.fractional) {
                        (false, _) => "–".to_string(),
                        (true, true) => format!("{v:.3}"),
                        (true, false) => format!("{v:.0}"),
                    };
                    let (counted_a, counted_b) = (ca.wakeups > 0, cb.wakeups > 0);
                    let (pct, class) = pct_cell(va, vb, counted_a && counted_b, row.better);
                    html! { <tr data-testid={format!("compare-row-{}", row.name)}>
                        <td>{if crate::terms::term(row.name).is_empty() { html! {row.name} } else { super::kernel_term(row.name, row.name) }}</td><td class="num">{f(va, counted_a)}</td>
                        <td class={classes!("num", class)}>{pct}</td>
                        <td class="num">{f(vb, counted_b)}</td></tr> }
                }) }
                </tbody>
            </table>
            }
        }
        _ => html! {},
    };
    let diff = pr.pairs.last().map(|DecisionPair { baseline: da, compare: db }| {
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
        .filter(|p| same_wakeup(&p.baseline, &p.compare) && p.baseline.result != p.compare.result)
        .count();
    let log = html! {
        <table class="compare-log" data-testid="compare-log">
            <thead><tr><th>{"#"}</th><th>{"wake-up (A)"}</th><th>{"A → CPU"}</th><th>{"A checked"}</th><th>{"B → CPU"}</th><th>{"B checked"}</th></tr></thead>
            <tbody>
            { for pr.pairs.iter().rev().take(12).map(|DecisionPair { baseline: a, compare: b }| {
                let same = same_wakeup(a, b);
                let cls = if !same { "diverged" } else if a.result != b.result { "differs" } else { "" };
                // The same facts machine-readable, for the end-to-end tests (nr: "" = none).
                let nr = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
                let missed = |d: &Decision| d.missed_idle.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
                html! { <tr class={cls} data-testid="compare-pair" data-seq={a.id.seq.to_string()} data-same={same.to_string()}
                    data-a-cpu={a.result.to_string()} data-a-by={a.decided_by.map_or("", |r| r.name())}
                    data-a-probes={a.probes().to_string()} data-a-nr-before={nr(a.nr_before)}
                    data-a-nr-after={nr(a.nr_after)} data-a-missed={missed(a)}
                    data-b-cpu={b.result.to_string()} data-b-by={b.decided_by.map_or("", |r| r.name())}
                    data-b-probes={b.probes().to_string()} data-b-nr-before={nr(b.nr_before)}
                    data-b-nr-after={nr(b.nr_after)} data-b-missed={missed(b)}>
                    <td>{a.id.seq}</td>
                    <td>{format!("task {} by CPU {}{}", a.id.wakee, a.id.waker_cpu, if same { String::new() } else { format!(" (B: task {} by CPU {})", b.id.wakee, b.id.waker_cpu) })}</td>
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
        None if pr.waiting.is_some() => "Press Step both (or +10, +100): both runs then warm up under A's kernel, as the main view warms up, B switches to its kernel, and both count from there.".into(),
        None if setup.cold => "Cold start: both runs from t = 0 (every CPU idle), each with its own kernel from the first wake-up. Step: each takes its next wake-up decision.".into(),
        None if pr.warming => format!("Warming up both runs under A's kernel, as the main view warms up: {}.", pr.baseline.progress().unwrap_or_default()),
        None => format!("Both runs warmed up under A's kernel, then B switched to its kernel at {:.1} ms, as writing sched_features would; they count the same window. Step: each takes its next decision.", pr.switched_at_ns.unwrap_or(0) as f64 / 1e6),
    };
    html! {
        <div class="compare" data-testid="compare-view">
            <div class="bench-controls">
                <label>{"A (baseline) "}{preset_select("compare-preset-a", &setup.baseline_preset, None, Some(&p.scenario.nr_expr), p.on_baseline.clone())}</label>
                <label>{"B (compare) "}{preset_select("compare-preset-b", &setup.compare_preset, None, Some(&p.scenario.nr_expr), p.on_compare.clone())}</label>
                <label title="both runs from t = 0, each with its own kernel, instead of one warm state (the seed's corner case is a first wake-up)">
                    <input type="checkbox" data-testid="compare-cold" checked={setup.cold}
                        onchange={let f = p.on_cold.clone(); Callback::from(move |e: Event| f.emit(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()))} />
                    {" cold start"}</label>
                <label title="feature overrides on top of B, e.g. SIS_PROP=on,SIS_UTIL=off">{"B features "}
                    <input type="text" data-testid="compare-features" placeholder="SIS_PROP=on" value={setup.compare_features.clone()} onchange={on_input_change(p.on_compare_features.clone())} size="22" /></label>
                {stepper(1, "Step both", "compare-step")}
                {stepper(10, "+10", "compare-step-10")}
                {stepper(100, "+100", "compare-step-100")}
                <button data-testid="compare-run" onclick={run_ms} title="advance both runs by 100 ms of simulated time">{"+100 ms"}</button>
                <button data-testid="compare-reset" onclick={on_reset}>{"Reset"}</button>
            </div>
            if let Some(e) = pr.error.clone() { <div class="error" role="alert">{e}</div> }
            <p class="caption" data-testid="compare-note">{format!("Same topology, workload, load and seed ({}); only the kernel differs. ", p.scenario.seed)}{diverged_note}</p>
            <div class="compare-cpus">
                <figure><figcaption><span class="tag a">{"A"}</span>{setup.baseline_preset.clone()}</figcaption>
                    <canvas ref={baseline_ref} class="cpu-canvas" data-testid="compare-cpus-a" role="img" aria-label="CPU bars of the baseline run after its newest wake-up"></canvas></figure>
                <figure><figcaption><span class="tag b">{"B"}</span>{compare_name.clone()}</figcaption>
                    <canvas ref={compare_ref} class="cpu-canvas" data-testid="compare-cpus-b" role="img" aria-label="CPU bars of the compared run after its newest wake-up"></canvas></figure>
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
        let better_of = |name: &str| TABLE.iter().find(|r| r.name == name).unwrap().better;
        // SIS_UTIL's -87.9% sis_scanned is an improvement; a lower success rate is not.
        assert_eq!(change_class(-87.9, better_of("sis_scanned")), "better");
        assert_eq!(change_class(-5.0, better_of("success_rate%")), "worse");
        assert_eq!(change_class(164.9, better_of("wakeups")), "better");
        assert_eq!(change_class(12.0, better_of("wake-up latency us")), "worse");
        assert_eq!(change_class(30.0, better_of("sis_search")), "");
        assert_eq!(change_class(0.0, better_of("se_eff%")), "");
    }

    /// As in the sweep: a preset runs as the kernel, "your rule" is the scenario's preset with
    /// its rule, and without a rule that choice names what is missing.
    #[test]
    fn a_variant_is_a_preset_without_the_rule_or_the_rule_on_the_scenarios_preset() {
        let mut base =
            Scenario::from_pairs([("llc_weight", "8"), ("preset", "linux-6.7")]).unwrap();
        base.set_field("nr_expr", "llc_weight / 2").unwrap();
        let plain = variant(&base, "linux-5.15", "").unwrap();
        assert_eq!(
            (plain.preset.as_str(), plain.nr_expr.as_str()),
            ("linux-5.15", "")
        );
        let rule = variant(&base, crate::components::widgets::RULE_CHOICE, "").unwrap();
        assert_eq!(
            (rule.preset.as_str(), rule.nr_expr.as_str()),
            ("linux-6.7", "llc_weight / 2")
        );
        base.set_field("nr_expr", "").unwrap();
        let e = variant(&base, crate::components::widgets::RULE_CHOICE, "").unwrap_err();
        assert!(e.contains("needs a rule"), "{e}");
    }

    #[test]
    fn both_runs_warm_as_one_then_count_the_same_window_after_b_switches() {
        // Issue 27: both runs started cold at t = 0 and counted nothing for 400 ms.
        let base = Scenario::from_pairs([("llc_weight", "16"), ("load", "150")]).unwrap();
        let from = BuiltFrom {
            baseline: variant(&base, "linux-5.15", "").unwrap(),
            compare: variant(&base, "linux-6.0", "").unwrap(),
            generation: 0,
            cold: false,
        };
        let mut pr = RunPair::default();
        pr.build(from);
        // A clock where every look takes 1 ms: the warm-up takes many slices.
        let t = std::cell::Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 1.0);
            t.get()
        };
        let mut slices = 0;
        while !pr.warm(4.0, &clock) {
            assert!(!pr.step(), "no step while warming");
            slices += 1;
        }
        assert!(slices > 1 && !pr.warming, "{slices} slices");
        let (a, b) = (
            pr.baseline.sim.as_ref().unwrap(),
            pr.compare.sim.as_ref().unwrap(),
        );
        let t0 = pr.switched_at_ns.unwrap();
        assert!(t0 >= a.warmup_ns(), "counting starts after the warm-up");
        assert_eq!((a.now_ns(), b.now_ns()), (t0, t0));
        assert_eq!(a.wakeups_total(), b.wakeups_total(), "one state");
        assert_eq!(
            (a.scenario().preset.as_str(), b.scenario().preset.as_str()),
            ("linux-5.15", "linux-6.0")
        );
        for _ in 0..100 {
            assert!(pr.step());
        }
        let (a, b) = (
            pr.baseline.sim.as_ref().unwrap(),
            pr.compare.sim.as_ref().unwrap(),
        );
        assert!(a.counters().wakeups >= 100 && b.counters().wakeups >= 100);
        assert_eq!(pr.pairs.len(), 100);
        assert!(same_wakeup(&pr.pairs[0].baseline, &pr.pairs[0].compare));
    }

    #[test]
    fn a_quantity_without_data_shows_a_dash_not_a_percentage() {
        // Issue 27: run A counting while B had not started read "wakeups -100%" and
        // "se_eff +337.7%" coloured as good news.
        assert_eq!(pct_cell(0.0, 120.0, false, 1), ("–".to_string(), ""));
        assert_eq!(pct_cell(100.0, 23.0, false, 1), ("–".to_string(), ""));
        // Counted, but from zero: no finite percentage.
        assert_eq!(pct_cell(0.0, 5.0, true, -1), ("–".to_string(), ""));
        assert_eq!(pct_cell(0.0, 0.0, true, -1), ("+0.0%".to_string(), ""));
        assert_eq!(
            pct_cell(200.0, 100.0, true, -1),
            ("-50.0%".to_string(), "better")
        );
    }
}
