//! Scenario and run controls. Every scenario edit goes through `Action::SetField` (validated
//! by `Scenario::set_field` in the reducer); number inputs commit on `change` and Enter, and
//! apply valid values live on `input`.

use super::kernel_term;
use crate::state::{Action, UiState};
use crate::url::SPEEDS;
use sis_core::kernel::features::FEATURES;
use sis_core::sim::scenario::WORKLOADS;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub state: UseReducerHandle<UiState>,
    pub on_play: Callback<()>,
    pub on_step: Callback<()>,
    pub on_probe: Callback<()>,
    pub on_reset: Callback<()>,
    /// Embed: buttons and the few fields the view needs.
    #[prop_or_default]
    pub compact: bool,
}

#[derive(Properties, PartialEq)]
struct NumProps {
    testid: AttrValue,
    field: AttrValue,
    label: Html,
    value: String,
    min: u64,
    max: u64,
    dispatch: Callback<Action>,
    #[prop_or_default]
    invalid: bool,
    /// The arrows' step (llc_weight moves by whole cores: smt).
    #[prop_or(1)]
    step: u32,
}

#[component]
fn NumField(p: &NumProps) -> Html {
    let commit = {
        let d = p.dispatch.clone();
        let field = p.field.to_string();
        move |v: String| {
            d.emit(Action::SetField {
                name: field.clone(),
                value: v.trim().to_string(),
            })
        }
    };
    let onchange = {
        let commit = commit.clone();
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            commit(el.value());
        })
    };
    let onkeydown = {
        let commit = commit.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                let el: HtmlInputElement = e.target_unchecked_into();
                commit(el.value());
            }
        })
    };
    // Live: apply a value as it is typed only when it is valid on its own.
    let oninput = {
        let d = p.dispatch.clone();
        let field = p.field.to_string();
        let (min, max) = (p.min, p.max);
        Callback::from(move |e: InputEvent| {
            let el: HtmlInputElement = e.target_unchecked_into();
            let v = el.value();
            if v.trim()
                .parse::<u64>()
                .is_ok_and(|x| (min..=max).contains(&x))
            {
                d.emit(Action::SetFields(vec![(
                    field.clone(),
                    v.trim().to_string(),
                )]));
            }
        })
    };
    html! {
        <label class={classes!("field", p.invalid.then_some("invalid"))}>
            <span class="label">{p.label.clone()}</span>
            <input type="number" data-testid={p.testid.clone()} name={p.field.clone()}
                min={p.min.to_string()} max={p.max.to_string()} step={p.step.to_string()} value={p.value.clone()}
                inputmode="numeric" aria-invalid={p.invalid.to_string()}
                {onchange} {onkeydown} {oninput} />
        </label>
    }
}

fn select(
    testid: &'static str,
    field: &'static str,
    label: Html,
    current: &str,
    options: Vec<(String, String, String)>,
    dispatch: &Callback<Action>,
) -> Html {
    let d = dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        d.emit(Action::SetField {
            name: field.to_string(),
            value: el.value(),
        });
    });
    html! {
        <label class="field">
            <span class="label">{label}</span>
            <select data-testid={testid} name={field} {onchange}>
                { for options.into_iter().map(|(v, text, title)| html! {
                    <option value={v.clone()} selected={v == current} title={title}>{text}</option>
                }) }
            </select>
        </label>
    }
}

#[component]
pub fn Controls(p: &ControlsProps) -> Html {
    let s = &*p.state;
    let sc = &s.scenario;
    let dispatch = {
        let st = p.state.clone();
        Callback::from(move |a: Action| st.dispatch(a))
    };
    let err_field = |f: &str| {
        s.errors
            .iter()
            .any(|e| e.contains(&format!("invalid {f} ")))
    };
    // Each number input's range is its field's in sis-core's table (the one that validates it).
    // llc_weight steps by whole cores (a multiple of smt), so its arrows never land on an
    // invalid value; a typed one is reported by the field's error.
    let num = |testid: &'static str, field: &'static str, value: String| {
        let (min, max) = sis_core::sim::scenario::int_range(field).unwrap_or((0, u64::MAX));
        let step = if field == "llc_weight" {
            sc.smt.max(1)
        } else {
            1
        };
        html! {
            <NumField testid={testid} field={field} label={html!{{kernel_term(field, field)}}}
                value={value} min={min.max(step as u64)} max={max} dispatch={dispatch.clone()}
                invalid={err_field(field)} {step} />
        }
    };
    // The focused control's term, explained under the panel (terms are not tab stops).
    let focus_help = use_state(String::new);
    let onfocusin = {
        let focus_help = focus_help.clone();
        Callback::from(move |e: FocusEvent| {
            let name = e
                .target_dyn_into::<web_sys::Element>()
                .and_then(|el| el.get_attribute("name"))
                .unwrap_or_default();
            let help = crate::terms::term(&name);
            focus_help.set(if help.is_empty() {
                String::new()
            } else {
                format!("{name}: {help}")
            });
        })
    };
    let help_line = html! { <p class="hint focus-help" data-testid="focus-help" aria-live="polite">{(*focus_help).clone()}</p> };
    let presets = sis_core::presets();
    let preset_desc = presets
        .iter()
        .find(|x| x.name == sc.preset)
        .map(|x| x.description)
        .unwrap_or("");
    let preset_sel = select(
        "preset",
        "preset",
        html! {{kernel_term("preset", "preset")}},
        &sc.preset,
        presets
            .iter()
            .map(|x| {
                (
                    x.name.to_string(),
                    x.name.to_string(),
                    x.description.to_string(),
                )
            })
            .collect(),
        &dispatch,
    );
    let workload_sel = select(
        "workload",
        "workload",
        html! {{kernel_term("workload", "workload")}},
        sc.workload.name(),
        WORKLOADS
            .iter()
            .map(|w| (w.0.to_string(), w.0.to_string(), w.2.to_string()))
            .collect(),
        &dispatch,
    );
    let smt_sel = select(
        "smt",
        "smt",
        html! {{kernel_term("smt", "smt")}},
        &sc.smt.to_string(),
        [1, 2, 4]
            .iter()
            .map(|v| {
                (
                    v.to_string(),
                    v.to_string(),
                    format!("{v} threads per core"),
                )
            })
            .collect(),
        &dispatch,
    );
    let machine_sel = select(
        "machine",
        "machine",
        html! {{kernel_term("machine", "machine")}},
        sc.machine.name(),
        sis_core::sim::scenario::MachineName::ALL
            .iter()
            .map(|m| {
                let summary = m
                    .machine()
                    .map_or("the machine whose LLC this is, else seed 000's Xeon", |x| {
                        x.summary
                    });
                (
                    m.name().to_string(),
                    m.name().to_string(),
                    summary.to_string(),
                )
            })
            .collect(),
        &dispatch,
    );
    let numbering_sel = select(
        "numbering",
        "numbering",
        html! {{kernel_term("numbering", "numbering")}},
        sc.numbering.name(),
        ["contiguous", "interleaved"]
            .iter()
            .map(|v| {
                (
                    v.to_string(),
                    v.to_string(),
                    crate::terms::term("numbering"),
                )
            })
            .collect(),
        &dispatch,
    );
    let runqueue_sel = select(
        "runqueue",
        "runqueue",
        html! {{kernel_term("runqueue", "runqueue")}},
        sc.runqueue.name(),
        sis_core::sim::scenario::Runqueue::ALL
            .iter()
            .map(|r| {
                let v = r.name().to_string();
                (v.clone(), v, crate::terms::term("runqueue"))
            })
            .collect(),
        &dispatch,
    );
    let speed = {
        let st = p.state.clone();
        let onchange = Callback::from(move |e: Event| {
            let el: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(v) = el.value().parse() {
                st.dispatch(Action::SetSpeed(v));
            }
        });
        let mut speeds: Vec<u32> = SPEEDS.to_vec();
        if !speeds.contains(&s.speed) {
            speeds.push(s.speed);
            speeds.sort_unstable();
        }
        html! {
            <label class="field">
                <span class="label">{kernel_term("speed", "speed")}</span>
                <select data-testid="speed" name="speed" {onchange}>
                    { for speeds.iter().map(|v| html! {
                        <option value={v.to_string()} selected={*v == s.speed}>
                            {format!("{v} µs/ms")}
                        </option>
                    }) }
                </select>
            </label>
        }
    };
    let on_play = p.on_play.reform(|_: MouseEvent| ());
    let on_step = p.on_step.reform(|_: MouseEvent| ());
    let on_probe = p.on_probe.reform(|_: MouseEvent| ());
    let on_reset = p.on_reset.reform(|_: MouseEvent| ());
    let on_predict = {
        let st = p.state.clone();
        Callback::from(move |_: MouseEvent| st.dispatch(Action::TogglePredict))
    };
    let on_cold = {
        let st = p.state.clone();
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            st.dispatch(Action::SetCold(el.checked()));
        })
    };
    let buttons = html! {
        <div class="buttons">
            <button class="primary" data-testid="play" onclick={on_play} aria-pressed={s.playing.to_string()}
                title="Play / pause (space)">
                { if s.playing { "❚❚ Pause" } else { "▶ Play" } }
            </button>
            <button data-testid="step" onclick={on_step} title="Advance to the next wake-up decision (→)">{"Step →"}</button>
            <button data-testid="step-probe" onclick={on_probe}
                title="Walk the current decision one check at a time">{"Step probe ›"}</button>
            <button data-testid="reset" onclick={on_reset} title="Rebuild the simulation at t = 0">{"↺ Reset"}</button>
            <button data-testid="predict" class={classes!(s.predict.then_some("on"))} onclick={on_predict}
                aria-pressed={s.predict.to_string()} title={crate::terms::term("predict")}>
                { if s.predict { "Predict: on" } else { "Predict" } }
            </button>
            {speed}
            <label class="field cold" title="Open at t = 0 (every CPU idle) instead of after the scenario's warm-up">
                <input type="checkbox" data-testid="cold" checked={s.cold} onchange={on_cold} />
                {"cold start"}
            </label>
        </div>
    };
    if p.compact {
        return html! {
            <div class="controls compact" {onfocusin}>
                {buttons}
                <div class="fields">
                    {num("llc-weight", "llc_weight", sc.llc_weight.to_string())}
                    {num("imbalance-pct", "imbalance_pct", sc.imbalance_pct.to_string())}
                    {num("load", "load", sc.load.to_string())}
                    {preset_sel}
                </div>
                {help_line}
            </div>
        };
    }
    let features = sc.features().ok();
    let feature_boxes = FEATURES.iter().map(|f| {
        let on = features.and_then(|x| x.get(f.name)).unwrap_or(false);
        let overridden = sc.features.split(',').any(|i| i.starts_with(&format!("{}=", f.name)));
        let st = p.state.clone();
        let name = f.name.to_string();
        let onchange = Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            st.dispatch(Action::SetFeature {
                name: name.clone(),
                on: el.checked(),
            });
        });
        html! {
            <label class={classes!("feature", overridden.then_some("overridden"))} title={f.help}>
                <input type="checkbox" checked={on} {onchange} data-testid={format!("feature-{}", f.name)} />
                <code>{f.name}</code>
            </label>
        }
    });
    html! {
        <div class="controls" {onfocusin}>
            {buttons}
            <div class="groups">
                <fieldset>
                    <legend>{"Machine"}</legend>
                    {machine_sel}
                    {num("llcs", "llcs", sc.llcs.to_string())}
                    {num("llc-weight", "llc_weight", sc.llc_weight.to_string())}
                    {smt_sel}
                    {numbering_sel}
                </fieldset>
                <fieldset>
                    <legend>{"Kernel"}</legend>
                    {preset_sel}
                    {num("imbalance-pct", "imbalance_pct", sc.imbalance_pct.to_string())}
                    {runqueue_sel}
                    <p class="hint">{preset_desc}
                        { for sis_core::kernel::features::posting(&sc.preset).map(|url| html! {
                            <>{" "}<a href={url} target="_blank" rel="noopener" data-testid="preset-posting">{"the posting"}</a></>
                        }) }
                    </p>
                </fieldset>
                <fieldset>
                    <legend>{"Workload"}</legend>
                    {workload_sel}
                    {num("load", "load", sc.load.to_string())}
                    {num("seed", "seed", sc.seed.to_string())}
                </fieldset>
            </div>
            <details class="features">
                <summary>{"Feature overrides "}<span class="hint">{format!("({})", if sc.features.is_empty() { "none" } else { sc.features.as_str() })}</span></summary>
                <div class="feature-grid">{ for feature_boxes }</div>
            </details>
            {help_line}
        </div>
    }
}
