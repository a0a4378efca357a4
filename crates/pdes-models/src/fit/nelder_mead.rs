//! Nelder–Mead as ask and tell: the optimizer says which point it needs next
//! ([`NelderMead::ask`]) and is told its cost ([`NelderMead::tell`]); it never calls the
//! cost itself. argmin's solver (used before) calls the cost function from inside its
//! iteration, one point at a time, so a fit could neither pause between evaluations (a
//! browser tab must get its frame back every few milliseconds) nor hand the points of many
//! optimizations to one pass over the data. The method is the standard one with argmin's
//! coefficients — reflection 1, expansion 2, contraction ½ towards the worst vertex, shrink
//! ½ towards the best — and its stopping rule: the standard deviation of the vertices'
//! costs below a tolerance, or an iteration limit.

/// What the optimizer waits for.
#[derive(Clone, Debug)]
enum Waiting {
    /// The cost of initial vertex i.
    Vertex(usize),
    /// The reflected point's cost.
    Reflection,
    /// The expanded point's cost, with the reflection's point and cost.
    Expansion(Vec<f64>, f64),
    /// The contracted point's cost.
    Contraction,
    /// The cost of vertex i moved towards the best.
    Shrink(usize),
    /// Nothing: finished.
    Finished,
}

/// One Nelder–Mead minimization in progress.
#[derive(Clone, Debug)]
pub struct NelderMead {
    vertices: Vec<Vec<f64>>,
    costs: Vec<f64>,
    centroid: Vec<f64>,
    point: Vec<f64>,
    waiting: Waiting,
    iterations: u64,
    max_iterations: u64,
    sd_tolerance: f64,
}

impl NelderMead {
    /// A minimization from `simplex` (n + 1 points of n coordinates), stopping after
    /// `max_iterations` or when the costs' standard deviation is below `sd_tolerance`.
    pub fn new(simplex: Vec<Vec<f64>>, max_iterations: u64, sd_tolerance: f64) -> Self {
        let point = simplex.first().cloned().unwrap_or_default();
        let waiting = if simplex.is_empty() {
            Waiting::Finished
        } else {
            Waiting::Vertex(0)
        };
        Self {
            costs: vec![f64::INFINITY; simplex.len()],
            vertices: simplex,
            centroid: Vec::new(),
            point,
            waiting,
            iterations: 0,
            max_iterations,
            sd_tolerance,
        }
    }

    /// The point whose cost is needed next; `None` once the minimization has stopped.
    pub fn ask(&self) -> Option<&[f64]> {
        match self.waiting {
            Waiting::Finished => None,
            _ => Some(&self.point),
        }
    }

    /// The cost of the point [`NelderMead::ask`] gave (NaN counts as +∞).
    pub fn tell(&mut self, cost: f64) {
        let cost = if cost.is_nan() { f64::INFINITY } else { cost };
        let worst = self.vertices.len() - 1;
        match std::mem::replace(&mut self.waiting, Waiting::Finished) {
            Waiting::Finished => {}
            Waiting::Vertex(i) => {
                self.costs[i] = cost;
                if i + 1 < self.vertices.len() {
                    self.point = self.vertices[i + 1].clone();
                    self.waiting = Waiting::Vertex(i + 1);
                } else {
                    self.begin_iteration();
                }
            }
            Waiting::Reflection => {
                let (best, second_worst) = (self.costs[0], self.costs[worst - 1]);
                if cost < best {
                    let expanded = self.along(2.0);
                    self.waiting = Waiting::Expansion(std::mem::take(&mut self.point), cost);
                    self.point = expanded;
                } else if cost < second_worst {
                    self.replace_worst(cost);
                } else {
                    self.point = self.along(-0.5);
                    self.waiting = Waiting::Contraction;
                }
            }
            Waiting::Expansion(reflected, reflected_cost) => {
                if cost < reflected_cost {
                    self.replace_worst(cost);
                } else {
                    self.point = reflected;
                    self.replace_worst(reflected_cost);
                }
            }
            Waiting::Contraction => {
                if cost < self.costs[worst] {
                    self.replace_worst(cost);
                } else {
                    self.shrink_from(1);
                }
            }
            Waiting::Shrink(i) => {
                self.vertices[i] = std::mem::take(&mut self.point);
                self.costs[i] = cost;
                if i < worst {
                    self.shrink_from(i + 1);
                } else {
                    self.begin_iteration();
                }
            }
        }
    }

    /// The best point found and its cost.
    pub fn best(&self) -> (&[f64], f64) {
        let i = (0..self.costs.len())
            .min_by(|&a, &b| self.costs[a].total_cmp(&self.costs[b]))
            .unwrap_or(0);
        (
            self.vertices.get(i).map_or(&[][..], Vec::as_slice),
            self.costs.get(i).copied().unwrap_or(f64::INFINITY),
        )
    }

    /// Iterations completed.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// centroid + t · (centroid − worst): t = 1 reflects, 2 expands, −½ contracts.
    fn along(&self, t: f64) -> Vec<f64> {
        let worst = &self.vertices[self.vertices.len() - 1];
        self.centroid
            .iter()
            .zip(worst)
            .map(|(c, w)| c + t * (c - w))
            .collect()
    }

    fn replace_worst(&mut self, cost: f64) {
        let worst = self.vertices.len() - 1;
        self.vertices[worst] = std::mem::take(&mut self.point);
        self.costs[worst] = cost;
        self.iterations += 1;
        self.begin_iteration();
    }

    /// Asks for vertex i moved half way towards the best.
    fn shrink_from(&mut self, i: usize) {
        let best = &self.vertices[0];
        self.point = best
            .iter()
            .zip(&self.vertices[i])
            .map(|(b, v)| b + 0.5 * (v - b))
            .collect();
        self.waiting = Waiting::Shrink(i);
        if i == self.vertices.len() - 1 {
            // the shrink is this iteration's move
            self.iterations += 1;
        }
    }

    /// Sorts the simplex, stops if it has converged or run out of iterations, else asks
    /// for the reflection of the worst vertex through the others' centroid.
    fn begin_iteration(&mut self) {
        let mut order: Vec<usize> = (0..self.vertices.len()).collect();
        order.sort_by(|&a, &b| self.costs[a].total_cmp(&self.costs[b]));
        self.vertices = order.iter().map(|&i| self.vertices[i].clone()).collect();
        self.costs = order.iter().map(|&i| self.costs[i]).collect();
        let n = self.costs.len() as f64;
        let mean = self.costs.iter().sum::<f64>() / n;
        let sd = (self.costs.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt();
        if self.iterations >= self.max_iterations || sd < self.sd_tolerance {
            self.waiting = Waiting::Finished;
            return;
        }
        let others = &self.vertices[..self.vertices.len() - 1];
        let dims = self.vertices[0].len();
        self.centroid = (0..dims)
            .map(|d| others.iter().map(|v| v[d]).sum::<f64>() / others.len() as f64)
            .collect();
        self.point = self.along(1.0);
        self.waiting = Waiting::Reflection;
    }
}

#[cfg(test)]
mod tests {
    use super::NelderMead;

    fn minimize(f: impl Fn(&[f64]) -> f64, simplex: Vec<Vec<f64>>) -> (Vec<f64>, f64, u64) {
        let mut nm = NelderMead::new(simplex, 10_000, 1e-14);
        let mut calls = 0;
        while let Some(x) = nm.ask() {
            let c = f(x);
            nm.tell(c);
            calls += 1;
            assert!(calls < 100_000, "never stops");
        }
        let (x, c) = nm.best();
        (x.to_vec(), c, nm.iterations())
    }

    #[test]
    fn finds_the_minimum_of_rosenbrocks_valley() {
        let rosenbrock = |x: &[f64]| (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2);
        let (x, c, _) = minimize(
            rosenbrock,
            vec![vec![-1.2, 1.0], vec![-1.0, 1.0], vec![-1.2, 1.2]],
        );
        assert!(
            (x[0] - 1.0).abs() < 1e-3 && (x[1] - 1.0).abs() < 1e-3,
            "{x:?}"
        );
        assert!(c < 1e-6, "{c}");
    }

    #[test]
    fn stops_at_its_iteration_limit_and_keeps_the_best_point() {
        let bowl = |x: &[f64]| x.iter().map(|v| (v - 3.0).powi(2)).sum::<f64>();
        let mut nm = NelderMead::new(vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]], 5, 0.0);
        let mut best_seen = f64::INFINITY;
        while let Some(x) = nm.ask() {
            let c = bowl(x);
            best_seen = best_seen.min(c);
            nm.tell(c);
        }
        assert_eq!(nm.iterations(), 5);
        assert_eq!(nm.best().1, best_seen);
    }
}
