//! Small views the panels share (functions, not components): a preset `<select>` and a
//! sweep's progress line.

use crate::hooks::SweepRun;
use yew::prelude::*;

/// A `<select>` of every preset (plus "none" when `none` is given); `on` gets the choice.
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

/// An `onchange` for a text `<input>` that passes its value to `on`.
pub fn on_input_change(on: Callback<String>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        if let Some(t) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
            on.emit(t.value());
        }
    })
}

/// Progress bar, count and status of a sweep run ("points" or "cells").
pub fn sweep_progress(run: &SweepRun, what: &str) -> Html {
    let total = run.points.len();
    let status = if let Some(e) = &run.error {
        format!("error: {e}")
    } else if run.cancelled {
        format!("cancelled after {}/{total} {what}", run.done)
    } else if run.running {
        format!("running in a Web Worker: {}/{total} {what}", run.done)
    } else if let Some(ms) = run.took_ms {
        format!("done: {total} {what} in {:.1} s", ms / 1000.0)
    } else {
        String::new()
    };
    html! {
        <div class="sweep-progress">
            <progress data-testid="sweep-progress" max={total.max(1).to_string()} value={run.done.to_string()}
                aria-label="sweep progress">{format!("{}/{total}", run.done)}</progress>
            <span class="count" data-testid="sweep-count">{format!("{}/{total}", run.done)}</span>
            <span class={classes!("status", run.error.is_some().then_some("bad"))}>{status}</span>
        </div>
    }
}
