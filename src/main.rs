//! The `morris` binary: parse arguments, run, turn errors into an exit code.
//! The command line lives here (`cli/`), not in the library: everything it
//! computes comes from `morris` library calls.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().collect();
    if let Err(conflict) = cli::check_repeated_options(&raw) {
        cli::note(&format!("error: {conflict}"));
        return ExitCode::from(2);
    }
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            cli::note(&format!("error: {err:#}"));
            if let Some(hint) = cli::hint(&err) {
                cli::note(&format!("hint: {hint}"));
            }
            ExitCode::from(cli::exit_code(&err))
        }
    }
}
