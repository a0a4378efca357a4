//! The DEVS simulators against the rules and against each other.

use super::flattened::Flattened;
use super::sequential::Sequential;
use super::*;

fn space(rows: u32, cols: u32, neighbourhood: Neighbourhood, wrap: bool) -> CellSpace {
    CellSpace {
        rows,
        cols,
        neighbourhood,
        wrap,
    }
}

/// A rule that exercises the whole protocol: time advances of 1 to 3 steps, passive cells
/// woken by input, and all three transitions with different effects.
#[derive(Clone, Copy)]
struct Probe;

impl CellRule for Probe {
    fn initial(&self, _: &CellSpace, cell: u32) -> Cell {
        Cell {
            value: cell % 13,
            aux: 0,
        }
    }
    fn ta(&self, s: &Cell) -> u32 {
        if s.value.is_multiple_of(11) {
            PASSIVE
        } else {
            1 + s.value % 3
        }
    }
    fn output(&self, s: &Cell) -> Option<u32> {
        // every fourth state sends nothing: an imminent cell can then have no input (δint)
        (!s.value.is_multiple_of(4)).then_some(s.value & 0xff)
    }
    fn internal(&self, s: &mut Cell) {
        s.value = s.value.wrapping_add(1);
        s.aux += 1;
    }
    fn external(&self, s: &mut Cell, elapsed: u32, bag: Bag) {
        s.value = s.value.wrapping_add(bag.sum + elapsed + bag.count);
        s.aux += 100;
    }
    fn confluent(&self, s: &mut Cell, bag: Bag) {
        s.value = s.value.wrapping_mul(3).wrapping_add(bag.sum + 1);
        s.aux += 10_000;
    }
}

/// Runs both simulators until `end` (or no event is left) and checks they agree step by
/// step and cell by cell.
fn same_path<R: CellRule + Copy + Send>(
    sp: CellSpace,
    rule: R,
    end: u32,
) -> (Vec<Cell>, Vec<DevsStep>) {
    let mut seq = Sequential::new(sp, rule);
    let mut flat = Flattened::new(sp, rule);
    loop {
        assert_eq!(seq.next_time(), flat.next_time());
        let t = seq.next_time();
        if t == PASSIVE || t > end {
            break;
        }
        seq.step();
        flat.step();
        assert_eq!(seq.log().last(), flat.log().last(), "step at t = {t}");
    }
    assert_eq!(seq.cells(), flat.cells());
    assert_eq!(seq.last(), flat.last());
    assert_eq!(seq.next(), flat.next());
    (flat.cells().to_vec(), flat.log().to_vec())
}

#[test]
fn sequential_and_flattened_agree_on_every_transition_kind_and_passive_cells() {
    for (n, wrap) in [
        (Neighbourhood::Moore, false),
        (Neighbourhood::VonNeumann, true),
    ] {
        let (_, log) = same_path(space(17, 23, n, wrap), Probe, 200);
        let total = |f: fn(&DevsStep) -> u32| log.iter().map(f).sum::<u32>();
        assert!(total(|s| s.internal) > 0, "{n:?}: no δint");
        assert!(total(|s| s.external) > 0, "{n:?}: no δext");
        assert!(total(|s| s.confluent) > 0, "{n:?}: no δconf");
        // steps are taken only at times when something is due
        assert!(log.iter().all(|s| s.imminent > 0));
    }
}

#[test]
fn the_benchmark_flips_every_cell_each_step_and_routes_one_message_per_coupling() {
    let sp = space(37, 53, Neighbourhood::Moore, false);
    let (cells, log) = same_path(sp, Rule::Benchmark { work: 3 }, 41);
    assert_eq!(log.len(), 41);
    assert!(cells.iter().all(|c| c.value == 1), "T = 41 is odd");
    assert!(cells.iter().all(|c| c.aux == burn(0, 3 * 41)));
    // couplings of a non-wrapping Moore grid: 9 inner, 6 edge, 4 corner
    let (r, c) = (37u32, 53u32);
    let couplings = 9 * (r - 2) * (c - 2) + 6 * 2 * ((r - 2) + (c - 2)) + 4 * 4;
    for s in &log {
        assert_eq!(s.messages, couplings);
        assert_eq!(
            (s.imminent, s.confluent, s.internal, s.external),
            (r * c, r * c, 0, 0)
        );
    }
}

#[test]
fn sir_keeps_one_population_exactly_and_agrees_across_simulators() {
    let sp = space(37, 53, Neighbourhood::Moore, false);
    let (cells, _) = same_path(sp, Rule::Sir(SirRates::default()), 120);
    for c in &cells {
        let (s, i, r) = sir_unpack(c.value);
        assert_eq!(s + i + r, 1000, "{c:?}");
    }
    // the epidemic spread from the seed, every cell within 10 of it reached (the front
    // stalls further out, where the rounding to thousandths stops infections below 0.5‰)
    let centre = sp.centre();
    let (cr, cc) = ((centre / 53) as i32, (centre % 53) as i32);
    for (k, c) in cells.iter().enumerate() {
        let (r, col) = ((k / 53) as i32, (k % 53) as i32);
        if (r - cr).abs().max((col - cc).abs()) <= 10 {
            assert!(sir_unpack(c.value).0 < 1000, "cell ({r}, {col})");
        }
    }
}

#[test]
fn sir_stays_symmetric_about_a_centred_seed_on_an_odd_grid() {
    let n = 41;
    let sp = space(n, n, Neighbourhood::Moore, false);
    let mut sim = Flattened::new(sp, Rule::Sir(SirRates::default()));
    for _ in 0..35 {
        sim.step();
    }
    let v = |r: u32, c: u32| sim.cells()[(r * n + c) as usize].value;
    let mut varied = false;
    for r in 0..n {
        for c in 0..n {
            let x = v(r, c);
            for y in [
                v(c, r),
                v(n - 1 - r, c),
                v(r, n - 1 - c),
                v(n - 1 - r, n - 1 - c),
                v(n - 1 - c, n - 1 - r),
                v(c, n - 1 - r),
                v(n - 1 - c, r),
            ] {
                assert_eq!(x, y, "cell ({r}, {c})");
            }
            varied |= x != v(0, 0);
        }
    }
    assert!(varied);
}

#[test]
fn the_sir_rule_rounds_to_the_nearest_thousandth() {
    let k = SirRates::default();
    // against the formula in f64 wherever the value is not within 1e-6 of a half
    let mut checked = 0;
    for s in (0..=1000).step_by(37) {
        for i in (0..=1000 - s).step_by(29) {
            let r = 1000 - s - i;
            for sum_i in [0, 1, 5, 50, 500, 2000, 9000] {
                let (sf, i_f, rf) = (s as f64 / 1e3, i as f64 / 1e3, r as f64 / 1e3);
                let aux = 0.111 * sum_i as f64 / 1e3; // Σ i·p·w / p
                let new = 0.8 * sf * (0.4 * aux).min(1.0);
                let i_exact = (i_f + new - 0.2 * i_f) * 1e3;
                let r_exact = (rf + 0.2 * i_f) * 1e3;
                if (i_exact.fract() - 0.5).abs() < 1e-6 || (r_exact.fract() - 0.5).abs() < 1e-6 {
                    continue;
                }
                let (s2, i2, r2) = sir_unpack(sir_step(sir_pack(s, i, r), sum_i, &k));
                assert_eq!(r2, r_exact.round() as u32, "r: s={s} i={i} Σ={sum_i}");
                if i_exact.round() as u32 + r2 <= 1000 {
                    assert_eq!(i2, i_exact.round() as u32, "i: s={s} i={i} Σ={sum_i}");
                }
                assert_eq!(s2 + i2 + r2, 1000);
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_budget_stops_between_steps_and_resumes_on_the_same_path() {
    use pdes_core::sim::{Budget, Engine};
    let cfg = crate::preset::config_with(
        "teaching-sir",
        &["model.rows=21", "model.cols=21", "run.end_time=30"],
    )
    .unwrap();
    let cfg = cfg.get::<config::DevsConfig>().unwrap().clone();
    let mut whole = live::CpuDevs::new(&cfg);
    whole.advance(Budget::Finish).unwrap();
    let mut pieces = live::CpuDevs::new(&cfg);
    pieces.advance(Budget::Steps(4)).unwrap();
    assert_eq!(pieces.totals().steps, 4);
    pieces.advance(Budget::Until(ticks(10))).unwrap();
    // the steps at t ≤ 10
    assert_eq!(pieces.totals().steps, 10);
    assert_eq!(pieces.now(), ticks(11));
    pieces.advance(Budget::Finish).unwrap();
    assert!(pieces.finished());
    assert_eq!(pieces.step_log(), whole.step_log());
    assert_eq!(pieces.sim().cells(), whole.sim().cells());
    assert_eq!(whole.totals().steps, 30);
}

#[test]
fn bad_keys_are_refused_with_the_key_and_the_range() {
    for (sets, key) in [
        (&["model.rows=0"][..], "model.rows"),
        (&["model.rows=2", "model.wrap=true"][..], "model.rows"),
        (&["model.infection_rate=0.8005"][..], "model.infection_rate"),
        (&["model.recovery_rate=1.5"][..], "model.recovery_rate"),
        (&["run.end_time=0"][..], "run.end_time"),
        (&["run.algorithm=\"window\""][..], "run.algorithm"),
        (
            &["run.algorithm=\"flattened-cpu\"", "run.engine=\"gpu\""][..],
            "run.engine",
        ),
        (&["model.work=5"][..], "model.work"),
    ] {
        let e = crate::preset::config_with("teaching-sir", sets).unwrap_err();
        assert!(e.contains(key), "{sets:?}: {e}");
    }
    let e =
        crate::preset::config_with("teaching-devs-benchmark", &["model.work=70000"]).unwrap_err();
    assert_eq!(
        e,
        "model.work must be a whole number from 0 to 60,000; got 70000"
    );
    // flattened-cpu is the flattened coordinator on the CPU
    let c =
        crate::preset::config_with("teaching-sir", &["run.algorithm=\"flattened-cpu\""]).unwrap();
    assert_eq!(c.engine(), crate::config::EngineKind::Cpu);
    assert_eq!(c.algorithm_info().name, "flattened");
}

#[test]
fn the_command_lines_loop_reaches_the_end() {
    use pdes_core::sim::Budget;
    let cfg = crate::preset::config_with("teaching-devs-benchmark", &[]).unwrap();
    let end = cfg.end_ticks();
    let mut engine = (cfg.model_info().build)(&cfg, None).unwrap();
    let mut chunk = (end / 200).max(1);
    let mut calls = 0;
    while !engine.finished() {
        let target = engine.now().saturating_add(chunk).min(end);
        engine.advance(Budget::Until(target)).unwrap();
        chunk *= 2;
        calls += 1;
        assert!(
            calls < 100,
            "now {} target {target} steps {}",
            engine.now(),
            engine.totals().steps
        );
    }
}
