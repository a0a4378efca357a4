use pdes_lab::preset::{Config, DiffusionConfig};
use pdes_lab::sim::diffusion::{CpuDiffusion, DiffusionEngine};
use pdes_lab::sim::{Budget, Engine};
fn cfg(side: u32, alg: &str, dt: f64, q: f64, t: f64) -> DiffusionConfig {
    let text = format!(
        "[model]\nkind=\"diffusion\"\nrows={side}\ncols={side}\n[run]\nalgorithm=\"{alg}\"\nend_time={t:?}\ndt={dt:?}\nquantum={q:?}\n"
    );
    match Config::from_toml(&text, "x").unwrap() {
        Config::Diffusion(c) => c,
        _ => unreachable!(),
    }
}
fn run(c: &DiffusionConfig) -> (Vec<f32>, u64, f64) {
    let mut e = CpuDiffusion::new(c);
    let t = std::time::Instant::now();
    e.advance(Budget::Finish).unwrap();
    (
        e.temperatures().unwrap(),
        e.totals().steps,
        t.elapsed().as_secs_f64(),
    )
}
fn main() {
    let side: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let t: f64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let (r, _, _) = run(&cfg(side, "timestepped", 1.0 / 256.0, 1.0, t));
    let err = |g: &[f32]| {
        g.iter()
            .zip(&r)
            .map(|(a, b)| (a - b).abs() as f64)
            .fold(0.0, f64::max)
    };
    for dt in [0.25, 0.2, 0.125, 0.0625, 0.03125] {
        let (g, s, w) = run(&cfg(side, "timestepped", dt, 1.0, t));
        println!("ts dt {dt}: err {:.4} steps {s} wall {w:.3}", err(&g));
    }
    for q in [2.0, 1.0, 0.5, 0.25, 0.125] {
        let (g, s, w) = run(&cfg(side, "hybrid", 0.1, q, t));
        println!("hybrid q {q}: err {:.4} steps {s} wall {w:.3}", err(&g));
    }
    for q in [0.25, 0.125, 0.0625, 0.03125] {
        let (g, s, w) = run(&cfg(side, "event", 0.1, q, t));
        println!("event q {q}: err {:.4} steps {s} wall {w:.3}", err(&g));
    }
}
