//! Sweep results (plotters): a metric against load, one line per preset, and a heatmap of a
//! metric over two parameters. Pure: canvas + plain data in, pixels and their mapping out.

use super::plot::{self, Axes, ChartMap, HPos, VPos};
use super::{Palette, Rgb};
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

/// One line: a preset's (load %, value) points, and the 95% intervals of the points that
/// have several runs as (load %, low, high) (drawn as error bars; empty for one run each).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub ci: Vec<(f64, f64, f64)>,
}

/// Line colours, in preset order.
pub fn series_colour(pal: &Palette, i: usize) -> Rgb {
    [pal.accent, pal.prop, pal.waker, pal.idle, pal.busy][i % 5]
}

/// The y range of the series: 0 up to a little above the largest value or interval end (at
/// least `min_top`).
pub fn y_range(series: &[Series], min_top: f64) -> (f64, f64) {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1).chain(s.ci.iter().map(|c| c.2)))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    (0.0, (max * 1.1).max(min_top))
}

/// The x range of the series: the loads with a little padding (0..200 when empty).
pub fn x_range(series: &[Series]) -> (f64, f64) {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if lo > hi {
        (0.0, 200.0)
    } else if lo == hi {
        (lo - 10.0, hi + 10.0)
    } else {
        let pad = (hi - lo) * 0.04;
        (lo - pad, hi + pad)
    }
}

/// `metric` vs load, one line per series with its error bars (a vertical line from the
/// interval's low to its high end, 10 px caps), with a legend (plotters). Returns the mapping
/// (x = load %, y = the metric).
pub fn draw_sweep_lines(
    canvas: &HtmlCanvasElement,
    series: &[Series],
    y_desc: &str,
    pal: &Palette,
    dpr: f64,
) -> Result<ChartMap, String> {
    let root = plot::root(canvas, dpr, pal)?;
    let (x0, x1) = x_range(series);
    let (y0, y1) = y_range(series, 1.0);
    let mut chart = ChartBuilder::on(&root)
        .margin_top(10)
        .margin_left(10)
        .margin_right(16)
        .margin_bottom(10)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(plot::err)?;
    let yd = if y1 >= 10.0 { 0 } else { 2 };
    plot::mesh(
        &mut chart,
        &Axes {
            x_labels: 9,
            y_labels: 6,
            x_desc: "load, % of the CPUs",
            y_desc,
            label_px: 13,
            desc_px: 14,
            x_fmt: &|v| plot::num(*v, 0),
            y_fmt: &|v| plot::num(*v, yd),
            x_grid: true,
        },
        pal,
    )?;
    let area = chart.plotting_area();
    for (i, s) in series.iter().enumerate() {
        let col = plot::colour(series_colour(pal, i));
        for &(x, lo, hi) in s.ci.iter().filter(|c| c.1.is_finite() && c.2.is_finite()) {
            let bar = col.stroke_width(2);
            area.draw(&PathElement::new(vec![(x, lo), (x, hi)], bar))
                .map_err(plot::err)?;
            for y in [lo, hi] {
                area.draw(
                    &(EmptyElement::at((x, y)) + PathElement::new(vec![(-5, 0), (5, 0)], bar)),
                )
                .map_err(plot::err)?;
            }
        }
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|q| q.1.is_finite())
            .collect();
        for &p in &pts {
            area.draw(&Circle::new(p, 4, col.filled()))
                .map_err(plot::err)?;
        }
        area.draw(&PathElement::new(pts, col.stroke_width(3)))
            .map_err(plot::err)?;
    }
    let map = ChartMap::of(&chart);
    if series.is_empty() {
        return Ok(map);
    }
    // Legend, upper right of the plot: a line sample and the name per series.
    let font = plot::text_style(13, pal.fg, HPos::Left, VPos::Center);
    let tw = series
        .iter()
        .map(|s| {
            root.estimate_text_size(&s.name, &font)
                .map_or(60, |t| t.0 as i32)
        })
        .max()
        .unwrap_or(60);
    let (row, pad) = (18, 8);
    let (bw, bh) = (
        pad + 18 + 6 + tw + pad,
        pad * 2 + row * series.len() as i32 - 4,
    );
    let (_, top) = map.to_px(x0, y1);
    let (right, _) = map.to_px(x1, y0);
    let (bx, by) = (right - 6 - bw, top + 6);
    root.draw(&Rectangle::new(
        [(bx, by), (bx + bw, by + bh)],
        plot::alpha(pal.bg, 0.85).filled(),
    ))
    .map_err(plot::err)?;
    root.draw(&Rectangle::new(
        [(bx, by), (bx + bw, by + bh)],
        plot::colour(pal.grid).stroke_width(1),
    ))
    .map_err(plot::err)?;
    for (i, s) in series.iter().enumerate() {
        let (x, y) = (bx + pad, by + pad + 7 + i as i32 * row);
        let col = plot::colour(series_colour(pal, i));
        root.draw(&PathElement::new(
            vec![(x, y), (x + 18, y)],
            col.stroke_width(3),
        ))
        .map_err(plot::err)?;
        root.draw(&Text::new(s.name.clone(), (x + 24, y), font.clone()))
            .map_err(plot::err)?;
    }
    Ok(map)
}

/// The series point nearest to pixel `px` (within 20 px): (series index, point).
pub fn nearest_point(
    map: &ChartMap,
    series: &[Series],
    px: (i32, i32),
) -> Option<(usize, (f64, f64))> {
    let mut best: Option<(i64, usize, (f64, f64))> = None;
    for (i, s) in series.iter().enumerate() {
        for &p in s.points.iter().filter(|p| p.1.is_finite()) {
            let (x, y) = map.to_px(p.0, p.1);
            let d = ((x - px.0) as i64).pow(2) + ((y - px.1) as i64).pow(2);
            if d <= 400 && best.is_none_or(|b| d < b.0) {
                best = Some((d, i, p));
            }
        }
    }
    best.map(|b| (b.1, b.2))
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

impl Heat {
    /// The lowest and highest known value: the colour scale's ends.
    pub fn range(&self) -> Option<(f64, f64)> {
        let known = self
            .values
            .iter()
            .flatten()
            .copied()
            .filter(|v| v.is_finite());
        known.fold(None, |r, v| match r {
            None => Some((v, v)),
            Some((a, b)) => Some((a.min(v), b.max(v))),
        })
    }
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

/// Cells coloured from the background (min) to `hot` (max), each labelled with its value
/// (plotters). Cell (xi, yi) is centred on (xi, yi); returns the mapping.
pub fn draw_heatmap(
    canvas: &HtmlCanvasElement,
    h: &Heat,
    hot: Rgb,
    pal: &Palette,
    dpr: f64,
) -> Result<ChartMap, String> {
    let root = plot::root(canvas, dpr, pal)?;
    let (nx, ny) = (h.xs.len().max(1), h.ys.len().max(1));
    let mut chart = ChartBuilder::on(&root)
        .caption(
            &h.title,
            plot::text_style(14, pal.fg, HPos::Center, VPos::Top),
        )
        .margin(10)
        .x_label_area_size(38)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..nx as f64 - 0.5, -0.5..ny as f64 - 0.5)
        .map_err(plot::err)?;
    // Each parameter value centred on its column / row.
    let label_of = |vals: &[u32], v: f64| {
        let i = v.round();
        if (v - i).abs() > 1e-9 || i < 0.0 {
            return String::new();
        }
        vals.get(i as usize)
            .map_or(String::new(), |x| x.to_string())
    };
    plot::mesh(
        &mut chart,
        &Axes {
            x_labels: nx,
            y_labels: ny,
            x_desc: &h.x_desc,
            y_desc: &h.y_desc,
            label_px: 12,
            desc_px: 13,
            x_fmt: &|v| label_of(&h.xs, *v),
            y_fmt: &|v| label_of(&h.ys, *v),
            x_grid: false,
        },
        pal,
    )?;
    let (lo, hi) = h.range().unwrap_or((0.0, 1.0));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let area = chart.plotting_area();
    let cell = |xi: usize, yi: usize| h.values.get(yi * nx + xi).copied().flatten();
    let cells = (0..ny).flat_map(|yi| (0..nx).map(move |xi| (xi, yi)));
    for (xi, yi) in cells.clone() {
        let fill = match cell(xi, yi) {
            Some(v) if v.is_finite() => heat_colour(pal, hot, (v - lo) / span),
            _ => pal.grid,
        };
        let (x, y) = (xi as f64, yi as f64);
        area.draw(&Rectangle::new(
            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
            plot::colour(fill).filled(),
        ))
        .map_err(plot::err)?;
    }
    for (xi, yi) in cells {
        let v = cell(xi, yi);
        let label = v.map_or("…".to_string(), |v| plot::num(v, h.decimals));
        let hot_cell = v.is_some_and(|v| (v - lo) / span > 0.55);
        let tc = if hot_cell && !pal.dark {
            pal.bg
        } else {
            pal.fg
        };
        area.draw(&Text::new(
            label,
            (xi as f64, yi as f64),
            plot::text_style(12, tc, HPos::Center, VPos::Center),
        ))
        .map_err(plot::err)?;
    }
    Ok(ChartMap::of(&chart))
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
            ci: vec![],
        }];
        assert_eq!(y_range(&s, 1.0), (0.0, 22.0));
        // An interval's high end counts.
        let mut s = s;
        s[0].ci.push((50.0, 15.0, 30.0));
        assert_eq!(y_range(&s, 1.0), (0.0, 33.0));
        assert_eq!(y_range(&[], 100.0), (0.0, 100.0));
    }
}
