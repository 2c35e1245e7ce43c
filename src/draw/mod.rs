//! Pure drawing functions: each takes a canvas and plain data, nothing else. The charts
//! (`curve`, `hist`, `spark`, `sweep`) are plotters charts over plotters-canvas (`plot` holds
//! what they share) and return where they put the data (`plot::ChartMap`) for hover, click and
//! tests. `cpus` is the per-CPU animation on the raw CanvasRenderingContext2d (see
//! ARCHITECTURE.md for why it is not a plotters chart).

pub mod cpus;
pub mod curve;
pub mod hist;
pub mod labels;
pub mod plot;
pub mod spark;
pub mod sweep;

/// An RGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub fn css(self) -> String {
        format!("rgb({},{},{})", self.0, self.1, self.2)
    }
    pub fn css_a(self, a: f64) -> String {
        format!("rgba({},{},{},{a:.2})", self.0, self.1, self.2)
    }
}

/// Colours of one theme, shared by every canvas (the CSS uses the same values).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub dark: bool,
    pub bg: Rgb,
    pub fg: Rgb,
    pub muted: Rgb,
    pub grid: Rgb,
    pub idle: Rgb,
    pub sched_idle: Rgb,
    pub busy: Rgb,
    pub not_allowed: Rgb,
    pub accent: Rgb,
    pub waker: Rgb,
    pub prev: Rgb,
    pub target: Rgb,
    pub chosen: Rgb,
    pub missed: Rgb,
    pub guess: Rgb,
    pub prop: Rgb,
}

impl Palette {
    pub const LIGHT: Palette = Palette {
        dark: false,
        bg: Rgb(255, 255, 255),
        fg: Rgb(27, 31, 36),
        muted: Rgb(96, 104, 116),
        grid: Rgb(218, 222, 228),
        idle: Rgb(34, 150, 90),
        sched_idle: Rgb(214, 150, 0),
        busy: Rgb(205, 70, 62),
        not_allowed: Rgb(140, 140, 140),
        accent: Rgb(36, 99, 214),
        waker: Rgb(140, 70, 200),
        prev: Rgb(0, 128, 140),
        target: Rgb(36, 99, 214),
        chosen: Rgb(20, 20, 20),
        missed: Rgb(34, 150, 90),
        guess: Rgb(200, 60, 170),
        prop: Rgb(214, 120, 0),
    };
    pub const DARK: Palette = Palette {
        dark: true,
        bg: Rgb(22, 25, 30),
        fg: Rgb(230, 234, 240),
        muted: Rgb(160, 168, 180),
        grid: Rgb(60, 66, 76),
        idle: Rgb(72, 200, 130),
        sched_idle: Rgb(240, 190, 60),
        busy: Rgb(240, 100, 90),
        not_allowed: Rgb(130, 130, 130),
        accent: Rgb(110, 165, 255),
        waker: Rgb(190, 140, 255),
        prev: Rgb(60, 200, 210),
        target: Rgb(110, 165, 255),
        chosen: Rgb(255, 255, 255),
        missed: Rgb(72, 200, 130),
        guess: Rgb(255, 110, 220),
        prop: Rgb(255, 170, 60),
    };

    pub fn of(dark: bool) -> Palette {
        if dark {
            Palette::DARK
        } else {
            Palette::LIGHT
        }
    }
}
