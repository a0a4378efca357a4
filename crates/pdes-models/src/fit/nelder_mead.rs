//! Nelder–Mead as ask and tell: the optimizer says which points it needs next
//! ([`NelderMead::ask`]) and is told their costs ([`NelderMead::tell`]); it never calls the
//! cost itself, so a fit can pause between any two rounds (a browser tab must get its frame
//! back every few milliseconds) and the points of many optimizations can go to one pass over
//! the data (one GPU dispatch). The method is the standard one with argmin's coefficients —
//! reflection 1, expansion 2, contraction ½ towards the worst vertex, shrink ½ towards the
//! best — and its stopping rule: the standard deviation of the vertices' costs below a
//! tolerance, or an iteration limit.
//!
//! Each round asks for every point that can be known at once: the whole initial simplex,
//! every vertex of a shrink, and — speculating, for an evaluator whose round trip costs more
//! than a point (the GPU) — an iteration's reflection *with* its expansion and contraction.
//! The decisions use only the costs the one-point-at-a-time method asks for, so the path
//! is the same step for step either way; speculating, an iteration is one round trip
//! instead of up to two, for about twice the evaluations (bench/NOTES.md, "Fits in rounds").

/// What the optimizer waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    /// The costs of the initial simplex's vertices.
    Vertices,
    /// The costs of some of this iteration's candidates ([`NelderMead::asked`]).
    Step,
    /// The costs of vertices 1.. moved half way towards the best.
    Shrink,
    /// Nothing: finished.
    Finished,
}

/// An iteration's candidates, indices into [`NelderMead::candidates`].
const REFLECTED: usize = 0;
const EXPANDED: usize = 1;
const CONTRACTED: usize = 2;

/// One Nelder–Mead minimization in progress.
#[derive(Clone, Debug)]
pub struct NelderMead {
    vertices: Vec<Vec<f64>>,
    costs: Vec<f64>,
    /// This iteration's reflected, expanded and contracted points, and the costs known.
    candidates: [Vec<f64>; 3],
    known: [Option<f64>; 3],
    /// The points asked for now; in a step, which candidates they are.
    points: Vec<Vec<f64>>,
    asked: Vec<usize>,
    speculate: bool,
    waiting: Waiting,
    iterations: u64,
    max_iterations: u64,
    sd_tolerance: f64,
}

impl NelderMead {
    /// A minimization from `simplex` (n + 1 points of n coordinates), stopping after
    /// `max_iterations` or when the costs' standard deviation is below `sd_tolerance`.
    /// `speculate`: ask for an iteration's three candidates at once (fewer rounds, more
    /// points) rather than the reflection first and then the one it calls for.
    pub fn new(
        simplex: Vec<Vec<f64>>,
        max_iterations: u64,
        sd_tolerance: f64,
        speculate: bool,
    ) -> Self {
        let waiting = if simplex.is_empty() {
            Waiting::Finished
        } else {
            Waiting::Vertices
        };
        Self {
            costs: vec![f64::INFINITY; simplex.len()],
            points: simplex.clone(),
            vertices: simplex,
            candidates: Default::default(),
            known: [None; 3],
            asked: Vec::new(),
            speculate,
            waiting,
            iterations: 0,
            max_iterations,
            sd_tolerance,
        }
    }

    /// The points whose costs are needed next; empty once the minimization has stopped.
    pub fn ask(&self) -> &[Vec<f64>] {
        match self.waiting {
            Waiting::Finished => &[],
            _ => &self.points,
        }
    }

    /// Whether the minimization has stopped.
    pub fn finished(&self) -> bool {
        self.waiting == Waiting::Finished
    }

    /// The costs of the points [`NelderMead::ask`] gave, in its order (NaN counts as +∞).
    /// Told fewer costs than points asked for, it stops (a caller's mistake, not a panic).
    pub fn tell(&mut self, costs: &[f64]) {
        if costs.len() != self.ask().len() {
            self.waiting = Waiting::Finished;
            return;
        }
        let costs: Vec<f64> = costs
            .iter()
            .map(|&c| if c.is_nan() { f64::INFINITY } else { c })
            .collect();
        match self.waiting {
            Waiting::Finished => {}
            Waiting::Vertices => {
                self.costs = costs;
                self.begin_iteration();
            }
            Waiting::Step => {
                for (&which, c) in self.asked.iter().zip(costs) {
                    self.known[which] = Some(c);
                }
                self.decide();
            }
            Waiting::Shrink => {
                for (i, (p, c)) in std::mem::take(&mut self.points)
                    .into_iter()
                    .zip(costs)
                    .enumerate()
                {
                    self.vertices[i + 1] = p;
                    self.costs[i + 1] = c;
                }
                self.begin_iteration();
            }
        }
    }

    /// The textbook rule on the costs known: replace the worst vertex, shrink, or ask for
    /// the candidate the rule needs next.
    fn decide(&mut self) {
        let worst = self.vertices.len() - 1;
        let (best, second_worst) = (self.costs[0], self.costs[worst - 1]);
        let Some(reflected) = self.known[REFLECTED] else {
            return self.ask_for(&[REFLECTED]);
        };
        if reflected < best {
            match self.known[EXPANDED] {
                Some(e) if e < reflected => self.replace_worst(EXPANDED, e),
                Some(_) => self.replace_worst(REFLECTED, reflected),
                None => self.ask_for(&[EXPANDED]),
            }
        } else if reflected < second_worst {
            self.replace_worst(REFLECTED, reflected);
        } else {
            match self.known[CONTRACTED] {
                Some(c) if c < self.costs[worst] => self.replace_worst(CONTRACTED, c),
                Some(_) => self.shrink(),
                None => self.ask_for(&[CONTRACTED]),
            }
        }
    }

    fn ask_for(&mut self, which: &[usize]) {
        self.asked = which.to_vec();
        self.points = which.iter().map(|&w| self.candidates[w].clone()).collect();
        self.waiting = Waiting::Step;
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
    fn along(&self, centroid: &[f64], t: f64) -> Vec<f64> {
        let worst = &self.vertices[self.vertices.len() - 1];
        centroid
            .iter()
            .zip(worst)
            .map(|(c, w)| c + t * (c - w))
            .collect()
    }

    /// The worst vertex becomes candidate `which` of this iteration.
    fn replace_worst(&mut self, which: usize, cost: f64) {
        let worst = self.vertices.len() - 1;
        self.vertices[worst] = std::mem::take(&mut self.candidates[which]);
        self.costs[worst] = cost;
        self.iterations += 1;
        self.begin_iteration();
    }

    /// Asks for every vertex but the best moved half way towards it (this iteration's move).
    fn shrink(&mut self) {
        let best = &self.vertices[0];
        self.points = self.vertices[1..]
            .iter()
            .map(|v| best.iter().zip(v).map(|(b, v)| b + 0.5 * (v - b)).collect())
            .collect();
        self.waiting = Waiting::Shrink;
        self.iterations += 1;
    }

    /// Sorts the simplex, stops if it has converged or run out of iterations, else makes
    /// the candidates — the reflection of the worst vertex through the others' centroid,
    /// its expansion and its contraction — and asks for the reflection (and, speculating,
    /// the other two).
    fn begin_iteration(&mut self) {
        // a stable sort of (cost, vertex) pairs, moving the vertices rather than copying
        let mut pairs: Vec<(f64, Vec<f64>)> = std::mem::take(&mut self.costs)
            .into_iter()
            .zip(std::mem::take(&mut self.vertices))
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        (self.costs, self.vertices) = pairs.into_iter().unzip();
        let n = self.costs.len() as f64;
        let mean = self.costs.iter().sum::<f64>() / n;
        let sd = (self.costs.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt();
        if self.iterations >= self.max_iterations || sd < self.sd_tolerance {
            self.waiting = Waiting::Finished;
            return;
        }
        let others = &self.vertices[..self.vertices.len() - 1];
        let dims = self.vertices[0].len();
        let centroid: Vec<f64> = (0..dims)
            .map(|d| others.iter().map(|v| v[d]).sum::<f64>() / others.len() as f64)
            .collect();
        self.candidates = [
            self.along(&centroid, 1.0),
            self.along(&centroid, 2.0),
            self.along(&centroid, -0.5),
        ];
        self.known = [None; 3];
        if self.speculate {
            self.ask_for(&[REFLECTED, EXPANDED, CONTRACTED]);
        } else {
            self.ask_for(&[REFLECTED]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NelderMead;

    /// Runs `nm` to the end on `f`; returns the best point, its cost, the iterations and
    /// the rounds (calls of tell).
    fn minimize(f: impl Fn(&[f64]) -> f64, mut nm: NelderMead) -> (Vec<f64>, f64, u64, u64) {
        let mut rounds = 0;
        while !nm.finished() {
            let costs: Vec<f64> = nm.ask().iter().map(|x| f(x)).collect();
            nm.tell(&costs);
            rounds += 1;
            assert!(rounds < 100_000, "never stops");
        }
        let (x, c) = nm.best();
        (x.to_vec(), c, nm.iterations(), rounds)
    }

    /// The textbook method, one point at a time (what argmin did): the reference path.
    fn one_point_at_a_time(
        f: impl Fn(&[f64]) -> f64,
        simplex: Vec<Vec<f64>>,
        max_iterations: u64,
        tol: f64,
    ) -> (Vec<f64>, f64, u64) {
        let mut v = simplex;
        let mut c: Vec<f64> = v.iter().map(|x| f(x)).collect();
        let n = v.len() - 1;
        let mut iterations = 0;
        loop {
            let mut order: Vec<usize> = (0..=n).collect();
            order.sort_by(|&a, &b| c[a].total_cmp(&c[b]));
            v = order.iter().map(|&i| v[i].clone()).collect();
            c = order.iter().map(|&i| c[i]).collect();
            let mean = c.iter().sum::<f64>() / (n + 1) as f64;
            let sd = (c.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n + 1) as f64).sqrt();
            if iterations >= max_iterations || sd < tol {
                return (v[0].clone(), c[0], iterations);
            }
            let cen: Vec<f64> = (0..v[0].len())
                .map(|d| v[..n].iter().map(|x| x[d]).sum::<f64>() / n as f64)
                .collect();
            let along = |t: f64| -> Vec<f64> {
                cen.iter()
                    .zip(&v[n])
                    .map(|(a, w)| a + t * (a - w))
                    .collect()
            };
            let r = along(1.0);
            let fr = f(&r);
            if fr < c[0] {
                let e = along(2.0);
                let fe = f(&e);
                (v[n], c[n]) = if fe < fr { (e, fe) } else { (r, fr) };
            } else if fr < c[n - 1] {
                (v[n], c[n]) = (r, fr);
            } else {
                let k = along(-0.5);
                let fk = f(&k);
                if fk < c[n] {
                    (v[n], c[n]) = (k, fk);
                } else {
                    for i in 1..=n {
                        v[i] = v[0]
                            .iter()
                            .zip(&v[i])
                            .map(|(b, x)| b + 0.5 * (x - b))
                            .collect();
                        c[i] = f(&v[i]);
                    }
                }
            }
            iterations += 1;
        }
    }

    fn rosenbrock(x: &[f64]) -> f64 {
        (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
    }

    #[test]
    fn finds_the_minimum_of_rosenbrocks_valley() {
        let start = vec![vec![-1.2, 1.0], vec![-1.0, 1.0], vec![-1.2, 1.2]];
        let (x, c, _, _) = minimize(rosenbrock, NelderMead::new(start, 10_000, 1e-14, true));
        assert!(
            (x[0] - 1.0).abs() < 1e-3 && (x[1] - 1.0).abs() < 1e-3,
            "{x:?}"
        );
        assert!(c < 1e-6, "{c}");
    }

    #[test]
    fn speculating_or_not_follows_the_one_point_path_and_speculating_takes_fewer_rounds() {
        // the speculative expansion and contraction change nothing but the round count
        let start = vec![
            vec![-1.2, 1.0, 0.5],
            vec![-1.0, 1.0, 0.5],
            vec![-1.2, 1.2, 0.5],
            vec![-1.2, 1.0, 0.7],
        ];
        let f = |x: &[f64]| rosenbrock(x) + (x[2] - 0.3).powi(2) * (1.0 + x[0].abs());
        let reference = one_point_at_a_time(f, start.clone(), 500, 1e-14);
        let (x, c, iterations, rounds) =
            minimize(f, NelderMead::new(start.clone(), 500, 1e-14, true));
        assert_eq!((x, c, iterations), reference, "speculating");
        let (x, c, iterations, one_by_one) = minimize(f, NelderMead::new(start, 500, 1e-14, false));
        assert_eq!((x, c, iterations), reference, "one candidate at a time");
        // speculating: one round per iteration (a shrink takes two), plus the first
        assert!(rounds < one_by_one, "{rounds} rounds against {one_by_one}");
        assert!(
            rounds <= 2 * iterations + 1,
            "{rounds} rounds for {iterations} iterations"
        );
    }

    #[test]
    fn stops_at_its_iteration_limit_and_keeps_the_best_point() {
        let bowl = |x: &[f64]| x.iter().map(|v| (v - 3.0).powi(2)).sum::<f64>();
        let mut nm = NelderMead::new(
            vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]],
            5,
            0.0,
            false,
        );
        let mut best_seen = f64::INFINITY;
        while !nm.finished() {
            let costs: Vec<f64> = nm.ask().iter().map(|x| bowl(x)).collect();
            best_seen = costs.iter().copied().fold(best_seen, f64::min);
            nm.tell(&costs);
        }
        assert_eq!(nm.iterations(), 5);
        assert!(nm.ask().is_empty());
        assert_eq!(nm.best().1, best_seen);
    }
}
