//! The main view's work on each animation frame: advance the simulation while playing,
//! redraw the CPU canvas when anything it shows changed, and, at most 10 times a second, the
//! charts (scan curve, histogram, sparklines). Lives outside Yew state, like the `Runner`.

use crate::canvas::{self, CanvasBox};
use crate::cpu_canvas::{CpuCanvas, OverlayState};
use crate::draw::curve::draw_scan_curve;
use crate::draw::hist::draw_scan_hist;
use crate::draw::plot::ChartMapCell;
use crate::draw::spark::draw_sparkline;
use crate::draw::Palette;
use crate::runner::Runner;
use web_sys::HtmlCanvasElement;
use yew::NodeRef;

/// What a frame needs from the UI state (copied on every render).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameInputs {
    pub playing: bool,
    /// Simulated µs per real ms.
    pub speed: u32,
    pub overlay: OverlayState,
    pub dark: bool,
}

/// The main view's canvases.
#[derive(Clone, Default, PartialEq)]
pub struct MainCanvases {
    pub cpus: NodeRef,
    pub curve: NodeRef,
    pub hist: NodeRef,
    pub spark_se_eff: NodeRef,
    pub spark_scanned: NodeRef,
}

/// Where the charts put their data, for the components' hover readouts.
#[derive(Clone, Default, PartialEq)]
pub struct ChartMaps {
    pub curve: ChartMapCell,
    pub hist: ChartMapCell,
}

/// Everything the charts were last drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ChartsDrawn {
    version: u64,
    dark: bool,
    boxes: [CanvasBox; 4],
}

/// Minimum time between two chart redraws (and the text refresh while playing), ms.
const CHARTS_EVERY_MS: f64 = 100.0;
/// Real time per frame given to a pending replay or warm-up, ms.
const PENDING_SLICE_MS: f64 = 25.0;
/// Time between two redraws of the progress line and the CPU canvas during a replay, ms.
const PROGRESS_EVERY_MS: f64 = 250.0;
/// Time between two sparkline samples, ms.
const SPARK_EVERY_MS: f64 = 250.0;
/// Our own work per frame while playing (frame loop, canvases, Yew's render), ms: a 60 Hz
/// frame is 16.7 ms and the browser needs the rest to raster and composite.
const FRAME_TARGET_MS: f64 = 11.0;
/// The simulation's share of a frame: at most this, ms ...
const SIM_BUDGET_MAX_MS: f64 = 8.0;
/// ... and at least this, so a slow machine still moves, ms.
const SIM_BUDGET_MIN_MS: f64 = 1.0;
/// Frames whose work the CPU canvas's `data-frame-work` lists.
const FRAME_WORK_KEEP: usize = 180;

/// One played frame's work, ms.
#[derive(Clone, Copy, Debug)]
struct FrameWork {
    total: f64,
    sim: f64,
    kind: FrameKind,
}

/// What a frame draws besides the simulation and the CPU canvas. The charts and Yew's text
/// render each cost about a frame's budget at 256 CPUs, so they take turns: the charts on one
/// frame, the text on the next (each 10 times a second while playing).
#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameKind {
    Plain = 0,
    Charts = 1,
    Text = 2,
}

/// A frame whose work is still being counted (until Yew's render after it is done).
#[derive(Clone, Copy, Debug)]
struct OpenFrame {
    t0: f64,
    sim_ms: f64,
    kind: FrameKind,
}

#[derive(Default)]
pub struct MainView {
    pub cpu_canvas: CpuCanvas,
    pub maps: ChartMaps,
    charts_drawn: Option<ChartsDrawn>,
    last_frame_ms: f64,
    last_spark_ms: f64,
    last_charts_ms: f64,
    last_progress_ms: f64,
    /// What a frame costs besides the simulation, ms (a decaying peak), by `FrameKind`.
    overhead_ms: [f64; 3],
    /// The charts were drawn while playing: the next frame re-renders the text.
    text_due: bool,
    open: Option<OpenFrame>,
    /// The last frames played, a ring (`work_next`: the oldest once it is full).
    work: Vec<FrameWork>,
    work_next: usize,
}

impl MainView {
    /// One animation frame at `ts` (ms). Returns whether Yew should re-render the text views
    /// (the ~10 Hz refresh while playing).
    pub fn frame(
        &mut self,
        ts: f64,
        runner: &mut Runner,
        inputs: &FrameInputs,
        canvases: &MainCanvases,
    ) -> bool {
        let t0 = canvas::now_ms();
        let dt = if self.last_frame_ms > 0.0 {
            (ts - self.last_frame_ms).clamp(0.0, 50.0)
        } else {
            16.0
        };
        self.last_frame_ms = ts;
        if runner.pending.is_some() {
            // A replay or warm-up: one slice per frame, the page stays responsive. The CPU
            // canvas and the progress line follow a few times a second (a big machine's
            // render would cost as much as the slice), and once when it finishes.
            let done = runner.work(PENDING_SLICE_MS, &canvas::now_ms);
            if !done && ts - self.last_progress_ms < PROGRESS_EVERY_MS {
                return false;
            }
            self.last_progress_ms = ts;
            if let Some(c) = canvases.cpus.cast::<HtmlCanvasElement>() {
                self.cpu_canvas
                    .draw(&c, runner, &inputs.overlay, inputs.dark);
            }
            return true;
        }
        let due = if self.text_due {
            FrameKind::Text
        } else if ts - self.last_charts_ms >= CHARTS_EVERY_MS {
            FrameKind::Charts
        } else {
            FrameKind::Plain
        };
        let mut sim_ms = 0.0;
        if inputs.playing && runner.sim.is_some() {
            let want = (dt * inputs.speed as f64 * 1000.0) as u64;
            // The frames that also draw the charts or the text give the simulation less.
            let budget = (FRAME_TARGET_MS - self.overhead_ms[due as usize])
                .clamp(SIM_BUDGET_MIN_MS, SIM_BUDGET_MAX_MS);
            let s0 = canvas::now_ms();
            let ran = runner.advance(want.max(1), budget, &canvas::now_ms);
            sim_ms = canvas::now_ms() - s0;
            if dt > 0.0 {
                runner.achieved_speed =
                    runner.achieved_speed * 0.9 + (ran as f64 / 1000.0 / dt) * 0.1;
            }
            if ts - self.last_spark_ms > SPARK_EVERY_MS {
                runner.sample_spark();
                self.last_spark_ms = ts;
            }
        }
        if due == FrameKind::Text {
            self.text_due = false;
            if inputs.playing {
                // The canvas shows the decision the text shows (pinned at the text refresh),
                // from the next frame: this one is the text's.
                runner.pin_newest();
                self.cpu_canvas.invalidate();
                self.open = Some(OpenFrame {
                    t0,
                    sim_ms,
                    kind: FrameKind::Text,
                });
                return true;
            }
        }
        let mut kind = FrameKind::Plain;
        if let Some(c) = canvases.cpus.cast::<HtmlCanvasElement>() {
            self.cpu_canvas
                .draw(&c, runner, &inputs.overlay, inputs.dark);
        }
        if due == FrameKind::Charts && self.draw_charts(runner, inputs.dark, canvases) {
            kind = FrameKind::Charts;
            self.last_charts_ms = ts;
            self.text_due = inputs.playing;
        }
        self.open = inputs.playing.then_some(OpenFrame { t0, sim_ms, kind });
        false
    }

    /// Closes the frame `frame` opened: at the end of the frame's callback, or after Yew's
    /// render of a text frame (the app's effect). Records its whole work and what it cost
    /// besides the simulation. Each text frame lists the last 180 frames on the CPU canvas,
    /// `data-frame-work="total,sim,kind ..."` in ms, oldest first (kind: 0 plain, 1 charts,
    /// 2 text), for `tests/e2e/bench.mjs`.
    pub fn frame_end(&mut self, runner: &mut Runner, cpus: &NodeRef) {
        let Some(f) = self.open.take() else { return };
        let total = canvas::now_ms() - f.t0;
        // A peak that decays: one slow render holds the simulation back for about a second.
        let o = &mut self.overhead_ms[f.kind as usize];
        *o = (*o * 0.9).max(total - f.sim_ms);
        runner.work_ms = runner.work_ms * 0.9 + total * 0.1;
        let work = FrameWork {
            total,
            sim: f.sim_ms,
            kind: f.kind,
        };
        if self.work.len() < FRAME_WORK_KEEP {
            self.work.push(work);
        } else {
            self.work[self.work_next] = work;
            self.work_next = (self.work_next + 1) % FRAME_WORK_KEEP;
        }
        if let (FrameKind::Text, Some(c)) = (f.kind, cpus.cast::<HtmlCanvasElement>()) {
            let (new, old) = self.work.split_at(self.work_next);
            let mut list = String::new();
            for w in old.iter().chain(new) {
                list.push_str(&format!("{:.2},{:.2},{} ", w.total, w.sim, w.kind as u8));
            }
            let _ = c.set_attribute("data-frame-work", &list);
        }
    }

    /// Redraws the charts unless nothing they show changed. Returns whether it drew.
    fn draw_charts(&mut self, r: &Runner, dark: bool, c: &MainCanvases) -> bool {
        let fit = |n: &NodeRef| n.cast::<HtmlCanvasElement>().map(|c| (canvas::fit(&c), c));
        let curve = fit(&c.curve);
        let hist = fit(&c.hist);
        let se = fit(&c.spark_se_eff);
        let sc = fit(&c.spark_scanned);
        let size = |x: &Option<(CanvasBox, HtmlCanvasElement)>| {
            x.as_ref().map_or(CanvasBox::default(), |x| x.0)
        };
        let now = ChartsDrawn {
            version: r.version,
            dark,
            boxes: [size(&curve), size(&hist), size(&se), size(&sc)],
        };
        if self.charts_drawn == Some(now) {
            return false;
        }
        let pal = Palette::of(dark);
        let warn = |what: &str, e: String| gloo::console::warn!(format!("{what}: {e}"));
        let drawable = |x: Option<(CanvasBox, HtmlCanvasElement)>| x.filter(|x| !x.0.is_empty());
        if let (Some((b, c)), Some(data)) = (drawable(curve), r.curve_data()) {
            match draw_scan_curve(&c, &data, &pal, b.dpr) {
                Ok(m) => self.maps.curve.set(m),
                Err(e) => warn("scan-curve", e),
            }
        }
        if let (Some((b, c)), Some(sim)) = (drawable(hist), r.sim.as_ref()) {
            match draw_scan_hist(&c, &sim.histogram().buckets, &pal, b.dpr) {
                Ok(m) => self.maps.hist.set(m),
                Err(e) => warn("scan-hist", e),
            }
        }
        let sparks = r.sparks();
        if let Some((b, c)) = drawable(se) {
            let v: Vec<f64> = sparks.iter().map(|s| s.se_eff).collect();
            if let Err(e) = draw_sparkline(&c, &v, Some(100.0), &pal, b.dpr) {
                warn("spark", e);
            }
        }
        if let Some((b, c)) = drawable(sc) {
            let v: Vec<f64> = sparks.iter().map(|s| s.scanned_per_wakeup).collect();
            if let Err(e) = draw_sparkline(&c, &v, None, &pal, b.dpr) {
                warn("spark", e);
            }
        }
        self.charts_drawn = Some(now);
        true
    }
}
