//! Checking a database: checksums, then every stored value recomputed from
//! its children's stored values by forward move generation. This shares
//! nothing with the retrograde solver but the rules and the files.

use rayon::prelude::*;

use crate::db::{ProbeError, Tablebase, Value};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Outcome, Position};

/// A value that does not follow from its children.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub sector: SectorKey,
    pub index: u64,
    pub position: Position,
    pub stored: Value,
    pub recomputed: Value,
}

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

/// Checks one sector's file (checksums) and its stored index, then every
/// value; returns the mismatches
/// (at most `limit` of them kept) and their total count.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn verify_sector(
    tablebase: &Tablebase,
    sector: SectorKey,
    limit: usize,
) -> Result<(Vec<Mismatch>, u64), ProbeError> {
    tablebase.verify_checksum(sector)?;
    tablebase.verify_index(sector)?;
    let file = tablebase.sector(sector)?;
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
            let stored = file
                .value(i)
                .map_err(|source| tablebase.damaged(sector, Some(&position), source))?;
            let recomputed = recompute(tablebase, &position)?;
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
    let mut mismatches = Vec::new();
    let mut total = 0;
    for r in found {
        if let Some(m) = r? {
            total += 1;
            if mismatches.len() < limit {
                mismatches.push(m);
            }
        }
    }
    Ok((mismatches, total))
}
