//! How fast the live run advances: the simulated time a frame asks for (the speed setting,
//! capped while the engines cannot keep up, so that a frame's simulation stays under
//! ~30 ms and the window stays responsive) and the rate the run actually achieves.

/// A frame's simulation may take this long before the next frame asks for less.
const SLOW_FRAME_S: f64 = 0.03;
/// A frame's simulation this quick lets the next frame ask for more again.
const QUICK_FRAME_S: f64 = 0.01;

/// The live run's pace (simulated time units; wall-clock seconds).
#[derive(Clone, Debug)]
pub struct Pace {
    /// Most simulated time one frame may ask for.
    cap: f64,
    /// Simulated time per wall-clock second actually advanced, smoothed over frames.
    achieved: f64,
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            cap: f64::INFINITY,
            achieved: 0.0,
        }
    }
}

impl Pace {
    /// The simulated time this frame asks for, given what the speed setting wants.
    pub fn span(&self, want: f64) -> f64 {
        want.min(self.cap)
    }

    /// Records a frame: it asked for `span` of the `want`ed simulated time, its simulation
    /// took `took` seconds, it advanced the clock by `advanced` (at least one step, so it
    /// can be more than `span`), and `dt` seconds passed since the previous frame.
    pub fn record(&mut self, want: f64, span: f64, took: f64, advanced: f64, dt: f64) {
        if took > SLOW_FRAME_S {
            self.cap = span * 0.5;
        } else if took < QUICK_FRAME_S && span < want {
            self.cap = span * 1.5;
        }
        if dt > 0.0 {
            self.achieved = 0.9 * self.achieved + 0.1 * advanced.max(0.0) / dt;
        }
    }

    /// True while the cap keeps frames from asking for what the speed setting wants.
    pub fn capped(&self, want_per_frame: f64) -> bool {
        self.cap < want_per_frame
    }

    /// True when the run is capped and achieves less than 90% of the `asked` simulated
    /// time per second. Capped alone is not enough: a frame advances whole steps, so a
    /// model whose one step spans more than a frame's share still runs as fast as asked,
    /// or faster.
    pub fn slower_than(&self, asked: f64, want_per_frame: f64) -> bool {
        self.capped(want_per_frame) && self.achieved < 0.9 * asked
    }

    /// Simulated time per wall-clock second actually advanced (smoothed).
    pub fn achieved(&self) -> f64 {
        self.achieved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose one step is slower than a frame may take: every frame advances one
    /// step (0.1 time units) however little it asks for, 20 frames a second. The cap
    /// shrinks, but the rate shown is the 2 units/s the run makes, not the shrinking cap
    /// (the status bar once read "~0.000 time units/s" for PHOLD's 2^20 LPs on lavapipe).
    #[test]
    fn a_run_slower_than_asked_reports_the_rate_it_achieves() {
        let mut pace = Pace::default();
        let (want, dt) = (1.0, 0.05);
        for _ in 0..200 {
            let span = pace.span(want);
            pace.record(want, span, 0.05, 0.1, dt);
        }
        assert!(pace.slower_than(want / dt, want));
        assert!((pace.achieved() - 2.0).abs() < 1e-3, "{}", pace.achieved());
    }

    /// A slow frame caps the span, but a run whose steps are coarse still advances a whole
    /// step (1.5 units) per frame, faster than the 20 units/s asked: not "slower than asked"
    /// (the status bar once said so of the teaching torus while it ran at ~28 units/s).
    #[test]
    fn a_capped_run_that_keeps_up_is_not_called_slow() {
        let mut pace = Pace::default();
        let (want, dt) = (1.0, 0.05);
        pace.record(want, pace.span(want), 0.05, 1.5, dt);
        for _ in 0..100 {
            pace.record(want, pace.span(want), 0.02, 1.5, dt);
        }
        assert!(pace.capped(want));
        assert!(!pace.slower_than(want / dt, want), "{}", pace.achieved());
    }

    /// A run that keeps up is not capped, and a cap lifts again once frames are quick.
    #[test]
    fn the_cap_lifts_when_frames_are_quick_again() {
        let mut pace = Pace::default();
        let want = 1.0;
        pace.record(want, pace.span(want), 0.05, want, 0.05);
        assert!(pace.capped(want));
        for _ in 0..10 {
            pace.record(want, pace.span(want), 0.001, want, 0.05);
        }
        assert!(!pace.capped(want));
        assert_eq!(pace.span(want), want);
    }
}
