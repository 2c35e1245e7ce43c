//! Sweep results (raw 2D canvas, helpers in `chart`): a metric against load, one line per preset, and a heatmap of a
//! metric over two parameters. Pure: canvas + plain data in, pixels out.

use super::chart::{self, Plot};
use super::{Palette, Rgb};
use web_sys::{CanvasRenderingContext2d as Ctx, HtmlCanvasElement};

/// One line: a preset's (load %, value) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Line colours, in preset order.
pub fn series_colour(pal: &Palette, i: usize) -> Rgb {
    [pal.accent, pal.prop, pal.waker, pal.idle, pal.busy][i % 5]
}

/// The y range of the series: 0 up to a little above the largest value (at least `min_top`).
pub fn y_range(series: &[Series], min_top: f64) -> (f64, f64) {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    (0.0, (max * 1.1).max(min_top))
}

/// `metric` vs load, one line per series, with a legend.
pub fn draw_sweep_lines(
    canvas: &HtmlCanvasElement,
    series: &[Series],
    y_desc: &str,
    pal: &Palette,
    dpr: f64,
) -> Result<(), String> {
    let (ctx, w, h) = chart::begin(canvas, dpr, pal)?;
    plot_sweep_lines(&ctx, series, y_desc, w, h, pal);
    Ok(())
}

/// Draws the lines with `ctx` (in CSS pixels) into a `w` × `h` box.
pub fn plot_sweep_lines(ctx: &Ctx, series: &[Series], y_desc: &str, w: f64, h: f64, pal: &Palette) {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (xmin, xmax) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (xmin, xmax) = if xmin > xmax {
        (0.0, 200.0)
    } else if xmin == xmax {
        (xmin - 10.0, xmax + 10.0)
    } else {
        let pad = (xmax - xmin) * 0.04;
        (xmin - pad, xmax + pad)
    };
    let (y0, y1) = y_range(series, 1.0);
    let p = Plot {
        l: 10.0 + 56.0,
        t: 10.0,
        r: (w - 16.0).max(76.0),
        b: (h - 10.0 - 40.0).max(20.0),
        x0: xmin,
        x1: xmax,
        y0,
        y1,
    };
    let (xt, xstep) = chart::num_ticks(xmin, xmax, 9);
    let ystep = chart::tick_step(y1 - y0, 6);
    let yd = if y1 >= 10.0 {
        0
    } else {
        chart::step_decimals(ystep).max(1)
    };
    let yt: chart::Ticks = chart::ticks(y0, y1, ystep)
        .into_iter()
        .map(|v| (v, chart::num(v, yd)))
        .collect();
    chart::grid(ctx, &p, &xt, xstep, &yt, ystep, true, pal);
    chart::axes(
        ctx,
        &p,
        &xt,
        &yt,
        13.0,
        "load, % of the CPUs",
        y_desc,
        14.0,
        pal,
    );
    for (i, s) in series.iter().enumerate() {
        let col = series_colour(pal, i).css();
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|q| q.1.is_finite())
            .map(|&q| p.pt(q))
            .collect();
        chart::polyline(ctx, &pts, &col, 2.5);
        for &(x, y) in &pts {
            chart::dot(ctx, x, y, 3.5, &col);
        }
    }
    if series.is_empty() {
        return;
    }
    // Legend, upper right: a line sample and the name per series.
    chart::font(ctx, 13.0, false);
    let tw = series
        .iter()
        .map(|s| ctx.measure_text(&s.name).map_or(60.0, |m| m.width()))
        .fold(0.0, f64::max);
    let (row, pad) = (18.0, 8.0);
    let bw = pad + 18.0 + 6.0 + tw + pad;
    let bh = pad * 2.0 + row * series.len() as f64 - 4.0;
    let (bx, by) = ((p.r - 6.0 - bw).max(p.l), p.t + 6.0);
    ctx.set_fill_style_str(&pal.bg.css_a(0.85));
    ctx.fill_rect(bx, by, bw, bh);
    ctx.set_stroke_style_str(&pal.grid.css());
    ctx.set_line_width(1.0);
    ctx.stroke_rect(bx.round() + 0.5, by.round() + 0.5, bw, bh);
    for (i, s) in series.iter().enumerate() {
        let y = by + pad + 7.0 + i as f64 * row;
        let x = bx + pad;
        let col = series_colour(pal, i);
        chart::polyline(ctx, &[(x, y), (x + 18.0, y)], &col.css(), 3.0);
        chart::text(ctx, &s.name, x + 24.0, y, "left", "middle", pal.fg);
    }
}

/// A heatmap's data: `values[yi * xs.len() + xi]` (None = not run yet).
#[derive(Clone, Debug, PartialEq)]
pub struct Heat {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub xs: Vec<u32>,
    pub ys: Vec<u32>,
    pub values: Vec<Option<f64>>,
    /// Value printed with this many decimals.
    pub decimals: usize,
}

/// Mixes the palette's background and `hot` by `t` in 0..=1.
pub fn heat_colour(pal: &Palette, hot: Rgb, t: f64) -> Rgb {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * (0.08 + 0.92 * t)).round() as u8;
    Rgb(
        lerp(pal.bg.0, hot.0),
        lerp(pal.bg.1, hot.1),
        lerp(pal.bg.2, hot.2),
    )
}

/// Cells coloured from the background (min) to `hot` (max), each labelled with its value.
pub fn draw_heatmap(
    canvas: &HtmlCanvasElement,
    h: &Heat,
    hot: Rgb,
    pal: &Palette,
    dpr: f64,
) -> Result<(), String> {
    let (ctx, w, ht) = chart::begin(canvas, dpr, pal)?;
    plot_heatmap(&ctx, h, hot, w, ht, pal);
    Ok(())
}

/// Draws the heatmap with `ctx` (in CSS pixels) into a `w` × `ht` box.
pub fn plot_heatmap(ctx: &Ctx, h: &Heat, hot: Rgb, w: f64, ht: f64, pal: &Palette) {
    let (nx, ny) = (h.xs.len().max(1), h.ys.len().max(1));
    // Caption centred on top.
    chart::font(ctx, 14.0, false);
    chart::text(ctx, &h.title, w / 2.0, 10.0, "center", "top", pal.fg);
    let p = Plot {
        l: 10.0 + 56.0,
        t: 10.0 + 24.0,
        r: (w - 10.0).max(76.0),
        b: (ht - 10.0 - 38.0).max(44.0),
        x0: 0.0,
        x1: nx as f64,
        y0: 0.0,
        y1: ny as f64,
    };
    let known = h.values.iter().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = known.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    for yi in 0..ny {
        for xi in 0..nx {
            let v = h.values.get(yi * nx + xi).copied().flatten();
            let fill = match v {
                Some(v) if v.is_finite() => heat_colour(pal, hot, (v - lo) / span),
                _ => pal.grid,
            };
            let (x0, y0) = p.pt((xi as f64, yi as f64 + 1.0));
            let (x1, y1) = p.pt((xi as f64 + 1.0, yi as f64));
            ctx.set_fill_style_str(&fill.css());
            ctx.fill_rect(x0, y0, x1 - x0, y1 - y0);
        }
    }
    chart::font(ctx, 12.0, false);
    for yi in 0..ny {
        for xi in 0..nx {
            let v = h.values.get(yi * nx + xi).copied().flatten();
            let label = v.map_or("…".to_string(), |v| chart::num(v, h.decimals));
            let light = v.is_some_and(|v| (v - lo) / span > 0.55) != pal.dark;
            let tc = if light && !pal.dark { pal.bg } else { pal.fg };
            let (cx, cy) = p.pt((xi as f64 + 0.5, yi as f64 + 0.5));
            chart::text(ctx, &label, cx, cy, "center", "middle", tc);
        }
    }
    // Axes: each parameter value centred on its row / column.
    let xt: chart::Ticks =
        h.xs.iter()
            .enumerate()
            .map(|(i, x)| (i as f64 + 0.5, x.to_string()))
            .collect();
    let yt: chart::Ticks =
        h.ys.iter()
            .enumerate()
            .map(|(i, y)| (i as f64 + 0.5, y.to_string()))
            .collect();
    chart::axes(ctx, &p, &xt, &yt, 12.0, &h.x_desc, &h.y_desc, 13.0, pal);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_colour_spans_background_to_hot() {
        let p = Palette::LIGHT;
        let hot = Rgb(200, 0, 0);
        assert_eq!(heat_colour(&p, hot, 1.0), hot);
        let c = heat_colour(&p, hot, 0.0);
        assert!(c.0 > 240 && c.1 > 200, "{c:?}");
    }

    #[test]
    fn y_range_pads_the_max() {
        let s = vec![Series {
            name: "a".into(),
            points: vec![(25.0, 10.0), (50.0, 20.0)],
        }];
        assert_eq!(y_range(&s, 1.0), (0.0, 22.0));
        assert_eq!(y_range(&[], 100.0), (0.0, 100.0));
    }
}
