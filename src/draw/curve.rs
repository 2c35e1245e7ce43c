//! SIS_UTIL's scan depth against LLC utilisation (plotters over a canvas).

use super::Palette;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use sis_core::throttle;
use web_sys::HtmlCanvasElement;

/// What the curve shows. Every number comes from sis-core.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveData {
    pub llc_weight: u32,
    pub imbalance_pct: u32,
    /// (util %, nr_scan) at every integer percent, from `throttle::curve_percent`.
    pub points: Vec<(u32, u32)>,
    /// The operating point: (sum_util % the last LLC balance saw, nr_idle_scan it set).
    pub live: Option<(f64, u32)>,
    /// Earlier operating points, oldest first.
    pub trail: Vec<(f64, u32)>,
    /// Sum of util_avg over LLC 0 right now, %.
    pub util_now: Option<f64>,
    /// SIS_PROP's budget at the last wake-up that computed one (nr_before of its scan).
    pub sis_prop_nr: Option<i64>,
    /// Whether SIS_UTIL is what throttles this preset's scan.
    pub sis_util_on: bool,
}

impl CurveData {
    pub fn new(llc_weight: u32, imbalance_pct: u32) -> Self {
        CurveData {
            llc_weight,
            imbalance_pct,
            points: throttle::curve_percent(llc_weight, imbalance_pct)
                .into_iter()
                .map(|(_, pct, nr)| (pct, nr))
                .collect(),
            live: None,
            trail: Vec::new(),
            util_now: None,
            sis_prop_nr: None,
            sis_util_on: true,
        }
    }

    /// The util % above which nr_scan is 0: x^2 * pct^2 >= 1024^2 * 10000, i.e. 100/pct.
    pub fn cutoff_pct(&self) -> f64 {
        100.0 * 100.0 / self.imbalance_pct.max(1) as f64
    }
}

/// Draws the curve into `canvas` (whose width/height are device pixels; `dpr` scales fonts).
pub fn draw_scan_curve(
    canvas: &HtmlCanvasElement,
    d: &CurveData,
    pal: &Palette,
    dpr: f64,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "no 2d context".to_string())?;
    let root = backend.into_drawing_area();
    root.fill(&pal.bg.plotters()).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * dpr).round() as i32;
    let font = |v: f64| ("sans-serif", (v * dpr).round() as u32);
    let w = d.llc_weight.max(1);
    let ymax = (w as f64 * 1.08).max(w as f64 + 1.0);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(44.0))
        .y_label_area_size(px(52.0))
        .build_cartesian_2d(0.0f64..100.0f64, 0.0f64..ymax)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .light_line_style(pal.grid.plotters().mix(0.35))
        .bold_line_style(pal.grid.plotters().mix(0.8))
        .axis_style(pal.muted.plotters())
        .label_style(font(14.0).into_font().color(&pal.muted.plotters()))
        .axis_desc_style(font(15.0).into_font().color(&pal.fg.plotters()))
        .x_desc("LLC utilisation: sum_util / (llc_weight × 1024), %")
        .y_desc("nr_idle_scan")
        .x_labels(11)
        .y_labels(6)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(|e| e.to_string())?;
    let cut = d.cutoff_pct();
    // 100/imbalance_pct cut-off.
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(cut, 0.0), (cut, ymax)],
            pal.busy.plotters().mix(0.8).stroke_width(px(1.5) as u32),
        )))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(std::iter::once(Text::new(
            format!("cut-off 100/pct = {cut:.1}%"),
            (cut - 1.0, ymax * 0.985),
            font(14.0).into_font().color(&pal.busy.plotters()).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Right,
                    plotters::style::text_anchor::VPos::Top,
                ),
            ),
        )))
        .map_err(|e| e.to_string())?;
    let line_col = if d.sis_util_on {
        pal.accent.plotters()
    } else {
        pal.muted.plotters()
    };
    chart
        .draw_series(LineSeries::new(
            d.points.iter().map(|&(p, nr)| (p as f64, nr as f64)),
            line_col.stroke_width(px(2.5) as u32),
        ))
        .map_err(|e| e.to_string())?;
    if let Some(nr) = d.sis_prop_nr {
        let y = (nr.max(0) as f64).min(ymax);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, y), (100.0, y)],
                pal.prop.plotters().stroke_width(px(2.0) as u32),
            )))
            .map_err(|e| e.to_string())?;
        let label = if nr as f64 > ymax {
            format!("SIS_PROP nr = {nr} (capped by the LLC's {w} CPUs)")
        } else {
            format!("SIS_PROP nr = {nr} (last wake-up)")
        };
        chart
            .draw_series(std::iter::once(Text::new(
                label,
                (2.0, y),
                font(13.0).into_font().color(&pal.prop.plotters()).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Bottom,
                    ),
                ),
            )))
            .map_err(|e| e.to_string())?;
    }
    if let Some(u) = d.util_now {
        let u = u.clamp(0.0, 100.0);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(u, 0.0), (u, ymax * 0.9)],
                pal.fg.plotters().mix(0.35).stroke_width(px(1.0) as u32),
            )))
            .map_err(|e| e.to_string())?;
    }
    let n = d.trail.len().max(1) as f64;
    chart
        .draw_series(d.trail.iter().enumerate().map(|(i, &(u, nr))| {
            let a = 0.15 + 0.5 * (i as f64 + 1.0) / n;
            Circle::new(
                (u.clamp(0.0, 100.0), nr as f64),
                px(3.0),
                pal.fg.plotters().mix(a).filled(),
            )
        }))
        .map_err(|e| e.to_string())?;
    if let Some((u, nr)) = d.live {
        let p = (u.clamp(0.0, 100.0), nr as f64);
        chart
            .draw_series([
                Circle::new(p, px(7.0), pal.fg.plotters().filled()),
                Circle::new(p, px(4.0), pal.accent.plotters().filled()),
            ])
            .map_err(|e| e.to_string())?;
        // Label beside the point, away from the curve: below-right when high, above when low.
        let high = p.1 > ymax * 0.5;
        let right_side = u > 55.0;
        let anchor = if right_side {
            plotters::style::text_anchor::HPos::Right
        } else {
            plotters::style::text_anchor::HPos::Left
        };
        let dx = if right_side { -1.5 } else { 1.5 };
        let (y, vpos) = if high {
            (p.1 - ymax * 0.1, plotters::style::text_anchor::VPos::Top)
        } else {
            (
                p.1 + ymax * 0.08,
                plotters::style::text_anchor::VPos::Bottom,
            )
        };
        chart
            .draw_series(std::iter::once(Text::new(
                format!("now: {u:.1}% → nr_idle_scan {nr}"),
                (p.0 + dx, y),
                font(16.0)
                    .into_font()
                    .color(&pal.fg.plotters())
                    .pos(plotters::style::text_anchor::Pos::new(anchor, vpos)),
            )))
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_data_matches_the_seed_table() {
        let d = CurveData::new(112, 117);
        assert_eq!(d.points.len(), 101);
        let at = |p: u32| d.points[p as usize].1;
        assert_eq!(
            [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86].map(at),
            [112, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0]
        );
        assert!((d.cutoff_pct() - 85.47).abs() < 0.01);
    }
}
