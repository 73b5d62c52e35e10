//! The simple check, kept as the oracle of the fast one: every position of
//! a sector in index order, each child valued through the general probe
//! path ([`Tablebase::value`]'s), about 0.16 M positions per second here.

use rayon::prelude::*;

use super::{Checked, Found, Mismatch};
use crate::db::{ProbeError, Tablebase, Value, Wdl};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Outcome, Position};

/// The value of `pos` (a position of play) from its children's stored values.
///
/// # Errors
/// A missing or damaged file of a child's sector.
pub fn recompute(tablebase: &Tablebase, pos: &Position) -> Result<Value, ProbeError> {
    let variant = tablebase.variant();
    if variant.static_outcome(pos) == Some(Outcome::Drawn) {
        return Ok(Value::Draw);
    }
    let mut children = Vec::new();
    for (_, child) in variant.moves(pos) {
        children.push(tablebase.value_of_checked(&child)?);
    }
    Ok(Value::from_children(children))
}

/// Checks every value of one sector (its files' checksums are the
/// caller's); returns the mismatches, at most `limit` of them kept.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn check_sector(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
) -> Result<Checked, ProbeError> {
    let file = tablebase.sector(sector)?;
    check_each(tablebase, sector, limit, |i, position| {
        let stored = file
            .value(i)
            .map_err(|source| tablebase.damaged(sector, Some(position), source))?;
        Ok((
            Found::Distance(stored),
            Found::Distance(recompute(tablebase, position)?),
        ))
    })
}

/// Win, draw or loss of `pos` (a position of play) from its children's
/// stored values, in any folder without the move-count rule.
///
/// # Errors
/// A missing or damaged file of a child's sector.
pub fn recompute_wdl(tablebase: &Tablebase, pos: &Position) -> Result<Wdl, ProbeError> {
    let variant = tablebase.variant();
    if variant.static_outcome(pos) == Some(Outcome::Drawn) {
        return Ok(Wdl::Draw);
    }
    let mut children = Vec::new();
    for (_, child) in variant.moves(pos) {
        children.push(tablebase.wdl_of_checked(&child)?);
    }
    Ok(Wdl::from_children(children))
}

/// [`check_sector`] of a win/draw/loss-only folder.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn check_sector_wdl(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
) -> Result<Checked, ProbeError> {
    let file = tablebase.sector(sector)?;
    check_each(tablebase, sector, limit, |i, position| {
        let stored = file
            .wdl(i)
            .map_err(|source| tablebase.damaged(sector, Some(position), source))?;
        Ok((
            Found::Wdl(stored),
            Found::Wdl(recompute_wdl(tablebase, position)?),
        ))
    })
}

/// Checks every position of one sector in parallel: `stored_and_recomputed`
/// gives the two values of the position at an index; at most `limit`
/// mismatches are kept.
pub(super) fn check_each(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
    stored_and_recomputed: impl Fn(u64, &Position) -> Result<(Found, Found), ProbeError> + Sync,
) -> Result<Checked, ProbeError> {
    let variant = tablebase.variant();
    let index = SectorIndex::of(
        variant.board,
        sector.us_board as usize,
        sector.them_board as usize,
    );
    let found: Vec<Result<Option<Mismatch>, ProbeError>> = (0..index.size())
        .into_par_iter()
        .map(|i| {
            let position = index.position(i, sector.us_hand, sector.them_hand);
            let (stored, recomputed) = stored_and_recomputed(i, &position)?;
            Ok((stored != recomputed).then_some(Mismatch {
                sector,
                index: i,
                position,
                stored,
                recomputed,
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
