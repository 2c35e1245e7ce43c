//! Small views the panels share (functions, not components): a preset `<select>`, a sweep's
//! seeds and workers inputs and its progress line.

use crate::hooks::SweepRun;
use yew::prelude::*;

/// A `<select>` of every preset (plus "none" when `none` is given); `on` gets the choice.
/// The preset menus' value for the scenario's own rule (`nr_expr`), run as a sweep entry of
/// its own on the scenario's preset ([`entry_of_choice`]).
pub const RULE_CHOICE: &str = "your-rule";

/// The sweep entry a preset menu's `choice` stands for in `base`: a preset's name, or for
/// [`RULE_CHOICE`] `nr_expr=<base's rule>` (an error when it has none).
pub fn entry_of_choice(choice: &str, base: &sis_core::Scenario) -> Result<String, String> {
    if choice != RULE_CHOICE {
        return Ok(choice.to_string());
    }
    if base.nr_expr.is_empty() {
        return Err(
            "preset: 'your rule' needs a rule: write one under the scan curve (nr_expr)".into(),
        );
    }
    Ok(format!(
        "{}{}",
        sis_core::analysis::sweep::RULE_ENTRY,
        base.nr_expr
    ))
}

/// A menu of the presets; `none` adds an empty choice first, `rule` (the scenario's nr_expr,
/// when it has one) a last choice that runs it as its own entry.
pub fn preset_select(
    testid: &str,
    value: &str,
    none: Option<&str>,
    rule: Option<&str>,
    on: Callback<String>,
) -> Html {
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
            { for sis_core::kernel::features::presets().iter().map(|p| html! {
                <option value={p.name} selected={p.name == value} title={p.description}>{p.name}</option>
            }) }
            if let Some(r) = rule.filter(|r| !r.is_empty()) {
                <option value={RULE_CHOICE} selected={value == RULE_CHOICE}
                    title="the scenario's preset, throttled by your rule (nr_expr) instead of its own">
                    {format!("your rule: {r}")}</option>
            }
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

/// How the sweep and heatmap panels run: replicate seeds and the worker count, as typed.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolSetup {
    /// `sis sweep --seeds` syntax ("1-5", "1,2,3"); "" = the scenario's seed alone.
    pub seeds: String,
    /// "auto" or 1..=16 (`sweep_pool::parse_workers`).
    pub workers: String,
    pub on_seeds: Callback<String>,
    pub on_workers: Callback<String>,
}

impl PoolSetup {
    /// The seeds to run each point with (empty: the scenario's), checked by sis-core's
    /// `parse_seeds` as the CLI's `--seeds`.
    pub fn seed_list(&self) -> Result<Vec<u64>, String> {
        if self.seeds.trim().is_empty() {
            return Ok(Vec::new());
        }
        sis_core::analysis::sweep::parse_seeds(&self.seeds).map_err(|e| e.to_string())
    }

    /// The forced worker count (`None` = auto).
    pub fn worker_count(&self) -> Result<Option<usize>, String> {
        crate::sweep_pool::parse_workers(&self.workers).map_err(|e| e.to_string())
    }

    /// The seeds and workers inputs (`<prefix>-seeds`, `<prefix>-workers`).
    pub fn controls(&self, prefix: &str) -> Html {
        html! {
            <>
                <label title="replicates: run every point with each seed (as sis sweep --seeds), like 1-5 or 1,2,3; empty = the scenario's seed">
                    {"seeds "}<input type="text" data-testid={format!("{prefix}-seeds")} value={self.seeds.clone()}
                        placeholder="the scenario's" onchange={on_input_change(self.on_seeds.clone())} size="12" />
                </label>
                <label title="Web Workers running the points: auto = one per core (at most 4), or 1-16">
                    {"workers "}<input type="text" data-testid={format!("{prefix}-workers")} value={self.workers.clone()}
                        onchange={on_input_change(self.on_workers.clone())} size="4" />
                </label>
            </>
        }
    }
}

/// Progress bar, count and status of a sweep run ("points" or "cells").
pub fn sweep_progress(run: &SweepRun, what: &str) -> Html {
    let total = run.points.len();
    let status = if let Some(e) = &run.error {
        format!("error: {e}")
    } else if run.cancelled {
        format!("cancelled after {}/{total} {what}", run.done)
    } else if run.running {
        let workers = match run.workers {
            1 => "1 Web Worker".to_string(),
            n => format!("{n} Web Workers"),
        };
        format!("running on {workers}: {}/{total} {what}", run.done)
    } else if let Some(ms) = run.took_ms {
        format!(
            "done: {total} {what} in {:.1} s on {} worker{}",
            ms / 1000.0,
            run.workers,
            if run.workers == 1 { "" } else { "s" }
        )
    } else {
        String::new()
    };
    html! {
        <div class="sweep-progress">
            <progress data-testid="sweep-progress" max={total.max(1).to_string()} value={run.done.to_string()}
                aria-label="sweep progress">{format!("{}/{total}", run.done)}</progress>
            <span class="count" data-testid="sweep-count">{format!("{}/{total}", run.done)}</span>
            <span class={classes!("status", run.error.is_some().then_some("bad"))} data-testid="sweep-status"
                data-took-ms={run.took_ms.map(|ms| format!("{ms:.1}"))} data-busy-ms={format!("{:.1}", run.busy_ms)}>{status}</span>
        </div>
    }
}
