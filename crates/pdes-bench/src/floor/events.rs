//! The events ladder: a torus step's memory operations alone, without the simulation.

use super::chase::{PairVariants, chase_hash};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use serde::Serialize;

/// One rung of the events ladder: what a step's two passes cost when they do only the
/// memory operations of `active` events per workgroup (`ev_depart`, `ev_arrive` in
/// `shaders/floor.wgsl`).
#[derive(Clone, Debug, Serialize)]
pub struct EventRung {
    /// Departures (and as many arrivals) per workgroup per step.
    pub active: u32,
    /// Microseconds per step (both passes) in a chain of dependent steps, median: the
    /// mailbox with an announcement count, every word read and emptied (the torus until
    /// 70ce220).
    pub us: f64,
    /// The same with the mailbox as a mask of the directions announced, only the flagged
    /// words read, nothing emptied but the mask (`MASKED`; the torus since 70ce220).
    pub masked_us: f64,
}

/// Facilities per segment (one workgroup) of the events ladder (`SEG` in floor.wgsl).
const EVENT_SEG: u32 = 4096;
/// Steps of the events ladder checked against the CPU before each rung is timed.
const CHECKED_STEPS: u32 = 4;
/// An empty token slot (`EV_NONE`).
const EVENT_NONE: u32 = u32::MAX;

/// The events ladder's state, as the GPU holds it (`ev_*` in floor.wgsl).
#[derive(Clone)]
struct EventState {
    fac: Vec<[u32; 4]>,
    dep: Vec<[u32; 2]>,
    mail: Vec<u32>,
    tok: Vec<[u32; 4]>,
    /// Receivers listed by each segment (its first `count` entries; order free).
    list: Vec<u32>,
    /// [0] the step's salt, [1 + w] segment w's receivers.
    ctl: Vec<u32>,
}

impl EventState {
    /// The set-up: every word from the hash, mailboxes empty.
    fn new(facilities: u32) -> Self {
        let k = facilities as usize;
        let word = |i: usize, salt: u32| chase_hash(i as u32 ^ salt);
        Self {
            fac: (0..2 * k)
                .map(|i| std::array::from_fn(|c| word(4 * i + c, 0x2f6b_9d1d)))
                .collect(),
            dep: (0..k)
                .map(|i| std::array::from_fn(|c| word(2 * i + c, 0x61c8_8647)))
                .collect(),
            mail: (0..8 * k)
                .map(|i| if i % 8 < 4 { EVENT_NONE } else { 0 })
                .collect(),
            tok: (0..2 * k)
                .map(|i| std::array::from_fn(|c| word(4 * i + c, 0x7feb_352d)))
                .collect(),
            list: vec![0; k],
            ctl: std::iter::once(0x1234_567e)
                .chain(std::iter::repeat_n(0, k / EVENT_SEG as usize))
                .collect(),
        }
    }

    /// One step of `ev_depart` then `ev_arrive` on the CPU (each store's outcome is
    /// independent of the GPU threads' order: no two departures share a facility or a
    /// destination).
    fn step(&mut self, cols: u32, active: u32, masked: bool) {
        let k = self.dep.len() as u32;
        let rows = k / cols;
        let salt = self.ctl[0];
        let neighbour = |f: u32, dir: u32| {
            let (r, c) = (f / cols, f % cols);
            match dir {
                0 => (r + rows - 1) % rows * cols + c,
                1 => (r + 1) % rows * cols + c,
                2 => r * cols + (c + cols - 1) % cols,
                _ => r * cols + (c + 1) % cols,
            }
        };
        for w in 0..k / EVENT_SEG {
            let offset = chase_hash(salt ^ w.wrapping_mul(0x9e37_79b9));
            let spacing = (EVENT_SEG / active.max(1)).max(1);
            let mut listed = 0;
            for j in 0..active {
                let f = w * EVENT_SEG + (offset.wrapping_add(j * spacing) & (EVENT_SEG - 1));
                let dir = chase_hash(f ^ salt) >> 30;
                let (fu, dest) = (f as usize, neighbour(f, dir) as usize);
                let (t, a, b) = (self.dep[fu], self.fac[2 * fu], self.fac[2 * fu + 1]);
                self.mail[8 * dest + dir as usize] = f;
                let first = self.mail[8 * dest + 4] == 0;
                if masked {
                    self.mail[8 * dest + 4] |= 1 << dir;
                } else {
                    self.mail[8 * dest + 4] += 1;
                }
                self.tok[fu] = [t[0], t[1], EVENT_NONE, b[3].wrapping_add(1)];
                let mut next = t[0].wrapping_add(a[0]).wrapping_add(1);
                if a[3] & 1 == 1 {
                    let nt = self.tok[k as usize + fu];
                    next = next.wrapping_add(nt[0] ^ nt[2]);
                }
                self.dep[fu] = [next, t[1]];
                self.fac[2 * fu] = [a[0].wrapping_add(1), a[1], a[2], a[3]];
                self.fac[2 * fu + 1] = [b[0], t[0], t[1], b[3].wrapping_add(1)];
                if first {
                    self.list[(w * EVENT_SEG + listed) as usize] = dest as u32;
                    listed += 1;
                }
            }
            self.ctl[1 + w as usize] = listed;
        }
        for w in 0..k / EVENT_SEG {
            for j in 0..self.ctl[1 + w as usize] {
                let g = self.list[(w * EVENT_SEG + j) as usize] as usize;
                let (a, b, dg) = (self.fac[2 * g], self.fac[2 * g + 1], self.dep[g]);
                let mut sum = 0u32;
                let mask = self.mail[8 * g + 4];
                for d in 0..4 {
                    let token = if masked && mask >> d & 1 == 0 {
                        EVENT_NONE
                    } else {
                        self.mail[8 * g + d]
                    };
                    if token != EVENT_NONE {
                        let r = self.tok[token as usize];
                        sum = sum.wrapping_add(r[0].wrapping_add(r[3]));
                        if !masked {
                            self.mail[8 * g + d] = EVENT_NONE;
                        }
                    }
                }
                if a[2] & 1 == 1 {
                    self.tok[k as usize + g][2] = sum;
                } else {
                    self.dep[g] = [dg[0].wrapping_add(sum), dg[1]];
                }
                self.fac[2 * g] = [a[0] ^ sum, a[1], a[2], a[3]];
                self.fac[2 * g + 1] = [b[0], b[1].wrapping_add(1), b[2], b[3]];
                self.mail[8 * g + 4] = 0;
            }
        }
        self.ctl[0] = chase_hash(salt);
    }

    /// The six buffers' bytes, in binding order.
    fn bytes(&self) -> [&[u8]; 6] {
        [
            bytemuck::cast_slice(&self.fac),
            bytemuck::cast_slice(&self.dep),
            bytemuck::cast_slice(&self.mail),
            bytemuck::cast_slice(&self.tok),
            bytemuck::cast_slice(&self.list),
            bytemuck::cast_slice(&self.ctl),
        ]
    }

    /// The state from the six buffers' bytes, in binding order.
    fn from_bytes(b: &[Vec<u8>]) -> Self {
        Self {
            fac: bytemuck::pod_collect_to_vec(&b[0]),
            dep: bytemuck::pod_collect_to_vec(&b[1]),
            mail: bytemuck::pod_collect_to_vec(&b[2]),
            tok: bytemuck::pod_collect_to_vec(&b[3]),
            list: bytemuck::pod_collect_to_vec(&b[4]),
            ctl: bytemuck::pod_collect_to_vec(&b[5]),
        }
    }

    /// Every receiver listed, in increasing order: which segment lists a receiver that two
    /// segments' departures reach depends on which announced first, on the GPU as here.
    fn listed(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self.ctl[1..]
            .iter()
            .enumerate()
            .flat_map(|(w, &n)| {
                let at = w * EVENT_SEG as usize;
                self.list[at..at + (n as usize).min(EVENT_SEG as usize)].to_vec()
            })
            .collect();
        all.sort_unstable();
        all
    }
}

/// Times chains of `chain` steps of the events ladder on a `rows` × `cols` torus (a whole
/// number of 4,096-facility segments, one 256-thread workgroup each) for every count of
/// `actives` (departures per workgroup per step): the memory operations of a torus step's
/// events without the simulation around them, with the mailbox as the torus kept it until
/// 70ce220 (a count; every word read and emptied) and as it keeps it since (a mask). Before
/// timing, four steps of each rung and mailbox are checked word for word against
/// `EventState::step` on the CPU.
pub fn event_ladder(
    gpu: &Gpu,
    rows: u32,
    cols: u32,
    actives: &[u32],
    chain: u32,
    repeats: u32,
) -> Result<Vec<EventRung>, String> {
    let k = u64::from(rows) * u64::from(cols);
    if rows < 3 || cols < 3 || k % u64::from(EVENT_SEG) != 0 || 32 * k > gpu.max_storage_buffer() {
        return Err(format!(
            "events ladder: a {rows} × {cols} torus (valid: at least 3 × 3, a multiple of {EVENT_SEG} facilities, 32 bytes each within the adapter's largest binding, {} bytes)",
            gpu.max_storage_buffer()
        ));
    }
    if let Some(a) = actives.iter().find(|&&a| a > EVENT_SEG) {
        return Err(format!(
            "events ladder: {a} departures per workgroup (valid: 0 to {EVENT_SEG})"
        ));
    }
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("events"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/floor.wgsl").into()),
    });
    let layout = kit::layout(device, "events", &[Use::ReadWrite; 6]);
    let pl = kit::pipeline_layout(device, "events", &[&layout]);
    let start = EventState::new(k as u32);
    let buffers: Vec<wgpu::Buffer> = ["fac", "dep", "mail", "tok", "list", "ctl"]
        .iter()
        .zip(start.bytes())
        .map(|(name, bytes)| {
            kit::buffer_init(device, &format!("events {name}"), bytes, kit::STORAGE_RW)
        })
        .collect();
    let refs: Vec<&wgpu::Buffer> = buffers.iter().collect();
    let group = kit::bind_group(device, "events", &layout, &refs);
    let segments = (k / u64::from(EVENT_SEG)) as u32;
    let mut rungs = Vec::new();
    for &active in actives {
        let steps = PairVariants::new(
            device,
            &pl,
            &module,
            ["ev_depart", "ev_arrive"],
            &[("ACTIVE", f64::from(active)), ("COLS", f64::from(cols))],
            "MASKED",
        );
        for masked in [false, true] {
            let mut want = start.clone();
            for _ in 0..CHECKED_STEPS {
                want.step(cols, active, masked);
            }
            // the checked steps from the set-up
            for (b, bytes) in buffers.iter().zip(start.bytes()) {
                gpu.queue.write_buffer(b, 0, bytes);
            }
            let mut enc = device.create_command_encoder(&Default::default());
            steps.encode(&mut enc, &group, segments, CHECKED_STEPS, masked);
            gpu.queue.submit([enc.finish()]);
            let out = kit::read_buffers(gpu, &refs).map_err(|e| e.to_string())?;
            let got = EventState::from_bytes(&out);
            let differs = [
                ("facility records", got.fac != want.fac),
                ("departure times", got.dep != want.dep),
                ("mailboxes", got.mail != want.mail),
                ("token records", got.tok != want.tok),
                ("salt", got.ctl[0] != want.ctl[0]),
                ("receivers listed", got.listed() != want.listed()),
            ];
            if let Some((what, _)) = differs.iter().find(|(_, d)| *d) {
                let how = if masked { ", masked mailboxes" } else { "" };
                return Err(format!(
                    "events ladder ({active} departures per workgroup{how}): the GPU's {what} after {CHECKED_STEPS} steps differ from the CPU's"
                ));
            }
        }
        let (us, masked_us) = steps.time(gpu, &group, segments, chain, repeats)?;
        rungs.push(EventRung {
            active,
            us,
            masked_us,
        });
    }
    Ok(rungs)
}
