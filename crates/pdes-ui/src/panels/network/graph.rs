//! The network as a graph (issue 55 §4): stations as nodes, coloured by the tokens present
//! (the heatmap's colours and range), routes as arrows whose width is the flow along them
//! (the station's completions so far times the route's probability; before any, the
//! probability), the stations with an event in the next window outlined, a hover with the
//! station's facts, a click to pin it. The layout is computed from the routes: layers by
//! the number of hops from where tokens enter (the external arrivals, or station 0 of a
//! closed network), left to right, each layer's stations top to bottom.
//!
//! Up to [`MOST_NODES`] stations; above, the heatmap by index says more (at 10⁴ nodes in a
//! laptop's view a node is a few pixels and the arrows cover the picture).

use super::{config, hover, live_state};
use crate::kit::heatmap::{Marks, viridis};
use crate::kit::session::Session;
use eframe::egui;
use pdes_models::network::config::NetworkConfig;
use pdes_models::network::spec::EXIT;
use std::collections::VecDeque;

/// The most stations drawn as nodes.
pub const MOST_NODES: usize = 400;
/// The most layers and stations per layer of a layered layout (else a grid by index).
const MOST_LAYERS: usize = 24;
const MOST_PER_LAYER: usize = 40;

/// Each station's place in the unit square.
fn layout(cfg: &NetworkConfig) -> Vec<egui::Pos2> {
    let net = &cfg.network;
    let n = net.stations.len();
    let mut depth = vec![usize::MAX; n];
    let mut todo: VecDeque<usize> = (0..n)
        .filter(|&i| net.stations[i].arrival_rate > 0.0)
        .collect();
    if todo.is_empty() {
        todo.push_back(0);
    }
    for &i in &todo {
        depth[i] = 0;
    }
    while let Some(i) = todo.pop_front() {
        for &(d, _) in net.stations[i].routes.iter() {
            if d != EXIT && depth[d as usize] == usize::MAX {
                depth[d as usize] = depth[i] + 1;
                todo.push_back(d as usize);
            }
        }
    }
    let last = depth
        .iter()
        .filter(|&&d| d != usize::MAX)
        .max()
        .copied()
        .unwrap_or(0);
    let depth: Vec<usize> = depth.into_iter().map(|d| d.min(last + 1)).collect();
    let layers = depth.iter().max().map_or(1, |d| d + 1);
    let mut members = vec![Vec::new(); layers];
    for (i, &d) in depth.iter().enumerate() {
        members[d].push(i);
    }
    let widest = members.iter().map(Vec::len).max().unwrap_or(1);
    let mut at = vec![egui::Pos2::ZERO; n];
    if layers <= MOST_LAYERS && widest <= MOST_PER_LAYER {
        for (l, m) in members.iter().enumerate() {
            for (j, &i) in m.iter().enumerate() {
                at[i] = egui::pos2(
                    (l as f32 + 0.5) / layers as f32,
                    (j as f32 + 0.5) / m.len() as f32,
                );
            }
        }
    } else {
        let cols = (n as f32).sqrt().ceil() as usize;
        let rows = n.div_ceil(cols);
        for (i, p) in at.iter_mut().enumerate() {
            *p = egui::pos2(
                ((i % cols) as f32 + 0.5) / cols as f32,
                ((i / cols) as f32 + 0.5) / rows as f32,
            );
        }
    }
    at
}

/// An arrow from `a` to `b` (centres), stopping at the nodes' rims.
fn arrow(painter: &egui::Painter, a: egui::Pos2, b: egui::Pos2, r: f32, stroke: egui::Stroke) {
    let v = b - a;
    let len = v.length();
    if len < 2.0 * r + 2.0 {
        return;
    }
    let dir = v / len;
    // a little to the side, so that the way back is its own arrow
    let side = egui::vec2(-dir.y, dir.x) * (r * 0.35);
    let (from, to) = (a + dir * r + side, b - dir * r + side);
    painter.line_segment([from, to], stroke);
    let head = (4.0 + stroke.width * 1.5).min(r);
    let back = to - dir * head;
    let n = egui::vec2(-dir.y, dir.x) * head * 0.5;
    painter.add(egui::Shape::convex_polygon(
        vec![to, back + n, back - n],
        stroke.color,
        egui::Stroke::NONE,
    ));
}

/// The graph view of session `s` in `size` with the heatmap's `marks`: the pinned station
/// ringed, a dot on each station the last single step ran, the selected causality error's
/// way as a red arrow from the sending station; `None` above [`MOST_NODES`] stations (the
/// heatmap is drawn instead), else the station clicked, if any.
pub fn view(
    ui: &mut egui::Ui,
    s: &Session,
    size: egui::Vec2,
    marks: &Marks,
) -> Option<Option<u32>> {
    let (pinned, ran) = (marks.pinned, marks.ran);
    let cfg = config(s)?;
    let net = &cfg.network;
    if net.stations.len() > MOST_NODES {
        return None;
    }
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "network graph"));
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, egui::Color32::from_gray(18));
    let places = layout(cfg);
    let inner = rect.shrink(28.0);
    let pos = |i: usize| inner.min + places[i].to_vec2() * inner.size();
    let spacing = places
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            places[i + 1..]
                .iter()
                .map(move |b| (*a - *b) * inner.size())
        })
        .map(|d| d.length())
        .fold(f32::INFINITY, f32::min);
    let r = (spacing * 0.28).clamp(4.0, 22.0);
    let state = live_state(s);
    let (lo, hi) = (s.panel.colour_range)(s);
    // flow along a route: completions so far × probability (the probability before any)
    let completions: Vec<f64> = match &state {
        Some(st) => st.stations.iter().map(|x| x.completions as f64).collect(),
        None => vec![0.0; net.stations.len()],
    };
    let any = completions.iter().any(|&c| c > 0.0);
    let flow = |i: usize, p: f64| if any { completions[i] * p } else { p };
    let most = net
        .stations
        .iter()
        .enumerate()
        .flat_map(|(i, st)| st.routes.iter().map(move |&(_, p)| flow(i, p)))
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let route_colour = egui::Color32::from_rgba_unmultiplied(150, 170, 200, 150);
    let label_routes = net.stations.len() <= 12;
    let small = egui::FontId::proportional(11.0);
    let grey = egui::Color32::from_gray(170);
    for (i, st) in net.stations.iter().enumerate() {
        for &(d, p) in st.routes.iter() {
            let width = 0.8 + 5.0 * (flow(i, p) / most) as f32;
            let stroke = egui::Stroke::new(width, route_colour);
            let share = format!("{:.0}%", 100.0 * p);
            if d == EXIT {
                // out of the network: a short arrow down and to the right
                let end = pos(i) + egui::vec2(1.6 * r, 3.2 * r);
                arrow(&painter, pos(i), end, r, stroke);
                painter.text(
                    end,
                    egui::Align2::LEFT_TOP,
                    format!("exit {share}"),
                    small.clone(),
                    grey,
                );
            } else if d as usize == i {
                painter.circle_stroke(pos(i) + egui::vec2(0.0, -r * 1.1), r * 0.6, stroke);
                if label_routes {
                    painter.text(
                        pos(i) + egui::vec2(0.0, -r * 1.8),
                        egui::Align2::CENTER_BOTTOM,
                        share,
                        small.clone(),
                        grey,
                    );
                }
            } else {
                let (a, b) = (pos(i), pos(d as usize));
                arrow(&painter, a, b, r, stroke);
                if label_routes {
                    let dir = (b - a).normalized();
                    let mid = a + (b - a) * 0.5 + egui::vec2(-dir.y, dir.x) * (r * 0.35 + 8.0);
                    painter.text(mid, egui::Align2::CENTER_CENTER, share, small.clone(), grey);
                }
            }
        }
    }
    // the next window: stations with an event in [t_min, t_min + d)
    let window = pdes_models::network::engine::next_bound(cfg, s.engine.now());
    let next = state.as_ref().map(|x| x.next_events()).unwrap_or_default();
    for (i, st) in net.stations.iter().enumerate() {
        let present = state.as_ref().map_or(0, |x| x.stations[i].present);
        let t = ((present as f32 - lo) / (hi - lo).max(1e-6)).clamp(0.0, 1.0);
        let [cr, cg, cb] = viridis(t);
        let fill =
            egui::Color32::from_rgb((cr * 255.0) as u8, (cg * 255.0) as u8, (cb * 255.0) as u8);
        painter.circle_filled(pos(i), r, fill);
        if let (Some(bound), Some(&t)) = (window, next.get(i))
            && t <= bound
        {
            painter.circle_stroke(
                pos(i),
                r + 2.0,
                egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 150, 40)),
            );
        }
        if ran.contains(&(i as u32)) {
            // the last step ran it: the heatmap's dot
            painter.circle(
                pos(i),
                (r * 0.35).max(3.0),
                egui::Color32::from_rgb(255, 150, 40),
                egui::Stroke::new(1.0, egui::Color32::BLACK),
            );
        }
        if pinned == Some(i as u32) {
            painter.circle_stroke(
                pos(i),
                r + 5.0,
                egui::Stroke::new(2.0, egui::Color32::WHITE),
            );
        }
        if net.stations.len() <= 40 {
            painter.text(
                pos(i) + egui::vec2(0.0, r + 3.0),
                egui::Align2::CENTER_TOP,
                format!("{} ({})", st.name, present),
                egui::FontId::proportional(12.0),
                egui::Color32::from_gray(220),
            );
        }
    }
    // a followed token's last hops: arrows from station to station, the newest brightest,
    // its station ringed
    let n = net.stations.len();
    let hops: Vec<usize> = marks
        .trail
        .iter()
        .map(|&c| c as usize)
        .filter(|&c| c < n)
        .collect();
    for (k, w) in hops.windows(2).enumerate() {
        if w[0] != w[1] {
            let alpha = (110 + 145 * (k + 1) / hops.len().max(1)) as u8;
            let cyan = egui::Color32::from_rgba_unmultiplied(120, 230, 255, alpha);
            arrow(
                &painter,
                pos(w[0]),
                pos(w[1]),
                r,
                egui::Stroke::new(2.5, cyan),
            );
        }
    }
    if let Some(&now) = hops.last() {
        painter.circle_stroke(
            pos(now),
            r + 7.0,
            egui::Stroke::new(2.0, egui::Color32::from_rgb(120, 230, 255)),
        );
    }
    if let Some((from, to)) = marks.arrow
        && (from as usize) < net.stations.len()
        && (to as usize) < net.stations.len()
    {
        // the late token's way (a selected causality error); from outside: into the node
        let red = egui::Color32::from_rgb(255, 80, 60);
        let start = if from == to {
            pos(to as usize) + egui::vec2(-3.0 * r, -2.0 * r)
        } else {
            pos(from as usize)
        };
        arrow(
            &painter,
            start,
            pos(to as usize),
            r,
            egui::Stroke::new(3.0, red),
        );
        painter.circle_stroke(pos(to as usize), r + 4.0, egui::Stroke::new(2.0, red));
    }
    let under = response.hover_pos().and_then(|p| {
        (0..net.stations.len())
            .map(|i| (i, (pos(i) - p).length()))
            .filter(|&(_, dist)| dist <= r + 3.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i as u32)
    });
    let clicked = under.filter(|_| response.clicked());
    if let Some(i) = under {
        response.on_hover_ui_at_pointer(|ui| hover(ui, s, i));
    }
    Some(clicked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clinic's stations lie left to right in the order tokens reach them (triage,
    /// doctor, lab), and a closed network's too (from station 0).
    #[test]
    fn the_layout_puts_stations_in_layers_from_where_tokens_enter() {
        let cfg = pdes_models::preset::config_with("clinic", &[]).unwrap();
        let cfg = cfg.get::<NetworkConfig>().unwrap();
        let at = layout(cfg);
        assert!(at[0].x < at[1].x && at[1].x < at[2].x, "{at:?}");
        let fat = pdes_models::preset::config_with("fat-tree", &[]).unwrap();
        let fat = fat.get::<NetworkConfig>().unwrap();
        let at = layout(fat);
        let xs: std::collections::BTreeSet<u32> =
            at.iter().map(|p| (p.x * 1000.0) as u32).collect();
        assert!(xs.len() >= 3, "edge, aggregation and core layers: {xs:?}");
    }
}
