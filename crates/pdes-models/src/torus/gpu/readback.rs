//! What the torus's GPU engine reads back: its state (every replica's, or the newest for
//! what is only shown), the exact per-workgroup sums, the replicas' summaries and logs, the
//! error steps and the measures — the host side of the engine, apart from its stepping.

use super::*;
use rayon::prelude::*;

impl GpuTorus {
    /// Downloads the whole network state (for checks, statistics and the heatmap). The
    /// per-facility statistics fields are left zero: the GPU keeps those per workgroup.
    /// With several replicas: replica 0's.
    pub fn download_state(&self) -> Result<TorusState, SimError> {
        Ok(self.download_states()?.swap_remove(0))
    }

    /// Every replica's state (token numbers local to the replica, as in its own run).
    pub fn download_states(&self) -> Result<Vec<TorusState>, SimError> {
        let ranges = self.state_ranges();
        if self.gpu.defers_readbacks() {
            let bytes = pdes_gpu::read_ranges_since(&self.gpu, &ranges, self.advance.work())?;
            return Ok(self.states_of(&bytes.iter().map(Vec::as_slice).collect::<Vec<_>>()));
        }
        // decoded where the bytes lie (a sweep's replicas are hundreds of MB)
        pdes_gpu::read_ranges_with(&self.gpu, &ranges, |bytes| self.states_of(bytes))
    }

    /// Replica 0's state for what is only shown (the time strip, a followed token): on a
    /// page's device the newest state read back, a frame or two old while the run goes on
    /// ([`pdes_gpu::read_ranges_latest`]); elsewhere [`GpuTorus::download_state`].
    pub fn shown_state(&self) -> Result<TorusState, SimError> {
        let bytes = pdes_gpu::read_ranges_latest(&self.gpu, &self.state_ranges())?;
        let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        Ok(self.states_of(&slices).swap_remove(0))
    }

    /// What a state is read from: departures, last arrivals, facilities, tokens.
    fn state_ranges(&self) -> [(&wgpu::Buffer, u64, u64); 4] {
        let r = &self.buffers.regions;
        [
            r.departures.range(),
            r.last_arr.range(),
            r.facilities.range(),
            r.tok.range(),
        ]
    }

    /// Every replica's state from [`Self::state_ranges`]' bytes.
    fn states_of(&self, bytes: &[&[u8]]) -> Vec<TorusState> {
        let dep: &[[u32; 2]] = bytemuck::cast_slice(bytes[0]);
        let last: &[[u32; 2]] = bytemuck::cast_slice(bytes[1]);
        // two words of four per facility (common.wgsl, struct Fac)
        let fac: &[[[u32; 4]; 2]] = bytemuck::cast_slice(bytes[2]);
        let records: &[[u32; 4]] = bytemuck::cast_slice(bytes[3]);
        let cfg = &self.config;
        let k1 = cfg.model.facilities() as usize;
        let n1 = cfg.model.tokens() as usize;
        let original = last.len() == dep.len();
        let states = self.runs.par_iter().enumerate().map(|(r, run)| {
            let words = StateWords {
                dep: &dep[r * k1..(r + 1) * k1],
                last: original.then(|| &last[r * k1..(r + 1) * k1]),
                fac: &fac[r * k1..(r + 1) * k1],
                tok: &records[r * n1..(r + 1) * n1],
            };
            decode_state(&run.apply(cfg), run.seed, (r * n1) as u32, &words)
        });
        states.collect()
    }

    /// The GPU's exact sums from the warm-up on: busy and sojourn ticks (128-bit) and the
    /// visits completed; with several replicas, replica 0's.
    pub fn accumulated(&self) -> Result<Accumulated, SimError> {
        Ok(self.accumulated_per_replica()?[0])
    }

    /// [`GpuTorus::accumulated`] of every replica (the sums of its segments).
    fn accumulated_per_replica(&self) -> Result<Vec<Accumulated>, SimError> {
        let bytes = match &self.acc_at_head {
            Some(b) => b.clone(),
            // a page's device: only with a control block, or a sample's sums and time could
            // be of different steps
            None if self.gpu.defers_readbacks() => return Err(SimError::NotYet),
            None => read_ranges(&self.gpu, &[self.buffers.regions.wg_acc.range()])?.swap_remove(0),
        };
        let acc: &[[[u32; 4]; 2]] = bytemuck::cast_slice(&bytes);
        let per = acc.len() / self.runs.len();
        Ok(acc
            .chunks(per)
            .map(|segments| {
                segments
                    .iter()
                    .fold(Accumulated::default(), |sum, [sums, counts]| Accumulated {
                        busy: sum.busy + u128::from(join([sums[0], sums[1]])),
                        sojourn: sum.sojourn + u128::from(join([sums[2], sums[3]])),
                        completions: sum.completions + join([counts[0], counts[1]]),
                    })
            })
            .collect())
    }

    /// Every replica's summary, in the order of the runs (each as its own run would give
    /// it: its configuration's `run.seed` and `run.d` are the replica's).
    pub fn replica_summaries(&self) -> Result<Vec<Summary>, SimError> {
        let mut phases = pdes_gpu::stamps::HostPhases::start("torus summaries");
        let states = self.download_states()?;
        phases.mark("states read back");
        let sums = self.accumulated_per_replica()?;
        let out = states
            .par_iter()
            .zip(sums)
            .zip(self.ctls.par_iter().zip(&self.runs))
            .map(|((state, sums), (c, run))| {
                let horizon = c.head.now(self.end);
                let mut m = stats::measure(state, horizon)?;
                sums.add_to(&mut m);
                m.causality_errors = join(c.head.errors);
                let cfg = run.apply(&self.config);
                Ok(Summary::new(&cfg, &c.head.totals(), &m))
            })
            .collect::<Result<Vec<_>, SimError>>();
        phases.mark("measured");
        out
    }

    /// Replica `r`'s step log.
    pub fn replica_log(&self, r: usize) -> &[StepRecord] {
        &self.logs[r]
    }

    /// Last-error step of every facility (the step index of its latest causality error).
    pub fn error_steps(&self) -> Result<Vec<u32>, SimError> {
        let bytes = pdes_gpu::read_ranges_since(
            &self.gpu,
            &[self.buffers.regions.err_step.range()],
            self.advance.work(),
        )?;
        Ok(bytemuck::cast_slice(&bytes[0]).to_vec())
    }

    /// The number of the engine's latest batch of work on its device (what its deferred
    /// readbacks must be taken after: [`pdes_gpu::read_ranges_since`]).
    pub fn work(&self) -> u64 {
        self.advance.work()
    }

    /// Total causality errors so far.
    pub fn causality_errors(&self) -> u64 {
        join(self.ctl.errors)
    }

    /// Measures over the downloaded state plus the GPU's exact per-workgroup sums.
    pub fn measures(&self) -> Result<Measures, SimError> {
        let state = self.download_state()?;
        let horizon = self.now().min(self.end);
        let mut m = stats::measure(&state, horizon)?;
        self.accumulated()?.add_to(&mut m);
        m.causality_errors = self.causality_errors();
        Ok(m)
    }
}
