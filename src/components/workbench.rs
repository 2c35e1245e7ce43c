//! The workbench under the main view: compare two kernels on one seed, sweep load in a
//! worker, a two-parameter heatmap, and the seeds' scenarios. Its own small state (which tab,
//! presets A/B, loads); the scenario (topology, workload, seed, ...) is the app's.

use super::compare::ComparePanel;
use super::seeds::SeedList;
use super::sweep::{HeatPanel, SweepPanel};
use sis_core::Scenario;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Compare,
    Sweep,
    Heatmap,
}

impl Tab {
    pub fn name(self) -> &'static str {
        match self {
            Tab::Compare => "compare",
            Tab::Sweep => "sweep",
            Tab::Heatmap => "heatmap",
        }
    }
}

/// Workbench state.
#[derive(Clone, Debug, PartialEq)]
pub struct Wb {
    pub tab: Tab,
    /// Baseline preset.
    pub a: String,
    /// Compare preset ("" = none: a sweep of A alone).
    pub b: String,
    /// Feature overrides on top of B (compare mode), e.g. "SIS_PROP=on".
    pub b_features: String,
    pub loads: String,
    /// A sweep to start now (a seed was clicked): (token, base scenario).
    pub run: Option<(u64, Scenario)>,
    /// Bumped when a seed sets up compare mode (rebuilds both runs).
    pub seed_gen: u64,
}

impl Default for Wb {
    fn default() -> Self {
        Wb {
            tab: Tab::Compare,
            a: "linux-5.15".into(),
            b: "linux-6.0".into(),
            b_features: String::new(),
            loads: "25,50,75,100,125,150,175,200".into(),
            run: None,
            seed_gen: 0,
        }
    }
}

pub enum WbAction {
    Tab(Tab),
    A(String),
    B(String),
    BFeatures(String),
    Loads(String),
    /// A seed: tab, presets, loads, the scenario it sets.
    Seed {
        tab: Tab,
        presets: Vec<String>,
        loads: Option<String>,
        scenario: Scenario,
    },
}

impl Reducible for Wb {
    type Action = WbAction;
    fn reduce(self: Rc<Self>, a: WbAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            WbAction::Tab(t) => s.tab = t,
            WbAction::A(v) => s.a = v,
            WbAction::B(v) => s.b = v,
            WbAction::BFeatures(v) => s.b_features = v,
            WbAction::Loads(v) => s.loads = v,
            WbAction::Seed {
                tab,
                presets,
                loads,
                scenario,
            } => {
                s.tab = tab;
                if let Some(p) = presets.first() {
                    s.a = p.clone();
                }
                s.b = presets.get(1).cloned().unwrap_or_default();
                s.b_features.clear();
                if let Some(l) = loads {
                    s.loads = l;
                }
                s.seed_gen += 1;
                if tab == Tab::Sweep {
                    let token = s.run.as_ref().map_or(1, |r| r.0 + 1);
                    s.run = Some((token, scenario));
                }
            }
        }
        Rc::new(s)
    }
}

#[derive(Properties, PartialEq)]
pub struct WorkbenchProps {
    pub scenario: Scenario,
    pub dark: bool,
    /// Replace the app's scenario (a seed was clicked): every scenario field.
    pub on_scenario: Callback<Vec<(String, String)>>,
}

#[component]
pub fn Workbench(p: &WorkbenchProps) -> Html {
    let wb = use_reducer(Wb::default);
    let tab_btn = |t: Tab, label: &str| {
        let wb2 = wb.clone();
        let onclick = Callback::from(move |_: MouseEvent| wb2.dispatch(WbAction::Tab(t)));
        let on = wb.tab == t;
        html! {
            <button role="tab" aria-selected={on.to_string()} class={classes!("tab", on.then_some("on"))}
                data-testid={format!("tab-{}", t.name())} {onclick}>{label}</button>
        }
    };
    let body = match wb.tab {
        Tab::Compare => {
            html! { <ComparePanel scenario={p.scenario.clone()} wb={wb.clone()} dark={p.dark} /> }
        }
        Tab::Sweep => {
            html! { <SweepPanel scenario={p.scenario.clone()} wb={wb.clone()} dark={p.dark} /> }
        }
        Tab::Heatmap => {
            html! { <HeatPanel scenario={p.scenario.clone()} wb={wb.clone()} dark={p.dark} /> }
        }
    };
    html! {
        <section class="panel workbench" data-testid="workbench">
            <div class="panel-head">
                <h2>{"Compare · sweep · reproduce the seeds"}</h2>
                <div class="tabs" role="tablist">
                    {tab_btn(Tab::Compare, "Compare two kernels")}
                    {tab_btn(Tab::Sweep, "Load sweep")}
                    {tab_btn(Tab::Heatmap, "Heatmap")}
                </div>
            </div>
            <SeedList wb={wb.clone()} on_scenario={p.on_scenario.clone()} />
            {body}
        </section>
    }
}

/// A callback that dispatches `action(value)` to the workbench (a preset select's choice).
pub fn dispatch_to(wb: &UseReducerHandle<Wb>, action: fn(String) -> WbAction) -> Callback<String> {
    let wb = wb.clone();
    Callback::from(move |v| wb.dispatch(action(v)))
}

/// An `onchange` for a text `<input>` that dispatches `action(its value)` to the workbench.
pub fn dispatch_input(
    wb: &UseReducerHandle<Wb>,
    action: fn(String) -> WbAction,
) -> Callback<Event> {
    let wb = wb.clone();
    Callback::from(move |e: Event| {
        if let Some(t) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
            wb.dispatch(action(t.value()));
        }
    })
}

/// A `<select>` of every preset (plus "none" when `none` is given).
pub fn preset_select(testid: &str, value: &str, none: Option<&str>, on: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        if let Some(t) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
            on.emit(t.value());
        }
    });
    html! {
        <select data-testid={testid.to_string()} {onchange}>
            if let Some(n) = none {
                <option value="" selected={value.is_empty()}>{n}</option>
            }
            { for sis_core::features::presets().into_iter().map(|p| html! {
                <option value={p.name} selected={p.name == value} title={p.description}>{p.name}</option>
            }) }
        </select>
    }
}
