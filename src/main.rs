//! `pdes-lab`: parses the command line and runs the requested command.

use clap::Parser;

/// Large arrays start on a huge page, so that the simulators' huge-page advice covers them
/// whole (`pdes_lab::sim::memory`).
#[global_allocator]
static ALLOCATOR: pdes_lab::sim::memory::HugeAligned = pdes_lab::sim::memory::HugeAligned;

fn main() {
    let cli = pdes_lab::cli::Cli::parse();
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
}
