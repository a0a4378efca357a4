//! Links (the browser build's URL query): every built-in preset, written as a link from its
//! model's teaching preset, opens as exactly the same configuration; a link's assignments
//! are `--set`'s; bad links are refused naming the parameter.

use pdes_models::link::Link;
use pdes_models::preset::{self, Config};

#[test]
fn every_builtin_preset_survives_its_link() {
    for (name, text) in preset::builtin() {
        let cfg = Config::from_toml(text, name).unwrap();
        let base = preset::builtin_base(&cfg);
        let link = Link::shortest(base, &cfg).unwrap();
        // from its own name a preset is the name alone
        assert!(
            Link::shortest(name, &cfg).unwrap().sets.is_empty(),
            "{name}"
        );
        let back = Link::parse(&link.query()).unwrap();
        assert_eq!(back, link, "{name}: {}", link.query());
        assert_eq!(back.config().unwrap(), cfg, "{name}: {}", link.query());
    }
}

#[test]
fn a_link_is_its_preset_and_set_assignments() {
    let link = Link::parse("?preset=teaching-16x16&run.d=2&run.algorithm=window&speed=40").unwrap();
    assert_eq!(link.preset, "teaching-16x16");
    assert_eq!(link.sets, ["run.d=2", "run.algorithm=window"]);
    assert_eq!(link.speed, Some(40.0));
    let by_set = preset::config_with("teaching-16x16", &["run.d=2", "run.algorithm=window"]);
    assert_eq!(link.config().unwrap(), by_set.unwrap());
    // a link of the preset itself holds nothing else
    let plain = Link::parse("preset=teaching-16x16").unwrap();
    let cfg = plain.config().unwrap();
    assert_eq!(
        Link::of("teaching-16x16", &cfg).unwrap().query(),
        "preset=teaching-16x16"
    );
}

#[test]
fn a_changed_value_is_one_assignment_that_reads_back() {
    let cfg = preset::config_with("teaching-16x16", &["run.d=0.375", "model.rows=8"]).unwrap();
    let link = Link::of("teaching-16x16", &cfg).unwrap();
    let mut sets = link.sets.clone();
    sets.sort();
    assert_eq!(sets, ["model.rows=8", "run.d=0.375"]);
}

#[test]
fn bad_links_are_refused_naming_the_parameter() {
    let no_file = Link::parse("preset=../secret.toml").unwrap_err();
    assert!(no_file.contains("not a built-in preset"), "{no_file}");
    let twice = Link::parse("run.d=1&run.d=2").unwrap_err();
    assert!(twice.contains("run.d twice"), "{twice}");
    let unknown = Link::parse("preset=teaching-16x16&colour=red").unwrap_err();
    assert!(unknown.contains("\"colour\" is not known"), "{unknown}");
    let speed = Link::parse("speed=-3").unwrap_err();
    assert!(
        speed.contains("speed must be a number from 0.001 to 100,000"),
        "{speed}"
    );
    // a bad value is the preset's own refusal, as on the command line
    let range = Link::parse("preset=teaching-16x16&model.rows=0")
        .unwrap()
        .config()
        .unwrap_err();
    assert!(range.contains("model.rows"), "{range}");
}

#[test]
fn a_link_with_one_bad_assignment_keeps_the_rest_and_names_the_one() {
    // the link: SIR's run.d does not exist; the torus opened, engine and speed lost
    let (mut link, refused) =
        Link::parse_keeping("?preset=teaching-sir&run.d=2&run.engine=gpu&speed=40");
    assert!(refused.is_empty(), "{refused:?}");
    let (cfg, refused) = link.config_keeping().unwrap();
    assert_eq!(cfg.kind(), "sir");
    assert_eq!(cfg.engine(), pdes_lab::preset::EngineKind::Gpu);
    assert_eq!(link.speed, Some(40.0));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("run.d"), "{refused:?}");
    // the refused value is gone from what the page shows and remembers
    assert_eq!(link.sets, ["run.engine=gpu"]);
    assert!(!link.query().contains("run.d"), "{}", link.query());
    // a value out of range likewise, the preset's own value kept in its place
    let (mut link, _) = Link::parse_keeping("preset=teaching-16x16&model.rows=0&model.cols=24");
    let (cfg, refused) = link.config_keeping().unwrap();
    assert_eq!(cfg.shape(), (16, 24));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("model.rows"), "{refused:?}");
    // a bad speed or an unknown parameter is refused alone too
    let (link, refused) =
        Link::parse_keeping("preset=teaching-sir&speed=fast&colour=red&run.engine=gpu");
    assert_eq!(link.preset, "teaching-sir");
    assert_eq!(link.sets, ["run.engine=gpu"]);
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused[0].contains("speed") && refused[1].contains("colour"),
        "{refused:?}"
    );
}

#[test]
fn assignments_that_stand_only_together_are_kept_together() {
    // a warm-up past the preset's end time stands with the link's own, longer end time
    let (mut link, _) =
        Link::parse_keeping("preset=teaching-16x16&run.warmup=2500&run.end_time=3000&run.d=-1");
    let (cfg, refused) = link.config_keeping().unwrap();
    assert_eq!(link.sets, ["run.warmup=2500", "run.end_time=3000"]);
    assert_eq!(cfg.end_time(), 3000.0);
    assert_eq!(refused.len(), 1, "{refused:?}");
}
