//! The seeds' scenarios (`src/seeds.rs`), one click each: sets the app's scenario and the
//! workbench (tab, presets, loads); a sweep seed starts its sweep.

use super::workbench::{Tab, Wb, WbAction};
use crate::seeds::{split, SEEDS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SeedListProps {
    pub wb: UseReducerHandle<Wb>,
    pub on_scenario: Callback<Vec<(String, String)>>,
}

#[component]
pub fn SeedList(p: &SeedListProps) -> Html {
    html! {
        <details class="seeds" open=true>
            <summary>{"Reproduce the seeds: one click sets the scenario (and runs a sweep seed)"}</summary>
            <ul data-testid="seed-scenarios">
                { for SEEDS.iter().map(|s| {
                    let (wb, on_scenario) = (p.wb.clone(), p.on_scenario.clone());
                    let onclick = Callback::from(move |_: MouseEvent| {
                        let (sc, bench) = split(s);
                        let get = |k: &str| bench.iter().find(|(x, _)| x == k).map(|x| x.1.clone());
                        let Ok(scenario) = sis_core::Scenario::from_pairs(
                            sc.iter().map(|(k, v)| (k.as_str(), v.as_str())),
                        ) else {
                            return;
                        };
                        on_scenario.emit(sc);
                        wb.dispatch(WbAction::Seed {
                            tab: if get("tab").as_deref() == Some("compare") { Tab::Compare } else { Tab::Sweep },
                            presets: get("presets").map(|v| v.split(',').map(String::from).collect()).unwrap_or_default(),
                            loads: get("loads"),
                            scenario,
                        });
                    });
                    html! {
                        <li data-testid="seed-scenario" data-seed={s.id}>
                            <button class="ghost seed-btn" {onclick}>{s.title}</button>
                            <span class="seed-line">{s.reproduces}</span>
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}
