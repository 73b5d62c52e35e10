//! The solver's cells: one 12-bit cell per position of the unit, five to a
//! 64-bit atomic word (1.6 bytes per position), in anonymous memory that
//! asks the system for huge pages. The solver's accesses are random over
//! hundreds of megabytes; with 4 KiB pages nearly every one of them also
//! missed the address translation cache.
//!
//! A cell is changed with a compare-and-swap of its word, so threads may
//! change neighbouring cells at the same time. The codes of a resolved cell
//! (a distance, or a draw) are here, with [`SolvedSector`] that decodes them;
//! what an unresolved cell's bits mean is the retrograde pass's business
//! (see `retrograde.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{MmapMut, MmapOptions};

use super::error::SolveError;
use crate::db::Value;
use crate::index::{SectorIndex, SectorKey};
use crate::rules::Variant;

/// A resolved cell: this bit set, the low 11 bits its distance in plies or `DRAW`.
pub const RESOLVED: u16 = 0x800;
/// The distance of a resolved cell.
pub const DISTANCE: u16 = 0x7ff;
/// The distance code of a draw.
pub const DRAW: u16 = DISTANCE;

/// The codes of an unresolved cell (see `retrograde.rs`): a win through a
/// move leaving the unit, bounded by `MAX_WIN_BOUND`, and the count of
/// children inside the unit still open from `COUNT_SHIFT` up.
pub const WIN_BOUND: u16 = 0x400;
pub const MAX_WIN_BOUND: u16 = WIN_BOUND - 1;
pub const COUNT_SHIFT: u16 = 4;
pub const MAX_COUNT: u16 = 0x3f;
/// Half the longest loss through moves leaving the unit, or this code when
/// it is too long to store (found again when needed).
pub const LONG_LOSS: u16 = 0xf;

/// The value of a resolved cell.
pub fn decode(cell: u16) -> Value {
    debug_assert!(cell & RESOLVED != 0);
    match cell & !RESOLVED {
        DRAW => Value::Draw,
        n => Value::from_plies(n),
    }
}

/// One solved sector: its values, one resolved cell per index.
pub struct SolvedSector {
    pub sector: SectorKey,
    cells: Cells,
}

impl SolvedSector {
    /// A sector's resolved cells (`RESOLVED` with a distance or `DRAW`).
    pub(super) fn new(sector: SectorKey, cells: Cells) -> SolvedSector {
        SolvedSector { sector, cells }
    }

    pub fn len(&self) -> u64 {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The value at `index`.
    pub fn value(&self, index: u64) -> Value {
        decode(self.cells.get(index))
    }

    /// The sectors of `unit`, every cell zero, for a unit's solve.
    ///
    /// # Errors
    /// When the system refuses the memory.
    pub(super) fn zeroed_unit(
        variant: &Variant,
        unit: &[SectorKey],
    ) -> Result<Vec<SolvedSector>, SolveError> {
        unit.iter()
            .map(|&sector| {
                let size = SectorIndex::count(
                    variant.board,
                    sector.us_board as usize,
                    sector.them_board as usize,
                );
                Ok(SolvedSector::new(sector, Cells::zeroed(sector, size)?))
            })
            .collect()
    }

    /// The byte of the value at `index` of a sector solved under the
    /// move-count rule, whose cells hold `RESOLVED` with the byte.
    pub fn clock_byte(&self, index: u64) -> u8 {
        (self.cells.get(index) & 0xff) as u8
    }

    /// The cells, while the sector is solved.
    pub(super) fn cells(&self) -> &Cells {
        &self.cells
    }
}

/// Bits per cell.
pub const CELL_BITS: u32 = 12;
/// Cells per word (the top 4 bits of a word stay zero).
pub const CELLS_PER_WORD: u64 = 5;
const CELL_MASK: u64 = (1 << CELL_BITS) - 1;
/// One in the lowest bit of each cell of a word, for tests on all five at once.
pub const LOW_BITS: u64 = 0x0001_0010_0100_1001;

pub struct Cells {
    map: MmapMut,
    len: u64,
}

impl Cells {
    /// The cells of `sector`, `len` of them, all zero.
    ///
    /// # Errors
    /// When the system refuses the memory.
    pub fn zeroed(sector: SectorKey, len: u64) -> Result<Cells, SolveError> {
        let bytes = len.div_ceil(CELLS_PER_WORD) * size_of::<AtomicU64>() as u64;
        let out_of_memory = |source| SolveError::OutOfMemory {
            sector,
            bytes,
            source,
        };
        let bytes_usize =
            usize::try_from(bytes).map_err(|e| out_of_memory(std::io::Error::other(e)))?;
        // An anonymous map is zeroed, and a zero `AtomicU64` is zero bytes.
        let map = MmapOptions::new()
            .len(bytes_usize.max(1))
            .map_anon()
            .map_err(out_of_memory)?;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without huge pages the solver is slower, not wrong.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Cells { map, len })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words, five cells each: cell `i` is `cell_of(words[i / 5], i % 5)`.
    pub fn words(&self) -> &[AtomicU64] {
        let words = self.len.div_ceil(CELLS_PER_WORD) as usize;
        // SAFETY: the map is page-aligned, holds `words` words, lives as long
        // as `self`, and is only accessed through these atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU64>(), words) }
    }

    #[inline]
    fn word(&self, index: u64) -> (&AtomicU64, u32) {
        debug_assert!(index < self.len);
        let words = self.words();
        (
            &words[(index / CELLS_PER_WORD) as usize],
            (index % CELLS_PER_WORD) as u32 * CELL_BITS,
        )
    }

    #[inline]
    pub fn get(&self, index: u64) -> u16 {
        let (word, shift) = self.word(index);
        (word.load(Ordering::Relaxed) >> shift & CELL_MASK) as u16
    }

    /// Sets a cell that is still zero; its neighbours may change meanwhile.
    #[inline]
    pub fn set_zero_cell(&self, index: u64, cell: u16) {
        let (word, shift) = self.word(index);
        debug_assert!(word.load(Ordering::Relaxed) >> shift & CELL_MASK == 0);
        word.fetch_or(u64::from(cell) << shift, Ordering::Relaxed);
    }

    /// Replaces the cell by `f(cell)` unless that is `None`, atomically:
    /// the previous cell, or the cell `f` refused.
    #[inline]
    pub fn update(&self, index: u64, mut f: impl FnMut(u16) -> Option<u16>) -> Result<u16, u16> {
        let (word, shift) = self.word(index);
        let mut current = word.load(Ordering::Relaxed);
        loop {
            let cell = (current >> shift & CELL_MASK) as u16;
            let Some(new) = f(cell) else {
                return Err(cell);
            };
            debug_assert!(u64::from(new) <= CELL_MASK);
            let replaced = (current & !(CELL_MASK << shift)) | (u64::from(new) << shift);
            match word.compare_exchange_weak(
                current,
                replaced,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(cell),
                Err(now) => current = now,
            }
        }
    }

    /// Replaces every cell for which `f` says so; no other thread may change
    /// cells meanwhile.
    pub fn replace_all(&self, f: impl Fn(u16) -> Option<u16> + Sync) {
        use rayon::prelude::*;
        self.words().par_iter().enumerate().for_each(|(w, word)| {
            let mut bits = word.load(Ordering::Relaxed);
            let first = w as u64 * CELLS_PER_WORD;
            for lane in 0..CELLS_PER_WORD.min(self.len - first) {
                let shift = lane as u32 * CELL_BITS;
                if let Some(new) = f((bits >> shift & CELL_MASK) as u16) {
                    bits = (bits & !(CELL_MASK << shift)) | (u64::from(new) << shift);
                }
            }
            word.store(bits, Ordering::Relaxed);
        });
    }

    /// The address of the word holding cell `index`, to prefetch.
    #[inline]
    pub fn word_of(&self, index: u64) -> &AtomicU64 {
        self.word(index).0
    }
}

/// Whether some cell of `word` is zero. No false negatives; a cell above a
/// zero cell may also look zero, so callers look at the cells one by one.
#[inline]
pub fn has_zero_cell(word: u64) -> bool {
    word.wrapping_sub(LOW_BITS) & !word & (LOW_BITS << (CELL_BITS - 1)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_pack_without_touching_neighbours() {
        let initial = |i: u64| (i as u16 * 311) & 0xfff;
        let cells = Cells::zeroed(SectorKey::movement(3, 3), 13).unwrap();
        for i in 0..13 {
            cells.set_zero_cell(i, initial(i));
        }
        assert_eq!(cells.update(7, |c| Some(c ^ 0xfff)), Ok(initial(7)));
        assert_eq!(cells.update(8, |_| None), Err(initial(8)));
        let after_update = |i| {
            if i == 7 {
                initial(7) ^ 0xfff
            } else {
                initial(i)
            }
        };
        for i in 0..13 {
            assert_eq!(cells.get(i), after_update(i), "cell {i}");
        }
        cells.replace_all(|c| (c % 2 == 0).then_some(c + 1));
        for i in 0..13 {
            assert_eq!(cells.get(i), after_update(i) | 1, "cell {i}");
        }
        // The unused top bits of a word stay zero.
        for word in cells.words() {
            assert_eq!(word.load(Ordering::Relaxed) >> 60, 0);
        }
    }

    #[test]
    fn zero_cells_are_found() {
        for lane in 0..CELLS_PER_WORD {
            let word = (0..CELLS_PER_WORD)
                .filter(|&l| l != lane)
                .fold(0, |w, l| w | 0xabc << (l * 12));
            assert!(has_zero_cell(word));
        }
        assert!(!has_zero_cell(LOW_BITS * 0x801));
        assert!(!has_zero_cell(LOW_BITS * 0xfff));
    }
}
