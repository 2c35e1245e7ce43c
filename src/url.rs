//! URL query <-> scenario + view state. Pure (no web APIs), so it is unit-tested natively.
//!
//! The query carries every field of [`Scenario::to_pairs`] plus the view keys in [`VIEW_KEYS`].
//! Parsing goes through [`Scenario::from_pairs`]: one validation path for every spelling.

use sis_core::sim::engine::DECISION_RING;
use sis_core::Scenario;
// Shared with the Replay worker's wasm, which reads the same queries.
pub use sis_core::sim::query::{decode, encode, split_query};

/// Query keys that are view state, not scenario fields.
pub const VIEW_KEYS: &[&str] = &[
    "step", "sel", "probe", "view", "embed", "theme", "speed", "predict", "cold", "controls", "app",
];

/// The largest `step` a URL may ask for: replaying it takes a few seconds (in chunks, with
/// progress), not the minutes 10^9 would.
pub const STEP_MAX: u64 = 10_000_000;

/// Which part of the app is shown (`view=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Full,
    Curve,
    Cpus,
    Trace,
}

impl View {
    pub fn name(self) -> &'static str {
        match self {
            View::Full => "full",
            View::Curve => "curve",
            View::Cpus => "cpus",
            View::Trace => "trace",
        }
    }
    pub fn parse(s: &str) -> Option<View> {
        match s {
            "full" => Some(View::Full),
            "curve" => Some(View::Curve),
            "cpus" => Some(View::Cpus),
            "trace" => Some(View::Trace),
            _ => None,
        }
    }
}

/// Colour theme (`theme=`); `Auto` follows prefers-color-scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
    pub fn parse(s: &str) -> Option<Theme> {
        match s {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
}

/// Simulated microseconds per real millisecond.
pub const DEFAULT_SPEED: u32 = 100;
pub const SPEEDS: &[u32] = &[1, 5, 20, 100, 500, 2000];

/// View state carried next to the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewState {
    /// Wake-up number to replay to (`advance_to_wakeup`).
    pub step: Option<u64>,
    /// The decision shown in detail (its seq) when it is not the newest; needs `step` and must
    /// be one of the last [`DECISION_RING`] decisions up to it.
    pub sel: Option<u64>,
    /// Checks shown of that decision (stepping probe by probe); needs `step`.
    pub probe: Option<usize>,
    pub view: View,
    pub embed: bool,
    pub theme: Theme,
    pub speed: u32,
    pub predict: bool,
    /// Open at t = 0 instead of after the scenario's warm-up (`cold=1`).
    pub cold: bool,
    /// What an embed shows beside its view (`controls=1` / `controls=0`).
    pub controls: EmbedControls,
    /// The full app's address, for an embed's "open in sisviz" link (a `mount()`ed instance
    /// lives on another page; an iframe's own address is the app's).
    pub app: String,
}

/// What an embed shows beside its view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EmbedControls {
    /// Play, step and an "open in sisviz" link (the default).
    #[default]
    Bar,
    /// The control panel too (`controls=1`).
    Full,
    /// The view alone (`controls=0`).
    Hidden,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            step: None,
            sel: None,
            probe: None,
            view: View::Full,
            embed: false,
            theme: Theme::Auto,
            speed: DEFAULT_SPEED,
            predict: false,
            cold: false,
            controls: EmbedControls::Bar,
            app: String::new(),
        }
    }
}

/// The result of reading a query: always a usable scenario, plus the errors found.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub scenario: Scenario,
    pub view: ViewState,
    /// Input errors (InputError's Display, naming the field), in query order.
    pub errors: Vec<String>,
}

fn parse_view(pairs: &[(String, String)], errors: &mut Vec<String>) -> ViewState {
    let mut v = ViewState::default();
    for (k, val) in pairs {
        match k.as_str() {
            "step" => match val.trim().parse::<u64>() {
                Ok(n) if n <= STEP_MAX => v.step = Some(n),
                _ => errors.push(format!(
                    "invalid step '{val}': expected a wake-up number in 0..={STEP_MAX}"
                )),
            },
            "sel" => match val.trim().parse::<u64>() {
                Ok(n) => v.sel = Some(n),
                Err(_) => errors.push(format!(
                    "invalid sel '{val}': expected a decision number (seq) in 0..=18446744073709551615"
                )),
            },
            "probe" => match val.trim().parse::<usize>() {
                Ok(n) if n < 4096 => v.probe = Some(n),
                _ => errors.push(format!(
                    "invalid probe '{val}': expected a check number in 0..=4095"
                )),
            },
            "view" => match View::parse(val) {
                Some(x) => v.view = x,
                None => errors.push(format!(
                    "invalid view '{val}': expected curve, cpus, trace or full"
                )),
            },
            "embed" => v.embed = matches!(val.as_str(), "1" | "true" | "yes" | "on" | ""),
            "theme" => match Theme::parse(val) {
                Some(t) => v.theme = t,
                None => errors.push(format!(
                    "invalid theme '{val}': expected light, dark or auto"
                )),
            },
            "speed" => match val.trim().parse::<u32>() {
                Ok(n) if (1..=100_000).contains(&n) => v.speed = n,
                _ => errors.push(format!(
                    "invalid speed '{val}': expected simulated us per real ms in 1..=100000"
                )),
            },
            "predict" => v.predict = matches!(val.as_str(), "1" | "true" | "on"),
            "cold" => v.cold = matches!(val.as_str(), "1" | "true" | "on" | ""),
            "controls" => match val.as_str() {
                "1" | "true" | "on" | "" => v.controls = EmbedControls::Full,
                "0" | "false" | "off" => v.controls = EmbedControls::Hidden,
                _ => errors.push(format!(
                    "invalid controls '{val}': expected 1 (the control panel), 0 (the view alone) or none (play, step and an open link)"
                )),
            },
            // Only an http(s) or relative address: it becomes a link's href.
            "app" => {
                let ok = ["https://", "http://", "/", "./", "../"].iter().any(|p| val.starts_with(p))
                    && !val.contains(['"', '<', '>', ' ']);
                if ok {
                    v.app = val.clone();
                } else {
                    errors.push(format!("invalid app '{val}': expected the app's http(s) or relative address"));
                }
            }
            _ => {}
        }
    }
    // sel and probe describe a paused state: they need step, and sel must still be in the
    // decision ring after replaying to step.
    if let Some(sel) = v.sel {
        let ring = DECISION_RING as u64;
        match v.step {
            Some(step) if sel <= step && sel + ring > step => {}
            Some(step) => {
                errors.push(format!(
                    "invalid sel '{sel}': expected a decision in {}..={step} (the last {ring} up to step)",
                    step.saturating_sub(ring - 1).max(1)
                ));
                v.sel = None;
            }
            None => {
                errors.push(format!("invalid sel '{sel}': expected step= as well"));
                v.sel = None;
            }
        }
    }
    if v.probe.is_some() && v.step.is_none() {
        errors.push("invalid probe: expected step= as well".to_string());
        v.probe = None;
    }
    v
}

/// Builds the scenario from scenario pairs. All-or-nothing first (`from_pairs`); when that
/// fails, every valid field is still applied one by one over the defaults so the rest of the
/// link works, and every error is reported.
pub fn scenario_from_pairs(pairs: &[(String, String)]) -> (Scenario, Vec<String>) {
    match Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(s) => (s, Vec::new()),
        Err(first) => {
            let mut errors = vec![first.to_string()];
            let mut s = Scenario::default();
            // preset first, so a later imbalance_pct wins (as in from_pairs).
            for (k, v) in sis_core::sim::scenario::preset_first(pairs) {
                let mut trial = s.clone();
                match trial.set_field(k, v) {
                    Ok(()) if trial.check().is_ok() => s = trial,
                    Ok(()) => {
                        if let Err(e) = trial.check() {
                            let e = e.to_string();
                            if !errors.contains(&e) {
                                errors.push(e);
                            }
                        }
                    }
                    Err(e) => {
                        let e = e.to_string();
                        if !errors.contains(&e) {
                            errors.push(e);
                        }
                    }
                }
            }
            if s.check().is_err() {
                s = Scenario::default();
            }
            (s, errors)
        }
    }
}

/// Reads a whole query string.
pub fn parse_query(q: &str) -> Parsed {
    parse_pairs(split_query(q))
}

/// Reads decoded name/value pairs (query, or an embed's JSON object).
pub fn parse_pairs(pairs: Vec<(String, String)>) -> Parsed {
    let mut errors = Vec::new();
    let (scen_pairs, view_pairs): (Vec<_>, Vec<_>) = pairs
        .into_iter()
        .partition(|(k, _)| !VIEW_KEYS.contains(&k.as_str()));
    let (scenario, mut scen_errors) = scenario_from_pairs(&scen_pairs);
    errors.append(&mut scen_errors);
    let view = parse_view(&view_pairs, &mut errors);
    Parsed {
        scenario,
        view,
        errors,
    }
}

/// Writes the query: every scenario field (to_pairs order), then the view keys that are set.
pub fn to_query(s: &Scenario, v: &ViewState) -> String {
    // The scenario as a sweep worker receives it, then the view's keys.
    let mut parts = vec![sis_core::sim::query::scenario_query(s)];
    if let Some(n) = v.step {
        parts.push(format!("step={n}"));
    }
    if let Some(n) = v.sel {
        parts.push(format!("sel={n}"));
    }
    if let Some(n) = v.probe {
        parts.push(format!("probe={n}"));
    }
    if v.speed != DEFAULT_SPEED {
        parts.push(format!("speed={}", v.speed));
    }
    if v.predict {
        parts.push("predict=1".into());
    }
    if v.view != View::Full {
        parts.push(format!("view={}", v.view.name()));
    }
    if v.cold {
        parts.push("cold=1".into());
    }
    if v.embed {
        parts.push("embed=1".into());
    }
    match v.controls {
        EmbedControls::Full => parts.push("controls=1".into()),
        EmbedControls::Hidden => parts.push("controls=0".into()),
        EmbedControls::Bar => {}
    }
    if v.theme != Theme::Auto {
        parts.push(format!("theme={}", v.theme.name()));
    }
    if !v.app.is_empty() {
        parts.push(format!("app={}", encode(&v.app)));
    }
    format!("?{}", parts.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_scenario_and_view() {
        let s = Scenario::from_pairs([
            ("llc_weight", "112"),
            ("preset", "linux-4.13"),
            ("imbalance_pct", "130"),
            ("features", "SIS_PROP=on,SIS_UTIL=off"),
            ("load", "200"),
            ("seed", "18446744073709551615"),
        ])
        .unwrap();
        let v = ViewState {
            step: Some(42),
            sel: Some(40),
            probe: Some(2),
            view: View::Curve,
            embed: true,
            theme: Theme::Dark,
            speed: 500,
            predict: true,
            cold: true,
            controls: EmbedControls::Hidden,
            app: "https://example.org/sisviz/index.html".into(),
        };
        let q = to_query(&s, &v);
        assert!(q.contains("llc_weight=112"), "{q}");
        assert!(q.contains("features=SIS_PROP%3Don,SIS_UTIL%3Doff"), "{q}");
        let p = parse_query(&q);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.scenario, s);
        assert_eq!(p.view, v);
    }

    #[test]
    fn empty_query_is_the_default() {
        let p = parse_query("");
        assert_eq!(p.scenario, Scenario::default());
        assert_eq!(p.view, ViewState::default());
        assert!(p.errors.is_empty());
        let p = parse_query("?");
        assert!(p.errors.is_empty());
    }

    #[test]
    fn invalid_field_is_reported_and_the_rest_applies() {
        let p = parse_query("?llc_weight=0&load=50");
        assert_eq!(
            p.errors,
            vec!["invalid llc_weight '0': expected an integer in 1..=1024".to_string()]
        );
        assert_eq!(p.scenario.llc_weight, Scenario::default().llc_weight);
        assert_eq!(p.scenario.load, 50);
        let p = parse_query("?llc_wieght=8");
        assert!(p.errors[0].contains("llc_weight"), "{:?}", p.errors);
        let p = parse_query("?view=graph&theme=pink&step=x");
        assert_eq!(p.errors.len(), 3);
        assert!(p.errors.iter().any(|e| e.contains("view")));
    }

    #[test]
    fn cross_field_error_keeps_a_valid_scenario() {
        let p = parse_query("?llc_weight=6&smt=4");
        assert!(!p.errors.is_empty());
        assert!(p.scenario.check().is_ok());
    }

    #[test]
    fn preset_then_imbalance_pct_in_any_order() {
        // A preset brings its LLC's imbalance_pct (117 for every preset: sd_init gives
        // SD_SHARE_PKG_RESOURCES domains 117, 4.4's included); an explicit one wins wherever
        // it stands in the query.
        for q in [
            "?imbalance_pct=130&preset=linux-4.4",
            "?preset=linux-4.4&imbalance_pct=130",
        ] {
            assert_eq!(parse_query(q).scenario.imbalance_pct, 130, "{q}");
        }
        let p = parse_query("?imbalance_pct=130");
        assert_eq!(p.scenario.imbalance_pct, 130);
        let p = parse_query("?preset=linux-4.4");
        assert_eq!(p.scenario.imbalance_pct, 117);
    }

    #[test]
    fn sel_and_probe_need_step_and_the_ring() {
        let p = parse_query("?step=500&sel=300&probe=1");
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!((p.view.sel, p.view.probe), (Some(300), Some(1)));
        let p = parse_query("?step=500&sel=200");
        assert_eq!(p.view.sel, None);
        assert!(
            p.errors[0].starts_with("invalid sel '200'"),
            "{:?}",
            p.errors
        );
        let p = parse_query("?step=5&sel=6");
        assert_eq!(p.view.sel, None);
        let p = parse_query("?sel=3&probe=2");
        assert_eq!((p.view.sel, p.view.probe), (None, None));
        assert_eq!(p.errors.len(), 2);
    }

    #[test]
    fn a_step_past_the_cap_is_refused_naming_the_range() {
        let p = parse_query("?step=999999999");
        assert_eq!(p.view.step, None);
        assert_eq!(
            p.errors,
            vec!["invalid step '999999999': expected a wake-up number in 0..=10000000".to_string()]
        );
        assert_eq!(parse_query("?step=10000000").view.step, Some(STEP_MAX));
    }

    #[test]
    fn decoding() {
        assert_eq!(decode("a+b%2Cc%3d"), "a b,c=");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(encode("a=b c"), "a%3Db%20c");
        assert_eq!(
            split_query("?embed&view=cpus"),
            vec![
                ("embed".to_string(), String::new()),
                ("view".to_string(), "cpus".to_string())
            ]
        );
        assert!(parse_query("?embed").view.embed);
    }
}
