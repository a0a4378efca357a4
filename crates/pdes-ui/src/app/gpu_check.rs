//! The app's start-up self-check: `pdes-lab verify --quick` on the window's own adapter, on
//! a background thread and a device of its own (its waits never hold the renderer's queue:
//! a frame, or a resize's wait for the window's device to go idle, issue 56 §2). Until it passes the GPU engines may run;
//! if it fails, the app switches every session to the CPU engines and says why. In a browser
//! tab (a device with deferred readbacks, one thread) the check is a task of the page: the
//! page's checks (`pdes_runs::verify::run_in_page`), driven by `web::drive`.

use pdes_gpu::Gpu;
use pdes_runs::trust::{Memory, Remembered};
use pdes_runs::verify::{self, Verification};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// Where the self-check stands.
pub enum GpuCheck {
    /// No GPU compute device (or the check was not asked for).
    NotRun,
    /// Running on a background thread.
    Running(Receiver<Verification>),
    /// Running in the page: a task of the page's own ([`super::web::drive`]) fills the
    /// slot when the checks end.
    #[cfg(target_arch = "wasm32")]
    InPage(std::rc::Rc<std::cell::RefCell<Option<Verification>>>),
    /// Every check passed.
    Passed(Verification),
    /// This build passed the check on this adapter and driver before: not checked again
    /// (`pdes-lab verify` checks afresh; issue 56 §3).
    Remembered(Remembered),
    /// Some check failed: the GPU engines are disabled.
    Failed(Verification),
}

/// What the hover text adds in a browser tab, where only some models' GPU engines run.
#[cfg(target_arch = "wasm32")]
const IN_A_PAGE: &str = "\n\nIn a browser tab: every model's verify --quick cases with the reductions this adapter offers a page (the reductions' own self-check and the mixture's log-likelihood are not run here: sweeps and fits run on the CPU in a page).";
#[cfg(not(target_arch = "wasm32"))]
const IN_A_PAGE: &str = "";

/// What the hover text says about the comparison, whatever the outcome.
pub const WHAT_IS_COMPARED: &str = "At start, PDES Lab runs small configurations of every model's GPU engines (each model's algorithms that run on the GPU, from the model registry) on the CPU twin and on this GPU, with each reduction variant the adapter has, and compares the results: event counts, causality errors, utilization and sojourn sums, the step log, every facility and token, every cell, every token in an open network's pool.\n\nThey must be identical, not close: times are integer ticks, random numbers come from a counter-based generator both sides compute bit for bit, and the float arithmetic of the diffusion grid is done in the same order with the same rounding. A difference means the GPU computed something else — a shader bug or a driver miscompiling it — and then no GPU figure can be trusted. The same check is `pdes-lab verify` on the command line.";

impl GpuCheck {
    /// Starts the check in the background: on the desktop on a thread of its own, with a
    /// device of its own opened on `adapter` (the window's; `gpu`, the window's device, only
    /// where no second device opens); in a browser tab (one thread; the device's readbacks
    /// deferred) as a task of the page on `gpu`.
    ///
    /// With `memory`, a check this build passed before on this adapter and driver is taken
    /// from there at once, and a new check's outcome is kept there.
    pub fn start(gpu: Arc<Gpu>, adapter: Option<wgpu::Adapter>, memory: Option<Memory>) -> Self {
        if let Some(r) = Self::trusted(memory.as_ref(), &gpu.info) {
            #[cfg(target_arch = "wasm32")]
            super::web::log_remembered(&r);
            return Self::Remembered(r);
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = adapter; // one device in a page
            let slot = std::rc::Rc::new(std::cell::RefCell::new(None));
            let out = slot.clone();
            wasm_bindgen_futures::spawn_local(async move {
                // not before the window stands: its shaders compiling held the canvas's
                // first sizing for 20 s (see `after_first_frame`)
                super::web::after_first_frame(500).await;
                let v = super::web::drive(verify::run_in_page(gpu.clone())).await;
                // kept in the page's local storage: the next visit trusts it at once
                if let Some(m) = &memory {
                    m.remember(&gpu.info, v.passed, v.failed);
                }
                *out.borrow_mut() = Some(v);
            });
            Self::InPage(slot)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            Self::on_a_thread(gpu, adapter, memory)
        }
    }

    /// What `memory` holds for `info` with this build, where it is a pass (a failed check is
    /// made again).
    pub fn trusted(memory: Option<&Memory>, info: &wgpu::AdapterInfo) -> Option<Remembered> {
        memory?.recall(info).filter(Remembered::ok)
    }

    /// The desktop's check, on a thread of its own.
    #[cfg(not(target_arch = "wasm32"))]
    fn on_a_thread(gpu: Arc<Gpu>, adapter: Option<wgpu::Adapter>, memory: Option<Memory>) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("gpu-verify".into())
            .spawn(move || {
                // the same adapter, so the verdict is the window's; opened here, off the
                // frame (a device takes a moment to open)
                let gpu = adapter
                    .and_then(|a| Gpu::open_beside(&a).ok())
                    .map_or(gpu, Arc::new);
                let options = verify::Options {
                    quick: true,
                    perturb_gpu: false,
                };
                let v = verify::run(&gpu, options, |_| {});
                if let Some(m) = &memory {
                    m.remember(&gpu.info, v.passed, v.failed);
                }
                let _ = tx.send(v);
            });
        match spawned {
            Ok(_) => Self::Running(rx),
            Err(_) => Self::NotRun,
        }
    }

    /// Picks up the result when the thread has finished. Returns true when the state
    /// changed to `Failed` (the caller then moves its sessions to the CPU).
    pub fn poll(&mut self) -> bool {
        #[cfg(target_arch = "wasm32")]
        if let Self::InPage(slot) = self {
            let done = slot.borrow_mut().take();
            return done.is_some_and(|v| self.finish(v));
        }
        let Self::Running(rx) = self else {
            return false;
        };
        match rx.try_recv() {
            Ok(v) => self.finish(v),
            Err(TryRecvError::Empty) => false,
            // the thread died without an answer (a panic in a driver): nothing is known
            Err(TryRecvError::Disconnected) => {
                *self = Self::NotRun;
                false
            }
        }
    }

    /// Takes the finished check's verdict; true when it failed.
    fn finish(&mut self, v: Verification) -> bool {
        let failed = !v.ok();
        #[cfg(target_arch = "wasm32")]
        super::web::log_verification(&v);
        *self = if failed {
            Self::Failed(v)
        } else {
            Self::Passed(v)
        };
        failed
    }

    /// True while the GPU engines may be offered.
    pub fn gpu_allowed(&self) -> bool {
        !matches!(self, Self::Failed(_))
    }

    /// True while the check runs.
    pub fn running(&self) -> bool {
        match self {
            Self::Running(_) => true,
            #[cfg(target_arch = "wasm32")]
            Self::InPage(_) => true,
            _ => false,
        }
    }

    /// The status bar's words, whether they are an alarm, and the hover text.
    pub fn status(&self) -> Option<(String, bool, String)> {
        match self {
            Self::NotRun => None,
            #[cfg(target_arch = "wasm32")]
            Self::InPage(_) => Some((
                "verifying that GPU = CPU…".into(),
                false,
                WHAT_IS_COMPARED.into(),
            )),
            Self::Running(_) => Some((
                "verifying that GPU = CPU…".into(),
                false,
                WHAT_IS_COMPARED.into(),
            )),
            Self::Remembered(r) => Some((
                format!("GPU = CPU: {} checks passed (checked {})", r.passed, r.date),
                false,
                format!(
                    "{} checks passed on {} with this build of PDES Lab and this driver: remembered, not checked again at every start (a new driver or build is checked again; `pdes-lab verify` always checks afresh).\n\n{WHAT_IS_COMPARED}",
                    r.passed, r.date
                ),
            )),
            // short: the adapter's name is already the status bar's first item
            Self::Passed(v) => Some((
                format!("GPU = CPU: {} checks passed", v.passed),
                false,
                format!(
                    "{} checks passed on {} (reductions: {}).\n\n{WHAT_IS_COMPARED}{IN_A_PAGE}",
                    v.passed,
                    v.adapter,
                    v.reductions.join(", ")
                ),
            )),
            Self::Failed(v) => {
                let details: Vec<String> = v
                    .checks
                    .iter()
                    .filter(|c| !c.passed)
                    .take(6)
                    .map(|c| format!("{}\n    {}", c.name, c.details.join("\n    ")))
                    .collect();
                Some((
                    "GPU differs from CPU — GPU engines disabled".into(),
                    true,
                    format!(
                        "{} of {} checks failed on {}; the simulation runs on the CPU.\n\n{}\n\n{WHAT_IS_COMPARED}",
                        v.failed,
                        v.passed + v.failed,
                        v.adapter,
                        details.join("\n")
                    ),
                ))
            }
        }
    }
}
