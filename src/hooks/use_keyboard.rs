//! The page's keyboard shortcuts: space = play/pause, → = step, ? = explain every term in
//! place (not while typing in a field).

use gloo::events::{EventListener, EventListenerOptions};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What the shortcuts do.
#[derive(Clone, PartialEq)]
pub struct Shortcuts {
    pub play_pause: Callback<()>,
    pub step: Callback<()>,
    pub explain: Callback<()>,
}

/// Listens on the window while mounted (when `enabled`: off for embedded instances); the
/// latest `shortcuts` are used.
#[hook]
pub fn use_keyboard_shortcuts(enabled: bool, shortcuts: Shortcuts) {
    let latest = use_mut_ref(|| None::<Shortcuts>);
    *latest.borrow_mut() = Some(shortcuts);
    use_effect_with(enabled, move |&enabled| {
        let listener = enabled.then(|| listen(latest));
        move || drop(listener)
    });
}

fn listen(latest: Rc<std::cell::RefCell<Option<Shortcuts>>>) -> EventListener {
    EventListener::new_with_options(
        &gloo::utils::window(),
        "keydown",
        EventListenerOptions::enable_prevent_default(),
        move |e| {
            let Some(e) = e.dyn_ref::<KeyboardEvent>() else {
                return;
            };
            if e.ctrl_key() || e.meta_key() || e.alt_key() || typing_in_a_field(e) {
                return;
            }
            let Some(s) = latest.borrow().clone() else {
                return;
            };
            let action = match e.key().as_str() {
                " " => &s.play_pause,
                "ArrowRight" => &s.step,
                "?" => &s.explain,
                _ => return,
            };
            e.prevent_default();
            action.emit(());
        },
    )
}

fn typing_in_a_field(e: &KeyboardEvent) -> bool {
    let tag = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|el| el.tag_name().to_ascii_lowercase())
        .unwrap_or_default();
    matches!(
        tag.as_str(),
        "input" | "select" | "textarea" | "button" | "summary"
    )
}
