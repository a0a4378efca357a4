//! Generated networks (`model.shape = { kind = …, … }`): the torus of papers 000/002, the
//! tandem lines of paper 002's open network, and a random graph of given size and degree for
//! benchmarks. Each gives its stations as a file would; the network is then validated as any
//! other. (The built-in torus presets keep their own engine: the torus shape is the same network
//! drawn with the general engine's random numbers.)

use super::service::Service;
use super::spec::{EXIT, MAX_STATIONS, Routes, StationSpec};
use crate::config::{PresetError, key_err};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The most lines of a tandem shape (its last stations share one list of lines + 1 routes:
/// paper 002's open network at a million facilities has 16,384 lines of 64).
pub const MAX_TANDEM_LINES: u32 = 16_384;

fn shifted() -> Service {
    Service::Shifted {
        shift: 0.5,
        mean: 1.0,
    }
}

/// A generated network.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Shape {
    /// rows × cols single-server stations on a torus, each routing to its four neighbours
    /// with probability 1/4, `tokens_per_station` tokens each at start (closed).
    Torus {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// Tokens per station at start.
        tokens_per_station: u32,
        /// Every station's service.
        #[serde(default = "shifted")]
        service: Service,
    },
    /// `lines` tandem lines of `servers_per_line` single-server stations; arrivals of rate
    /// `arrival_rate` in all, spread evenly over the lines' first stations; after a line's
    /// last station a token exits with `exit_probability`, else goes to a uniformly chosen
    /// line's first station.
    Tandem {
        /// Lines.
        lines: u32,
        /// Stations per line.
        servers_per_line: u32,
        /// Exit probability after a line.
        exit_probability: f64,
        /// External arrivals per time unit, all lines together.
        arrival_rate: f64,
        /// Every station's service.
        #[serde(default = "shifted")]
        service: Service,
    },
    /// `stations` single-server stations, each routing with probability 1/degree to
    /// `degree` distinct others chosen at random (from `seed`), `tokens_per_station` tokens
    /// each at start (closed). With `regular`, every station is also the destination of
    /// exactly `degree` routes (a random regular directed graph: every station is visited
    /// equally often, as on a torus); without, the routes into a station vary (their count
    /// is about Poisson) and the traffic gathers where many lead.
    Random {
        /// Stations.
        stations: u32,
        /// Routes per station.
        degree: u32,
        /// Tokens per station at start.
        tokens_per_station: u32,
        /// Every station's service.
        #[serde(default = "shifted")]
        service: Service,
        /// Seed of the graph (not of the run).
        #[serde(default)]
        seed: u64,
        /// Every station the destination of exactly `degree` routes.
        #[serde(default)]
        regular: bool,
    },
}

fn closed(name: String, service: Service, tokens: u32, routes: Routes) -> StationSpec {
    StationSpec {
        name,
        servers: 1,
        service,
        arrival_rate: None,
        population: (tokens > 0).then_some(tokens),
        routes: Vec::new(),
        resolved: Some(routes),
    }
}

fn check_size(what: &str, n: u64) -> Result<(), PresetError> {
    if n == 0 || n > MAX_STATIONS as u64 {
        return Err(key_err(
            "model.shape",
            format!("{what} must make from 1 to {MAX_STATIONS} stations; it makes {n}"),
        ));
    }
    Ok(())
}

impl Shape {
    /// Its stations, each made on its own core (every station's routes and name follow
    /// from its index alone; a million took a third of a second on one).
    pub fn stations(&self) -> Result<Vec<StationSpec>, PresetError> {
        match *self {
            Self::Torus {
                rows,
                cols,
                tokens_per_station,
                service,
            } => {
                check_size("rows × cols", u64::from(rows) * u64::from(cols))?;
                let at = |r: u32, c: u32| r * cols + c;
                Ok((0..rows * cols)
                    .into_par_iter()
                    .map(|i| (i / cols, i % cols))
                    .map(|(r, c)| {
                        let routes = Routes::from([
                            (at((r + rows - 1) % rows, c), 0.25),
                            (at((r + 1) % rows, c), 0.25),
                            (at(r, (c + cols - 1) % cols), 0.25),
                            (at(r, (c + 1) % cols), 0.25),
                        ]);
                        closed(format!("r{r}c{c}"), service, tokens_per_station, routes)
                    })
                    .collect())
            }
            Self::Tandem {
                lines,
                servers_per_line,
                exit_probability,
                arrival_rate,
                service,
            } => {
                if !(1..=MAX_TANDEM_LINES).contains(&lines) {
                    return Err(key_err(
                        "model.shape",
                        format!(
                            "lines must be a whole number from 1 to {MAX_TANDEM_LINES} (the last stations route to every line); got {lines}"
                        ),
                    ));
                }
                check_size(
                    "lines × servers_per_line",
                    u64::from(lines) * u64::from(servers_per_line),
                )?;
                if !(exit_probability > 0.0 && exit_probability <= 1.0) {
                    return Err(key_err(
                        "model.shape",
                        format!(
                            "exit_probability must be a number above 0 and at most 1; got {exit_probability}"
                        ),
                    ));
                }
                let at = |l: u32, s: u32| l * servers_per_line + s;
                let back = (1.0 - exit_probability) / f64::from(lines);
                // every line's last station holds this one list: exit, or any line's first
                let mut last = vec![(EXIT, exit_probability)];
                if back > 0.0 {
                    last.extend((0..lines).map(|to| (at(to, 0), back)));
                }
                let last: Routes = last.into();
                Ok((0..lines * servers_per_line)
                    .into_par_iter()
                    .map(|i| (i / servers_per_line, i % servers_per_line))
                    .map(|(l, s)| {
                        let routes = if s + 1 < servers_per_line {
                            vec![(at(l, s + 1), 1.0)].into()
                        } else {
                            last.clone()
                        };
                        StationSpec {
                            name: format!("l{l}s{s}"),
                            servers: 1,
                            service,
                            arrival_rate: (s == 0).then(|| arrival_rate / f64::from(lines)),
                            population: None,
                            routes: Vec::new(),
                            resolved: Some(routes),
                        }
                    })
                    .collect())
            }
            Self::Random {
                stations,
                degree,
                tokens_per_station,
                service,
                seed,
                regular,
            } => {
                check_size("stations", u64::from(stations))?;
                if degree == 0 || degree >= stations.max(2) || degree > 64 {
                    return Err(key_err(
                        "model.shape",
                        format!(
                            "degree must be a whole number from 1 to {} (below the stations, at most 64); got {degree}",
                            (stations.max(2) - 1).min(64)
                        ),
                    ));
                }
                let p = 1.0 / f64::from(degree);
                if regular {
                    let picks = regular_graph(stations, degree, seed)?;
                    return Ok((0..stations)
                        .into_par_iter()
                        .map(|i| {
                            let routes = picks.iter().map(|pi| (pi[i as usize], p)).collect();
                            closed(format!("n{i}"), service, tokens_per_station, routes)
                        })
                        .collect());
                }
                Ok((0..stations)
                    .into_par_iter()
                    .map(|i| {
                        // distinct neighbours other than itself, from a counter-based stream
                        let mut picked: Vec<u32> = Vec::with_capacity(degree as usize);
                        let mut draw = 0u32;
                        while picked.len() < degree as usize {
                            let w = pdes_core::rng::philox4x32_10(
                                [i, draw, 0, 0x6A4F],
                                [seed as u32, (seed >> 32) as u32],
                            );
                            draw += 1;
                            for word in w {
                                let to = ((u64::from(word) * u64::from(stations)) >> 32) as u32;
                                if to != i
                                    && !picked.contains(&to)
                                    && picked.len() < degree as usize
                                {
                                    picked.push(to);
                                }
                            }
                        }
                        let routes = picked.into_iter().map(|to| (to, p)).collect();
                        closed(format!("n{i}"), service, tokens_per_station, routes)
                    })
                    .collect())
            }
        }
    }
}

/// Station i's `degree` routes, `picks[k][i]` for k < degree: distinct, none i, and every
/// station the destination of exactly `degree` (each `picks[k]` starts as a permutation that
/// sorts the stations by a counter-based random key, on every core). The few routes that
/// are a self-loop or repeat another of the same station swap destinations with a random
/// route elsewhere where both stay valid, which keeps every station's count of routes in.
fn regular_graph(stations: u32, degree: u32, seed: u64) -> Result<Vec<Vec<u32>>, PresetError> {
    let key = [seed as u32, (seed >> 32) as u32];
    let word = |i: u32, k: u32, n: u32| pdes_core::rng::philox4x32_10([i, k, n, 0x6A50], key);
    let mut picks: Vec<Vec<u32>> = (0..degree)
        .map(|k| {
            let mut keyed: Vec<(u64, u32)> = (0..stations)
                .into_par_iter()
                .map(|i| {
                    let w = word(i, k, 0);
                    ((u64::from(w[0]) << 32) | u64::from(w[1]), i)
                })
                .collect();
            keyed.par_sort_unstable();
            keyed.into_iter().map(|(_, i)| i).collect()
        })
        .collect();
    // route k of station i may lead to `to`: not i, and none of i's other routes does
    let valid = |picks: &[Vec<u32>], i: u32, k: usize, to: u32| {
        to != i
            && picks
                .iter()
                .enumerate()
                .all(|(m, other)| m == k || other[i as usize] != to)
    };
    let edges = u64::from(stations) * u64::from(degree);
    for k in 0..degree as usize {
        for i in 0..stations {
            let mut attempt = 1u32;
            while !valid(&picks, i, k, picks[k][i as usize]) {
                // bounded: a tiny, dense graph may have no way out from this seed
                // (a few attempts each in practice; the bound, in 64 bits, only ends a search
                // that cannot succeed)
                if u64::from(attempt) > 64 * u64::from(stations.max(64)) * u64::from(degree)
                    || attempt == u32::MAX
                {
                    return Err(key_err(
                        "model.shape",
                        format!(
                            "no regular graph of {stations} stations and degree {degree} was found from seed {seed}; try another seed or a smaller degree"
                        ),
                    ));
                }
                let w = word(i, k as u32 + degree, attempt);
                attempt += 1;
                let e = (u64::from(w[0]) * edges) >> 32;
                let (j, m) = (
                    (e / u64::from(degree)) as u32,
                    (e % u64::from(degree)) as usize,
                );
                let (mine, theirs) = (picks[k][i as usize], picks[m][j as usize]);
                if j != i && valid(&picks, i, k, theirs) && valid(&picks, j, m, mine) {
                    picks[k][i as usize] = theirs;
                    picks[m][j as usize] = mine;
                }
            }
        }
    }
    Ok(picks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_degrees(shape: &Shape, stations: usize) -> Vec<u32> {
        let mut into = vec![0u32; stations];
        for (i, st) in shape.stations().unwrap().iter().enumerate() {
            let routes = st.resolved.as_ref().unwrap();
            let mut to: Vec<u32> = routes.iter().map(|&(t, _)| t).collect();
            to.sort_unstable();
            to.dedup();
            assert_eq!(
                to.len(),
                routes.len(),
                "station {i} routes twice to one station"
            );
            assert!(!to.contains(&(i as u32)), "station {i} routes to itself");
            for t in to {
                into[t as usize] += 1;
            }
        }
        into
    }

    fn random(stations: u32, degree: u32, regular: bool) -> Shape {
        Shape::Random {
            stations,
            degree,
            tokens_per_station: 1,
            service: shifted(),
            seed: 3,
            regular,
        }
    }

    #[test]
    fn a_regular_random_graph_leads_exactly_degree_routes_into_every_station() {
        for (n, d) in [(5000, 4), (3, 2), (7, 6), (64, 1)] {
            let into = in_degrees(&random(n, d, true), n as usize);
            assert!(
                into.iter().all(|&k| k == d),
                "{n} stations, degree {d}: {into:?}"
            );
        }
        // without `regular` the routes into a station vary (what the flag changes)
        let into = in_degrees(&random(5000, 4, false), 5000);
        assert!(into.iter().any(|&k| k != 4));
    }
}
