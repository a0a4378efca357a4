//! `pdes-lab verify` on whatever adapter is present (lavapipe in CI): it passes there, and
//! it fails, naming the field and both values, when a GPU result is wrong.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::gpu;
use pdes_lab::verify::{Options, run};

#[test]
fn verify_passes_on_this_adapter_with_every_reduction_variant() {
    let Some(g) = gpu() else { return };
    let v = run(&g, Options::default(), |_| {});
    let failures: Vec<_> = v.checks.iter().filter(|c| !c.passed).collect();
    assert!(v.ok(), "{failures:#?}");
    // every variant the adapter has, every engine: reductions, 7 torus, 4 diffusion,
    // 4 DEVS and 4 PHOLD cases (one with far next events) and 11 network cases each (two
    // of them paper 002's open network); then once: window = sequential for the
    // torus, PHOLD and the network, the torus's three blocked cases and its replicas
    // (window, interval/original), the 3 M/M/c/k replication cases, the mixture
    // log-likelihood and the fit with its searches on the device (they use no reductions);
    // and per variant the torus's live sample against the CPU twin mid-run
    assert_eq!(v.checks.len(), v.reductions.len() * 33 + 4 + 3 + 3 + 2 + 1);
    assert_eq!(
        v.checks
            .iter()
            .filter(|c| c.name.starts_with("torus window blocked on the GPU"))
            .count(),
        3
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("phold window on the GPU = sequential"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("network window on the GPU = sequential"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("devs SIR 37×53"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("mixture log-likelihood"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("mmck replications"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.starts_with("torus replicas"))
    );
    assert!(
        v.checks
            .iter()
            .any(|c| c.name.contains("park-fishwick-open interval/boundary"))
    );
    assert!(v.reductions.contains(&"portable".to_string()));
}

#[test]
fn verify_fails_when_a_gpu_result_is_perturbed() {
    let Some(g) = gpu() else { return };
    let options = Options {
        quick: true,
        perturb_gpu: true,
    };
    let v = run(&g, options, |_| {});
    assert!(!v.ok());
    // the reductions' self-check does not go through the engines' reports
    assert!(
        v.checks
            .iter()
            .filter(|c| c.name.starts_with("reductions"))
            .all(|c| c.passed)
    );
    let torus = v
        .checks
        .iter()
        .find(|c| c.name.starts_with("torus window"))
        .unwrap();
    assert!(!torus.passed);
    assert!(
        torus
            .details
            .iter()
            // each segment length's difference, named ("segments of 2048: events: …")
            .any(|d| d.starts_with("segments of ")
                && d.contains("events: CPU ")
                && d.contains(", GPU ")),
        "{:?}",
        torus.details
    );
    // and so do the M/M/c/k replications'
    let mmck = v
        .checks
        .iter()
        .find(|c| c.name.starts_with("mmck replications"))
        .unwrap();
    assert!(!mmck.passed && mmck.details.iter().any(|d| d.starts_with("events: CPU ")));
    let mixture = v
        .checks
        .iter()
        .find(|c| c.name.starts_with("mixture log-likelihood"))
        .unwrap();
    assert!(!mixture.passed && mixture.details[0].starts_with("k = 1: loglik CPU "));
    // each replica's report goes through the same comparison
    let replicas: Vec<_> = v
        .checks
        .iter()
        .filter(|c| c.name.starts_with("torus replicas"))
        .collect();
    assert_eq!(replicas.len(), 2);
    assert!(replicas.iter().all(|c| {
        !c.passed
            && c.details
                .iter()
                .any(|d| d.starts_with("seed 11, d = 1: events: CPU "))
    }));
    let diffusion = v
        .checks
        .iter()
        .find(|c| c.name.starts_with("diffusion"))
        .unwrap();
    assert!(
        diffusion
            .details
            .iter()
            .any(|d| d.starts_with("cell_updates: CPU "))
    );
    let open = v
        .checks
        .iter()
        .find(|c| c.name.contains("park-fishwick-open"))
        .unwrap();
    assert!(
        open.details.iter().any(|d| d.starts_with("events: CPU ")),
        "{:?}",
        open.details
    );
    // on a software adapter the device fit is not run (llvmpipe cuts its loops), and its
    // check says so: nothing there to perturb
    let not_run = v
        .checks
        .iter()
        .filter(|c| c.name.contains("Nelder–Mead on the device") && c.name.contains("not run"))
        .count();
    assert_eq!(v.failed, v.checks.len() - v.reductions.len() - not_run);
}
