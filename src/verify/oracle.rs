//! The simple check, kept as the oracle of the fast one: every position of
//! a sector in index order, each child valued through the general probe
//! path ([`Tablebase::value`]'s), about 0.16 M positions per second here.

use rayon::prelude::*;

use super::{Checked, Found, Mismatch};
use crate::db::{FileError, ProbeError, SectorFile, Tablebase, Value, Wdl};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Outcome, Position};

/// The value of `pos` (a position of play) from its children's stored values.
///
/// # Errors
/// A missing or damaged file of a child's sector.
pub fn recompute(tablebase: &Tablebase, pos: &Position) -> Result<Value, ProbeError> {
    fold_children(
        tablebase,
        pos,
        Value::Draw,
        Tablebase::value_of_checked,
        Value::from_children,
    )
}

/// `fold` of the values `value_of` gives `pos`'s children; `drawn` on a
/// board drawn by being full (Morabaraba).
fn fold_children<T>(
    tablebase: &Tablebase,
    pos: &Position,
    drawn: T,
    value_of: impl Fn(&Tablebase, &Position) -> Result<T, ProbeError>,
    fold: impl FnOnce(Vec<T>) -> T,
) -> Result<T, ProbeError> {
    let variant = tablebase.variant();
    if variant.static_outcome(pos) == Some(Outcome::Drawn) {
        return Ok(drawn);
    }
    let mut children = Vec::new();
    for (_, child) in variant.moves(pos) {
        children.push(value_of(tablebase, &child)?);
    }
    Ok(fold(children))
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
    check_stored(
        tablebase,
        sector,
        limit,
        |file, i| file.value(i).map(Found::Distance),
        |tb, p| recompute(tb, p).map(Found::Distance),
    )
}

/// [`check_each`] of a sector's stored values, as `stored` reads them from
/// its file and `recompute` finds them from the children.
fn check_stored(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
    stored: impl Fn(&SectorFile, u64) -> Result<Found, FileError> + Sync,
    recompute: impl Fn(&Tablebase, &Position) -> Result<Found, ProbeError> + Sync,
) -> Result<Checked, ProbeError> {
    let file = tablebase.sector(sector)?;
    check_each(tablebase, sector, limit, |i, position| {
        let found =
            stored(&file, i).map_err(|source| tablebase.damaged(sector, Some(position), source))?;
        Ok((found, recompute(tablebase, position)?))
    })
}

/// Win, draw or loss of `pos` (a position of play) from its children's
/// stored values, in any folder without the move-count rule.
///
/// # Errors
/// A missing or damaged file of a child's sector.
pub fn recompute_wdl(tablebase: &Tablebase, pos: &Position) -> Result<Wdl, ProbeError> {
    fold_children(
        tablebase,
        pos,
        Wdl::Draw,
        Tablebase::wdl_of_checked,
        Wdl::from_children,
    )
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
    check_stored(
        tablebase,
        sector,
        limit,
        |file, i| file.wdl(i).map(Found::Wdl),
        |tb, p| recompute_wdl(tb, p).map(Found::Wdl),
    )
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
    let size = sector_index(tablebase, sector).size();
    check_indices(tablebase, sector, limit, size, |i| i, stored_and_recomputed)
}

fn sector_index(tablebase: &Tablebase, sector: SectorKey) -> std::sync::Arc<SectorIndex> {
    let variant = tablebase.variant();
    SectorIndex::of_sector(variant.board, sector)
}

/// Checks a sector of losses files (see `packed.rs`), whose values a
/// one-ply search finds: each position's value found so against the one
/// its children's, found the same way, give. Every position, or the sample
/// of `verify --sample` (count and seed). Like the raw check it proves the
/// values, distances included, of a losses file with plies.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn check_losses(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
    sample: Option<(u64, u64)>,
) -> Result<Checked, ProbeError> {
    let size = sector_index(tablebase, sector).size();
    // A win found has a lost child and is one ply slower than the fastest:
    // what its children's values give, so it stands. A loss found is
    // confirmed by its children's searches, each cut short where it can;
    // a draw, or a loss not confirmed, is checked against all its
    // children's values, each found by its own search: two plies.
    let values = |_, p: &Position| {
        Ok(if tablebase.is_wdl_only() {
            let found = tablebase.wdl_of_checked(p)?;
            let given = match found {
                Wdl::Win => found,
                _ => recompute_wdl(tablebase, p)?,
            };
            (Found::Wdl(found), Found::Wdl(given))
        } else {
            let found = tablebase.value_of_checked(p)?;
            let given = match found {
                Value::Win(_) => found,
                // The children's searches cut short where they can.
                Value::Loss(plies) if tablebase.children_confirm_loss(p, plies)? => found,
                _ => recompute(tablebase, p)?,
            };
            (Found::Distance(found), Found::Distance(given))
        })
    };
    match sample {
        None => check_indices(tablebase, sector, limit, size, |i| i, values),
        Some(_) if size == 0 => Ok(Checked::default()),
        Some((count, seed)) => {
            let pick = super::sample_indices(sector, seed, size);
            check_indices(tablebase, sector, limit, count, pick, values)
        }
    }
}

/// [`check_each`] of the `count` positions at `index_of(0..count)`.
fn check_indices(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
    count: u64,
    index_of: impl Fn(u64) -> u64 + Sync,
    stored_and_recomputed: impl Fn(u64, &Position) -> Result<(Found, Found), ProbeError> + Sync,
) -> Result<Checked, ProbeError> {
    let index = sector_index(tablebase, sector);
    let found: Vec<Result<Option<Mismatch>, ProbeError>> = (0..count)
        .into_par_iter()
        .map(|n| {
            let i = index_of(n);
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
        positions: count,
        ..Checked::default()
    };
    for r in found {
        if let Some(m) = r? {
            checked.add(m, limit);
        }
    }
    Ok(checked)
}
