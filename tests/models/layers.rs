//! The workspace's layering, checked (issue 31): the models crate builds without any crate
//! of the window, the command line or the plots, and no crate's top-level modules import
//! each other in a cycle (cargo already refuses a cycle between crates).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root (this package's folder).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The names of the packages in `cargo tree -p package` (normal dependencies, host).
fn dependency_names(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(root())
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_models_crate_knows_no_window_command_line_or_plots() {
    let deps = dependency_names("pdes-models");
    assert!(deps.contains("wgpu"), "the tree was read: {deps:?}");
    for upward in [
        "egui",
        "eframe",
        "egui_plot",
        "clap",
        "plotters",
        "rfd",
        "indicatif",
        "pdes-runs",
        "pdes-ui",
        "pdes-bench",
        "pdes-lab",
        "pdes-web",
    ] {
        assert!(
            !deps.contains(upward),
            "pdes-models depends on {upward} (cargo tree -p pdes-models -i {upward} says how)"
        );
    }
    let core = dependency_names("pdes-core");
    for upward in ["wgpu", "egui", "pdes-gpu", "pdes-models"] {
        assert!(!core.contains(upward), "pdes-core depends on {upward}");
    }
}

/// The `.rs` files under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            v.push(p);
        }
    }
    v
}

/// The product code of a file: its unit tests (from `#[cfg(test)]` on, the crate's
/// convention) are not part of the import graph.
fn product_code(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

/// The top-level modules of a crate's `src` and, for each, the top-level modules it names
/// through `crate::…` (or `super::…` from a top-level module's own file).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules: BTreeSet<String> = BTreeSet::new();
    for e in std::fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name != "lib"
            && name != "main"
            && (p.is_dir() || name.len() < p.file_name().unwrap().len())
        {
            modules.insert(name);
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if !modules.contains(&top) || rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        // a top-level module's own file reaches the root's modules as `super::`
        let own_file = rel.components().count() == 1 || rel.ends_with(format!("{top}/mod.rs"));
        let text = std::fs::read_to_string(&file).unwrap();
        let code = product_code(&text);
        // the whole file at once: a group of imports spans lines once rustfmt wraps it
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for prefix in ["crate::", "super::"] {
            if prefix == "super::" && !own_file {
                continue;
            }
            for (i, _) in code.match_indices(prefix) {
                if prefix == "super::" && code[..i].ends_with("super::") {
                    continue;
                }
                for name in named_modules(&code[i + prefix.len()..]) {
                    if modules.contains(&name) && name != top {
                        graph.entry(top.clone()).or_default().insert(name);
                    }
                }
            }
        }
        graph.entry(top).or_default();
    }
    graph
}

/// The modules a path after `crate::` names: its first segment (`preset::Config`), or each
/// first segment of a group (`{devs, torus::INFO, config::Config}`) — the registry's
/// `use crate::{devs, …}` was missed, and with it a cycle of 58 files (issue 58).
fn named_modules(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    // the group's top-level items (a nested group belongs to the item before it)
    let mut names = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                names.push(ident(&group[start..i]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(ident(&group[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// A cycle of `graph`, if it has one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_a_cycle_between_its_top_level_modules() {
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .collect();
    srcs.push(root().join("src"));
    assert!(srcs.len() >= 7, "{srcs:?}");
    let mut cycles = Vec::new();
    for src in srcs {
        let graph = module_graph(&src);
        if let Some(c) = cycle(&graph) {
            let krate = src.parent().and_then(|p| p.file_name()).unwrap();
            cycles.push(format!("{}: {}", krate.to_string_lossy(), c.join(" → ")));
        }
    }
    assert!(
        cycles.is_empty(),
        "modules that import each other in a cycle: {cycles:?}"
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default();
    assert_eq!(cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycle(&g).map(|c| c.len()), Some(4));
}

#[test]
fn the_module_graph_sees_grouped_imports() {
    // a crate whose cycle goes through `use crate::{…}`, as pdes-models' did
    let src = std::env::temp_dir().join(format!("pdes-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(src.join("models")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub mod registry;\npub mod models;\npub mod config;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("registry.rs"),
        "use crate::{\n    models, config::Thing};\nuse crate::{models::{a, b}, config};\n",
    )
    .unwrap();
    std::fs::write(src.join("models/mod.rs"), "use crate::registry::by_kind;\n").unwrap();
    std::fs::write(src.join("config.rs"), "pub struct Thing;\n").unwrap();
    let graph = module_graph(&src);
    assert_eq!(
        graph["registry"],
        ["config", "models"].map(String::from).into()
    );
    assert!(cycle(&graph).is_some(), "{graph:?}");
    assert_eq!(
        named_modules("{devs, torus::INFO, config::{A, B}}"),
        ["devs", "torus", "config"]
    );
}
