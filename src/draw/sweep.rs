//! Sweep results (plotters): a metric against load, one line per preset, and a heatmap of a
//! metric over two parameters. Pure: canvas + plain data in, pixels out.

use super::{Palette, Rgb};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

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
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "no 2d context".to_string())?;
    let root = backend.into_drawing_area();
    root.fill(&pal.bg.plotters()).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * dpr).round() as i32;
    let font = |v: f64| ("sans-serif", (v * dpr).round() as u32);
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
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(xmin..xmax, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .light_line_style(pal.grid.plotters().mix(0.35))
        .bold_line_style(pal.grid.plotters().mix(0.8))
        .axis_style(pal.muted.plotters())
        .label_style(font(13.0).into_font().color(&pal.muted.plotters()))
        .axis_desc_style(font(14.0).into_font().color(&pal.fg.plotters()))
        .x_desc("load, % of the CPUs")
        .y_desc(y_desc)
        .x_labels(9)
        .y_labels(6)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            if y1 >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        })
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, s) in series.iter().enumerate() {
        let col = series_colour(pal, i).plotters();
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.1.is_finite())
            .collect();
        chart
            .draw_series(LineSeries::new(
                pts.clone(),
                col.stroke_width(px(2.5) as u32),
            ))
            .map_err(|e| e.to_string())?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], col.stroke_width(3)));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, px(3.5), col.filled())))
            .map_err(|e| e.to_string())?;
    }
    if !series.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(pal.bg.plotters().mix(0.85))
            .border_style(pal.grid.plotters())
            .label_font(font(13.0).into_font().color(&pal.fg.plotters()))
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
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
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "no 2d context".to_string())?;
    let root = backend.into_drawing_area();
    root.fill(&pal.bg.plotters()).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * dpr).round() as i32;
    let font = |v: f64| ("sans-serif", (v * dpr).round() as u32);
    let (nx, ny) = (h.xs.len().max(1) as i32, h.ys.len().max(1) as i32);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .caption(
            h.title.as_str(),
            font(14.0).into_font().color(&pal.fg.plotters()),
        )
        .x_label_area_size(px(38.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(0..nx, 0..ny)
        .map_err(|e| e.to_string())?;
    let (xs, ys) = (h.xs.clone(), h.ys.clone());
    chart
        .configure_mesh()
        .disable_mesh()
        .axis_style(pal.muted.plotters())
        .label_style(font(12.0).into_font().color(&pal.muted.plotters()))
        .axis_desc_style(font(13.0).into_font().color(&pal.fg.plotters()))
        .x_desc(h.x_desc.as_str())
        .y_desc(h.y_desc.as_str())
        .x_labels(nx as usize + 1)
        .y_labels(ny as usize + 1)
        .x_label_formatter(&|v| xs.get(*v as usize).map_or(String::new(), |x| x.to_string()))
        .y_label_formatter(&|v| ys.get(*v as usize).map_or(String::new(), |y| y.to_string()))
        .draw()
        .map_err(|e| e.to_string())?;
    let known = h.values.iter().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = known.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    for yi in 0..ny {
        for xi in 0..nx {
            let v = h.values.get((yi * nx + xi) as usize).copied().flatten();
            let fill = match v {
                Some(v) if v.is_finite() => heat_colour(pal, hot, (v - lo) / span),
                _ => pal.grid,
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(xi, yi), (xi + 1, yi + 1)],
                    fill.plotters().filled(),
                )))
                .map_err(|e| e.to_string())?;
            let text = v.map_or("…".to_string(), |v| format!("{v:.*}", h.decimals));
            let light = v.is_some_and(|v| (v - lo) / span > 0.55) != pal.dark;
            let tc = if light && !pal.dark { pal.bg } else { pal.fg };
            let (cx, cy) = chart.backend_coord(&(xi, yi + 1));
            let (cx2, cy2) = chart.backend_coord(&(xi + 1, yi));
            root.draw(&Text::new(
                text,
                ((cx + cx2) / 2, (cy + cy2) / 2),
                font(12.0)
                    .into_font()
                    .color(&tc.plotters())
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
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
