//! The app's start-up self-check: `pdes-lab verify --quick` on the window's own adapter, on
//! a background thread (it never blocks a frame). Until it passes the GPU engines may run;
//! if it fails, the app switches every session to the CPU engines and says why. In a browser
//! tab (a device with deferred readbacks, one thread) the check is a future the window
//! polls once a frame: the page's checks (`pdes_runs::verify::run_in_page`).

use pdes_gpu::Gpu;
use pdes_runs::verify::{self, Options, Verification};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// Where the self-check stands.
pub enum GpuCheck {
    /// No GPU compute device (or the check was not asked for).
    NotRun,
    /// Running on a background thread.
    Running(Receiver<Verification>),
    /// Running in the page: polled once a frame ([`GpuCheck::poll`]).
    Polled(std::pin::Pin<Box<dyn std::future::Future<Output = Verification>>>),
    /// Every check passed.
    Passed(Verification),
    /// Some check failed: the GPU engines are disabled.
    Failed(Verification),
}

/// What the hover text says about the comparison, whatever the outcome.
pub const WHAT_IS_COMPARED: &str = "At start, PDES Lab runs small configurations of every model's GPU engines (each model's algorithms that run on the GPU, from the model registry) on the CPU twin and on this GPU, with each reduction variant the adapter has, and compares the results: event counts, causality errors, utilization and sojourn sums, the step log, every facility and token, every cell, every token in an open network's pool.\n\nThey must be identical, not close: times are integer ticks, random numbers come from a counter-based generator both sides compute bit for bit, and the float arithmetic of the diffusion grid is done in the same order with the same rounding. A difference means the GPU computed something else — a shader bug or a driver miscompiling it — and then no GPU figure can be trusted. The same check is `pdes-lab verify` on the command line.";

impl GpuCheck {
    /// Starts the check on `gpu` in the background.
    pub fn start(gpu: Arc<Gpu>) -> Self {
        if gpu.defers_readbacks() {
            return Self::Polled(Box::pin(verify::run_in_page(gpu)));
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("gpu-verify".into())
            .spawn(move || {
                let options = Options {
                    quick: true,
                    perturb_gpu: false,
                };
                let _ = tx.send(verify::run(&gpu, options, |_| {}));
            });
        match spawned {
            Ok(_) => Self::Running(rx),
            Err(_) => Self::NotRun,
        }
    }

    /// Picks up the result when the thread has finished. Returns true when the state
    /// changed to `Failed` (the caller then moves its sessions to the CPU).
    pub fn poll(&mut self) -> bool {
        if let Self::Polled(check) = self {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            return match check.as_mut().poll(&mut cx) {
                std::task::Poll::Ready(v) => self.finish(v),
                std::task::Poll::Pending => false,
            };
        }
        let Self::Running(rx) = self else {
            return false;
        };
        match rx.try_recv() {
            Ok(v) if v.ok() => {
                *self = Self::Passed(v);
                false
            }
            Ok(v) => {
                *self = Self::Failed(v);
                true
            }
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
        matches!(self, Self::Running(_) | Self::Polled(_))
    }

    /// True while the check runs in the page: it needs a frame for each readback.
    pub fn polled(&self) -> bool {
        matches!(self, Self::Polled(_))
    }

    /// The status bar's words, whether they are an alarm, and the hover text.
    pub fn status(&self) -> Option<(String, bool, String)> {
        match self {
            Self::NotRun => None,
            Self::Running(_) | Self::Polled(_) => Some((
                "verifying that GPU = CPU…".into(),
                false,
                WHAT_IS_COMPARED.into(),
            )),
            // short: the adapter's name is already the status bar's first item
            Self::Passed(v) => Some((
                format!("GPU = CPU: {} checks passed", v.passed),
                false,
                format!(
                    "{} checks passed on {} (reductions: {}).\n\n{WHAT_IS_COMPARED}",
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
