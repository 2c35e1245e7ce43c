//! SIS_UTIL's scan depth against LLC utilisation, with the live operating point (plotters).

use super::plot::{self, Axes, ChartMap, HPos, VPos};
use super::Palette;
use plotters::prelude::*;
use sis_core::kernel::throttle;
use web_sys::HtmlCanvasElement;

/// Where SIS_UTIL's scan depth stood: the LLC utilisation the last periodic balance saw and
/// the nr_idle_scan it set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OperatingPoint {
    pub util_pct: f64,
    pub nr_idle_scan: u32,
}

/// What the curve shows. Every number comes from sis-core.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveData {
    pub llc_weight: u32,
    pub imbalance_pct: u32,
    /// (util %, nr_scan) at every integer percent, from `throttle::curve_percent`.
    pub points: Vec<(u32, u32)>,
    /// The operating point now.
    pub live: Option<OperatingPoint>,
    /// Earlier operating points, oldest first.
    pub trail: Vec<OperatingPoint>,
    /// Sum of util_avg over LLC 0 right now, %.
    pub util_now: Option<f64>,
    /// SIS_PROP's budget at the last wake-up that computed one (nr_before of its scan).
    pub sis_prop_nr: Option<i64>,
    /// Whether SIS_UTIL is what throttles this preset's scan.
    pub sis_util_on: bool,
    /// A user's LLC-wide `nr_expr` rule at every integer percent, as periodic balance would
    /// evaluate it there (None: no rule, or one that reads the waker and has no curve).
    pub rule: Option<Vec<(u32, u32)>>,
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
            rule: None,
        }
    }

    /// With the user's rule drawn beside SIS_UTIL's curve, if it is LLC-wide: its nr_scan
    /// (sis-core's own evaluation, clamped to 0..=llc_weight) at each percent, with sum_util at
    /// that share of the LLC's capacity and nr_idle the CPUs that share leaves idle.
    pub fn with_rule(mut self, rule: Option<&sis_core::kernel::nr_expr::NrExpr>) -> Self {
        self.rule = rule.filter(|r| !r.per_wakeup()).map(|r| {
            let lw = self.llc_weight as i64;
            (0..=100u32)
                .map(|pct| {
                    let inputs = sis_core::kernel::nr_expr::Inputs {
                        sum_util: pct as i64 * lw * 1024 / 100,
                        llc_weight: lw,
                        imbalance_pct: self.imbalance_pct as i64,
                        nr_idle: lw - (pct as i64 * lw + 99) / 100,
                        ..Default::default()
                    };
                    (pct, r.nr_scan(&inputs))
                })
                .collect()
        });
        self
    }

    /// The util % above which nr_scan is 0: x^2 * pct^2 >= 1024^2 * 10000, i.e. 100/pct.
    pub fn cutoff_pct(&self) -> f64 {
        100.0 * 100.0 / self.imbalance_pct.max(1) as f64
    }

    /// The y axis' top: a little above llc_weight.
    pub fn y_max(&self) -> f64 {
        let lw = self.llc_weight.max(1) as f64;
        (lw * 1.08).max(lw + 1.0)
    }

    /// nr_scan at util `pct` (0..=100, rounded to the nearest integer percent): the curve's
    /// value under the mouse.
    pub fn nr_at(&self, pct: f64) -> Option<u32> {
        let i = pct.round().clamp(0.0, 100.0) as usize;
        self.points.get(i).map(|p| p.1)
    }
}

/// Draws the curve into `canvas` (sized by `canvas::fit`; `dpr` scales to CSS pixels) with
/// plotters, and returns where it put the data (hover, tests).
pub fn draw_scan_curve(
    canvas: &HtmlCanvasElement,
    d: &CurveData,
    pal: &Palette,
    dpr: f64,
) -> Result<ChartMap, String> {
    let root = plot::root(canvas, dpr, pal)?;
    let lw = d.llc_weight.max(1);
    let ymax = d.y_max();
    let mut chart = ChartBuilder::on(&root)
        .margin_top(10)
        .margin_left(10)
        .margin_right(18)
        .margin_bottom(10)
        .x_label_area_size(44)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..100.0, 0.0..ymax)
        .map_err(plot::err)?;
    let y_decimals = if ymax >= 10.0 { 0 } else { 1 };
    plot::mesh(
        &mut chart,
        &Axes {
            x_labels: 11,
            y_labels: 6,
            x_desc: "LLC utilisation: sum_util / (llc_weight × 1024), %",
            y_desc: "nr_idle_scan",
            label_px: 14,
            desc_px: 15,
            x_fmt: &|v| plot::num(*v, 0),
            y_fmt: &|v| plot::num(*v, y_decimals),
            x_grid: true,
        },
        pal,
    )?;
    let area = chart.plotting_area();
    let line = |pts: Vec<(f64, f64)>, c: RGBAColor, w: u32| {
        area.draw(&PathElement::new(pts, c.stroke_width(w)))
            .map_err(plot::err)
    };
    let text = |s: String, at: (f64, f64), style: TextStyle| {
        area.draw(&Text::new(s, at, style)).map_err(plot::err)
    };
    let dot = |at: (f64, f64), r: u32, c: RGBAColor| {
        area.draw(&Circle::new(at, r, c.filled()))
            .map_err(plot::err)
    };
    // 100/imbalance_pct cut-off.
    let cut = d.cutoff_pct();
    if cut <= 100.0 {
        line(vec![(cut, 0.0), (cut, ymax)], plot::alpha(pal.busy, 0.8), 2)?;
        text(
            format!("cut-off 100/pct = {}%", plot::num(cut, 1)),
            (cut - 1.0, ymax * 0.985),
            plot::text_style(14, pal.busy, HPos::Right, VPos::Top),
        )?;
    }
    let curve_col = if d.sis_util_on { pal.accent } else { pal.muted };
    line(
        d.points
            .iter()
            .map(|&(x, nr)| (x as f64, nr as f64))
            .collect(),
        plot::alpha(curve_col, 1.0),
        3,
    )?;
    if let Some(rule) = &d.rule {
        let pts: Vec<(f64, f64)> = rule.iter().map(|&(x, nr)| (x as f64, nr as f64)).collect();
        line(pts, plot::alpha(pal.prop, 1.0), 3)?;
        let (x, nr) = rule[rule.len() / 4];
        text(
            "your rule".to_string(),
            (x as f64 + 1.0, nr as f64),
            plot::text_style(14, pal.prop, HPos::Left, VPos::Bottom),
        )?;
    }
    if let Some(nr) = d.sis_prop_nr {
        let y = (nr.max(0) as f64).min(ymax);
        line(vec![(0.0, y), (100.0, y)], plot::alpha(pal.prop, 1.0), 2)?;
        let label = if nr as f64 > ymax {
            format!("SIS_PROP nr = {nr} (capped by the LLC's {lw} CPUs)")
        } else {
            format!("SIS_PROP nr = {nr} (last wake-up)")
        };
        text(
            label,
            (2.0, y),
            plot::text_style(13, pal.prop, HPos::Left, VPos::Bottom),
        )?;
    }
    if let Some(u) = d.util_now {
        let x = u.clamp(0.0, 100.0);
        line(
            vec![(x, 0.0), (x, ymax * 0.9)],
            plot::alpha(pal.fg, 0.35),
            1,
        )?;
    }
    let n = d.trail.len().max(1) as f64;
    for (i, p) in d.trail.iter().enumerate() {
        let (u, nr) = (p.util_pct, p.nr_idle_scan);
        let a = 0.15 + 0.5 * (i as f64 + 1.0) / n;
        dot((u.clamp(0.0, 100.0), nr as f64), 3, plot::alpha(pal.fg, a))?;
    }
    if let Some(OperatingPoint {
        util_pct: u,
        nr_idle_scan: nr,
    }) = d.live
    {
        let at = (u.clamp(0.0, 100.0), nr as f64);
        dot(at, 7, plot::alpha(pal.fg, 1.0))?;
        dot(at, 4, plot::alpha(pal.accent, 1.0))?;
        // The label where its box touches neither the curve nor the plot's edge.
        let label = format!("now: {}% → nr_idle_scan {nr}", plot::num(u, 1));
        let (pw, ph) = area.dim_in_pixel();
        // 16 px type: ~8.6 px a character, 20 px a line; in data units.
        let size = (
            label.chars().count() as f64 * 8.6 * 100.0 / pw.max(1) as f64,
            20.0 * ymax / ph.max(1) as f64,
        );
        let (x0, y0) = label_spot(&d.points, at, size, ymax);
        text(
            label,
            (x0, y0 + size.1),
            plot::text_style(16, pal.fg, HPos::Left, VPos::Top),
        )?;
    }
    Ok(ChartMap::of(&chart))
}

/// The bottom-left corner (data units) of a `size` label for the operating point `at`, such
/// that the box holds no point of the curve (checked at every integer percent and between)
/// and stays inside 0..100 x 0..ymax: beside the point on either side where the curve leaves
/// room (above-right and below-left of a falling curve never meet it), else in a free corner.
pub fn label_spot(curve: &[(u32, u32)], at: (f64, f64), size: (f64, f64), ymax: f64) -> (f64, f64) {
    let (w, h) = size;
    let (gx, gy) = (1.5, ymax * 0.04);
    let candidates = [
        (at.0 + gx, at.1 + gy),         // above-right
        (at.0 - gx - w, at.1 - gy - h), // below-left
        (at.0 - gx - w, at.1 + gy),     // above-left
        (at.0 + gx, at.1 - gy - h),     // below-right
        (2.0, ymax * 0.02),             // bottom-left corner
        (98.0 - w, ymax * 0.55),        // right, half-way up
        (98.0 - w, ymax * 0.2),
    ];
    let at_x = |x: f64| {
        // The curve's value at x (linear between integer percents).
        let i = (x.floor().clamp(0.0, 99.0)) as usize;
        let (a, b) = (curve.get(i), curve.get(i + 1));
        match (a, b) {
            (Some(&(_, ya)), Some(&(_, yb))) => {
                let t = (x - i as f64).clamp(0.0, 1.0);
                ya as f64 + (yb as f64 - ya as f64) * t
            }
            (Some(&(_, ya)), None) => ya as f64,
            _ => 0.0,
        }
    };
    let clear = |&(x, y): &(f64, f64)| {
        if x < 0.5 || x + w > 99.5 || y < 0.0 || y + h > ymax * 0.93 {
            return false;
        }
        // The curve is continuous: it crosses the box iff its value at some x of the box
        // falls in [y, y + h] or it passes from below to above within it.
        let steps = (w * 4.0).ceil().max(2.0) as usize;
        let (mut below, mut above) = (false, false);
        for k in 0..=steps {
            let v = at_x(x + w * k as f64 / steps as f64);
            if v >= y && v <= y + h {
                return false;
            }
            below |= v < y;
            above |= v > y + h;
        }
        !(below && above)
    };
    candidates.into_iter().find(clear).unwrap_or(candidates[4])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_data_matches_the_sis_util_v4_table() {
        let d = CurveData::new(112, 117);
        assert_eq!(d.points.len(), 101);
        let at = |p: u32| d.points[p as usize].1;
        assert_eq!(
            [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86].map(at),
            [112, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0]
        );
        assert!((d.cutoff_pct() - 85.47).abs() < 0.01);
    }

    #[test]
    fn the_operating_point_label_never_crosses_the_curve() {
        // Issue 27: "now: 63% -> nr_idle_scan 7" was drawn across the curve.
        for (lw, pct) in [(112, 117), (8, 117), (16, 125), (256, 110)] {
            let d = CurveData::new(lw, pct);
            let ymax = d.y_max();
            for u in (0..=100).step_by(3) {
                let at = (u as f64, d.points[u].1 as f64);
                let size = (30.0, ymax * 0.06);
                let (x, y) = label_spot(&d.points, at, size, ymax);
                // The polyline's vertices under the box, and its ends at the box's sides.
                let (lo, hi) = (x.floor() as usize, ((x + size.0).ceil() as usize).min(100));
                let vs: Vec<f64> = (lo..=hi).map(|i| d.points[i].1 as f64).collect();
                let inner = &vs[1..vs.len() - 1];
                assert!(
                    inner.iter().all(|&v| v < y || v > y + size.1),
                    "{lw}/{pct} at {u}%: box {x},{y} holds a vertex of {inner:?}"
                );
                let (below, above) = (
                    vs.iter().any(|&v| v < y),
                    vs.iter().any(|&v| v > y + size.1),
                );
                assert!(
                    !(below && above) || vs.len() <= 2,
                    "{lw}/{pct} at {u}%: the curve passes through {x},{y}"
                );
                assert!(x >= 0.0 && x + size.0 <= 100.0, "{lw}/{pct} at {u}%: x {x}");
            }
        }
    }
}
