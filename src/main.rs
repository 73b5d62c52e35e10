//! The `morris` binary: parse arguments, run, turn errors into an exit code.
//! The command line lives here (`cli/`), not in the library: everything it
//! computes comes from `morris` library calls.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            cli::note(&format!("error: {err:#}"));
            ExitCode::from(cli::exit_code(&err))
        }
    }
}
