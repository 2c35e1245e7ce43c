//! The kernel patches' scenarios (`crate::patches`), one button each; a click hands
//! the chosen one to `on_choose`.

use crate::patches::{PatchScenario, PATCH_SCENARIOS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PatchScenarioListProps {
    pub on_choose: Callback<&'static PatchScenario>,
}

#[component]
pub fn PatchScenarioList(p: &PatchScenarioListProps) -> Html {
    html! {
        <details class="patch-scenarios">
            <summary data-testid="patch-menu">{format!("Reproduce a patch's result ({} scenarios) ▾", PATCH_SCENARIOS.len())}</summary>
            <ul data-testid="patch-scenarios">
                { for PATCH_SCENARIOS.iter().map(|s| {
                    let onclick = p.on_choose.reform(move |_: MouseEvent| s);
                    html! {
                        <li data-testid="patch-scenario" data-patch={s.id}>
                            <button class="ghost patch-btn" {onclick}>{s.title}</button>
                            <span class="patch-line">{s.reproduces}</span>
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}
