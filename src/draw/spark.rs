//! A metric's recent history as a sparkline (plotters): no axes, the line over a light fill,
//! scaled into 0..max (or the values' own max).

use super::plot::{self, ChartMap};
use super::Palette;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

/// The y range a sparkline of `vals` spans: 0..`max`, or 0..the largest value.
pub fn spark_top(vals: &[f64], max: Option<f64>) -> f64 {
    max.unwrap_or_else(|| vals.iter().copied().fold(0.0, f64::max))
        .max(1e-9)
}

/// Draws `vals` (oldest first) across the canvas; returns the mapping (x = sample index).
pub fn draw_sparkline(
    canvas: &HtmlCanvasElement,
    vals: &[f64],
    max: Option<f64>,
    pal: &Palette,
    dpr: f64,
) -> Result<ChartMap, String> {
    let root = plot::root(canvas, dpr, pal)?;
    let top = spark_top(vals, max);
    let n = vals.len().max(2) - 1;
    let mut chart = ChartBuilder::on(&root)
        .margin(2)
        .build_cartesian_2d(0.0..n as f64, 0.0..top)
        .map_err(plot::err)?;
    let pts: Vec<(f64, f64)> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64, v.clamp(0.0, top)))
        .collect();
    let area = chart.plotting_area();
    let base = plot::alpha(pal.grid, 0.8).stroke_width(1);
    area.draw(&PathElement::new(vec![(0.0, 0.0), (n as f64, 0.0)], base))
        .map_err(plot::err)?;
    if pts.len() > 1 {
        let mut fill = pts.clone();
        fill.push((pts[pts.len() - 1].0, 0.0));
        fill.push((0.0, 0.0));
        area.draw(&Polygon::new(fill, plot::alpha(pal.accent, 0.15).filled()))
            .map_err(plot::err)?;
        area.draw(&PathElement::new(
            pts,
            plot::colour(pal.accent).stroke_width(2),
        ))
        .map_err(plot::err)?;
    }
    let _ = &mut chart;
    Ok(ChartMap::of(&chart))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_is_the_given_max_or_the_largest_value() {
        assert_eq!(spark_top(&[1.0, 3.0], Some(100.0)), 100.0);
        assert_eq!(spark_top(&[1.0, 3.0], None), 3.0);
        assert!(spark_top(&[], None) > 0.0);
    }
}
