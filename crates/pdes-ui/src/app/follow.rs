//! Following one token hop by hop (issue 33: "click a token and see its path and
//! timestamps"): paper 000 Fig. 4's X, Y, Z made visible. The inspector of a pinned
//! facility offers to follow the token in service there; after every advance the window
//! asks the model where that token is now and records a hop when it has moved; the
//! heatmap draws its last hops as a trail of arrows, and the inspector lists them with
//! their times. Under every algorithm: the hops are read from the engine's state, not
//! from one simulator's events.

use super::PdesApp;
use crate::kit::panel::TokenPlace;
use eframe::egui;

/// The token the window follows and the hops it has been seen to make.
#[derive(Clone, Debug, PartialEq)]
pub struct Followed {
    /// The token's number.
    pub token: u32,
    /// Its places, oldest first (at most [`HOPS_KEPT`]).
    pub hops: Vec<TokenPlace>,
    /// Hops made between two looks (a fast run moves a token more than once a frame):
    /// counted, not drawn.
    pub unseen: u32,
}

/// Hops kept in the list.
const HOPS_KEPT: usize = 64;
/// Hops the heatmap draws and the inspector lists.
pub const TRAIL: usize = 8;

impl PdesApp {
    /// Starts following `token` from where it is now.
    pub fn follow(&mut self, token: u32) {
        self.followed = Some(Followed {
            token,
            hops: Vec::new(),
            unseen: 0,
        });
        self.update_follow();
    }

    /// After every advance and rebuild: records the followed token's place when it has
    /// moved (its completed services went up); stops following where the model has no
    /// tokens.
    pub(super) fn update_follow(&mut self) {
        let Some(followed) = self.followed.as_mut() else {
            return;
        };
        let Some(follow) = self.a.panel.follow else {
            self.followed = None;
            return;
        };
        let Some(now) = (follow.place)(&self.a, followed.token) else {
            return; // the engine cannot say (a large GPU run): the trail waits
        };
        // it left the network (its slot free, or taken by the next arrival)
        if let Some(last) = followed.hops.last()
            && (now.cell == crate::kit::panel::LEFT || now.id != last.id)
        {
            self.message = Some(format!(
                "token {} left the network after {} visits (t = {:.4} at its last station); no longer followed",
                followed.token, last.visits, last.arrived
            ));
            self.followed = None;
            return;
        }
        if now.cell == crate::kit::panel::LEFT {
            self.followed = None;
            return;
        }
        match followed.hops.last() {
            Some(last) if last.visits == now.visits && last.cell == now.cell => {}
            Some(last) => {
                followed.unseen += now.visits.saturating_sub(last.visits + 1);
                followed.hops.push(now);
            }
            None => followed.hops.push(now),
        }
        let extra = followed.hops.len().saturating_sub(HOPS_KEPT);
        followed.hops.drain(..extra);
    }

    /// The cells of the followed token's last hops, oldest first (the heatmap's trail).
    pub(super) fn trail(&self) -> Vec<u32> {
        self.followed.as_ref().map_or_else(Vec::new, |f| {
            let from = f.hops.len().saturating_sub(TRAIL);
            f.hops[from..].iter().map(|h| h.cell).collect()
        })
    }

    /// Under the inspector of pinned facility `f`: the followed token's hops with their
    /// times and a button to stop, or a button to follow the token in service at `f`.
    pub(super) fn follow_controls(&mut self, ui: &mut egui::Ui, f: u32) {
        let Some(follow) = self.a.panel.follow else {
            return;
        };
        if let Some(followed) = &self.followed {
            let mut stop = false;
            ui.horizontal(|ui| {
                ui.strong(format!("Following token {}", followed.token));
                stop = ui.small_button("Stop following").clicked();
            });
            for h in followed.hops.iter().rev().take(TRAIL) {
                ui.monospace(format!(
                    "visit {:>4}: {} from t = {:.4}",
                    h.visits,
                    (self.a.panel.cell_name)(&self.a, h.cell),
                    h.arrived
                ));
            }
            if followed.unseen > 0 {
                ui.label(format!(
                    "{} hops fell between two frames and are not drawn: slow the speed down to see each one",
                    followed.unseen
                ));
            }
            if stop {
                self.followed = None;
            }
        } else if let Some(token) = (follow.serving)(&self.a, f) {
            if ui
                .button(format!("Follow token {token}, in service here"))
                .on_hover_text("Draws its hops on the grid as a trail of arrows and lists each arrival with its time: the path of one token under the algorithm that runs, as in paper 000 Fig. 4.")
                .clicked()
            {
                self.follow(token);
            }
        } else {
            ui.label("idle: no token in service to follow");
        }
    }
}
