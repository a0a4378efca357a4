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
    /// The steady state of `p` (computed with terms relative to p_0, in f64).
    pub fn of(p: &MmckParams) -> Self {
        let a = p.arrival_rate / p.service_rate;
        let c = f64::from(p.servers);
        let mut terms = Vec::with_capacity(p.capacity as usize + 1);
        let mut term = 1.0;
        for n in 0..=p.capacity {
            if n > 0 {
                // aⁿ/n! grows by a/n up to c, aⁿ/(c!·c^(n−c)) by a/c beyond
                term *= a / f64::from(n).min(c);
            }
            terms.push(term);
        }
        let total: f64 = terms.iter().sum();
        let probs: Vec<f64> = terms.iter().map(|t| t / total).collect();
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
