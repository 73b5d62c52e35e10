//! `probe` on a folder of win/draw/loss only (`morris pack --wdl`): values
//! and moves without plies, said so in text and JSON; no lines of play.

use std::io::Write;

use anyhow::{Result, bail};
use serde_json::{Value as Json, json};

use super::parse_position;
use super::probe::{MoveRow, ProbeOptions, moves_text, write_moves};
use morris::db::WdlAnswer;
use morris::{Tablebase, Variant};

/// Why a value here has no plies, for people and in JSON.
const NO_PLIES: &str = "win/draw/loss-only folder (morris pack --wdl): it stores no plies";

/// The answer for one position string.
///
/// # Errors
/// A bad position, a database problem, or a line asked for.
pub fn answer(tablebase: &Tablebase, text: &str, options: &ProbeOptions) -> Result<WdlAnswer> {
    if options.line {
        bail!(
            "{} holds win/draw/loss only: without plies it cannot tell a winning move that makes progress from one that goes round, so it gives no line of play (probe a folder packed in full, or the raw one)",
            tablebase.dir().display()
        );
    }
    let pos = parse_position(tablebase.variant(), text)?;
    Ok(if options.moves {
        tablebase.wdl_probe(&pos)?
    } else {
        WdlAnswer {
            position: pos,
            value: tablebase.wdl(&pos)?,
            moves: Vec::new(),
        }
    })
}

/// `position` is how the answer names the position.
pub fn answer_json(variant: &Variant, answer: &WdlAnswer, position: &str) -> Json {
    let mut object = json!({
        "position": position,
        "wdl": answer.value.as_str(),
        "plies": null,
        "plies_null_because": NO_PLIES,
    });
    if !answer.moves.is_empty() {
        let moves: Vec<Json> = answer
            .moves
            .iter()
            .map(|m| {
                json!({
                    "move": m.play.notation(variant.board),
                    "position": m.position.notation(variant.board),
                    "wdl": m.value.as_str(),
                    "plies": null,
                })
            })
            .collect();
        object["moves"] = json!(moves);
    }
    object
}

pub fn write_answer(out: &mut dyn Write, variant: &Variant, answer: &WdlAnswer) -> Result<()> {
    let pos = &answer.position;
    write!(out, "{}", pos.picture(variant.board))?;
    writeln!(out, "{}", pos.notation(variant.board))?;
    writeln!(
        out,
        "{} to move: {} (no plies: {NO_PLIES})",
        pos.to_move.name(),
        answer.value
    )?;
    let rows: Vec<MoveRow> = answer
        .moves
        .iter()
        .map(|m| (m.play, m.position, vec![(m.value.to_string(), 5)]))
        .collect();
    write_moves(out, variant, &rows)?;
    writeln!(out)?;
    Ok(())
}

/// One batch output line: the position as given, its value, its moves.
pub fn batch_text(variant: &Variant, text: &str, answer: &WdlAnswer) -> String {
    let mut s = format!("{text}\t{}", answer.value);
    if !answer.moves.is_empty() {
        s.push('\t');
        s.push_str(&moves_text(
            variant,
            answer.moves.iter().map(|m| (m.play, m.value.to_string())),
        ));
    }
    s
}
