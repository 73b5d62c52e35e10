//! `show`, `moves` and `perft`: the rules at the command line.

use std::io::Write;

use anyhow::Result;

use morris::{Position, Variant};

pub fn show(out: &mut dyn Write, variant: &Variant, pos: &Position) -> Result<()> {
    write!(out, "{}", pos.picture(variant.board))?;
    writeln!(out, "{}", pos.notation(variant.board))?;
    if let Some(outcome) = variant.outcome(pos) {
        writeln!(out, "game over: the side to move has {outcome}")?;
    }
    Ok(())
}

pub fn moves(out: &mut dyn Write, variant: &Variant, pos: &Position) -> Result<()> {
    let moves = variant.moves(pos);
    if moves.is_empty() {
        let outcome = variant
            .outcome(pos)
            .expect("no moves means the game is over");
        writeln!(out, "no legal moves: the side to move has {outcome}")?;
    }
    let width = moves
        .iter()
        .map(|(m, _)| m.notation(variant.board).len())
        .max()
        .unwrap_or(0);
    for (m, child) in moves {
        writeln!(
            out,
            "{:width$}  {}",
            m.notation(variant.board),
            child.notation(variant.board)
        )?;
    }
    Ok(())
}

pub fn perft(
    out: &mut dyn Write,
    variant: &Variant,
    pos: &Position,
    depth: u32,
    divide: bool,
) -> Result<()> {
    if divide && depth > 0 {
        let mut total = 0;
        for (m, child) in variant.moves(pos) {
            let n = variant.perft(&child, depth - 1);
            writeln!(out, "{} {n}", m.notation(variant.board))?;
            total += n;
        }
        writeln!(out, "total {total}")?;
    } else {
        writeln!(out, "{}", variant.perft(pos, depth))?;
    }
    Ok(())
}
