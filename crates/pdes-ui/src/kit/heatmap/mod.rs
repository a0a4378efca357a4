//! The heatmap: a wgpu render pass inside an egui paint callback that reads the
//! session's display buffer (on the GPU) through a perceptual colormap. Zoom with the
//! scroll wheel, pan by dragging, hover for a facility's details, click to pin it.

mod legend;
mod marks;
mod render_pass;

pub use legend::{LEGEND_WIDTH, legend};
pub use marks::arrow_pieces;
use marks::{draw_arrow, draw_pin, ring};
pub use render_pass::{HeatmapCallback, HeatmapResources, install};

use super::session::Session;
use eframe::egui;

/// What the heatmap colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Tokens at the facility (queued + in service).
    Tokens,
    /// Whether the server is busy.
    Busy,
    /// Facilities whose latest causality error is recent, fading over a few steps.
    Errors,
    /// Diffusion: the temperature of every cell.
    Temperature,
    /// DEVS benchmark: each cell's digit with its flips undone (the value XOR the parity of
    /// its last transition's time): every cell flips at every step, so the field stays as
    /// it was at the start — the calm default; a cell that missed a flip would change.
    Steadied,
    /// DEVS benchmark: each cell's digit (0 or 1): the whole field flips at every step, so
    /// the window then shows at most [`crate::kit::panel::Panel::max_steps_per_second`].
    Digit,
    /// DEVS SIR: each cell's susceptible, infected and recovered fractions as green, red
    /// and blue.
    Compartments,
}

impl Mode {
    /// The modes of a session's model, for a selector (the first is the default).
    pub fn of(s: &Session) -> &'static [Mode] {
        s.panel.modes
    }

    /// Label in the UI for session `s`'s model (the count mode is named by the model).
    pub fn label_in(self, s: &Session) -> &'static str {
        match self {
            Mode::Tokens => s.panel.count_mode,
            _ => self.label(),
        }
    }

    /// Label in the UI.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Tokens => "queue length",
            Mode::Busy => "busy / idle",
            Mode::Errors => "causality errors",
            Mode::Temperature => "temperature",
            Mode::Steadied => "value, flips undone",
            Mode::Digit => "cell value (flashes)",
            Mode::Compartments => "S / I / R",
        }
    }

    /// True where the mode shows every cell change at every step of some model (the DEVS
    /// benchmark's digits): such a view is shown slowly (WCAG 2.3.1, no more than three
    /// whole-field flashes a second).
    pub fn flashes_whole_field(self) -> bool {
        self == Mode::Digit
    }

    pub(crate) fn code(self) -> u32 {
        match self {
            Mode::Tokens => 0,
            Mode::Busy => 1,
            Mode::Errors => 2,
            Mode::Temperature => 3,
            Mode::Digit => 1,
            Mode::Compartments => 4,
            Mode::Steadied => 5,
        }
    }
}

/// Zoom and pan of one heatmap: the visible window in grid coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Grid x of the left edge.
    pub x0: f32,
    /// Grid y of the top edge.
    pub y0: f32,
    /// Grid cells across the width.
    pub span: f32,
    /// Width and height of the rectangle this view was made for.
    pub size: [f32; 2],
    /// True while the view is the whole-grid fit (no zoom or pan since).
    pub fitted: bool,
    /// The grid (rows, cols) this view was made for.
    pub shape: (u32, u32),
}

impl View {
    /// The whole grid, fitted to a `w × h` rectangle.
    pub fn fit(rows: u32, cols: u32, w: f32, h: f32) -> Self {
        let aspect = w / h.max(1.0);
        let span = (cols as f32).max(rows as f32 * aspect);
        Self {
            x0: (cols as f32 - span) / 2.0,
            y0: (rows as f32 - span / aspect) / 2.0,
            span,
            size: [w, h],
            fitted: true,
            shape: (rows, cols),
        }
    }

    /// This view for a grid of `rows × cols` in a rectangle of `w × h`. A grid of another
    /// shape (a preset or model loaded) gets the whole-grid fit: the old view showed a 64²
    /// torus through the 16² one's 16-cell window. A resized rectangle (e.g. halved when
    /// A/B puts two side by side): a whole-grid fit is fitted again; a zoomed view keeps
    /// its cell size in pixels and its top-left corner. (Keeping the old span made the A
    /// heatmap half its size in a corner once A/B was switched on.)
    pub fn for_rect(self, rows: u32, cols: u32, w: f32, h: f32) -> Self {
        if self.shape != (rows, cols) {
            Self::fit(rows, cols, w, h)
        } else if self.size == [w, h] {
            self
        } else if self.fitted {
            Self::fit(rows, cols, w, h)
        } else {
            Self {
                span: self.span * w / self.size[0].max(1.0),
                size: [w, h],
                ..self
            }
        }
    }

    /// Grid coordinates of a point of `rect`.
    pub fn to_grid(&self, rect: egui::Rect, p: egui::Pos2) -> egui::Vec2 {
        let s = self.span / rect.width().max(1.0);
        egui::vec2(
            self.x0 + (p.x - rect.left()) * s,
            self.y0 + (p.y - rect.top()) * s,
        )
    }
}

/// The colormap on the CPU (same polynomial as the shader), for the legend and PNG export.
pub fn viridis(t: f32) -> [f32; 3] {
    let c: [[f64; 3]; 7] = [
        [0.2777273, 0.0054073, 0.3340998],
        [0.1050930, 1.4046135, 1.3845901],
        [-0.3308618, 0.2148476, 0.0950952],
        [-4.6342305, -5.7991010, -19.3324410],
        [6.2282699, 14.1799334, 56.6905526],
        [4.7763849, -13.7451454, -65.3530326],
        [-5.4354559, 4.6458526, 26.3124352],
    ];
    let t = f64::from(t.clamp(0.0, 1.0));
    let mut out = [0.0; 3];
    for (ch, o) in out.iter_mut().enumerate() {
        let mut v = c[6][ch];
        for k in (0..6).rev() {
            v = c[k][ch] + t * v;
        }
        *o = v.clamp(0.0, 1.0) as f32;
    }
    out
}

/// Smallest cell, in pixels, that gets a "just ran" dot (below it a dot hides the cell).
pub const DOT_MIN_PX: f32 = 6.0;

/// What is drawn over a heatmap's cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks<'a> {
    /// A token's way from cell `from` to its neighbour `to` (a selected causality error).
    pub arrow: Option<(u32, u32)>,
    /// The pinned cell, framed.
    pub pinned: Option<u32>,
    /// A followed token's last cells, oldest first: drawn as a trail of arrows, the
    /// newest brightest, its current cell ringed.
    pub trail: &'a [u32],
    /// The cells the last single step ran: an orange dot each, beside the outlines of the
    /// next step.
    pub ran: &'a [u32],
}

/// Draws one heatmap; returns the facility clicked, if any.
pub fn heatmap_widget(
    ui: &mut egui::Ui,
    s: &Session,
    mode: Mode,
    view: &mut Option<View>,
    size: egui::Vec2,
    id: u64,
    marks: Marks<'_>,
) -> Option<u32> {
    let (rows, cols) = s.shape();
    let (rect, resp) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
    let v = view.get_or_insert_with(|| View::fit(rows, cols, rect.width(), rect.height()));
    *v = v.for_rect(rows, cols, rect.width(), rect.height());
    let scroll = ui.input(|i| i.smooth_scroll_delta.y);
    if resp.hovered()
        && scroll != 0.0
        && let Some(p) = resp.hover_pos()
    {
        // zoom about the pointer
        let g = v.to_grid(rect, p);
        let factor = (-scroll / 200.0).exp();
        v.span = (v.span * factor).clamp(2.0, 4.0 * rows.max(cols) as f32);
        v.fitted = false;
        let g2 = v.to_grid(rect, p);
        v.x0 += g.x - g2.x;
        v.y0 += g.y - g2.y;
    }
    if resp.dragged() {
        let d = resp.drag_delta() * (v.span / rect.width());
        v.x0 -= d.x;
        v.y0 -= d.y;
        v.fitted = false;
    }
    if resp.double_clicked() {
        *v = View::fit(rows, cols, rect.width(), rect.height());
    }
    let (min_value, max_value) = colour_range(s);
    match &s.display {
        Some(cells) if s.draws_with_wgpu() => {
            ui.painter()
                .add(eframe::egui_wgpu::Callback::new_paint_callback(
                    rect,
                    HeatmapCallback {
                        id,
                        cells: cells.clone(),
                        rows,
                        cols,
                        mode,
                        step: s.steps() as u32,
                        view: *v,
                        aspect: rect.width() / rect.height().max(1.0),
                        max_value,
                        min_value,
                        rect,
                    },
                ));
        }
        _ => texture_heatmap(ui, s, mode, rect, v),
    }
    let cells = u64::from(rows) * u64::from(cols);
    if marks.trail.iter().all(|&c| u64::from(c) < cells) {
        let n = marks.trail.len();
        for (i, pair) in marks.trail.windows(2).enumerate() {
            // older hops fainter
            let alpha = (255 * (i + 2) / n.max(2)) as u8;
            let colour = egui::Color32::from_rgba_unmultiplied(120, 230, 255, alpha);
            draw_arrow(ui, rect, v, (rows, cols), (pair[0], pair[1]), colour);
        }
        if let Some(&last) = marks.trail.last() {
            ring(
                ui,
                rect,
                v,
                cols,
                last,
                egui::Color32::from_rgb(120, 230, 255),
            );
        }
    }
    let px = rect.width() / v.span;
    if px >= DOT_MIN_PX {
        let painter = ui.painter_at(rect);
        for &f in marks.ran.iter().filter(|&&f| u64::from(f) < cells) {
            let (r, c) = ((f / cols) as f32 + 0.5, (f % cols) as f32 + 0.5);
            let centre = rect.left_top() + egui::vec2((c - v.x0) * px, (r - v.y0) * px);
            painter.circle(
                centre,
                (px * 0.18).max(2.5),
                egui::Color32::from_rgb(255, 150, 40),
                egui::Stroke::new(1.0, egui::Color32::BLACK),
            );
        }
    }
    if let Some(way) = marks.arrow {
        draw_arrow(
            ui,
            rect,
            v,
            (rows, cols),
            way,
            egui::Color32::from_rgb(255, 80, 60),
        );
        ring(ui, rect, v, cols, way.1, egui::Color32::WHITE);
    }
    if let Some(f) = marks
        .pinned
        .filter(|&f| u64::from(f) < u64::from(rows) * u64::from(cols))
    {
        draw_pin(ui, rect, v, cols, f);
    }
    let facility_at = |p: egui::Pos2| {
        let g = v.to_grid(rect, p);
        (g.x >= 0.0 && g.y >= 0.0 && (g.x as u32) < cols && (g.y as u32) < rows)
            .then(|| g.y as u32 * cols + g.x as u32)
    };
    let mut clicked = None;
    if let Some(p) = resp.hover_pos()
        && let Some(f) = facility_at(p)
    {
        if resp.clicked() {
            clicked = Some(f);
        }
        resp.on_hover_ui_at_pointer(|ui| (s.panel.hover)(ui, s, f));
    }
    clicked
}

/// The values at the bottom and top of the colormap (the model's panel decides).
fn colour_range(s: &Session) -> (f32, f32) {
    (s.panel.colour_range)(s)
}

/// The colour of one heatmap word (the shader's, on the CPU: texture fallback, PNG export).
pub fn word_colour(mode: Mode, w: [u32; 2], step: u32, (lo, hi): (f32, f32)) -> [f32; 3] {
    // the next step's mark (bit 31: the torus, PHOLD) is an outline, not part of the count
    let w = if matches!(mode, Mode::Temperature | Mode::Compartments) {
        w
    } else {
        [w[0] & !pdes_gpu::NEXT_STEP_BIT, w[1]]
    };
    match mode {
        Mode::Tokens => viridis(w[0] as f32 / hi),
        Mode::Compartments => {
            // as in the shader: S green, R blue, the infected a red overlay full at i = 5%
            let (s, i, r) = pdes_models::devs::sir_unpack(w[0]);
            let k = (i as f32 / 50.0).min(1.0) * 0.85;
            let base = [0.0, s as f32 / 1000.0, r as f32 / 1000.0];
            [0, 1, 2].map(|j| base[j] + ([1.0, 0.1, 0.1][j] - base[j]) * k)
        }
        Mode::Busy | Mode::Digit | Mode::Steadied => {
            let shown = if mode == Mode::Steadied { w[1] } else { w[0] };
            if shown > 0 {
                [0.99, 0.80, 0.20]
            } else {
                [0.12, 0.12, 0.16]
            }
        }
        Mode::Errors => {
            let base = viridis(w[0] as f32 / hi).map(|c| c * 0.35);
            let flash = if w[1] > 0 && step >= w[1] {
                (1.0 - (step - w[1]) as f32 / 8.0).max(0.0)
            } else {
                0.0
            };
            [0, 1, 2].map(|i| base[i] + ([1.0, 0.15, 0.1][i] - base[i]) * flash)
        }
        Mode::Temperature => viridis((f32::from_bits(w[0]) - lo) / (hi - lo)),
    }
}

/// The least height a heatmap is given: below it the live view scrolls instead (a heatmap
/// of 50 px shows nothing of a lesson).
pub const MIN_HEIGHT: f32 = 160.0;

/// The heatmap without wgpu: the same words and colormap, uploaded as an egui texture
/// (the window's renderer is OpenGL then, and every engine runs on the CPU).
fn texture_heatmap(ui: &mut egui::Ui, s: &Session, mode: Mode, rect: egui::Rect, v: &View) {
    let (rows, cols) = (s.shape().0 as usize, s.shape().1 as usize);
    let max_side = ui.ctx().input(|i| i.max_texture_side);
    if rows > max_side || cols > max_side {
        ui.painter().text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            format!("heatmap off: {rows}×{cols} is larger than a {max_side}-texel texture"),
            egui::FontId::default(),
            egui::Color32::GRAY,
        );
        return;
    }
    let Ok(words) = s.display_words() else { return };
    let range = colour_range(s);
    let step = s.steps() as u32;
    let pixels: Vec<egui::Color32> = words
        .iter()
        .map(|w| {
            let rgb = word_colour(mode, *w, step, range);
            egui::Color32::from_rgb(
                (rgb[0] * 255.0) as u8,
                (rgb[1] * 255.0) as u8,
                (rgb[2] * 255.0) as u8,
            )
        })
        .collect();
    let image = egui::ColorImage::new([cols, rows], pixels);
    let tex = ui
        .ctx()
        .load_texture("heatmap-cpu", image, egui::TextureOptions::NEAREST);
    // the whole grid's rectangle on screen under the current zoom and pan, clipped to `rect`
    let px = rect.width() / v.span;
    let grid = egui::Rect::from_min_size(
        rect.left_top() + egui::vec2(-v.x0 * px, -v.y0 * px),
        egui::vec2(cols as f32 * px, rows as f32 * px),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, egui::Color32::from_rgb(20, 20, 23));
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(tex.id(), grid, uv, egui::Color32::WHITE);
    // what the shader draws over the cells, drawn here too (a browser tab, a machine
    // without a GPU): the grid lines from 8 px cells (24 for temperature) and the next
    // step's outlines from 4 px
    let lines_from = if mode == Mode::Temperature { 24.0 } else { 8.0 };
    if px > lines_from {
        let line = egui::Stroke::new(1.0, egui::Color32::from_rgb(13, 13, 15));
        for r in 1..rows {
            let y = grid.top() + r as f32 * px;
            painter.hline(grid.x_range(), y, line);
        }
        for c in 1..cols {
            let x = grid.left() + c as f32 * px;
            painter.vline(x, grid.y_range(), line);
        }
    }
    if px >= 4.0 && mode != Mode::Temperature {
        let outline = egui::Stroke::new((px * 0.12).max(1.5), egui::Color32::WHITE);
        for (i, w) in words.iter().enumerate() {
            if w[0] & pdes_gpu::NEXT_STEP_BIT != 0 {
                let (r, c) = ((i / cols) as f32, (i % cols) as f32);
                let cell = egui::Rect::from_min_size(
                    grid.left_top() + egui::vec2(c * px, r * px),
                    egui::vec2(px, px),
                );
                painter.rect_stroke(cell, 0.0, outline, egui::StrokeKind::Inside);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::View;

    #[test]
    fn a_fitted_view_is_fitted_again_when_its_rectangle_halves() {
        // A/B on: the A heatmap's rectangle goes from 800 × 400 to 400 × 400
        let v = View::fit(16, 16, 800.0, 400.0).for_rect(16, 16, 400.0, 400.0);
        assert_eq!(v, View::fit(16, 16, 400.0, 400.0));
        assert_eq!(v.span, 16.0, "the whole grid fills the width");
    }

    #[test]
    fn a_zoomed_view_keeps_its_cell_size_when_resized() {
        let mut v = View::fit(64, 64, 800.0, 400.0);
        v.span = 10.0;
        v.fitted = false;
        let w = v.for_rect(64, 64, 400.0, 400.0);
        // 80 px per cell before and after
        assert_eq!(800.0 / v.span, 400.0 / w.span);
        assert_eq!((w.x0, w.y0), (v.x0, v.y0));
    }

    /// Loading a 64 × 64 preset over the 16 × 16 one, in the same rectangle: the whole
    /// new grid is shown, whether or not the old view was zoomed.
    #[test]
    fn a_grid_of_another_shape_gets_the_whole_grid_fit() {
        let v = View::fit(16, 16, 800.0, 400.0);
        assert_eq!(
            v.for_rect(64, 64, 800.0, 400.0),
            View::fit(64, 64, 800.0, 400.0)
        );
        let mut zoomed = v;
        zoomed.span = 4.0;
        zoomed.fitted = false;
        assert_eq!(
            zoomed.for_rect(64, 64, 800.0, 400.0),
            View::fit(64, 64, 800.0, 400.0)
        );
        assert_eq!(zoomed.for_rect(16, 16, 800.0, 400.0), zoomed);
    }
}
