//! Records the git commit the binary is built from (`PDES_GIT_COMMIT`, "-dirty" when the
//! working tree had changes, "unknown" without git), so that every benchmark report names
//! the code that produced it.

fn main() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=PDES_GIT_COMMIT={commit}");
    // this crate is two folders below the repository's root
    for p in [
        "../../.git/HEAD",
        "../../.git/index",
        "../../.git/refs/heads",
    ] {
        println!("cargo:rerun-if-changed={p}");
    }
}
