//! The front page and the guide (issue 58 §1–2): every chapter is in the guide's summary,
//! every link between pages and to pictures leads to a file that exists, and README.md stays
//! a front page.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The targets of the Markdown links `[text](target)` and images in `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(j) = rest.find(')') {
            out.push(rest[..j].to_string());
            rest = &rest[j..];
        }
    }
    out
}

/// The pages: README.md and every chapter of the guide.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![Path::new(ROOT).join("README.md")];
    let dir = Path::new(ROOT).join("docs/src");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    v.extend(chapters);
    v
}

#[test]
fn every_internal_link_leads_to_a_file() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.starts_with("http")
                || target.starts_with('#')
                || target.starts_with("mailto:")
            {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            let full = page.parent().unwrap().join(path);
            if !full.exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_chapter_is_in_the_summary() {
    let summary = std::fs::read_to_string(Path::new(ROOT).join("docs/src/SUMMARY.md")).unwrap();
    for page in pages().iter().skip(1) {
        let name = page.file_name().unwrap().to_str().unwrap();
        if name != "SUMMARY.md" {
            assert!(
                summary.contains(&format!("({name})")),
                "{name} is not in SUMMARY.md"
            );
        }
    }
}

#[test]
fn the_readme_is_a_front_page_with_the_two_commands() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines: the details go to docs/"
    );
    assert!(readme.contains("cargo run --release"));
    assert!(readme.contains("cargo test --release"));
    assert!(readme.contains("docs/src/SUMMARY.md") || readme.contains("docs/"));
}

/// The command line's reference as the guide prints it: `pdes-lab --help`, then each
/// command's `--help`, rendered from the clap definitions themselves.
fn cli_reference() -> String {
    use clap::CommandFactory;
    let mut cmd = pdes_lab::cli::Cli::command();
    cmd.build();
    let mut out = String::from(
        "# Command reference\n\nEvery command's `--help`, generated from the program's own definitions (a test keeps this page equal to them).\n\n",
    );
    out += &format!(
        "## pdes-lab\n\n```text\n{}\n```\n",
        cmd.render_long_help().to_string().trim_end()
    );
    for sub in cmd.get_subcommands_mut() {
        if sub.get_name() == "help" {
            continue;
        }
        let help = sub.render_long_help().to_string();
        out += &format!(
            "\n## pdes-lab {}\n\n```text\n{}\n```\n",
            sub.get_name(),
            help.trim_end()
        );
    }
    out
}

/// docs/src/cli-reference.md is the command line's own help (regenerate it with
/// `PDES_WRITE_DOCS=1 cargo test --release --test cli reference`).
#[test]
fn the_guides_command_reference_is_the_programs_help() {
    let path = Path::new(ROOT).join("docs/src/cli-reference.md");
    let want = cli_reference();
    if std::env::var_os("PDES_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/src/cli-reference.md differs from the program's --help: regenerate it (see this test's doc)"
    );
}
