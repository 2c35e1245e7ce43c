//! One file per component. Components render UI state and snapshots; none of them holds
//! the Simulation.

pub mod compare;
pub mod controls;
pub mod cpu_view;
pub mod decision_log;
pub mod export;
pub mod header;
pub mod metrics;
pub mod scan_curve;
pub mod seeds;
pub mod sweep;
pub mod workbench;

use yew::prelude::*;

/// A kernel term with its tooltip (dotted underline, `title` for the explanation).
#[derive(Properties, PartialEq)]
pub struct TermProps {
    pub name: AttrValue,
    #[prop_or_default]
    pub children: Html,
}

#[function_component(Term)]
pub fn term(p: &TermProps) -> Html {
    let help = crate::terms::term(&p.name);
    let body = if p.children == Html::default() {
        html! { {p.name.clone()} }
    } else {
        p.children.clone()
    };
    html! { <abbr class="term" title={help} tabindex="0">{body}</abbr> }
}
