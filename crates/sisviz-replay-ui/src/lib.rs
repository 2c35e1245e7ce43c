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

/// Renders the Replay panel into `element`.
#[wasm_bindgen]
pub fn mount_replay(element: web_sys::Element) -> ReplayUi {
    sisviz::install_panic_hook();
    ReplayUi {
        app: Some(yew::Renderer::<ReplayPanel>::with_root(element).render()),
    }
}
