//! Time spent in select_idle_cpu per call, in the seed's `@usecs` buckets (plotters).

use super::Palette;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use sis_core::stats::ScanHistogram;
use web_sys::HtmlCanvasElement;

/// How many buckets to show: through the last non-empty one plus one, at least `min`.
pub fn shown_buckets(buckets: &[u64], min: usize) -> usize {
    let last = buckets.iter().rposition(|&n| n > 0).map_or(0, |i| i + 2);
    last.max(min).min(buckets.len())
}

pub fn draw_scan_hist(
    canvas: &HtmlCanvasElement,
    buckets: &[u64],
    pal: &Palette,
    dpr: f64,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "no 2d context".to_string())?;
    let root = backend.into_drawing_area();
    root.fill(&pal.bg.plotters()).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * dpr).round() as i32;
    let font = |v: f64| ("sans-serif", (v * dpr).round() as u32);
    let k = shown_buckets(buckets, 8);
    // Horizontal labels when each bar has room for "[16K, 32K)", else rotated.
    let plot_w = canvas.width() as f64 / dpr - 70.0;
    let horizontal = plot_w / k as f64 >= 74.0;
    let max = buckets.iter().copied().max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(8.0))
        .x_label_area_size(px(if horizontal { 30.0 } else { 78.0 }))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d((0..k as i32 - 1).into_segmented(), 0u64..max + max / 10 + 1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(pal.grid.plotters().mix(0.3))
        .bold_line_style(pal.grid.plotters().mix(0.7))
        .axis_style(pal.muted.plotters())
        .label_style(font(12.0).into_font().color(&pal.muted.plotters()))
        .axis_desc_style(font(13.0).into_font().color(&pal.fg.plotters()))
        .x_labels(k)
        .y_labels(5)
        .x_label_style(if horizontal {
            font(13.0).into_font().color(&pal.muted.plotters())
        } else {
            font(13.0)
                .into_font()
                .color(&pal.muted.plotters())
                .transform(FontTransform::Rotate90)
        })
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => ScanHistogram::label(*i as usize),
            SegmentValue::Last => String::new(),
        })
        .y_desc("calls")
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(
            Histogram::vertical(&chart)
                .style(pal.accent.plotters().filled())
                .margin(px(3.0) as u32)
                .data(
                    buckets
                        .iter()
                        .take(k)
                        .enumerate()
                        .map(|(i, &n)| (i as i32, n)),
                ),
        )
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
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
