//! The CPU view: one bar per CPU (height = util_avg, colour = idle / sched-idle / busy, queue
//! ticks), SMT siblings together, LLCs boxed, wrapped into rows when there are many; and the
//! current wake-up drawn over it. Layout is pure (tested natively); drawing uses the raw 2D
//! context, already scaled to CSS pixels by the caller.

use super::{labels, Palette, Rgb};
use sis_core::kernel::state::CpuState;
use sis_core::kernel::trace::{Decision, Rule, Saw};
use web_sys::CanvasRenderingContext2d;

/// Where each CPU's bar goes, in CSS pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuLayout {
    pub width: f64,
    pub height: f64,
    /// Bar width.
    pub bw: f64,
    /// Space above a bar (role tags, probe marks) and below it (CPU ids).
    pub head: f64,
    pub bar_h: f64,
    /// Space under the bars: the scan's bands and the CPU numbers.
    pub foot: f64,
    /// Per CPU id: top-left of its bar area.
    pub pos: Vec<(f64, f64)>,
    /// Per LLC: its box (x, y, w, h).
    pub llcs: Vec<(f64, f64, f64, f64)>,
}

const BAR_WIDTHS: [f64; 19] = [
    96.0, 80.0, 64.0, 56.0, 44.0, 36.0, 30.0, 24.0, 20.0, 16.0, 13.0, 11.0, 9.0, 7.0, 6.0, 5.0,
    4.0, 3.0, 2.0,
];
/// Above this height the next narrower bar width is tried (unless the caller gives less room).
pub const MAX_HEIGHT: f64 = 560.0;
const PAD: f64 = 8.0;
const LLC_LABEL: f64 = 24.0;
const INNER: f64 = 8.0;
const LLC_GAP: f64 = 12.0;
/// A role chip's side (W, P, T over the bars), px.
const CHIP: f64 = 14.0;

/// Lays out `groups` (per LLC: cores, each the CPU ids of its SMT siblings) in `width` px.
/// The widest bars (at least 9 px) that keep every LLC on one line and fit [`MAX_HEIGHT`];
/// failing that, the
/// widest that fit (wrapping LLCs into rows); failing that, the narrowest.
pub fn layout(width: f64, max_height: f64, groups: &[Vec<Vec<u32>>], nr_cpus: usize) -> CpuLayout {
    let all: Vec<(CpuLayout, bool)> = BAR_WIDTHS
        .iter()
        .map(|&bw| try_layout(width, groups, nr_cpus, bw))
        .collect();
    let pick = all
        .iter()
        .position(|(l, wrapped)| !wrapped && l.height <= max_height && l.bw >= 9.0)
        .or_else(|| all.iter().position(|(l, _)| l.height <= max_height))
        .unwrap_or(all.len() - 1);
    all.into_iter()
        .nth(pick)
        .map(|x| x.0)
        .unwrap_or_else(|| try_layout(width, groups, nr_cpus, 2.0).0)
}

fn try_layout(width: f64, groups: &[Vec<Vec<u32>>], nr_cpus: usize, bw: f64) -> (CpuLayout, bool) {
    let smt = groups
        .first()
        .and_then(|g| g.first())
        .map_or(1, |c| c.len().max(1)) as f64;
    let tg = if bw >= 6.0 { 1.0 } else { 0.0 };
    let core_gap = (bw * 0.5).clamp(2.0, 10.0);
    let core_w = smt * bw + (smt - 1.0) * tg;
    let unit = core_w + core_gap;
    let head = 34.0;
    let foot = 20.0;
    let bar_h = if bw >= 20.0 {
        150.0
    } else if bw >= 9.0 {
        100.0
    } else {
        64.0
    };
    let row_h = head + bar_h + foot;
    let avail = (width - 2.0 * PAD - 2.0 * INNER + core_gap).max(unit);
    let max_cores = (avail / unit).floor().max(1.0);
    let mut pos = vec![(0.0, 0.0); nr_cpus];
    let mut llcs = Vec::with_capacity(groups.len());
    // Blocks flow left to right; each line of blocks is centred.
    let mut lines: Vec<(Vec<usize>, f64)> = vec![(Vec::new(), 0.0)];
    let mut x = PAD;
    let mut y = PAD;
    let mut line_h: f64 = 0.0;
    let mut wrapped = false;
    for (l, cores) in groups.iter().enumerate() {
        let nc = cores.len().max(1) as f64;
        let per_line = nc.min(max_cores);
        let nlines = (nc / per_line).ceil();
        wrapped |= nlines > 1.0;
        let bw_block = per_line * unit - core_gap + 2.0 * INNER;
        let bh = LLC_LABEL + nlines * row_h + 4.0;
        if x > PAD && x + bw_block > width - PAD {
            x = PAD;
            y += line_h + LLC_GAP;
            line_h = 0.0;
            lines.push((Vec::new(), 0.0));
        }
        llcs.push((x, y, bw_block, bh));
        for (k, core) in cores.iter().enumerate() {
            let line = (k as f64 / per_line).floor();
            let col = k as f64 - line * per_line;
            let cx = x + INNER + col * unit;
            let cy = y + LLC_LABEL + line * row_h + head;
            for (t, &cpu) in core.iter().enumerate() {
                if let Some(p) = pos.get_mut(cpu as usize) {
                    *p = (cx + t as f64 * (bw + tg), cy);
                }
            }
        }
        if let Some(last) = lines.last_mut() {
            last.0.push(l);
            last.1 = x + bw_block - PAD;
        }
        x += bw_block + LLC_GAP;
        line_h = line_h.max(bh);
    }
    // Centre each line of LLC blocks.
    for (members, line_w) in &lines {
        let shift = ((width - 2.0 * PAD - line_w) / 2.0).max(0.0).floor();
        if shift <= 0.0 {
            continue;
        }
        for &l in members {
            llcs[l].0 += shift;
            for core in &groups[l] {
                for &cpu in core {
                    if let Some(p) = pos.get_mut(cpu as usize) {
                        p.0 += shift;
                    }
                }
            }
        }
    }
    let l = CpuLayout {
        width,
        height: (y + line_h + PAD).ceil(),
        bw,
        head,
        bar_h,
        foot,
        pos,
        llcs,
    };
    (l, wrapped)
}

impl CpuLayout {
    /// The CPU whose bar (or the space just above/below it) holds the point, if any.
    pub fn hit(&self, x: f64, y: f64) -> Option<u32> {
        let slack = (self.bw * 0.25).max(1.0);
        self.pos.iter().enumerate().find_map(|(cpu, &(bx, by))| {
            (x >= bx - slack
                && x <= bx + self.bw + slack
                && y >= by - self.head
                && y <= by + self.bar_h + self.foot)
                .then_some(cpu as u32)
        })
    }
}

/// One CPU as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuSnap {
    pub state: CpuState,
    pub util_avg: u32,
    pub nr_running: u32,
    /// Busy with a wake-up's scan (scan_cost=waker): a band in the accent colour under the bar.
    pub scanning: bool,
    /// A waker on it spins for a remote runqueue's lock (ttwu_queue): a band in the waker's
    /// colour under the bar.
    pub lock_wait: bool,
    /// Coming out of an idle state (and its IPI) before the woken task runs: a band in the
    /// idle colour over the bar.
    pub idle_exit: bool,
}

/// The scan throttle the preset actually uses, as the LLC header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throttle {
    /// SIS_UTIL: nr_idle_scan as the last periodic balance wrote it.
    NrIdleScan(u32),
    /// SIS_PROP: the budget nr the newest decision computed from its waker (none yet: None).
    SisProp(Option<i64>),
    /// A rule of the user's (`nr_expr`): the newest decision's budget.
    Rule(Option<i64>),
    /// No throttle: the scan may visit the whole LLC.
    Unthrottled,
    /// A path of its own with no scan budget (LB_PROMOTE's thin path, sched_ext).
    OwnPath,
}

impl Throttle {
    pub fn text(self) -> String {
        let nr = |v: Option<i64>| v.map_or("–".to_string(), |v| v.to_string());
        match self {
            Throttle::NrIdleScan(n) => format!("nr_idle_scan {n}"),
            Throttle::SisProp(v) => format!("SIS_PROP nr {}", nr(v)),
            Throttle::Rule(v) => format!("your rule's nr {}", nr(v)),
            Throttle::Unthrottled => "no scan throttle".into(),
            Throttle::OwnPath => "no scan budget (own path)".into(),
        }
    }
}

/// One LLC's header values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlcSnap {
    pub throttle: Throttle,
    pub has_idle_cores: bool,
    pub sum_util_pct: u32,
}

/// The wake-up drawn over the bars.
pub struct Overlay<'a> {
    pub decision: &'a Decision,
    /// Steps drawn (0..=steps.len()); the last drawn one is the cursor.
    pub shown: usize,
    /// Show the chosen CPU and the missed idle CPUs.
    pub reveal: bool,
    /// Predict mode: the user's pick.
    pub guess: Option<u32>,
    /// Draw `missed_idle` (only meaningful when the task did not land on an idle CPU).
    pub missed: bool,
}

pub fn state_colour(p: &Palette, s: CpuState) -> Rgb {
    match s {
        CpuState::Idle => p.idle,
        CpuState::SchedIdle => p.sched_idle,
        CpuState::Busy => p.busy,
    }
}

pub fn saw_colour(p: &Palette, s: Saw) -> Rgb {
    match s {
        Saw::Idle => p.idle,
        Saw::SchedIdle => p.sched_idle,
        Saw::Busy => p.busy,
        Saw::NotAllowed => p.not_allowed,
    }
}

fn rect_stroke(ctx: &CanvasRenderingContext2d, x: f64, y: f64, w: f64, h: f64, r: f64) {
    ctx.begin_path();
    let _ = ctx.round_rect_with_f64(x, y, w, h, r);
    ctx.stroke();
}

/// Draws the bars and the overlay. `ctx` is in CSS pixels. Returns the CPUs whose numbers it
/// wrote under the bars.
pub fn draw_cpus(
    ctx: &CanvasRenderingContext2d,
    lay: &CpuLayout,
    cpus: &[CpuSnap],
    llcs: &[LlcSnap],
    ov: Option<&Overlay>,
    pal: &Palette,
) -> Vec<u32> {
    ctx.clear_rect(0.0, 0.0, lay.width, lay.height);
    let bw = lay.bw;
    // LLC boxes and labels.
    ctx.set_line_width(1.0);
    ctx.set_text_baseline("middle");
    ctx.set_text_align("left");
    for (l, &(x, y, w, h)) in lay.llcs.iter().enumerate() {
        ctx.set_stroke_style_str(&pal.grid.css());
        rect_stroke(ctx, x + 0.5, y + 0.5, w, h, 6.0);
        if let Some(s) = llcs.get(l) {
            ctx.set_fill_style_str(&pal.muted.css());
            let font = if w > 320.0 { 14.0 } else { 12.0 };
            ctx.set_font(&format!("{font}px system-ui, sans-serif"));
            let text = if w > 420.0 {
                format!(
                    "LLC {l} · sum_util {}% · {} · has_idle_cores {}",
                    s.sum_util_pct,
                    s.throttle.text(),
                    s.has_idle_cores
                )
            } else if w > 200.0 {
                format!("LLC {l} · {}", s.throttle.text())
            } else {
                format!("LLC {l}")
            };
            let _ = ctx.fill_text_with_max_width(&text, x + INNER, y + LLC_LABEL / 2.0, w - INNER);
        }
    }
    // Bars: one fillStyle per state for the tracks, then the fills.
    let colours = [
        state_colour(pal, CpuState::Idle),
        state_colour(pal, CpuState::SchedIdle),
        state_colour(pal, CpuState::Busy),
    ];
    let idx = |s: CpuState| match s {
        CpuState::Idle => 0,
        CpuState::SchedIdle => 1,
        CpuState::Busy => 2,
    };
    for (k, c) in colours.iter().enumerate() {
        ctx.set_fill_style_str(&c.css_a(if pal.dark { 0.22 } else { 0.16 }));
        for (cpu, s) in cpus.iter().enumerate() {
            if idx(s.state) == k {
                let (x, y) = lay.pos[cpu];
                ctx.fill_rect(x, y, bw, lay.bar_h);
            }
        }
        ctx.set_fill_style_str(&c.css());
        for (cpu, s) in cpus.iter().enumerate() {
            if idx(s.state) == k && s.util_avg > 0 {
                let (x, y) = lay.pos[cpu];
                let h = (s.util_avg.min(1024) as f64 / 1024.0 * lay.bar_h).max(1.0);
                ctx.fill_rect(x, y + lay.bar_h - h, bw, h);
            }
        }
    }
    // Runnable tasks waiting behind the running one: ticks from the top of the track.
    ctx.set_fill_style_str(&pal.fg.css());
    let tick_h = if bw >= 9.0 { 5.0 } else { 3.0 };
    for (cpu, s) in cpus.iter().enumerate() {
        let waiting = s.nr_running.saturating_sub(1).min(6);
        let (x, y) = lay.pos[cpu];
        for i in 0..waiting {
            ctx.fill_rect(
                x + 1.0,
                y + 2.0 + i as f64 * (tick_h + 2.0),
                (bw - 2.0).max(1.0),
                tick_h,
            );
        }
    }
    ctx.set_fill_style_str(&pal.accent.css());
    for (cpu, s) in cpus.iter().enumerate() {
        if s.scanning {
            let (x, y) = lay.pos[cpu];
            ctx.fill_rect(x, y + lay.bar_h + 1.0, bw, 3.0);
        }
    }
    // The wake-up's own price: the waker spinning for the target's lock (under the scan's
    // band), and the target leaving its idle state (over the bar).
    ctx.set_fill_style_str(&pal.waker.css());
    for (cpu, s) in cpus.iter().enumerate() {
        if s.lock_wait {
            let (x, y) = lay.pos[cpu];
            ctx.fill_rect(x, y + lay.bar_h + 4.0, bw, 2.0);
        }
    }
    ctx.set_fill_style_str(&pal.idle.css());
    for (cpu, s) in cpus.iter().enumerate() {
        if s.idle_exit {
            let (x, y) = lay.pos[cpu];
            ctx.fill_rect(x, y - 4.0, bw, 3.0);
        }
    }
    let ids = draw_ids(ctx, lay, ov, pal);
    if let Some(ov) = ov {
        draw_overlay(ctx, lay, ov, pal);
    }
    ids
}

/// The CPU numbers under each row of bars, thinned to what fits; the decision's waker, prev,
/// target, current probe and chosen CPU always numbered, in bold.
fn draw_ids(
    ctx: &CanvasRenderingContext2d,
    lay: &CpuLayout,
    ov: Option<&Overlay>,
    pal: &Palette,
) -> Vec<u32> {
    let mut drawn = Vec::new();
    let mut marked: Vec<u32> = Vec::new();
    if let Some(ov) = ov {
        let d = ov.decision;
        marked.extend([d.id.waker_cpu, d.id.prev, d.target]);
        if let Some(s) = d.steps[..ov.shown.min(d.steps.len())].last() {
            marked.push(s.cpu);
        }
        if ov.reveal {
            marked.push(d.result);
        }
    }
    // Rows: the CPUs sharing a bar top, left to right.
    let mut rows: Vec<(f64, Vec<(u32, f64)>)> = Vec::new();
    for (cpu, &(x, y)) in lay.pos.iter().enumerate() {
        let at = (cpu as u32, x + lay.bw / 2.0);
        match rows.iter_mut().find(|r| (r.0 - y).abs() < 0.5) {
            Some(r) => r.1.push(at),
            None => rows.push((y, vec![at])),
        }
    }
    ctx.set_text_align("center");
    ctx.set_text_baseline("middle");
    for (y, row) in rows {
        for (cpu, x) in labels::thin_ids(&row, lay.bw, &marked) {
            let bold = marked.contains(&cpu);
            ctx.set_font(if bold {
                "bold 11px system-ui, sans-serif"
            } else {
                "11px system-ui, sans-serif"
            });
            ctx.set_fill_style_str(&if bold { pal.fg } else { pal.muted }.css());
            let _ = ctx.fill_text(&cpu.to_string(), x, y + lay.bar_h + 13.0);
            drawn.push(cpu);
        }
    }
    drawn
}

fn draw_overlay(ctx: &CanvasRenderingContext2d, lay: &CpuLayout, ov: &Overlay, pal: &Palette) {
    let d = ov.decision;
    let bw = lay.bw;
    let n = lay.pos.len() as u32;
    let ok = |c: u32| c < n;
    let centre = |c: u32| {
        let (x, y) = lay.pos[c as usize];
        (x + bw / 2.0, y)
    };
    // Role tags above the bars: W(aker), P(rev), T(arget).
    ctx.set_text_baseline("middle");
    ctx.set_text_align("center");
    ctx.set_font("bold 13px system-ui, sans-serif");
    let mut tags: Vec<(u32, Vec<(&str, Rgb)>)> = Vec::new();
    for (c, t, col) in [
        (d.id.waker_cpu, "W", pal.waker),
        (d.id.prev, "P", pal.prev),
        (d.target, "T", pal.target),
    ] {
        if !ok(c) {
            continue;
        }
        match tags.iter_mut().find(|e| e.0 == c) {
            Some(e) => e.1.push((t, col)),
            None => tags.push((c, vec![(t, col)])),
        }
    }
    // One chip per role, pushed apart so none covers another (W, P and T are often one CPU),
    // each with a leader to its bar's centre; chips of one row of bars are placed together.
    let mut chips: Vec<(f64, f64, &str, Rgb)> = Vec::new(); // (bar centre x, bar top, tag, colour)
    for (c, list) in &tags {
        let (cx, y) = centre(*c);
        chips.extend(list.iter().map(|&(t, col)| (cx, y, t, col)));
    }
    // At most three: an insertion sort by (row, x) (no slice::sort in the page's wasm).
    for i in 1..chips.len() {
        let mut j = i;
        while j > 0 && (chips[j].1, chips[j].0) < (chips[j - 1].1, chips[j - 1].0) {
            chips.swap(j, j - 1);
            j -= 1;
        }
    }
    ctx.set_font("bold 11px system-ui, sans-serif");
    for row in chips.chunk_by(|a, b| (a.1 - b.1).abs() < 0.5) {
        let want: Vec<f64> = row.iter().map(|c| c.0).collect();
        let at = labels::place_apart(&want, CHIP, 2.0, 0.0, lay.width);
        for (&(cx, y, t, col), x) in row.iter().zip(at) {
            ctx.set_stroke_style_str(&col.css());
            ctx.set_line_width(1.0);
            ctx.begin_path();
            ctx.move_to(x, y - 25.0 + CHIP / 2.0);
            ctx.line_to(cx, y - 3.0);
            ctx.stroke();
            ctx.set_fill_style_str(&col.css());
            ctx.begin_path();
            let _ = ctx.round_rect_with_f64(x - CHIP / 2.0, y - 25.0 - CHIP / 2.0, CHIP, CHIP, 3.0);
            ctx.fill();
            ctx.set_fill_style_str(&pal.bg.css());
            let _ = ctx.fill_text(t, x, y - 24.5);
        }
    }
    // Missed idle CPUs: dashed outline (only once the decision is revealed).
    if ov.reveal && ov.missed {
        ctx.set_stroke_style_str(&pal.missed.css());
        ctx.set_line_width(2.0);
        let dash = js_sys::Array::of2(&4.0.into(), &3.0.into());
        let _ = ctx.set_line_dash(&dash);
        for &c in &d.missed_idle {
            if ok(c) {
                let (x, y) = lay.pos[c as usize];
                rect_stroke(ctx, x - 1.5, y - 1.5, bw + 3.0, lay.bar_h + 3.0, 3.0);
            }
        }
        let _ = ctx.set_line_dash(&js_sys::Array::new());
    }
    // The probes, in order, with the path the scan cursor took.
    let shown = ov.shown.min(d.steps.len());
    let r = (bw / 2.0).clamp(2.5, 6.0);
    let my = |y: f64| y - 9.0;
    if shown > 1 {
        ctx.set_stroke_style_str(&pal.accent.css_a(0.7));
        ctx.set_line_width(1.5);
        ctx.begin_path();
        let mut first = true;
        for s in d.steps[..shown].iter().filter(|s| ok(s.cpu)) {
            let (cx, y) = centre(s.cpu);
            if first {
                ctx.move_to(cx, my(y));
                first = false;
            } else {
                ctx.line_to(cx, my(y));
            }
        }
        ctx.stroke();
    }
    for s in d.steps[..shown].iter().filter(|s| ok(s.cpu)) {
        let (cx, y) = centre(s.cpu);
        ctx.set_fill_style_str(&saw_colour(pal, s.saw).css());
        ctx.begin_path();
        let _ = ctx.arc(cx, my(y), r, 0.0, std::f64::consts::TAU);
        ctx.fill();
    }
    if shown > 0 && shown <= d.steps.len() {
        let cur = d.steps[shown - 1];
        if ok(cur.cpu) {
            let (cx, y) = centre(cur.cpu);
            let (x, by) = lay.pos[cur.cpu as usize];
            ctx.set_stroke_style_str(&pal.accent.css());
            ctx.set_line_width(2.5);
            ctx.begin_path();
            let _ = ctx.arc(cx, my(y), r + 3.0, 0.0, std::f64::consts::TAU);
            ctx.stroke();
            rect_stroke(ctx, x - 1.0, by - 1.0, bw + 2.0, lay.bar_h + 2.0, 2.0);
            if !ov.reveal || shown < d.steps.len() {
                let label = match cur.nr {
                    Some(nr) if cur.rule != Rule::WakeAffine => {
                        format!("{} nr={nr}", cur.rule.name())
                    }
                    _ => cur.rule.name().to_string(),
                };
                // Across the bar, where the result's label goes once revealed: the chips' lane
                // above stays clear.
                label_box(ctx, &label, cx, y + lay.bar_h / 2.0, lay.width, pal);
            }
        }
    }
    if let Some(g) = ov.guess.filter(|g| ok(*g)) {
        let (x, y) = lay.pos[g as usize];
        ctx.set_stroke_style_str(&pal.guess.css());
        ctx.set_line_width(3.0);
        let dash = js_sys::Array::of2(&6.0.into(), &3.0.into());
        let _ = ctx.set_line_dash(&dash);
        rect_stroke(ctx, x - 4.0, y - 4.0, bw + 8.0, lay.bar_h + 8.0, 4.0);
        let _ = ctx.set_line_dash(&js_sys::Array::new());
    }
    if ov.reveal && ok(d.result) {
        let (x, y) = lay.pos[d.result as usize];
        ctx.set_stroke_style_str(&pal.chosen.css());
        ctx.set_line_width(3.0);
        rect_stroke(ctx, x - 2.5, y - 2.5, bw + 5.0, lay.bar_h + 5.0, 3.0);
        let by = d.decided_by.map_or("?", |r| r.name());
        label_box(
            ctx,
            &format!("→ CPU {} ({by})", d.result),
            x + bw / 2.0,
            y + lay.bar_h / 2.0,
            lay.width,
            pal,
        );
    }
}

fn label_box(
    ctx: &CanvasRenderingContext2d,
    text: &str,
    cx: f64,
    cy: f64,
    width: f64,
    pal: &Palette,
) {
    ctx.set_font("bold 13px system-ui, sans-serif");
    let w = ctx.measure_text(text).map(|m| m.width()).unwrap_or(60.0) + 10.0;
    let x = (cx - w / 2.0).clamp(2.0, (width - w - 2.0).max(2.0));
    ctx.set_fill_style_str(&pal.bg.css_a(0.92));
    ctx.fill_rect(x, cy - 9.0, w, 18.0);
    ctx.set_stroke_style_str(&pal.accent.css());
    ctx.set_line_width(1.0);
    ctx.stroke_rect(x + 0.5, cy - 8.5, w - 1.0, 17.0);
    ctx.set_fill_style_str(&pal.fg.css());
    ctx.set_text_align("left");
    ctx.set_text_baseline("middle");
    let _ = ctx.fill_text(text, x + 5.0, cy + 0.5);
    ctx.set_text_align("center");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(llcs: u32, w: u32, smt: u32) -> Vec<Vec<Vec<u32>>> {
        (0..llcs)
            .map(|l| {
                (0..w / smt)
                    .map(|c| (0..smt).map(|t| l * w + c * smt + t).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_cpu_gets_a_distinct_place_and_hits_back() {
        for (llcs, w, smt, width) in [
            (1, 4, 2, 1200.0),
            (1, 16, 2, 1200.0),
            (1, 112, 2, 1200.0),
            (1, 256, 2, 1200.0),
            (2, 8, 1, 600.0),
            (16, 64, 4, 1200.0),
            (1, 1024, 1, 320.0),
        ] {
            let g = groups(llcs, w, smt);
            let n = (llcs * w) as usize;
            let l = layout(width, MAX_HEIGHT, &g, n);
            let mut seen = std::collections::BTreeSet::new();
            for (cpu, &(x, y)) in l.pos.iter().enumerate() {
                assert!(
                    x >= 0.0 && x + l.bw <= width + 0.5,
                    "cpu {cpu} x {x} w {width}"
                );
                assert!(y + l.bar_h <= l.height);
                assert!(seen.insert(((x * 10.0) as i64, (y * 10.0) as i64)));
                if l.bw >= 3.0 {
                    assert_eq!(l.hit(x + l.bw / 2.0, y + 1.0), Some(cpu as u32));
                }
            }
        }
    }

    #[test]
    fn few_cpus_get_wide_bars_many_get_rows() {
        let l = layout(1200.0, MAX_HEIGHT, &groups(1, 4, 2), 4);
        assert!(l.bw >= 80.0);
        let l = layout(1200.0, MAX_HEIGHT, &groups(1, 16, 2), 16);
        let rows: std::collections::BTreeSet<i64> = l.pos.iter().map(|p| p.1 as i64).collect();
        assert_eq!(rows.len(), 1, "16 CPUs fit one row");
        let l = layout(1200.0, MAX_HEIGHT, &groups(1, 256, 2), 256);
        assert!(l.height <= MAX_HEIGHT, "{}", l.height);
        let rows: std::collections::BTreeSet<i64> = l.pos.iter().map(|p| p.1 as i64).collect();
        assert!(rows.len() >= 2);
    }
}
