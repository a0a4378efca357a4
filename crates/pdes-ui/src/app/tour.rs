//! The guided tour (Info tab → "Guided tour"): seven short stops through the torus lessons of
//! paper 000 and the same lesson on PHOLD, each of which sets the app up (preset, d, A/B,
//! pause) and says in a few lines what to look at. It is a panel docked at the Live tab's right, beside the grid
//! (a floating window covered the grid it talks about on a small screen), so the grid,
//! strip, monitors and plots stay in view; Back and Next move between stops, and every
//! stop can be left for free exploration with Close.

use super::PdesApp;
use eframe::egui;

/// The tour panel's width on a large window (at most a quarter of a smaller one at first).
const TOUR_WIDTH: f32 = 340.0;

/// One stop of the tour.
pub struct Stop {
    /// Its heading.
    pub title: &'static str,
    /// What to look at (a paragraph).
    pub text: &'static str,
    /// Puts the app in the state the text describes.
    pub setup: fn(&mut PdesApp),
}

/// The stops, in order.
pub const STOPS: &[Stop] = &[
    Stop {
        title: "Which events run in parallel",
        text: "Each square is a facility: a server and its queue; tokens hop to a random neighbour after service. The outlined facilities have their next departure inside the window [t_min, t_min + d) - the yellow band on the time axis above the grid. They may all run at once: every service lasts at least d, so nothing one of them sends can arrive before t_min + d, and no event in the window can cause an earlier one elsewhere. Press Step (or the right arrow key) a few times: the outlined facilities run and get an orange dot - the dots are the step just taken, the outlines the next one - and 'events in the last step' counts the dots.",
        setup: |app| tour_torus(app, 1.0, false),
    },
    Stop {
        title: "A wider window, more parallel events",
        text: "d = 4 now: the band on the strip is four times as wide and about four times as many facilities are outlined; step and compare 'events in the last step' with the previous stop. More events per step is what a GPU needs. The window algorithm is still exact: the service is d + Exp(M - d), never shorter than d.",
        setup: |app| tour_torus(app, 4.0, false),
    },
    Stop {
        title: "Exact, but a different model",
        text: "Running with d = 8. The window run is exact for the model it simulates - but with d = 8 every service is at least 8 of its mean 10, much less variable than the exponential service of the paper's network. Watch the utilization curve settle above the dashed line, the exact value with exponential service, and the sojourn below its line (paper 000 Figs. 14-15): the bias comes from the shift, not from the parallel algorithm. The monitors say how sure that is: the ± is a 95% interval (batch means), and once the exact value lies outside it the gap is real, not noise - at small d it stays inside for a long time. Statistics start after the warm-up (t = 200), as the curves do.",
        setup: |app| tour_torus(app, 8.0, true),
    },
    Stop {
        title: "The same sample path",
        text: "A runs window, B sequential - one event at a time - on the same seed with the same shifted service. Once both stand at the same time, the line under the monitors says whether their events and statistics are identical: they are, bit for bit. That is what 'the window algorithm is exact' means. Try the B side's algorithm 'interval (original)' with exponential service: its numbers part from A's.",
        setup: |app| app.same_sample_path(),
    },
    Stop {
        title: "A causality error",
        text: "The old interval algorithm, exponential service, d = 4 on an 8 x 8 torus. A service may now be shorter than d, so a token sent inside the interval can reach a facility that has already processed a later arrival. The run stops at the first such error: the arrow shows the late token's way from its neighbour, and the text under the controls tells the story with the real timestamps (paper 000 Fig. 4). The list there holds every error; a click selects one.",
        setup: |app| app.causality_walkthrough(),
    },
    Stop {
        title: "The same lesson on PHOLD",
        text: "PHOLD, the benchmark every PDES system reports: each event schedules one more, at a random LP, at least the lookahead (0.1) later. The yellow band on the strip is the window [t_min, t_min + lookahead); the outlined LPs hold an event inside it, and they all run at once for the same reason as on the torus: nothing processed inside the window can schedule an event inside it. Press Step and compare the outlines with 'events in the last step'. Then set the lookahead to 1 and Reset: the band widens and many more LPs are outlined - lookahead is what buys parallelism (the Info tab says how much).",
        setup: tour_phold,
    },
    Stop {
        title: "Your turn",
        text: "Back on the teaching torus. Things to try: the Sweep tab runs a range of d and plots speed against bias (what the paper tunes); A/B with B on exponential service shows the shift's bias side by side; the causality-errors colour mode of the heatmap shows where the interval algorithm errs; each model's Info tab says what its colours and plots mean.",
        setup: |app| tour_torus(app, 1.0, true),
    },
];

/// The teaching torus with window and shifted service at `d` (see [`tour_preset`]).
fn tour_torus(app: &mut PdesApp, d: f64, running: bool) {
    tour_preset(app, "teaching-16x16", &[&format!("run.d={d}")], running);
}

/// The teaching PHOLD, window on the CPU, paused.
fn tour_phold(app: &mut PdesApp) {
    tour_preset(app, "teaching-phold", &[], false);
}

/// Built-in `preset` with `sets`, no A/B (a stop reached with Back from the
/// same-sample-path stop must not keep its B side), on the Live tab, running or paused:
/// one engine build, as the causality walkthrough does it.
fn tour_preset(app: &mut PdesApp, preset: &str, sets: &[&str], running: bool) {
    match pdes_models::preset::config_with(preset, sets) {
        Ok(cfg) => {
            app.form = super::form::Form::from_config(&cfg, crate::panels::of(&cfg));
            app.b = None;
            app.apply_form();
        }
        Err(e) => app.message = Some(format!("tour: {e}")),
    }
    app.mode = super::heatmap::Mode::of(&app.a)[0];
    app.tab = super::Tab::Live;
    app.running = running;
    app.pause_on_error = false;
}

impl PdesApp {
    /// Starts the tour at its first stop.
    pub fn start_tour(&mut self) {
        self.go_to_stop(0);
    }

    /// Moves the tour to stop `i` and sets the app up for it.
    pub fn go_to_stop(&mut self, i: usize) {
        if let Some(stop) = STOPS.get(i) {
            self.tour = Some(i);
            (stop.setup)(self);
        }
    }

    /// The tour's panel at the right of the live view, while a tour is on (call before the
    /// central panel, after the bottom ones: it takes the grid's width, not the plots').
    pub(super) fn tour_panel(&mut self, ui: &mut egui::Ui) {
        let Some(i) = self.tour else { return };
        let stop = &STOPS[i];
        let mut go = None;
        let mut close = false;
        let window = ui.ctx().content_rect().width();
        egui::Panel::right("guided tour")
            .resizable(true)
            .default_size(TOUR_WIDTH.min(0.25 * window))
            .size_range(160.0..=TOUR_WIDTH.max(0.4 * window))
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    ui.strong("Guided tour");
                    ui.heading(format!("{}/{}  {}", i + 1, STOPS.len(), stop.title));
                    ui.label(stop.text);
                    ui.horizontal_wrapped(|ui| {
                        if ui.add_enabled(i > 0, egui::Button::new("Back")).clicked() {
                            go = Some(i - 1);
                        }
                        if ui
                            .add_enabled(i + 1 < STOPS.len(), egui::Button::new("Next"))
                            .clicked()
                        {
                            go = Some(i + 1);
                        }
                        if ui.button("Close the tour").clicked() {
                            close = true;
                        }
                    });
                });
            });
        if let Some(j) = go {
            self.go_to_stop(j);
        }
        if close {
            self.tour = None;
        }
    }
}
