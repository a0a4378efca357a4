//! The exact steady state of M/M/c/k: p_n ∝ aⁿ/n! for n ≤ c and aⁿ/(c!·c^(n−c)) for
//! c < n ≤ k, a = λ/μ; the measures follow (λ_eff = λ(1 − p_k), W = L/λ_eff by Little).

use super::MmckParams;

/// The exact steady-state measures of one M/M/c/k queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Steady {
    /// p_n, n = 0..=k.
    pub p: Vec<f64>,
    /// L: mean number in system.
    pub number_in_system: f64,
    /// Lq: mean number waiting.
    pub number_waiting: f64,
    /// p_k: probability an arrival is blocked.
    pub blocking: f64,
    /// λ_eff = λ(1 − p_k): throughput.
    pub throughput: f64,
    /// W = L / λ_eff.
    pub system_time: f64,
    /// Wq = Lq / λ_eff.
    pub waiting_time: f64,
    /// λ_eff / (cμ): the busy fraction of one server.
    pub utilization: f64,
}

impl Steady {
    /// The steady state of `p`. The terms relative to p_0 are summed in logarithms and
    /// scaled by the largest: aⁿ/n! overflows f64 long before k = 256 when a = λ/μ is large
    /// (λ = 1000, μ = 0.01: a^256 = 10^1280), while every p_n is a number in [0, 1].
    pub fn of(p: &MmckParams) -> Self {
        let a = p.arrival_rate / p.service_rate;
        let c = f64::from(p.servers);
        let mut log_terms = Vec::with_capacity(p.capacity as usize + 1);
        let mut log_term = 0.0;
        for n in 0..=p.capacity {
            if n > 0 {
                // aⁿ/n! grows by a/n up to c, aⁿ/(c!·c^(n−c)) by a/c beyond
                log_term += (a / f64::from(n).min(c)).ln();
            }
            log_terms.push(log_term);
        }
        let largest = log_terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let scaled: Vec<f64> = log_terms.iter().map(|l| (l - largest).exp()).collect();
        let total: f64 = scaled.iter().sum();
        let probs: Vec<f64> = scaled.iter().map(|t| t / total).collect();
        let number_in_system = probs.iter().enumerate().map(|(n, q)| n as f64 * q).sum();
        let number_waiting = probs
            .iter()
            .enumerate()
            .map(|(n, q)| (n as f64 - c).max(0.0) * q)
            .sum::<f64>();
        let blocking = probs[p.capacity as usize];
        let throughput = p.arrival_rate * (1.0 - blocking);
        Self {
            number_in_system,
            number_waiting,
            blocking,
            throughput,
            system_time: number_in_system / throughput,
            waiting_time: number_waiting / throughput,
            utilization: throughput / (c * p.service_rate),
            p: probs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A heavy queue at the largest capacity: the exact values exist (no overflow to NaN)
    /// and are those of a queue that is almost always full.
    #[test]
    fn a_heavy_queue_of_capacity_256_has_exact_values() {
        let s = Steady::of(&MmckParams {
            arrival_rate: 1000.0,
            service_rate: 0.01,
            servers: 1,
            capacity: 256,
        });
        assert!(s.p.iter().all(|q| q.is_finite()));
        assert!((s.p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // a = 10^5: p_k = 1 − 1/a to within 1e-9, L = k − 1/(a − 1) + …
        assert!((s.blocking - (1.0 - 1e-5)).abs() < 1e-9, "{}", s.blocking);
        assert!(
            (s.number_in_system - 256.0).abs() < 1e-4,
            "{}",
            s.number_in_system
        );
        assert!((s.utilization - 1.0).abs() < 1e-4);
    }

    #[test]
    fn the_papers_queue_has_l_3_583_and_littles_law_holds() {
        let s = Steady::of(&MmckParams {
            arrival_rate: 4.0,
            service_rate: 1.0,
            servers: 3,
            capacity: 5,
        });
        // paper 003 §4: L = 3.583 for λ = 4, μ = 1, c = 3, k = 5
        assert!(
            (s.number_in_system - 3.583).abs() < 5e-4,
            "{}",
            s.number_in_system
        );
        // p_n by hand: 1, 4, 8, 32/3, 128/9, 512/27 over their sum
        let terms = [1.0, 4.0, 8.0, 32.0 / 3.0, 128.0 / 9.0, 512.0 / 27.0];
        let sum: f64 = terms.iter().sum();
        for (n, t) in terms.iter().enumerate() {
            assert!((s.p[n] - t / sum).abs() < 1e-15);
        }
        // W − Wq is one mean service; utilization is the busy servers' share
        assert!((s.system_time - s.waiting_time - 1.0).abs() < 1e-12);
        let busy: f64 =
            s.p.iter()
                .enumerate()
                .map(|(n, q)| (n as f64).min(3.0) * q)
                .sum();
        assert!((s.utilization - busy / 3.0).abs() < 1e-12);
    }

    #[test]
    fn one_server_one_place_is_erlangs_loss_formula() {
        let s = Steady::of(&MmckParams {
            arrival_rate: 2.0,
            service_rate: 3.0,
            servers: 1,
            capacity: 1,
        });
        assert!((s.blocking - 2.0 / 5.0).abs() < 1e-15);
    }
}
