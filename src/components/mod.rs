//! One file per component. Components render UI state and snapshots; the main view's
//! Simulation lives in the app's `Runner`, outside every component. One component runs
//! simulations of its own: `compare` holds the two `Runner`s it compares. Components import
//! shared view functions from `widgets`; besides those, `workbench` composes its panels and
//! `replay` reuses `decision_log::detail_view` to show a replayed decision's checks.

pub mod compare;
pub mod controls;
pub mod cpu_view;
pub mod decision_log;
pub mod export;
pub mod header;
pub mod heatmap;
pub mod metrics;
pub mod patch_scenarios;
pub mod replay;
pub mod scan_curve;
pub mod sweep;
pub mod timeline;
pub mod widgets;
pub mod workbench;

use yew::prelude::*;

/// A kernel term with its tooltip (dotted underline, `title` for the explanation).
#[derive(Properties, PartialEq)]
pub struct TermProps {
    pub name: AttrValue,
    #[prop_or_default]
    pub children: Html,
}

#[component]
pub fn Term(p: &TermProps) -> Html {
    let help = crate::terms::term(&p.name);
    let body = if p.children == Html::default() {
        html! { {p.name.clone()} }
    } else {
        p.children.clone()
    };
    // Not a tab stop (40 of them stood between the controls and the metrics): the controls
    // explain their term on focus, and `?` shows every term's explanation in place.
    html! { <abbr class="term" title={help}>{body}</abbr> }
}

/// `<Term name={name}>{label}</Term>`. The components call this instead of writing the
/// element: one copy of the props-building code in the wasm instead of one per use.
pub fn kernel_term(name: &'static str, label: impl Into<AttrValue>) -> Html {
    term_el(name, label.into())
}

#[inline(never)]
fn term_el(name: &'static str, label: AttrValue) -> Html {
    html! { <Term name={name}>{label}</Term> }
}
