//! The Replay tab's timeline: per-CPU swimlanes of what ran around the selected wake-up
//! (each task its own colour, idle blank), with the kernel's CPU, the preset's, prev and the
//! waker marked at the wake-up, and the other kept wake-ups as ticks that step to them. It
//! zooms (buttons, wheel) and pans (buttons, drag) within the window the worker sent.

use crate::replay_api::WakeView;
use yew::prelude::*;

/// The widest view: the window the worker sends (crates/sisviz-replay-worker TIMELINE_NS).
pub const MAX_HALF_NS: i64 = 5_000_000;
const MIN_HALF_NS: i64 = 5_000;
const LEFT: f64 = 44.0;
const WIDTH: f64 = 1000.0;
const LANE: f64 = 16.0;
const TOP: f64 = 4.0;

/// What part of the window is shown: half its width and its centre, ns from the wake-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub half_ns: i64,
    pub center_ns: i64,
}

impl Default for View {
    fn default() -> Self {
        View {
            half_ns: 200_000,
            center_ns: 0,
        }
    }
}

impl View {
    /// Zoomed by `factor_pct` percent of its width (< 100 zooms in), kept in the window.
    pub fn zoom(self, factor_pct: i64) -> View {
        let half = (self.half_ns * factor_pct / 100).clamp(MIN_HALF_NS, MAX_HALF_NS);
        View {
            half_ns: half,
            center_ns: self
                .center_ns
                .clamp(-MAX_HALF_NS + half, MAX_HALF_NS - half),
        }
    }

    /// Moved by `frac_pct` percent of its width.
    pub fn pan(self, frac_pct: i64) -> View {
        let c = self.center_ns + self.half_ns * 2 * frac_pct / 100;
        View {
            half_ns: self.half_ns,
            center_ns: c.clamp(-MAX_HALF_NS + self.half_ns, MAX_HALF_NS - self.half_ns),
        }
    }

    fn x(&self, t: i64) -> f64 {
        let from = self.center_ns - self.half_ns;
        LEFT + (t - from) as f64 * (WIDTH - LEFT) / (2 * self.half_ns) as f64
    }
}

/// A task's colour: its pid spread over the hue circle.
fn colour(pid: u32) -> String {
    format!("hsl({},60%,62%)", pid.wrapping_mul(47) % 360)
}

fn us(ns: i64) -> String {
    format!("{:.1} µs", ns as f64 / 1000.0)
}

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub view: std::rc::Rc<WakeView>,
    /// The selected preset's CPU.
    pub preset_cpu: u32,
    pub window: View,
    pub on_window: Callback<View>,
    /// Another kept wake-up picked (its position).
    pub on_pick: Callback<usize>,
}

#[component]
pub fn Timeline(p: &TimelineProps) -> Html {
    let v = &p.view;
    let w = p.window;
    let drag = use_mut_ref(|| None::<(f64, View)>);
    let n = v.cpus.len() as u32;
    let height = TOP + LANE * n as f64 + 14.0;
    let (from, to) = (w.center_ns - w.half_ns, w.center_ns + w.half_ns);
    let lane_y = |cpu: u32| TOP + LANE * cpu as f64;
    let spans = v.spans.iter().filter(|s| s.2 > from && s.1 < to).map(|&(cpu, a, b, pid)| {
        let (x0, x1) = (w.x(a.max(from)), w.x(b.min(to)));
        html! {
            <rect x={format!("{x0:.1}")} y={format!("{:.1}", lane_y(cpu) + 2.0)} width={format!("{:.1}", (x1 - x0).max(0.8))}
                height={format!("{}", LANE - 4.0)} fill={colour(pid)} class={classes!((pid == v.decision.id.wakee).then_some("wakee"))}>
                <title>{format!("CPU {cpu}: pid {pid}, {} to {}", us(a), us(b))}</title>
            </rect>
        }
    });
    let marks = v.marks.iter().filter(|m| m.2 > from && m.2 < to).map(|&(pos, line, t, cpu)| {
        let pick = p.on_pick.clone();
        let x = w.x(t);
        html! {
            <rect class="tl-tick" data-testid="timeline-tick" x={format!("{:.1}", x - 2.0)} y={format!("{:.1}", lane_y(cpu))}
                width="4" height={format!("{LANE}")} onclick={Callback::from(move |_: MouseEvent| pick.emit(pos))}>
                <title>{format!("wake-up at trace line {line}: the kernel chose CPU {cpu} at {}; click to step there", us(t))}</title>
            </rect>
        }
    });
    let x0 = w.x(0);
    let tag = |cpu: u32, label: &'static str, dx: f64| {
        html! { <text class={classes!("tl-tag", label)} x={format!("{:.1}", x0 + dx)} y={format!("{:.1}", lane_y(cpu) + LANE - 4.0)}>{label}</text> }
    };
    let id = &v.decision.id;
    let on_wheel = {
        let (on, w) = (p.on_window.clone(), w);
        Callback::from(move |e: WheelEvent| {
            e.prevent_default();
            on.emit(w.zoom(if e.delta_y() > 0.0 { 125 } else { 80 }));
        })
    };
    let on_down = {
        let drag = drag.clone();
        Callback::from(move |e: PointerEvent| *drag.borrow_mut() = Some((e.client_x() as f64, w)))
    };
    let on_move = {
        let (drag, on) = (drag.clone(), p.on_window.clone());
        Callback::from(move |e: PointerEvent| {
            if let Some((x, start)) = *drag.borrow() {
                let width = e
                    .target_dyn_into::<web_sys::Element>()
                    .map_or(WIDTH, |el| el.client_width().max(1) as f64);
                // A drag of the whole width moves by the whole view, the other way.
                let frac = -(e.client_x() as f64 - x) * 100.0 / width;
                on.emit(start.pan(frac as i64));
            }
        })
    };
    let on_up = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| *drag.borrow_mut() = None)
    };
    let button = |label: &'static str, title: &'static str, to: View| {
        let on = p.on_window.clone();
        html! { <button {title} onclick={Callback::from(move |_: MouseEvent| on.emit(to))}>{label}</button> }
    };
    html! {
        <div class="timeline" data-testid="replay-timeline">
            <div class="tl-controls">
                {button("−", "zoom out", w.zoom(200))}
                {button("+", "zoom in", w.zoom(50))}
                {button("◀", "earlier", w.pan(-25))}
                {button("▶", "later", w.pan(25))}
                {button("reset", "±200 µs around the wake-up", View::default())}
                <span data-testid="timeline-window">{format!(" {} to {} around the wake-up", us(from), us(to))}</span>
                { if v.spans_dropped > 0 { html! { <span class="hint">{" (the worker kept the first 1,000,000 runs of this trace; later ones are not drawn)"}</span> } } else { html! {} } }
            </div>
            <svg viewBox={format!("0 0 {WIDTH} {height:.0}")} preserveAspectRatio="none" role="img"
                aria-label="what ran on each CPU around the wake-up" onwheel={on_wheel}
                onpointerdown={on_down} onpointermove={on_move} onpointerup={on_up.clone()} onpointerleave={on_up}>
                { for (0..n).map(|c| html! {
                    <>
                        <text class="tl-cpu" x="2" y={format!("{:.1}", lane_y(c) + LANE - 4.0)}>{format!("CPU {c}")}</text>
                        <line class="tl-lane" x1={format!("{LEFT}")} x2={format!("{WIDTH}")} y1={format!("{:.1}", lane_y(c) + LANE)} y2={format!("{:.1}", lane_y(c) + LANE)} />
                    </>
                }) }
                { for spans }
                { for marks }
                <line class="tl-now" x1={format!("{x0:.1}")} x2={format!("{x0:.1}")} y1="0" y2={format!("{:.1}", TOP + LANE * n as f64)} />
                {tag(id.waker_cpu, "W", -14.0)}
                {tag(id.prev, "P", -26.0)}
                {tag(v.kernel, "K", 3.0)}
                {tag(p.preset_cpu, "M", 14.0)}
                <text class="tl-axis" x={format!("{LEFT}")} y={format!("{:.0}", height - 2.0)}>{us(from)}</text>
                <text class="tl-axis" x={format!("{:.0}", WIDTH - 60.0)} y={format!("{:.0}", height - 2.0)}>{us(to)}</text>
            </svg>
            <p class="legend" data-testid="timeline-legend">
                {"Coloured: a task running (one colour per pid; the wakee outlined); blank: idle. The line: the wake-up. "}
                <b>{"W"}</b>{" the waker's CPU, "}<b>{"P"}</b>{" prev, "}<b>{"K"}</b>{" the kernel's choice, "}<b>{"M"}</b>
                {" the preset's. Ticks: the other kept wake-ups, on the CPU the kernel chose (click one to step to it). Wheel or −/+ zooms, drag or ◀/▶ pans."}
            </p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_and_pan_stay_in_the_window() {
        let v = View::default();
        assert_eq!(v.zoom(50).half_ns, 100_000);
        assert_eq!(v.zoom(1_000_000).half_ns, MAX_HALF_NS);
        assert_eq!(v.zoom(1).half_ns, MIN_HALF_NS);
        let far = v.pan(100_000);
        assert_eq!(
            far.center_ns,
            MAX_HALF_NS - v.half_ns,
            "panned to the window's end"
        );
        assert_eq!(v.pan(-25).center_ns, -100_000);
        let wide = v.zoom(1_000_000).pan(50);
        assert_eq!(wide.center_ns, 0, "the whole window leaves nowhere to pan");
        assert!((v.x(-200_000) - LEFT).abs() < 1e-9 && (v.x(200_000) - WIDTH).abs() < 1e-9);
    }
}
