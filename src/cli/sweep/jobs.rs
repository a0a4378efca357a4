//! Which of a sweep's runs share a GPU engine, and on which device.
//!
//! A GPU engine's step is a few dependent dispatches, whatever the number of replicas it
//! carries; the engines on one device take turns on its one queue. So a device's time is
//! about the sum, over its engines, of the steps of each engine's longest run (its
//! *chain*: end time over d), plus the work of the facilities. Runs of the same number
//! of steps therefore belong in one engine (two engines of d = 0.5 cost twice the
//! dispatches of one), and a second device shortens the wait only when it takes whole
//! chains off the first — not half of every point's seeds, which left each device with the
//! same chains (the Fig. 14 sweep on two H200s was no faster than on one, bench/NOTES.md).
//!
//! The plan (`cut`): the runs sorted by steps, longest first; cut into one contiguous
//! range per device by equal shares of the chains of their *classes* (runs of equal steps),
//! or by equal counts where there are fewer classes than devices; each device's range cut
//! into jobs of about an equal count ([`GPU_WORKERS_PER_DEVICE`] in flight, so that one
//! engine's set-up and read-back on the host overlap another's steps), a job closed only
//! where a class ends, unless the class alone is over [`MOST_RUNS_TOGETHER`]; a device
//! with a single short class has no other chain to overlap with and cuts it into equal
//! chunks ([`SPLIT_BELOW_STEPS`]).
//!
//! `PDES_SWEEP_JOBS=grid` gives the plan before (equal chunks in the grid's order, dealt to
//! the devices in turn), `PDES_SWEEP_JOBS=one` every device's runs in as few engines as hold
//! them, for measuring one against the other on the device.

use super::plan::Plan;
use super::{CliError, RunRow};

/// A job: runs — (point, seed index) pairs — that one worker runs together, on one device
/// (an index into `--devices`; 0 without).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Job {
    /// The runs, in the order the engine holds them.
    pub(super) runs: Vec<(usize, u32)>,
    /// The device the job's engine runs on.
    pub(super) device: usize,
}

/// The most runs in one job whose runs may share a GPU engine: rows come back a job at a
/// time, so the progress bar and the CSV move at least this often, and one engine's memory
/// stays bounded (a group the device cannot hold is halved, pdes_runs::sweep::run_all).
const MOST_RUNS_TOGETHER: usize = 128;

/// A class of fewer steps than this, alone on its device, is cut into equal jobs (engines)
/// so that one's set-up overlaps another's steps; a longer one stays whole, because each
/// engine it is cut into takes its steps again on the device's one queue: an engine's
/// set-up (~50 ms) is about 3,000 steps at ~17 µs. Measured on two H200s: the Fig. 14
/// sweep's d = 0.5 (10,000 steps) in four engines took 480–580 ms of steps, in one (two,
/// one per service law) 224 ms; 200 seeds at 2,000 steps ran 0.57–0.63 s in four engines,
/// 0.60–0.81 s in two (`bench/sweep-jobs-x2-device.sh`, `bench/devices-x2-device.sh`).
const SPLIT_BELOW_STEPS: f64 = 3000.0;

/// GPU jobs in flight per device: while one engine's runs are set up or read back on the
/// host, another's steps keep the GPU busy.
pub(super) const GPU_WORKERS_PER_DEVICE: usize = 4;

/// The jobs of this shard, minus the runs `done` already holds. Where the model's GPU
/// engine runs replicas, runs go together into jobs on `devices` devices (the module's
/// plan); else one run per job, so that workers share them.
pub(super) fn jobs(
    plan: &Plan,
    shard: Option<(usize, usize)>,
    done: &[RunRow],
    devices: usize,
) -> Result<Vec<Job>, CliError> {
    let base = super::config_from_args(&plan.base)?;
    let together = base.engine() == pdes_models::preset::EngineKind::Gpu
        && base.model_info().replicas.is_some();
    let done: std::collections::HashSet<(usize, u32)> =
        done.iter().map(|d| (d.point, d.seed_index)).collect();
    let todo: Vec<(usize, u32)> = (0..plan.points.len())
        .filter(|p| shard.is_none_or(|(i, n)| p % n == i))
        .flat_map(|p| (0..plan.seeds.len() as u32).map(move |s| (p, s)))
        .filter(|r| !done.contains(r))
        .collect();
    let devices = devices.max(1);
    if !together {
        return Ok(todo
            .into_iter()
            .enumerate()
            .map(|(i, r)| Job {
                runs: vec![r],
                device: i % devices,
            })
            .collect());
    }
    let variant = std::env::var("PDES_SWEEP_JOBS").unwrap_or_default();
    if variant == "grid" {
        return Ok(grid(&todo, devices));
    }
    let steps = steps_of(plan, &base);
    let jobs = cut(&todo, |p| steps[p], devices);
    if variant == "one" {
        // every device's runs in as few engines as hold them
        return Ok((0..devices)
            .flat_map(|d| {
                let runs: Vec<(usize, u32)> = jobs
                    .iter()
                    .filter(|j| j.device == d)
                    .flat_map(|j| j.runs.clone())
                    .collect();
                runs.chunks(MOST_RUNS_TOGETHER)
                    .map(|c| Job {
                        runs: c.to_vec(),
                        device: d,
                    })
                    .collect::<Vec<_>>()
            })
            .collect());
    }
    Ok(jobs)
}

/// Each point's steps: its end time over its d, each the point's value where the sweep
/// varies it, else the base configuration's (1 for a model without one).
fn steps_of(plan: &Plan, base: &pdes_models::config::Config) -> Vec<f64> {
    let base_toml: Option<toml::Table> = base.to_toml("").parse().ok();
    let base_run = |key: &str| {
        base_toml
            .as_ref()
            .and_then(|t| t.get("run"))
            .and_then(|r| r.get(key))
            .and_then(super::report::as_number)
    };
    let at = |key: &str| plan.varies.iter().position(|v| v.key == key);
    let (d, end) = (at("run.d"), at("run.end_time"));
    let (base_d, base_end) = (base_run("d"), base_run("end_time"));
    let value = |point: &[toml::Value], i: Option<usize>, base: Option<f64>| {
        i.and_then(|i| super::report::as_number(&point[i]))
            .or(base)
            .filter(|x| x.is_finite() && *x > 0.0)
            .unwrap_or(1.0)
    };
    plan.points
        .iter()
        .map(|point| value(point, end, base_end) / value(point, d, base_d))
        .collect()
}

/// The plan before: equal chunks in the grid's order, dealt to the devices in turn.
fn grid(runs: &[(usize, u32)], devices: usize) -> Vec<Job> {
    let per_job = runs
        .len()
        .div_ceil(GPU_WORKERS_PER_DEVICE * devices)
        .clamp(1, MOST_RUNS_TOGETHER);
    runs.chunks(per_job)
        .enumerate()
        .map(|(i, c)| Job {
            runs: c.to_vec(),
            device: i % devices,
        })
        .collect()
}

/// The module's plan: `runs` (with `steps` of a run's point) on `devices` devices.
fn cut(runs: &[(usize, u32)], steps: impl Fn(usize) -> f64, devices: usize) -> Vec<Job> {
    let mut order = runs.to_vec();
    // stable: runs of equal steps keep the grid's order
    order.sort_by(|a, b| steps(b.0).total_cmp(&steps(a.0)));
    let whole = classes(&order, &steps);
    let ranges: Vec<std::ops::Range<usize>> = if whole.len() >= devices {
        // whole classes, by equal shares of their chains
        let chain = |c: &std::ops::Range<usize>| steps(order[c.start].0);
        let mut left: f64 = whole.iter().map(chain).sum();
        let (mut out, mut start, mut held) = (Vec::new(), 0, 0.0);
        for (i, c) in whole.iter().enumerate() {
            held += chain(c);
            let share = left / (devices - out.len()) as f64;
            let last_device = out.len() + 1 == devices;
            // a guard: leave at least a class for every device still to come (with classes
            // longest first the shares already do; this holds it against rounding)
            let (classes_after, devices_after) = (whole.len() - i - 1, devices - out.len() - 1);
            let must = classes_after <= devices_after;
            if !last_device && (held >= share * (1.0 - 1e-9) || must) {
                out.push(start..c.end);
                start = c.end;
                left -= held;
                held = 0.0;
            }
        }
        out.push(start..order.len());
        out
    } else {
        let per = order.len().div_ceil(devices).max(1);
        (0..order.len())
            .step_by(per)
            .map(|s| s..(s + per).min(order.len()))
            .collect()
    };
    let mut jobs = Vec::new();
    for (device, range) in ranges.into_iter().enumerate() {
        let runs = &order[range];
        let per_job = runs
            .len()
            .div_ceil(GPU_WORKERS_PER_DEVICE)
            .clamp(1, MOST_RUNS_TOGETHER);
        let classes = classes(runs, &steps);
        if classes.len() == 1 && steps(runs[0].0) < SPLIT_BELOW_STEPS {
            jobs.extend(runs.chunks(per_job).map(|c| Job {
                runs: c.to_vec(),
                device,
            }));
            continue;
        }
        let mut job: Vec<(usize, u32)> = Vec::new();
        for class in classes {
            for &run in &runs[class.clone()] {
                if job.len() == MOST_RUNS_TOGETHER {
                    jobs.push(Job {
                        runs: std::mem::take(&mut job),
                        device,
                    });
                }
                job.push(run);
            }
            // close at the class's end once the job holds its share
            if job.len() >= per_job {
                jobs.push(Job {
                    runs: std::mem::take(&mut job),
                    device,
                });
            }
        }
        if !job.is_empty() {
            jobs.push(Job { runs: job, device });
        }
    }
    jobs
}

/// The ranges of `order` (sorted by steps) whose runs have equal steps.
fn classes(order: &[(usize, u32)], steps: &impl Fn(usize) -> f64) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=order.len() {
        let same = i < order.len() && {
            let (a, b) = (steps(order[start].0), steps(order[i].0));
            (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
        };
        if !same && i > start {
            out.push(start..i);
            start = i;
        }
    }
    out
}

#[cfg(test)]
#[path = "jobs_tests.rs"]
mod tests;
