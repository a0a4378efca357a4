//! What a run leaves on the screen to be read: the earlier runs as faint ghosts on the
//! plots, a followed token's hops, and the cells a single step ran.

use super::*;

/// Issue 33: a changed parameter keeps the run before it on the plots, faintly, named by
/// what it had; a reset of the same parameters adds none; "Forget them" clears them.
#[test]
fn a_changed_parameter_keeps_the_earlier_run_as_a_ghost() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    for _ in 0..3 {
        h.state_mut().step_once();
    }
    h.run_steps(1);
    assert!(h.state().a.samples.len() >= 2);
    h.state_mut().form.model_mut::<TorusForm>().unwrap().d = 4.0;
    h.state_mut().apply_form();
    h.run_steps(2);
    let ghosts = &h.state().a.ghosts;
    assert_eq!(ghosts.len(), 1);
    assert_eq!(ghosts[0].label, "run.d=1.0");
    assert!(ghosts[0].samples.len() >= 2);
    h.get_by_label_contains("faint grey: the earlier runs (run.d=1.0)");
    // the same parameters again: no new ghost, the old one kept
    for _ in 0..3 {
        h.state_mut().step_once();
    }
    h.state_mut().reset();
    h.run_steps(2);
    assert_eq!(h.state().a.ghosts.len(), 1);
    h.get_by_label("Forget them").click();
    h.run_steps(2);
    assert!(h.state().a.ghosts.is_empty());
    assert!(h.query_by_label_contains("faint grey").is_none());
}

/// Issue 33: follow one token — the inspector of a pinned facility follows the token in
/// service there; each step that moves it records a hop to a neighbour, later, one more
/// service completed; the inspector lists the hops and the heatmap gets a trail.
#[test]
fn a_followed_token_is_recorded_hop_by_hop() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().pin(0);
    h.run_steps(2);
    h.get_by_label("Follow token 0, in service here").click();
    h.run_steps(2);
    assert_eq!(h.state().followed.as_ref().map(|f| f.token), Some(0));
    for _ in 0..400 {
        h.state_mut().step_once();
        if h.state()
            .followed
            .as_ref()
            .is_some_and(|f| f.hops.len() >= 4)
        {
            break;
        }
    }
    h.run_steps(2);
    let f = h.state().followed.clone().expect("still following");
    assert!(f.hops.len() >= 4, "{f:?}");
    assert_eq!(f.unseen, 0, "one step moves a token at most once");
    let (rows, cols) = h.state().a.shape();
    for w in f.hops.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert_eq!(b.visits, a.visits + 1);
        assert!(b.arrived > a.arrived);
        // a neighbour on the torus
        let (dr, dc) = (
            (a.cell / cols + rows - b.cell / cols) % rows,
            (a.cell % cols + cols - b.cell % cols) % cols,
        );
        assert!(
            matches!((dr, dc), (0, 1) | (1, 0))
                || dr == rows - 1 && dc == 0
                || dr == 0 && dc == cols - 1,
            "{a:?} → {b:?}"
        );
    }
    // the newest hop is listed with its time, under the inspector and above the grid
    let last = f.hops.last().unwrap();
    h.get_by_label_contains(&format!("visit {:>4}:", last.visits));
    h.get_by_label_contains(&format!(
        "following token 0: at ({}, {})",
        last.cell / cols,
        last.cell % cols
    ));
    h.get_by_label("Stop following").click();
    h.run_steps(2);
    assert!(h.state().followed.is_none());
}

/// Issue 33: "just ran" beside "next" — after a single step the cells it ran (those that
/// were outlined before it) are kept and drawn as dots, as many as the step's events;
/// running on clears them.
#[test]
fn a_single_step_marks_the_cells_it_ran() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().step_once();
    h.run_steps(1);
    let outlined: Vec<u32> = {
        let w = h.state().a.display_words().unwrap();
        (0..w.len() as u32)
            .filter(|&i| w[i as usize][0] & pdes_lab::gpu::NEXT_STEP_BIT != 0)
            .collect()
    };
    assert!(!outlined.is_empty());
    h.state_mut().step_once();
    h.run_steps(2);
    assert_eq!(h.state().just_ran, outlined);
    // the window's facilities each depart once in a step: one cell per event
    let events = h.state().a.engine().step_log().last().unwrap().events;
    assert_eq!(outlined.len() as u64, events);
    h.get_by_label_contains(&format!(
        "dots: the {} cells the last step ran",
        outlined.len()
    ));
    h.state_mut().running = true;
    h.run_steps(2);
    assert!(h.state().just_ran.is_empty());
}

/// Issue 56 §5: a causality error's arrow between neighbours across the torus's wrapping
/// edge is drawn as its two halves on the grid (it entered from off the grid); between
/// neighbours inside the grid it is one piece between their centres.
#[test]
fn an_arrow_across_the_wrapping_edge_is_drawn_as_two_halves_on_the_grid() {
    use pdes_lab::app::heatmap::arrow_pieces;
    let on_grid = |p: [f32; 2]| (0.0..=16.0).contains(&p[0]) && (0.0..=16.0).contains(&p[1]);
    // (3, 4) → (3, 5): one piece, centre to centre
    assert_eq!(
        arrow_pieces((16, 16), (3 * 16 + 4, 3 * 16 + 5)),
        vec![([3.5, 4.5], [3.5, 5.5])]
    );
    // (3, 15) → (3, 0) leaves by the right edge and comes in at the left
    let across = arrow_pieces((16, 16), (3 * 16 + 15, 3 * 16));
    assert_eq!(
        across,
        vec![([3.5, 15.5], [3.5, 16.0]), ([3.5, 0.0], [3.5, 0.5])]
    );
    // (0, 7) → (15, 7) leaves by the top and comes in at the bottom
    let up = arrow_pieces((16, 16), (7, 15 * 16 + 7));
    assert_eq!(
        up,
        vec![([0.5, 7.5], [0.0, 7.5]), ([16.0, 7.5], [15.5, 7.5])]
    );
    for (a, b) in across.iter().chain(&up) {
        assert!(on_grid(*a) && on_grid(*b), "{a:?} → {b:?} leaves the grid");
    }
}
