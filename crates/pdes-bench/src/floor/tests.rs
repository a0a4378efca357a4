//! The floor micro-benchmarks on whatever adapter is present (Mesa lavapipe in CI): each
//! runs and computes what its CPU twin computes; the figures themselves are for `bench
//! --suite floor` on a real GPU.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test failing is a panic

/// The shared device; without one the test skips, unless PDES_REQUIRE_GPU=1 makes that a
/// failure.
fn gpu() -> Option<std::sync::Arc<pdes_gpu::Gpu>> {
    match pdes_gpu::Gpu::shared() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("PDES_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("PDES_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

/// The floor measurement runs on any adapter: both dispatch chains complete, the copy
/// moves the bytes asked, the stream and the gather run, the pass chains run at every size
/// asked and their copy pass really copies (its figures are for `bench --suite
/// floor` on a real GPU).
#[test]
fn the_device_floor_measurement_runs() {
    let Some(gpu) = gpu() else { return };
    let f = super::measure(&gpu, 50, 1 << 20, &[1 << 20, 48 << 10], 3, 1).unwrap();
    assert_eq!((f.dispatches, f.copy_bytes, f.repeats), (50, 1 << 20, 1));
    // the pass chains ran at each size, their copies checked against the source inside
    let sizes: Vec<u64> = f.passes.iter().map(|p| p.bytes).collect();
    assert_eq!(sizes, [1 << 20, 48 << 10]);
    for p in &f.passes {
        assert!(p.copy_us > 0.0 && p.read_us > 0.0 && p.chain == 3, "{p:?}");
    }
    assert_eq!((f.stream_bytes, f.gather_reads), (1 << 20, 32768)); // one read per sector
    for v in [
        f.empty_dispatch_us,
        f.dependent_dispatch_us,
        f.dependent_alternating_us,
        f.copy_gb_per_s,
        f.stream_gb_per_s,
        f.gather_m_per_s,
        f.gather_pairs_m_per_s,
    ] {
        assert!(v.is_finite() && v > 0.0, "{f:?}");
    }
}

/// Every kernel of the floor suite's stencil ladder computes the five-point step (checked
/// against the CPU inside `stencil_ladder`), on a grid whose side is not a multiple of the
/// 256-wide tiles, and a side the vec4 kernel cannot take is refused.
#[test]
fn the_stencil_ladder_kernels_compute_the_stencil() {
    let Some(gpu) = gpu() else { return };
    let rungs = super::stencil_ladder(&gpu, 260, 2, 1).unwrap();
    let kernels: Vec<&str> = rungs.iter().map(|r| r.kernel).collect();
    assert_eq!(kernels, super::STENCIL_RUNGS);
    assert!(rungs.iter().all(|r| r.us > 0.0), "{rungs:?}");
    let err = super::stencil_ladder(&gpu, 258, 2, 1).unwrap_err();
    assert!(err.contains("multiple of 4"), "{err}");
}

/// Every rung of the floor suite's latency ladder follows the chase the CPU follows
/// (checked inside `chase_ladder`: a thread beyond `active` keeps its cursor, one within it
/// reads `depth` words), and sizes it cannot take are refused with the field named.
#[test]
fn the_latency_ladder_follows_the_cpus_chase() {
    let Some(gpu) = gpu() else { return };
    let rungs = super::chase_ladder(&gpu, 10, 6, &[3, 256], &[0, 5], 2, 1).unwrap();
    let shape: Vec<(u32, u32)> = rungs.iter().map(|r| (r.active, r.depth)).collect();
    assert_eq!(shape, [(3, 0), (3, 5), (256, 0), (256, 5)]);
    assert!(rungs.iter().all(|r| r.us > 0.0), "{rungs:?}");
    let err = super::chase_ladder(&gpu, 10, 6, &[0], &[1], 2, 1).unwrap_err();
    assert!(err.contains("0 active threads (valid: 1 to 256)"), "{err}");
    let err = super::chase_ladder(&gpu, 3, 6, &[1], &[1], 2, 1).unwrap_err();
    assert!(err.contains("2^3 records"), "{err}");
}

/// The floor suite's block ladder reads what its CPU twin reads (checked inside
/// `block_ladder`: the second pass's sector is the first's 64-byte neighbour or a random
/// one, threads beyond `active` keep their cursor), and sizes it cannot take are refused.
#[test]
fn the_block_ladder_reads_what_its_cpu_twin_reads() {
    let Some(gpu) = gpu() else { return };
    let rungs = super::block_ladder(&gpu, 10, 6, &[3, 256], 2, 1).unwrap();
    let active: Vec<u32> = rungs.iter().map(|r| r.active).collect();
    assert_eq!(active, [3, 256]);
    assert!(
        rungs.iter().all(|r| r.far_us > 0.0 && r.near_us > 0.0),
        "{rungs:?}"
    );
    let err = super::block_ladder(&gpu, 24, 6, &[1], 2, 1).unwrap_err();
    assert!(
        err.contains("2^24 records of 32 bytes (valid: 2^4 to 2^23"),
        "{err}"
    );
    let err = super::block_ladder(&gpu, 10, 6, &[257], 2, 1).unwrap_err();
    assert!(
        err.contains("257 active threads (valid: 1 to 256)"),
        "{err}"
    );
}

/// The floor suite's events ladder does a step's memory operations as its CPU twin says
/// (checked word for word inside `event_ladder` after four steps, with counted and with
/// masked mailboxes, at no events, fewer than a workgroup's threads and more), and sizes it
/// cannot take are refused with the field named.
#[test]
fn the_events_ladder_does_what_its_cpu_twin_does() {
    let Some(gpu) = gpu() else { return };
    let rungs = super::event_ladder(&gpu, 64, 128, &[0, 5, 300], 2, 1).unwrap();
    let active: Vec<u32> = rungs.iter().map(|r| r.active).collect();
    assert_eq!(active, [0, 5, 300]);
    assert!(
        rungs.iter().all(|r| r.us > 0.0 && r.masked_us > 0.0),
        "{rungs:?}"
    );
    let err = super::event_ladder(&gpu, 64, 100, &[1], 2, 1).unwrap_err();
    assert!(err.contains("a 64 × 100 torus (valid:"), "{err}");
    let err = super::event_ladder(&gpu, 64, 128, &[4097], 2, 1).unwrap_err();
    assert!(
        err.contains("4097 departures per workgroup (valid: 0 to 4096)"),
        "{err}"
    );
}
