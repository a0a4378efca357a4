//! The statistics of a network run as of a horizon: per station and in all, from the
//! state's exact sums (services in progress counted up to the horizon, as `run` counts them
//! and the window's monitors show them).

use super::state::{NONE, NetState};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};

/// One station's statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StationMeasures {
    /// Busy fraction of its servers.
    pub utilization: f64,
    /// Time-average number present.
    pub mean_number: f64,
    /// Completed visits per time unit.
    pub throughput: f64,
    /// Mean time per completed visit.
    pub mean_sojourn: f64,
    /// Completed visits.
    pub completions: u64,
    /// Causality errors.
    pub causality_errors: u64,
    /// Present now.
    pub present: u32,
}

/// The whole network's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Measures {
    /// The horizon (ticks).
    pub horizon: Ticks,
    /// The time covered, horizon − warm-up (ticks; 0 before the warm-up ends).
    pub covered: Ticks,
    /// Per station.
    pub stations: Vec<StationMeasures>,
    /// Busy fraction over all servers.
    pub utilization: f64,
    /// Mean time per visit over all stations.
    pub mean_sojourn: f64,
    /// Time-average tokens in the network.
    pub mean_tokens: f64,
    /// Mean time from entering to exiting (tokens that left).
    pub mean_system_time: f64,
    /// Exits per time unit (open), completed visits per time unit (closed).
    pub throughput: f64,
    /// Completed visits.
    pub completions: u64,
    /// Causality errors.
    pub causality_errors: u64,
}

/// One station's exact sums behind its measures (what the network's totals add up).
#[derive(Clone, Copy, Debug)]
struct StationSums {
    busy: u128,
    sojourn: i128,
    area: i128,
}

impl NetState {
    /// Station `s`'s statistics as of `horizon`: what its hover asks for, without measuring
    /// the whole network (a million stations per frame).
    pub fn measures_of(&self, s: usize, horizon: Ticks) -> StationMeasures {
        self.station_measures(s, horizon).0
    }

    /// Station `s`'s measures and the sums they come from.
    fn station_measures(&self, s: usize, horizon: Ticks) -> (StationMeasures, StationSums) {
        let st = &self.stations[s];
        let covered = horizon.saturating_sub(self.warmup);
        let units = covered as f64 / TICKS_PER_UNIT;
        let (a, b) = (
            self.first_server[s] as usize,
            self.first_server[s + 1] as usize,
        );
        let mut busy = u128::from(st.busy);
        for k in a..b {
            let server = self.servers[k];
            let from = server.since.max(self.warmup);
            if server.token != NONE && from < horizon {
                busy += u128::from(horizon.min(server.departure) - from);
            }
        }
        // ∫ N dt over [warm-up, horizon]: the visits that ended, plus those present
        let area = if covered == 0 {
            0
        } else {
            st.area_done as i128 + i128::from(st.present) * i128::from(horizon)
                - st.live_arrived as i128
        };
        let sojourn = i128::from(st.sojourn as i64);
        let m = StationMeasures {
            utilization: if covered == 0 {
                0.0
            } else {
                busy as f64 / ((b - a) as f64 * covered as f64)
            },
            mean_number: if covered == 0 {
                0.0
            } else {
                area as f64 / covered as f64
            },
            throughput: if covered == 0 {
                0.0
            } else {
                st.completions as f64 / units
            },
            mean_sojourn: sojourn as f64 / st.completions.max(1) as f64 / TICKS_PER_UNIT,
            completions: st.completions,
            causality_errors: st.causality_errors,
            present: st.present,
        };
        (
            m,
            StationSums {
                busy,
                sojourn,
                area,
            },
        )
    }

    /// The statistics as of `horizon` (at or after every event applied).
    pub fn measures(&self, horizon: Ticks) -> Measures {
        let covered = horizon.saturating_sub(self.warmup);
        let units = covered as f64 / TICKS_PER_UNIT;
        let per_time = |x: f64| if covered == 0 { 0.0 } else { x / units };
        let mut stations = Vec::with_capacity(self.stations.len());
        let (mut busy_all, mut sojourn_all, mut completions, mut errors) =
            (0u128, 0i128, 0u64, 0u64);
        let mut area_all = 0i128;
        // each station's measures on its own core; the sums are integers, added in order
        use rayon::prelude::*;
        let each: Vec<(StationMeasures, StationSums)> = (0..self.stations.len())
            .into_par_iter()
            .map(|s| self.station_measures(s, horizon))
            .collect();
        for (m, sums) in each {
            busy_all += sums.busy;
            sojourn_all += sums.sojourn;
            area_all += sums.area;
            completions += m.completions;
            errors += m.causality_errors;
            stations.push(m);
        }
        let open = !self.sources.is_empty();
        Measures {
            horizon,
            covered,
            utilization: if covered == 0 {
                0.0
            } else {
                busy_all as f64 / (self.servers.len() as f64 * covered as f64)
            },
            mean_sojourn: sojourn_all as f64 / completions.max(1) as f64 / TICKS_PER_UNIT,
            mean_tokens: if covered == 0 {
                0.0
            } else {
                area_all as f64 / covered as f64
            },
            mean_system_time: self.system_time as f64
                / self.exits_measured.max(1) as f64
                / TICKS_PER_UNIT,
            throughput: per_time(if open {
                self.exits_measured as f64
            } else {
                completions as f64
            }),
            stations,
            completions,
            causality_errors: errors,
        }
    }
}
