//! Export panel: the run's metrics (schedstat-table text, CSV, JSON), the canvases as PNG, the
//! decisions as a Chrome/Perfetto trace (the ring, or a recording made while playing), and the
//! scenario file (save, load). Everything is a download made in the page (Blob + object URL +
//! `<a download>`); nothing goes over the network.

use crate::export_json::{chrome_trace_json, report_json, RECORD_CAP};
use crate::runner::Runner;
use sis_core::kernel::trace::Decision;
use sis_core::sim::engine::DECISION_RING;
use sis_core::Scenario;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlAnchorElement, HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// The app's Runner, compared by identity (props need PartialEq).
#[derive(Clone)]
pub struct RunnerRef(pub Rc<RefCell<Runner>>);

impl PartialEq for RunnerRef {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

#[derive(Properties, PartialEq)]
pub struct ExportProps {
    pub runner: RunnerRef,
    pub scenario: Scenario,
    /// Changes whenever the simulation moved (re-renders the recording's count).
    pub version: u64,
    /// (file name stem, canvas).
    pub canvases: Vec<(AttrValue, NodeRef)>,
    /// A loaded scenario file, already validated.
    pub on_load: Callback<Scenario>,
    pub on_error: Callback<String>,
}

fn click_download(name: &str, href: &str) -> Result<(), JsValue> {
    let doc = gloo::utils::document();
    let a: HtmlAnchorElement = doc.create_element("a")?.unchecked_into();
    a.set_href(href);
    a.set_download(name);
    let _ = a.set_attribute("hidden", "");
    let body = doc.body().ok_or("no body")?;
    body.append_child(&a)?;
    a.click();
    body.remove_child(&a)?;
    Ok(())
}

/// Downloads `text` as file `name` (Blob + object URL, revoked a little later).
pub fn download_text(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let r = click_download(name, &url);
    gloo::timers::callback::Timeout::new(30_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    r
}

/// Downloads a canvas as PNG.
pub fn download_png(name: &str, canvas: &HtmlCanvasElement) -> Result<(), JsValue> {
    let url = canvas.to_data_url_with_type("image/png")?;
    click_download(name, &url)
}

/// The Chrome trace of the recording (when it has decisions) or else of the decision ring.
pub fn trace_of(r: &Runner) -> Option<String> {
    let sim = r.sim.as_ref()?;
    let n = sim.topology().nr_cpus();
    let cost = sim.scenario().probe_cost_ns;
    // One `chrome_trace_json` instance (over a slice iterator) for both sources.
    let list: Vec<&Decision> = match r.rec.as_ref().filter(|x| !x.decisions.is_empty()) {
        Some(rec) => rec.decisions.iter().collect(),
        None => sim.decisions().iter().collect(),
    };
    Some(chrome_trace_json(list.iter().copied(), n, cost))
}

#[component]
pub fn ExportPanel(p: &ExportProps) -> Html {
    let stem = format!(
        "sisviz-{}-{}-{}cpu-load{}-seed{}",
        p.scenario.preset,
        p.scenario.workload.name(),
        p.scenario.llcs * p.scenario.llc_weight,
        p.scenario.load,
        p.scenario.seed
    );
    let report = |fmt: &'static str| {
        let (runner, stem, err) = (p.runner.clone(), stem.clone(), p.on_error.clone());
        Callback::from(move |_: MouseEvent| {
            let r = runner.0.borrow();
            let Some(sim) = r.sim.as_ref() else { return };
            let rep = sim.report();
            let res = match fmt {
                "txt" => download_text(
                    &format!("{stem}.txt"),
                    "text/plain",
                    &sis_core::analysis::export::metrics_text(&rep),
                ),
                "csv" => download_text(
                    &format!("{stem}.csv"),
                    "text/csv",
                    &sis_core::analysis::export::metrics_csv(&rep),
                ),
                _ => download_text(
                    &format!("{stem}.json"),
                    "application/json",
                    &report_json(&rep),
                ),
            };
            if res.is_err() {
                err.emit("export: the browser refused the download".into());
            }
        })
    };
    let trace = {
        let (runner, stem, err) = (p.runner.clone(), stem.clone(), p.on_error.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(t) = trace_of(&runner.0.borrow()) else {
                return;
            };
            if download_text(&format!("{stem}.trace.json"), "application/json", &t).is_err() {
                err.emit("export: the browser refused the download".into());
            }
        })
    };
    let rec_on = p.runner.0.borrow().rec.as_ref().is_some_and(|r| r.active);
    let (rec_n, rec_lost) = p
        .runner
        .0
        .borrow()
        .rec
        .as_ref()
        .map_or((0, 0), |r| (r.decisions.len(), r.lost));
    let toggle_rec = {
        let runner = p.runner.clone();
        Callback::from(move |_: MouseEvent| {
            let mut r = runner.0.borrow_mut();
            let active = r.rec.as_ref().is_some_and(|x| x.active);
            if active {
                if let Some(x) = r.rec.as_mut() {
                    x.active = false;
                }
            } else {
                r.start_recording();
            }
            r.version += 1;
        })
    };
    let pngs = p.canvases.iter().map(|(name, node)| {
        let (node, file, err) = (
            node.clone(),
            format!("{stem}-{name}.png"),
            p.on_error.clone(),
        );
        let onclick = Callback::from(move |_: MouseEvent| {
            if let Some(c) = node.cast::<HtmlCanvasElement>() {
                if download_png(&file, &c).is_err() {
                    err.emit("export: the browser refused the PNG".into());
                }
            }
        });
        html! { <button class="ghost" {onclick} data-testid={format!("export-png-{name}")}>{format!("{name}.png")}</button> }
    });
    let save = {
        let (sc, err) = (p.scenario.clone(), p.on_error.clone());
        Callback::from(move |_: MouseEvent| {
            if download_text("sisviz-scenario.json", "application/json", &sc.to_json()).is_err() {
                err.emit("export: the browser refused the download".into());
            }
        })
    };
    let load = {
        let (on_load, err) = (p.on_load.clone(), p.on_error.clone());
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let (on_load, err) = (on_load.clone(), err.clone());
            yew::platform::spawn_local(async move {
                let file = gloo::file::File::from(file);
                if file.size() > 1 << 20 {
                    err.emit(format!(
                        "invalid scenario '{}': expected a scenario file under 1 MB",
                        file.name()
                    ));
                    return;
                }
                match gloo::file::futures::read_as_text(&file).await {
                    Ok(text) => match Scenario::from_json(&text) {
                        Ok(sc) => on_load.emit(sc),
                        Err(e) => err.emit(format!("{}: {e}", file.name())),
                    },
                    Err(e) => err.emit(format!("{}: cannot read the file: {e}", file.name())),
                }
            });
        })
    };
    html! {
        <details class="export panel" data-testid="export">
            <summary>{"Export, share, scenario files"}</summary>
            <div class="export-row">
                <span class="muted">{"Metrics:"}</span>
                <button class="ghost" onclick={report("txt")} data-testid="export-text"
                    title="The current metrics laid out like the SIS_UTIL v4 patch's tables (paste into a mail)">{"text"}</button>
                <button class="ghost" onclick={report("csv")} data-testid="export-csv">{"CSV"}</button>
                <button class="ghost" onclick={report("json")} data-testid="export-json"
                    title="The same JSON as `sis run --format json`">{"JSON"}</button>
                <span class="muted">{"Charts:"}</span>
                { for pngs }
            </div>
            <div class="export-row">
                <span class="muted">{"Trace:"}</span>
                <button class="ghost" onclick={trace} data-testid="export-trace"
                    title="Chrome/Perfetto JSON trace, one track per CPU (open in ui.perfetto.dev or chrome://tracing)">
                    {"Perfetto trace"}</button>
                <button class={classes!("ghost", rec_on.then_some("on"))} onclick={toggle_rec} data-testid="record"
                    aria-pressed={rec_on.to_string()}>
                    { if rec_on { "■ Stop recording" } else { "● Record" } }</button>
                <span class="hint" data-testid="record-count">
                    { if rec_n > 0 || rec_on {
                        format!("{rec_n} decisions recorded{}", if rec_lost > 0 { format!(", {rec_lost} missed (more than {DECISION_RING} in one frame, or past {RECORD_CAP})") } else { String::new() })
                    } else {
                        format!("The trace holds the last {DECISION_RING} decisions; press Record, then Play, to capture up to {RECORD_CAP}.")
                    } }
                </span>
            </div>
            <div class="export-row">
                <span class="muted">{"Scenario file:"}</span>
                <button class="ghost" onclick={save} data-testid="save-scenario"
                    title="The JSON scenario file that `sis run --scenario FILE` reads">{"Save"}</button>
                <label class="ghost file-label">{"Load… "}
                    <input type="file" accept=".json,application/json" onchange={load} data-testid="load-scenario" />
                </label>
            </div>
        </details>
    }
}
