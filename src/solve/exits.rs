//! The finished sectors that a unit's moves leave to, and reading their
//! values with the loads of one position's children under way together.

use std::sync::Arc;

use super::error::SolveError;
use crate::db::{ProbeError, SectorFile, Tablebase, Value};
use crate::index::{SectorIndex, SectorKey, UsClass};
use crate::rules::{Bitboard, Position, Variant};
use crate::system::prefetch;

/// The finished sectors that moves leaving a unit lead to, mapped once with
/// their indices, so the inner loop takes no lock.
pub(super) struct Exits<'a> {
    pub(super) tablebase: &'a Tablebase,
    /// The unit's first sector, for errors.
    unit: SectorKey,
    pub(super) sectors: Vec<(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)>,
}

impl<'a> Exits<'a> {
    pub(super) fn new(
        variant: &'static Variant,
        unit: &[SectorKey],
        tablebase: &'a Tablebase,
    ) -> Result<Exits<'a>, SolveError> {
        let mut keys: Vec<SectorKey> = unit
            .iter()
            .flat_map(|s| s.successors(variant))
            .filter(|s| !unit.contains(s) && tablebase.has_sector(*s))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let sectors = keys
            .into_iter()
            .map(|s| {
                let index = SectorIndex::of_sector(variant.board, s);
                Ok((s, index, tablebase.sector(s)?))
            })
            .collect::<Result<_, ProbeError>>()?;
        Ok(Exits {
            tablebase,
            unit: unit[0],
            sectors,
        })
    }

    /// Where a child's value is: known already (a game end, or answered by
    /// the tablebase), or at an index of one of the mapped sectors, whose
    /// byte is prefetched so that a position's children load in parallel.
    #[inline]
    pub(super) fn locate(
        &self,
        child: &Position,
        last: &mut LastClass,
    ) -> Result<Exit, SolveError> {
        if child.total(child.to_move) < 3 {
            return Ok(Exit::Known(Value::Loss(0)));
        }
        let key = SectorKey::of(child);
        let Some(entry) = self.sectors.iter().position(|(s, _, _)| *s == key) else {
            // Missing files and game ends: the tablebase explains or answers.
            return match self.tablebase.value_of_checked(child) {
                Ok(value) => Ok(Exit::Known(value)),
                Err(source) => Err(self.unavailable(key, source)),
            };
        };
        let (_, index, file) = &self.sectors[entry];
        let at = last.index(entry, index, child.us(), child.them());
        prefetch(file.bytes().unwrap_or_default(), at);
        Ok(Exit::At(entry, at))
    }

    /// The error of a child in sector `needed` that the tablebase could not
    /// answer.
    pub(super) fn unavailable(&self, needed: SectorKey, source: ProbeError) -> SolveError {
        match source {
            source @ ProbeError::MissingSector { .. } => SolveError::MissingDependency {
                sector: self.unit,
                needed,
                source,
            },
            e => e.into(),
        }
    }

    pub(super) fn read(&self, entry: usize, index: u64) -> Result<Value, SolveError> {
        let (key, _, file) = &self.sectors[entry];
        file.value(index)
            .map_err(|source| self.tablebase.damaged(*key, None, source).into())
    }
}

/// The last class lookup and the index (by position in a list) it was made
/// in: a position's children keep the mover's men except after a removal,
/// so most of them share it.
#[derive(Default)]
pub(super) struct LastClass(Option<(usize, UsClass)>);

impl LastClass {
    #[inline]
    pub(super) fn index(
        &mut self,
        which: usize,
        index: &SectorIndex,
        us: Bitboard,
        them: Bitboard,
    ) -> u64 {
        let class = match self.0 {
            Some((w, c)) if w == which && c.us == us => c,
            _ => {
                let c = index.us_class(us);
                self.0 = Some((which, c));
                c
            }
        };
        index.index_in(&class, them)
    }
}

/// A child outside the unit, see [`Exits::locate`].
pub(super) enum Exit {
    Known(Value),
    At(usize, u64),
}
