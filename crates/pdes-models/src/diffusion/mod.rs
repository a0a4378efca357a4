//! The 2-D diffusion grid (Perumalla 2006 §3.1).
//!
//! dQ/dt = αx ∂²Q/∂x² + αy ∂²Q/∂y² + β on `rows × cols` cells of width `dx`, discretized
//! with the explicit five-point stencil. The grid is surrounded by a ring of cells held at
//! the `boundary` temperature (Dirichlet); every one of the `rows × cols` cells evolves and
//! starts at `initial`.
//!
//! The functions here are the one definition of the arithmetic that every engine shares:
//! the CPU engines call them and `shaders/diffusion.wgsl` spells out the same operations in
//! the same order, in f32, so CPU and GPU agree to float rounding.

pub mod config;
pub mod cpu;
pub mod gpu;
mod gpu_setup;
pub mod live;
pub mod shaders;
pub mod verify;

use pdes_core::time::{TICK_BITS, Ticks};

/// Validated parameters of a diffusion grid.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiffusionParams {
    /// Rows of cells.
    pub rows: u32,
    /// Columns of cells.
    pub cols: u32,
    /// Diffusivity along x (columns).
    pub alpha_x: f64,
    /// Diffusivity along y (rows).
    pub alpha_y: f64,
    /// Uniform heating rate β.
    pub beta: f64,
    /// Temperature held by the ring around the grid.
    pub boundary: f64,
    /// Temperature every cell starts at.
    pub initial: f64,
    /// Cell width (the same along x and y).
    pub dx: f64,
}

/// Largest step any diffusion engine takes, in ticks: below 2^24 a tick count converts to
/// f32 exactly, so CPU and GPU multiply by the same step (16 time units).
pub const MAX_STEP_TICKS: u32 = (1 << 24) - 1;

/// The coefficients of the five-point stencil in f32, as every engine uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stencil {
    /// αx / dx².
    pub ax: f32,
    /// αy / dx².
    pub ay: f32,
    /// β.
    pub beta: f32,
    /// The boundary temperature.
    pub boundary: f32,
    /// Cells whose magnitude falls below this are zero ([`Stencil::zero_below_for`]).
    pub zero_below: f32,
}

impl DiffusionParams {
    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.rows * self.cols
    }

    /// Largest stable forward-Euler step: dx² / (2 (αx + αy)); infinite without diffusion.
    pub fn stability_bound(&self) -> f64 {
        let a = self.alpha_x + self.alpha_y;
        if a > 0.0 {
            self.dx * self.dx / (2.0 * a)
        } else {
            f64::INFINITY
        }
    }

    /// Largest step of the hybrid algorithm, in ticks: the stability bound (the synchronous
    /// update is a forward-Euler step), at most [`MAX_STEP_TICKS`].
    pub fn max_step_ticks(&self) -> u32 {
        let b = self.stability_bound() * f64::from(1u32 << TICK_BITS);
        if b >= f64::from(MAX_STEP_TICKS) {
            MAX_STEP_TICKS
        } else {
            (b.floor() as u32).max(1)
        }
    }

    /// Every cell's starting value as the engines hold it (flushed like every cell value).
    pub fn initial_value(&self) -> f32 {
        let v = self.initial as f32;
        if v.abs() < self.stencil().zero_below {
            0.0
        } else {
            v
        }
    }

    /// The stencil coefficients.
    pub fn stencil(&self) -> Stencil {
        let dx2 = self.dx * self.dx;
        let (ax, ay) = ((self.alpha_x / dx2) as f32, (self.alpha_y / dx2) as f32);
        let zero_below = Stencil::zero_below_for(ax, ay);
        let flush = |v: f32| if v.abs() < zero_below { 0.0 } else { v };
        Stencil {
            ax,
            ay,
            beta: self.beta as f32,
            boundary: flush(self.boundary as f32),
            zero_below,
        }
    }

    /// The steady state's temperature when β = 0: every cell at the boundary temperature.
    pub fn steady_state_without_heating(&self) -> f64 {
        self.boundary
    }
}

impl Stencil {
    /// The magnitude below which a cell is zero: the smallest power of two ≥ 2^-60 / a,
    /// a the smaller non-zero coefficient (at least 2^-100).
    ///
    /// Why: with every cell either 0 or at least this large (and β either 0 or at least
    /// 2^-83 in magnitude), no operation of [`Stencil::rate`] and [`Stencil::advance`] can
    /// produce a subnormal. Cells of magnitude ≥ τ are multiples of q = ulp(τ) = τ·2^-23, so
    /// every sum and difference of them is a multiple of q; a·q ≥ 2^-83 makes each product
    /// 0 or ≥ 2^-83, hence a multiple of 2^-106, so the rate is 0 or ≥ 2^-106 and rate·h
    /// (h ≥ one tick, 2^-20) is 0 or ≥ 2^-126; the final add either has a zero cell or two
    /// operands ≥ τ. So the arithmetic never depends on whether hardware keeps subnormals
    /// (x86 does, slowly; NVIDIA flushes them): the GPU gives the CPU's bits with one flush
    /// per cell instead of one per operation. For temperatures of order 1 to 100 the
    /// threshold is invisible (2^-60 ≈ 8.7e-19 for αx/dx² = 1); the preset refuses
    /// coefficients so small that it would not be.
    pub fn zero_below_for(ax: f32, ay: f32) -> f32 {
        let a = [ax, ay]
            .into_iter()
            .filter(|a| *a > 0.0)
            .fold(f32::INFINITY, f32::min);
        if !a.is_finite() {
            return 2f32.powi(-100);
        }
        let k = (f64::from(2f32.powi(-60)) / f64::from(a)).log2().ceil() as i32;
        2f32.powi(k.max(-100))
    }

    /// dQ/dt of a cell from its own value and its west, east, north and south neighbours.
    /// No intermediate can be subnormal (see [`Stencil::zero_below_for`]).
    #[inline]
    pub fn rate(&self, c: f32, w: f32, e: f32, n: f32, s: f32) -> f32 {
        self.ax * ((w + e) - 2.0 * c) + self.ay * ((n + s) - 2.0 * c) + self.beta
    }

    /// A cell's value after moving at `rate` for `h` time units; magnitudes below
    /// `zero_below` become 0. Ahead of the diffusion front the explicit scheme produces
    /// values that shrink by a constant factor every step: without the flush they would
    /// underflow into subnormals, which x86 CPUs handle a hundred times slower and GPUs may
    /// flush or keep.
    #[inline]
    pub fn advance(&self, value: f32, rate: f32, h: f32) -> f32 {
        let v = value + rate * h;
        if v.abs() < self.zero_below { 0.0 } else { v }
    }

    /// dQ/dt of cell (r, col) of grid `q` (row-major), the ring outside at the boundary.
    #[inline]
    pub fn rate_at(&self, q: &[f32], rows: u32, cols: u32, r: u32, col: u32) -> f32 {
        let i = (r * cols + col) as usize;
        let c = q[i];
        let w = if col > 0 { q[i - 1] } else { self.boundary };
        let e = if col + 1 < cols {
            q[i + 1]
        } else {
            self.boundary
        };
        let n = if r > 0 {
            q[i - cols as usize]
        } else {
            self.boundary
        };
        let s = if r + 1 < rows {
            q[i + cols as usize]
        } else {
            self.boundary
        };
        self.rate(c, w, e, n, s)
    }
}

/// A step of `ticks` as the f32 factor every engine multiplies rates by.
#[inline]
pub fn step_units(ticks: u32) -> f32 {
    // exact: ticks < 2^24 (MAX_STEP_TICKS) converts to f32 without rounding
    ticks as f32 * (1.0 / (1u32 << TICK_BITS) as f32)
}

/// The hybrid algorithm's `compute_dt` (paper 001 Fig. 8, step 1.2): the time, in whole
/// ticks, until a cell changing at `rate` has moved one `quantum` (its last published value
/// is its current one, since every cell is updated every step). `quantum_scaled` is the
/// quantum times 2^20 (ticks per unit), as the shader receives it. `cap` when the rate is 0.
///
/// Defined as the largest n in [1, cap] with `n as f32 * |rate| <= quantum_scaled`, so that
/// a GPU gets it bit for bit: its divide may be off by 2.5 ulp (Vulkan's bound), which only
/// seeds the search; the correctly rounded products decide, here and in the shader alike.
#[inline]
pub fn quantum_ticks(quantum_scaled: f32, rate: f32, cap: u32) -> u32 {
    let a = rate.abs();
    if a == 0.0 {
        return cap;
    }
    let t = quantum_scaled / a;
    let mut n = if t >= cap as f32 {
        cap
    } else {
        (t as u32).clamp(1, cap)
    };
    // the shader stops after 16 rounds; from an exact quotient one round is the most needed
    for _ in 0..16 {
        if n > 1 && n as f32 * a > quantum_scaled {
            n -= 1;
        } else if n < cap && (n + 1) as f32 * a <= quantum_scaled {
            n += 1;
        } else {
            break;
        }
    }
    n
}

/// Ticks until a quantized-state cell (paper 001 Fig. 6, after Nutaro) whose value is `x`,
/// last published `q`, moving at `rate`, reaches `q ± quantum`: rounded up so the cell has
/// crossed when it is updated. `None` when it never will (rate 0).
#[inline]
pub fn crossing_ticks(quantum: f32, x: f32, q: f32, rate: f32) -> Option<Ticks> {
    if rate == 0.0 {
        return None;
    }
    let drift = if rate > 0.0 { x - q } else { q - x };
    let left = (f64::from(quantum) - f64::from(drift)).max(0.0);
    let t = left / f64::from(rate.abs()) * f64::from(1u32 << TICK_BITS);
    Some((t.ceil() as Ticks).max(1))
}

/// The diffusion grid in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "diffusion",
    label: "diffusion grid",
    description: "2-D diffusion grid",
    about: "The 2-D heat diffusion grid of Perumalla 2006: time-stepped, discrete-event and hybrid execution.",
    teaching_preset: "teaching-diffusion",
    parse: config::parse,
    presets: &[
        (
            "teaching-diffusion",
            include_str!("../../../../presets/teaching-diffusion.toml"),
        ),
        (
            "perumalla-diffusion-750",
            include_str!("../../../../presets/perumalla-diffusion-750.toml"),
        ),
    ],
    keys: config::KEYS,
    size_keys: "model.rows × model.cols",
    shader_modules: shaders::modules,
    verify: crate::twins::twin_checks::<verify::DiffusionTwins>,
    verify_once: verify::check_once,
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    replicas: None,
    spread: None,
    page_checks: Some(|gpu| {
        Box::pin(crate::twins::twin_page_checks::<verify::DiffusionTwins>(
            gpu,
        ))
    }),
    info: include_str!("info.md"),
    algorithms: &[
        crate::config::AlgorithmInfo::new("timestepped", "timestepped", "Perumalla 2006 Fig. 3: every cell advances by the same fixed step dt, whether it changes or not. Simple and regular; dt must stay under the stability bound dx²/(2(αx+αy))."),
        crate::config::AlgorithmInfo::new("event", "event", "Perumalla 2006 Fig. 6 (Nutaro's quantized states): each cell schedules its own update for when it will have moved one quantum; an update moves the cell and reschedules its neighbours. Only active cells cost anything, one event at a time from a priority queue (CPU only).").cpu_only(),
        crate::config::AlgorithmInfo::new("hybrid", "hybrid", "Perumalla 2006 Fig. 8: every cell computes when it would move one quantum; the earliest of those is the step, and all cells advance together. Steps grow as the grid smooths; on the GPU the minimum is a reduction that never leaves the device."),
    ],
};

#[cfg(test)]
mod tests {
    use super::Stencil;

    /// Every intermediate of `rate` and `advance`, in the engines' order.
    fn intermediates(st: &Stencil, c: f32, w: f32, e: f32, n: f32, s: f32, h: f32) -> Vec<f32> {
        let (we, ns, c2) = (w + e, n + s, 2.0 * c);
        let (dx, dy) = (we - c2, ns - c2);
        let (x, y) = (st.ax * dx, st.ay * dy);
        let f = x + y + st.beta;
        let p = f * h;
        vec![we, ns, c2, dx, dy, x, y, x + y, f, p, c + p]
    }

    #[test]
    fn no_operation_of_the_stencil_is_subnormal_when_cells_are_zero_or_above_the_threshold() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200_000 {
            let r = next();
            let ax = 10f32.powf(-6.0 + (r % 900) as f32 / 100.0); // 1e-6 … 1e3
            let ay = if r & 1 == 0 {
                0.0
            } else {
                ax * (1.0 + (r >> 40) as f32 / 1e7)
            };
            let beta = match (r >> 8) % 3 {
                0 => 0.0,
                1 => 2f32.powi(-83),
                _ => -1.5,
            };
            let st = Stencil {
                ax,
                ay,
                beta,
                boundary: 0.0,
                zero_below: Stencil::zero_below_for(ax, ay),
            };
            let tau = st.zero_below;
            // cells: 0, at or just above the threshold, or ordinary, with either sign
            let mut cell = || {
                let r = next();
                let mag = match r % 4 {
                    0 => 0.0,
                    1 => tau,
                    2 => tau * (1.0 + (r >> 32) as f32 / 4e9),
                    _ => 10f32.powf((r >> 20) as f32 % 30.0 - 10.0),
                };
                if r & (1 << 9) != 0 { -mag } else { mag }
            };
            let (c, w, e, n, s) = (cell(), cell(), cell(), cell(), cell());
            let h = ((next() % (1 << 24)) + 1) as f32 / 1_048_576.0;
            for v in intermediates(&st, c, w, e, n, s, h) {
                assert!(
                    !v.is_subnormal(),
                    "subnormal {v:e}: ax {ax:e} ay {ay:e} β {beta:e} τ {tau:e} cells {c:e} {w:e} {e:e} {n:e} {s:e} h {h:e}"
                );
            }
        }
    }

    #[test]
    fn the_threshold_is_a_power_of_two_at_least_2_to_the_minus_60_over_the_coefficient() {
        assert_eq!(Stencil::zero_below_for(1.0, 1.0), 2f32.powi(-60));
        assert_eq!(Stencil::zero_below_for(0.0, 0.0), 2f32.powi(-100));
        let t = Stencil::zero_below_for(3e-6, 0.0);
        assert!(t >= 2f32.powi(-60) / 3e-6 && t < 2.0 * 2f32.powi(-60) / 3e-6);
        assert_eq!(t.to_bits() & 0x007f_ffff, 0, "a power of two");
    }
}
