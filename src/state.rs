//! UI state: everything Yew renders from, except the Simulation itself (which lives outside
//! Yew state in an `Rc<RefCell<Runner>>`, see `runner.rs`). Scenario edits are validated here
//! through `Scenario::set_field` + `check`: the one validation path.

use crate::url::{Theme, View, ViewState};
use sis_core::{kernel::features::FEATURES, Scenario};
use std::rc::Rc;
use yew::Reducible;

/// A predict-mode guess: the CPU the user picked for decision `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guess {
    pub seq: u64,
    pub cpu: u32,
}

/// Predict mode's score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub right: u32,
    pub guesses: u32,
}

/// The verdict on a guess.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub right: bool,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UiState {
    pub scenario: Scenario,
    /// Bumped whenever the Simulation must be rebuilt from `scenario`.
    pub generation: u64,
    /// Wake-up to replay to when (re)building (a permalink's `step`).
    pub restore_step: Option<u64>,
    /// `step` in the URL: wake-ups so far, when paused after stepping.
    pub url_step: Option<u64>,
    pub playing: bool,
    pub speed: u32,
    /// The decision shown in detail (its seq); None = the newest.
    pub selected: Option<u64>,
    /// Steps shown of the selected decision (stepping probe by probe); None = all.
    pub probe: Option<usize>,
    pub predict: bool,
    /// A decision whose result is hidden until the user guesses.
    pub hidden: Option<u64>,
    /// The user's last guess.
    pub guess: Option<Guess>,
    pub score: Score,
    /// What the app said about the last guess.
    pub verdict: Option<Verdict>,
    /// Input errors, each naming its field.
    pub errors: Vec<String>,
    pub view: View,
    pub embed: bool,
    /// What an embed shows beside its view, and the full app's address for its link.
    pub controls: crate::url::EmbedControls,
    pub app: String,
    /// Build at t = 0 instead of after the warm-up.
    pub cold: bool,
    pub theme: Theme,
}

impl UiState {
    pub fn new(scenario: Scenario, view: &ViewState, errors: Vec<String>) -> Self {
        UiState {
            scenario,
            generation: 1,
            restore_step: view.step,
            url_step: view.step,
            playing: false,
            speed: view.speed,
            // A permalink's probe= walks the newest decision unless sel= names another.
            selected: view.sel.or(view.probe.and(view.step)),
            probe: view.probe,
            predict: view.predict,
            hidden: None,
            guess: None,
            score: Score::default(),
            verdict: None,
            errors,
            view: view.view,
            embed: view.embed,
            controls: view.controls,
            app: view.app.clone(),
            cold: view.cold,
            theme: view.theme,
        }
    }

    pub fn view_state(&self) -> ViewState {
        ViewState {
            step: self.url_step,
            // Paused states only; the newest decision is the default.
            sel: self
                .selected
                .filter(|s| self.url_step.is_some() && Some(*s) != self.url_step),
            probe: self.probe.filter(|_| self.url_step.is_some()),
            view: self.view,
            embed: self.embed,
            theme: self.theme,
            speed: self.speed,
            predict: self.predict,
            cold: self.cold,
            controls: self.controls,
            app: self.app.clone(),
        }
    }

    /// The feature override string with `name` set to `on` (dropped when the preset agrees).
    pub fn features_with(&self, name: &str, on: bool) -> String {
        let preset_on = sis_core::preset(&self.scenario.preset)
            .ok()
            .and_then(|p| p.features.get(name))
            .unwrap_or(false);
        let mut items: Vec<(String, bool)> = self
            .scenario
            .features
            .split(',')
            .filter_map(|i| i.split_once('='))
            .map(|(k, v)| (k.to_string(), v == "on"))
            .filter(|(k, _)| k != name)
            .collect();
        if on != preset_on {
            items.push((name.to_string(), on));
        }
        // Keep FEATURES order so the URL is canonical (unknown names first, as a stable sort
        // on the FEATURES position would put them).
        let known = |k: &str| FEATURES.iter().any(|f| f.name == k);
        items
            .iter()
            .filter(|(k, _)| !known(k))
            .chain(
                FEATURES
                    .iter()
                    .flat_map(|f| items.iter().filter(move |(k, _)| k == f.name)),
            )
            .map(|(k, v)| format!("{k}={}", if *v { "on" } else { "off" }))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn rebuilt(&mut self, scenario: Scenario) {
        self.scenario = scenario;
        self.generation += 1;
        self.restore_step = None;
        self.url_step = None;
        self.selected = None;
        self.probe = None;
        self.hidden = None;
        self.guess = None;
        self.verdict = None;
        self.errors.clear();
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A control changed: scenario field name (FIELDS) and its text.
    SetField {
        name: String,
        value: String,
    },
    /// Several fields at once, all or nothing, quietly: an invalid value changes nothing and
    /// shows no error (typing in progress; the `change` event reports it).
    SetFields(Vec<(String, String)>),
    SetFeature {
        name: String,
        on: bool,
    },
    /// Rebuild the simulation from the current scenario (back to t = 0).
    Reset,
    /// Back / Forward: the scenario and view of a history entry (its URL, parsed).
    Restore(Rc<crate::url::Parsed>),
    SetPlaying(bool),
    SetSpeed(u32),
    /// The app advanced the simulation to decision `seq`; `total` = wakeups_total().
    Stepped {
        seq: u64,
        total: u64,
        probe: Option<usize>,
    },
    /// Paused at a decision boundary.
    Paused {
        total: u64,
    },
    Select(Option<u64>),
    SetProbe(Option<usize>),
    TogglePredict,
    /// Predict mode: the next decision is hidden until a guess.
    Hide(u64),
    /// The user's guess was judged by the app against the decision's result.
    Guessed {
        seq: u64,
        cpu: u32,
        right: bool,
        text: String,
    },
    SetTheme(Theme),
    /// Cold start (t = 0) or warm (after the warm-up); rebuilds the simulation.
    SetCold(bool),
    ShowError(String),
    ClearErrors,
}

impl Reducible for UiState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::SetField { name, value } => {
                return s.reduce_fields(&[(name, value)], &self, false)
            }
            Action::SetFields(kv) => return s.reduce_fields(&kv, &self, true),
            Action::SetFeature { name, on } => {
                let f = s.features_with(&name, on);
                return s.reduce_fields(&[("features".to_string(), f)], &self, false);
            }
            Action::Reset => {
                let sc = s.scenario.clone();
                s.rebuilt(sc);
            }
            Action::Restore(p) => {
                let mut r = UiState::new(p.scenario.clone(), &p.view, p.errors.clone());
                r.generation = s.generation + 1;
                r.score = s.score;
                return Rc::new(r);
            }
            Action::SetPlaying(p) => {
                s.playing = p;
                if p {
                    s.url_step = None;
                    s.selected = None;
                    s.probe = None;
                    s.hidden = None;
                    s.guess = None;
                }
            }
            Action::SetSpeed(v) => s.speed = v.clamp(1, 100_000),
            Action::Stepped { seq, total, probe } => {
                s.playing = false;
                s.url_step = Some(total);
                s.selected = Some(seq);
                s.probe = probe;
                if s.hidden.is_some_and(|h| h != seq) {
                    s.hidden = None;
                }
                s.guess = None;
                s.verdict = None;
            }
            Action::Paused { total } => {
                s.playing = false;
                s.url_step = Some(total);
            }
            Action::Select(seq) => {
                s.selected = seq;
                s.probe = None;
            }
            Action::SetProbe(p) => s.probe = p,
            Action::TogglePredict => {
                s.predict = !s.predict;
                s.hidden = None;
                s.guess = None;
                s.verdict = None;
                if s.predict {
                    s.playing = false;
                }
            }
            Action::Hide(seq) => {
                s.hidden = Some(seq);
                s.selected = Some(seq);
                s.probe = None;
                s.guess = None;
                s.verdict = None;
            }
            Action::Guessed {
                seq,
                cpu,
                right,
                text,
            } => {
                if s.hidden == Some(seq) {
                    s.hidden = None;
                    s.guess = Some(Guess { seq, cpu });
                    s.score.guesses += 1;
                    if right {
                        s.score.right += 1;
                    }
                    s.verdict = Some(Verdict { right, text });
                }
            }
            Action::SetTheme(t) => s.theme = t,
            Action::SetCold(c) => {
                s.cold = c;
                let sc = s.scenario.clone();
                s.rebuilt(sc);
            }
            Action::ShowError(e) => s.errors = vec![e],
            Action::ClearErrors => s.errors.clear(),
        }
        Rc::new(s)
    }
}

impl UiState {
    fn reduce_fields(mut self, kv: &[(String, String)], old: &Rc<Self>, quiet: bool) -> Rc<Self> {
        let mut sc = self.scenario.clone();
        // preset first: it brings its own imbalance_pct.
        let kv = sis_core::sim::scenario::preset_first(kv);
        let checked = kv
            .iter()
            .try_for_each(|(k, v)| sc.set_field(k, v))
            .and_then(|()| sc.check());
        if let Err(e) = checked {
            if quiet {
                return old.clone();
            }
            self.errors = vec![e.to_string()];
            return Rc::new(self);
        }
        if sc == old.scenario {
            if self.errors.is_empty() {
                return old.clone();
            }
            self.errors.clear();
            return Rc::new(self);
        }
        self.rebuilt(sc);
        Rc::new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st() -> Rc<UiState> {
        Rc::new(UiState::new(
            Scenario::default(),
            &ViewState::default(),
            vec![],
        ))
    }

    #[test]
    fn back_restores_the_scenario_of_the_history_entry() {
        let s = st().reduce(Action::SetField {
            name: "llc_weight".into(),
            value: "112".into(),
        });
        let g = s.generation;
        let s = s.reduce(Action::Restore(Rc::new(crate::url::parse_query(
            "?llc_weight=16&load=150&step=40",
        ))));
        assert_eq!((s.scenario.llc_weight, s.scenario.load), (16, 150));
        assert_eq!(s.restore_step, Some(40), "the entry's step is replayed");
        assert!(s.generation > g, "the simulation is rebuilt");
    }

    #[test]
    fn valid_field_rebuilds_invalid_keeps_the_last_valid() {
        let s = st();
        let g = s.generation;
        let s = s.reduce(Action::SetField {
            name: "llc_weight".into(),
            value: "112".into(),
        });
        assert_eq!(s.scenario.llc_weight, 112);
        assert!(s.generation > g);
        let g = s.generation;
        let s = s.reduce(Action::SetField {
            name: "llc_weight".into(),
            value: "0".into(),
        });
        assert_eq!(s.scenario.llc_weight, 112);
        assert_eq!(s.generation, g);
        assert_eq!(
            s.errors,
            vec!["invalid llc_weight '0': expected an integer in 1..=1024".to_string()]
        );
        let s = s.reduce(Action::SetField {
            name: "load".into(),
            value: "50".into(),
        });
        assert!(s.errors.is_empty());
    }

    #[test]
    fn same_value_does_not_rebuild() {
        let s = st();
        let s2 = s.clone().reduce(Action::SetField {
            name: "llc_weight".into(),
            value: "16".into(),
        });
        assert!(Rc::ptr_eq(&s, &s2));
    }

    #[test]
    fn feature_overrides_are_relative_to_the_preset() {
        let s = st(); // linux-6.0: SIS_UTIL on, SIS_PROP off
        let s = s.reduce(Action::SetFeature {
            name: "SIS_PROP".into(),
            on: true,
        });
        assert_eq!(s.scenario.features, "SIS_PROP=on");
        let s = s.reduce(Action::SetFeature {
            name: "SIS_UTIL".into(),
            on: false,
        });
        assert_eq!(s.scenario.features, "SIS_PROP=on,SIS_UTIL=off");
        let s = s.reduce(Action::SetFeature {
            name: "SIS_PROP".into(),
            on: false,
        });
        assert_eq!(s.scenario.features, "SIS_UTIL=off");
    }

    #[test]
    fn guesses_score_once() {
        let s = st().reduce(Action::Hide(7));
        let s = s.reduce(Action::Guessed {
            seq: 7,
            cpu: 3,
            right: true,
            text: "x".into(),
        });
        let s = s.reduce(Action::Guessed {
            seq: 7,
            cpu: 3,
            right: true,
            text: "x".into(),
        });
        assert_eq!(
            s.score,
            Score {
                right: 1,
                guesses: 1
            }
        );
        assert_eq!(s.hidden, None);
    }
}
