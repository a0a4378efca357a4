//! What is drawn over a heatmap's cells besides its colours: a causality error's arrow
//! (two halves across the torus's wrapping edge), the ring where an arrow ends or a
//! followed token is, the pinned cell's frame.

use super::View;
use eframe::egui;

/// An arrow on the heatmap from the centre of cell `from` to that of its neighbour `to` (a
/// token's way); across a wrapping edge, drawn as its two halves on the grid
/// ([`arrow_pieces`]).
pub(super) fn draw_arrow(
    ui: &egui::Ui,
    rect: egui::Rect,
    v: &View,
    shape: (u32, u32),
    way: (u32, u32),
    colour: egui::Color32,
) {
    let px = rect.width() / v.span;
    let at = |[r, c]: [f32; 2]| rect.left_top() + egui::vec2((c - v.x0) * px, (r - v.y0) * px);
    let stroke = egui::Stroke::new((px * 0.12).clamp(2.0, 6.0), colour);
    let painter = ui.painter_at(rect);
    let pieces = arrow_pieces(shape, way);
    let last = pieces.len() - 1;
    for (i, (a, b)) in pieces.into_iter().enumerate() {
        let (p0, p1) = (at(a), at(b));
        if i == last {
            painter.arrow(p0, (p1 - p0) * 0.8, stroke);
        } else {
            // the half that leaves the grid: a line to the edge, where the token wraps
            painter.line_segment([p0, p1], stroke);
        }
    }
}

/// The pieces of the arrow from cell `from` to its neighbour `to` on a `rows` × `cols`
/// torus, in grid coordinates ([row, column], a cell's centre at +0.5): one piece between
/// the centres; across a wrapping edge two — from `from`'s centre to the edge it leaves by,
/// then from the opposite edge to `to`'s centre — so that nothing is drawn off the grid
/// (issue 56 §5: the arrow entered from off the grid). The last piece ends at `to`.
pub fn arrow_pieces((rows, cols): (u32, u32), (from, to): (u32, u32)) -> Vec<([f32; 2], [f32; 2])> {
    let step = |a: u32, b: u32, n: u32| -> f32 {
        // the signed offset b − a on a ring of n, taken the short way
        let d = (b + n - a) % n;
        if d > n / 2 {
            d as f32 - n as f32
        } else {
            d as f32
        }
    };
    let centre = |f: u32| [(f / cols) as f32 + 0.5, (f % cols) as f32 + 0.5];
    let (a, b) = (centre(from), centre(to));
    let way = [
        step(from / cols, to / cols, rows),
        step(from % cols, to % cols, cols),
    ];
    let straight = [a[0] + way[0], a[1] + way[1]];
    let neighbours = way[0].abs() + way[1].abs() <= 1.0;
    if !neighbours || ((straight[0] - b[0]).abs() < 1e-3 && (straight[1] - b[1]).abs() < 1e-3) {
        // between cells that are no torus neighbours (a network's stations by index): the
        // straight way between them
        return vec![(a, b)];
    }
    // across the edge: the token leaves `from` by half its way and comes in half a way
    // before `to`, at the opposite edge
    let half = [way[0] * 0.5, way[1] * 0.5];
    vec![
        (a, [a[0] + half[0], a[1] + half[1]]),
        ([b[0] - half[0], b[1] - half[1]], b),
    ]
}

/// A ring around cell `f`'s centre (where an arrow ends, where a followed token is).
pub(super) fn ring(
    ui: &egui::Ui,
    rect: egui::Rect,
    v: &View,
    cols: u32,
    f: u32,
    colour: egui::Color32,
) {
    let px = rect.width() / v.span;
    let (r, c) = ((f / cols) as f32 + 0.5, (f % cols) as f32 + 0.5);
    let centre = rect.left_top() + egui::vec2((c - v.x0) * px, (r - v.y0) * px);
    ui.painter_at(rect)
        .circle_stroke(centre, (px * 0.45).max(4.0), egui::Stroke::new(2.0, colour));
}

/// The pinned cell's marker: a cyan frame around it (the inspector shows its facts; without
/// the frame nobody saw which cell that was).
pub(super) fn draw_pin(ui: &egui::Ui, rect: egui::Rect, v: &View, cols: u32, f: u32) {
    let px = rect.width() / v.span;
    let (r, c) = ((f / cols) as f32, (f % cols) as f32);
    let top_left = rect.left_top() + egui::vec2((c - v.x0) * px, (r - v.y0) * px);
    let cell = egui::Rect::from_min_size(top_left, egui::vec2(px, px)).expand(1.0);
    ui.painter_at(rect).rect_stroke(
        cell,
        0.0,
        egui::Stroke::new(2.0, egui::Color32::from_rgb(80, 220, 255)),
        egui::StrokeKind::Outside,
    );
}
