//! Time spent in select_idle_cpu per call, in the bpftrace `@usecs` buckets of the SIS_UTIL v4 patch (plotters).

use super::plot::{self, Axes, ChartMap, HPos, VPos};
use super::Palette;
use plotters::prelude::*;
use sis_core::kernel::stats::ScanHistogram;
use web_sys::HtmlCanvasElement;

/// How many buckets to show: through the last non-empty one plus one, at least `min`.
pub fn shown_buckets(buckets: &[u64], min: usize) -> usize {
    let last = buckets.iter().rposition(|&n| n > 0).map_or(0, |i| i + 2);
    last.max(min).min(buckets.len())
}

/// Draws the histogram with plotters; bucket `i` is centred on x = i. Returns where it put the
/// data (a bar of count n spans y 0..n).
pub fn draw_scan_hist(
    canvas: &HtmlCanvasElement,
    buckets: &[u64],
    pal: &Palette,
    dpr: f64,
) -> Result<ChartMap, String> {
    let root = plot::root(canvas, dpr, pal)?;
    let w = root.dim_in_pixel().0 as f64;
    let k = shown_buckets(buckets, 8).max(1);
    // Labels horizontal when each bar has room for the longest (13 px type, ~7 px a
    // character), horizontal on two staggered rows when two bars have, else rotated.
    let longest = (0..k)
        .map(|i| ScanHistogram::label(i).len())
        .max()
        .unwrap_or(3);
    let room = (w - 70.0) / k as f64;
    let need = longest as f64 * 7.0 + 8.0;
    let rows = if room >= need {
        1
    } else if 2.0 * room >= need {
        2
    } else {
        0
    };
    let horizontal = rows > 0;
    let max = buckets.iter().copied().max().unwrap_or(0).max(1);
    let ymax = (max + max / 10 + 1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin(8)
        .x_label_area_size([78, 30, 46][rows])
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..k as f64 - 0.5, 0.0..ymax)
        .map_err(plot::err)?;
    plot::mesh(
        &mut chart,
        &Axes {
            x_labels: 0,
            y_labels: 5,
            x_desc: "",
            y_desc: "calls",
            label_px: 12,
            desc_px: 13,
            x_fmt: &|_| String::new(),
            y_fmt: &plot::int_label,
            x_grid: false,
        },
        pal,
    )?;
    let area = chart.plotting_area();
    let bar = plot::colour(pal.accent).filled();
    for (i, &n) in buckets.iter().take(k).enumerate().filter(|b| *b.1 > 0) {
        let x = i as f64;
        area.draw(&Rectangle::new([(x - 0.4, 0.0), (x + 0.4, n as f64)], bar))
            .map_err(plot::err)?;
    }
    // Bucket labels under the bars, between tick marks at the edges.
    let map = ChartMap::of(&chart);
    let label = if horizontal {
        plot::text_style(13, pal.muted, HPos::Center, VPos::Top)
    } else {
        plot::text_style(13, pal.muted, HPos::Left, VPos::Center).transform(FontTransform::Rotate90)
    };
    let tick = plot::colour(pal.muted).stroke_width(1);
    for i in 0..=k {
        let (x, b) = map.to_px(i as f64 - 0.5, 0.0);
        root.draw(&PathElement::new(vec![(x, b), (x, b + 5)], tick))
            .map_err(plot::err)?;
    }
    for i in 0..k {
        let (x, b) = map.to_px(i as f64, 0.0);
        let dy = if rows == 2 && i % 2 == 1 { 24 } else { 8 };
        root.draw(&Text::new(
            ScanHistogram::label(i),
            (x, b + dy),
            label.clone(),
        ))
        .map_err(plot::err)?;
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_through_the_last_bucket() {
        let mut b = vec![0u64; 19];
        assert_eq!(shown_buckets(&b, 8), 8);
        b[12] = 3;
        assert_eq!(shown_buckets(&b, 8), 14);
        b[18] = 1;
        assert_eq!(shown_buckets(&b, 8), 19);
    }
}
