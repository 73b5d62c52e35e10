//! The finished sectors that a unit's moves leave to, and reading their
//! values with the loads of one position's children under way together.

use std::sync::Arc;

use super::error::SolveError;
use memmap2::{MmapMut, MmapOptions};

use crate::db::{FileError, ProbeError, SectorFile, Tablebase, Value};
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
    /// Per entry of `sectors`, its value bytes copied into memory when
    /// [`copied_exit_budget`] allows (see there).
    copies: Vec<Option<MmapMut>>,
}

/// Bytes of its exits' values a unit may copy into memory, per position of
/// the unit: at most the unit's own cells and a little more.
pub const COPIED_EXIT_BYTES_PER_POSITION: u64 = 2;

/// How many bytes of its exits' values a unit's solve copies into memory in
/// huge pages. Only where a side holding men may also slide (Lasker):
/// there every position reads a dozen children scattered over the exits'
/// files, and a read of a file map stalls (a page walk, we infer: this
/// machine counts no misses); from huge pages those units take 13% less
/// time (docs/PERFORMANCE.md). Elsewhere the reads are few or local, and
/// nothing is copied.
pub fn copied_exit_budget(variant: &Variant, unit: &[SectorKey]) -> u64 {
    if !variant.move_while_holding || unit.iter().all(|s| s.is_movement()) {
        return 0;
    }
    let positions: u64 = unit
        .iter()
        .map(|s| SectorIndex::count_of(variant.board, *s))
        .sum();
    positions * COPIED_EXIT_BYTES_PER_POSITION
}

/// The bytes of exits' values a solve of `unit` copies into memory when
/// every exit is there (what its job's memory must allow for).
pub fn copied_exit_bytes(variant: &Variant, unit: &[SectorKey]) -> u64 {
    let lens: Vec<u64> = exit_sectors(variant, unit)
        .iter()
        .map(|s| SectorIndex::count_of(variant.board, *s))
        .collect();
    exits_to_copy(&lens, copied_exit_budget(variant, unit))
        .into_iter()
        .zip(&lens)
        .filter_map(|(copied, &len)| copied.then_some(len))
        .sum()
}

/// The sectors outside `unit` that its moves lead to, in order.
fn exit_sectors(variant: &Variant, unit: &[SectorKey]) -> Vec<SectorKey> {
    let mut keys: Vec<SectorKey> = unit
        .iter()
        .flat_map(|s| s.successors(variant))
        .filter(|s| !unit.contains(s))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Which exits, of `lens` values each in the order given, are copied within
/// `budget` bytes: each one that still fits.
fn exits_to_copy(lens: &[u64], budget: u64) -> Vec<bool> {
    let mut left = budget;
    lens.iter()
        .map(|&len| {
            let fits = len <= left;
            if fits {
                left -= len;
            }
            fits
        })
        .collect()
}

/// A raw file's value bytes in anonymous memory in huge pages, every block
/// checked first; `None` for a packed file, or when the system has no
/// memory for it (the reads then go to the file: only slower).
fn copy_values(file: &SectorFile) -> Result<Option<MmapMut>, FileError> {
    file.check_blocks()?;
    let Some(bytes) = file.checked_bytes() else {
        return Ok(None);
    };
    let Ok(mut copy) = MmapOptions::new().len(bytes.len().max(1)).map_anon() else {
        return Ok(None);
    };
    #[cfg(target_os = "linux")]
    {
        // Only advice: without huge pages the copy is as slow as the file.
        let _ = copy.advise(memmap2::Advice::HugePage);
    }
    copy[..bytes.len()].copy_from_slice(bytes);
    Ok(Some(copy))
}

impl<'a> Exits<'a> {
    /// The exits of `unit`, with up to `copy_budget` bytes of their values
    /// copied into memory ([`copied_exit_budget`]).
    pub(super) fn new(
        variant: &'static Variant,
        unit: &[SectorKey],
        tablebase: &'a Tablebase,
        copy_budget: u64,
    ) -> Result<Exits<'a>, SolveError> {
        let sectors: Vec<_> = exit_sectors(variant, unit)
            .into_iter()
            .filter(|s| tablebase.has_sector(*s))
            .map(|s| {
                let index = SectorIndex::of_sector(variant.board, s);
                Ok((s, index, tablebase.sector(s)?))
            })
            .collect::<Result<_, ProbeError>>()?;
        let lens: Vec<u64> = sectors.iter().map(|(_, _, f)| f.header.positions).collect();
        let chosen = exits_to_copy(&lens, copy_budget);
        let mut copies = Vec::with_capacity(sectors.len());
        for ((key, _, file), copy) in sectors.iter().zip(chosen) {
            let copied = match copy {
                true => copy_values(file).map_err(|e| tablebase.damaged(*key, None, e))?,
                false => None,
            };
            copies.push(copied);
        }
        Ok(Exits {
            tablebase,
            unit: unit[0],
            sectors,
            copies,
        })
    }

    /// How many exits are read from copies in memory.
    #[cfg(test)]
    pub(super) fn copied(&self) -> usize {
        self.copies.iter().flatten().count()
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
        let index = &self.sectors[entry].1;
        let at = last.index(entry, index, child.us(), child.them());
        prefetch(self.bytes(entry), at);
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

    /// The value bytes of exit `entry`, for prefetches: its copy in memory
    /// if it has one.
    #[inline]
    pub(super) fn bytes(&self, entry: usize) -> &[u8] {
        match &self.copies.get(entry) {
            Some(Some(copy)) => copy,
            _ => self.sectors[entry].2.bytes().unwrap_or_default(),
        }
    }

    #[inline]
    pub(super) fn read(&self, entry: usize, index: u64) -> Result<Value, SolveError> {
        // A copy's blocks were checked; an escaped value is the file's to find.
        if let Some(Some(copy)) = self.copies.get(entry)
            && let Some(v) = copy.get(index as usize).and_then(|&b| Value::from_byte(b))
        {
            return Ok(v);
        }
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
