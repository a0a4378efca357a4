//! Helpers shared by the integration tests (included with `mod common_cfg;`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing
#![allow(dead_code)]

use pdes_lab::models::torus::config::TorusConfig;
use pdes_lab::models::torus::cpu::{CpuEngine, CpuTorus};
use pdes_lab::sim::{Budget, Engine};

/// A configuration from the default preset with `sets` applied (without the preset's
/// warm-up, so that short runs stay valid; a test sets `run.warmup` itself).
pub fn config(sets: &[&str]) -> TorusConfig {
    let (_, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    for s in std::iter::once(&"run.warmup=0").chain(sets) {
        pdes_lab::preset::apply_set(&mut table, s).unwrap();
    }
    TorusConfig::from_table(&table).unwrap()
}

/// A diffusion configuration from the teaching preset with `sets` applied.
pub fn diffusion_config(sets: &[&str]) -> pdes_lab::models::diffusion::config::DiffusionConfig {
    let (_, text) = pdes_lab::preset::load_text("teaching-diffusion").unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    for s in sets {
        pdes_lab::preset::apply_set(&mut table, s).unwrap();
    }
    pdes_lab::preset::Config::from_table(&table)
        .unwrap()
        .get::<pdes_lab::models::diffusion::config::DiffusionConfig>()
        .cloned()
        .expect("teaching-diffusion is a diffusion preset")
}

/// The configuration of the verify case labelled `label` among `cases` of `models` (a test
/// that runs a verify case with other budgets starts from the very same configuration).
pub fn verify_case<C: Clone + 'static>(
    models: &[&'static pdes_lab::models::ModelInfo],
    cases: &[pdes_lab::models::verify::Case],
    label: &str,
) -> C {
    let case = cases
        .iter()
        .find(|c| c.label == label)
        .unwrap_or_else(|| panic!("no verify case {label:?}"));
    pdes_lab::models::verify::config_of(models, case)
        .unwrap()
        .get::<C>()
        .cloned()
        .unwrap()
}

/// Runs a CPU engine of `cfg` to the end.
pub fn run_cpu(cfg: &TorusConfig) -> CpuEngine {
    let mut e = CpuEngine {
        cpu: CpuTorus::new(cfg),
        config: cfg.clone(),
    };
    e.advance(Budget::Finish).unwrap();
    assert!(e.finished());
    e
}

/// The shared GPU, or None (with a note) when there is none; with PDES_REQUIRE_GPU=1 a
/// missing adapter fails the test instead.
pub fn gpu() -> Option<std::sync::Arc<pdes_lab::gpu::Gpu>> {
    match pdes_lab::gpu::Gpu::shared() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("PDES_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("PDES_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// A network configuration from built-in preset `name` with `sets` applied.
pub fn network_config(
    name: &str,
    sets: &[&str],
) -> pdes_lab::models::network::config::NetworkConfig {
    pdes_lab::preset::config_with(name, sets)
        .unwrap()
        .get::<pdes_lab::models::network::config::NetworkConfig>()
        .cloned()
        .expect("a network preset")
}

/// `pdes-lab bench --suite SUITE --format json` with `extra` arguments: the report's rows,
/// after asserting that the command succeeded (a runner refuses an exact row that differs
/// from its group's reference, so success already says the rows agreed) and, for a suite
/// with GPU rows, that the report names its verify gate with no failure.
pub fn bench_rows(suite: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(["bench", "--suite", suite, "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap().clone();
    if rows.iter().any(|r| r["engine"] == "gpu") {
        let gate = v["verification"].as_str().expect("the verify gate, named");
        assert!(gate.contains(" 0 failed"), "{gate}");
    }
    rows
}

/// Each bench row's (algorithm, engine).
pub fn row_engines(rows: &[serde_json::Value]) -> Vec<(&str, &str)> {
    rows.iter()
        .map(|r| {
            (
                r["algorithm"].as_str().unwrap(),
                r["engine"].as_str().unwrap(),
            )
        })
        .collect()
}
