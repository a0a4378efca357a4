//! Flattened Parallel DEVS on a cell space (Trabes et al., paper 004): every cell is an
//! atomic DEVS model (state, output function λ, transitions δint / δext / δconf, time
//! advance ta) coupled to its neighbourhood; two rules of the paper — the Cell-DEVS
//! synthetic benchmark and the SIR epidemic.
//!
//! Three simulators, one meaning:
//! - [`sequential::Sequential`]: a classic PDEVS simulator with an event list (the ground
//!   truth): at each step the imminent cells emit output, the coordinator routes the
//!   messages through the couplings, every imminent or influenced cell transitions, and the
//!   next time is the earliest scheduled one;
//! - [`flattened::Flattened`]: the paper's flattened coordinator on the CPU (the GPU's
//!   twin): four phases over arrays of every cell — output, route (each cell pulls its
//!   senders' messages), transition, next time (a min over all cells); the first three
//!   read only the state at t, so they run as one sweep into a second copy of the state;
//! - [`gpu::GpuDevs`]: the same as one compute pass per step (the fused sweep; its last
//!   workgroup takes the minimum and closes the step), many steps per submit.
//!
//! Time is a whole number of steps (u32): both paper rules have ta = 1, so a run of
//! `run.end_time` = T takes steps at t = 1, …, T (every cell starts with last = 0,
//! next = ta). A cell's bag of messages is kept as (count, sum): both rules read their
//! inputs only through a sum, so the order in which messages arrive cannot matter and the
//! route phase needs no locks.

pub mod config;
pub mod flattened;
pub mod gpu;
pub mod live;
pub mod sequential;
pub mod summary;
pub mod verify;

/// `next` of a passive cell (ta = ∞).
pub const PASSIVE: u32 = u32::MAX;

/// Which cells are coupled to a cell: its neighbourhood, the cell itself included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Neighbourhood {
    /// The 3 × 3 block around the cell (the authors' code).
    Moore,
    /// The cell and its four edge neighbours.
    VonNeumann,
}

impl Neighbourhood {
    /// Offsets (row, column) of the coupled cells, in the order every simulator reads them.
    pub fn offsets(self) -> &'static [(i32, i32)] {
        match self {
            Self::Moore => &[
                (-1, -1),
                (-1, 0),
                (-1, 1),
                (0, -1),
                (0, 0),
                (0, 1),
                (1, -1),
                (1, 0),
                (1, 1),
            ],
            Self::VonNeumann => &[(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)],
        }
    }

    /// Name in presets.
    pub fn name(self) -> &'static str {
        match self {
            Self::Moore => "moore",
            Self::VonNeumann => "von-neumann",
        }
    }
}

/// The grid and its couplings. Couplings are symmetric (a cell's senders are the cells it
/// sends to), so one neighbourhood serves both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellSpace {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Who is coupled to whom.
    pub neighbourhood: Neighbourhood,
    /// True: the edges wrap around (a torus); false: edge cells have fewer couplings.
    pub wrap: bool,
}

impl CellSpace {
    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.rows * self.cols
    }

    /// The cells coupled to `cell` (itself included), written to `out`; returns how many.
    #[inline]
    pub fn neighbours(&self, cell: u32, out: &mut [u32; 9]) -> usize {
        let (r, c) = ((cell / self.cols) as i32, (cell % self.cols) as i32);
        let (rows, cols) = (self.rows as i32, self.cols as i32);
        let mut n = 0;
        for &(dr, dc) in self.neighbourhood.offsets() {
            let (mut rr, mut cc) = (r + dr, c + dc);
            if self.wrap {
                rr = rr.rem_euclid(rows);
                cc = cc.rem_euclid(cols);
            } else if rr < 0 || rr >= rows || cc < 0 || cc >= cols {
                continue;
            }
            out[n] = (rr * cols + cc) as u32;
            n += 1;
        }
        n
    }

    /// The centre cell (row rows/2, column cols/2): where the SIR epidemic starts.
    pub fn centre(&self) -> u32 {
        (self.rows / 2) * self.cols + self.cols / 2
    }
}

/// One cell's state: its value (benchmark: the digit; SIR: S | I << 10 | R << 20 in
/// thousandths) and a scratch word (the benchmark's extra work; 0 for SIR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Cell {
    /// The model's state word.
    pub value: u32,
    /// Scratch word.
    pub aux: u32,
}

/// The messages a cell received in one step, kept as their count and sum (see the module
/// comment for why that is enough).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bag {
    /// Messages.
    pub count: u32,
    /// Sum of their values.
    pub sum: u32,
}

/// A cell's atomic model: what the simulators call, in the PDEVS protocol's words.
pub trait CellRule: Sync {
    /// The state of `cell` at time 0.
    fn initial(&self, space: &CellSpace, cell: u32) -> Cell;
    /// Time advance in steps ([`PASSIVE`]: none).
    fn ta(&self, s: &Cell) -> u32;
    /// λ: the message an imminent cell sends to every coupled cell (None: an empty
    /// output bag, nothing sent).
    fn output(&self, s: &Cell) -> Option<u32>;
    /// δint: imminent, no input.
    fn internal(&self, s: &mut Cell);
    /// δext: input, not imminent; `elapsed` steps since its last transition.
    fn external(&self, s: &mut Cell, elapsed: u32, bag: Bag);
    /// δconf: imminent with input.
    fn confluent(&self, s: &mut Cell, bag: Bag);
}

/// The SIR rates in thousandths (the paper's reference [24]: 0.8, 0.4, 0.2, 0.111).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SirRates {
    /// Fraction of the exposed susceptibles infected per step (virulence), ‰.
    pub infection: u32,
    /// Contact rate between a cell and its neighbourhood, ‰.
    pub contact: u32,
    /// Fraction of the infected that recover per step, ‰.
    pub recovery: u32,
    /// Weight of each coupled cell's infected in the neighbourhood sum, ‰.
    pub weight: u32,
}

impl Default for SirRates {
    fn default() -> Self {
        Self {
            infection: 800,
            contact: 400,
            recovery: 200,
            weight: 111,
        }
    }
}

/// Packs (S, I, R) in thousandths into a state word.
#[inline]
pub fn sir_pack(s: u32, i: u32, r: u32) -> u32 {
    s | (i << 10) | (r << 20)
}

/// Unpacks a state word into (S, I, R) in thousandths.
#[inline]
pub fn sir_unpack(v: u32) -> (u32, u32, u32) {
    (v & 0x3ff, (v >> 10) & 0x3ff, (v >> 20) & 0x3ff)
}

/// One SIR step of a cell in exact integer thousandths (twin of `sir_step` in
/// `shaders/devs.wgsl`). With s, i, r the fractions and Σi over the coupled cells:
/// new = infection · s · min(1, contact · weight · Σi), i' = round₃(i + new − recovery · i),
/// r' = round₃(r + recovery · i), s' = 1 − i' − r' (round₃: to the nearest thousandth, a
/// half up). In thousandths every product is an integer, so the rounding is decided
/// exactly: i' = ⌊(10⁹·I·(1000 − γ) + ν·S·Q + 5·10¹¹) / 10¹²⌋ with Q = min(10⁹, κ·w·ΣI).
/// The paper's population p = 100 cancels (aux = Σ i·p·w, then contact · aux / p). When the
/// two roundings push i' + r' above 1 (only when S ≤ 4‰), i' gives way so that s' = 0:
/// s + i + r = 1 holds exactly and no compartment goes negative.
#[inline]
pub fn sir_step(v: u32, sum_i: u32, k: &SirRates) -> u32 {
    let (s, i, r) = sir_unpack(v);
    let q = (u64::from(k.contact * k.weight) * u64::from(sum_i)).min(1_000_000_000);
    let n = 1_000_000_000 * u64::from(i * (1000 - k.recovery))
        + u64::from(k.infection * s) * q
        + 500_000_000_000;
    let i2 = (n / 1_000_000_000_000) as u32;
    let r2 = r + (k.recovery * i + 500) / 1000;
    let i2 = i2.min(1000 - r2);
    sir_pack(1000 - i2 - r2, i2, r2)
}

/// The two rules of paper 004.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The synthetic benchmark: a digit that flips at every internal transition, plus
    /// `work` rounds of integer arithmetic per transition (0 in the paper).
    Benchmark {
        /// Extra arithmetic rounds per transition.
        work: u32,
    },
    /// The SIR epidemic.
    Sir(SirRates),
}

/// The benchmark's extra arithmetic: `work` rounds of a linear congruential step on the
/// scratch word (twin of `burn` in the shader; kept in the state so no compiler drops it).
#[inline]
pub fn burn(mut x: u32, work: u32) -> u32 {
    for _ in 0..work {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    }
    x
}

impl CellRule for Rule {
    fn initial(&self, space: &CellSpace, cell: u32) -> Cell {
        match self {
            Self::Benchmark { .. } => Cell::default(),
            Self::Sir(_) if cell == space.centre() => Cell {
                value: sir_pack(900, 100, 0),
                aux: 0,
            },
            Self::Sir(_) => Cell {
                value: sir_pack(1000, 0, 0),
                aux: 0,
            },
        }
    }
    fn ta(&self, _: &Cell) -> u32 {
        1
    }
    fn output(&self, s: &Cell) -> Option<u32> {
        Some(match self {
            Self::Benchmark { .. } => s.value,
            Self::Sir(_) => sir_unpack(s.value).1,
        })
    }
    fn internal(&self, s: &mut Cell) {
        match self {
            Self::Benchmark { work } => {
                s.value ^= 1;
                s.aux = burn(s.aux, *work);
            }
            // with no input the neighbourhood's sum is empty (never taken: every cell is
            // coupled to itself and always sends, so an imminent cell always has input)
            Self::Sir(k) => s.value = sir_step(s.value, 0, k),
        }
    }
    fn external(&self, _s: &mut Cell, _elapsed: u32, _bag: Bag) {
        // Both rules act only at their own internal events; the input of an instant is
        // read by δconf (ta = 1 everywhere makes every influenced cell imminent too).
    }
    fn confluent(&self, s: &mut Cell, bag: Bag) {
        match self {
            Self::Benchmark { .. } => self.internal(s),
            Self::Sir(k) => s.value = sir_step(s.value, bag.sum, k),
        }
    }
}

/// What every simulator keeps: the grid, each cell's state, last and next times, and the
/// log of its steps.
#[derive(Clone, Debug, PartialEq)]
pub struct CellArrays {
    /// The grid.
    pub space: CellSpace,
    /// States.
    pub cells: Vec<Cell>,
    /// Time of each cell's last transition.
    pub last: Vec<u32>,
    /// Time of each cell's next internal event ([`PASSIVE`]: none).
    pub next: Vec<u32>,
    /// Every step so far.
    pub log: Vec<DevsStep>,
}

impl CellArrays {
    /// Every cell of `space` initialised at time 0: its initial state, last = 0, next = ta.
    pub fn new<R: CellRule>(space: CellSpace, rule: &R) -> Self {
        let cells: Vec<Cell> = (0..space.cells())
            .map(|c| rule.initial(&space, c))
            .collect();
        let next = cells.iter().map(|s| rule.ta(s)).collect();
        Self {
            space,
            last: vec![0; cells.len()],
            cells,
            next,
            log: Vec::new(),
        }
    }
}

/// A simulator of a cell space (the sequential one and the flattened coordinator's CPU
/// twin), as the CPU engine, the tests and the window use it.
pub trait DevsSim: Send {
    /// Time of the next step ([`PASSIVE`]: none).
    fn next_time(&self) -> u32;
    /// Takes that step (nothing when no event is left).
    fn step(&mut self);
    /// Its cells and log.
    fn arrays(&self) -> &CellArrays;
    /// States.
    fn cells(&self) -> &[Cell] {
        &self.arrays().cells
    }
    /// Last transition times.
    fn last(&self) -> &[u32] {
        &self.arrays().last
    }
    /// Next event times.
    fn next(&self) -> &[u32] {
        &self.arrays().next
    }
    /// Every step so far.
    fn log(&self) -> &[DevsStep] {
        &self.arrays().log
    }
}

/// What one step did (both CPU simulators and the GPU record the same).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevsStep {
    /// The step's time.
    pub t: u32,
    /// Cells with next = t.
    pub imminent: u32,
    /// Messages routed (one per coupling of an imminent cell).
    pub messages: u32,
    /// δint taken.
    pub internal: u32,
    /// δext taken.
    pub external: u32,
    /// δconf taken.
    pub confluent: u32,
}

impl DevsStep {
    /// All transitions of the step.
    pub fn transitions(&self) -> u64 {
        u64::from(self.internal) + u64::from(self.external) + u64::from(self.confluent)
    }

    /// The step as the generic step log records it (events = transitions).
    pub fn record(&self) -> pdes_core::sim::StepRecord {
        let t = u64::from(self.t) << pdes_core::time::TICK_BITS;
        pdes_core::sim::StepRecord {
            t_min: t,
            bound: t,
            events: self.transitions(),
            errors: 0,
        }
    }
}

/// The ticks of step time `t` (whole time units).
pub fn ticks(t: u32) -> pdes_core::time::Ticks {
    u64::from(t) << pdes_core::time::TICK_BITS
}

/// What a budget allows from a run whose last step time is `end`: (the last step time
/// allowed, inclusive; the most steps). A DEVS run "until x" covers the closed interval
/// [0, x] — the events at x included — so `Until(x)` allows the steps at times ≤ x, and a
/// run of `run.end_time` = T takes its steps at 1, …, T (other models' `Until` stops
/// before x; their end time is exclusive).
pub fn budget_limits(budget: pdes_core::sim::Budget, end: u32) -> (u32, u64) {
    use pdes_core::sim::Budget;
    match budget {
        Budget::Steps(n) => (end, n),
        Budget::Until(x) => {
            let last = x >> pdes_core::time::TICK_BITS;
            (last.min(u64::from(end)) as u32, u64::MAX)
        }
        Budget::Finish => (end, u64::MAX),
        Budget::StepsUntil(n, x) => (budget_limits(Budget::Until(x), end).0, n),
    }
}

/// The simulators, as both kinds list them.
const ALGORITHMS: &[crate::config::AlgorithmInfo] = &[
    crate::config::AlgorithmInfo::new("sequential", "sequential", "The classic PDEVS simulator (the ground truth): an event list of next times; each step the imminent cells emit output, the coordinator routes every message through the couplings, and each imminent or influenced cell transitions. CPU only.").exact().cpu_only(),
    crate::config::AlgorithmInfo::new("flattened", "flattened", "Paper 004's flattened coordinator: four phases over arrays of every cell per step — output, route (each cell pulls its senders' messages), transition, next time (a min reduction). The first three read only the state at t, so they run as one sweep into a second copy of the state; the GPU's last workgroup of that sweep takes the minimum (one compute pass per step, many steps per submit); on the CPU the same sweep on every core (its twin). Same cells, step for step, as sequential.").exact(),
    crate::config::AlgorithmInfo::new("flattened-cpu", "flattened (CPU)", "The flattened coordinator's CPU twin (run.algorithm = \"flattened\" with run.engine = \"cpu\").").exact().cpu_only().unlisted(),
];

/// The Cell-DEVS synthetic benchmark in the model registry.
pub static BENCHMARK_INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "devs-benchmark",
    label: "DEVS benchmark cells",
    description: "Cell-DEVS benchmark (flattened PDEVS)",
    about: "A Parallel DEVS cell space whose cells flip a digit at every step: communication-heavy, almost no computation (Trabes et al., paper 004 §4). Sequential PDEVS against the flattened coordinator on the CPU and the GPU.",
    teaching_preset: "teaching-devs-benchmark",
    parse: config::parse,
    presets: &[
        (
            "teaching-devs-benchmark",
            include_str!("../../../../presets/teaching-devs-benchmark.toml"),
        ),
        (
            "trabes-benchmark",
            include_str!("../../../../presets/trabes-benchmark.toml"),
        ),
    ],
    keys: config::BENCHMARK_KEYS,
    size_keys: "model.rows × model.cols",
    shader_modules: |r| vec![("devs".to_string(), gpu::module_source(r))],
    verify: crate::twins::twin_checks::<verify::DevsTwins>,
    verify_once: verify::check_once,
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    replicas: None,
    spread: None,
    page_checks: Some(|gpu| Box::pin(crate::twins::twin_page_checks::<verify::DevsTwins>(gpu))),
    // its own page: the SIR's said nothing of what a flattened step does to a digit
    info: include_str!("benchmark_info.md"),
    algorithms: ALGORITHMS,
};

/// The SIR epidemic on a DEVS cell space in the model registry.
pub static SIR_INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "sir",
    label: "SIR epidemic (DEVS)",
    description: "SIR epidemic (flattened PDEVS)",
    about: "A Parallel DEVS cell space of SIR compartments (susceptible, infected, recovered) seeded at the centre; each cell's infections depend on its neighbourhood's infected (Trabes et al., paper 004 §4). Sequential PDEVS against the flattened coordinator on the CPU and the GPU.",
    teaching_preset: "teaching-sir",
    parse: config::parse,
    presets: &[
        (
            "teaching-sir",
            include_str!("../../../../presets/teaching-sir.toml"),
        ),
        (
            "trabes-sir",
            include_str!("../../../../presets/trabes-sir.toml"),
        ),
    ],
    keys: config::SIR_KEYS,
    size_keys: "model.rows × model.cols",
    shader_modules: |_| Vec::new(),
    verify: |_, _, _, _| {},
    verify_once: |_, _, _| {},
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    replicas: None,
    spread: None,
    // its page checks run with the benchmark's (the same cases cover both rules)
    page_checks: Some(|_| Box::pin(std::future::ready(Vec::new()))),
    info: include_str!("info.md"),
    algorithms: ALGORITHMS,
};

#[cfg(test)]
mod tests;
