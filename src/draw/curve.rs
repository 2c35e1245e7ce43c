//! SIS_UTIL's scan depth against LLC utilisation (raw 2D canvas, helpers in `chart`).

use super::chart::{self, Plot};
use super::Palette;
use sis_core::throttle;
use web_sys::{CanvasRenderingContext2d as Ctx, HtmlCanvasElement};

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

/// Draws the curve into `canvas` (whose width/height are device pixels; `dpr` scales to CSS px).
pub fn draw_scan_curve(
    canvas: &HtmlCanvasElement,
    d: &CurveData,
    pal: &Palette,
    dpr: f64,
) -> Result<(), String> {
    let (ctx, w, h) = chart::begin(canvas, dpr, pal)?;
    plot_scan_curve(&ctx, d, w, h, pal);
    Ok(())
}

/// Draws the curve with `ctx` (in CSS pixels) into a `w` × `h` box.
pub fn plot_scan_curve(ctx: &Ctx, d: &CurveData, w: f64, h: f64, pal: &Palette) {
    let lw = d.llc_weight.max(1);
    let ymax = (lw as f64 * 1.08).max(lw as f64 + 1.0);
    let p = Plot {
        l: 10.0 + 52.0,
        t: 10.0,
        r: (w - 18.0).max(72.0),
        b: (h - 10.0 - 44.0).max(20.0),
        x0: 0.0,
        x1: 100.0,
        y0: 0.0,
        y1: ymax,
    };
    let (xt, xs) = chart::num_ticks(0.0, 100.0, 11);
    let (yt, ys) = chart::num_ticks(0.0, ymax, 6);
    chart::grid(ctx, &p, &xt, xs, &yt, ys, true, pal);
    chart::axes(
        ctx,
        &p,
        &xt,
        &yt,
        14.0,
        "LLC utilisation: sum_util / (llc_weight × 1024), %",
        "nr_idle_scan",
        15.0,
        pal,
    );
    ctx.save();
    ctx.begin_path();
    ctx.rect(p.l - 8.0, p.t - 8.0, p.r - p.l + 16.0, p.b - p.t + 16.0);
    ctx.clip();
    // 100/imbalance_pct cut-off.
    let cut = d.cutoff_pct();
    let cx = p.x(cut);
    chart::polyline(ctx, &[(cx, p.t), (cx, p.b)], &pal.busy.css_a(0.8), 1.5);
    chart::font(ctx, 14.0, false);
    chart::text(
        ctx,
        &format!("cut-off 100/pct = {}%", chart::num(cut, 1)),
        p.x(cut - 1.0),
        p.y(ymax * 0.985),
        "right",
        "top",
        pal.busy,
    );
    let line_col = if d.sis_util_on { pal.accent } else { pal.muted };
    let pts: Vec<(f64, f64)> = d
        .points
        .iter()
        .map(|&(x, nr)| p.pt((x as f64, nr as f64)))
        .collect();
    chart::polyline(ctx, &pts, &line_col.css(), 2.5);
    if let Some(nr) = d.sis_prop_nr {
        let y = p.y((nr.max(0) as f64).min(ymax));
        chart::polyline(ctx, &[(p.l, y), (p.r, y)], &pal.prop.css(), 2.0);
        let label = if nr as f64 > ymax {
            format!("SIS_PROP nr = {nr} (capped by the LLC's {lw} CPUs)")
        } else {
            format!("SIS_PROP nr = {nr} (last wake-up)")
        };
        chart::font(ctx, 13.0, false);
        chart::text(ctx, &label, p.x(2.0), y - 2.0, "left", "bottom", pal.prop);
    }
    if let Some(u) = d.util_now {
        let x = p.x(u.clamp(0.0, 100.0));
        chart::polyline(
            ctx,
            &[(x, p.b), (x, p.y(ymax * 0.9))],
            &pal.fg.css_a(0.35),
            1.0,
        );
    }
    let n = d.trail.len().max(1) as f64;
    for (i, &(u, nr)) in d.trail.iter().enumerate() {
        let a = 0.15 + 0.5 * (i as f64 + 1.0) / n;
        let (x, y) = p.pt((u.clamp(0.0, 100.0), nr as f64));
        chart::dot(ctx, x, y, 3.0, &pal.fg.css_a(a));
    }
    if let Some((u, nr)) = d.live {
        let v = (u.clamp(0.0, 100.0), nr as f64);
        let (x, y) = p.pt(v);
        chart::dot(ctx, x, y, 7.0, &pal.fg.css());
        chart::dot(ctx, x, y, 4.0, &pal.accent.css());
        // Label beside the point, away from the curve: below-right when high, above when low.
        let high = v.1 > ymax * 0.5;
        let right_side = u > 55.0;
        let (align, dx) = if right_side {
            ("right", -1.5)
        } else {
            ("left", 1.5)
        };
        let (ly, baseline) = if high {
            (v.1 - ymax * 0.1, "top")
        } else {
            (v.1 + ymax * 0.08, "bottom")
        };
        chart::font(ctx, 16.0, false);
        chart::text(
            ctx,
            &format!("now: {}% → nr_idle_scan {nr}", chart::num(u, 1)),
            p.x(v.0 + dx),
            p.y(ly),
            align,
            baseline,
            pal.fg,
        );
    }
    ctx.restore();
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
