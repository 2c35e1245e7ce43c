//! The workbench's state (which tab, the baseline and compare presets, the sweep's loads,
//! seeds and workers, a sweep requested by a patch scenario) and its reducer. The panels never see this type: the
//! workbench component hands each the fields and callbacks it needs.

use sis_core::Scenario;
use std::rc::Rc;
use yew::Reducible;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Compare,
    Sweep,
    Heatmap,
    Replay,
}

impl Tab {
    pub fn name(self) -> &'static str {
        match self {
            Tab::Compare => "compare",
            Tab::Sweep => "sweep",
            Tab::Heatmap => "heatmap",
            Tab::Replay => "replay",
        }
    }
}

/// A sweep to start now, on `scenario` (a patch scenario was clicked). `token` differs for
/// each request, so the same scenario clicked twice runs twice.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRequest {
    pub token: u64,
    pub scenario: Scenario,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WorkbenchState {
    pub tab: Tab,
    pub baseline_preset: String,
    /// "" = none: a sweep of the baseline alone.
    pub compare_preset: String,
    /// Feature overrides on top of the compare preset (compare tab), e.g. "SIS_PROP=on".
    pub compare_features: String,
    /// The sweep's loads, as typed ("25,50,100").
    pub loads: String,
    /// The sweep's and heatmap's replicate seeds, as `sis sweep --seeds` ("1-5"; "" = the
    /// scenario's seed alone).
    pub seeds: String,
    /// How many Web Workers run a sweep or heatmap ("auto" = one per core, capped).
    pub workers: String,
    pub sweep_request: Option<SweepRequest>,
    /// Bumped when a patch scenario sets up the compare tab (rebuilds both runs even when the
    /// presets did not change).
    pub compare_generation: u64,
    /// Compare from t = 0 (every CPU idle) instead of from a shared warm state: the seed's
    /// corner case is a first wake-up.
    pub compare_cold: bool,
}

impl Default for WorkbenchState {
    fn default() -> Self {
        WorkbenchState {
            tab: Tab::Compare,
            baseline_preset: "linux-5.19".into(),
            compare_preset: "linux-6.0".into(),
            compare_features: String::new(),
            loads: "25,50,75,100,125,150,175,200".into(),
            seeds: String::new(),
            workers: "auto".into(),
            sweep_request: None,
            compare_generation: 0,
            compare_cold: false,
        }
    }
}

pub enum WorkbenchAction {
    ShowTab(Tab),
    SetBaselinePreset(String),
    SetComparePreset(String),
    SetCompareFeatures(String),
    SetLoads(String),
    SetSeeds(String),
    SetWorkers(String),
    SetCompareCold(bool),
    /// A patch scenario: the tab it opens, its presets (baseline, compare), its loads and the
    /// scenario it sets (a sweep tab starts its sweep on it).
    LoadPatchScenario {
        tab: Tab,
        presets: Vec<String>,
        loads: Option<String>,
        /// Compare from t = 0 (`cold=1` in its query).
        cold: bool,
        /// Boxed: a Scenario is far larger than the other actions.
        scenario: Box<Scenario>,
    },
}

impl Reducible for WorkbenchState {
    type Action = WorkbenchAction;
    fn reduce(self: Rc<Self>, action: WorkbenchAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            WorkbenchAction::ShowTab(t) => s.tab = t,
            WorkbenchAction::SetBaselinePreset(v) => s.baseline_preset = v,
            WorkbenchAction::SetComparePreset(v) => s.compare_preset = v,
            WorkbenchAction::SetCompareFeatures(v) => s.compare_features = v,
            WorkbenchAction::SetLoads(v) => s.loads = v,
            WorkbenchAction::SetSeeds(v) => s.seeds = v,
            WorkbenchAction::SetWorkers(v) => s.workers = v,
            WorkbenchAction::SetCompareCold(v) => s.compare_cold = v,
            WorkbenchAction::LoadPatchScenario {
                tab,
                presets,
                loads,
                cold,
                scenario,
            } => {
                s.tab = tab;
                s.compare_cold = cold;
                if let Some(p) = presets.first() {
                    s.baseline_preset = p.clone();
                }
                s.compare_preset = presets.get(1).cloned().unwrap_or_default();
                s.compare_features.clear();
                if let Some(l) = loads {
                    s.loads = l;
                }
                s.compare_generation += 1;
                if tab == Tab::Sweep {
                    let token = s.sweep_request.as_ref().map_or(1, |r| r.token + 1);
                    s.sweep_request = Some(SweepRequest {
                        token,
                        scenario: *scenario,
                    });
                }
            }
        }
        Rc::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_patch_scenario_requests_a_new_sweep_each_time() {
        let load = || WorkbenchAction::LoadPatchScenario {
            tab: Tab::Sweep,
            presets: vec!["linux-5.15".into(), "sis-util-v4".into()],
            loads: Some("50,100".into()),
            cold: false,
            scenario: Box::default(),
        };
        let s = Rc::new(WorkbenchState::default()).reduce(load());
        assert_eq!(s.tab, Tab::Sweep);
        assert_eq!(s.compare_preset, "sis-util-v4");
        assert_eq!(s.loads, "50,100");
        let first = s.sweep_request.clone().unwrap().token;
        let s = s.reduce(load());
        assert_eq!(s.sweep_request.as_ref().unwrap().token, first + 1);
    }
}
