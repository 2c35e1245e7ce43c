//! The app: UI state in a reducer (`state`), the Simulation in a `Runner` and the canvases'
//! drawing state in a `MainView`, both outside Yew state; `use_animation_frame` runs the
//! `MainView` every frame. The panels get the state's fields and narrow callbacks.

use crate::canvas;
use crate::components::controls::Controls;
use crate::components::cpu_view::{self, CpuView};
use crate::components::decision_log::DecisionLog;
use crate::components::export::{ExportPanel, RunnerRef};
use crate::components::header::Header;
use crate::components::metrics::Metrics;
use crate::components::scan_curve::ScanCurve;
use crate::components::workbench::Workbench;
use crate::cpu_canvas::OverlayState;
use crate::hooks::{use_animation_frame, use_keyboard_shortcuts, Shortcuts};
use crate::main_view::{FrameInputs, MainCanvases, MainView};
use crate::runner::{Runner, Start};
use crate::state::{Action, UiState};
use crate::url::{self, Parsed, Theme, View};
use std::rc::Rc;
use yew::prelude::*;

/// Real time the render that rebuilds the simulation spends on its replay or warm-up (the
/// rest runs one slice per animation frame), ms.
const FIRST_SLICE_MS: f64 = 25.0;
/// Scenario changes closer together than this (typing a number) make one history entry, ms.
const HISTORY_SETTLE_MS: f64 = 800.0;

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
    // `?`: every term's explanation shown in place (no tab stop per term).
    let explain = use_state(|| false);
    let main_view = use_mut_ref(MainView::default);
    let force = use_force_update();
    let canvases = use_memo((), |_| MainCanvases::default());
    let maps = main_view.borrow().maps.clone();

    // (Re)build the simulation when the scenario changed (validated by the reducer).
    if runner.borrow().generation != state.generation {
        let start = match (state.restore_step, state.cold) {
            (Some(n), _) => Start::Replay(n),
            (None, true) => Start::Cold,
            (None, false) => Start::Warm,
        };
        let res = runner
            .borrow_mut()
            .rebuild_pending(&state.scenario, state.generation, start);
        // The first slice now: a short replay (or warm-up) is done before the first paint.
        if res.is_ok() {
            runner.borrow_mut().work(FIRST_SLICE_MS, &canvas::now_ms);
        }
        if let Err(e) = res {
            gloo::console::error!(format!("sisviz: cannot build the simulation: {e}"));
        }
    }
    let dark = match state.theme {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::Auto => canvas::prefers_dark(),
    };
    let inputs = FrameInputs {
        playing: state.playing,
        speed: state.speed,
        overlay: OverlayState {
            selected: state.selected,
            playing: state.playing,
            probe: state.probe,
            hidden: state.hidden,
            guess: state.guess,
        },
        dark,
    };

    // The animation loop: advance while playing, redraw what changed; stopped on unmount.
    {
        let (runner, main_view, force, canvases) = (
            runner.clone(),
            main_view.clone(),
            force.clone(),
            canvases.clone(),
        );
        use_animation_frame(move |ts| {
            let rerender =
                main_view
                    .borrow_mut()
                    .frame(ts, &mut runner.borrow_mut(), &inputs, &canvases);
            if rerender {
                // The frame ends after the render (the effect below).
                force.force_update();
            } else {
                main_view
                    .borrow_mut()
                    .frame_end(&mut runner.borrow_mut(), &canvases.cpus);
            }
        });
    }
    // After each render: a text frame's work ends here (nothing to do for other renders).
    {
        let (runner, main_view, cpus) = (runner.clone(), main_view.clone(), canvases.cpus.clone());
        use_effect(move || {
            main_view
                .borrow_mut()
                .frame_end(&mut runner.borrow_mut(), &cpus)
        });
    }

    // Keep the URL in sync, no reload: a settled change of the scenario is a new history
    // entry (Back undoes it; changes less than HISTORY_SETTLE_MS apart, like typing, make one),
    // anything else (steps, selection, speed) replaces the current one.
    {
        let q = url::to_query(&state.scenario, &state.view_state());
        let scenario_q = url::to_query(&state.scenario, &url::ViewState::default());
        let sync = init.sync_url;
        // An iframe embed's entries would join its host page's history: it only replaces.
        let push = !state.embed;
        let last = use_mut_ref(|| (String::new(), 0.0f64));
        use_effect_with(q, move |q| {
            let win = web_sys::window();
            let here = win.as_ref().and_then(|w| w.location().search().ok());
            if let (true, Some(h)) = (sync, win.and_then(|w| w.history().ok())) {
                let mut last = last.borrow_mut();
                let now = canvas::now_ms();
                let null = wasm_bindgen::JsValue::NULL;
                if here.as_deref() == Some(q.as_str()) {
                    // Back/Forward brought this state: nothing to write.
                } else if push
                    && !last.0.is_empty()
                    && last.0 != scenario_q
                    && now - last.1 > HISTORY_SETTLE_MS
                {
                    let _ = h.push_state_with_url(&null, "", Some(q));
                    last.1 = now;
                } else {
                    let _ = h.replace_state_with_url(&null, "", Some(q));
                    if last.0 != scenario_q {
                        last.1 = now;
                    }
                }
                last.0 = scenario_q;
            }
        });
    }
    // Back and Forward restore the scenario and view that entry holds.
    {
        let (state, sync) = (state.clone(), init.sync_url);
        use_effect_with((), move |_| {
            let listener = web_sys::window().filter(|_| sync).map(|w| {
                gloo::events::EventListener::new(&w, "popstate", move |_| {
                    let q = web_sys::window()
                        .and_then(|w| w.location().search().ok())
                        .unwrap_or_default();
                    state.dispatch(Action::Restore(Rc::new(url::parse_query(&q))));
                })
            });
            move || drop(listener)
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
                let newest = r.newest().map(|d| d.id.seq);
                state
                    .selected
                    .and_then(|s| r.decision(s))
                    .or_else(|| r.newest())
                    .map(|d| (d.id.seq, d.steps.len(), Some(d.id.seq) == newest))
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
    // The editor's "sweep your rule" asks the workbench (by a new token) to run it.
    let sweep_rule = use_state(|| 0u32);
    let on_sweep_rule = (!state.embed).then(|| {
        let sweep_rule = sweep_rule.clone();
        Callback::from(move |()| sweep_rule.set(*sweep_rule + 1))
    });
    let on_nr_expr = {
        let state = state.clone();
        Callback::from(move |value: String| {
            state.dispatch(Action::SetField {
                name: "nr_expr".into(),
                value,
            })
        })
    };
    let on_reset = {
        let state = state.clone();
        Callback::from(move |()| state.dispatch(Action::Reset))
    };
    let on_canvas_click = {
        let (runner, main_view, state) = (runner.clone(), main_view.clone(), state.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(seq) = state.hidden else { return };
            let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
            let Some(cpu) = main_view.borrow().cpu_canvas.hit(x, y) else {
                return;
            };
            let r = runner.borrow();
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
        })
    };
    let on_select = {
        let state = state.clone();
        Callback::from(move |seq: u64| state.dispatch(Action::Select(Some(seq))))
    };
    // The same callback on every render, so the 10 Hz text refresh while playing does not
    // re-render the workbench (its compare tab redraws its canvases after each render).
    let on_scenario = use_callback(state.dispatcher(), |kv, d| {
        d.dispatch(Action::SetFields(kv))
    });
    let on_theme = {
        let state = state.clone();
        Callback::from(move |t: Theme| state.dispatch(Action::SetTheme(t)))
    };

    use_keyboard_shortcuts(
        init.keyboard,
        Shortcuts {
            play_pause: on_play.clone(),
            step: on_step.clone(),
            explain: {
                let explain = explain.clone();
                Callback::from(move |()| explain.set(!*explain))
            },
        },
    );

    // Snapshot for the text views.
    let (snap, detail) = {
        let r = runner.borrow();
        let snap = Rc::new(r.snapshot());
        let detail = r.shown(state.selected, state.playing).cloned();
        (snap, detail)
    };
    let caption = cpu_view::caption(&snap, detail.as_ref(), &state);
    let cpu_label = AttrValue::from(cpu_view::label(&snap, detail.as_ref(), &state));
    let predict = cpu_view::predict_box(&state);
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
    let progress = match runner.borrow().progress() {
        Some(p) => html! { <div class="progress" role="status" data-testid="progress">{p}</div> },
        None => html! {},
    };
    let errors = html! { <>{errors}{progress}</> };
    let controls = |compact: bool| {
        html! {
            <Controls state={state.clone()} on_play={on_play.clone()} on_step={on_step.clone()}
                on_probe={on_probe.clone()} on_reset={on_reset.clone()} {compact} />
        }
    };
    let cpu_view = html! {
        <CpuView canvas={canvases.cpus.clone()} onclick={on_canvas_click.clone()} caption={caption}
            predict={predict} predicting={state.hidden.is_some()} label={cpu_label} />
    };
    let curve = html! {
        <ScanCurve canvas={canvases.curve.clone()} map={maps.curve.clone()} llc_weight={sc.llc_weight} imbalance_pct={sc.imbalance_pct}
            sis_util={snap.sis_util} sis_prop={snap.sis_prop} util_pct={snap.util_balance_pct}
            nr_idle_scan={snap.nr_idle_scan} nr_expr={AttrValue::from(sc.nr_expr.clone())}
            on_nr_expr={on_nr_expr} on_sweep_rule={on_sweep_rule} />
    };
    let metrics = html! { <Metrics snap={snap.clone()} hist_canvas={canvases.hist.clone()}
    hist_map={maps.hist.clone()} spark_se_eff={canvases.spark_se_eff.clone()}
    spark_scanned={canvases.spark_scanned.clone()} /> };
    let log = html! {
        <DecisionLog decisions={snap.decisions.clone()} detail={detail.clone()} selected={state.selected}
            probe={state.probe} hidden={state.hidden} on_select={on_select}
            counted_after_seq={if snap.measuring { snap.counted_after_seq } else { u64::MAX }} />
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
            (AttrValue::from("cpu-bars"), canvases.cpus.clone()),
            (AttrValue::from("scan-curve"), canvases.curve.clone()),
            (AttrValue::from("scan-hist"), canvases.hist.clone()),
        ];
        html! { <ExportPanel runner={RunnerRef(runner.clone())} scenario={state.scenario.clone()}
        version={snap.version} {canvases} {on_load} {on_error} /> }
    };
    let theme_class = if dark { "theme-dark" } else { "theme-light" };
    let on_explain = {
        let explain = explain.clone();
        Callback::from(move |_: MouseEvent| explain.set(!*explain))
    };
    // An iframe embed of one view fits its frame (the window); a mounted one or the full view
    // takes the height it needs.
    let fit = state.embed && init.sync_url && state.view != View::Full;
    main_view.borrow_mut().cpu_canvas.fit_window = fit;
    // An embed shows play, step and a link to the full app; `controls=1` the control panel
    // instead, `controls=0` nothing but its view.
    let embed_controls = match state.controls {
        url::EmbedControls::Full => controls(true),
        url::EmbedControls::Hidden => html! {},
        url::EmbedControls::Bar => {
            let open = url::to_query(
                &state.scenario,
                &url::ViewState {
                    theme: state.theme,
                    ..Default::default()
                },
            );
            let (play, step, probe) = (on_play.clone(), on_step.clone(), on_probe.clone());
            html! {
                <div class="embed-bar" data-testid="embed-bar">
                    <button data-testid="play" aria-pressed={state.playing.to_string()} onclick={move |_| play.emit(())}
                        title="Play / pause (space)">{if state.playing { "❚❚ Pause" } else { "▶ Play" }}</button>
                    <button data-testid="step" onclick={move |_| step.emit(())}
                        title="The next wake-up decision (→)">{"Step →"}</button>
                    <button data-testid="step-probe" onclick={move |_| probe.emit(())}
                        title="Walk the decision one check at a time">{"Step probe ›"}</button>
                    <a data-testid="open-app" href={format!("{}{open}", state.app)} target="_blank" rel="noopener">{"open in sisviz ↗"}</a>
                </div>
            }
        }
    };
    let body = match (state.embed, state.view) {
        (true, View::Curve) => html! { <>{errors}{embed_controls}{curve}</> },
        (true, View::Cpus) => html! { <>{errors}{embed_controls}{cpu_view}</> },
        (true, View::Trace) => html! { <>{errors}{embed_controls}{log}</> },
        (true, View::Full) => {
            html! { <>{errors}{embed_controls}{cpu_view}<div class="row2">{curve}{metrics}</div>{log}</> }
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
            <Workbench scenario={state.scenario.clone()} dark={dark} on_scenario={on_scenario}
                sweep_rule={*sweep_rule} />
            <footer class="foot">
                <button class="ghost" data-testid="explain" aria-pressed={explain.to_string()} onclick={on_explain}>
                    {if *explain { "Hide the terms' explanations" } else { "Explain every term (?)" }}</button>
                {" Keyboard: space = play/pause, → = step, ? = explain every dotted term in place. Hover one for what it means; a focused control explains its own under the controls. "}
                {"The URL always holds the whole state: copy it to share."}
            </footer>
        </> },
    };
    let class = classes!(
        "sisviz",
        theme_class,
        state.embed.then_some("embed"),
        fit.then_some("fit"),
        explain.then_some("explain"),
        format!("view-{}", state.view.name())
    );
    // An embed has no header: its heading is for screen readers.
    let heading = if state.embed {
        html! { <h1 class="sr-only">{format!("sisviz: select_idle_sibling(), the {} view", state.view.name())}</h1> }
    } else {
        html! {}
    };
    // The page's own instance is its main landmark; a `mount()`ed one lives in its host's.
    if init.sync_url {
        html! { <main {class}>{heading}{body}</main> }
    } else {
        html! { <div {class}>{heading}{body}</div> }
    }
}
