//! The CPU canvas driver, shared by the main view and the compare view: lays the canvas out
//! for the runner's topology, skips frames identical to the last one drawn, draws
//! `draw::cpus` with the shown decision overlaid, and says which CPU a click hit.

use crate::canvas;
use crate::draw::cpus::{draw_cpus, layout, CpuLayout, CpuSnap, Overlay, MAX_HEIGHT};
use crate::draw::Palette;
use crate::runner::{found_idle, Runner};
use crate::state::Guess;
use web_sys::HtmlCanvasElement;

/// Which decision is drawn over the bars, and how much of it (from the UI state).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OverlayState {
    /// The selected decision (None = the newest, or the pinned one while playing).
    pub selected: Option<u64>,
    pub playing: bool,
    /// Checks shown of the decision (stepping probe by probe); None = all.
    pub probe: Option<usize>,
    /// Predict mode: the decision whose result is hidden.
    pub hidden: Option<u64>,
    pub guess: Option<Guess>,
}

/// Everything a drawing depends on: the same inputs draw the same pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Drawn {
    version: u64,
    overlay: OverlayState,
    dark: bool,
    css_width: i32,
    dpr: f64,
}

#[derive(Default)]
pub struct CpuCanvas {
    layout: Option<CpuLayout>,
    /// The topology `layout` was made for (per LLC: cores, each its CPUs).
    layout_groups: Vec<Vec<Vec<u32>>>,
    drawn: Option<Drawn>,
    snaps: Vec<CpuSnap>,
    /// Fit the bars into the window below the canvas's top (an iframe embed of the CPU view)
    /// rather than up to [`MAX_HEIGHT`].
    pub fit_window: bool,
    max_height: f64,
    /// The CPU numbers last written to `data-ids` (written only when they change).
    ids: Vec<u32>,
}

impl CpuCanvas {
    /// Draws `runner`'s CPUs unless nothing changed since the last call. Returns whether it
    /// drew.
    pub fn draw(
        &mut self,
        canvas: &HtmlCanvasElement,
        runner: &Runner,
        overlay: &OverlayState,
        dark: bool,
    ) -> bool {
        let css_width = canvas.client_width();
        let Some(sim) = runner.sim.as_ref() else {
            return false;
        };
        if css_width <= 0 {
            return false;
        }
        let dpr = canvas::device_pixel_ratio();
        let max_height = if self.fit_window {
            let top = canvas.get_bounding_client_rect().top();
            let win = web_sys::window()
                .and_then(|w| w.inner_height().ok())
                .and_then(|h| h.as_f64())
                .unwrap_or(MAX_HEIGHT);
            (win - top - 24.0).clamp(120.0, MAX_HEIGHT)
        } else {
            MAX_HEIGHT
        };
        let stale = (max_height - self.max_height).abs() > 0.5
            || self.layout_groups != runner.groups
            || self
                .layout
                .as_ref()
                .is_none_or(|l| (l.width - css_width as f64).abs() > 0.5);
        if stale {
            self.max_height = max_height;
            let l = layout(
                css_width as f64,
                max_height,
                &runner.groups,
                sim.topology().nr_cpus() as usize,
            );
            let _ = canvas.set_attribute("style", &format!("height:{}px", l.height));
            // Where each CPU's bar is (CSS px, "x,y" per CPU id): the end-to-end tests read
            // the screenshot's pixels at these places.
            let bars: Vec<String> = l.pos.iter().map(|(x, y)| format!("{x},{y}")).collect();
            let _ = canvas.set_attribute("data-bars", &bars.join(" "));
            let _ = canvas.set_attribute("data-bar-w", &l.bw.to_string());
            let _ = canvas.set_attribute("data-bar-h", &l.bar_h.to_string());
            self.layout = Some(l);
            self.layout_groups = runner.groups.clone();
            self.drawn = None;
            self.ids.clear();
        }
        let now = Drawn {
            version: runner.version,
            overlay: *overlay,
            dark,
            css_width,
            dpr,
        };
        if self.drawn == Some(now) {
            return false;
        }
        let Some(lay) = self.layout.as_ref() else {
            return false;
        };
        canvas::set_backing_size(canvas, lay.width, lay.height, dpr);
        let Some(ctx) = canvas::context_2d(canvas) else {
            return false;
        };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        runner.cpu_snaps(&mut self.snaps);
        let llcs = runner.llc_snaps();
        let ov = runner.shown(overlay.selected, overlay.playing).map(|d| {
            let hidden = overlay.hidden == Some(d.id.seq);
            let shown = if hidden {
                0
            } else {
                overlay
                    .probe
                    .map_or(d.steps.len(), |p| (p + 1).min(d.steps.len()))
            };
            Overlay {
                missed: !found_idle(d),
                decision: d,
                shown,
                reveal: !hidden && shown >= d.steps.len(),
                guess: overlay.guess.filter(|g| g.seq == d.id.seq).map(|g| g.cpu),
            }
        });
        let ids = draw_cpus(
            &ctx,
            lay,
            &self.snaps,
            &llcs,
            ov.as_ref(),
            &Palette::of(dark),
        );
        // The CPU numbers under the bars, for the end-to-end tests (like data-bars); a DOM
        // write only when they change, not every frame of play.
        if ids != self.ids {
            let text: Vec<String> = ids.iter().map(u32::to_string).collect();
            let _ = canvas.set_attribute("data-ids", &text.join(" "));
            self.ids = ids;
        }
        self.drawn = Some(now);
        true
    }

    /// Forces the next `draw` to draw.
    pub fn invalidate(&mut self) {
        self.drawn = None;
    }

    /// The CPU whose bar holds the point (CSS px in the canvas), if any.
    pub fn hit(&self, x: f64, y: f64) -> Option<u32> {
        self.layout.as_ref()?.hit(x, y)
    }
}
