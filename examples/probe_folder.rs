//! Probe a solved folder: a position's value, its moves best first and the
//! line of perfect play, as the library answers them (what `morris probe`
//! prints).
//!
//!     cargo run --release --example probe_folder -- DIR [POSITION] [COUNTER]
//!
//! POSITION is in the notation of `docs/RULES.md` (the start when left
//! out); COUNTER, the plies since the last mill, matters only in a folder
//! solved under the move-count rule.

use std::path::PathBuf;

use anyhow::{Context, Result};
use morris::{Position, Tablebase};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .context("usage: probe_folder DIR [POSITION] [COUNTER]")?,
    );
    let tablebase = Tablebase::open_folder(&dir)?;
    let variant = tablebase.variant();
    let position = match args.next() {
        Some(text) => variant.parse_position(&text)?,
        None => Position::start(variant),
    };
    let counter: u8 = args.next().map(|c| c.parse()).transpose()?.unwrap_or(0);

    let answer = tablebase.answer(&position, counter)?;
    // Plies to the end: none for a draw, a win/draw/loss-only folder or
    // under the rule (where `value.rule` holds the plies to the next mill).
    let plies = answer
        .value
        .plies
        .map(|n| format!(" in {n} plies"))
        .unwrap_or_default();
    println!(
        "{}: {}{plies}",
        answer.notation,
        answer.value.category.as_str()
    );
    for m in answer.moves.iter().flatten() {
        println!("  {:<8} {}", m.notation, m.value.category.as_str());
    }
    // A folder of win/draw/loss only has no line: its values have no plies.
    match tablebase.line(&position, counter, 20) {
        Ok(line) => {
            let board = variant.board;
            let moves: Vec<String> = line.moves.iter().map(|m| m.notation(board)).collect();
            println!("line: {}", moves.join(" "));
        }
        Err(e) => println!("no line: {e}"),
    }
    // The same answer as JSON, as `morris probe --json` prints it.
    println!("{}", serde_json::to_string(&answer)?);
    Ok(())
}
