//! The Replay tab's UI, a wasm of its own: `mount_replay(element)` renders the sisviz crate's
//! `ReplayPanel` there and returns a handle whose `destroy()` unmounts it. The page's
//! workbench calls it through static/replay-ui.js when the tab opens (the panel then starts
//! its own worker, static/replay-worker.js, for the replay core).

use sisviz::components::replay::ReplayPanel;
use wasm_bindgen::prelude::*;

/// A mounted Replay panel.
#[wasm_bindgen]
pub struct ReplayUi {
    app: Option<yew::AppHandle<ReplayPanel>>,
}

#[wasm_bindgen]
impl ReplayUi {
    /// Unmounts the panel (its worker is terminated with it). Idempotent.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
    }
}

/// Roots this wasm's Yew runtime uses up before the panel's (see [`skip_page_root_ids`]).
const SKIPPED_ROOT_IDS: u32 = 256;

#[yew::component]
fn Nothing() -> yew::Html {
    yew::Html::default()
}

/// Yew brands every element it renders with its root's id, counted from 1 in each wasm, and
/// handles events in the capture phase at each root: an event inside the panel reached the
/// page's root first, found the panel's elements branded 1 (the page's own root id) and ran
/// the page's listeners under the panel's listener ids (a topology input of the Replay tab
/// changed the page's scenario). So this runtime spends its first root ids on empty roots,
/// and the panel's id is one the page's runtime never gives (it would need as many mounts).
fn skip_page_root_ids() {
    thread_local! {
        static SKIPPED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if SKIPPED.with(|s| s.replace(true)) {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for _ in 0..SKIPPED_ROOT_IDS {
        if let Ok(el) = doc.create_element("div") {
            yew::Renderer::<Nothing>::with_root(el).render().destroy();
        }
    }
}

/// Renders the Replay panel into `element`.
#[wasm_bindgen]
pub fn mount_replay(element: web_sys::Element) -> ReplayUi {
    sisviz::install_panic_hook();
    skip_page_root_ids();
    ReplayUi {
        app: Some(yew::Renderer::<ReplayPanel>::with_root(element).render()),
    }
}
