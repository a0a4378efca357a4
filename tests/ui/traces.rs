//! What a run leaves on the screen to be read: the earlier runs as faint ghosts on the
//! plots, a followed token's hops, and the cells a single step ran.

use super::*;

/// Issue 33: a changed parameter keeps the run before it on the plots, faintly, named by
/// what it had; a reset of the same parameters adds none; "Forget them" clears them.
#[test]
fn a_changed_parameter_keeps_the_earlier_run_as_a_ghost() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    for _ in 0..3 {
        h.state_mut().step_once();
    }
    h.run_steps(1);
    assert!(h.state().a.samples.len() >= 2);
    h.state_mut().form.model_mut::<TorusForm>().unwrap().run.d = 4.0;
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
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
        "following token 0: at facility ({}, {})",
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
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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

/// Runs `preset` in the window at `speed` simulated units a second until it ends (or
/// `frames` frames pass); returns the harness.
fn run_to_the_end(
    preset: &str,
    sets: &[&str],
    speed: f64,
    frames: usize,
) -> Harness<'static, PdesApp> {
    let cfg = pdes_lab::preset::config_with(preset, sets).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    h.state_mut().sim_rate = speed;
    h.state_mut().running = true;
    for _ in 0..frames {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
        // frames of about a 60 Hz display: each asks for its share of the speed
        std::thread::sleep(std::time::Duration::from_millis(16));
    }
    h
}

/// Issue 56 §5: a run at a speed that finishes it in a few frames still gets plot samples
/// at its own resolution (it held one point at speed 300), evenly over its time.
#[test]
fn a_fast_run_is_sampled_at_its_own_resolution_whatever_the_speed() {
    if !gpu_available() {
        return;
    }
    // 300 units at 3000 a second: about six frames
    let h = run_to_the_end("teaching-16x16", &["run.end_time=300"], 3000.0, 400);
    assert!(!h.state().running, "the run ended");
    let times: Vec<f64> = h.state().a.samples.iter().map(|x| x.time).collect();
    // one at each 0.75 units the run passes (a step of d = 1 may pass two): at frames'
    // pace alone, gaps of ~50 units
    assert!(times.len() >= 200, "{} samples", times.len());
    let widest = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    assert!(
        widest <= 2.0,
        "a gap of {widest} between samples: {times:?}"
    );
}

/// Issue 56 §5: "Export → Plotted series as CSV…" writes the model's own columns (not the
/// fifteen of every model) and no row twice (the run's end was sampled twice).
#[test]
fn the_series_csv_has_the_models_columns_and_no_row_twice() {
    if !gpu_available() {
        return;
    }
    for (preset, sets, columns) in [
        (
            "teaching-16x16",
            &["run.end_time=40", "run.warmup=0"][..],
            "utilization,mean_sojourn,causality_errors,completions",
        ),
        (
            "teaching-diffusion",
            &["run.end_time=2"][..],
            "mean_temperature,min_temperature,max_temperature",
        ),
        (
            "teaching-sir",
            &["run.end_time=40"][..],
            "mean_s,mean_i,mean_r,imminent,messages",
        ),
    ] {
        let h = run_to_the_end(preset, sets, 400.0, 2000);
        assert!(!h.state().running, "{preset}: the run ended");
        let text = pdes_lab::kit::plots::csv_text(&h.state().a, None);
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            format!("session,algorithm,time,steps,events,{columns}"),
            "{preset}"
        );
        let rows: Vec<&str> = lines.collect();
        assert!(rows.len() > 10, "{preset}: {} rows", rows.len());
        for pair in rows.windows(2) {
            let key = |r: &str| r.split(',').take(4).collect::<Vec<_>>().join(",");
            assert_ne!(key(pair[0]), key(pair[1]), "{preset}: a row twice");
        }
    }
}

/// Issue 56 §5: "Export → Heatmap as PNG…" draws each cell as a square of pixels, the image
/// at least 512 pixels on its longer side (a 16×16 grid was a 16-pixel image), in the
/// colours of the screen's range.
#[test]
fn the_heatmap_png_is_large_enough_to_read_and_coloured_as_the_screen() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    let bytes = h.state().png_bytes().unwrap();
    let image = image::load_from_memory(&bytes).unwrap().to_rgb8();
    assert_eq!((image.width(), image.height()), (512, 512));
    let app = h.state();
    let words = app.a.display_words().unwrap();
    let range = (app.a.panel.colour_range)(&app.a);
    for cell in [0usize, 17, 255] {
        let want =
            pdes_lab::app::heatmap::word_colour(app.mode, words[cell], app.a.steps() as u32, range)
                .map(|c| (c * 255.0) as u8);
        let (r, c) = ((cell / 16) as u32, (cell % 16) as u32);
        // the centre of the cell's 32-pixel square
        let got = image.get_pixel(c * 32 + 16, r * 32 + 16).0;
        assert_eq!(got, want, "cell {cell}");
    }
}

/// Issue 56 §5: a run that reaches its end shows its summary on the screen — the table
/// `pdes-lab run` prints, its statistics equal to `run`'s — until the next run replaces it.
#[test]
fn a_finished_run_shows_its_summary_as_run_prints_it() {
    if !gpu_available() {
        return;
    }
    let sets = ["run.end_time=40", "run.warmup=0"];
    let mut h = run_to_the_end("teaching-16x16", &sets, 400.0, 2000);
    assert!(!h.state().running, "the run ended");
    h.run_steps(2);
    let summary = h.state().summary.as_ref().expect("a summary");
    assert!(summary.open);
    assert!(summary.table.contains("utilization"), "{}", summary.table);
    h.get_by_label("Run summary");
    let shown: serde_json::Value = serde_json::from_str(&summary.json).unwrap();
    let config = pdes_lab::preset::config_with("teaching-16x16", &sets).unwrap();
    let mut sim = pdes_lab::engines::Simulation::new(config).unwrap();
    sim.engine.advance(pdes_lab::sim::Budget::Finish).unwrap();
    let report = sim.engine.report().unwrap();
    let run: serde_json::Value = serde_json::from_str(
        &pdes_runs::output::format_summary(&report, pdes_runs::output::Format::Json).unwrap(),
    )
    .unwrap();
    for field in [
        "utilization",
        "mean_sojourn",
        "events",
        "steps",
        "causality_errors",
    ] {
        assert_eq!(shown[field], run[field], "{field}");
    }
    // a new run replaces it
    h.state_mut().reset();
    assert!(h.state().summary.is_none());
}

/// Issue 56 §5: "Export → Plots as PNG…" cuts the plots panel out of the window's
/// screenshot: the image is the panel's size and holds what the panel drew there.
#[test]
fn the_plots_image_is_the_plots_panel_cut_from_the_window() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    h.run_steps(2);
    let shot = h.render().unwrap();
    let ppp = h.ctx.pixels_per_point();
    let rect = h.state().plots_rect.expect("the plots were drawn");
    let window = egui::ColorImage::from_rgba_unmultiplied(
        [shot.width() as usize, shot.height() as usize],
        shot.as_raw(),
    );
    let bytes = pdes_lab::app::plots_image::plots_png(&window, rect, ppp).unwrap();
    let cut = image::load_from_memory(&bytes).unwrap().to_rgba8();
    assert_eq!(
        (cut.width(), cut.height()),
        (
            (rect.width() * ppp).round() as u32,
            (rect.height() * ppp).round() as u32
        )
    );
    // pixel for pixel the window's, where the panel is
    let (x0, y0) = (
        (rect.left() * ppp).round() as u32,
        (rect.top() * ppp).round() as u32,
    );
    for (x, y) in [
        (5, 5),
        (cut.width() / 2, cut.height() / 2),
        (cut.width() - 3, cut.height() - 3),
    ] {
        assert_eq!(cut.get_pixel(x, y).0, shot.get_pixel(x0 + x, y0 + y).0);
    }
    // and the panel drew something: lines and labels, not one colour
    let first = cut.get_pixel(0, 0);
    assert!(cut.pixels().any(|p| p != first));
    assert!(
        rect.top() > h.ctx.content_rect().height() / 2.0,
        "the plots are at the bottom"
    );
}

/// Issue 55 §4: a network's token is followed from station to station (its hops named by
/// station, each a route the file allows), and the window stops following it, saying so,
/// when it leaves the network (its slot then serves the next arrival).
#[test]
fn a_networks_token_is_followed_until_it_leaves() {
    use pdes_lab::models::network::config::NetworkConfig;
    let Some(mut h) = app_on("clinic") else {
        return;
    };
    h.state_mut().running = false;
    // a token in service at triage, where every token enters
    let mut token = None;
    for _ in 0..200 {
        h.state_mut().step_once();
        token = (h.state().a.panel.follow.unwrap().serving)(&h.state().a, 0);
        if token.is_some() {
            break;
        }
    }
    let token = token.expect("a token in service at triage");
    h.state_mut().follow(token);
    let cfg = h.state().a.config.get::<NetworkConfig>().unwrap().clone();
    let mut seen = Vec::new();
    for _ in 0..5000 {
        h.state_mut().step_once();
        match &h.state().followed {
            Some(f) => seen = f.hops.clone(),
            None => break,
        }
    }
    assert!(h.state().followed.is_none(), "it left within 5000 steps");
    let message = h.state().message.clone().unwrap_or_default();
    assert!(
        message.contains(&format!("token {token} left the network")),
        "{message}"
    );
    assert!(seen.len() >= 2, "it made hops: {seen:?}");
    assert_eq!(seen[0].cell, 0, "followed from triage");
    for w in seen.windows(2) {
        let routes = &cfg.network.stations[w[0].cell as usize].routes;
        assert!(
            routes.iter().any(|&(d, _)| d == w[1].cell),
            "{} → {}: not a route",
            w[0].cell,
            w[1].cell
        );
        assert!(w[1].visits > w[0].visits && w[1].arrived >= w[0].arrived);
        assert_eq!(w[1].id, w[0].id, "one token throughout");
    }
}
