//! What every plotters chart shares: the canvas backend in CSS pixels, the coordinate mapping a
//! chart returns for hover and click, colours, and the mesh (grid, axes, labels) in the theme.
//!
//! `CssCanvas` wraps plotters-canvas's `CanvasBackend`: the canvas holds width × dpr device
//! pixels, the 2D context is scaled by dpr, and plotters lays the chart out in CSS pixels, so
//! the mapping a `draw_*` returns reads mouse `offsetX/offsetY` directly. Text is measured with
//! the context's `measureText` (plotters' wasm default measures each label in a DOM span).

use super::{Palette, Rgb};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, ReverseCoordTranslate, Shift};
use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use std::ops::Range;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// plotters-canvas's backend laid out in CSS pixels on a HiDPI canvas.
pub struct CssCanvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    size: (u32, u32),
}

impl CssCanvas {
    /// The canvas (already sized to its CSS box × `dpr`, see `canvas::fit`), its context
    /// scaled by `dpr` and cleared to `bg`.
    pub fn new(canvas: &HtmlCanvasElement, dpr: f64) -> Result<Self, String> {
        let ctx = crate::canvas::context_2d(canvas).ok_or("no 2d context")?;
        let dpr = if dpr > 0.0 { dpr } else { 1.0 };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        let size = (
            (canvas.width() as f64 / dpr).round() as u32,
            (canvas.height() as f64 / dpr).round() as u32,
        );
        let inner = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2d context")?;
        Ok(CssCanvas { inner, ctx, size })
    }
}

/// plotters-canvas's error type (not exported by name).
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;
type Res = Result<(), DrawingErrorKind<CanvasError>>;

impl DrawingBackend for CssCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }
    fn present(&mut self) -> Res {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Res {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Res {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Res {
        self.ctx.set_line_join("round");
        self.inner.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Res {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Res {
        self.inner.fill_polygon(path, s)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Res {
        self.inner.draw_text(text, s, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // The same font string plotters-canvas draws with.
        self.ctx.set_font(&format!(
            "{} {}px {}",
            s.style().as_str(),
            s.size(),
            s.family().as_str()
        ));
        let w = self.ctx.measure_text(text).map_or(0.0, |m| m.width());
        Ok((w.ceil() as u32, s.size().ceil() as u32))
    }
}

/// A chart's root area: the whole canvas, cleared to the theme's background.
pub type Root = DrawingArea<CssCanvas, Shift>;
/// Every chart's coordinates: f64 on both axes (one instance of plotters' chart code).
pub type Coord = Cartesian2d<RangedCoordf64, RangedCoordf64>;
pub type Chart<'a> = ChartContext<'a, CssCanvas, Coord>;

/// Opens `canvas` for plotters and clears it.
pub fn root(canvas: &HtmlCanvasElement, dpr: f64, pal: &Palette) -> Result<Root, String> {
    let root = CssCanvas::new(canvas, dpr)?.into_drawing_area();
    root.fill(&colour(pal.bg)).map_err(err)?;
    Ok(root)
}

/// A plotters error as text.
pub fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Where a chart put its data: both directions between data values and CSS pixels of the
/// canvas (plotters' own `Cartesian2d`, as `ChartContext::into_coord_trans` uses it).
#[derive(Clone)]
pub struct ChartMap {
    coord: Coord,
}

impl ChartMap {
    pub fn of(chart: &Chart) -> Self {
        ChartMap {
            coord: chart.as_coord_spec().clone(),
        }
    }
    /// The pixel (CSS px from the canvas's top-left) of a data point.
    pub fn to_px(&self, x: f64, y: f64) -> (i32, i32) {
        self.coord.translate(&(x, y))
    }
    /// The data point under a pixel, if it is inside the plot area.
    pub fn from_px(&self, x: i32, y: i32) -> Option<(f64, f64)> {
        self.coord.reverse_translate((x, y))
    }
    pub fn x_range(&self) -> Range<f64> {
        self.coord.get_x_range()
    }
    pub fn y_range(&self) -> Range<f64> {
        self.coord.get_y_range()
    }
}

impl std::fmt::Debug for ChartMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ChartMap {{ x: {:?} -> {:?} px, y: {:?} -> {:?} px }}",
            self.x_range(),
            self.coord.get_x_axis_pixel_range(),
            self.y_range(),
            self.coord.get_y_axis_pixel_range()
        )
    }
}

impl PartialEq for ChartMap {
    fn eq(&self, o: &Self) -> bool {
        self.x_range() == o.x_range()
            && self.y_range() == o.y_range()
            && self.coord.get_x_axis_pixel_range() == o.coord.get_x_axis_pixel_range()
            && self.coord.get_y_axis_pixel_range() == o.coord.get_y_axis_pixel_range()
    }
}

/// The mapping of the chart last drawn on a canvas, shared between whoever draws it (the
/// frame loop) and the component that reads the mouse over it. Props compare it by identity.
#[derive(Clone, Default)]
pub struct ChartMapCell(std::rc::Rc<std::cell::RefCell<Option<ChartMap>>>);

impl ChartMapCell {
    pub fn set(&self, map: ChartMap) {
        *self.0.borrow_mut() = Some(map);
    }
    pub fn get(&self) -> Option<ChartMap> {
        self.0.borrow().clone()
    }
}

impl PartialEq for ChartMapCell {
    fn eq(&self, o: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &o.0)
    }
}

pub fn colour(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// `c` at opacity `a`.
pub fn alpha(c: Rgb, a: f64) -> RGBAColor {
    colour(c).mix(a)
}

/// Sans-serif at `px` CSS pixels, named by plotters' enum: `FontFamily::from(&str)` would
/// pull `str::to_lowercase` and Unicode's case tables into the page.
fn sans(px: u32) -> FontDesc<'static> {
    FontDesc::new(FontFamily::SansSerif, px as f64, FontStyle::Normal)
}

/// A text style: `px` CSS pixels, sans-serif, colour `c`, anchored at `h`/`v`.
pub fn text_style(px: u32, c: Rgb, h: HPos, v: VPos) -> TextStyle<'static> {
    sans(px).color(&colour(c)).pos(Pos::new(h, v))
}

pub use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What differs between the charts' meshes.
pub struct Axes<'a> {
    pub x_labels: usize,
    pub y_labels: usize,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub label_px: u32,
    pub desc_px: u32,
    pub x_fmt: &'a dyn Fn(&f64) -> String,
    pub y_fmt: &'a dyn Fn(&f64) -> String,
    /// Draw the vertical grid lines.
    pub x_grid: bool,
}

/// The grid, axes, tick labels and axis descriptions in the theme's colours.
pub fn mesh(chart: &mut Chart, a: &Axes, pal: &Palette) -> Result<(), String> {
    let label = sans(a.label_px).color(&colour(pal.muted));
    let desc = sans(a.desc_px).color(&colour(pal.fg));
    let mut m = chart.configure_mesh();
    m.x_labels(a.x_labels)
        .y_labels(a.y_labels)
        .x_desc(a.x_desc)
        .y_desc(a.y_desc)
        .label_style(label)
        .axis_desc_style(desc)
        .x_label_formatter(a.x_fmt)
        .y_label_formatter(a.y_fmt)
        .axis_style(colour(pal.muted))
        .bold_line_style(alpha(pal.grid, 0.8))
        .light_line_style(alpha(pal.grid, 0.35));
    if !a.x_grid {
        m.disable_x_mesh();
    }
    m.draw().map_err(err)
}

/// Formats `v` with `decimals` decimals (the one place the charts format axis numbers).
pub fn num(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

/// A tick label for integer axes: blank between integers (plotters may pick 0.5 steps).
pub fn int_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        compact(*v)
    } else {
        String::new()
    }
}

/// A count as an axis reads it: 9999 as is, then 25k, 1.5M, 6M (one decimal where it says
/// something).
pub fn compact(v: f64) -> String {
    let (scaled, unit) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => return num(v, 0),
    };
    let text = format!("{scaled:.1}");
    format!("{}{unit}", text.strip_suffix(".0").unwrap_or(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_labels_blank_between_integers() {
        assert_eq!(int_label(&3.0), "3");
        assert_eq!(int_label(&2.5), "");
        // Large counts read as 6M, not 6000000 (the histogram's calls axis).
        assert_eq!(int_label(&6_000_000.0), "6M");
        assert_eq!(int_label(&1_500_000.0), "1.5M");
        assert_eq!(int_label(&25_000.0), "25k");
        assert_eq!(int_label(&9_999.0), "9999");
        assert_eq!(compact(2.5e9), "2.5G");
        assert_eq!(num(85.4701, 1), "85.5");
    }
}
