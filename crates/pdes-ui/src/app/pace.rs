//! How fast the live run advances: the simulated time a frame asks for (the speed setting,
//! capped while the engines cannot keep up, so that a frame's simulation stays under
//! ~30 ms and the window stays responsive) and the rate the run actually achieves. A cap
//! is not cut where cutting does not make frames quicker: an engine whose every frame
//! costs the same whatever it is asked for (the M/M/c/k replications on a CPU adapter:
//! dispatches and read-backs of ~0.1 s a frame) was asked for half as much each frame
//! until it crawled at 0.01 time units a second against the 20 asked.

/// A frame's simulation may take this long before the next frame asks for less.
const SLOW_FRAME_S: f64 = 0.03;
/// A frame's simulation this quick lets the next frame ask for more again.
const QUICK_FRAME_S: f64 = 0.01;
/// Every this many slow frames held at the floor, one asks for half of it: a floor set by a
/// passing hiccup (a shader compiled in two frames) is let go once less is quicker.
const PROBE_EVERY: u32 = 16;

/// The live run's pace (simulated time units; wall-clock seconds).
#[derive(Clone, Debug)]
pub struct Pace {
    /// Most simulated time one frame may ask for.
    cap: f64,
    /// Simulated time per wall-clock second actually advanced, smoothed over frames.
    achieved: f64,
    /// The span below which frames got no quicker (their time is the engines' fixed cost
    /// per frame): the cap is not cut below it.
    floor: f64,
    /// What a frame took when the floor was found: the fixed cost. A frame no slower than
    /// half again as much asks for more (while the cost is fixed, more costs nothing).
    fixed_took: f64,
    /// The last frame's (simulated time it advanced, seconds its simulation took).
    last: Option<(f64, f64)>,
    /// Slow frames so far (for [`PROBE_EVERY`]).
    slow_frames: u32,
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            cap: f64::INFINITY,
            achieved: 0.0,
            floor: 0.0,
            fixed_took: 0.0,
            last: None,
            slow_frames: 0,
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
        // a slow frame that ran much less simulated time than the one before it: did it
        // gain? (by what ran, not what was asked: a step runs whole however little is asked,
        // and a model of slow steps must not be taken for a fixed cost)
        if let Some((a0, t0)) = self.last
            && took > SLOW_FRAME_S
            && advanced <= 0.6 * a0
        {
            // about half the work for well under half the time off: mostly a fixed cost
            if took >= 0.6 * t0 {
                self.floor = self.floor.max(a0);
                self.fixed_took = t0;
            } else {
                self.floor = 0.0;
            }
        }
        if self.floor > 0.0 && took <= 1.5 * self.fixed_took && span < want {
            // the cost is still the fixed one: ask for more, and never less than this
            self.floor = self.floor.max(span);
            self.cap = span * 1.5;
        } else if took > SLOW_FRAME_S {
            self.slow_frames += 1;
            let probe = self.floor > 0.0 && self.slow_frames.is_multiple_of(PROBE_EVERY);
            self.cap = if probe {
                span * 0.5
            } else {
                (span * 0.5).max(self.floor)
            };
        } else if took < QUICK_FRAME_S && span < want {
            self.cap = span * 1.5;
        }
        self.last = Some((advanced, took));
        if dt > 0.0 {
            self.achieved = 0.9 * self.achieved + 0.1 * advanced.max(0.0) / dt;
        }
    }

    /// True while the cap keeps frames from asking for what the speed setting wants, or
    /// while frames are slow whatever they ask for (a floor is held).
    pub fn capped(&self, want_per_frame: f64) -> bool {
        self.cap < want_per_frame || self.floor > 0.0
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

    /// `n` frames that each ask for what the pace allows of `want`, advance exactly that,
    /// and take `took(span)` seconds, `dt` apart; returns the simulated time asked for.
    fn frames(pace: &mut Pace, n: usize, want: f64, dt: f64, took: impl Fn(f64) -> f64) -> f64 {
        let mut asked = 0.0;
        for _ in 0..n {
            let span = pace.span(want);
            asked += span;
            pace.record(want, span, took(span), span, dt);
        }
        asked
    }

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

    /// An engine whose frames cost 50 ms whatever they ask for (a fixed cost: dispatches and
    /// read-backs) keeps asking for nearly what the speed wants, not half as much each frame
    /// until it crawls.
    #[test]
    fn a_fixed_cost_per_frame_does_not_shrink_the_span_to_nothing() {
        let mut pace = Pace::default();
        let (want, dt) = (1.0, 0.05);
        let asked = frames(&mut pace, 160, want, dt, |_| 0.05);
        assert!(
            asked > 0.9 * 160.0 * want,
            "asked {asked} of {}",
            160.0 * want
        );
    }

    /// The window's case: the first frame asks for little (its interval was short), frames
    /// cost 25-90 ms whatever they ask for: the span grows back to what the speed wants
    /// (it stayed at 0.025 units of the 2 wanted, 0.1 units a second of the 20 asked).
    #[test]
    fn a_fixed_cost_found_at_a_small_span_grows_back_to_the_speed() {
        let mut pace = Pace::default();
        let noisy = [0.05, 0.03, 0.09, 0.04, 0.025, 0.06, 0.035, 0.045];
        pace.record(0.05, pace.span(0.05), 0.07, 0.05, 0.0025);
        for i in 0..100 {
            let span = pace.span(2.0);
            pace.record(2.0, span, noisy[i % noisy.len()], span, 0.1);
        }
        assert!(pace.span(2.0) > 1.0, "span {}", pace.span(2.0));
    }

    /// A floor set by two slow frames of a passing hiccup is let go when a probe below it is
    /// quicker: the cap then follows a cost proportional to the span again.
    #[test]
    fn a_floor_from_a_hiccup_is_let_go_when_less_is_quicker() {
        let mut pace = Pace::default();
        let (want, dt) = (1.0, 0.05);
        // two frames of 2 s whatever they ask for (a shader compiled)
        frames(&mut pace, 2, want, dt, |_| 2.0);
        // then 0.1 s per unit asked: frames under 30 ms need at most 0.3 units
        frames(&mut pace, 200, want, dt, |span| 0.1 * span);
        assert!(pace.span(want) <= 0.3, "span {}", pace.span(want));
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
