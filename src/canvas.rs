//! The one place the app touches a canvas element as such: its 2D context, the device pixel
//! ratio, sizing it to its CSS box, the page clock and the colour-scheme preference.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The canvas's 2D context.
pub fn context_2d(c: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    c.get_context("2d").ok()??.dyn_into().ok()
}

/// `window.devicePixelRatio`, at least 1.
pub fn device_pixel_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0))
}

/// `performance.now()` in ms (0 outside a window).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Whether the browser asks for a dark colour scheme.
pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// A canvas's CSS size and the device pixel ratio it was sized for: what a drawing depends on
/// besides its data (a change means redraw).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CanvasBox {
    pub css_width: i32,
    pub css_height: i32,
    pub dpr: f64,
}

impl CanvasBox {
    /// Nothing to draw into (hidden, or not laid out yet).
    pub fn is_empty(&self) -> bool {
        self.css_width <= 0 || self.css_height <= 0
    }
}

/// Sizes the canvas's backing store to `css_width` × `css_height` CSS pixels × `dpr`
/// (touching it only when it changes: a resize clears the canvas).
pub fn set_backing_size(c: &HtmlCanvasElement, css_width: f64, css_height: f64, dpr: f64) {
    let (pw, ph) = (
        (css_width * dpr).round() as u32,
        (css_height * dpr).round() as u32,
    );
    if c.width() != pw {
        c.set_width(pw);
    }
    if c.height() != ph {
        c.set_height(ph);
    }
}

/// Sizes a chart canvas to its CSS box × devicePixelRatio.
pub fn fit(c: &HtmlCanvasElement) -> CanvasBox {
    let dpr = device_pixel_ratio();
    let (w, h) = (c.client_width(), c.client_height());
    set_backing_size(c, w as f64, h as f64, dpr);
    CanvasBox {
        css_width: w,
        css_height: h,
        dpr,
    }
}
