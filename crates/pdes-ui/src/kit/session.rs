//! One running simulation as the app sees it: the model's engine behind
//! [`pdes_gpu::LiveEngine`] (CPU or GPU), the display buffer its heatmap reads, and the
//! samples its plots draw.

use pdes_core::sim::{Budget, Engine, SimError};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
pub use pdes_gpu::Sample;
use pdes_models::preset::Config;
use pdes_runs::engines::{GpuFallback, LiveEngine};
use std::sync::Arc;

/// A simulation the app runs and draws.
pub struct Session {
    /// Its validated configuration.
    pub config: Config,
    /// What its model shows in the window (hover, inspector, monitors, plots, form).
    pub panel: &'static crate::kit::panel::Panel,
    /// The engine (the model's own engine behind the window's interface).
    pub engine: Box<dyn LiveEngine>,
    /// Heatmap words per cell, on the GPU: (tokens, latest error step) for the torus,
    /// (temperature's f32 bits, 0) for diffusion.
    pub display: Option<wgpu::Buffer>,
    /// Plot samples, one every few frames.
    pub samples: Vec<Sample>,
    /// Why the requested engine could not be used, if it fell back to the CPU.
    pub note: Option<String>,
    /// Earlier runs whose curves the plots draw faintly (oldest first; see
    /// [`Session::keep_as_ghost`]).
    pub ghosts: Vec<crate::kit::plots::Ghost>,
    gpu: Option<Arc<Gpu>>,
}

impl Session {
    /// What its plots read: its configuration and samples.
    pub fn trace(&self) -> crate::kit::plots::Trace<'_> {
        crate::kit::plots::Trace {
            config: &self.config,
            samples: &self.samples,
        }
    }

    /// Takes `old`'s ghosts, and `old` itself as the newest one, where it ran the same model
    /// with other parameters and has curves to show (a reset of the same parameters keeps
    /// no ghost: the same curve again says nothing); the oldest beyond [`GHOSTS`] go.
    ///
    /// [`GHOSTS`]: crate::kit::plots::GHOSTS
    pub fn keep_as_ghost(&mut self, old: &Session) {
        if old.config.kind() != self.config.kind() {
            return;
        }
        self.ghosts = old.ghosts.clone();
        if old.samples.len() >= 2 && old.config != self.config {
            self.ghosts.push(crate::kit::plots::Ghost {
                label: difference(&old.config, &self.config),
                config: old.config.clone(),
                samples: old.samples.clone(),
            });
        }
        let extra = self.ghosts.len().saturating_sub(crate::kit::plots::GHOSTS);
        self.ghosts.drain(..extra);
    }

    /// Builds the engine `config` asks for, shown with its model's `panel`. The GPU engines
    /// need `gpu` and an algorithm they implement; otherwise the session runs on the CPU and
    /// `note` says why.
    pub fn new(
        config: Config,
        panel: &'static crate::kit::panel::Panel,
        gpu: Option<Arc<Gpu>>,
    ) -> Result<Self, SimError> {
        let (engine, note) = pdes_runs::engines::build(&config, gpu.clone(), GpuFallback::Cpu)?;
        let (rows, cols) = config.shape();
        // The heatmap words need one buffer of 8 bytes per cell; past the adapter's limit
        // the heatmap is off (the simulation still runs).
        let display_bytes = 8 * u64::from(rows) * u64::from(cols);
        let display = gpu
            .as_ref()
            .filter(|g| display_bytes <= g.max_storage_buffer())
            .map(|g| {
                g.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("heatmap cells"),
                    size: display_bytes,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            });
        let mut s = Self {
            config,
            panel,
            engine,
            display,
            samples: Vec::new(),
            note,
            ghosts: Vec::new(),
            gpu,
        };
        s.refresh_display();
        s.sample()?;
        Ok(s)
    }

    /// (rows, cols) of the grid.
    pub fn shape(&self) -> (u32, u32) {
        self.config.shape()
    }

    /// The end time in time units.
    pub fn end_time(&self) -> f64 {
        self.config.end_time()
    }

    /// The algorithm's name as the UI shows it (the registry's label).
    pub fn algorithm_label(&self) -> String {
        self.config.algorithm_info().label.to_string()
    }

    /// The engine through the common interface.
    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    fn engine_mut(&mut self) -> &mut dyn Engine {
        self.engine.as_mut()
    }

    /// "gpu" or "cpu": where it actually runs.
    pub fn runs_on(&self) -> &'static str {
        self.engine.runs_on()
    }

    /// Bytes of GPU memory the engine uses (0 on the CPU).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.engine.gpu_memory_bytes().unwrap_or(0)
    }

    /// Advances within `budget`, then refreshes the heatmap words.
    pub fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        self.engine_mut().advance(budget)?;
        self.refresh_display();
        Ok(())
    }

    /// Goes on with the last budget where the engine returned before spending it (a GPU
    /// engine in a browser tab, whose batch comes back a frame later): what a paused window
    /// calls each frame, so that a Step lands. True once nothing is on its way.
    pub fn settle(&mut self) -> Result<bool, SimError> {
        let settled = self.engine_mut().settle()?;
        if self.defers_readbacks() {
            self.refresh_display();
        }
        Ok(settled)
    }

    /// True where the heatmap is drawn by the window's wgpu pass straight from
    /// [`Session::display`]: the device is the renderer's. A page's device (deferred
    /// readbacks) is WebGPU for the engines only, the window drawing with WebGL2: there the
    /// heatmap is a texture of the words read back.
    pub fn draws_with_wgpu(&self) -> bool {
        self.display.is_some() && self.gpu.as_ref().is_some_and(|g| !g.defers_readbacks())
    }

    /// True where the engine's results come back on later frames (a GPU engine on a
    /// browser tab's device): the heatmap and hover then show the newest words there are.
    fn defers_readbacks(&self) -> bool {
        self.runs_on() == "gpu" && self.gpu.as_ref().is_some_and(|g| g.defers_readbacks())
    }

    /// Simulated time reached (ticks), capped at the end time.
    pub fn now(&self) -> Ticks {
        self.engine().now().min(self.config.end_ticks())
    }

    /// Steps so far.
    pub fn steps(&self) -> u64 {
        self.engine().totals().steps
    }

    /// Writes the heatmap words: a compute pass for the GPU engines, an upload for CPU ones.
    pub fn refresh_display(&mut self) {
        if let (Some(buf), Some(gpu)) = (&self.display, &self.gpu) {
            self.engine.write_display(gpu, buf);
        }
    }

    /// The heatmap words, computed on the CPU (for CPU engines, PNG export and tests). For a
    /// GPU engine in a browser tab: the display pass's words as last read back (a frame or
    /// two old while the run goes on), or [`SimError::NotYet`] before the first are back.
    pub fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        match (&self.display, &self.gpu) {
            (Some(buf), Some(gpu)) if self.defers_readbacks() => {
                let bytes = pdes_gpu::read_ranges_latest(gpu, &[(buf, 0, buf.size())])?;
                Ok(bytemuck::cast_slice(&bytes[0]).to_vec())
            }
            _ => self.engine.display_words(),
        }
    }

    /// One cell's heatmap words: 8 bytes read back from the display buffer (refreshed after
    /// every advance), or, without a GPU, from the engine's words.
    pub fn display_word(&self, cell: u32) -> Option<[u32; 2]> {
        match (&self.display, &self.gpu) {
            (Some(buf), Some(gpu)) => {
                let bytes =
                    pdes_gpu::read_ranges_latest(gpu, &[(buf, 8 * u64::from(cell), 8)]).ok()?;
                Some(bytemuck::pod_read_unaligned::<[u32; 2]>(&bytes[0]))
            }
            _ => self
                .engine
                .display_words()
                .ok()?
                .get(cell as usize)
                .copied(),
        }
    }

    /// Appends a plot sample (none while a GPU engine in a browser tab has not read its
    /// first control block back: a sample is taken a few frames later).
    pub fn sample(&mut self) -> Result<(), SimError> {
        match self.engine.sample(self.now()) {
            // a sample at the time and step of the last replaces it (the run's end was
            // sampled twice: the series CSV ended in a duplicated row, issue 56 §5)
            Ok(x) => match self.samples.last_mut() {
                Some(last) if (last.time, last.steps) == (x.time, x.steps) => *last = x,
                _ => self.samples.push(x),
            },
            Err(SimError::NotYet) => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// The values `old` had where it differs from `new`, as `--set` strings ("run.d=1,
/// run.seed=2"), or "earlier run" where no key tells them apart.
fn difference(old: &Config, new: &Config) -> String {
    let table = |c: &Config| c.to_toml("").parse::<toml::Table>().unwrap_or_default();
    let differ = pdes_models::link::differing_sets(&table(new), &table(old));
    if differ.is_empty() {
        "earlier run".to_string()
    } else {
        differ.join(", ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_ghost_is_named_by_the_values_it_had_where_it_differs() {
        let old = pdes_models::preset::config_with("teaching-16x16", &[]).unwrap();
        let new =
            pdes_models::preset::config_with("teaching-16x16", &["run.d=4", "run.seed=9"]).unwrap();
        let d = old
            .get::<pdes_models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .d;
        let label = super::difference(&old, &new);
        assert!(label.contains(&format!("run.d={d}")), "{label}");
        assert!(label.contains("run.seed="), "{label}");
        assert_eq!(super::difference(&old, &old), "earlier run");
    }
}
