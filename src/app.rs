//! The app: UI state in a reducer, the Simulation in a `Runner` outside Yew state, one
//! requestAnimationFrame loop that advances it while playing and redraws the canvases.

use crate::components::controls::Controls;
use crate::components::cpu_view::CpuView;
use crate::components::decision_log::DecisionLog;
use crate::components::export::{ExportPanel, RunnerRef};
use crate::components::header::Header;
use crate::components::metrics::Metrics;
use crate::components::scan_curve::ScanCurve;
use crate::components::workbench::Workbench;
use crate::draw::cpus::{draw_cpus, layout, Overlay};
use crate::draw::curve::draw_scan_curve;
use crate::draw::hist::draw_scan_hist;
use crate::draw::Palette;
use crate::runner::{Runner, Snapshot};
use crate::state::{Action, UiState};
use crate::url::{self, Parsed, Theme, View};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::render::{request_animation_frame, AnimationFrame};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

/// How the app was started.
#[derive(Clone, Debug, PartialEq)]
pub struct Init {
    pub parsed: Parsed,
    /// Keep the page URL in sync (the full page); off for `mount()`ed instances.
    pub sync_url: bool,
    /// Global keyboard shortcuts (space, →); off for `mount()`ed instances.
    pub keyboard: bool,
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    pub init: Rc<Init>,
}

/// What the animation loop needs from UI state (copied on every render).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct Ctl {
    playing: bool,
    speed: u32,
    selected: Option<u64>,
    probe: Option<usize>,
    hidden: Option<u64>,
    guess: Option<(u64, u32)>,
    dark: bool,
}

/// What was last drawn, to skip identical frames.
#[derive(Default)]
struct Drawn {
    cpus: Option<(u64, Ctl, i32, u64)>,
    slow: Option<(u64, bool, i32, i32, u64)>,
}

fn perf_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn dpr() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0))
}

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

fn ctx2d(c: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    c.get_context("2d").ok()??.dyn_into().ok()
}

/// Sizes a chart canvas to its CSS box × devicePixelRatio; returns its CSS width.
fn fit_canvas(c: &HtmlCanvasElement, dpr: f64) -> i32 {
    let (w, h) = (c.client_width(), c.client_height());
    let (pw, ph) = (
        (w as f64 * dpr).round() as u32,
        (h as f64 * dpr).round() as u32,
    );
    if c.width() != pw {
        c.set_width(pw);
    }
    if c.height() != ph {
        c.set_height(ph);
    }
    w * 10_000 + h
}

fn draw_cpu_canvas(r: &mut Runner, drawn: &mut Drawn, canvas: &HtmlCanvasElement, c: &Ctl) {
    let cw = canvas.client_width();
    if cw <= 0 || r.sim.is_none() {
        return;
    }
    let dpr = dpr();
    let key = (r.version, *c, cw, (dpr * 100.0) as u64);
    let stale = r
        .layout
        .as_ref()
        .is_none_or(|l| (l.width - cw as f64).abs() > 0.5);
    if !stale && drawn.cpus == Some(key) {
        return;
    }
    if stale {
        let n = r
            .sim
            .as_ref()
            .map_or(0, |s| s.topology().nr_cpus() as usize);
        let l = layout(cw as f64, &r.groups, n);
        let _ = canvas.set_attribute("style", &format!("height:{}px", l.height));
        r.layout = Some(l);
    }
    let Some(lay) = r.layout.as_ref() else { return };
    let (pw, ph) = (
        (lay.width * dpr).round() as u32,
        (lay.height * dpr).round() as u32,
    );
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let Some(ctx) = ctx2d(canvas) else { return };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    let mut snaps = Vec::new();
    r.cpu_snaps(&mut snaps);
    let llcs = r.llc_snaps();
    let d = r.shown(c.selected, c.playing);
    let ov = d.map(|d| {
        let hidden = c.hidden == Some(d.seq);
        let shown = if hidden {
            0
        } else {
            c.probe
                .map_or(d.steps.len(), |p| (p + 1).min(d.steps.len()))
        };
        Overlay {
            missed: !crate::runner::found_idle(d),
            decision: d,
            shown,
            reveal: !hidden && shown >= d.steps.len(),
            guess: c.guess.filter(|g| g.0 == d.seq).map(|g| g.1),
        }
    });
    draw_cpus(&ctx, lay, &snaps, &llcs, ov.as_ref(), &Palette::of(c.dark));
    drawn.cpus = Some(key);
}

fn draw_slow(
    r: &Runner,
    drawn: &mut Drawn,
    curve: Option<HtmlCanvasElement>,
    hist: Option<HtmlCanvasElement>,
    dark: bool,
) -> bool {
    let dpr = dpr();
    let pal = Palette::of(dark);
    let cw = curve.as_ref().map_or(0, |c| fit_canvas(c, dpr));
    let hw = hist.as_ref().map_or(0, |c| fit_canvas(c, dpr));
    let key = (r.version, dark, cw, hw, (dpr * 100.0) as u64);
    if drawn.slow == Some(key) {
        return false;
    }
    if let (Some(c), Some(data)) = (curve.as_ref(), r.curve_data()) {
        if c.client_width() > 0 {
            if let Err(e) = draw_scan_curve(c, &data, &pal, dpr) {
                gloo::console::warn!(format!("scan-curve: {e}"));
            }
        }
    }
    if let (Some(c), Some(sim)) = (hist.as_ref(), r.sim.as_ref()) {
        if c.client_width() > 0 {
            if let Err(e) = draw_scan_hist(c, &sim.histogram().buckets, &pal, dpr) {
                gloo::console::warn!(format!("scan-hist: {e}"));
            }
        }
    }
    drawn.slow = Some(key);
    true
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let init = props.init.clone();
    let state = {
        let init = init.clone();
        use_reducer(move || {
            UiState::new(
                init.parsed.scenario.clone(),
                &init.parsed.view,
                init.parsed.errors.clone(),
            )
        })
    };
    let runner = use_mut_ref(Runner::default);
    let ctl = use_mut_ref(Ctl::default);
    let drawn = use_mut_ref(Drawn::default);
    let force = use_force_update();
    let cpu_ref = use_node_ref();
    let curve_ref = use_node_ref();
    let hist_ref = use_node_ref();

    // (Re)build the simulation when the scenario changed (validated by the reducer).
    if runner.borrow().generation != state.generation {
        let res =
            runner
                .borrow_mut()
                .rebuild(&state.scenario, state.generation, state.restore_step);
        if let Err(e) = res {
            gloo::console::error!(format!("sisviz: cannot build the simulation: {e}"));
        }
    }
    let dark = match state.theme {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::Auto => prefers_dark(),
    };
    *ctl.borrow_mut() = Ctl {
        playing: state.playing,
        speed: state.speed,
        selected: state.selected,
        probe: state.probe,
        hidden: state.hidden,
        guess: state.guess,
        dark,
    };

    // The animation loop: advance while playing, redraw what changed; dropped on unmount.
    {
        let (runner, ctl, drawn, force) =
            (runner.clone(), ctl.clone(), drawn.clone(), force.clone());
        let (cpu_ref, curve_ref, hist_ref) = (cpu_ref.clone(), curve_ref.clone(), hist_ref.clone());
        use_effect_with((), move |_| {
            let alive = Rc::new(Cell::new(true));
            let slot: Rc<RefCell<Option<AnimationFrame>>> = Rc::new(RefCell::new(None));
            let frame: Rc<dyn Fn(f64)> = Rc::new(move |ts: f64| {
                let c = *ctl.borrow();
                let mut rerender = false;
                let t0 = perf_now();
                {
                    let mut r = runner.borrow_mut();
                    let mut d = drawn.borrow_mut();
                    let dt = if r.last_ts > 0.0 {
                        (ts - r.last_ts).clamp(0.0, 50.0)
                    } else {
                        16.0
                    };
                    r.last_ts = ts;
                    if c.playing && r.sim.is_some() {
                        let want = (dt * c.speed as f64 * 1000.0) as u64;
                        let ran = r.advance(want.max(1), 8.0, &perf_now);
                        if dt > 0.0 {
                            r.achieved_speed =
                                r.achieved_speed * 0.9 + (ran as f64 / 1000.0 / dt) * 0.1;
                        }
                        if ts - r.last_spark_ts > 250.0 {
                            r.sample_spark();
                            r.last_spark_ts = ts;
                        }
                    }
                    if let Some(cv) = cpu_ref.cast::<HtmlCanvasElement>() {
                        draw_cpu_canvas(&mut r, &mut d, &cv, &c);
                    }
                    if ts - r.last_slow_ts >= 100.0 {
                        let drew = draw_slow(&r, &mut d, curve_ref.cast(), hist_ref.cast(), c.dark);
                        if drew {
                            r.last_slow_ts = ts;
                            rerender = c.playing;
                            if c.playing {
                                r.pin_newest();
                                d.cpus = None;
                            }
                        }
                    }
                    if c.playing {
                        // Whole frame: simulation + canvases (Yew's 10 Hz text render is extra).
                        let el = perf_now() - t0;
                        r.work_ms = r.work_ms * 0.9 + el * 0.1;
                    }
                }
                if rerender {
                    force.force_update();
                }
            });
            fn schedule(
                slot: Rc<RefCell<Option<AnimationFrame>>>,
                alive: Rc<Cell<bool>>,
                f: Rc<dyn Fn(f64)>,
            ) {
                let (s2, a2, f2) = (slot.clone(), alive.clone(), f.clone());
                let h = request_animation_frame(move |ts| {
                    if !a2.get() {
                        return;
                    }
                    f2(ts);
                    schedule(s2, a2, f2);
                });
                *slot.borrow_mut() = Some(h);
            }
            schedule(slot.clone(), alive.clone(), frame);
            move || {
                alive.set(false);
                slot.borrow_mut().take();
            }
        });
    }

    // Keep the URL in sync (replaceState, no reload).
    {
        let q = url::to_query(&state.scenario, &state.view_state());
        let sync = init.sync_url;
        use_effect_with(q, move |q| {
            if sync {
                if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
                    let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(q));
                }
            }
        });
    }

    // Actions that touch the simulation.
    let on_step = {
        let (runner, state) = (runner.clone(), state.clone());
        Callback::from(move |()| {
            let (seq, total) = runner.borrow_mut().step_for_ui();
            match seq {
                Some(seq) => {
                    state.dispatch(Action::Stepped {
                        seq,
                        total,
                        probe: None,
                    });
                    if state.predict {
                        state.dispatch(Action::Hide(seq));
                    }
                }
                None => state.dispatch(Action::ShowError(
                    "the run has no more events: press reset".into(),
                )),
            }
        })
    };
    let on_play = {
        let (runner, state) = (runner.clone(), state.clone());
        Callback::from(move |()| {
            if state.playing {
                // Pause on a decision boundary so `step=` in the URL restores exactly this state.
                let (seq, total) = runner.borrow_mut().step_for_ui();
                match seq {
                    Some(seq) => state.dispatch(Action::Stepped {
                        seq,
                        total,
                        probe: None,
                    }),
                    None => state.dispatch(Action::Paused { total }),
                }
            } else {
                state.dispatch(Action::SetPlaying(true));
            }
        })
    };
    let on_probe = {
        let (runner, state, on_step) = (runner.clone(), state.clone(), on_step.clone());
        Callback::from(move |()| {
            if state.hidden.is_some() {
                return; // predict mode: guess first
            }
            let cur = {
                let r = runner.borrow();
                let newest = r.newest().map(|d| d.seq);
                state
                    .selected
                    .and_then(|s| r.decision(s))
                    .or_else(|| r.newest())
                    .map(|d| (d.seq, d.steps.len(), Some(d.seq) == newest))
            };
            match (cur, state.probe) {
                (Some((_, len, _)), Some(p)) if p + 1 < len => {
                    state.dispatch(Action::SetProbe(Some(p + 1)))
                }
                (Some((seq, len, false)), None) if len > 0 => {
                    state.dispatch(Action::Select(Some(seq)));
                    state.dispatch(Action::SetProbe(Some(0)));
                }
                _ => {
                    let (seq, total) = runner.borrow_mut().step_for_ui();
                    match seq {
                        Some(seq) => state.dispatch(Action::Stepped {
                            seq,
                            total,
                            probe: Some(0),
                        }),
                        None => on_step.emit(()),
                    }
                }
            }
        })
    };
    let on_reset = {
        let state = state.clone();
        Callback::from(move |()| state.dispatch(Action::Reset))
    };
    let on_canvas_click = {
        let (runner, state) = (runner.clone(), state.clone());
        Callback::from(move |e: MouseEvent| {
            let r = runner.borrow();
            let Some(cpu) = r
                .layout
                .as_ref()
                .and_then(|l| l.hit(e.offset_x() as f64, e.offset_y() as f64))
            else {
                return;
            };
            if let Some(seq) = state.hidden {
                if let Some(d) = r.decision(seq) {
                    let right = d.result == cpu;
                    let rule = d.decided_by;
                    let text = format!(
                        "{} You picked CPU {cpu}; the kernel picked CPU {}, decided by {} in {}.",
                        if right { "Right!" } else { "Not this time." },
                        d.result,
                        rule.map_or("-", |r| r.name()),
                        rule.map_or("-", |r| r.kernel_function()),
                    );
                    state.dispatch(Action::Guessed {
                        seq,
                        cpu,
                        right,
                        text,
                    });
                }
            }
        })
    };
    let on_select = {
        let state = state.clone();
        Callback::from(move |seq: u64| state.dispatch(Action::Select(Some(seq))))
    };
    let on_scenario = {
        let state = state.clone();
        Callback::from(move |kv| state.dispatch(Action::SetFields(kv)))
    };
    let on_theme = {
        let state = state.clone();
        Callback::from(move |t: Theme| state.dispatch(Action::SetTheme(t)))
    };

    // Keyboard: space = play/pause, → = step (not while typing in a field).
    {
        let latest = use_mut_ref(|| None::<(Callback<()>, Callback<()>)>);
        *latest.borrow_mut() = Some((on_play.clone(), on_step.clone()));
        let enabled = init.keyboard;
        use_effect_with((), move |_| {
            let listener = enabled.then(|| {
                let window = gloo::utils::window();
                EventListener::new_with_options(
                    &window,
                    "keydown",
                    EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                            return;
                        };
                        if e.ctrl_key() || e.meta_key() || e.alt_key() {
                            return;
                        }
                        let tag = e
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                            .map(|el| el.tag_name().to_ascii_lowercase())
                            .unwrap_or_default();
                        if matches!(
                            tag.as_str(),
                            "input" | "select" | "textarea" | "button" | "summary"
                        ) {
                            return;
                        }
                        let Some((play, step)) = latest.borrow().clone() else {
                            return;
                        };
                        match e.key().as_str() {
                            " " => {
                                e.prevent_default();
                                play.emit(());
                            }
                            "ArrowRight" => {
                                e.prevent_default();
                                step.emit(());
                            }
                            _ => {}
                        }
                    },
                )
            });
            move || drop(listener)
        });
    }

    // Snapshot for the text views.
    let (snap, detail) = {
        let r = runner.borrow();
        let snap = Rc::new(r.snapshot());
        let detail = r.shown(state.selected, state.playing).cloned();
        (snap, detail)
    };
    let _ = &force;
    let caption = caption_for(&snap, detail.as_ref(), &state);
    let predict = predict_box(&state);
    let sc = &state.scenario;

    let errors = if state.errors.is_empty() {
        html! {}
    } else {
        let st = state.clone();
        let dismiss = Callback::from(move |_: MouseEvent| st.dispatch(Action::ClearErrors));
        html! {
            <div class="error" role="alert" data-testid="error">
                { for state.errors.iter().map(|e| html!{ <div>{e}</div> }) }
                <button class="ghost" onclick={dismiss} aria-label="dismiss">{"×"}</button>
            </div>
        }
    };
    let controls = |compact: bool| {
        html! {
            <Controls state={state.clone()} on_play={on_play.clone()} on_step={on_step.clone()}
                on_probe={on_probe.clone()} on_reset={on_reset.clone()} {compact} />
        }
    };
    let cpu_view = html! {
        <CpuView canvas={cpu_ref.clone()} onclick={on_canvas_click.clone()} caption={caption}
            predict={predict} predicting={state.hidden.is_some()} />
    };
    let curve = html! {
        <ScanCurve canvas={curve_ref.clone()} llc_weight={sc.llc_weight} imbalance_pct={sc.imbalance_pct}
            sis_util={snap.sis_util} sis_prop={snap.sis_prop} />
    };
    let metrics = html! { <Metrics snap={snap.clone()} hist_canvas={hist_ref.clone()} /> };
    let log = html! {
        <DecisionLog decisions={snap.decisions.clone()} detail={detail.clone()} selected={state.selected}
            probe={state.probe} hidden={state.hidden} on_select={on_select} />
    };
    let export = {
        let (st, st2) = (state.clone(), state.clone());
        let on_load = Callback::from(move |sc: sis_core::Scenario| {
            let kv = sc
                .to_pairs()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            st.dispatch(Action::SetFields(kv));
        });
        let on_error = Callback::from(move |e: String| st2.dispatch(Action::ShowError(e)));
        let canvases = vec![
            (AttrValue::from("cpu-bars"), cpu_ref.clone()),
            (AttrValue::from("scan-curve"), curve_ref.clone()),
            (AttrValue::from("scan-hist"), hist_ref.clone()),
        ];
        html! { <ExportPanel runner={RunnerRef(runner.clone())} scenario={state.scenario.clone()}
        version={snap.version} {canvases} {on_load} {on_error} /> }
    };
    let theme_class = if dark { "theme-dark" } else { "theme-light" };
    let body = match (state.embed, state.view) {
        (true, View::Curve) => html! { <>{errors}{controls(true)}{curve}</> },
        (true, View::Cpus) => html! { <>{errors}{controls(true)}{cpu_view}</> },
        (true, View::Trace) => html! { <>{errors}{controls(true)}{log}</> },
        (true, View::Full) => {
            html! { <>{errors}{controls(true)}{cpu_view}<div class="row2">{curve}{metrics}</div>{log}</> }
        }
        (false, _) => html! { <>
            <Header theme={state.theme} dark={dark} on_theme={on_theme}
                query={url::to_query(&state.scenario, &state.view_state())} />
            {errors}
            {controls(false)}
            {cpu_view}
            <div class="row2">{curve}{metrics}</div>
            {log}
            {export}
            <Workbench scenario={state.scenario.clone()} dark={dark} on_scenario={on_scenario} />
            <footer class="foot">
                {"Keyboard: space = play/pause, → = step. Hover a dotted term for what it means. "}
                {"The URL always holds the whole state: copy it to share."}
            </footer>
        </> },
    };
    html! {
        <div class={classes!("sisviz", theme_class, state.embed.then_some("embed"), format!("view-{}", state.view.name()))}>
            {body}
        </div>
    }
}

fn caption_for(snap: &Snapshot, d: Option<&sis_core::trace::Decision>, state: &UiState) -> Html {
    let Some(d) = d else {
        return html! { <>{format!("{} CPUs. Press ", snap.nr_cpus)}<b>{"Play"}</b>{" to run, or "}<b>{"Step"}</b>{" for one wake-up."}</> };
    };
    if state.playing {
        return html! { <>{format!("Playing · wake-up #{} · task {} woken by CPU {} → CPU {} ({})", d.seq, d.wakee, d.waker_cpu, d.result, d.decided_by.map_or("-", |r| r.name()))}</> };
    }
    if state.hidden == Some(d.seq) {
        return html! { <>{format!("Wake-up #{}: task {} woken by CPU {} (W); prev CPU {} (P); target CPU {} (T). Where does it go?", d.seq, d.wakee, d.waker_cpu, d.prev, d.target)}</> };
    }
    let shown = state
        .probe
        .map_or(d.steps.len(), |p| (p + 1).min(d.steps.len()));
    if shown < d.steps.len() {
        let s = d.steps[shown.saturating_sub(1)];
        return html! { <>{format!("Wake-up #{}, check {} of {}: {} looks at CPU {} and sees {}{}", d.seq, shown, d.steps.len(), s.rule.kernel_function(), s.cpu, s.saw.name(), s.nr.map_or(String::new(), |n| format!("; budget left nr = {n}")))}</> };
    }
    html! { <>{format!(
        "Wake-up #{}: task {} woken by CPU {}; prev {}, target {} → CPU {} by {} after {} probe{}{}",
        d.seq, d.wakee, d.waker_cpu, d.prev, d.target, d.result,
        d.decided_by.map_or("-", |r| r.name()), d.probes(), if d.probes() == 1 { "" } else { "s" },
        if d.missed_idle.is_empty() || crate::runner::found_idle(d) { String::new() } else { format!("; {} idle CPU(s) never probed", d.missed_idle.len()) }
    )}</> }
}

fn predict_box(state: &UiState) -> Html {
    if !state.predict {
        return html! {};
    }
    let score = format!("score {}/{}", state.score.0, state.score.1);
    let body = match (&state.verdict, state.hidden) {
        (_, Some(_)) => {
            html! { <span>{"Click the CPU you think select_idle_sibling() will pick."}</span> }
        }
        (Some((right, text)), None) => {
            html! { <span class={if *right { "right" } else { "wrong" }}>{text.clone()}</span> }
        }
        (None, None) => {
            html! { <span>{"Press Step: the next wake-up is shown without its result."}</span> }
        }
    };
    html! { <div class="predict-box" data-testid="predict-box" aria-live="polite"><b>{"Predict · "}{score}</b>{" "}{body}</div> }
}
