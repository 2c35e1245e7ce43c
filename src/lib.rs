//! sisviz: watch the Linux scheduler's `select_idle_sibling()` decide, in the browser.
//!
//! The page app starts from `start()` (into `#sisviz-app`, from the URL query). `mount()`
//! renders more instances anywhere (embeds), each with its own Simulation; `Handle::destroy()`
//! unmounts one.

pub mod app;
pub mod canvas;
pub mod components;
pub mod cpu_canvas;
pub mod draw;
pub mod export_json;
pub mod hooks;
pub mod main_view;
pub mod patches;
pub mod replay_api;
pub mod runner;
pub mod state;
pub mod sweep_pool;
pub mod terms;
pub mod url;
pub mod verdict;
pub mod workbench_state;
pub mod worker_api;

use app::{App, AppProps, Init};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Shows a panic in the page (and in the console), once.
pub fn install_panic_hook() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        yew::set_custom_panic_hook(Box::new(|info| {
            console_error_panic_hook::hook(info);
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                if let (Ok(div), Some(body)) = (doc.create_element("div"), doc.body()) {
                    div.set_class_name("sisviz-panic");
                    let _ = div.set_attribute("role", "alert");
                    div.set_text_content(Some(&format!(
                        "sisviz stopped because of a bug: {info}. Reload the page; the URL keeps your scenario."
                    )));
                    let _ = body.prepend_with_node_1(&div);
                }
            }
        }));
    });
}

/// The page entry point: renders into `#sisviz-app` when the page has one. (The wasm exports
/// are the `page` feature's: a wasm built on this crate without it, the Replay tab's UI,
/// neither starts an app nor exports the embed API.)
#[cfg_attr(feature = "page", wasm_bindgen(start))]
pub fn start() {
    install_panic_hook();
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(root) = doc.get_element_by_id("sisviz-app") else {
        return;
    };
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let init = Init {
        parsed: url::parse_query(&query),
        sync_url: true,
        keyboard: true,
    };
    yew::Renderer::<App>::with_root_and_props(
        root,
        AppProps {
            init: Rc::new(init),
        },
    )
    .render();
}

/// A mounted instance; `destroy()` unmounts it.
#[cfg_attr(feature = "page", wasm_bindgen)]
pub struct Handle {
    app: Option<yew::AppHandle<App>>,
}

#[cfg_attr(feature = "page", wasm_bindgen)]
impl Handle {
    /// Unmounts the app (stops its animation loop, drops its Simulation). Idempotent.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
    }

    /// Whether the instance is still mounted.
    #[cfg_attr(feature = "page", wasm_bindgen(getter))]
    pub fn mounted(&self) -> bool {
        self.app.is_some()
    }
}

/// Reads the embed/mount configuration: a JSON object of scenario fields plus the view keys
/// (`view`, `embed`, `theme`, `step`, `speed`), or a URL query string (`?llc_weight=8&view=cpus`).
/// The browser's JSON parser turns the object into pairs; they then take the URL's one
/// validation path. Invalid values are reported in the app, never a panic.
pub fn parse_config(config: &str) -> url::Parsed {
    let t = config.trim();
    if !t.starts_with('{') {
        return url::parse_query(t);
    }
    match json_pairs(t) {
        Some(pairs) => url::parse_pairs(pairs),
        None => {
            let mut p = url::parse_query("");
            p.errors.push(format!(
                "invalid scenario '{}': expected a JSON object of scenario fields",
                t.chars().take(40).collect::<String>()
            ));
            p
        }
    }
}

/// A flat JSON object as (key, value-as-text) pairs, via `JSON.parse`; the values are read
/// exactly as the embed API reads its scenario object.
fn json_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let v = js_sys::JSON::parse(text).ok()?;
    scenario_object_pairs(&v).ok()
}

/// Renders an instance into `element` from a config string: a JSON object of scenario fields
/// and view keys or a query string; "" = defaults. For Rust callers and tests; the JS API is
/// [`mount`], which takes only a scenario object.
pub fn mount_config(element: web_sys::Element, config: &str) -> Handle {
    mount_parsed(element, parse_config(config))
}

fn mount_parsed(element: web_sys::Element, parsed: url::Parsed) -> Handle {
    install_panic_hook();
    for e in &parsed.errors {
        gloo::console::warn!(format!("sisviz.mount: {e}"));
    }
    let init = Init {
        parsed,
        sync_url: false,
        keyboard: false,
    };
    let app = yew::Renderer::<App>::with_root_and_props(
        element,
        AppProps {
            init: Rc::new(init),
        },
    )
    .render();
    Handle { app: Some(app) }
}

/// The scenario object's fields as (name, value-as-text) pairs; anything but a plain object of
/// strings, numbers and booleans is rejected with a message saying what was expected.
pub fn scenario_object_pairs(scenario: &JsValue) -> Result<Vec<(String, String)>, String> {
    const WANT: &str =
        "expected a scenario object like {llc_weight: 16, load: 200, view: 'cpus', embed: 1}";
    let shape = if scenario.is_null() {
        Some("null".to_string())
    } else if scenario.is_undefined() {
        Some("undefined".into())
    } else if js_sys::Array::is_array(scenario) {
        Some("an array".into())
    } else if scenario.is_function() {
        Some("a function".into())
    } else if !scenario.is_object() {
        Some(format!(
            "a {}",
            scenario.js_typeof().as_string().unwrap_or_default()
        ))
    } else {
        None
    };
    if let Some(got) = shape {
        return Err(format!("sisviz.mount: invalid scenario ({got}): {WANT}"));
    }
    let obj: &js_sys::Object = scenario.unchecked_ref();
    let mut out = Vec::new();
    for e in js_sys::Object::entries(obj).iter() {
        let e: js_sys::Array = e.unchecked_into();
        let k = e.get(0).as_string().unwrap_or_default();
        let v = e.get(1);
        let text = if let Some(s) = v.as_string() {
            s
        } else if let Some(n) = v.as_f64() {
            // u64 seeds above 2^53 must be given as strings.
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                format!("{}", n as i64)
            } else {
                format!("{n}")
            }
        } else if let Some(b) = v.as_bool() {
            if b { "1" } else { "0" }.to_string()
        } else {
            return Err(format!(
                "sisviz.mount: invalid {k}: expected a string, number or boolean, got {}",
                if v.is_null() {
                    "null".to_string()
                } else {
                    v.js_typeof().as_string().unwrap_or_default()
                }
            ));
        };
        out.push((k, text));
    }
    Ok(out)
}

/// The embed API: renders an instance into `element` from a scenario object of scenario fields
/// (the URL's names) and view keys, e.g. `{llc_weight: 112, load: 200, view: "curve", embed: 1}`.
/// The fields take the one validation path (`Scenario::from_pairs`); invalid values are shown
/// in the instance's error panel (and the console). Anything but an element and a plain object
/// throws. More than one instance per page works; each is independent.
#[cfg_attr(feature = "page", wasm_bindgen)]
pub fn mount(element: JsValue, scenario: JsValue) -> Result<Handle, JsError> {
    let Ok(element) = element.dyn_into::<web_sys::Element>() else {
        return Err(JsError::new(
            "sisviz.mount: expected a DOM element as the first argument",
        ));
    };
    let pairs = scenario_object_pairs(&scenario).map_err(|e| JsError::new(&e))?;
    Ok(mount_parsed(element, url::parse_pairs(pairs)))
}
