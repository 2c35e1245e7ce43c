//! Small shared helpers for the charts (scan curve, histogram, sweep lines, heatmap), drawn with
//! the raw CanvasRenderingContext2d in CSS pixels: a plot frame mapping data to pixels, "nice"
//! tick steps, grid + axes + tick labels, text and lines. Deliberately non-generic (size).

use super::{Palette, Rgb};
use std::f64::consts::FRAC_PI_2;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d as Ctx, HtmlCanvasElement};

/// Gets the canvas's 2D context, scales it to CSS pixels (`dpr`), fills the background.
/// Returns the context and the CSS width and height.
pub fn begin(
    canvas: &HtmlCanvasElement,
    dpr: f64,
    pal: &Palette,
) -> Result<(Ctx, f64, f64), String> {
    let ctx: Ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| "no 2d context".to_string())?;
    let dpr = if dpr > 0.0 { dpr } else { 1.0 };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    let (w, h) = (canvas.width() as f64 / dpr, canvas.height() as f64 / dpr);
    ctx.set_fill_style_str(&pal.bg.css());
    ctx.fill_rect(0.0, 0.0, w, h);
    ctx.set_line_dash(&js_sys::Array::new()).ok();
    ctx.set_line_join("round");
    Ok((ctx, w, h))
}

/// Formats `v` with `decimals` decimals (the one place the charts format numbers).
pub fn num(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

/// Sets the font to `px` CSS pixels (sans-serif), optionally bold.
pub fn font(ctx: &Ctx, px: f64, bold: bool) {
    let b = if bold { "bold " } else { "" };
    ctx.set_font(&format!("{b}{px}px sans-serif"));
}

/// Fills `s` at (x, y) with the given alignment ("left"/"center"/"right",
/// "top"/"middle"/"bottom"/"alphabetic").
pub fn text(ctx: &Ctx, s: &str, x: f64, y: f64, align: &str, baseline: &str, col: Rgb) {
    ctx.set_fill_style_str(&col.css());
    ctx.set_text_align(align);
    ctx.set_text_baseline(baseline);
    let _ = ctx.fill_text(s, x, y);
}

/// Fills `s` rotated by `angle` radians about (x, y).
#[allow(clippy::too_many_arguments)]
pub fn text_rot(
    ctx: &Ctx,
    s: &str,
    x: f64,
    y: f64,
    angle: f64,
    align: &str,
    baseline: &str,
    col: Rgb,
) {
    ctx.save();
    let _ = ctx.translate(x, y);
    let _ = ctx.rotate(angle);
    text(ctx, s, 0.0, 0.0, align, baseline, col);
    ctx.restore();
}

/// Strokes a polyline through `pts` (pixel coordinates).
pub fn polyline(ctx: &Ctx, pts: &[(f64, f64)], col: &str, width: f64) {
    if pts.is_empty() {
        return;
    }
    ctx.set_stroke_style_str(col);
    ctx.set_line_width(width);
    ctx.begin_path();
    for (i, &(x, y)) in pts.iter().enumerate() {
        if i == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
}

/// Fills a disc.
pub fn dot(ctx: &Ctx, x: f64, y: f64, r: f64, col: &str) {
    ctx.set_fill_style_str(col);
    ctx.begin_path();
    let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
    ctx.fill();
}

/// A "nice" tick step (1, 2 or 5 × 10^k) giving at most about `n` ticks over `span`.
pub fn tick_step(span: f64, n: usize) -> f64 {
    let rough = (span / n.max(1) as f64).max(1e-9);
    let mag = 10f64.powf(rough.log10().floor());
    let norm = rough / mag;
    let m = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Decimals needed to print multiples of `step`.
pub fn step_decimals(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// The multiples of `step` in lo..=hi.
pub fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last.max(first - 1))
        .map(|k| k as f64 * step)
        .collect()
}

/// A plot area (pixels: left, top, right, bottom) over a data range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plot {
    pub l: f64,
    pub t: f64,
    pub r: f64,
    pub b: f64,
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

impl Plot {
    pub fn x(&self, v: f64) -> f64 {
        self.l + (v - self.x0) / (self.x1 - self.x0) * (self.r - self.l)
    }
    pub fn y(&self, v: f64) -> f64 {
        self.b - (v - self.y0) / (self.y1 - self.y0) * (self.b - self.t)
    }
    pub fn pt(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (self.x(x), self.y(y))
    }
}

/// Axis ticks: positions (data units) with their labels.
pub type Ticks = Vec<(f64, String)>;

/// Evenly stepped numeric ticks over `lo..=hi`, about `n` of them.
pub fn num_ticks(lo: f64, hi: f64, n: usize) -> (Ticks, f64) {
    let step = tick_step(hi - lo, n);
    let d = step_decimals(step);
    let t = ticks(lo, hi, step)
        .into_iter()
        .map(|v| (v, num(v, d)))
        .collect();
    (t, step)
}

/// Grid lines: bold at `xt`/`yt` (when `x_grid`/`y_grid`), light ones at fifths of the steps.
#[allow(clippy::too_many_arguments)]
pub fn grid(
    ctx: &Ctx,
    p: &Plot,
    xt: &Ticks,
    xstep: f64,
    yt: &Ticks,
    ystep: f64,
    x_grid: bool,
    pal: &Palette,
) {
    ctx.set_line_width(1.0);
    let snap = |v: f64| v.round() + 0.5;
    let lines = |xs: &[f64], ys: &[f64], style: String| {
        ctx.set_stroke_style_str(&style);
        ctx.begin_path();
        for &x in xs {
            let px = snap(p.x(x));
            ctx.move_to(px, p.t);
            ctx.line_to(px, p.b);
        }
        for &y in ys {
            let py = snap(p.y(y));
            ctx.move_to(p.l, py);
            ctx.line_to(p.r, py);
        }
        ctx.stroke();
    };
    let minor = |step: f64, lo: f64, hi: f64| -> Vec<f64> {
        if step <= 0.0 {
            return Vec::new();
        }
        let m = ticks(lo, hi, step / 5.0);
        m.into_iter()
            .filter(|v| ((v / step).round() * step - v).abs() > step * 1e-6)
            .collect()
    };
    let xs_minor = if x_grid {
        minor(xstep, p.x0, p.x1)
    } else {
        Vec::new()
    };
    lines(&xs_minor, &minor(ystep, p.y0, p.y1), pal.grid.css_a(0.35));
    let xs: Vec<f64> = if x_grid {
        xt.iter().map(|t| t.0).collect()
    } else {
        Vec::new()
    };
    let ys: Vec<f64> = yt.iter().map(|t| t.0).collect();
    lines(&xs, &ys, pal.grid.css_a(0.8));
}

/// The left and bottom axis lines, tick marks and tick labels (`fs` px), with the axis
/// descriptions (`desc_fs` px): x below the labels, y rotated left of them.
#[allow(clippy::too_many_arguments)]
pub fn axes(
    ctx: &Ctx,
    p: &Plot,
    xt: &Ticks,
    yt: &Ticks,
    fs: f64,
    x_desc: &str,
    y_desc: &str,
    desc_fs: f64,
    pal: &Palette,
) {
    let snap = |v: f64| v.round() + 0.5;
    ctx.set_stroke_style_str(&pal.muted.css());
    ctx.set_line_width(1.0);
    ctx.begin_path();
    let (l, b) = (snap(p.l), snap(p.b));
    ctx.move_to(l, p.t);
    ctx.line_to(l, b);
    ctx.line_to(p.r, b);
    for (x, _) in xt {
        let px = snap(p.x(*x));
        ctx.move_to(px, b);
        ctx.line_to(px, b + 5.0);
    }
    for (y, _) in yt {
        let py = snap(p.y(*y));
        ctx.move_to(l, py);
        ctx.line_to(l - 5.0, py);
    }
    ctx.stroke();
    font(ctx, fs, false);
    for (x, s) in xt {
        text(ctx, s, p.x(*x), b + 8.0, "center", "top", pal.muted);
    }
    let mut widest: f64 = 0.0;
    for (y, s) in yt {
        text(ctx, s, l - 8.0, p.y(*y), "right", "middle", pal.muted);
        widest = widest.max(ctx.measure_text(s).map_or(0.0, |m| m.width()));
    }
    font(ctx, desc_fs, false);
    if !x_desc.is_empty() {
        let y = b + 8.0 + fs + 8.0;
        text(ctx, x_desc, (p.l + p.r) / 2.0, y, "center", "top", pal.fg);
    }
    if !y_desc.is_empty() {
        let x = (l - 8.0 - widest - 8.0).max(desc_fs * 0.6);
        text_rot(
            ctx,
            y_desc,
            x,
            (p.t + p.b) / 2.0,
            -FRAC_PI_2,
            "center",
            "bottom",
            pal.fg,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps_and_ticks() {
        assert_eq!(tick_step(100.0, 11), 10.0);
        assert_eq!(tick_step(17.28, 6), 5.0);
        assert_eq!(tick_step(5.5, 6), 1.0);
        assert_eq!(tick_step(1.1, 6), 0.2);
        assert_eq!(step_decimals(0.2), 1);
        assert_eq!(step_decimals(5.0), 0);
        assert_eq!(ticks(0.0, 17.28, 5.0), vec![0.0, 5.0, 10.0, 15.0]);
        assert_eq!(
            ticks(46.0, 154.0, 20.0),
            vec![60.0, 80.0, 100.0, 120.0, 140.0]
        );
        let (t, _) = num_ticks(0.0, 1.1, 6);
        assert_eq!(t.last().unwrap().1, "1.0");
    }

    #[test]
    fn plot_maps_corners() {
        let p = Plot {
            l: 50.0,
            t: 10.0,
            r: 250.0,
            b: 110.0,
            x0: 0.0,
            x1: 100.0,
            y0: 0.0,
            y1: 10.0,
        };
        assert_eq!(p.pt((0.0, 0.0)), (50.0, 110.0));
        assert_eq!(p.pt((100.0, 10.0)), (250.0, 10.0));
    }
}
