//! Routes drawn exactly alike on every engine: each station's routes as an alias table
//! (Walker's method, built by Vose's algorithm once on the CPU) in integers — a column from
//! one random word by multiply-high, then the column's threshold against a second word —
//! and the Philox words of a visit and of an external arrival.

use super::spec::{EXIT, Network};
use pdes_core::rng::philox4x32_10;

/// Every route list's alias table, flattened: station `s`'s columns are `first[s] ..
/// first[s] + count[s]` (stations that share a list share its columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteTables {
    /// Each station's first column.
    pub first: Vec<u32>,
    /// Each station's columns.
    pub count: Vec<u32>,
    /// A column's own outcome (a station's index, or [`EXIT`]).
    pub outcome: Vec<u32>,
    /// A column's alias outcome.
    pub alias: Vec<u32>,
    /// The column keeps its own outcome when the threshold word is below this.
    pub threshold: Vec<u32>,
}

impl RouteTables {
    /// The tables of `net`, a list's on each core (at 10⁶ stations one core took a tenth
    /// of a second, before every GPU run and again for its read-back).
    pub fn new(net: &Network) -> Self {
        use rayon::prelude::*;
        let lists = net.route_lists();
        let mut list_first = Vec::with_capacity(lists.lists.len());
        let mut n = 0u32;
        for list in &lists.lists {
            list_first.push(n);
            n += list.len() as u32;
        }
        let columns: Vec<[u32; 3]> = lists
            .lists
            .par_iter()
            .flat_map_iter(|list| Self::station_columns(list))
            .collect();
        let (first, count) = lists
            .of_station
            .iter()
            .map(|&l| (list_first[l as usize], lists.lists[l as usize].len() as u32))
            .unzip();
        Self {
            first,
            count,
            outcome: columns.iter().map(|c| c[0]).collect(),
            alias: columns.iter().map(|c| c[1]).collect(),
            threshold: columns.iter().map(|c| c[2]).collect(),
        }
    }

    /// Vose's algorithm on one station's routes: its columns (outcome, alias, threshold).
    fn station_columns(routes: &[(u32, f64)]) -> Vec<[u32; 3]> {
        let n = routes.len();
        let total: f64 = routes.iter().map(|r| r.1).sum();
        let mut scaled: Vec<f64> = routes.iter().map(|r| r.1 / total * n as f64).collect();
        let mut alias: Vec<usize> = (0..n).collect();
        let mut keep = vec![1.0f64; n];
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            keep[s] = scaled[s];
            alias[s] = l;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // what is left keeps itself (rounding leaves columns at 1 − ε)
        (0..n)
            .map(|i| {
                let threshold = if keep[i] >= 1.0 {
                    u32::MAX
                } else {
                    (keep[i] * 4_294_967_296.0).round().min(f64::from(u32::MAX)) as u32
                };
                [routes[i].0, routes[alias[i]].0, threshold]
            })
            .collect()
    }

    /// Where a token goes after service at `station`, from a visit's words 0 and 1.
    #[inline]
    pub fn draw(&self, station: u32, words: &[u32; 4]) -> u32 {
        let (first, n) = (self.first[station as usize], self.count[station as usize]);
        let column = first + ((u64::from(words[0]) * u64::from(n)) >> 32) as u32;
        let c = column as usize;
        // a full column's alias is itself: `<` against u32::MAX only misses 2^-32
        if words[1] < self.threshold[c] || self.alias[c] == self.outcome[c] {
            self.outcome[c]
        } else {
            self.alias[c]
        }
    }
}

/// Philox key word that separates external arrivals from visits.
const ARRIVAL_STREAM: u32 = 0x5E7A_11A5;

/// The counter and key of visit `visit` of token `token` (its words are Philox of them;
/// an Erlang service takes more words from the same counter with its last word raised).
#[inline]
pub fn visit_counter(seed: u64, token: u64, visit: u32) -> ([u32; 4], [u32; 2]) {
    (
        [visit, (token >> 32) as u32, (seed >> 32) as u32, 0],
        [token as u32, seed as u32],
    )
}

/// The four random words of a visit: 0 and 1 draw the route, 2 and 3 the service.
#[inline]
pub fn visit_words(seed: u64, token: u64, visit: u32) -> [u32; 4] {
    let (c, k) = visit_counter(seed, token, visit);
    philox4x32_10(c, k)
}

/// The words of the `k`-th external arrival at source `source` (word 0 draws the gap).
#[inline]
pub fn arrival_words(seed: u64, source: u32, k: u64) -> [u32; 4] {
    philox4x32_10(
        [
            k as u32,
            (k >> 32) as u32,
            (seed >> 32) as u32,
            0x8000_0000 | source,
        ],
        [ARRIVAL_STREAM, seed as u32],
    )
}

/// True when `to` leaves the network.
#[inline]
pub fn exits(to: u32) -> bool {
    to == EXIT
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::service::Service;
    use crate::network::spec::Station;

    fn net(routes: Vec<(u32, f64)>) -> Network {
        let station = |routes| Station {
            name: "s".into(),
            servers: 1,
            service: Service::Exponential { mean: 1.0 },
            arrival_rate: 1.0,
            population: 0,
            routes,
        };
        Network {
            stations: vec![station(routes.into()), station([(EXIT, 1.0)].into())],
        }
    }

    /// Every column's share, summed over the 2^32 × 2^32 word pairs, is the route's
    /// probability within 2^-31 (thresholds are rounded to 2^-32).
    #[test]
    fn the_alias_table_gives_each_route_its_probability() {
        let routes = vec![(1, 0.1), (EXIT, 0.25), (0, 0.65)];
        let t = RouteTables::new(&net(routes.clone()));
        let n = routes.len();
        let mut share = std::collections::HashMap::new();
        for c in 0..n {
            let keep = f64::from(t.threshold[c]) / 4_294_967_296.0;
            let keep = if t.alias[c] == t.outcome[c] {
                1.0
            } else {
                keep
            };
            *share.entry(t.outcome[c]).or_insert(0.0) += keep / n as f64;
            *share.entry(t.alias[c]).or_insert(0.0) += (1.0 - keep) / n as f64;
        }
        for (to, p) in routes {
            assert!((share[&to] - p).abs() < 1e-9, "{to}: {} vs {p}", share[&to]);
        }
    }

    /// Draws with a counter-based stream land on each route as often as its probability
    /// says (100,000 draws, 5 standard deviations).
    #[test]
    fn draws_follow_the_probabilities() {
        let routes = vec![(1, 1.0 / 3.0), (EXIT, 2.0 / 3.0)];
        let t = RouteTables::new(&net(routes));
        let n = 100_000;
        let to_one = (0..n)
            .filter(|&k| t.draw(0, &visit_words(7, k, 0)) == 1)
            .count() as f64;
        let sd = (f64::from(n as u32) * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
        assert!((to_one - n as f64 / 3.0).abs() < 5.0 * sd, "{to_one}");
    }
}
