//! What a model shows in the window beyond the kit's generic parts: the [`Panel`] each model
//! fills in (`crate::panels`), which a [`Session`](crate::kit::session::Session) carries.

use eframe::egui;

/// What a model shows in the window beyond the generic parts (heatmap, plots' frame,
/// status bar): its hover text, its inspector, and an optional strip above the heatmap.
#[derive(Debug)]
pub struct Panel {
    /// The heatmap's hover text for one cell.
    pub hover: fn(&mut egui::Ui, &crate::kit::session::Session, u32),
    /// The inspector of a pinned cell (its heading and facts; the cell is inside the grid).
    pub inspector: fn(&mut egui::Ui, &crate::kit::session::Session, u32),
    /// A strip above the heatmap (the torus: the current window over the pending events).
    pub timeline: Option<fn(&mut egui::Ui, &crate::kit::session::Session)>,
    /// Its part of the left panel, showing a configuration of this model.
    pub form: fn(&pdes_models::preset::Config) -> Box<dyn crate::kit::form::ModelForm>,
    /// Its heatmap modes (the first is the default).
    pub modes: &'static [crate::kit::heatmap::Mode],
    /// The values at the bottom and top of its colormap for a session.
    pub colour_range: fn(&crate::kit::session::Session) -> (f32, f32),
    /// What its work counter counts, for "… per second" in the status bar.
    pub work_label: &'static str,
    /// What the count mode of its heatmap counts per cell ("tokens", "customers").
    pub count_label: &'static str,
    /// The name of its count mode ([`crate::kit::heatmap::Mode::Tokens`]) in the mode
    /// selector and above the colour bar ("queue length", "events per LP").
    pub count_mode: &'static str,
    /// The plots below the heatmap, for a session and its A/B partner.
    pub plots:
        fn(&mut egui::Ui, &crate::kit::session::Session, Option<&crate::kit::session::Session>),
    /// The sampled quantities of its plots: the series CSV's columns after time, steps and
    /// events.
    pub series: &'static [crate::kit::plots::Series],
    /// The numeric monitors above the heatmap: current values and their exact ones.
    pub monitors: fn(&crate::kit::session::Session) -> Vec<crate::kit::monitors::Monitor>,
    /// What the window calls cell `i` in words ("facility (3, 4)", "station doctor").
    pub cell_name: fn(&crate::kit::session::Session, u32) -> String,
    /// Its recent causality errors, oldest first (empty for models and engines without a
    /// list).
    pub violations: fn(&crate::kit::session::Session) -> Vec<crate::kit::violation::Violation>,
    /// For a model whose every step changes the whole field (the DEVS benchmark): the most
    /// steps the window shows per second. A full-field flash more often than 3 times a
    /// second can trigger seizures (WCAG 2.3.1), so such a model is run slower than asked
    /// while a mode that flashes ([`crate::kit::heatmap::Mode::flashes_whole_field`]) is shown.
    pub max_steps_per_second: Option<f64>,
    /// How the window follows one of its tokens hop by hop (the torus); `None` where the
    /// model has no tokens to follow.
    pub follow: Option<&'static FollowToken>,
    /// A view of its own in place of the heatmap (the network's stations as nodes and
    /// routes as arrows), drawn in the given size with the pinned cell; it answers `None`
    /// where it does not apply (the heatmap is drawn instead), else the cell clicked, if any.
    pub graph: Option<GraphView>,
}

/// A model's own view in place of the heatmap (see [`Panel::graph`]): the session, the
/// size, and the marks the heatmap would draw (pinned cell, last step's cells, the selected
/// causality error's arrow).
pub type GraphView = fn(
    &mut egui::Ui,
    &crate::kit::session::Session,
    egui::Vec2,
    &crate::kit::heatmap::Marks,
) -> Option<Option<u32>>;

/// Where a followed token is: what the window records at each of its hops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenPlace {
    /// Which token this is: a network reuses a token's slot for the next arrival once it
    /// has left, so the window stops following where the identity changes.
    pub id: u64,
    /// The cell (facility, station) holding it, in service or waiting; [`LEFT`] once it
    /// has left the network.
    pub cell: u32,
    /// When it arrived there (simulated time).
    pub arrived: f64,
    /// Services it has completed: one more per hop.
    pub visits: u32,
}

/// [`TokenPlace::cell`] of a token that has left the network (an open network's exit).
pub const LEFT: u32 = u32::MAX;

/// What a model gives the window to follow one token (paper 000 Fig. 4's X, Y, Z).
#[derive(Debug)]
pub struct FollowToken {
    /// The token in service at a cell, if any.
    pub serving: fn(&crate::kit::session::Session, u32) -> Option<u32>,
    /// Where a token is now, if the engine can say (a GPU engine only for small grids).
    pub place: fn(&crate::kit::session::Session, u32) -> Option<TokenPlace>,
}

/// A grid cell's name: "facility (row, column)" of the session's grid.
pub fn grid_cell_name(s: &crate::kit::session::Session, i: u32) -> String {
    let cols = s.shape().1.max(1);
    format!("facility ({}, {})", i / cols, i % cols)
}
