//! The simple check under the move-count rule, the oracle of the fast one
//! (`forward.rs`): every stored value (with a fresh counter) recomputed from
//! its children's stored values, each child through the general probe path. With the rule the values need no levels to be
//! well-founded: the plies to the next mill are bounded by N, a mill leads to
//! fewer men, and every other move to one more ply, so the one-ply relation
//! checked here, together with the end rules, proves every value.

use super::{Checked, Found};
use crate::db::{ClockValue, ProbeError, Tablebase};
use crate::index::SectorKey;
use crate::rules::{Outcome, Position};

/// The value of `pos` (a position of play) under the folder's rule, from
/// its children's stored values.
///
/// # Errors
/// A folder without the rule, or a missing or damaged file of a child.
pub fn recompute(tablebase: &Tablebase, pos: &Position) -> Result<ClockValue, ProbeError> {
    let variant = tablebase.variant();
    if variant.static_outcome(pos) == Some(Outcome::Drawn) {
        return Ok(ClockValue::Draw);
    }
    let n = variant.n_move.expect("a folder under the move-count rule");
    let mut moves = Vec::new();
    for (play, child) in variant.moves(pos) {
        let mill = variant.board.closes_mill(child.them(), play.to);
        moves.push(ClockValue::of_move(
            tablebase.clock_value_of_checked(&child)?,
            mill,
            n,
        ));
    }
    Ok(ClockValue::best(moves))
}

/// Checks every value of one sector of a folder under the rule, the simple
/// way (the oracle of the fast check); the file's checksums are the
/// caller's. At most `limit` mismatches are kept.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn check_sector(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
) -> Result<Checked, ProbeError> {
    let file = tablebase.sector(sector)?;
    let n = tablebase
        .variant()
        .n_move
        .expect("a folder under the move-count rule");
    super::oracle::check_each(tablebase, sector, limit, |i, position| {
        let stored = file
            .clock_value(i, n)
            .map_err(|source| tablebase.damaged(sector, Some(position), source))?;
        Ok((
            Found::Clock(stored),
            Found::Clock(recompute(tablebase, position)?),
        ))
    })
}
