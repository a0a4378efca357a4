//! Normal-mixture fitting (paper 003 §3): the one-component fit is the closed form, a
//! repeated sample scales ln L exactly and keeps the parameters, a well-separated mixture is
//! recovered and chosen by BIC, the GPU's f32 log-likelihood stays within its stated bound
//! of the CPU's f64 one, and the command line reads CSVs and refuses bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use pdes_lab::fit::{self, Data, Loglik, Mixture, Search};

pub(crate) fn quick() -> Search {
    Search {
        iterations_per_parameter: 200,
        ..Search::default()
    }
}

#[test]
fn one_component_is_the_closed_form() {
    let data = Data::synthetic_lgd(500);
    let f = fit::fit_k(&data, &data, 1, quick()).unwrap();
    let (mean, sd) = data.moments();
    let n = data.n() as f64;
    let closed = -n / 2.0 * ((std::f64::consts::TAU * sd * sd).ln() + 1.0);
    assert!(
        (f.loglik - closed).abs() < 1e-6 * closed.abs(),
        "{} vs {closed}",
        f.loglik
    );
    assert!((f.means[0] - mean).abs() < 1e-4 * sd && (f.sds[0] / sd - 1.0).abs() < 1e-4);
    assert!((f.bic - (-2.0 * closed + 2.0 * n.ln())).abs() < 1e-5 * closed.abs());
}

/// Issue 35 §5: data of extreme scale (×1e300, ×1e-300) fit as the same data at unit
/// scale do, in their own units: the same weights, means and sds scaled, ln L shifted by
/// the Jacobian n·ln(scale) — not the objective's stand-in for an unusable mixture.
#[test]
fn data_of_any_scale_fit_as_the_same_data_at_unit_scale() {
    let data = Data::synthetic_lgd(400);
    let unit = fit::report(&data, 1..=2, None, quick()).unwrap();
    for scale in [1e300, 1e-300] {
        let scaled = Data {
            values: data.values.iter().map(|x| x * scale).collect(),
            counts: data.counts.clone(),
        };
        let r = fit::report(&scaled, 1..=2, None, quick()).unwrap();
        assert_eq!(r.chosen_components, unit.chosen_components);
        let n = data.n() as f64;
        for (f, u) in r.fits.iter().zip(&unit.fits) {
            let shift = n * scale.ln();
            assert!(
                (f.loglik - (u.loglik - shift)).abs() < 1e-6 * shift.abs(),
                "×{scale:e}: ln L {} against {}",
                f.loglik,
                u.loglik - shift
            );
            for (a, b) in f.weights.iter().zip(&u.weights) {
                assert!(
                    (a - b).abs() < 1e-6,
                    "×{scale:e}: weights {:?} {:?}",
                    f.weights,
                    u.weights
                );
            }
            for (a, b) in f.means.iter().zip(&u.means) {
                assert!(
                    (a / scale - b).abs() < 1e-6,
                    "×{scale:e}: means {:?} {:?}",
                    f.means,
                    u.means
                );
            }
            for (a, b) in f.sds.iter().zip(&u.sds) {
                assert!(
                    (a / scale - b).abs() < 1e-6,
                    "×{scale:e}: sds {:?} {:?}",
                    f.sds,
                    u.sds
                );
            }
        }
    }
}

#[test]
fn a_sample_repeated_twice_and_four_times_gives_exactly_that_multiple_and_the_same_fit() {
    let data = Data::synthetic_lgd(300);
    let base = fit::fit_k(&data, &data, 2, quick()).unwrap();
    for m in [2u64, 4] {
        let rep = data.repeated(m);
        let f = fit::fit_k(&rep, &rep, 2, quick()).unwrap();
        assert_eq!(f.loglik, base.loglik * m as f64, "×{m}");
        assert_eq!(
            (&f.weights, &f.means, &f.sds),
            (&base.weights, &base.means, &base.sds)
        );
        assert_eq!(f.iterations, base.iterations);
    }
}

/// The mixture [`three_components`] draws from.
pub(crate) fn three_truth() -> Mixture {
    Mixture {
        weights: vec![0.5, 0.3, 0.2],
        means: vec![-4.0, 0.0, 5.0],
        sds: vec![0.5, 1.0, 0.7],
    }
}

/// `n` deterministic draws of [`three_truth`]: Box–Muller on Philox words.
pub(crate) fn three_components(n: u32) -> Data {
    let truth = three_truth();
    let xs: Vec<f64> = (0..n)
        .map(|i| {
            let w = pdes_lab::rng::philox4x32_10([i, 1, 2, 3], [i, 99]);
            let u = |x: u32| (f64::from(x) + 0.5) / 4_294_967_296.0;
            let j = if u(w[0]) < 0.5 {
                0
            } else if u(w[0]) < 0.8 {
                1
            } else {
                2
            };
            let z = (-2.0 * u(w[1]).ln()).sqrt() * (std::f64::consts::TAU * u(w[2])).cos();
            truth.means[j] + truth.sds[j] * z
        })
        .collect();
    Data::new(&xs).unwrap()
}

#[test]
fn a_well_separated_mixture_is_recovered_and_bic_chooses_its_k() {
    let truth = three_truth();
    let data = three_components(3000);
    let fits = fit::fit_all(&data, &data, 1..=4, quick()).unwrap();
    assert_eq!(fit::chosen(&fits), Some(3), "{fits:#?}");
    let f = &fits[2];
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&a, &b| f.means[a].total_cmp(&f.means[b]));
    for (j, &i) in order.iter().enumerate() {
        assert!((f.weights[i] - truth.weights[j]).abs() < 0.03, "{f:?}");
        assert!((f.means[i] - truth.means[j]).abs() < 0.1, "{f:?}");
        assert!((f.sds[i] / truth.sds[j] - 1.0).abs() < 0.1, "{f:?}");
    }
}

#[test]
fn the_gpu_log_likelihood_is_within_its_stated_bound_of_the_cpus() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let data = Data::synthetic_lgd(fit::data::LGD_N).repeated(2);
    let g = fit::gpu::GpuLoglik::new(gpu, &data).unwrap();
    for k in [1usize, 3, 5, 10] {
        let mix = Mixture {
            weights: vec![1.0 / k as f64; k],
            means: (0..k).map(|j| (j as f64 + 0.5) / k as f64).collect(),
            sds: vec![0.3 / k as f64; k],
        };
        let (cpu, gpu) = (data.loglik(&mix), Loglik::loglik(&g, &mix).unwrap());
        let bound = fit::gpu::TOLERANCE * data.abs_loglik(&mix);
        assert!(
            (cpu - gpu).abs() <= bound,
            "k = {k}: CPU {cpu}, GPU {gpu}, bound {bound}"
        );
        assert_ne!(
            cpu, gpu,
            "k = {k}: f32 cannot equal f64 here; the GPU did not run?"
        );
    }
}

pub(crate) fn pdes(args: &[&str]) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_command_reads_a_named_csv_column_and_prints_the_documented_json() {
    let dir = std::env::temp_dir().join(format!("pdes-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("x.csv");
    let data = Data::synthetic_lgd(400);
    let mut text = String::from("id,lgd\n");
    let mut i = 0;
    for (x, c) in data.values.iter().zip(&data.counts) {
        for _ in 0..*c {
            text += &format!("{i},{x}\n");
            i += 1;
        }
    }
    std::fs::write(&csv, text).unwrap();
    let path = csv.to_str().unwrap();
    let (code, out, err) = pdes(&[
        "fit",
        path,
        "--column",
        "lgd",
        "--components",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n"], 400);
    assert!(
        v["chosen_components"]
            .as_u64()
            .is_some_and(|k| (1..=2).contains(&k))
    );
    let fits = v["fits"].as_array().unwrap();
    assert_eq!(fits.len(), 2);
    for key in [
        "components",
        "loglik",
        "bic",
        "weights",
        "means",
        "sds",
        "iterations",
    ] {
        assert!(fits[1].get(key).is_some(), "{key}");
    }
    // two columns and no --column: refused, naming the columns
    let (code, _, err) = pdes(&["fit", path]);
    assert_eq!(code, 2);
    assert!(err.contains("--column") && err.contains("lgd"), "{err}");
    for (args, want) in [
        (
            vec!["fit", "cheng2014-lgd", "--components", "0"],
            "--components 0",
        ),
        (
            vec!["fit", "cheng2014-lgd", "--components", "3..11"],
            "1 ≤ A ≤ B ≤ 10",
        ),
        (vec!["fit", path, "--column", "nope"], "--column nope"),
    ] {
        let (code, _, err) = pdes(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains(want) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// `run --samples` writes one value per replication of an M/M/c/k run, which `fit` reads;
/// a model without per-unit outputs is refused before it runs.
#[test]
fn run_samples_feed_the_fit_and_other_models_are_refused() {
    let dir = std::env::temp_dir().join(format!("pdes-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("l.csv");
    let f = file.to_str().unwrap();
    let (code, _, err) = pdes(&[
        "run",
        "teaching-mmck",
        "--set",
        "run.replications=200",
        "--set",
        "run.customers=500",
        "--samples",
        f,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 201, "header + one L̂ per replication");
    let (code, out, err) = pdes(&["fit", f, "--components", "2", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n"], 200);
    let (code, _, err) = pdes(&["run", "teaching-16x16", "--samples", f]);
    assert_eq!(code, 2);
    assert!(err.contains("--samples") && err.contains("torus"), "{err}");
}

#[test]
fn a_fit_stepped_a_few_rounds_at_a_time_is_the_fit_run_whole() {
    // the window runs a fit in steps (a browser frame's share at a time): the same fits
    let data = Data::synthetic_lgd(500);
    let whole = fit::fit_all(&data, &data, 1..=3, quick()).unwrap();
    let mut stepped = fit::Fits::new(&data, 1..=3, quick(), &data);
    let mut steps = 0;
    while stepped.step(&data, 3_000).unwrap() {
        steps += 1;
    }
    assert!(steps > 100, "{steps} steps: the fit was split");
    assert_eq!(stepped.into_fits().unwrap(), whole);
}

/// A few mixtures of different k, some far from the data.
fn assorted_mixtures() -> Vec<Mixture> {
    (1..=10usize)
        .map(|k| Mixture {
            weights: (0..k)
                .map(|j| (j + 1) as f64)
                .map(|w| w / (k * (k + 1) / 2) as f64)
                .collect(),
            means: (0..k).map(|j| (j as f64 - 1.0) / k as f64).collect(),
            sds: (0..k).map(|j| 0.05 + 0.1 * j as f64).collect(),
        })
        .collect()
}

#[test]
fn a_batch_of_mixtures_gives_each_the_log_likelihood_it_has_alone() {
    // a fit's round evaluates many mixtures in one pass: each value must be the one it
    // would have alone, to the bit, or the search would depend on what else was asked
    let data = Data::synthetic_lgd(fit::data::LGD_N);
    let mixes = assorted_mixtures();
    let batch = data.logliks(&mixes);
    assert_eq!(batch.len(), mixes.len());
    for (m, b) in mixes.iter().zip(&batch) {
        assert_eq!(data.loglik(m).to_bits(), b.to_bits(), "k = {}", m.k());
    }
    assert!(batch.windows(2).all(|w| w[0] != w[1]), "{batch:?}");
    let Some(gpu) = common_cfg::gpu() else { return };
    let g = fit::gpu::GpuLoglik::new(gpu, &data).unwrap();
    let on_gpu = g.logliks(&mixes).unwrap();
    for (m, b) in mixes.iter().zip(&on_gpu) {
        assert_eq!(
            g.loglik(m).unwrap().to_bits(),
            b.to_bits(),
            "GPU, k = {}",
            m.k()
        );
    }
    let reversed: Vec<Mixture> = mixes.iter().rev().cloned().collect();
    let back: Vec<f64> = g.logliks(&reversed).unwrap().into_iter().rev().collect();
    assert_eq!(back, on_gpu, "the GPU's values depend on the batch's order");
}

/// Asserts that each fit's maximum ln L is at least that of the fit of one component less.
pub(crate) fn assert_ln_l_never_falls(fits: &[fit::Fit]) {
    for pair in fits.windows(2) {
        assert!(
            pair[1].loglik >= pair[0].loglik,
            "k = {}: {} < {}",
            pair[1].components,
            pair[1].loglik,
            pair[0].loglik
        );
    }
}

#[test]
fn ln_l_never_falls_as_k_grows_and_each_k_says_how_many_starts_agree() {
    // k also starts from the best fit of k − 1 with a component split in two (the same
    // density), so its maximum cannot be below k − 1's
    let data = Data::synthetic_lgd(800);
    let fits = fit::fit_all(&data, &data, 1..=5, quick()).unwrap();
    assert_ln_l_never_falls(&fits);
    assert_eq!(fits[0].starts, 1);
    for f in &fits[1..] {
        assert_eq!(f.starts, 4, "three fixed starts and the split one");
        assert!((1..=f.starts).contains(&f.starts_agreeing), "{f:?}");
    }
}

#[test]
fn a_split_component_is_the_same_density() {
    let m = Mixture {
        weights: vec![0.3, 0.7],
        means: vec![-1.0, 2.0],
        sds: vec![0.5, 1.5],
    };
    let split = m.split(1);
    assert_eq!(split.k(), 3);
    for x in [-3.0, -1.0, 0.0, 0.7, 2.0, 5.0] {
        assert!((split.density(x) - m.density(x)).abs() < 1e-15, "{x}");
    }
}
