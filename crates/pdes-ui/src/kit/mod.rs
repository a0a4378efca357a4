//! The window's kit: what every model's panel builds on and the window's shell assembles —
//! one running simulation ([`session`]), its plots ([`plots`]), monitors ([`monitors`]),
//! heatmap ([`heatmap`]) and its time strip ([`strip`]), the left panel's form ([`form`]) and its shared controls ([`controls`]), the [`panel::Panel`] a model
//! fills in, a causality error as shown ([`violation`]), and what differs between the
//! desktop and a browser tab: files ([`files`]) and work off the frame ([`jobs`]). The kit never imports the
//! panels or the shell: a session carries its model's panel.

pub mod controls;
pub mod files;
pub mod form;
pub mod heatmap;
pub mod jobs;
pub mod monitors;
pub mod panel;
pub mod plots;
pub mod session;
pub mod strip;
pub mod violation;

/// The smallest text the window shows, in points (egui's own small text is 9: too small for
/// the sentences a lesson depends on).
pub const SMALL_TEXT_PX: f32 = 12.0;
