//! The network's token books: the population placed at time 0, each station's queue length
//! and live sum counted from its tokens, and the check that every token is in exactly one
//! place — the parts of [`NetState`] that walk every token, each station on its own core.

use super::routes::{visit_counter, visit_words};
use super::spec::Network;
use super::state::{NONE, NetState, Server, Token};

impl NetState {
    /// Every station's population arriving at time 0 into an empty state, as
    /// [`NetState::arrive`] would take them one after another in id order (ids station by
    /// station, each in the pool slot of its number): station s's first min(p, c) tokens
    /// start service on its servers in order (all idle since 0), the rest queue in order.
    /// Station by station on every core: at 10⁶ stations the one-by-one loop was a third of
    /// a second before every run and every read-back (a unit test holds the two equal).
    pub(super) fn place_population(&mut self, net: &Network) {
        use rayon::prelude::*;
        let mut base = Vec::with_capacity(net.stations.len());
        let mut id = 0u64;
        for st in &net.stations {
            base.push(id);
            id += u64::from(st.population);
        }
        let population = |s: usize| net.stations[s].population;
        let first = &self.first_server;
        let servers = |s: usize| first[s + 1] - first[s];
        self.tokens = (0..net.stations.len())
            .into_par_iter()
            .flat_map_iter(|s| {
                let (b, p, c) = (base[s], population(s), servers(s));
                (0..p).map(move |i| Token {
                    id: b + u64::from(i),
                    entered: 0,
                    arrived: 0,
                    visits: 0,
                    // a queued token (past the servers) links to the next one
                    next: if i >= c && i + 1 < p {
                        (b + u64::from(i) + 1) as u32
                    } else {
                        NONE
                    },
                })
            })
            .collect();
        let warmup = u128::from(self.warmup);
        self.stations
            .par_iter_mut()
            .enumerate()
            .for_each(|(s, st)| {
                let (b, p, c) = (base[s], population(s), servers(s));
                st.present = p;
                st.live_arrived = u128::from(p) * warmup;
                if p > c {
                    st.head = (b + u64::from(c)) as u32;
                    st.tail = (b + u64::from(p) - 1) as u32;
                    st.queued = p - c;
                }
            });
        let (seed, tokens, service) = (self.seed, &self.tokens, &self.service);
        let station_of = |k: usize| (first.partition_point(|&f| f as usize <= k) - 1) as u32;
        self.servers
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, server)| {
                let s = station_of(k) as usize;
                let i = k as u32 - first[s];
                if i < population(s) {
                    let token = (base[s] + u64::from(i)) as u32;
                    let id = tokens[token as usize].id;
                    let (counter, key) = visit_counter(seed, id, 0);
                    let words = visit_words(seed, id, 0);
                    *server = Server {
                        departure: service[s].sample(&words, counter, key),
                        since: 0,
                        token,
                    };
                }
            });
        self.in_system = self.tokens.len() as u64;
    }

    /// Sets each station's queue length and Σ max(arrival, warm-up) of its tokens present
    /// from its queue and servers (what the GPU engine does not keep: they follow from the
    /// tokens, so that no event pays for them). A queue is followed at most as far as the
    /// pool reaches, so that a broken one ends; [`NetState::check_tokens`] names it.
    pub fn count_queues_and_live(&mut self) {
        use rayon::prelude::*;
        let warmup = self.warmup;
        let (tokens, servers, first) = (&self.tokens, &self.servers, &self.first_server);
        let counted = |t: u32| u128::from(tokens[t as usize].arrived.max(warmup));
        self.stations
            .par_iter_mut()
            .enumerate()
            .for_each(|(s, st)| {
                let (a, b) = (first[s] as usize, first[s + 1] as usize);
                let mut live: u128 = servers[a..b]
                    .iter()
                    .filter(|v| v.token != NONE && (v.token as usize) < tokens.len())
                    .map(|v| counted(v.token))
                    .sum();
                let (mut t, mut n) = (st.head, 0u32);
                while (t as usize) < tokens.len() && n as usize <= tokens.len() {
                    live += counted(t);
                    n += 1;
                    t = tokens[t as usize].next;
                }
                st.queued = n;
                st.live_arrived = live;
            });
    }

    /// Checks that every token is in exactly one place and that arrivals + population −
    /// exits = tokens in the network = tokens found. Station by station on every core (a
    /// token's slot is marked with an atomic swap: the second place to claim it is the one
    /// named); the first fault in the stations' order is the one reported.
    pub fn check_tokens(&self) -> Result<u64, String> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicBool, Ordering};
        let seen: Vec<AtomicBool> = (0..self.tokens.len())
            .map(|_| AtomicBool::new(false))
            .collect();
        // (where a token was found is written out only for the error: a string for each of
        // a million tokens cost more than the check)
        let mark = |t: u32, s: usize, queue: bool| -> Result<(), String> {
            let what = || format!("station {s}{}", if queue { "'s queue" } else { "" });
            let slot = seen
                .get(t as usize)
                .ok_or_else(|| format!("{} holds slot {t} beyond the pool", what()))?;
            if slot.swap(true, Ordering::Relaxed) {
                return Err(format!("token slot {t} is in two places ({})", what()));
            }
            Ok(())
        };
        let per_station: Vec<Result<u64, String>> = self
            .stations
            .par_iter()
            .enumerate()
            .map(|(s, st)| {
                let (a, b) = (self.first_server[s], self.first_server[s + 1]);
                let mut here = 0u32;
                for k in a..b {
                    let t = self.servers[k as usize].token;
                    if t != NONE {
                        mark(t, s, false)?;
                        here += 1;
                    }
                }
                let (mut t, mut n) = (st.head, 0u32);
                while t != NONE && n as usize <= self.tokens.len() {
                    mark(t, s, true)?;
                    n += 1;
                    t = self.tokens[t as usize].next;
                }
                if n != st.queued || here + n != st.present {
                    return Err(format!(
                        "station {s}: {n} queued and {here} in service, counters say {} and {} present",
                        st.queued, st.present
                    ));
                }
                Ok(u64::from(here + n))
            })
            .collect();
        let mut found = 0u64;
        for r in per_station {
            found += r?;
        }
        if found != self.in_system || self.population + self.arrivals - self.exits != found {
            return Err(format!(
                "population {} + arrivals {} − exits {} ≠ tokens found {found} (in system {})",
                self.population, self.arrivals, self.exits, self.in_system
            ));
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::service::Service;
    use crate::network::spec::EXIT;
    use crate::network::spec::Station;
    use pdes_core::time::TICKS_PER_UNIT;

    /// Stations with populations below, at and above their servers, none at all, and a
    /// source among them.
    fn network() -> Network {
        let station = |servers, population, arrival_rate: f64, service| Station {
            name: "s".into(),
            servers,
            service,
            arrival_rate,
            population,
            routes: [(0, 0.5), (EXIT, 0.5)].into(),
        };
        let exp = |mean| Service::Exponential { mean };
        let shifted = Service::Shifted {
            shift: 0.5,
            mean: 1.5,
        };
        Network {
            stations: vec![
                station(3, 7, 0.0, exp(2.0)),
                station(1, 0, 0.0, exp(1.0)),
                station(2, 2, 0.0, shifted),
                station(4, 1, 0.5, exp(3.0)),
                station(1, 5, 0.0, Service::Deterministic { value: 1.2 }),
            ],
        }
    }

    /// The population placed station by station on every core is the state the tokens
    /// arriving at time 0 one after another make, field for field.
    #[test]
    fn the_population_is_placed_as_arrivals_at_time_0_would_place_it() {
        let net = network();
        let warmup = 5 * TICKS_PER_UNIT as u64;
        let mut one_by_one = NetState::empty(&net, 11, warmup);
        let mut id = 0;
        for (s, st) in net.stations.iter().enumerate() {
            for _ in 0..st.population {
                let slot = one_by_one.new_token(id, 0);
                one_by_one.arrive(s as u32, slot, 0);
                id += 1;
            }
        }
        let placed = NetState::new(&net, 11, warmup);
        assert_eq!(placed.tokens, one_by_one.tokens);
        assert_eq!(placed.servers, one_by_one.servers);
        assert_eq!(placed.stations, one_by_one.stations);
        assert_eq!(placed.in_system, one_by_one.in_system);
        assert_eq!(placed.check_tokens(), Ok(15));
    }

    /// The check names a token held in two places, and a queue that lost one.
    #[test]
    fn the_token_check_finds_a_token_in_two_places_and_a_lost_one() {
        let net = network();
        let mut twice = NetState::new(&net, 3, 0);
        // station 0 queues tokens 3..7 behind its three servers: its first server now
        // holds token 4 as well
        twice.servers[0].token = 4;
        let err = twice.check_tokens().unwrap_err();
        assert!(err.contains("token slot 4 is in two places"), "{err}");
        let mut lost = NetState::new(&net, 3, 0);
        lost.tokens[5].next = NONE; // the queue ends after token 5: 6 is lost
        let err = lost.check_tokens().unwrap_err();
        assert!(
            err.contains("station 0: 3 queued and 3 in service"),
            "{err}"
        );
    }
}
