//! The M/M/c/k replications' preset keys, read with serde (`deny_unknown_fields`) and
//! checked by one `validate()` whose errors name the key and the range.

use super::{Laws, MmckParams, RunShape};
use crate::config::{Config, EngineKind, ModelConfig, PresetError};
use crate::keys::{Bound, Key, Valid};
use serde::{Deserialize, Serialize};

/// A rate of the queue (λ or μ): both means stay whole ticks far below 2^32, and the time
/// integrals of the longest run stay far below 2^64 ticks.
const RATE: Valid = Valid::Number {
    low: Bound::Closed(RATE_RANGE.0),
    high: Bound::Closed(RATE_RANGE.1),
};
/// `model.arrival_rate`: λ.
pub const ARRIVAL_RATE: Key = Key::taking("model.arrival_rate", RATE)
    .noting("at most 100 · model.servers · model.service_rate");
/// `model.service_rate`: μ of each server.
pub const SERVICE_RATE: Key = Key::taking("model.service_rate", RATE);
/// `model.servers`: c.
pub const SERVERS: Key = Key::whole_number("model.servers", 1, MAX_SERVERS as u64);
/// `model.capacity`: k, those in service included (at least model.servers, checked with it).
pub const CAPACITY: Key =
    Key::whole_number("model.capacity", 1, MAX_CAPACITY as u64).noting("at least model.servers");
/// `run.algorithm` of M/M/c/k: its one algorithm.
pub const ALGORITHM: Key = Key::one_of("run.algorithm", &["replications"]);
/// `run.customers`: a replication ends at this departure.
pub const CUSTOMERS: Key = Key::whole_number("run.customers", 1, MAX_CUSTOMERS);
/// `run.replications`.
pub const REPLICATIONS: Key = Key::whole_number("run.replications", 1, MAX_REPLICATIONS as u64);
/// `run.warmup`: departures deleted at the start of each replication (below
/// run.customers, checked with it).
pub const WARMUP: Key =
    Key::whole_number("run.warmup", 0, MAX_CUSTOMERS - 1).noting("below run.customers");

/// Every key of an M/M/c/k preset and what it takes (the registry's table).
pub const KEYS: &[Key] = &[
    crate::keys::KIND,
    ARRIVAL_RATE,
    SERVICE_RATE,
    SERVERS,
    CAPACITY,
    ALGORITHM,
    CUSTOMERS,
    REPLICATIONS,
    WARMUP,
    crate::keys::SEED,
    crate::keys::ENGINE,
];

/// Rates (λ and μ) a preset may give: both means stay whole ticks far below 2^32, and
/// the time integrals of the longest run stay far below 2^64 ticks.
pub const RATE_RANGE: (f64, f64) = (0.01, 1000.0);
/// Largest offered load λ/(cμ): every arrival is an event, lost or not, so a run of N
/// customers takes about N · λ/(cμ) events once the queue is full (λ = 1000, μ = 0.01,
/// c = 1 made 100,000 customers 10^10 events).
pub const MAX_LOAD: f64 = 100.0;
/// Most servers.
pub const MAX_SERVERS: u32 = 64;
/// Largest capacity.
pub const MAX_CAPACITY: u32 = 256;
/// Most customers per replication.
pub const MAX_CUSTOMERS: u64 = 100_000_000;
/// Most replications (the GPU may allow fewer: its buffers are checked when it starts).
pub const MAX_REPLICATIONS: u32 = 1 << 24;

/// The `[model]` section as written (defaults: paper 003's queue).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    arrival_rate: f64,
    service_rate: f64,
    servers: u32,
    capacity: u32,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "mmck".into(),
            arrival_rate: 4.0,
            service_rate: 1.0,
            servers: 3,
            capacity: 5,
        }
    }
}

/// The `[run]` section.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MmckRun {
    /// Always "replications" (the one algorithm).
    pub algorithm: String,
    /// A replication ends at this departure.
    pub customers: u64,
    /// Independent replications.
    pub replications: u32,
    /// Departures deleted at the start of each replication (0: none, the paper's choice).
    pub warmup: u64,
    /// Seed: replication r draws from the generator keyed by (seed, r).
    pub seed: u64,
    /// Engine.
    pub engine: EngineKind,
}

impl Default for MmckRun {
    fn default() -> Self {
        Self {
            algorithm: "replications".into(),
            customers: 50_000,
            replications: 7168,
            warmup: 0,
            seed: 1,
            engine: EngineKind::Cpu,
        }
    }
}

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, MmckRun>;

/// A validated M/M/c/k configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct MmckConfig {
    /// The queue.
    pub model: MmckParams,
    /// The replications.
    pub run: MmckRun,
}

/// The registry's parser.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    crate::reading::parse_sections(table, &super::INFO, MmckConfig::validate)
}

impl MmckConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        ARRIVAL_RATE.number(m.arrival_rate)?;
        SERVICE_RATE.number(m.service_rate)?;
        SERVERS.whole(m.servers)?;
        CAPACITY.whole(m.capacity)?;
        let most = MAX_LOAD * f64::from(m.servers) * m.service_rate;
        if m.arrival_rate > most {
            return Err(ARRIVAL_RATE.refuse_as(
                m.arrival_rate,
                format!(
                    "a number from 0.01 to {MAX_LOAD} · model.servers · model.service_rate = {most} (a queue offered more than {MAX_LOAD} times what its servers complete spends its run on lost arrivals: each is an event)"
                ),
            ));
        }
        if m.capacity < m.servers {
            return Err(CAPACITY.refuse_as(
                m.capacity,
                format!(
                    "a whole number from model.servers = {} to {MAX_CAPACITY} (those in service count)",
                    m.servers
                ),
            ));
        }
        let r = k.run;
        if r.algorithm != "replications" {
            return Err(ALGORITHM.refuse(format!("\"{}\"", r.algorithm)));
        }
        CUSTOMERS.whole(r.customers)?;
        REPLICATIONS.whole(r.replications)?;
        if r.warmup >= r.customers {
            return Err(WARMUP.refuse_as(
                r.warmup,
                format!(
                    "a whole number from 0 to below run.customers = {} (some departures must be measured)",
                    r.customers
                ),
            ));
        }
        Ok(Self {
            model: MmckParams {
                arrival_rate: m.arrival_rate,
                service_rate: m.service_rate,
                servers: m.servers,
                capacity: m.capacity,
            },
            run: r,
        })
    }

    /// What every replication shares.
    pub fn shape(&self) -> RunShape {
        RunShape {
            seed: self.run.seed,
            laws: Laws::new(&self.model),
            servers: self.model.servers,
            capacity: self.model.capacity,
            customers: self.run.customers,
            warmup: self.run.warmup,
        }
    }

    /// The heatmap's grid: one cell per replication, as square as whole rows allow.
    pub fn grid(&self) -> (u32, u32) {
        let r = self.run.replications;
        let cols = (f64::from(r).sqrt().ceil() as u32).max(1);
        (r.div_ceil(cols), cols)
    }

    /// The expected length of a replication in time units (customers over the exact
    /// throughput): what the window's time axis and progress use.
    pub fn expected_length(&self) -> f64 {
        self.run.customers as f64 / super::analytic::Steady::of(&self.model).throughput
    }
}

impl ModelConfig for MmckConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
        ("replications", None)
    }
    fn engine(&self) -> EngineKind {
        self.run.engine
    }
    fn set_engine(&mut self, engine: EngineKind) {
        self.run.engine = engine;
    }
    fn end_time(&self) -> f64 {
        self.expected_length()
    }
    fn shape(&self) -> (u32, u32) {
        self.grid()
    }
    fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let keys = Keys {
            model: ModelKeys {
                kind: "mmck".into(),
                arrival_rate: m.arrival_rate,
                service_rate: m.service_rate,
                servers: m.servers,
                capacity: m.capacity,
            },
            run: self.run.clone(),
        };
        crate::reading::with_comment(comment, toml::to_string(&keys))
    }
    crate::config::model_config_boilerplate!();
}
