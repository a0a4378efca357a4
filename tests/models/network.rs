//! The user's own network (issue 55): the clinic file as written, window = sequential bit
//! for bit on awkward networks, sequential against Jackson's and MVA's exact values on
//! networks not tuned to them, and every refusal of a bad file naming the station and rule.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use pdes_lab::models::network::config::NetworkConfig;
use pdes_lab::models::network::engine::NetEngine;
use pdes_lab::preset::{Config, config_with};
use pdes_lab::sim::{Budget, Engine};

/// A network file's text: `stations` (TOML of [[model.station]] tables) and `run` keys.
fn file(stations: &str, run: &str) -> String {
    format!("[model]\nkind = \"network\"\n{stations}\n[run]\n{run}\n")
}

fn config(text: &str) -> Result<NetworkConfig, String> {
    Config::from_toml(text, "test.toml")
        .map_err(|e| e.to_string())
        .map(|c| c.get::<NetworkConfig>().unwrap().clone())
}

fn run(cfg: &NetworkConfig) -> NetEngine {
    let mut e = NetEngine::new(cfg);
    e.advance(Budget::Finish).unwrap();
    e
}

/// A self-loop, probabilities that are not multiples of 1/2ⁿ, a station with only exits,
/// multi-server stations, and the five service laws (each at least d = 0.25 where it must).
const AWKWARD: &str = include_str!("networks/awkward.toml");

#[test]
fn window_is_sequential_bit_for_bit_on_awkward_networks() {
    let closed = include_str!("networks/closed-awkward.toml");
    for (net, d) in [(AWKWARD, 0.25), (closed, 0.5)] {
        let seq = config(&file(
            net,
            "algorithm = \"sequential\"\nend_time = 3000\nwarmup = 100\nseed = 5",
        ))
        .unwrap();
        let win = config(&file(
            net,
            &format!("algorithm = \"window\"\nd = {d}\nend_time = 3000\nwarmup = 100\nseed = 5"),
        ))
        .unwrap();
        let (s, w) = (run(&seq), run(&win));
        assert!(s.totals().events > 3000, "{}", s.totals().events);
        assert_eq!(s.totals().events, w.totals().events);
        assert_eq!(
            s.state().stations,
            w.state().stations,
            "every station's queue and sums"
        );
        assert_eq!(s.state().arrivals, w.state().arrivals);
        let (ss, ws) = (s.summary().unwrap(), w.summary().unwrap());
        assert_eq!(ss.stations, ws.stations);
        assert_eq!(ss.mean_system_time.to_bits(), ws.mean_system_time.to_bits());
        assert!(
            w.totals().steps < s.totals().steps,
            "the window batches events"
        );
    }
}

#[test]
fn interval_changes_the_sample_path_that_window_keeps() {
    let seq = config(&file(
        AWKWARD,
        "algorithm = \"sequential\"\nend_time = 2000\nseed = 5",
    ))
    .unwrap();
    let int = config(&file(
        AWKWARD,
        "algorithm = \"interval\"\ntimestamps = \"boundary\"\nd = 1.0\nend_time = 2000\nseed = 5",
    ))
    .unwrap();
    let (s, i) = (run(&seq), run(&int));
    assert_ne!(s.state().stations, i.state().stations);
}

#[test]
fn the_clinic_runs_as_written_and_conserves_its_patients() {
    let cfg = pdes_lab::preset::config_with("clinic", &[]).unwrap();
    let c = cfg.get::<NetworkConfig>().unwrap();
    assert_eq!(c.network.stations.len(), 3);
    let mut e = run(c);
    let s = e.summary().unwrap();
    assert_eq!(s.causality_errors, 0);
    assert_eq!(s.arrivals - s.exits, s.tokens_in_system);
    assert!(
        s.analytic_note.is_some(),
        "shifted service has no exact value"
    );
    // the report is the summary's fields
    assert!(e.report().unwrap().fields.contains_key("stations"));
}

/// Mean and half-width of the 95% interval (Student t) of `xs`.
fn interval(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // t with 19 degrees of freedom
    (mean, 2.093 * (var / n).sqrt())
}

/// Sequential runs of 20 seeds: each station's utilization and mean number contain the
/// exact value in their 95% intervals.
fn within_intervals(text: &str) {
    let mut util: Vec<Vec<f64>> = Vec::new();
    let mut number: Vec<Vec<f64>> = Vec::new();
    let mut exact = None;
    for seed in 1..=20 {
        let cfg = config(&text.replace("seed = 1", &format!("seed = {seed}"))).unwrap();
        let s = run(&cfg).summary().unwrap();
        let rows = s.stations.unwrap();
        util.resize(rows.len(), Vec::new());
        number.resize(rows.len(), Vec::new());
        for (i, r) in rows.iter().enumerate() {
            util[i].push(r.utilization);
            number[i].push(r.mean_number);
        }
        exact = Some(rows);
    }
    for (i, r) in exact.unwrap().iter().enumerate() {
        for (what, xs, want) in [
            ("utilization", &util[i], r.analytic_utilization.unwrap()),
            ("mean number", &number[i], r.analytic_mean_number.unwrap()),
        ] {
            let (m, h) = interval(xs);
            assert!(
                (m - want).abs() <= h,
                "{} {what}: {m} ± {h}, exact {want}",
                r.name
            );
        }
    }
}

#[test]
fn sequential_lies_within_its_intervals_of_jacksons_values() {
    let net = include_str!("networks/jackson-five.toml");
    within_intervals(&file(
        net,
        "algorithm = \"sequential\"\nend_time = 20000\nwarmup = 1000\nseed = 1",
    ));
}

#[test]
fn sequential_lies_within_its_intervals_of_mva_values() {
    let net = include_str!("networks/mva-three.toml");
    within_intervals(&file(
        net,
        "algorithm = \"sequential\"\nend_time = 10000\nwarmup = 500\nseed = 1",
    ));
}

/// Each bad file is refused before any run, in one line naming the station and the rule.
#[test]
fn bad_networks_are_refused_naming_the_station_and_the_rule() {
    let one = |routes: &str, extra: &str| {
        format!(
            "[[model.station]]\nname = \"desk\"\nservers = 1\nservice = {{ kind = \"exponential\", mean = 1.0 }}\narrival_rate = 0.5\nroutes = {routes}\n{extra}"
        )
    };
    let seq = "algorithm = \"sequential\"";
    let cases: Vec<(String, &str, &[&str])> = vec![
        (
            file(&one("{ exit = 0.9 }", ""), seq),
            "desk",
            &["sum to 0.9", "must sum to 1"],
        ),
        (
            file(&one("{ exit = 1.2, desk = -0.2 }", ""), seq),
            "desk",
            &["probability", "from 0 to 1"],
        ),
        (
            file(&one("{ exit = nan }", ""), seq),
            "desk",
            &["from 0 to 1"],
        ),
        (
            file(&one("{ exit = 0.5, lab = 0.5 }", ""), seq),
            "desk",
            &["\"lab\"", "no station"],
        ),
        (
            file(
                &format!(
                    "{}\n{}",
                    one("{ exit = 1.0 }", ""),
                    one("{ exit = 1.0 }", "")
                ),
                seq,
            ),
            "desk",
            &["unique"],
        ),
        (
            file(
                &one(
                    "{ loop = 1.0 }",
                    "[[model.station]]\nname = \"loop\"\nservice = { kind = \"exponential\", mean = 1.0 }\nroutes = { loop = 1.0 }\n",
                ),
                seq,
            ),
            "desk",
            &["never exit", "loop"],
        ),
        (
            file(
                &one("{ exit = 1.0 }", "").replace("arrival_rate = 0.5", "arrival_rate = 1.5"),
                seq,
            ),
            "desk",
            &["unstable", "ρ"],
        ),
        (
            file(
                "[[model.station]]\nname = \"a\"\nservice = { kind = \"exponential\", mean = 1.0 }\nroutes = { a = 1.0 }\n",
                seq,
            ),
            "model.station",
            &["closed network", "population"],
        ),
        (
            file(
                &one(
                    "{ exit = 1.0 }",
                    "[[model.station]]\nname = \"island\"\nservice = { kind = \"exponential\", mean = 1.0 }\nroutes = { exit = 1.0 }\n",
                ),
                seq,
            ),
            "island",
            &["can ever reach it"],
        ),
        (
            file(
                &one("{ exit = 1.0 }", "").replace("servers = 1", "servers = 0"),
                seq,
            ),
            "desk",
            &["servers", "from 1 to 64"],
        ),
        (
            "[model]\nkind = \"network\"\n".to_string(),
            "model.station",
            &["no stations"],
        ),
        (
            file(
                &one("{ exit = 1.0 }", "").replace("mean = 1.0", "mean = -2"),
                seq,
            ),
            "desk",
            &["mean", "above 0"],
        ),
        (
            file(
                &one("{ exit = 1.0 }", ""),
                "algorithm = \"window\"\nd = 0.5",
            ),
            "desk",
            &["run.d", "window", "exponential service can be shorter"],
        ),
    ];
    for (text, names, says) in cases {
        let e = config(&text).expect_err(&text);
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains(names), "{e} should name {names}");
        for s in says {
            assert!(e.contains(s), "{e} should say {s}");
        }
    }
}

#[test]
fn the_window_takes_every_d_up_to_the_shortest_service() {
    let ok = config(&file(AWKWARD, "algorithm = \"window\"\nd = 0.25"));
    assert!(ok.is_ok(), "{ok:?}");
    let e = config(&file(AWKWARD, "algorithm = \"window\"\nd = 0.26")).unwrap_err();
    assert!(e.contains("station out") && e.contains("0.25"), "{e}");
}

/// Paper 002's open network at a million stations: every line's last station routes to
/// exit or to any of the 16,384 lines' first stations. They hold one list, so the network
/// has 2·10⁶ routes rather than 2.7·10⁸ (4 GiB), and its traffic equations still give every
/// station λ / (lines · P_exit).
#[test]
fn a_million_station_tandem_shares_its_last_stations_routes() {
    let (lines, per_line) = (16_384u32, 64u32);
    let cfg = config(&file(
        "shape = { kind = \"tandem\", lines = 16384, servers_per_line = 64, exit_probability = 0.25, arrival_rate = 409.6, service = { kind = \"exponential\", mean = 5.0 } }",
        "algorithm = \"sequential\"\nend_time = 1.0",
    ))
    .unwrap();
    let net = &cfg.network;
    let private = u64::from(lines) * u64::from(per_line - 1);
    assert_eq!(net.route_lists().lists.len() as u64, private + 1);
    assert_eq!(net.distinct_routes(), private + u64::from(lines) + 1);
    let tables = pdes_lab::models::network::routes::RouteTables::new(net);
    let last = |l: u32| (l * per_line + per_line - 1) as usize;
    assert_eq!(tables.count[last(0)], lines + 1);
    assert_eq!(tables.first[last(0)], tables.first[last(lines - 1)]);
    assert_eq!(tables.outcome.len() as u64, net.distinct_routes());
    let lambda = pdes_lab::models::network::analytic::traffic(net);
    let each = 409.6 / (f64::from(lines) * 0.25);
    assert!(
        lambda.iter().all(|l| (l - each).abs() < 1e-12 * each),
        "{:?}",
        lambda
            .iter()
            .fold((f64::MAX, 0f64), |a, &l| (a.0.min(l), a.1.max(l)))
    );
}

/// A file of the former open-network model reads as the tandem network it describes, with
/// that model's run defaults (interval / boundary, T = 10,000) where it leaves a run key
/// out and its shifted service's shift the run's d; a key it never had is refused, naming
/// the ones it had.
#[test]
fn an_open_network_file_reads_as_its_tandem_network() {
    use pdes_lab::models::network::config::Written;
    use pdes_lab::models::network::service::Service;
    use pdes_lab::models::network::shapes::Shape;
    use pdes_lab::models::queueing::{Algorithm, Timestamps};
    let old = "[model]\nkind = \"open-network\"\nlines = 8\nservers_per_line = 12\narrival_rate = 1.0\nmean_service = 2.0\nservice = \"shifted\"\n\n[run]\nd = 0.5\n";
    let cfg = config(old).unwrap();
    assert_eq!(
        cfg.written,
        Written::Shape(Shape::Tandem {
            lines: 8,
            servers_per_line: 12,
            exit_probability: 0.25,
            arrival_rate: 1.0,
            service: Service::Shifted {
                shift: 0.5,
                mean: 2.0
            },
        })
    );
    assert_eq!(
        (cfg.run.algorithm, cfg.run.timestamps, cfg.run.end_time),
        (Algorithm::Interval, Timestamps::Boundary, 10_000.0)
    );
    let e = config("[model]\nkind = \"open-network\"\nrows = 3\n").unwrap_err();
    assert!(
        e.contains("model.rows") && e.contains("servers_per_line"),
        "{e}"
    );
}

/// A mistake inside a shape or a station is named: the inner key serde found wrong, its
/// type in words ("a whole number from 0 to 4,294,967,295", not "u32").
#[test]
fn a_mistake_inside_a_table_names_the_inner_key_in_words() {
    let shape = |inner: &str| {
        config(&file(
            &format!("shape = {{ kind = \"tandem\", {inner}, exit_probability = 0.25, arrival_rate = 1.0 }}"),
            "",
        ))
        .unwrap_err()
    };
    let e = shape("lines = 16, servers = 4");
    assert!(
        e.starts_with("model.shape")
            && e.contains("unknown field `servers`")
            && e.contains("`servers_per_line`"),
        "{e}"
    );
    let e = shape("lines = -16, servers_per_line = 4");
    assert!(
        e.contains("a whole number from 0 to 4,294,967,295") && !e.contains("u32"),
        "{e}"
    );
    let e = config(&file(
        "[[model.station]]\nname = \"a\"\nservers = \"two\"\nservice = { kind = \"exponential\", mean = 1.0 }\narrival_rate = 1.0\nroutes = { exit = 1.0 }",
        "",
    ))
    .unwrap_err();
    assert!(
        e.starts_with("model.station.servers")
            && e.contains("a whole number")
            && !e.contains("u32"),
        "{e}"
    );
}

#[test]
fn a_file_reads_back_from_what_it_writes() {
    for name in ["clinic", "fat-tree", "random-network"] {
        let cfg = pdes_lab::preset::config_with(name, &[]).unwrap();
        let again = Config::from_toml(&cfg.to_toml("again"), "again.toml").unwrap();
        assert_eq!(again, cfg, "{name}");
    }
}

/// A folder of its own under the temporary directory, with `files` written into it.
fn folder_with(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pdes-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

const CLINIC_STATIONS: &str =
    "name,servers,service,mean,shift,value,low,high,k,arrival_rate,population
triage,2,shifted,2.0,0.5,,,,,0.8,
doctor,3,shifted,2.0,0.5,,,,,,
lab,1,deterministic,,,1.2,,,,,
";
/// The routes in another order than the tables' (by name): the run must not depend on it.
const CLINIC_ROUTES: &str = "from,to,probability
lab,doctor,1.0
doctor,lab,0.4
triage,exit,0.1
doctor,exit,0.6
triage,doctor,0.9
";
const CLINIC_RUN: &str = "[run]
algorithm = \"window\"
d = 0.5
end_time = 3000.0
warmup = 300.0
seed = 7
";

/// The clinic from CSV files beside its network file (named relative to it, read from
/// another folder) runs exactly as the clinic's tables do.
#[test]
fn the_clinic_from_csv_files_runs_as_the_clinic_from_tables() {
    let network = format!(
        "[model]\nkind = \"network\"\nstations_csv = \"stations.csv\"\nroutes_csv = \"routes.csv\"\n\n{CLINIC_RUN}"
    );
    let dir = folder_with(
        "csv-clinic",
        &[
            ("stations.csv", CLINIC_STATIONS),
            ("routes.csv", CLINIC_ROUTES),
            ("clinic.toml", &network),
        ],
    );
    let path = dir.join("clinic.toml");
    let from_csv = config_with(path.to_str().unwrap(), &[]).unwrap();
    let tables = config_with("clinic", &["run.end_time=3000", "run.warmup=300"]).unwrap();
    let run = |c: &pdes_lab::preset::Config| {
        let mut e = NetEngine::new(c.get::<NetworkConfig>().unwrap());
        e.advance(Budget::Finish).unwrap();
        e.summary().unwrap()
    };
    let (a, b) = (run(&from_csv), run(&tables));
    assert_eq!(a.events, b.events);
    assert_eq!(a.utilization.to_bits(), b.utilization.to_bits());
    assert_eq!(a.stations, b.stations);
    let _ = std::fs::remove_dir_all(dir);
}

/// A CSV's bad cell is refused naming the file, the line and the column; a file over the
/// limit is refused with the limit, before it is read.
#[test]
fn bad_csv_input_is_refused_naming_file_line_and_column() {
    let routes_twice = format!("{CLINIC_ROUTES}triage,doctor,0.5\n");
    let dir = folder_with(
        "csv-bad",
        &[
            ("stations.csv", CLINIC_STATIONS),
            ("twice.csv", &routes_twice),
            ("gamma.csv", "name,servers,service,mean\nx,1,gamma,2\n"),
            (
                "nomean.csv",
                "name,servers,service,mean\nx,1,exponential,\n",
            ),
            ("noprob.csv", "from,to\ntriage,exit\n"),
        ],
    );
    let d = dir.to_str().unwrap();
    let refusal = |stations: &str, routes: &str| {
        let sets = [
            format!("model.stations_csv=\"{d}/{stations}\""),
            format!("model.routes_csv=\"{d}/{routes}\""),
            "model.station=[]".to_string(),
        ];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        config_with("clinic", &sets).unwrap_err()
    };
    let e = refusal("stations.csv", "twice.csv");
    assert!(
        e.contains("twice.csv, line 7, column to") && e.contains("given twice"),
        "{e}"
    );
    let e = refusal("gamma.csv", "twice.csv");
    assert!(
        e.contains("gamma.csv, line 2, column service") && e.contains("\"gamma\" is not a service"),
        "{e}"
    );
    let e = refusal("nomean.csv", "twice.csv");
    assert!(
        e.contains("column mean") && e.contains("needs its mean"),
        "{e}"
    );
    let e = refusal("stations.csv", "noprob.csv");
    assert!(e.contains("no column probability"), "{e}");
    let big = std::fs::File::create(dir.join("big.csv")).unwrap();
    big.set_len(100 << 20).unwrap();
    let e = refusal("stations.csv", "big.csv");
    assert!(e.contains("at most 67108864 bytes (64 MiB)"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Every station's next event in one pass (the heatmap's marks of a large network) is each
/// station's own next event, through a run (servers busy and idle, sources ahead).
#[test]
fn every_stations_next_event_in_one_pass_is_each_stations_own() {
    let cfg = config_with("clinic", &[]).unwrap();
    let cfg = cfg.get::<NetworkConfig>().unwrap().clone();
    let mut engine = NetEngine::new(&cfg);
    for _ in 0..5 {
        engine.advance(Budget::Steps(37)).unwrap();
        let st = engine.state();
        let all = st.next_events();
        assert_eq!(all.len(), st.stations.len());
        for (i, &t) in all.iter().enumerate() {
            assert_eq!(t, st.next_event(i), "station {i}");
        }
        assert!(
            all.iter()
                .any(|&t| t != pdes_lab::models::network::state::NEVER)
        );
    }
}
