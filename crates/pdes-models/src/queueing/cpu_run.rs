//! The CPU run of a queueing model (the torus, a network): its
//! future-event-list simulator or its two-phase stepped one, whichever the configuration's
//! step rule asks for, driven the same way. Each model's engine holds a [`CpuRun`] and
//! implements `pdes_core::sim::Engine` with [`cpu_run_engine!`]; the models differ only in
//! their state and their summary.

use super::StepRule;
use pdes_core::sim::{Budget, StepLog, StepTotals};
use pdes_core::time::Ticks;

/// A CPU simulator of a queueing model, as an engine drives it (both kinds below).
pub trait Simulator {
    /// The model's state.
    type State;
    /// Runs events until the budget or the end.
    fn advance(&mut self, budget: Budget);
    /// Simulated time reached.
    fn now(&self) -> Ticks;
    /// Events and steps so far.
    fn totals(&self) -> &StepTotals;
    /// The state.
    fn state(&self) -> &Self::State;
}

/// The future-event-list simulator: one event at a time.
pub trait EventList: Simulator + Sized {
    /// The simulator of `state` up to `end`.
    fn start(state: Self::State, end: Ticks) -> Self;
}

/// The two-phase stepped simulator: window or interval steps.
pub trait Stepping: Simulator + Sized {
    /// The simulator of `state` stepping by `rule` up to `end`.
    fn start(state: Self::State, rule: StepRule, end: Ticks) -> Self;
    /// Its steps so far.
    fn log(&self) -> &StepLog;
    /// The step of every facility's latest causality error (0: none yet).
    fn last_error_steps(&self) -> &[u32];
}

/// The simulator a configuration asks for.
#[derive(Clone, Debug)]
pub enum CpuRun<Q, S> {
    /// Future-event-list simulator (the ground truth).
    Sequential(Q),
    /// Window or interval two-phase steps.
    Stepped(S),
}

impl<Q: EventList, S: Stepping<State = Q::State>> CpuRun<Q, S> {
    /// The run of `state` up to `end`: stepped by `rule`, or sequential without one.
    pub fn start(state: Q::State, rule: Option<StepRule>, end: Ticks) -> Self {
        match rule {
            None => Self::Sequential(Q::start(state, end)),
            Some(rule) => Self::Stepped(S::start(state, rule, end)),
        }
    }

    /// Runs events until the budget or the end.
    pub fn advance(&mut self, budget: Budget) {
        match self {
            Self::Sequential(s) => s.advance(budget),
            Self::Stepped(s) => s.advance(budget),
        }
    }

    /// Simulated time reached.
    pub fn now(&self) -> Ticks {
        match self {
            Self::Sequential(s) => s.now(),
            Self::Stepped(s) => s.now(),
        }
    }

    /// Events and steps so far.
    pub fn totals(&self) -> StepTotals {
        match self {
            Self::Sequential(s) => s.totals().clone(),
            Self::Stepped(s) => s.totals().clone(),
        }
    }

    /// The state.
    pub fn state(&self) -> &Q::State {
        match self {
            Self::Sequential(s) => s.state(),
            Self::Stepped(s) => s.state(),
        }
    }

    /// The steps logged so far (none for the sequential simulator, where every event is a
    /// step).
    pub fn steps(&self) -> Option<&StepLog> {
        match self {
            Self::Sequential(_) => None,
            Self::Stepped(s) => Some(s.log()),
        }
    }

    /// The step of every facility's latest causality error; empty for the sequential
    /// simulator, which makes none.
    pub fn last_error_steps(&self) -> &[u32] {
        match self {
            Self::Sequential(_) => &[],
            Self::Stepped(s) => s.last_error_steps(),
        }
    }
}

/// Implements [`Simulator`] and [`EventList`] (or, with `stepped`, [`Stepping`]) for a
/// model's simulator struct with fields `state` and `totals` (and `log`,
/// `last_error_step`) and inherent `new`, `advance` and `now`.
macro_rules! simulator {
    (@common $ty:ty, $state:ty) => {
        impl $crate::queueing::Simulator for $ty {
            type State = $state;
            fn advance(&mut self, budget: pdes_core::sim::Budget) {
                <$ty>::advance(self, budget)
            }
            fn now(&self) -> pdes_core::time::Ticks {
                <$ty>::now(self)
            }
            fn totals(&self) -> &pdes_core::sim::StepTotals {
                &self.totals
            }
            fn state(&self) -> &$state {
                &self.state
            }
        }
    };
    ($ty:ty, $state:ty) => {
        $crate::queueing::simulator!(@common $ty, $state);
        impl $crate::queueing::EventList for $ty {
            fn start(state: $state, end: pdes_core::time::Ticks) -> Self {
                <$ty>::new(state, end)
            }
        }
    };
    ($ty:ty, $state:ty, stepped) => {
        $crate::queueing::simulator!(@common $ty, $state);
        impl $crate::queueing::Stepping for $ty {
            fn start(
                state: $state,
                rule: $crate::queueing::StepRule,
                end: pdes_core::time::Ticks,
            ) -> Self {
                <$ty>::new(state, rule, end)
            }
            fn log(&self) -> &pdes_core::sim::StepLog {
                &self.log
            }
            fn last_error_steps(&self) -> &[u32] {
                &self.last_error_step
            }
        }
    };
}
pub(crate) use simulator;

/// The `pdes_core::sim::Engine` methods of a model engine that holds its [`CpuRun`] in the
/// field named here, its configuration in `config` (with `end_ticks()`) and has a
/// `summary()` whose value a `Report` is made of.
macro_rules! cpu_run_engine {
    ($run:ident) => {
        fn advance(
            &mut self,
            budget: pdes_core::sim::Budget,
        ) -> Result<(), pdes_core::sim::SimError> {
            self.$run.advance(budget);
            Ok(())
        }
        fn now(&self) -> pdes_core::time::Ticks {
            self.$run.now()
        }
        fn finished(&self) -> bool {
            self.$run.now() >= self.config.end_ticks()
        }
        fn totals(&self) -> pdes_core::sim::StepTotals {
            self.$run.totals()
        }
        fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
            self.$run.steps()
        }
        fn report(&mut self) -> Result<pdes_core::sim::Report, pdes_core::sim::SimError> {
            Ok(pdes_core::sim::Report::of(&self.summary()?))
        }
    };
}
pub(crate) use cpu_run_engine;
