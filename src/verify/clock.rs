//! The simple check under the move-count rule, the oracle of the fast one
//! (`forward.rs`): every stored value (with a fresh counter) recomputed from
//! its children's stored values, each child through the general probe path. With the rule the values need no levels to be
//! well-founded: the plies to the next mill are bounded by N, a mill leads to
//! fewer men, and every other move to one more ply, so the one-ply relation
//! checked here, together with the end rules, proves every value.

use rayon::prelude::*;

use super::{Checked, Found, Mismatch};
use crate::db::{ClockValue, ProbeError, Tablebase};
use crate::index::{SectorIndex, SectorKey};
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
    let variant = tablebase.variant();
    let n = variant.n_move.expect("a folder under the move-count rule");
    let index = SectorIndex::of(
        variant.board,
        sector.us_board as usize,
        sector.them_board as usize,
    );
    let found: Vec<Result<Option<Mismatch>, ProbeError>> = (0..index.size())
        .into_par_iter()
        .map(|i| {
            let position = index.position(i, sector.us_hand, sector.them_hand);
            let stored = file
                .clock_value(i, n)
                .map_err(|source| tablebase.damaged(sector, Some(&position), source))?;
            let recomputed = recompute(tablebase, &position)?;
            Ok((stored != recomputed).then_some(Mismatch {
                sector,
                index: i,
                position,
                stored: Found::Clock(stored),
                recomputed: Found::Clock(recomputed),
            }))
        })
        .filter(|r| !matches!(r, Ok(None)))
        .collect();
    let mut checked = Checked {
        positions: index.size(),
        ..Checked::default()
    };
    for r in found {
        if let Some(m) = r? {
            checked.add(m, limit);
        }
    }
    Ok(checked)
}
