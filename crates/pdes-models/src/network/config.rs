//! A network file (`[model] kind = "network"`): `[[model.station]]` tables or a generated
//! `model.shape`, and the queueing models' `[run]` keys. Read with serde, then resolved and
//! checked by [`Network::validate`] (every refusal names the station and the rule) and by
//! [`NetworkConfig::validate`] for the run (the window's d against every station's shortest
//! service, naming the station). Written back whole by `to_toml`.

use super::service::Service;
use super::shapes::Shape;
use super::spec::{Network, StationSpec};
use crate::config::{Config, EngineKind, ModelConfig, PresetError, key_err};
use crate::keys::Key;
use crate::queueing::{Algorithm, QueueingRunKeys, RUN_KEYS, RunConfig, Timestamps};
use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `model.station`: the stations.
pub const STATION: Key = Key::described(
    "model.station",
    "a list of [[model.station]] tables: name, servers, service, routes, and optionally arrival_rate and population",
);
/// `model.shape`: a generated network instead of the stations.
pub const SHAPE: Key = Key::described(
    "model.shape",
    "a table { kind = \"torus\", \"tandem\" or \"random\", … } (the guide lists each shape's keys)",
);

/// `model.stations_csv`: the stations from a CSV file.
pub const STATIONS_CSV: Key = Key::described(
    "model.stations_csv",
    "a CSV file (columns name, servers, service and the service's parameters, arrival_rate, population), with model.routes_csv; at most 64 MiB; a path relative to the network file",
);
/// `model.routes_csv`: the routes from a CSV file.
pub const ROUTES_CSV: Key = Key::described(
    "model.routes_csv",
    "a CSV file (columns from, to, probability) giving the routes of model.stations_csv's stations; at most 64 MiB",
);

/// Every key of a network file.
pub const KEYS: &[Key] = &crate::keys::joined::<12>(
    &[crate::keys::KIND, STATION, SHAPE, STATIONS_CSV, ROUTES_CSV],
    &RUN_KEYS,
);

/// One `[[model.station]]` as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct StationKeys {
    name: String,
    #[serde(default = "one")]
    servers: u32,
    service: Service,
    #[serde(skip_serializing_if = "Option::is_none")]
    arrival_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    population: Option<u32>,
    #[serde(default)]
    routes: BTreeMap<String, f64>,
}

fn one() -> u32 {
    1
}

/// The `[model]` section as written.
#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    station: Vec<StationKeys>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shape: Option<Shape>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stations_csv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    routes_csv: Option<String>,
}

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, QueueingRunKeys>;

/// The run defaults (keys a file leaves out): sequential, the ground truth.
const RUN_DEFAULTS: RunConfig = RunConfig {
    algorithm: Algorithm::Sequential,
    timestamps: Timestamps::Original,
    d: 0.0,
    end_time: 1000.0,
    warmup: 0.0,
    seed: 1,
    engine: EngineKind::Cpu,
};

/// Where the stations came from (what `to_toml` writes back).
#[derive(Clone, Debug, PartialEq)]
pub enum Written {
    /// `[[model.station]]` tables.
    Stations,
    /// A generated shape.
    Shape(Shape),
    /// CSV files: (stations, routes).
    Csv(String, String),
}

/// A validated network configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkConfig {
    /// The network (shared by the configuration's clones: a run, its engine and the window
    /// each hold one, and a million stations' names and routes took 0.1–0.2 s to copy).
    pub network: std::sync::Arc<Network>,
    /// The run.
    pub run: RunConfig,
    /// How the file gave the stations.
    pub written: Written,
    /// The network's exact values, computed once when first asked for ([`Self::exact`]).
    exact: ExactOnce,
}

/// The exact values of a configuration's network, computed at most once and shared by its
/// clones (the window asks every frame; MVA of a large closed network takes a while).
#[derive(Clone, Debug, Default)]
struct ExactOnce(std::sync::Arc<std::sync::OnceLock<Result<super::analytic::Values, String>>>);

impl PartialEq for ExactOnce {
    /// A cache: two configurations are equal whatever it holds.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The registry's parser.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    crate::reading::parse_sections(table, &super::INFO, NetworkConfig::validate)
}

impl NetworkConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let csv = match (k.model.stations_csv, k.model.routes_csv) {
            (Some(s), Some(r)) => Some((s, r)),
            (None, None) => None,
            _ => {
                return Err(key_err(
                    "model.stations_csv",
                    "model.stations_csv and model.routes_csv come together: give both files",
                ));
            }
        };
        if let Some((stations, routes)) = csv {
            if k.model.shape.is_some() || !k.model.station.is_empty() {
                return Err(key_err(
                    "model.stations_csv",
                    "a file gives its stations one way: CSV files, [[model.station]] tables or a model.shape",
                ));
            }
            let network = Network::validate(super::csv::read(&stations, &routes)?)?;
            let run = Self::validate_run(k.run, &network)?;
            return Ok(Self {
                network: std::sync::Arc::new(network),
                run,
                written: Written::Csv(stations, routes),
                exact: ExactOnce::default(),
            });
        }
        let (specs, written) = match (k.model.shape, k.model.station.is_empty()) {
            (Some(_), false) => {
                return Err(key_err(
                    "model.shape",
                    "a file gives either [[model.station]] tables or a model.shape, not both",
                ));
            }
            (Some(shape), true) => (shape.stations()?, Written::Shape(shape)),
            (None, _) => (
                k.model
                    .station
                    .into_iter()
                    .map(|s| StationSpec {
                        name: s.name,
                        servers: s.servers,
                        service: s.service,
                        arrival_rate: s.arrival_rate,
                        population: s.population,
                        routes: s.routes.into_iter().collect(),
                        resolved: None,
                    })
                    .collect(),
                Written::Stations,
            ),
        };
        let network = Network::validate(specs)?;
        let run = Self::validate_run(k.run, &network)?;
        Ok(Self {
            network: std::sync::Arc::new(network),
            run,
            written,
            exact: ExactOnce::default(),
        })
    }

    /// The run's keys; the window needs d at most every station's shortest service.
    fn validate_run(keys: QueueingRunKeys, net: &Network) -> Result<RunConfig, PresetError> {
        // the queueing models' checks of d, T and the warm-up; their rule for the window
        // (shifted service, d below its mean) is replaced by the stations' own minimums
        let run = keys.validate(RUN_DEFAULTS, true, f64::INFINITY)?;
        let algorithm = run.algorithm;
        if algorithm == Algorithm::Window {
            let d = to_ticks(run.d);
            for s in &net.stations {
                let least = s.service.ticks();
                let shortest = match s.service {
                    Service::Exponential { .. } | Service::Erlang { .. } => 0,
                    _ => least.base,
                };
                if shortest < d {
                    let why = if shortest == 0 {
                        format!("its {} service can be shorter than any d", s.service.name())
                    } else {
                        format!("its service can be as short as {}", s.service.minimum())
                    };
                    return Err(crate::queueing::D.refuse_as(
                        run.d,
                        format!(
                            "at most the shortest service of every station for run.algorithm = \"window\" (every service must last at least d): station {} — {why}; use shifted, deterministic or uniform service there, or interval",
                            s.name
                        ),
                    ));
                }
            }
        }
        Ok(run)
    }

    /// The network's exact values (Jackson, MVA), or why there are none.
    pub fn exact(&self) -> &Result<super::analytic::Values, String> {
        self.exact
            .0
            .get_or_init(|| super::analytic::values(&self.network))
    }

    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.run.end_time)
    }

    /// The stations as `[[model.station]]` tables.
    fn station_keys(&self) -> Vec<StationKeys> {
        let names: Vec<&str> = self
            .network
            .stations
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        self.network
            .stations
            .iter()
            .map(|s| StationKeys {
                name: s.name.clone(),
                servers: s.servers,
                service: s.service,
                arrival_rate: (s.arrival_rate > 0.0).then_some(s.arrival_rate),
                population: (s.population > 0).then_some(s.population),
                routes: s
                    .routes
                    .iter()
                    .map(|&(d, p)| {
                        let to = if d == super::spec::EXIT {
                            "exit".to_string()
                        } else {
                            names[d as usize].to_string()
                        };
                        (to, p)
                    })
                    .collect(),
            })
            .collect()
    }
}

impl ModelConfig for NetworkConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    crate::queueing::queueing_run_accessors!();
    fn shape(&self) -> (u32, u32) {
        super::view::layout(&self.written, self.network.stations.len())
    }
    fn to_toml(&self, comment: &str) -> String {
        let model = match &self.written {
            Written::Shape(shape) => ModelKeys {
                kind: "network".into(),
                shape: Some(shape.clone()),
                ..ModelKeys::default()
            },
            Written::Stations => ModelKeys {
                kind: "network".into(),
                station: self.station_keys(),
                ..ModelKeys::default()
            },
            Written::Csv(stations, routes) => ModelKeys {
                kind: "network".into(),
                stations_csv: Some(stations.clone()),
                routes_csv: Some(routes.clone()),
                ..ModelKeys::default()
            },
        };
        let keys = Keys {
            model,
            run: QueueingRunKeys::of(&self.run),
        };
        crate::reading::with_comment(comment, toml::to_string(&keys))
    }
    fn warning(&self) -> Option<String> {
        None
    }
    crate::config::model_config_boilerplate!();
}
