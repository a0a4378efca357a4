//! The facility record of the queueing models: one server and its FIFO queue, threaded
//! through the tokens as an intrusive list (`head`, `tail` and each token's `next`), so a
//! queue holds any number of tokens and nothing is allocated per event. The torus keeps
//! the same record on the CPU and the same layout on the GPU.

use pdes_core::time::Ticks;

/// Marks "no token" in queue links and in an idle server.
pub const NONE: u32 = u32::MAX;
/// Departure time of an idle facility: no pending event.
pub const NEVER: Ticks = Ticks::MAX;

/// One facility: a server and its FIFO queue, plus its statistics accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facility {
    /// Departure time of the token in service, or [`NEVER`] when idle.
    pub departure: Ticks,
    /// When the current service started; while idle, when the server became free.
    pub service_start: Ticks,
    /// Largest arrival timestamp processed here (an older arrival after it is a causality
    /// error).
    pub last_arrival: Ticks,
    /// Sum of completed service times, the part after the warm-up.
    pub busy: Ticks,
    /// Sum of the sojourn times (departure stamp − arrival stamp) of visits completed at or
    /// after the warm-up, as a wrapping two's-complement sum: under interval/original a
    /// token queued with a later stamp can start at an earlier departure and leave before
    /// its own arrival stamp, so a visit's sojourn can be negative (an artefact of the
    /// causality error; read it as i64 where that can happen).
    pub sojourn: Ticks,
    /// Visits completed at or after the warm-up.
    pub completions: u64,
    /// Arrivals older than `last_arrival` (causality errors).
    pub causality_errors: u64,
    /// Token in service, or [`NONE`].
    pub serving: u32,
    /// The torus's routing direction of the token in service (drawn with its service time,
    /// from the same random words, so each event costs one Philox call).
    pub route: u32,
    /// First queued token (not counting the one in service), or [`NONE`].
    pub head: u32,
    /// Last queued token, or [`NONE`].
    pub tail: u32,
    /// Number of queued tokens (not counting the one in service).
    pub queued: u32,
}

impl Facility {
    /// An idle facility with an empty queue and no statistics yet.
    pub const IDLE: Self = Self {
        departure: NEVER,
        service_start: 0,
        last_arrival: 0,
        busy: 0,
        sojourn: 0,
        completions: 0,
        causality_errors: 0,
        serving: NONE,
        route: 0,
        head: NONE,
        tail: NONE,
        queued: 0,
    };

    /// Whether a token is in service.
    pub fn busy(&self) -> bool {
        self.serving != NONE
    }

    /// Tokens present: the queue plus the one in service.
    pub fn tokens(&self) -> u32 {
        self.queued + u32::from(self.busy())
    }
}

/// The length of the queue that starts at `head`, following `next` through `tokens`
/// tokens: how a facility read back from the GPU (which stores no count) gets its
/// `queued`. The walk stops at a link outside the pool or after `tokens` links, so a
/// corrupted (cyclic) list ends it; the token check then reports that list.
pub fn queue_length(head: u32, tokens: usize, next: impl Fn(u32) -> u32) -> u32 {
    let mut queued = 0;
    let mut t = head;
    while t != NONE && (t as usize) < tokens && queued <= tokens as u32 {
        queued += 1;
        t = next(t);
    }
    queued
}
