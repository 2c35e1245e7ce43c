//! Time spent in select_idle_cpu per call, in the seed's `@usecs` buckets (raw 2D canvas).

use super::chart::{self, Plot};
use super::Palette;
use sis_core::stats::ScanHistogram;
use std::f64::consts::FRAC_PI_2;
use web_sys::{CanvasRenderingContext2d as Ctx, HtmlCanvasElement};

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
    let (ctx, w, h) = chart::begin(canvas, dpr, pal)?;
    plot_scan_hist(&ctx, buckets, w, h, pal);
    Ok(())
}

/// Draws the histogram with `ctx` (in CSS pixels) into a `w` × `h` box.
pub fn plot_scan_hist(ctx: &Ctx, buckets: &[u64], w: f64, h: f64, pal: &Palette) {
    let k = shown_buckets(buckets, 8).max(1);
    // Horizontal labels when each bar has room for "[16K, 32K)", else rotated.
    let horizontal = (w - 70.0) / k as f64 >= 74.0;
    let max = buckets.iter().copied().max().unwrap_or(0).max(1);
    let ymax = (max + max / 10 + 1) as f64;
    let p = Plot {
        l: 8.0 + 56.0,
        t: 8.0,
        r: (w - 8.0).max(74.0),
        b: (h - 8.0 - if horizontal { 30.0 } else { 78.0 }).max(16.0),
        x0: 0.0,
        x1: k as f64,
        y0: 0.0,
        y1: ymax,
    };
    // Integer counts: steps of at least 1.
    let ys = chart::tick_step(ymax, 5).max(1.0);
    let yt: chart::Ticks = chart::ticks(0.0, ymax, ys)
        .into_iter()
        .map(|v| (v, chart::num(v, 0)))
        .collect();
    chart::grid(ctx, &p, &Vec::new(), 0.0, &yt, ys, false, pal);
    chart::axes(ctx, &p, &Vec::new(), &yt, 12.0, "", "calls", 13.0, pal);
    let slot = (p.r - p.l) / k as f64;
    let margin = 3.0f64.min(slot / 4.0);
    ctx.set_fill_style_str(&pal.accent.css());
    for (i, &n) in buckets.iter().take(k).enumerate() {
        if n > 0 {
            let top = p.y(n as f64);
            ctx.fill_rect(
                p.l + i as f64 * slot + margin,
                top,
                slot - 2.0 * margin,
                p.b - top,
            );
        }
    }
    // Bucket labels, centred under the bars (rotated when narrow).
    let b = p.b.round() + 0.5;
    ctx.set_stroke_style_str(&pal.muted.css());
    ctx.set_line_width(1.0);
    ctx.begin_path();
    for i in 0..=k {
        let x = (p.l + i as f64 * slot).round() + 0.5;
        ctx.move_to(x, b);
        ctx.line_to(x, b + 5.0);
    }
    ctx.stroke();
    chart::font(ctx, 13.0, false);
    for i in 0..k {
        let label = ScanHistogram::label(i);
        let x = p.l + (i as f64 + 0.5) * slot;
        if horizontal {
            chart::text(ctx, &label, x, b + 8.0, "center", "top", pal.muted);
        } else {
            chart::text_rot(
                ctx,
                &label,
                x,
                b + 8.0,
                FRAC_PI_2,
                "left",
                "middle",
                pal.muted,
            );
        }
    }
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
