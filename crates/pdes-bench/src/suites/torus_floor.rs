//! The `floor` suite: what the device gives before any model runs — an empty and a
//! dependent dispatch, copy and stream bandwidth, random-sector rates, chains of passes
//! over buffers, and the stencil, latency, events and block ladders (bench/NOTES.md reads
//! each model's time against them).

use crate::BenchOptions;
use pdes_core::Error as CliError;

/// Buffer sizes of the `floor` suite's pass chains: 4 MiB, the diffusion grid at 2048² (f32,
/// 16 MiB), the torus's departure times at 2048² (8 bytes each, 32 MiB), and 64 MiB.
const FLOOR_PASS_SIZES: [u64; 4] = [4 << 20, 16 << 20, 32 << 20, 64 << 20];

/// Side of the `floor` suite's stencil ladder: the diffusion benchmark's 2048² grid.
const FLOOR_STENCIL_SIDE: u32 = 2048;

/// The `floor` suite's latency ladder: the torus step's shape at 2048² — 1,024 workgroups
/// of 256 threads over 2²² records of 32 bytes (the facility records, 128 MiB) — with all
/// threads active or 52 (the events per workgroup of a d = 0.25 step), 0 to 16 dependent
/// reads per thread.
const FLOOR_CHASE_RECORDS_LOG2: u32 = 22;
const FLOOR_CHASE_WORKGROUPS: u32 = 1024;
const FLOOR_CHASE_ACTIVE: [u32; 2] = [52, 256];
const FLOOR_CHASE_DEPTHS: [u32; 6] = [0, 1, 2, 4, 8, 16];

/// The `floor` suite's events ladder: a 2048² torus step's memory operations alone at 0
/// to 416 departures per workgroup (a d = 0.25 step has ~52, d = 1 ~207, d = 2 ~410).
const FLOOR_EVENTS_SIDE: u32 = 2048;
const FLOOR_EVENTS_ACTIVE: [u32; 7] = [0, 13, 26, 52, 104, 208, 416];

/// The `floor` suite's block ladder: the latency ladder's shape (1,024 workgroups over 2²²
/// records of 32 bytes), 52 or 256 threads per workgroup reading one sector per pass.
const FLOOR_BLOCK_ACTIVE: [u32; 2] = [52, 256];

/// The `floor` suite's one row: the device's floors, the stencil ladder, the latency
/// ladder, the events ladder and the block ladder.
#[derive(serde::Serialize)]
struct FloorRow {
    #[serde(flatten)]
    floors: crate::floor::Floors,
    stencil_side: u32,
    stencil: Vec<crate::floor::StencilRung>,
    chase_records_log2: u32,
    chase_workgroups: u32,
    chase: Vec<crate::floor::ChaseRung>,
    events_side: u32,
    events: Vec<crate::floor::EventRung>,
    block: Vec<crate::floor::BlockRung>,
}

/// Runs the `floor` suite: 10,000 dispatches per chain, a 1 GiB copy (or the adapter's largest
/// buffer), chains of 1,000 passes over `FLOOR_PASS_SIZES`, medians of `--repeat` (at
/// least 3) after a warm-up.
pub fn run(options: &BenchOptions) -> Result<(), CliError> {
    let row = measure(options.repeat.max(3))?;
    let table = table(&row);
    eprint!("{table}");
    crate::write_report("floor", options, &[row], &table, None)
}

/// Measures every floor and ladder, medians of `repeat` after a warm-up.
fn measure(repeat: u32) -> Result<FloorRow, CliError> {
    let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
    let f = crate::floor::measure(&gpu, 10_000, 1 << 30, &FLOOR_PASS_SIZES, 1_000, repeat)
        .map_err(CliError::Run)?;
    let stencil = crate::floor::stencil_ladder(&gpu, FLOOR_STENCIL_SIDE, 1_000, repeat)
        .map_err(CliError::Run)?;
    let chase = crate::floor::chase_ladder(
        &gpu,
        FLOOR_CHASE_RECORDS_LOG2,
        FLOOR_CHASE_WORKGROUPS,
        &FLOOR_CHASE_ACTIVE,
        &FLOOR_CHASE_DEPTHS,
        1_000,
        repeat,
    )
    .map_err(CliError::Run)?;
    let events = crate::floor::event_ladder(
        &gpu,
        FLOOR_EVENTS_SIDE,
        FLOOR_EVENTS_SIDE,
        &FLOOR_EVENTS_ACTIVE,
        1_000,
        repeat,
    )
    .map_err(CliError::Run)?;
    let block = crate::floor::block_ladder(
        &gpu,
        FLOOR_CHASE_RECORDS_LOG2,
        FLOOR_CHASE_WORKGROUPS,
        &FLOOR_BLOCK_ACTIVE,
        1_000,
        repeat,
    )
    .map_err(CliError::Run)?;
    Ok(FloorRow {
        floors: f,
        stencil_side: FLOOR_STENCIL_SIDE,
        stencil,
        chase_records_log2: FLOOR_CHASE_RECORDS_LOG2,
        chase_workgroups: FLOOR_CHASE_WORKGROUPS,
        chase,
        events_side: FLOOR_EVENTS_SIDE,
        events,
        block,
    })
}

/// The floors as the report's text table.
fn table(row: &FloorRow) -> String {
    let FloorRow {
        floors: f,
        stencil,
        chase,
        events,
        block,
        ..
    } = row;
    let mut table = format!(
        "empty dispatch      {:>8.3} µs (chain of {} in one pass)\ndependent dispatch  {:>8.3} µs\n  two pipelines     {:>8.3} µs (the chain alternating between two of the same code)\nbuffer copy         {:>8.1} GB/s ({} MiB, read + written)\nshader stream       {:>8.1} GB/s ({} MiB read once by a compute shader)\nrandom sectors      {:>8.1} M/s ({} random 16-byte reads, one per 32-byte sector)\n  in 64-byte pairs  {:>8.1} M/s (as many, both sectors of random 64-byte blocks)\n",
        f.empty_dispatch_us,
        f.dispatches,
        f.dependent_dispatch_us,
        f.dependent_alternating_us,
        f.copy_gb_per_s,
        f.copy_bytes >> 20,
        f.stream_gb_per_s,
        f.stream_bytes >> 20,
        f.gather_m_per_s,
        f.gather_reads,
        f.gather_pairs_m_per_s
    );
    table += "dependent passes over a buffer, chains of 1,000 (µs per pass; GB/s moved):\n";
    for p in &f.passes {
        let mib = p.bytes as f64 / f64::from(1u32 << 20);
        table += &format!(
            "  {mib:>5.1} MiB  copy {:>8.2} µs ({:>6.0} GB/s, {} per thread)  read {:>8.2} µs ({:>6.0} GB/s, {} per thread)\n",
            p.copy_us,
            2.0 * p.bytes as f64 / p.copy_us / 1e3,
            p.copy_items,
            p.read_us,
            p.bytes as f64 / p.read_us / 1e3,
            p.read_items
        );
    }
    table += &format!(
        "stencil ladder, {FLOOR_STENCIL_SIDE}² f32 grid, chains of 1,000 (µs per pass; GB/s of the grid read and written once):\n"
    );
    let grid_bytes = 4.0 * f64::from(FLOOR_STENCIL_SIDE).powi(2);
    for r in stencil {
        table += &format!(
            "  {:<12} {:>8.2} µs ({:>6.0} GB/s)\n",
            r.kernel,
            r.us,
            2.0 * grid_bytes / r.us / 1e3
        );
    }
    table += &format!(
        "latency ladder, {FLOOR_CHASE_WORKGROUPS} workgroups of 256 over 2^{FLOOR_CHASE_RECORDS_LOG2} records of 32 bytes, chains of 1,000 (µs per pass):\n"
    );
    for r in chase {
        table += &format!(
            "  {:>3} active, {:>2} dependent reads  {:>8.2} µs\n",
            r.active, r.depth, r.us
        );
    }
    table += &format!(
        "events ladder, a {FLOOR_EVENTS_SIDE}² torus step's memory operations alone, chains of 1,000 (µs per step of two passes; ns per event above none):\n"
    );
    let workgroups = f64::from(FLOOR_EVENTS_SIDE * FLOOR_EVENTS_SIDE / 4096);
    for r in events {
        let above = (r.us - events[0].us) * 1e3 / (f64::from(r.active.max(1)) * workgroups);
        table += &format!(
            "  {:>4} departures per workgroup  {:>8.2} µs  ({above:.3} ns per event)   masked mailboxes {:>8.2} µs\n",
            r.active, r.us, r.masked_us
        );
    }
    table += &format!(
        "block ladder, pass pairs over 2^{FLOOR_CHASE_RECORDS_LOG2} records of 32 bytes, chains of 1,000 (µs per pair; the second pass reads another random sector, or the other sector of the first's 64-byte block):\n"
    );
    for r in block {
        table += &format!(
            "  {:>3} active  random {:>8.2} µs   64-byte neighbour {:>8.2} µs\n",
            r.active, r.far_us, r.near_us
        );
    }
    table
}
