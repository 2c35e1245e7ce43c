//! Sweeps off the main thread: the `sweep_point` export that `static/sweep-worker.js` calls
//! for each point, and the page's URLs a worker loads (the pool is `crate::sweep_pool`).
//!
//! The worker loads the same wasm-bindgen glue and the same wasm as the page (their hashed
//! URLs come from `static/boot.js`), so a point runs `sis_core::sweep::run_point` exactly as
//! `sis sweep` does; the report crosses back as its JSON (serde_json, as the CLI writes it),
//! identical to `sis sweep --format json`'s `report`.

use sis_core::engine::RunReport;
use sis_core::sweep::run_point;
use sis_core::Scenario;
use wasm_bindgen::prelude::*;

/// Runs one sweep point given as a URL query of scenario fields (`llc_weight=8&load=50&...`)
/// and returns its `RunReport` as JSON, or `error: <message naming the field>`.
#[wasm_bindgen]
pub fn sweep_point(scenario_query: &str) -> String {
    let pairs = crate::url::split_query(scenario_query);
    let sc = match Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(sc) => sc,
        Err(e) => return format!("error: {e}"),
    };
    match run_point(&sc) {
        Ok(r) => serde_json::to_string(&r).unwrap_or_else(|e| format!("error: {e}")),
        Err(e) => format!("error: {e}"),
    }
}

/// A point as the worker receives it: every scenario field, `&`-joined.
pub fn point_query(sc: &Scenario) -> String {
    sc.to_pairs()
        .into_iter()
        .map(|(k, v)| format!("{k}={}", crate::url::encode(&v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A point's report from the JSON `sweep_point` returned (or its `error: ...`). The metrics
/// are recomputed from the integer counters, as the run computed them: serde_json's default
/// float parser may be one ulp off, and its exact one (`float_roundtrip`) costs 8 KB gzipped.
pub fn report_from_json(json: &str) -> Result<RunReport, String> {
    if let Some(e) = json.strip_prefix("error: ") {
        return Err(e.to_string());
    }
    let mut r: RunReport =
        serde_json::from_str(json).map_err(|e| format!("bad report ({e}): {json:.60}"))?;
    r.metrics = r.counters.metrics();
    Ok(r)
}

/// The hashed glue/wasm URLs the page was loaded with (set by static/boot.js; else read from
/// its script tag's data attributes).
pub(crate) fn boot_urls() -> Option<(String, String)> {
    let win = web_sys::window()?;
    let get = |k: &str| {
        js_sys::Reflect::get(&win, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
    };
    if let (Some(js), Some(wasm)) = (get("sisvizJsUrl"), get("sisvizWasmUrl")) {
        return Some((js, wasm));
    }
    let doc = win.document()?;
    let tag = doc.query_selector("script[data-sisviz-js]").ok()??;
    let base = doc.base_uri().ok()??;
    let abs = |a: &str| {
        let rel = tag.get_attribute(a)?;
        web_sys::Url::new_with_base(&rel, &base)
            .ok()
            .map(|u| u.href())
    };
    Some((abs("data-sisviz-js")?, abs("data-sisviz-wasm")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_crosses_from_the_worker_unchanged() {
        for (preset, load) in [("linux-6.0", "150"), ("linux-5.15", "50")] {
            let sc = Scenario::from_pairs([
                ("llc_weight", "8"),
                ("duration", "20ms"),
                ("preset", preset),
                ("load", load),
            ])
            .unwrap();
            let r = run_point(&sc).unwrap();
            let text = sweep_point(&point_query(&sc));
            let back = report_from_json(&text).unwrap();
            assert_eq!(back, r);
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
        }
        assert_eq!(
            report_from_json("error: invalid load").unwrap_err(),
            "invalid load"
        );
    }
}
