//! Nelder–Mead on the device (`fit::device`): each minimization a workgroup that runs to
//! its end. Its f32 path is its own, so it is checked against the host's f64 search by
//! the maximum it reaches, and by what it reports: f64 likelihoods of the parameters it
//! reports, never falling as k grows, one dispatch per k.

use super::fit::{assert_ln_l_never_falls, three_components, three_truth};
use crate::common_cfg;
use pdes_lab::fit::{self, Data, Mixture, Search, SearchLoop};

/// 40 iterations per parameter: lavapipe (CI) stops a shader's loops after 65,535 passes
/// of them in all, and a workgroup that ends k's last run goes on to k + 1's split start,
/// so the searches on it must be short (the device refuses a search cut short).
fn on(iterate_on: SearchLoop) -> Search {
    Search {
        iterate_on,
        iterations_per_parameter: 40,
    }
}

#[test]
fn the_device_search_reaches_the_hosts_maximum_and_the_same_k() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let data = three_components(240);
    let host = fit::report(&data, 1..=3, None, on(SearchLoop::Host)).unwrap();
    let device = fit::report(&data, 1..=3, Some(gpu), on(SearchLoop::Device)).unwrap();
    assert_eq!(device.iterated_on, "device");
    assert_eq!(device.chosen_components, 3, "{device:#?}");
    assert_eq!(host.chosen_components, 3);
    for (h, d) in host.fits.iter().zip(&device.fits) {
        assert!(
            (h.loglik - d.loglik).abs() < 0.05,
            "k = {}: host {} device {}",
            h.components,
            h.loglik,
            d.loglik
        );
    }
    let f = &device.fits[2];
    let truth = three_truth();
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&a, &b| f.means[a].total_cmp(&f.means[b]));
    for (j, &i) in order.iter().enumerate() {
        assert!((f.means[i] - truth.means[j]).abs() < 0.1, "{f:?}");
        assert!((f.sds[i] / truth.sds[j] - 1.0).abs() < 0.1, "{f:?}");
    }
}

#[test]
fn the_device_reports_f64_likelihoods_of_its_parameters_that_never_fall_as_k_grows() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let data = Data::synthetic_lgd(240);
    let r = fit::report(&data, 1..=3, Some(gpu), on(SearchLoop::Device)).unwrap();
    // one dispatch: the chain of k stays on the device
    assert_eq!(r.rounds, 1);
    for f in &r.fits {
        let mix = Mixture {
            weights: f.weights.clone(),
            means: f.means.clone(),
            sds: f.sds.clone(),
        };
        let exact = data.loglik(&mix);
        assert!(
            (f.loglik - exact).abs() < 1e-9 * exact.abs(),
            "k = {}: reported {}, the f64 ln L of its parameters {exact}",
            f.components,
            f.loglik
        );
    }
    assert_ln_l_never_falls(&r.fits);
    assert_eq!(r.fits[0].starts, 1);
    assert!(r.fits[1..].iter().all(|f| f.starts == 4));
}

#[test]
fn a_device_minimization_never_loses_its_best_point_and_stops_at_its_limit() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let standard = fit::Standardized::of(&Data::synthetic_lgd(500));
    let search = fit::device::DeviceSearch::new(gpu, &standard.data).unwrap();
    let start = |k: usize, limit: u64| fit::device::Start {
        k,
        simplex: fit::search::initial_simplex(1.0, k, &fit::starts(&standard.data, k)[0]),
        max_iterations: limit,
    };
    let out = search.run(&[start(2, 400), start(3, 7)], None).unwrap();
    for o in &out {
        assert!(
            o.trace.windows(2).all(|w| w[1] <= w[0]),
            "the best cost rose: {:?}",
            o.trace
        );
        assert_eq!(o.trace.last(), Some(&o.cost));
    }
    assert_eq!(out[1].iterations, 7, "the limit");
    assert_eq!(out[1].trace.len(), 8, "one best cost per iteration begun");
    assert!(
        out[0].iterations < 400,
        "k = 2 converges: {}",
        out[0].iterations
    );
    assert!(out[0].cost < out[0].trace[0], "the search moved");
}

#[test]
fn auto_gives_a_hardware_gpu_the_search_up_to_65_536_distinct_values_and_a_software_one_never() {
    assert!(SearchLoop::Auto.on_device(65_536, false));
    assert!(!SearchLoop::Auto.on_device(65_537, false));
    assert!(!SearchLoop::Auto.on_device(100, true));
    // asked for, the device takes up to its own limit, on any adapter
    assert!(SearchLoop::Device.on_device(fit::device::MOST_DISTINCT, true));
    assert!(!SearchLoop::Host.on_device(100, false));
}

#[test]
fn data_beyond_the_device_search_are_refused_by_name() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let xs: Vec<f64> = (0..=fit::device::MOST_DISTINCT).map(|i| i as f64).collect();
    let data = Data::new(&xs).unwrap();
    let err = fit::report(&data, 1..=1, Some(gpu), on(SearchLoop::Device))
        .err()
        .unwrap();
    assert!(
        err.starts_with("131,073 distinct values") && err.contains("at most 131,072"),
        "{err}"
    );
}

#[test]
fn a_search_the_driver_cuts_short_is_refused_not_reported() {
    let Some(gpu) = common_cfg::gpu() else { return };
    let software = gpu.info.device_type == wgpu::DeviceType::Cpu;
    let standard = fit::Standardized::of(&Data::synthetic_lgd(fit::data::LGD_N));
    let search = fit::device::DeviceSearch::new(gpu, &standard.data).unwrap();
    // k = 10 takes thousands of passes over the 7,051 values, each 28 passes of the values'
    // loop a thread: far beyond llvmpipe's 65,535 (lavapipe, CI)
    let k = 10;
    let start = fit::device::Start {
        k,
        simplex: fit::search::initial_simplex(1.0, k, &fit::starts(&standard.data, k)[0]),
        max_iterations: 8700,
    };
    match search.run(&[start], None) {
        Err(e) => assert!(software && e.contains("ended a minimization's loop"), "{e}"),
        Ok(out) => assert!(!software, "llvmpipe ran {} iterations", out[0].iterations),
    }
}

#[test]
fn the_command_refuses_a_loop_choice_without_the_gpu_and_names_where_it_iterated() {
    let (code, _, err) = super::fit::pdes(&["fit", "cheng2014-lgd", "--iterate-on", "device"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--iterate-on") && err.contains("--engine gpu"),
        "{err}"
    );
    let (code, out, err) = super::fit::pdes(&[
        "fit",
        "cheng2014-lgd",
        "--components",
        "1..2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"iterated_on\": \"host\""), "{out}");
}
