//! The fit's part of `pdes-lab verify` on the device: Nelder–Mead run on the GPU (f32,
//! [`super::device`]) against the same method on the host in f64 ([`super::Fits`], its CPU
//! twin) on the shipped sample. Their paths differ (f32 against f64), so what must agree
//! is where they end: each k's maximum ln L within [`AGREE_LOGLIK`], and BIC's choice.

use super::{Data, Search, SearchLoop, data::LGD_N, report};
use crate::verify::Options;
use pdes_gpu::Gpu;
use std::sync::Arc;

/// How far the device's maximum of ln L may lie from the host's, for the k both searches
/// take to convergence on the shipped sample (n = 7,051): a few hundredths of ln L per
/// component's worth of f32 noise in the costs (bench/NOTES.md, "Nelder–Mead on the
/// device").
pub const AGREE_LOGLIK: f64 = 0.5;

/// The label of [`check_device_fit`] on this adapter.
pub fn label(gpu: &Gpu, options: Options) -> String {
    let top = if options.quick { 3 } else { 5 };
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        format!(
            "mixture fit with Nelder–Mead on the device, k = 1..{top}: not run on a software adapter (llvmpipe stops long shader loops; fits iterate on the host there)"
        )
    } else {
        format!(
            "mixture fit with Nelder–Mead on the device (f32) reaches the host's f64 maximum within {AGREE_LOGLIK} of ln L and BIC's k, shipped sample, k = 1..{top}"
        )
    }
}

/// The differences between the device's fit and the host's (empty: they agree).
pub fn check_device_fit(gpu: &Arc<Gpu>, options: Options) -> Result<Vec<String>, String> {
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        return Ok(Vec::new());
    }
    let ks = 1..=if options.quick { 3 } else { 5 };
    let data = Data::synthetic_lgd(LGD_N);
    let search = |iterate_on| Search {
        iterate_on,
        ..Search::default()
    };
    let host = report(&data, ks.clone(), None, search(SearchLoop::Host))?;
    let device = report(&data, ks, Some(gpu.clone()), search(SearchLoop::Device))?;
    let mut diffs = Vec::new();
    if device.chosen_components != host.chosen_components {
        diffs.push(format!(
            "BIC chooses k = {} on the device, {} on the host",
            device.chosen_components, host.chosen_components
        ));
    }
    for (h, d) in host.fits.iter().zip(&device.fits) {
        let on_device = d.loglik + if options.perturb_gpu { 1.0 } else { 0.0 };
        if (on_device - h.loglik).abs() > AGREE_LOGLIK {
            diffs.push(format!(
                "k = {}: ln L {on_device:.4} on the device, {:.4} on the host",
                h.components, h.loglik
            ));
        }
    }
    Ok(diffs)
}
