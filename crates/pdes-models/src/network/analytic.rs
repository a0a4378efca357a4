//! Exact values beside the simulation (issue 55 §3): for an open network with Poisson
//! arrivals and exponential service (Jackson), the traffic equations' λᵢ and each station's
//! M/M/c values; for a closed network with exponential service, exact mean value analysis
//! (load-dependent where a station has several servers). Other service laws have none.

use super::spec::{EXIT, Flat, Network, routes_into};

/// One station's exact values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StationValues {
    /// Throughput (arrivals = departures per time unit).
    pub throughput: f64,
    /// Utilization of each server.
    pub utilization: f64,
    /// Mean number at the station (queue and service).
    pub mean_number: f64,
    /// Mean time per visit (queue and service).
    pub mean_sojourn: f64,
}

/// The network's exact values.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// Per station.
    pub stations: Vec<StationValues>,
    /// Mean tokens in the network.
    pub mean_tokens: f64,
    /// Busy fraction over all servers (each station's ρ weighted by its servers).
    pub utilization: f64,
    /// Mean time per visit over all stations (Σ L / Σ throughput).
    pub mean_sojourn: f64,
    /// Mean time from entering to exiting (open networks).
    pub mean_system_time: Option<f64>,
    /// Exits per time unit (open) or completions per time unit over all stations (closed).
    pub throughput: f64,
}

/// The arrival rate at each station from the traffic equations λ = γ + λR (γ the external
/// rates, R the routes among stations), by Gauss–Seidel sweeps until no rate changes by more
/// than 1e-14 relative (or 100,000 sweeps: a validated open network converges long before).
/// A list several stations share carries the sum of their rates (summed at each sweep's
/// start, then kept as each changes), so a sweep costs the distinct lists' routes, not each
/// holder's.
pub fn traffic(net: &Network) -> Vec<f64> {
    let n = net.stations.len();
    let lists = net.route_lists();
    // λ_j = γ_j + Σ_l w_l r_lj, w_l the rates of the stations holding list l
    let into = Flat::of(n, routes_into(&lists));
    let gamma: Vec<f64> = net.stations.iter().map(|s| s.arrival_rate).collect();
    let mut lambda = gamma.clone();
    let mut held = vec![0.0f64; lists.lists.len()];
    for _ in 0..100_000 {
        // summed afresh each sweep: kept only by the changes, 16,384 holders' rounding
        // errors moved a shared list's rate by more than the 1e-14 that ends the sweeps
        held.fill(0.0);
        for (j, &l) in lists.of_station.iter().enumerate() {
            held[l as usize] += lambda[j];
        }
        let mut settled = true;
        for j in 0..n {
            let v = gamma[j]
                + into
                    .row(j as u32)
                    .iter()
                    .map(|&(l, p)| held[l as usize] * p)
                    .sum::<f64>();
            settled &= (v - lambda[j]).abs() < 1e-14 * v.abs();
            let l = lists.of_station[j] as usize;
            // a list of one station holds its rate exactly (no sum to drift)
            held[l] = if lists.holders[l] == 1 {
                v
            } else {
                held[l] + (v - lambda[j])
            };
            lambda[j] = v;
        }
        if settled {
            break;
        }
    }
    lambda
}

/// The M/M/c values of a station with arrival rate `lambda`, mean service `mean` and `c`
/// servers (Erlang's C formula for the chance to wait).
pub fn mmc(lambda: f64, mean: f64, c: u32) -> StationValues {
    let a = lambda * mean; // offered load
    let rho = a / f64::from(c);
    // Σ_{k<c} a^k/k! and a^c/c!, by the recurrence of the terms
    let (mut sum, mut term) = (0.0f64, 1.0f64);
    for k in 0..c {
        sum += term;
        term *= a / f64::from(k + 1);
    }
    let wait = term / (1.0 - rho) / (sum + term / (1.0 - rho));
    let lq = wait * rho / (1.0 - rho);
    let l = lq + a;
    StationValues {
        throughput: lambda,
        utilization: rho,
        mean_number: l,
        mean_sojourn: if lambda > 0.0 { l / lambda } else { 0.0 },
    }
}

/// The exact values of `net`, or why there are none (a service that is not exponential; a
/// closed network too large for exact MVA).
pub fn values(net: &Network) -> Result<Values, String> {
    if let Some(s) = net.stations.iter().find(|s| !s.service.is_exponential()) {
        return Err(format!(
            "no exact value: station {} has {} service (Jackson's and MVA's values need exponential service everywhere); compare with sequential runs of the same seeds",
            s.name,
            s.service.name()
        ));
    }
    if net.is_open() {
        Ok(jackson(net))
    } else {
        mva(net)
    }
}

/// Jackson's product form: every station an M/M/c queue at its traffic-equation rate.
fn jackson(net: &Network) -> Values {
    let lambda = traffic(net);
    let stations: Vec<StationValues> = net
        .stations
        .iter()
        .zip(&lambda)
        .map(|(s, &l)| mmc(l, s.service.mean(), s.servers))
        .collect();
    let mean_tokens: f64 = stations.iter().map(|v| v.mean_number).sum();
    let entering: f64 = net.stations.iter().map(|s| s.arrival_rate).sum();
    Values {
        utilization: utilization(net, &stations),
        mean_sojourn: mean_tokens / stations.iter().map(|v| v.throughput).sum::<f64>(),
        stations,
        mean_tokens,
        // Little's law over the whole network
        mean_system_time: Some(mean_tokens / entering),
        throughput: entering,
    }
}

/// Each station's ρ weighted by its servers.
fn utilization(net: &Network, stations: &[StationValues]) -> f64 {
    let busy: f64 = net
        .stations
        .iter()
        .zip(stations)
        .map(|(s, v)| v.utilization * f64::from(s.servers))
        .sum();
    busy / net.servers() as f64
}

/// The most (tokens × multi-server work) exact MVA is asked to do here.
const MVA_BUDGET: f64 = 2e8;

/// Exact mean value analysis of a closed network: single-server stations by Reiser and
/// Lavenberg's recursion, stations with c > 1 by the load-dependent recursion over their
/// marginal queue-length probabilities (service rate min(j, c)/mean with j present).
fn mva(net: &Network) -> Result<Values, String> {
    let n = net.stations.len();
    let tokens = net.population() as usize;
    let multi: usize = net.stations.iter().filter(|s| s.servers > 1).count();
    let work = tokens as f64 * n as f64 + (tokens as f64).powi(2) * multi as f64;
    if work > MVA_BUDGET {
        return Err(format!(
            "no exact value computed: exact MVA of {tokens} tokens over {n} stations is too much work here ({work:.1e} steps; at most {MVA_BUDGET:.0e})"
        ));
    }
    let visits = visit_ratios(net);
    let mean: Vec<f64> = net.stations.iter().map(|s| s.service.mean()).collect();
    let mut queue = vec![0.0f64; n]; // Q_i(k−1)
    // p_i(j | k−1) for the multi-server stations
    let mut marginal: Vec<Vec<f64>> = net
        .stations
        .iter()
        .map(|s| if s.servers > 1 { vec![1.0] } else { Vec::new() })
        .collect();
    let mut throughput = 0.0;
    let mut wait = vec![0.0f64; n];
    for k in 1..=tokens {
        for i in 0..n {
            let c = net.stations[i].servers;
            wait[i] = if c == 1 {
                mean[i] * (1.0 + queue[i])
            } else {
                (1..=k)
                    .map(|j| {
                        let rate = f64::from((j as u32).min(c)) / mean[i];
                        j as f64 / rate * marginal[i].get(j - 1).copied().unwrap_or(0.0)
                    })
                    .sum()
            };
        }
        let cycle: f64 = (0..n).map(|i| visits[i] * wait[i]).sum();
        throughput = k as f64 / cycle;
        for i in 0..n {
            queue[i] = throughput * visits[i] * wait[i];
            let c = net.stations[i].servers;
            if c > 1 {
                let before = std::mem::take(&mut marginal[i]);
                let mut now = vec![0.0f64; k + 1];
                for (j, p) in now.iter_mut().enumerate().skip(1) {
                    let rate = f64::from((j as u32).min(c)) / mean[i];
                    *p = throughput * visits[i] / rate * before.get(j - 1).copied().unwrap_or(0.0);
                }
                now[0] = (1.0 - now[1..].iter().sum::<f64>()).max(0.0);
                marginal[i] = now;
            }
        }
    }
    let stations = (0..n)
        .map(|i| {
            let x = throughput * visits[i];
            StationValues {
                throughput: x,
                utilization: x * mean[i] / f64::from(net.stations[i].servers),
                mean_number: queue[i],
                mean_sojourn: if x > 0.0 { queue[i] / x } else { 0.0 },
            }
        })
        .collect::<Vec<_>>();
    let total: f64 = stations.iter().map(|v| v.throughput).sum();
    Ok(Values {
        utilization: utilization(net, &stations),
        mean_sojourn: tokens as f64 / total,
        stations,
        mean_tokens: tokens as f64,
        mean_system_time: None,
        throughput: total,
    })
}

/// The relative visit rates of a closed network: the stationary distribution of its
/// routing chain (a lazy power iteration, which also converges on periodic chains such as a
/// ring), scaled so that the rates sum to the number of stations.
fn visit_ratios(net: &Network) -> Vec<f64> {
    let n = net.stations.len();
    let mut v = vec![1.0 / n as f64; n];
    let lists = net.route_lists();
    for _ in 0..1_000_000 {
        // what each list carries (the visits of the stations that hold it), then its routes
        let mut held = vec![0.0f64; lists.lists.len()];
        for (i, &l) in lists.of_station.iter().enumerate() {
            held[l as usize] += v[i];
        }
        let mut next = vec![0.0f64; n];
        for (list, w) in lists.lists.iter().zip(&held) {
            for &(d, p) in list.iter() {
                if d != EXIT {
                    next[d as usize] += w * p;
                }
            }
        }
        let mut change = 0.0f64;
        for i in 0..n {
            let x = 0.5 * (v[i] + next[i]);
            change = change.max((x - v[i]).abs());
            v[i] = x;
        }
        if change < 1e-15 {
            break;
        }
    }
    let sum: f64 = v.iter().sum();
    v.iter().map(|x| x / sum * n as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::service::Service;
    use crate::network::spec::Station;

    fn station(
        name: &str,
        c: u32,
        mean: f64,
        rate: f64,
        pop: u32,
        routes: Vec<(u32, f64)>,
    ) -> Station {
        Station {
            name: name.into(),
            servers: c,
            service: Service::Exponential { mean },
            arrival_rate: rate,
            population: pop,
            routes: routes.into(),
        }
    }

    /// The clinic: λ = 0.8 at triage, 1.2 at the doctor, 0.48 at the lab.
    #[test]
    fn the_clinics_traffic_equations() {
        let net = Network {
            stations: vec![
                station("triage", 2, 2.0, 0.8, 0, vec![(1, 0.9), (EXIT, 0.1)]),
                station("doctor", 3, 2.0, 0.0, 0, vec![(2, 0.4), (EXIT, 0.6)]),
                station("lab", 1, 1.2, 0.0, 0, vec![(1, 1.0)]),
            ],
        };
        let l = traffic(&net);
        for (got, want) in l.iter().zip([0.8, 1.2, 0.48]) {
            assert!((got - want).abs() < 1e-12, "{l:?}");
        }
    }

    /// M/M/1 and M/M/2 by their closed forms: L = ρ/(1−ρ); M/M/2: L = 2ρ/(1−ρ²).
    #[test]
    fn erlang_c_gives_the_textbook_values() {
        let one = mmc(0.5, 1.0, 1);
        assert!((one.mean_number - 1.0).abs() < 1e-12);
        let two = mmc(1.2, 1.0, 2); // ρ = 0.6
        assert!(
            (two.mean_number - 2.0 * 0.6 / (1.0 - 0.36)).abs() < 1e-12,
            "{two:?}"
        );
    }

    /// Two single-server stations in a ring with equal means and N tokens: throughput
    /// N/(N+1) per mean, by symmetry (the states (k, N−k) equally likely).
    #[test]
    fn mva_of_a_symmetric_ring() {
        let net = Network {
            stations: vec![
                station("a", 1, 1.0, 0.0, 3, vec![(1, 1.0)]),
                station("b", 1, 1.0, 0.0, 0, vec![(0, 1.0)]),
            ],
        };
        let v = values(&net).unwrap();
        assert!((v.stations[0].throughput - 0.75).abs() < 1e-12, "{v:?}");
        assert!((v.stations[0].mean_number - 1.5).abs() < 1e-12);
    }

    /// A ring of an infinite-server-like station (c ≥ N) and a single server: the
    /// load-dependent recursion against the product form computed by hand (N = 2, both
    /// means 1): states (2,0), (1,1), (0,2) with weights 1/2, 1, 1 → throughput 4/5.
    #[test]
    fn load_dependent_mva_matches_the_product_form() {
        let net = Network {
            stations: vec![
                station("many", 4, 1.0, 0.0, 2, vec![(1, 1.0)]),
                station("one", 1, 1.0, 0.0, 0, vec![(0, 1.0)]),
            ],
        };
        let v = values(&net).unwrap();
        // throughput = P(one busy) = (1 + 1)/(1/2 + 1 + 1) = 0.8
        assert!((v.stations[1].throughput - 0.8).abs() < 1e-12, "{v:?}");
    }
}
