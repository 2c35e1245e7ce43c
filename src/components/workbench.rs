//! The workbench under the main view: compare two kernels on one scenario, sweep load in a
//! worker, a two-parameter heatmap, and the patches' scenarios. Owns the workbench state
//! (`crate::workbench_state`) and hands each panel its fields and callbacks; the scenario
//! (topology, workload, seed, ...) is the app's.

use super::compare::{ComparePanel, CompareSetup};
use super::heatmap::HeatmapPanel;
use super::patch_scenarios::PatchScenarioList;
use super::sweep::{SweepPanel, SweepSetup};
use super::widgets::{PoolSetup, RULE_CHOICE};
use crate::patches::{split, PatchScenario};
use crate::workbench_state::{Tab, WorkbenchAction, WorkbenchState};
use sis_core::Scenario;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkbenchProps {
    pub scenario: Scenario,
    pub dark: bool,
    /// Replace the app's scenario (a patch scenario was chosen): every scenario field.
    pub on_scenario: Callback<Vec<(String, String)>>,
    /// Each new value runs the scenario's rule against linux-6.0 on seed 000's netperf sweep.
    #[prop_or_default]
    pub sweep_rule: u32,
}

/// A callback that dispatches `action(value)` to the workbench.
fn send(
    state: &UseReducerHandle<WorkbenchState>,
    action: fn(String) -> WorkbenchAction,
) -> Callback<String> {
    let state = state.clone();
    Callback::from(move |v| state.dispatch(action(v)))
}

#[component]
pub fn Workbench(p: &WorkbenchProps) -> Html {
    let state = use_reducer(WorkbenchState::default);
    let tab_button = |t: Tab, label: &str| {
        let to = state.clone();
        let onclick = Callback::from(move |_: MouseEvent| to.dispatch(WorkbenchAction::ShowTab(t)));
        let on = state.tab == t;
        html! {
            <button role="tab" aria-selected={on.to_string()} class={classes!("tab", on.then_some("on"))}
                data-testid={format!("tab-{}", t.name())} {onclick}>{label}</button>
        }
    };
    let on_baseline = send(&state, WorkbenchAction::SetBaselinePreset);
    let on_compare = send(&state, WorkbenchAction::SetComparePreset);
    let on_choose = {
        let (state, on_scenario) = (state.clone(), p.on_scenario.clone());
        Callback::from(move |(s, rule): (&'static PatchScenario, Option<String>)| {
            let (mut pairs, mut bench) = split(s);
            if let Some(rule) = rule {
                // The user's rule against linux-6.0, both on linux-6.0's path.
                pairs.push(("preset".into(), "linux-6.0".into()));
                pairs.push(("nr_expr".into(), rule));
                bench.retain(|(k, _)| k != "presets");
                bench.push(("presets".into(), format!("linux-6.0,{RULE_CHOICE}")));
            }
            let get = |k: &str| bench.iter().find(|(x, _)| x == k).map(|x| x.1.clone());
            let Ok(scenario) =
                Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            else {
                return;
            };
            on_scenario.emit(pairs);
            state.dispatch(WorkbenchAction::LoadPatchScenario {
                tab: if get("tab").as_deref() == Some("compare") {
                    Tab::Compare
                } else {
                    Tab::Sweep
                },
                presets: get("presets")
                    .map(|v| v.split(',').map(String::from).collect())
                    .unwrap_or_default(),
                loads: get("loads"),
                cold: get("cold").as_deref() == Some("1"),
                scenario: Box::new(scenario),
            });
        })
    };
    // The editor's "sweep your rule": seed 000's netperf sweep, linux-6.0 against the rule.
    let section = use_node_ref();
    {
        let (on_choose, rule, section) = (
            on_choose.clone(),
            p.scenario.nr_expr.clone(),
            section.clone(),
        );
        use_effect_with(p.sweep_rule, move |&n| {
            let netperf = crate::patches::PATCH_SCENARIOS
                .iter()
                .find(|s| s.id == "sis-util-netperf");
            if let (true, Some(s)) = (n > 0 && !rule.is_empty(), netperf) {
                on_choose.emit((s, Some(rule)));
                if let Some(el) = section.cast::<web_sys::Element>() {
                    el.scroll_into_view();
                }
            }
        });
    }
    let pool = PoolSetup {
        seeds: state.seeds.clone(),
        workers: state.workers.clone(),
        on_seeds: send(&state, WorkbenchAction::SetSeeds),
        on_workers: send(&state, WorkbenchAction::SetWorkers),
    };
    let body = match state.tab {
        Tab::Compare => html! {
            <ComparePanel scenario={p.scenario.clone()} dark={p.dark}
                setup={CompareSetup {
                    baseline_preset: state.baseline_preset.clone(),
                    compare_preset: state.compare_preset.clone(),
                    compare_features: state.compare_features.clone(),
                    generation: state.compare_generation,
                    cold: state.compare_cold,
                }}
                on_cold={let st = state.clone(); Callback::from(move |v| st.dispatch(WorkbenchAction::SetCompareCold(v)))}
                {on_baseline} {on_compare}
                on_compare_features={send(&state, WorkbenchAction::SetCompareFeatures)} />
        },
        Tab::Sweep => html! {
            <SweepPanel scenario={p.scenario.clone()} dark={p.dark}
                setup={SweepSetup {
                    baseline_preset: state.baseline_preset.clone(),
                    compare_preset: state.compare_preset.clone(),
                    loads: state.loads.clone(),
                    seeds: state.seeds.clone(),
                }}
                request={state.sweep_request.clone()}
                on_baseline_preset={on_baseline} on_compare_preset={on_compare}
                on_loads={send(&state, WorkbenchAction::SetLoads)}
                pool={pool} />
        },
        Tab::Heatmap => html! {
            <HeatmapPanel scenario={p.scenario.clone()} dark={p.dark}
                preset={state.baseline_preset.clone()} on_preset={on_baseline} {pool} />
        },
        Tab::Replay => html! { <ReplayHost /> },
    };
    html! {
        <section class="panel workbench" data-testid="workbench" ref={section}>
            <div class="panel-head">
                <h2>{"Compare · sweep · reproduce the patches"}</h2>
                <div class="tabs" role="tablist">
                    {tab_button(Tab::Compare, "Compare two kernels")}
                    {tab_button(Tab::Sweep, "Load sweep")}
                    {tab_button(Tab::Heatmap, "Heatmap")}
                    {tab_button(Tab::Replay, "Replay a trace")}
                </div>
            </div>
            <PatchScenarioList on_choose={on_choose.reform(|s| (s, None))} />
            {body}
        </section>
    }
}

/// The Replay tab. Its UI is a wasm of its own (crates/sisviz-replay-ui): static/replay-ui.js
/// loads it the first time the tab opens and mounts it here; closing the tab unmounts it.
#[component]
fn ReplayHost() -> Html {
    let host = use_node_ref();
    {
        let host = host.clone();
        use_effect_with((), move |_| {
            let el = host.cast::<web_sys::Element>();
            if let Some(el) = &el {
                replay_ui("mount", el);
            }
            move || {
                if let Some(el) = el {
                    replay_ui("unmount", &el);
                }
            }
        });
    }
    html! {
        <div class="replay-host" data-testid="replay-host" ref={host}>
            <p class="hint">{"Loading the Replay tab…"}</p>
        </div>
    }
}

/// Calls `window.sisvizReplayUi[op](el)`; before static/replay-ui.js has run, marks `el` for it
/// (it mounts marked elements when it runs) and adds the script once.
fn replay_ui(op: &str, el: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let Some(win) = web_sys::window() else {
        return;
    };
    let api = js_sys::Reflect::get(&win, &"sisvizReplayUi".into()).unwrap_or_default();
    if !api.is_undefined() {
        if let Ok(f) =
            js_sys::Reflect::get(&api, &op.into()).and_then(|f| f.dyn_into::<js_sys::Function>())
        {
            let _ = f.call1(&api, el);
        }
        return;
    }
    if op != "mount" {
        let _ = el.remove_attribute("data-replay-mount");
        return;
    }
    let _ = el.set_attribute("data-replay-mount", "");
    let Some(doc) = win.document() else {
        return;
    };
    if doc.get_element_by_id("sisviz-replay-ui").is_none() {
        if let (Ok(script), Some(head)) = (doc.create_element("script"), doc.head()) {
            script.set_id("sisviz-replay-ui");
            let _ = script.set_attribute("type", "module");
            let _ = script.set_attribute("src", "static/replay-ui.js");
            let _ = head.append_child(&script);
        }
    }
}
