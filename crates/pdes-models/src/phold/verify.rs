//! PHOLD's part of `pdes-lab verify`: the window on the GPU against its CPU twin (step
//! logs, reports and every pending event and LP count after each budget), on event counts
//! that are not multiples of a workgroup's tokens, remote and local, and once against the
//! sequential simulator.

use super::config::{PholdAlgorithm, PholdConfig};
use super::cpu::CpuPhold;
use super::gpu::GpuPhold;
use crate::config::ModelInfo;
use crate::twins::Twins;
use crate::verify::{Case, CheckResult, Options, compare_reports, gpu_err, timed};
use pdes_core::sim::Engine;
use pdes_core::sim::waiting::when_back;
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

/// The cases.
const CASES: &[Case] = &[
    Case {
        label: "1000 LPs × 3, remote 1, lookahead 0.1, T = 30",
        preset: "teaching-phold",
        sets: &["model.lps=1000", "model.population=3", "run.end_time=30"],
        quick: true,
    },
    Case {
        label: "4099 LPs × 2, remote 0.3, lookahead 0.05, mean 2, T = 40, seed 7",
        preset: "teaching-phold",
        sets: &[
            "model.lps=4099",
            "model.population=2",
            "model.remote=0.3",
            "model.lookahead=0.05",
            "model.mean=2",
            "run.end_time=40",
            "run.seed=7",
        ],
        quick: false,
    },
    Case {
        // the next event often 4,096 time units or more past a step's bound: the next pass
        // reduces the workgroups' exact least times (phold.wgsl)
        label: "3 LPs × 1, lookahead 0.5, mean 4000, T = 200,000 (far next events)",
        preset: "teaching-phold",
        sets: &[
            "model.lps=3",
            "model.population=1",
            "model.lookahead=0.5",
            "model.mean=4000",
            "run.end_time=200000",
        ],
        quick: false,
    },
    Case {
        label: "2^20 LPs, the peer's configuration, T = 2",
        preset: "phold",
        sets: &["run.end_time=2"],
        quick: false,
    },
];

/// PHOLD's engines for the harness (`crate::twins`): the window on the GPU against its CPU
/// twin, then every pending event and LP count.
pub struct PholdTwins;

impl Twins for PholdTwins {
    type Config = PholdConfig;
    type Cpu = CpuPhold;
    type Gpu = GpuPhold;
    const KIND: &'static str = "phold";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &PholdConfig,
        r: Reductions,
    ) -> Result<Vec<(String, CpuPhold, GpuPhold)>, String> {
        let mut twin = cfg.clone();
        twin.algorithm = PholdAlgorithm::Window;
        let g = GpuPhold::with_reductions(gpu.clone(), &twin, r).map_err(gpu_err)?;
        Ok(vec![(String::new(), CpuPhold::new(&twin), g)])
    }

    fn end(cfg: &PholdConfig) -> Ticks {
        cfg.end_ticks()
    }

    async fn compare_states(
        _: &PholdConfig,
        cpu: &CpuPhold,
        g: &mut GpuPhold,
    ) -> Result<Vec<String>, String> {
        let gs = when_back(|| g.download_state()).await.map_err(gpu_err)?;
        let mut diffs = Vec::new();
        let differ = (0..cpu.state.events.len())
            .filter(|&i| cpu.state.events[i] != gs.events[i])
            .count();
        if differ > 0 {
            diffs.push(format!("{differ} pending events differ"));
        }
        if cpu.state.counts != gs.counts {
            diffs.push("the LP counts differ".into());
        }
        Ok(diffs)
    }
}

/// The window on the GPU against sequential on the CPU (the registry's `verify_once`).
pub fn check_once(gpu: &Arc<Gpu>, options: Options, record: &mut dyn FnMut(CheckResult)) {
    record(timed(
        "phold window on the GPU = sequential on the CPU, 5000 LPs × 2, T = 25".into(),
        || {
            let cfg = crate::verify::config_of(
                &[&super::INFO],
                &Case {
                    label: "",
                    preset: "teaching-phold",
                    sets: &["model.lps=5000", "model.population=2", "run.end_time=25"],
                    quick: true,
                },
            )?;
            let Some(cfg) = cfg.get::<PholdConfig>() else {
                return Err("not a PHOLD configuration".into());
            };
            let mut seq_cfg = cfg.clone();
            seq_cfg.algorithm = PholdAlgorithm::Sequential;
            let mut seq = CpuPhold::new(&seq_cfg);
            let mut g = GpuPhold::new(gpu.clone(), cfg).map_err(gpu_err)?;
            seq.advance(pdes_core::sim::Budget::Finish);
            g.advance(pdes_core::sim::Budget::Finish).map_err(gpu_err)?;
            let (rs, mut rg) = (
                Engine::report(&mut seq).map_err(gpu_err)?,
                g.report().map_err(gpu_err)?,
            );
            if options.perturb_gpu {
                rg.perturb_work();
            }
            let mut diffs: Vec<String> = compare_reports(&rs, &rg)
                .into_iter()
                .filter(|d| {
                    !d.starts_with("algorithm")
                        && !d.starts_with("steps")
                        && !d.contains("events_per_step")
                })
                .collect();
            if seq.state != g.download_state().map_err(gpu_err)? {
                diffs.push("the pending events or LP counts differ".into());
            }
            Ok(diffs)
        },
    ));
}
