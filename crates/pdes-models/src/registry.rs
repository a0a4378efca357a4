//! The registry: every model, one line each, in the picker's order. The command line, the
//! engine factory, `verify` and the window find a model here by its `model.kind`.

use crate::config::ModelInfo;
use crate::{devs, diffusion, mmck, network, phold, torus};
use pdes_gpu::shaders::{self, Reductions};

/// Every model, in the picker's order.
pub static MODELS: &[&ModelInfo] = &[
    &torus::INFO,
    &diffusion::INFO,
    &mmck::INFO,
    &devs::SIR_INFO,
    &devs::BENCHMARK_INFO,
    &phold::INFO,
    &network::INFO,
];

/// Every composed WGSL module, by name (for validation tests): every registered model's,
/// with both reduction variants, and the shared ones (the heatmap's is drawn by the window).
pub fn shader_modules() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for r in [Reductions::Portable, Reductions::Subgroup] {
        for m in MODELS {
            for (name, src) in (m.shader_modules)(r) {
                v.push((format!("{} {name} ({r:?})", m.kind), src));
            }
        }
        v.push((
            format!("reduce_check ({r:?})"),
            shaders::reduce_check_module(r),
        ));
    }
    v.push(("heatmap".to_string(), shaders::HEATMAP.to_string()));
    v.push(("fit mixture".to_string(), crate::fit::gpu::module_source()));
    v.push((
        "fit nelder-mead".to_string(),
        crate::fit::device::module_source(),
    ));
    v
}

/// Every model's keys with what they take, as (kind, keys) pairs in the picker's order:
/// what `pdes-lab presets` and the guide's key list show.
pub fn key_tables() -> Vec<(&'static str, &'static [crate::keys::Key])> {
    MODELS.iter().map(|m| (m.kind, m.keys)).collect()
}

/// The model of `model.kind`.
pub fn by_kind(kind: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().copied().find(|m| m.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_algorithm_name_is_unique_and_every_teaching_preset_is_its_model() {
        let mut kinds: Vec<_> = MODELS.iter().map(|m| m.kind).collect();
        kinds.dedup();
        assert_eq!(kinds.len(), MODELS.len());
        for m in MODELS {
            let mut names: Vec<_> = m.algorithms.iter().map(|a| a.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), m.algorithms.len(), "{}", m.kind);
            let (_, text) = crate::preset::load_text(m.teaching_preset).unwrap();
            let cfg = crate::config::Config::from_toml(&text, m.teaching_preset).unwrap();
            assert_eq!(cfg.kind(), m.kind);
            // every listed algorithm is found again from its preset keys
            for a in m.listed() {
                assert_eq!(m.algorithm_of(a.algorithm, a.timestamps), Some(a));
            }
        }
    }
}
