//! The `morris` binary: parse arguments, run, turn errors into an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = morris::cli::Cli::parse();
    match morris::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(morris::cli::exit_code(&err))
        }
    }
}
