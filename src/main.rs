//! `pdes-lab`: parses the command line and runs the requested command.

use clap::Parser;

fn main() {
    let cli = pdes_lab::cli::Cli::parse();
    if let Err(e) = pdes_lab::cli::dispatch(cli) {
        eprintln!("pdes-lab: {e}");
        std::process::exit(e.exit_code());
    }
}
