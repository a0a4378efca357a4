//! `pdes-lab`: parses the command line and runs the requested command.

use clap::Parser;

/// Large arrays start on a huge page, so that the simulators' huge-page advice covers them
/// whole (`pdes_lab::sim::memory`).
#[global_allocator]
static ALLOCATOR: pdes_lab::sim::memory::HugeAligned = pdes_lab::sim::memory::HugeAligned;

fn main() {
    pdes_lab::cli::mark_start();
    let cli = match pdes_lab::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    if cli.is_headless() && std::env::var_os("NODEVICE_SELECT").is_none() {
        // Mesa's implicit Vulkan layer VkLayer_MESA_device_select connects to Wayland and X11
        // to choose a default GPU, and prints "XDG_RUNTIME_DIR is invalid" where there is no
        // session: a headless command must not touch the windowing system. The layer honours
        // NODEVICE_SELECT=1 (wgpu chooses the adapter itself anyway).
        // SAFETY: no other thread exists yet, so nothing reads the environment concurrently.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    if let Err(e) = pdes_lab::cli::dispatch(cli) {
        pdes_lab::cli::output::to_stderr(&format!("pdes-lab: {e}"));
        std::process::exit(e.exit_code());
    }
    if std::env::var_os("PDES_GPU_PROFILE").is_some() {
        // the rest of the user's wait is the process's exit
        eprintln!(
            "pdes-lab: the command returned after {:.2} s",
            pdes_lab::cli::command_seconds()
        );
    }
}

/// A command line clap refuses: help and version as clap prints them; any other error in
/// one line (clap's own is four or five: the error, a tip, the usage, a pointer to --help),
/// with where the options are listed, exit status 2.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    // clap's first paragraph (a missing argument's name is on the line below the error)
    let first: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let first = first.join(" ");
    let first = plain_words(first.strip_prefix("error: ").unwrap_or(&first));
    let command = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let help = match command {
        Some(c) if e.kind() != ErrorKind::InvalidSubcommand => {
            format!("`pdes-lab {c} --help` lists its options")
        }
        _ => "`pdes-lab --help` lists the commands".to_string(),
    };
    // what clap put on the lines below, where it says what is valid
    let valid = match e.get(clap::error::ContextKind::ValidValue) {
        Some(clap::error::ContextValue::Strings(v))
            if !v.is_empty() && !first.contains("possible values") =>
        {
            format!("; possible values: {}", v.join(", "))
        }
        _ => String::new(),
    };
    pdes_lab::cli::output::to_stderr(&format!(
        "pdes-lab: {}{valid} ({help})",
        pdes_lab::models::error::one_line(&first)
    ));
    std::process::exit(2);
}

/// clap's words for a number it refused, as a student reads them: "0 is not in 1..=100"
/// becomes "a whole number from 1 to 100", "invalid digit found in string" "not a whole
/// number".
fn plain_words(message: &str) -> String {
    let message = message.replace(": invalid digit found in string", ": not a whole number");
    let Some((head, tail)) = message.split_once(" is not in ") else {
        return message;
    };
    let range = tail.split_whitespace().next().unwrap_or("");
    match range.split_once("..=") {
        Some((lo, hi)) => {
            let at = head.rfind(": ").map_or(0, |i| i + 2);
            format!(
                "{}: it takes a whole number from {lo} to {hi}",
                &head[..at.saturating_sub(2)]
            )
        }
        None => message.clone(),
    }
}
