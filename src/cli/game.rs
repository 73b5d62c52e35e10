//! `show`, `moves` and `perft`: the rules at the command line. Under the
//! move-count rule (`--n-move N`) a position carries its counter, the plies
//! since the last mill, and the game is drawn when it reaches N.

use std::io::Write;

use anyhow::Result;

use morris::rules::Outcome;
use morris::{Position, Variant};

/// A position with its counter (0 without the move-count rule).
type Counted = (Position, u8);

/// The position string of a position, with its counter under the rule.
fn notation(variant: &Variant, (pos, counter): Counted) -> String {
    match variant.n_move {
        Some(_) => format!("{} {counter}", pos.notation(variant.board)),
        None => pos.notation(variant.board),
    }
}

/// How and why the game has ended at `pos`, if it has.
fn game_over(variant: &Variant, pos: &Position) -> Option<String> {
    let mover = pos.to_move;
    let men = |color: morris::Color| pos.total(color);
    Some(match variant.outcome(pos)? {
        Outcome::Lost if men(mover) < 3 => format!(
            "{} to move has lost, with {} men (a side needs 3)",
            mover.name(),
            men(mover)
        ),
        Outcome::Lost => format!("{} to move has lost: it has no legal move", mover.name()),
        Outcome::Won => format!(
            "{} to move has won: {} has {} men (a side needs 3)",
            mover.name(),
            mover.other().name(),
            men(mover.other())
        ),
        Outcome::Drawn => "drawn: the board is full".to_string(),
    })
}

/// Whether the move-count rule has ended the game at this counter.
fn drawn_by_rule(variant: &Variant, counter: u8) -> Option<u8> {
    variant.n_move.filter(|&n| counter >= n)
}

/// The counter after a move: 0 when it closes a mill, one more otherwise.
fn counter_after(variant: &Variant, counter: u8, to: morris::rules::Point, child: &Position) -> u8 {
    if variant.board.closes_mill(child.them(), to) {
        0
    } else {
        counter.saturating_add(1)
    }
}

pub fn show(out: &mut dyn Write, variant: &Variant, (pos, counter): Counted) -> Result<()> {
    write!(out, "{}", pos.picture(variant.board))?;
    writeln!(out, "{}", notation(variant, (pos, counter)))?;
    if let Some(end) = game_over(variant, &pos) {
        writeln!(out, "game over: {end}")?;
    } else if let Some(n) = drawn_by_rule(variant, counter) {
        writeln!(
            out,
            "game over: drawn by the move-count rule ({counter} plies without a mill, {n} draw)"
        )?;
    }
    Ok(())
}

pub fn moves(out: &mut dyn Write, variant: &Variant, (pos, counter): Counted) -> Result<()> {
    if let Some(end) = game_over(variant, &pos) {
        writeln!(out, "no moves: the game is over: {end}")?;
        return Ok(());
    }
    let moves = variant.moves(&pos);
    if let Some(n) = drawn_by_rule(variant, counter) {
        writeln!(
            out,
            "no moves: the game is drawn by the move-count rule ({counter} plies without a mill, {n} draw)"
        )?;
        return Ok(());
    }
    let width = moves
        .iter()
        .map(|(m, _)| m.notation(variant.board).len())
        .max()
        .unwrap_or(0);
    for (m, child) in moves {
        let child_counter = counter_after(variant, counter, m.to, &child);
        writeln!(
            out,
            "{:width$}  {}",
            m.notation(variant.board),
            notation(variant, (child, child_counter))
        )?;
    }
    Ok(())
}

pub fn perft(
    out: &mut dyn Write,
    variant: &Variant,
    (pos, counter): Counted,
    depth: u32,
    divide: bool,
) -> Result<()> {
    if divide && depth > 0 && drawn_by_rule(variant, counter).is_none() {
        let mut total = 0;
        for (m, child) in variant.moves(&pos) {
            let child_counter = counter_after(variant, counter, m.to, &child);
            let n = perft_at(variant, &child, child_counter, depth - 1);
            writeln!(out, "{} {n}", m.notation(variant.board))?;
            total += n;
        }
        writeln!(out, "total {total}")?;
    } else {
        writeln!(out, "{}", perft_at(variant, &pos, counter, depth))?;
    }
    Ok(())
}

/// [`Variant::perft`] under the move-count rule: a position whose counter
/// has reached N has no moves.
fn perft_at(variant: &Variant, pos: &Position, counter: u8, depth: u32) -> u64 {
    let Some(n) = variant.n_move else {
        return variant.perft(pos, depth);
    };
    if depth == 0 {
        return 1;
    }
    // No position above the leaves reaches N: the plain count holds.
    if u32::from(counter) + depth - 1 < u32::from(n) {
        return variant.perft(pos, depth);
    }
    if counter >= n {
        return 0;
    }
    variant
        .moves(pos)
        .into_iter()
        .map(|(m, child)| {
            perft_at(
                variant,
                &child,
                counter_after(variant, counter, m.to, &child),
                depth - 1,
            )
        })
        .sum()
}
