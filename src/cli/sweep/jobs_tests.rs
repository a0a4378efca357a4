use super::{Job, cut};

fn runs(points: usize, seeds: u32) -> Vec<(usize, u32)> {
    (0..points)
        .flat_map(|p| (0..seeds).map(move |s| (p, s)))
        .collect()
}

fn all_runs(jobs: &[Job]) -> Vec<(usize, u32)> {
    let mut all: Vec<(usize, u32)> = jobs.iter().flat_map(|j| j.runs.clone()).collect();
    all.sort_unstable();
    all
}

/// The Fig. 14 sweep's shape: d = 0.5, 1, 2, 4, 8 (outer) × two service means, 40 seeds.
fn fig14_steps(p: usize) -> f64 {
    5000.0 / [0.5, 1.0, 2.0, 4.0, 8.0][p / 2]
}

/// On two devices the d = 0.5 runs — half of all the chains' steps — are the first
/// device's, in one engine (a single class of 10,000 steps: cut, each engine would take
/// them again); every other run is the second's, in jobs that end where a value of d
/// ends: neither device carries the other's chain.
#[test]
fn two_devices_take_whole_chains_apiece() {
    let jobs = cut(&runs(10, 40), fig14_steps, 2);
    let first: Vec<Vec<(usize, u32)>> = jobs
        .iter()
        .filter(|j| j.device == 0)
        .map(|j| j.runs.clone())
        .collect();
    assert_eq!(first, [runs(2, 40)]);
    let second: Vec<&Job> = jobs.iter().filter(|j| j.device == 1).collect();
    // 320 runs, a share of 80: each value of d (two points) a job of its own
    assert_eq!(second.len(), 4, "{second:?}");
    for (i, job) in second.iter().enumerate() {
        assert!(job.runs.iter().all(|&(p, _)| p / 2 == i + 1), "{job:?}");
    }
    assert_eq!(all_runs(&jobs), runs(10, 40));
}

/// On one device, a sweep of 16 values of d × 5 seeds is cut, longest first, into four
/// jobs of four values each: the grid's own chunks, none splitting a value.
#[test]
fn one_device_cuts_at_the_ends_of_equal_steps_into_about_equal_jobs() {
    let jobs = cut(&runs(16, 5), |p| 1.0 / (0.1 * (p + 1) as f64), 1);
    let expected: Vec<Job> = runs(16, 5)
        .chunks(20)
        .map(|c| Job {
            runs: c.to_vec(),
            device: 0,
        })
        .collect();
    assert_eq!(jobs, expected);
}

/// Runs of one short number of steps are cut into equal jobs of at most the most one
/// engine holds, a long one only by the most; with fewer classes than devices the devices
/// share them by count.
#[test]
fn a_single_class_is_cut_by_count_when_short_and_devices_share_it_by_count() {
    let sizes = |jobs: &[Job]| {
        jobs.iter()
            .map(|j| (j.device, j.runs.len()))
            .collect::<Vec<_>>()
    };
    let one = cut(&runs(600, 1), |_| 1.0, 1);
    assert_eq!(
        sizes(&one),
        [(0, 128), (0, 128), (0, 128), (0, 128), (0, 88)]
    );
    let long = cut(&runs(300, 1), |_| 10_000.0, 1);
    assert_eq!(sizes(&long), [(0, 128), (0, 128), (0, 44)]);
    let two = cut(&runs(200, 1), |_| 1.0, 2);
    assert_eq!(
        sizes(&two),
        [
            (0, 25),
            (0, 25),
            (0, 25),
            (0, 25),
            (1, 25),
            (1, 25),
            (1, 25),
            (1, 25)
        ]
    );
    assert_eq!(all_runs(&two), runs(200, 1));
}

/// More devices than useful: every device with runs gets at least one class, and no run
/// is lost or doubled whatever the shape.
#[test]
fn every_run_is_in_exactly_one_job_on_a_device_that_exists() {
    for devices in 1..=5 {
        for points in [1, 2, 3, 7] {
            let jobs = cut(&runs(points, 3), |p| [4.0, 1.0, 2.0][p % 3], devices);
            assert_eq!(
                all_runs(&jobs),
                runs(points, 3),
                "{devices} devices, {points} points"
            );
            assert!(
                jobs.iter()
                    .all(|j| j.device < devices && !j.runs.is_empty())
            );
        }
    }
}
