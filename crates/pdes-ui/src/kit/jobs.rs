//! Work that must not hold up a frame — a sweep, a fit — as a [`Job`]: a step function
//! called until it says it is done, each call handing its messages to the window. On the
//! desktop the steps run on a thread of their own; in a browser tab, which has one thread,
//! the window runs steps each frame until a few milliseconds are spent ([`Job::pump`]), so
//! the page keeps drawing. One mechanism, two schedules: the views never know which.

#[cfg(not(target_arch = "wasm32"))]
use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
    mpsc::{Receiver, TryRecvError},
};

/// What a job's step does: emits any number of messages through the callback and returns
/// whether there is more to do.
pub type Step<T> = Box<dyn FnMut(&mut dyn FnMut(T)) -> bool + Send>;

/// A running job whose messages the window takes with [`Job::try_next`].
pub struct Job<T> {
    #[cfg(not(target_arch = "wasm32"))]
    rx: Receiver<T>,
    #[cfg(not(target_arch = "wasm32"))]
    cancel: Arc<AtomicBool>,
    #[cfg(target_arch = "wasm32")]
    step: Option<Step<T>>,
    #[cfg(target_arch = "wasm32")]
    ready: std::collections::VecDeque<T>,
    /// When the last pump ended: a job gets half the time between two pumps (a page whose
    /// drawing is slow, software WebGL say, still gives it half the wall-clock time).
    #[cfg(target_arch = "wasm32")]
    last_pump: Option<web_time::Instant>,
}

/// Wall-clock time a browser frame gives a job at least (a frame at 60 Hz is 16.7 ms; the
/// simulation and the drawing need the rest) and at most (beyond it the page stutters).
#[cfg(target_arch = "wasm32")]
const FRAME_SHARE_MS: (f64, f64) = (8.0, 40.0);

impl<T: Send + 'static> Job<T> {
    /// Starts `step`: on the desktop at once on a thread of its own, in the browser from
    /// the next [`Job::pump`]. Returns the job, or the reason a thread could not start.
    pub fn start(mut step: Step<T>) -> Result<Self, String> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let (tx, rx) = std::sync::mpsc::channel();
            let cancel = Arc::new(AtomicBool::new(false));
            let stop = cancel.clone();
            std::thread::Builder::new()
                .name("pdes-job".into())
                .spawn(move || {
                    let mut listening = true;
                    while listening && !stop.load(Ordering::Relaxed) {
                        let more = step(&mut |m| listening &= tx.send(m).is_ok());
                        if !more {
                            break;
                        }
                    }
                })
                .map_err(|e| format!("could not start a thread: {e}"))?;
            Ok(Self { rx, cancel })
        }
        #[cfg(target_arch = "wasm32")]
        {
            // the first step waits for the window's first pump
            let _ = &mut step;
            Ok(Self {
                step: Some(step),
                ready: std::collections::VecDeque::new(),
                last_pump: None,
            })
        }
    }

    /// Runs steps for this frame (in the browser; on the desktop the thread does).
    pub fn pump(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            let started = web_time::Instant::now();
            let between = self
                .last_pump
                .map_or(0.0, |t| started.duration_since(t).as_secs_f64() * 1e3);
            let share = between.clamp(FRAME_SHARE_MS.0, FRAME_SHARE_MS.1);
            while let Some(step) = self.step.as_mut() {
                let ready = &mut self.ready;
                if !step(&mut |m| ready.push_back(m)) {
                    self.step = None;
                }
                if started.elapsed().as_secs_f64() * 1e3 > share {
                    break;
                }
            }
            self.last_pump = Some(web_time::Instant::now());
        }
    }

    /// The next message, if one is ready; `Err(())` once the job has finished and every
    /// message was taken.
    pub fn try_next(&mut self) -> Result<Option<T>, Finished> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            match self.rx.try_recv() {
                Ok(m) => Ok(Some(m)),
                Err(TryRecvError::Empty) => Ok(None),
                Err(TryRecvError::Disconnected) => Err(Finished),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            match self.ready.pop_front() {
                Some(m) => Ok(Some(m)),
                None if self.step.is_none() => Err(Finished),
                None => Ok(None),
            }
        }
    }

    /// Stops the job after its current step (its messages so far stay readable).
    pub fn cancel(&mut self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.cancel.store(true, Ordering::Relaxed);
        #[cfg(target_arch = "wasm32")]
        {
            self.step = None;
        }
    }
}

impl<T> Drop for Job<T> {
    fn drop(&mut self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// A job has sent everything it will send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished;
