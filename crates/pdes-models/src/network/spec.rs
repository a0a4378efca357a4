//! The validated network: stations with their servers, service, external arrivals,
//! population and routes, the routes as alias tables for exact draws, and every refusal of
//! issue 55 §6 — each naming the station and the rule, before any run.

use super::service::Service;
use crate::config::{PresetError, key_err};
use std::collections::HashMap;
use std::sync::Arc;

/// The most servers at one station (a step orders a station's departures within it).
pub const MAX_SERVERS: u32 = 64;
/// The most stations of a network: 8,191 segments of 2,048, so that the GPU's depart pass
/// (8 workgroups a segment) fits the 65,535 workgroups of one dispatch dimension that every
/// adapter allows (16,775,168; the stations' records reach a 2 GiB binding before).
pub const MAX_STATIONS: usize = 8191 * 2048;
/// How far a station's route probabilities may sum from 1.
pub const ROUTE_TOLERANCE: f64 = 1e-9;
/// Where a route leads: a station's index, or [`EXIT`].
pub const EXIT: u32 = u32::MAX;

/// A station's routes after service: (station index or [`EXIT`], probability). Stations
/// with the same routes may hold one list — a tandem's last stations all route to every
/// line's first, 16,384 lists of 16,385 routes otherwise (4 GiB) — and every pass over the
/// routes goes over the distinct lists ([`Network::route_lists`]).
pub type Routes = Arc<[(u32, f64)]>;

/// One station, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Station {
    /// Its name (unique).
    pub name: String,
    /// Servers (FCFS, one queue).
    pub servers: u32,
    /// Service-time distribution.
    pub service: Service,
    /// External Poisson arrivals per time unit (0: none).
    pub arrival_rate: f64,
    /// Tokens at the station at time 0.
    pub population: u32,
    /// Routes after service, in the file's order (shared with other stations where a
    /// generated shape gave them one list).
    pub routes: Routes,
}

impl Station {
    /// The probability of leaving the network after service here.
    pub fn exit_probability(&self) -> f64 {
        exit_share(&self.routes)
    }
}

fn exit_share(routes: &[(u32, f64)]) -> f64 {
    routes
        .iter()
        .filter(|(d, _)| *d == EXIT)
        .map(|(_, p)| p)
        .sum()
}

/// Rows of values in one array (compressed sparse rows): row `r` is
/// `values[start[r] .. start[r + 1]]`. A vector a row cost a million stations' checks and
/// traffic equations three times as long.
pub(crate) struct Flat<T> {
    start: Vec<u32>,
    values: Vec<T>,
}

impl<T: Copy + Default> Flat<T> {
    /// `rows` rows holding the `(row, value)` pairs, each row in the pairs' order.
    pub(crate) fn of(rows: usize, pairs: impl Iterator<Item = (u32, T)> + Clone) -> Self {
        let mut start = vec![0u32; rows + 1];
        for (r, _) in pairs.clone() {
            start[r as usize + 1] += 1;
        }
        for r in 0..rows {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut values = vec![T::default(); start[rows] as usize];
        for (r, v) in pairs {
            values[fill[r as usize] as usize] = v;
            fill[r as usize] += 1;
        }
        Self { start, values }
    }

    /// Row `r`.
    pub(crate) fn row(&self, r: u32) -> &[T] {
        &self.values[self.start[r as usize] as usize..self.start[r as usize + 1] as usize]
    }
}

/// The routes of every list, as (destination, (list, probability)) pairs, exits left out.
pub(crate) fn routes_into(lists: &RouteLists) -> impl Iterator<Item = (u32, (u32, f64))> + Clone {
    lists.lists.iter().enumerate().flat_map(|(l, list)| {
        list.iter()
            .filter(|r| r.0 != EXIT)
            .map(move |&(d, p)| (d, (l as u32, p)))
    })
}

/// The distinct route lists of a network, in the order of their first station, and which
/// one each station holds.
#[derive(Clone, Debug)]
pub struct RouteLists {
    /// The lists.
    pub lists: Vec<Routes>,
    /// Station `s` holds `lists[of_station[s]]`.
    pub of_station: Vec<u32>,
    /// How many stations hold each list.
    pub holders: Vec<u32>,
}

/// A validated network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// Its stations; a station's index is its place here.
    pub stations: Vec<Station>,
}

/// A route as written: the destination's name (or "exit") and its probability.
pub type RouteSpec = (String, f64);

/// A station as written, before the names are resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct StationSpec {
    /// Name.
    pub name: String,
    /// Servers.
    pub servers: u32,
    /// Service.
    pub service: Service,
    /// External arrival rate (absent: none).
    pub arrival_rate: Option<f64>,
    /// Tokens at start (absent: none).
    pub population: Option<u32>,
    /// Routes by name.
    pub routes: Vec<RouteSpec>,
    /// Routes by station index (or [`EXIT`]), for a generated shape: its names need no
    /// lookup (resolving a million names cost seconds), and they are unique by construction;
    /// stations given one list keep sharing it.
    pub resolved: Option<Routes>,
}

fn refuse(station: &str, rule: impl Into<String>) -> PresetError {
    key_err(&format!("model.station \"{station}\""), rule)
}

/// Which list this is: its address (lists are compared as the same allocation).
fn list_key(list: &Routes) -> usize {
    Arc::as_ptr(list) as *const () as usize
}

/// A generated list's routes checked one by one (probability and destination), those of
/// probability 0 left out; the list itself, still shared, when none is.
fn checked_list(list: &Routes, n: usize) -> Result<Routes, String> {
    for &(dest, p) in list.iter() {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) || (dest != EXIT && dest as usize >= n) {
            return Err(format!(
                "a generated route to station {dest} with probability {p}"
            ));
        }
    }
    Ok(if list.iter().all(|r| r.1 > 0.0) {
        list.clone()
    } else {
        list.iter().copied().filter(|r| r.1 > 0.0).collect()
    })
}

fn check_sum(sum: f64) -> Result<(), String> {
    if (sum - 1.0).abs() > ROUTE_TOLERANCE {
        return Err(format!(
            "its routes' probabilities sum to {sum}: they must sum to 1 (write exit = … for the share that leaves)"
        ));
    }
    Ok(())
}

/// A generated list checked whole: each route, then the sum.
fn checked_whole(list: &Routes, n: usize) -> Result<Routes, String> {
    let checked = checked_list(list, n)?;
    check_sum(checked.iter().map(|r| r.1).sum())?;
    Ok(checked)
}

/// Every generated list that several stations share (of stations without named routes),
/// checked once; a list one station holds alone is checked with that station.
fn resolved_lists(specs: &[StationSpec]) -> HashMap<usize, Result<Routes, String>> {
    let mut lists = HashMap::new();
    for s in specs.iter().filter(|s| s.routes.is_empty()) {
        if let Some(list) = s.resolved.as_ref().filter(|l| Arc::strong_count(l) > 1) {
            lists
                .entry(list_key(list))
                .or_insert_with(|| checked_whole(list, specs.len()));
        }
    }
    lists
}

impl Network {
    /// Resolves and checks `specs`: names, servers, services, rates, routes, then the
    /// network as a whole (exits reachable, stations reachable, stability, population).
    pub fn validate(specs: Vec<StationSpec>) -> Result<Self, PresetError> {
        if specs.is_empty() {
            return Err(key_err(
                "model.station",
                "the network has no stations: write at least one [[model.station]] table (name, servers, service, routes), or a model.shape",
            ));
        }
        if specs.len() > MAX_STATIONS {
            return Err(key_err(
                "model.station",
                format!(
                    "a network of at most {MAX_STATIONS} stations; this one has {}",
                    specs.len()
                ),
            ));
        }
        let mut index = std::collections::HashMap::new();
        let generated = specs.iter().all(|s| s.resolved.is_some());
        for (i, s) in specs.iter().enumerate().filter(|_| !generated) {
            if s.name.is_empty() || s.name == "exit" {
                return Err(key_err(
                    "model.station",
                    format!(
                        "station {} has the name {:?}: a station needs a name other than \"exit\" (routes use \"exit\" for leaving)",
                        i + 1,
                        s.name
                    ),
                ));
            }
            if index.insert(s.name.as_str(), i as u32).is_some() {
                return Err(refuse(
                    &s.name,
                    "two stations have this name: each name must be unique",
                ));
            }
        }
        // a station's checks on each core (a million generated stations: a quarter of a
        // second on one); the first refusal in the stations' order is the one reported
        use rayon::prelude::*;
        let lists = resolved_lists(&specs);
        let checked: Vec<Result<Station, PresetError>> = specs
            .par_iter()
            .map(|s| Self::station(s, &index, &lists, specs.len()))
            .collect();
        let stations = checked.into_iter().collect::<Result<Vec<_>, _>>()?;
        // the network alone holds its lists now ([`Network::route_lists`] reads a list with
        // one holder as a station's own)
        drop(index);
        drop(lists);
        drop(specs);
        let net = Self { stations };
        net.check_whole()?;
        Ok(net)
    }

    fn station(
        s: &StationSpec,
        index: &HashMap<&str, u32>,
        lists: &HashMap<usize, Result<Routes, String>>,
        n: usize,
    ) -> Result<Station, PresetError> {
        if !(1..=MAX_SERVERS).contains(&s.servers) {
            return Err(refuse(
                &s.name,
                format!(
                    "servers must be a whole number from 1 to {MAX_SERVERS}; got {}",
                    s.servers
                ),
            ));
        }
        if let Some(why) = s.service.refusal() {
            return Err(refuse(
                &s.name,
                format!("service ({}): {why}", s.service.name()),
            ));
        }
        let arrival_rate = s.arrival_rate.unwrap_or(0.0);
        if !(arrival_rate.is_finite() && (0.0..=1e6).contains(&arrival_rate))
            || s.arrival_rate == Some(0.0)
        {
            return Err(refuse(
                &s.name,
                format!(
                    "arrival_rate must be a number above 0 and at most 1,000,000 (leave it out for no arrivals); got {arrival_rate}"
                ),
            ));
        }
        let routes = match &s.resolved {
            // a generated list, checked once however many stations hold it
            Some(list) if s.routes.is_empty() => match lists.get(&list_key(list)) {
                Some(checked) => checked.clone(),
                None => checked_whole(list, n),
            }
            .map_err(|rule| refuse(&s.name, rule))?,
            _ => Self::named_routes(s, index, n)?,
        };
        Ok(Station {
            name: s.name.clone(),
            servers: s.servers,
            service: s.service,
            arrival_rate,
            population: s.population.unwrap_or(0),
            routes,
        })
    }

    /// A station's routes as the file names them (and any generated ones beside them).
    fn named_routes(
        s: &StationSpec,
        index: &HashMap<&str, u32>,
        n: usize,
    ) -> Result<Routes, PresetError> {
        let mut routes = Vec::with_capacity(s.routes.len());
        let mut sum = 0.0;
        if let Some(list) = &s.resolved {
            let checked = checked_list(list, n).map_err(|rule| refuse(&s.name, rule))?;
            sum += checked.iter().map(|r| r.1).sum::<f64>();
            routes.extend_from_slice(&checked);
        }
        for (to, p) in &s.routes {
            if !(p.is_finite() && (0.0..=1.0).contains(p)) {
                return Err(refuse(
                    &s.name,
                    format!(
                        "the route to {to} has probability {p}: each must be a number from 0 to 1"
                    ),
                ));
            }
            let dest = if to == "exit" {
                EXIT
            } else {
                *index.get(to.as_str()).ok_or_else(|| {
                    refuse(
                        &s.name,
                        format!("routes to {to:?}, which is no station of this network (the stations are named in [[model.station]]; \"exit\" leaves)"),
                    )
                })?
            };
            sum += p;
            if *p > 0.0 {
                routes.push((dest, *p));
            }
        }
        check_sum(sum).map_err(|rule| refuse(&s.name, rule))?;
        Ok(routes.into())
    }

    /// The rules over the whole network.
    fn check_whole(&self) -> Result<(), PresetError> {
        let open = self.is_open();
        let tokens: u64 = self.stations.iter().map(|s| u64::from(s.population)).sum();
        if !open && tokens == 0 {
            return Err(key_err(
                "model.station",
                "a closed network (no station has an arrival_rate) needs tokens: give some station a population",
            ));
        }
        if !open && let Some(s) = self.stations.iter().find(|s| s.exit_probability() > 0.0) {
            return Err(refuse(
                &s.name,
                format!(
                    "routes to exit (probability {}) in a closed network (no station has an arrival_rate): its tokens would drain away; give some station an arrival_rate or route elsewhere",
                    s.exit_probability()
                ),
            ));
        }
        // every station must be reachable from an arrival or a token
        let starts: Vec<u32> = (0..self.stations.len() as u32)
            .filter(|&i| {
                let s = &self.stations[i as usize];
                s.arrival_rate > 0.0 || s.population > 0
            })
            .collect();
        let reached = self.reachable(&starts);
        if let Some(i) = reached.iter().position(|r| !r) {
            return Err(refuse(
                &self.stations[i].name,
                "no arrival and no token can ever reach it: route to it, or give it an arrival_rate or a population",
            ));
        }
        if open {
            let trapped = self.trapped();
            if !trapped.is_empty() {
                let names: Vec<&str> = trapped
                    .iter()
                    .take(8)
                    .map(|&i| self.stations[i].name.as_str())
                    .collect();
                return Err(refuse(
                    names[0],
                    format!(
                        "customers who reach {} can never exit: an open network needs a way to exit from every station ({} station{} trapped)",
                        names.join(", "),
                        trapped.len(),
                        if trapped.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
            let lambda = super::analytic::traffic(self);
            for (s, l) in self.stations.iter().zip(&lambda) {
                let rho = l * s.service.mean() / f64::from(s.servers);
                if rho >= 1.0 {
                    return Err(refuse(
                        &s.name,
                        format!(
                            "unstable: its arrivals λ = {l:.6} per time unit (the traffic equations) need ρ = λ·mean/servers = {rho:.4} below 1; lower the arrival rates or add servers"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// True when some station has external arrivals.
    pub fn is_open(&self) -> bool {
        self.stations.iter().any(|s| s.arrival_rate > 0.0)
    }

    /// Which stations can be reached from `starts` along routes of positive probability.
    pub fn reachable(&self, starts: &[u32]) -> Vec<bool> {
        let lists = self.route_lists();
        let mut seen = vec![false; self.stations.len()];
        let mut expanded = vec![false; lists.lists.len()];
        let mut todo: Vec<u32> = starts.to_vec();
        for &s in starts {
            seen[s as usize] = true;
        }
        while let Some(s) = todo.pop() {
            // a shared list leads where it leads once
            let l = lists.of_station[s as usize] as usize;
            if std::mem::replace(&mut expanded[l], true) {
                continue;
            }
            for &(d, _) in lists.lists[l].iter() {
                if d != EXIT && !seen[d as usize] {
                    seen[d as usize] = true;
                    todo.push(d);
                }
            }
        }
        seen
    }

    /// The stations from which no route leads to exit: backwards from the lists with an
    /// exit, through the stations that hold a list and the lists that lead to them.
    fn trapped(&self) -> Vec<usize> {
        let lists = self.route_lists();
        let n = self.stations.len();
        // the lists that lead into each station, and the stations that hold each list, as
        // flat arrays (a vector each made this a fifth of a million stations' validation)
        let into = Flat::of(n, routes_into(&lists).map(|(d, (l, _))| (d, l)));
        let held_by = Flat::of(
            lists.lists.len(),
            lists
                .of_station
                .iter()
                .enumerate()
                .map(|(s, &l)| (l, s as u32)),
        );
        let mut escapes = vec![false; lists.lists.len()];
        let mut todo: Vec<u32> = (0..lists.lists.len() as u32)
            .filter(|&l| exit_share(&lists.lists[l as usize]) > 0.0)
            .collect();
        for &l in &todo {
            escapes[l as usize] = true;
        }
        while let Some(l) = todo.pop() {
            for &s in held_by.row(l) {
                for &before in into.row(s) {
                    if !std::mem::replace(&mut escapes[before as usize], true) {
                        todo.push(before);
                    }
                }
            }
        }
        (0..n)
            .filter(|&s| !escapes[lists.of_station[s] as usize])
            .collect()
    }

    /// The distinct route lists and which station holds which (a station's own list, or
    /// one it shares with others).
    pub fn route_lists(&self) -> RouteLists {
        let mut at: HashMap<usize, u32> = HashMap::new();
        let mut r = RouteLists {
            lists: Vec::new(),
            of_station: Vec::with_capacity(self.stations.len()),
            holders: Vec::new(),
        };
        for s in &self.stations {
            let mut add = || {
                r.lists.push(s.routes.clone());
                r.holders.push(0);
                r.lists.len() as u32 - 1
            };
            // a list nothing else holds is this station's own: no lookup (a million
            // lookups were a tenth of a validation's time)
            let l = if Arc::strong_count(&s.routes) == 1 {
                add()
            } else {
                *at.entry(list_key(&s.routes)).or_insert_with(add)
            };
            r.holders[l as usize] += 1;
            r.of_station.push(l);
        }
        r
    }

    /// Routes in all, each shared list counted once (what the alias tables hold).
    pub fn distinct_routes(&self) -> u64 {
        self.route_lists()
            .lists
            .iter()
            .map(|l| l.len() as u64)
            .sum()
    }

    /// Servers in all.
    pub fn servers(&self) -> u64 {
        self.stations.iter().map(|s| u64::from(s.servers)).sum()
    }

    /// Tokens at time 0.
    pub fn population(&self) -> u64 {
        self.stations.iter().map(|s| u64::from(s.population)).sum()
    }

    /// The stations with external arrivals, in order (the sources).
    pub fn sources(&self) -> Vec<u32> {
        (0..self.stations.len() as u32)
            .filter(|&i| self.stations[i as usize].arrival_rate > 0.0)
            .collect()
    }

    /// The smallest guaranteed service and its station: what bounds the window's d.
    pub fn shortest_service(&self) -> (f64, &str) {
        self.stations
            .iter()
            .map(|s| (s.service.minimum(), s.name.as_str()))
            .fold((f64::INFINITY, ""), |a, b| if b.0 < a.0 { b } else { a })
    }
}
