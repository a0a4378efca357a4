//! Which GPUs a command spreads its work over (`--devices all` or `--devices 0,1`), each
//! proved equal to the CPU by the quick verification before it takes any work: a device
//! whose engines differ from their CPU twins would put wrong rows among right ones.

use crate::verify::{self, Options};
use pdes_gpu::Gpu;
use std::sync::Arc;

/// The GPUs a command uses: every adapter of the host ([`Gpu::adapters`]) or the listed
/// ones, by their number in that list (`pdes-lab devices` prints it). A number listed
/// twice opens that GPU twice: two devices sharing one GPU (what the tests use where a
/// machine has one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every adapter.
    All,
    /// These adapters, in this order.
    Listed(Vec<usize>),
}

impl std::str::FromStr for Devices {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(Self::All);
        }
        let listed: Result<Vec<usize>, _> = s.split(',').map(|d| d.trim().parse()).collect();
        match listed {
            Ok(v) if !v.is_empty() => Ok(Self::Listed(v)),
            _ => Err(format!(
                "\"{s}\" is neither `all` nor device numbers separated by commas, such as 0,1 (`pdes-lab devices` lists this host's)"
            )),
        }
    }
}

/// Refuses device numbers this host does not have (a mistake in the command, before any
/// device is opened).
pub fn check(devices: &Devices) -> Result<(), String> {
    let count = Gpu::adapters().len();
    let listed = match devices {
        Devices::All => return Ok(()),
        Devices::Listed(v) => v,
    };
    match listed.iter().find(|&&i| i >= count) {
        None => Ok(()),
        Some(&i) => Err(format!("--devices: {}", pdes_gpu::no_device(i, count))),
    }
}

/// One line per adapter of the host: its number, name, backend and kind, and what its
/// last GPU ≡ CPU check with this build found ([`crate::trust`]).
pub fn list() -> Vec<String> {
    Gpu::adapters()
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let info = a.get_info();
            let state = crate::trust::recall(&info).map_or_else(
                || "GPU = CPU not checked yet with this build".to_string(),
                |r| r.state(),
            );
            format!(
                "{i}: {} ({:?}, {}, {:?}) — {state}",
                info.name, info.backend, info.driver_info, info.device_type
            )
        })
        .collect()
}

/// Opens `devices` and runs the quick verification on each (all at once, one thread per
/// device); `progress` receives one line per device as it passes. Refuses the whole set if
/// any device cannot be opened or differs from the CPU, naming it.
pub fn open_verified(
    devices: &Devices,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<Arc<Gpu>>, String> {
    let indices: Vec<usize> = match devices {
        Devices::All => (0..Gpu::adapters().len()).collect(),
        Devices::Listed(v) => v.clone(),
    };
    if indices.is_empty() {
        return Err(
            "--devices all: this host has no GPU adapter with Vulkan, Metal or DX12".into(),
        );
    }
    let opened: Vec<Result<(Arc<Gpu>, String), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = indices
            .iter()
            .map(|&i| scope.spawn(move || verified(i)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the verification stopped unexpectedly".into()))
            })
            .collect()
    });
    let mut gpus = Vec::new();
    for (&i, r) in indices.iter().zip(opened) {
        let (gpu, line) = r.map_err(|e| format!("--devices: device {i}: {e}"))?;
        progress(format!("device {i}: {line}"));
        gpus.push(gpu);
    }
    Ok(gpus)
}

/// Device `index`, opened and verified, with the verification's summary line: a check
/// this build passed on this adapter and driver is remembered ([`crate::trust`]) and not
/// made again.
fn verified(index: usize) -> Result<(Arc<Gpu>, String), String> {
    let gpu = Arc::new(Gpu::open(index)?);
    if let Some(r) = crate::trust::recall(&gpu.info).filter(|r| r.ok()) {
        let line = format!(
            "{}, GPU = CPU: {} checks passed (checked {})",
            gpu.describe(),
            r.passed,
            r.date
        );
        return Ok((gpu, line));
    }
    let options = Options {
        quick: true,
        perturb_gpu: false,
    };
    let v = verify::run(&gpu, options, |_| {});
    crate::trust::remember(&gpu.info, v.passed, v.failed);
    if !v.ok() {
        return Err(format!(
            "{}: GPU differs from CPU in {} of {} quick checks (first: {}); not used",
            gpu.describe(),
            v.failed,
            v.passed + v.failed,
            v.first_failure().unwrap_or_default()
        ));
    }
    let line = format!("{}, GPU = CPU: {} checks passed", gpu.describe(), v.passed);
    Ok((gpu, line))
}
