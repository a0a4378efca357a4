//! A bug in the window never takes a class's work with it silently (issue 56 §2): each
//! frame's logic and layout run under `catch_unwind`; a panic there pauses the run, saves
//! what the user has made — the run's settings as a preset, its plotted series, the sweep's
//! finished runs — into a folder of its own, and says so in a red line at the top of the
//! window, which goes on (Reset or another preset starts afresh). The work is saved once;
//! a panic that repeats every frame does not write every frame.

use super::PdesApp;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// What a caught panic left.
#[derive(Debug, Clone)]
pub struct Rescued {
    /// The panic's message and, where the hook saw it, its place in the code.
    pub reason: String,
    /// The folder the work was saved in, or why it could not be.
    pub saved: Result<PathBuf, String>,
}

impl Rescued {
    /// The window's line about it.
    pub fn message(&self) -> String {
        let saved = match &self.saved {
            Ok(dir) => format!("your run was saved in {}", dir.display()),
            Err(why) => format!("your run could not be saved: {why}"),
        };
        format!(
            "PDES Lab hit a bug ({}); {saved}. The run is paused; Reset or another preset starts afresh. Please report the bug with reason.txt.",
            self.reason
        )
    }
}

/// The folder rescued work goes into by default: `pdes-lab-rescued` in the user's home
/// folder (where a student finds it), else the current folder.
pub fn default_folder() -> PathBuf {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(home) = dirs::home_dir() {
        return home.join("pdes-lab-rescued");
    }
    PathBuf::from("pdes-lab-rescued")
}

std::thread_local! {
    /// Where the last panic on this thread happened (the hook sees it; `catch_unwind`'s
    /// payload has only the message).
    static LAST_PLACE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Adds the panic's place to what a caught panic reports (the hook before it still prints
/// the panic as usual). Installed once per process.
pub fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let place = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            LAST_PLACE.with(|p| *p.borrow_mut() = place);
            before(info);
        }));
    });
}

/// The message of a panic's payload.
fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

impl PdesApp {
    /// Runs `part` of a frame (its logic or its layout); a panic in it is caught and the
    /// work rescued ([`PdesApp::rescue`]).
    pub(super) fn guarded(&mut self, part: impl FnOnce(&mut Self)) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| part(self))) {
            let mut reason = payload_text(payload.as_ref());
            if let Some(place) = LAST_PLACE.with(|p| p.borrow_mut().take()) {
                reason += &format!(" at {place}");
            }
            self.rescue(reason);
        }
    }

    /// Pauses the run and saves the work (once), keeping what happened for the window.
    fn rescue(&mut self, reason: String) {
        self.running = false;
        if self.rescued.is_some() {
            return;
        }
        let stamp = pdes_runs::trust::today() + &format!("-{}", std::process::id());
        let dir = self.rescue_folder.join(stamp);
        let saved = self.save_work(&dir, &reason).map(|()| dir);
        self.rescued = Some(Rescued { reason, saved });
    }

    /// Writes the work into `dir`: settings.toml (session A's configuration as a preset;
    /// Presets → Open… reopens it), b-settings.toml (session B's), series.csv (the plotted
    /// series), sweep.csv (the sweep's finished runs) and reason.txt.
    fn save_work(&self, dir: &Path, reason: &str) -> Result<(), String> {
        let write = |name: &str, text: &str| {
            pdes_runs::output::write_atomically(&dir.join(name), text)
                .map_err(|e| format!("{}: {e}", dir.join(name).display()))
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(
            "reason.txt",
            &format!(
                "PDES Lab {} stopped a frame on a bug: {reason}\n",
                env!("CARGO_PKG_VERSION")
            ),
        )?;
        let comment = "the run PDES Lab saved when it hit a bug";
        write("settings.toml", &self.a.config.to_toml(comment))?;
        if let Some(b) = &self.b {
            write("b-settings.toml", &b.config.to_toml(comment))?;
        }
        write(
            "series.csv",
            &crate::kit::plots::csv_text(&self.a, self.b.as_ref()),
        )?;
        if let Some(sweep) = self.sweep.result.as_ref().filter(|r| r.done() > 0) {
            write("sweep.csv", &sweep.csv())?;
        }
        Ok(())
    }

    /// What the last caught panic left, if any.
    pub fn rescued(&self) -> Option<&Rescued> {
        self.rescued.as_ref()
    }

    /// Saves rescued work under `dir` instead of [`default_folder`] (tests, a lab's
    /// shared folder).
    pub fn rescue_into(&mut self, dir: PathBuf) {
        self.rescue_folder = dir;
    }

    /// Makes the next frame's logic panic, as a bug would: how the tests prove that the
    /// work is rescued. Not reachable from the window.
    #[doc(hidden)]
    pub fn fail_next_frame(&mut self) {
        self.fail_next_frame = true;
    }
}
