//! Solving one unit: a set of sectors that depend on each other (8-7 with
//! 7-8), or a single sector. Moves that leave the unit are valued from the
//! finished sectors' files; moves inside it are resolved by retrograde
//! analysis, level by level of distance, in parallel.
//!
//! Each position has one 12-bit cell while solving (1.6 bytes per position,
//! see [`Cells`]):
//! - resolved: bit 11 set, bits 0..11 the distance in plies (`DRAW` for draws);
//! - a win through a move leaving the unit: bit 10 set, bits 0..10 its
//!   distance. The position resolves at that level at the latest, sooner if a
//!   child inside the unit turns out lost; it can never lose, so how many
//!   children are left does not matter;
//! - otherwise, bits 4..10 the number of children inside the unit not yet
//!   known to be wins for their mover (plus one that never goes if a move
//!   leaving the unit draws), and bits 0..4 half the longest loss the moves
//!   leaving the unit give (15: too long to fit, found again from those moves
//!   when needed). When the last child turns out won the position is lost,
//!   and its distance is known at once: the later of this level and that loss.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

use rayon::prelude::*;

use super::cells::{
    CELLS_PER_WORD, COUNT_SHIFT, Cells, DISTANCE, DRAW, LONG_LOSS, LOW_BITS, MAX_WIN_BOUND,
    RESOLVED, SolvedSector, WIN_BOUND, has_zero_cell,
};
use super::error::SolveError;
use super::exits::{Exit, Exits, LastClass, copied_exit_budget};
use super::wake::{WAKE_RUN, Wake};
use crate::db::{Tablebase, Value};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::Variant;
use crate::system::prefetch_item;

/// Cells per parallel work item, a whole number of wake runs.
const CHUNK: u64 = 4 * WAKE_RUN;
/// Positions whose predecessors are gathered, and their cells fetched,
/// before any of them is updated.
const PROPAGATE_BATCH: usize = 16;

/// What a unit's solve reports as it goes.
pub enum UnitEvent {
    /// Children counted and moves leaving the unit valued.
    Initialised { positions: u64 },
    /// The positions at one distance are final.
    Level { plies: u16, resolved: u64 },
}

pub(super) struct Part<'a> {
    pub(super) sector: SectorKey,
    pub(super) index: Arc<SectorIndex>,
    pub(super) cells: &'a Cells,
    pub(super) wake: Vec<Wake>,
}

impl Part<'_> {
    /// Marks the cell at `index` resolved during `level` at `distance` (see
    /// [`Wake`]): it passes its result on at the level after `distance`.
    #[inline]
    fn resolved(&self, index: u64, level: u16, distance: u16) {
        let wake = &self.wake[(index / WAKE_RUN) as usize];
        if distance == level {
            wake.resolved[level as usize % 2].store(true, Ordering::Relaxed);
        } else {
            wake.add(distance + 1);
        }
    }

    /// The sector's indices in chunks, as parallel work items.
    pub(super) fn chunks(&self) -> impl ParallelIterator<Item = std::ops::Range<u64>> + '_ {
        let size = self.index.size();
        (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
    }
}

/// Solves the sectors of `unit`, a unit with moves inside it, reading every
/// other sector from `tablebase`.
///
/// # Errors
/// A missing or damaged successor file, no memory for the cells, or a
/// position with more children inside the unit than a cell can count.
pub fn solve_unit(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
) -> Result<Vec<SolvedSector>, SolveError> {
    let tuning = Tuning {
        stored_below: LONG_LOSS,
        copy_budget: copied_exit_budget(variant, unit),
    };
    solve_unit_tuned(variant, unit, tablebase, on_event, tuning)
}

/// What [`solve_unit`] chooses for speed and memory, which tests change to
/// reach the paths it rarely or always takes.
struct Tuning {
    /// The longest half-loss a cell stores, see [`Unit::stored_below`].
    stored_below: u16,
    /// Bytes of the exits' values copied into memory, see [`Exits::new`].
    copy_budget: u64,
}

/// [`solve_unit`] with the choices of `tuning`.
fn solve_unit_tuned(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
    tuning: Tuning,
) -> Result<Vec<SolvedSector>, SolveError> {
    let solved = SolvedSector::zeroed_unit(variant, unit)?;
    let parts: Vec<Part> = solved
        .iter()
        .map(|s| Part {
            sector: s.sector,
            index: SectorIndex::of_sector(variant.board, s.sector),
            cells: s.cells(),
            wake: (0..s.len().div_ceil(WAKE_RUN))
                .map(|_| Wake::default())
                .collect(),
        })
        .collect();
    let unit = Unit {
        variant,
        exits: Exits::new(variant, unit, tablebase, tuning.copy_budget)?,
        parts,
        latest: AtomicU16::new(0),
        stored_below: tuning.stored_below,
    };
    let unresolved = unit.initialise()?;
    on_event(UnitEvent::Initialised {
        positions: unit.parts.iter().map(|p| p.index.size()).sum(),
    });
    unit.run_levels(unresolved, on_event)?;
    unit.finish();
    drop(unit); // it borrows the cells
    Ok(solved)
}

/// A unit being solved: its parts, and the finished sectors its moves lead to.
pub(super) struct Unit<'a> {
    pub(super) variant: &'static Variant,
    pub(super) parts: Vec<Part<'a>>,
    pub(super) exits: Exits<'a>,
    /// The last level at which a cell is known to act; the levels stop past
    /// it once one resolves nothing.
    pub(super) latest: AtomicU16,
    /// Half-losses from this one on are stored as `LONG_LOSS` and found
    /// again when needed (tests lower it to use that path more).
    pub(super) stored_below: u16,
}

impl Unit<'_> {
    /// The levels: at level L, positions resolved at L - 1 pass their result
    /// to their predecessors, and positions that win in L through a move
    /// leaving the unit settle; until nothing is left to resolve.
    fn run_levels(
        &self,
        mut unresolved: u64,
        on_event: &(dyn Fn(UnitEvent) + Sync),
    ) -> Result<(), SolveError> {
        let mut level: u16 = 0;
        while unresolved > 0 {
            let resolved: u64 = self
                .parts
                .iter()
                .map(|part| self.run_level(part, level))
                .sum::<Result<u64, SolveError>>()?;
            unresolved -= resolved;
            on_event(UnitEvent::Level {
                plies: level,
                resolved,
            });
            if resolved == 0 && level > self.latest.load(Ordering::Relaxed) {
                break;
            }
            level += 1;
            if level >= DRAW - 1 {
                return Err(SolveError::CellOverflow {
                    position: format!("a position of {}", self.parts[0].sector),
                    what: format!("a distance beyond {} plies", DRAW - 2),
                });
            }
        }
        Ok(())
    }

    /// One level over one part; returns how many positions it resolved.
    fn run_level(&self, part: &Part, level: u16) -> Result<u64, SolveError> {
        let resolved_now = AtomicU64::new(0);
        part.chunks().try_for_each_init(Vec::new, |preds, chunk| {
            let mut count = 0;
            let mut result = Ok(());
            // Positions resolved at the level before, passed on a batch at a
            // time: their predecessors' cells are all asked for before the
            // first is updated, so that their fetches overlap.
            let mut batched = 0;
            let mut visit = |i: u64, cell: u16| {
                if cell & RESOLVED != 0 {
                    if level > 0 && cell & DISTANCE == level - 1 && result.is_ok() {
                        self.predecessors(part, i, preds);
                        batched += 1;
                        if batched == PROPAGATE_BATCH {
                            result = self.pass_on(level, preds, &mut count);
                            batched = 0;
                        }
                    }
                } else if cell & WIN_BOUND != 0
                    && cell & MAX_WIN_BOUND == level
                    && settle(part.cells, i, level)
                {
                    part.resolved(i, level, level);
                    count += 1;
                }
            };
            let words = part.cells.words();
            for run in chunk.start / WAKE_RUN..chunk.end.div_ceil(WAKE_RUN) {
                let wake = &part.wake[run as usize];
                if !wake.may_act(level) {
                    continue;
                }
                // Only this level looked at this flag, and others set the other one.
                if level > 0 {
                    wake.resolved[(level as usize - 1) % 2].store(false, Ordering::Relaxed);
                }
                let (start, end) = (run * WAKE_RUN, ((run + 1) * WAKE_RUN).min(chunk.end));
                // Most cells still have nothing to do: a word's five are
                // tested at once and skipped together.
                for w in start / CELLS_PER_WORD..end.div_ceil(CELLS_PER_WORD) {
                    let word = words[w as usize].load(Ordering::Relaxed);
                    if !level_may_act(word, level) {
                        continue;
                    }
                    let first = w * CELLS_PER_WORD;
                    for lane in 0..CELLS_PER_WORD.min(end - first) {
                        // Read again: a cell before it may have changed it.
                        visit(first + lane, part.cells.get(first + lane));
                    }
                }
            }
            if result.is_ok() {
                result = self.pass_on(level, preds, &mut count);
            }
            resolved_now.fetch_add(count, Ordering::Relaxed);
            result
        })?;
        Ok(resolved_now.into_inner())
    }

    /// What never resolved is a draw.
    fn finish(&self) {
        for part in &self.parts {
            part.cells
                .replace_all(|c| (c & RESOLVED == 0).then_some(RESOLVED | DRAW));
        }
    }

    /// The part holding `sector`, if it is in the unit.
    pub(super) fn part_of(&self, sector: SectorKey) -> Option<usize> {
        self.parts.iter().position(|p| p.sector == sector)
    }

    /// Adds the predecessors inside the unit of the position at `index` of
    /// `part` (resolved at the level before) to `preds`, each once, and asks
    /// for their cells.
    fn predecessors(&self, part: &Part, index: u64, preds: &mut Vec<(usize, u64)>) {
        let pos = part
            .index
            .position(index, part.sector.us_hand, part.sector.them_hand);
        // A quiet unmove keeps every count: the predecessors are in the mirrored sector.
        let s = part.sector;
        let Some(k) = self.part_of(SectorKey::new(
            s.them_board,
            s.them_hand,
            s.us_board,
            s.us_hand,
        )) else {
            return;
        };
        let pred_part = &self.parts[k];
        let first = preds.len();
        self.variant.for_each_quiet_unslide(&pos, |p| {
            let i = pred_part.index.index(p.us(), p.them());
            prefetch_item(pred_part.cells.word_of(i));
            preds.push((k, i));
        });
        // Every predecessor keeps our men; when no symmetry fixes them, different
        // unmoves give different predecessors.
        if part.index.us_is_symmetric(pos.us()) {
            let own = &mut preds[first..];
            own.sort_unstable();
            let mut kept = 0;
            for at in 0..own.len() {
                if at == 0 || own[at] != own[at - 1] {
                    own[kept] = own[at];
                    kept += 1;
                }
            }
            preds.truncate(first + kept);
        }
    }

    /// Passes the results of the positions resolved at `level - 1` whose
    /// predecessors [`Unit::predecessors`] gathered in `preds` on to them,
    /// and empties `preds`. A predecessor appears once per child passed on.
    fn pass_on(
        &self,
        level: u16,
        preds: &mut Vec<(usize, u64)>,
        resolved: &mut u64,
    ) -> Result<(), SolveError> {
        // Nothing at level 0 (no level before it), and a chunk may end with none.
        if preds.is_empty() {
            return Ok(());
        }
        let child_lost = (level - 1).is_multiple_of(2);
        for &(k, i) in preds.iter() {
            let pred = &self.parts[k];
            if child_lost {
                if settle(pred.cells, i, level) {
                    pred.resolved(i, level, level);
                    *resolved += 1;
                }
                continue;
            }
            // The last child inside the unit turned out won: the position is
            // lost, in this many plies or in its longest loss through moves
            // leaving the unit if that is later.
            // Other threads only take children away meanwhile (all
            // children passed on at one level have the same result).
            let mut found_exit_loss = None;
            let settled = loop {
                let cell = pred.cells.get(i);
                if cell & (RESOLVED | WIN_BOUND) != 0 {
                    break None;
                }
                if cell >> COUNT_SHIFT > 1 {
                    let taken = pred.cells.update(i, |c| {
                        (c & (RESOLVED | WIN_BOUND) == 0 && c >> COUNT_SHIFT > 1)
                            .then(|| c - (1 << COUNT_SHIFT))
                    });
                    match taken {
                        Ok(_) => break None,
                        Err(_) => continue, // down to its last child meanwhile
                    }
                }
                let exit_loss = match cell & LONG_LOSS {
                    LONG_LOSS => match found_exit_loss {
                        Some(n) => n,
                        None => *found_exit_loss.insert(self.longest_exit_loss(pred, i)?),
                    },
                    half => 2 * half,
                };
                let distance = level.max(exit_loss);
                let done = pred
                    .cells
                    .update(i, |c| (c == cell).then_some(RESOLVED | distance));
                if done.is_ok() {
                    break Some(distance);
                }
            };
            if let Some(distance) = settled {
                pred.resolved(i, level, distance);
                if distance > level {
                    self.latest.fetch_max(distance + 1, Ordering::Relaxed);
                }
                *resolved += 1;
            }
        }
        preds.clear();
        Ok(())
    }

    /// The longest loss through the moves of a position that leave the unit,
    /// all of them losses: too long for its cell, found again.
    #[cold]
    fn longest_exit_loss(&self, part: &Part, index: u64) -> Result<u16, SolveError> {
        let pos = part
            .index
            .position(index, part.sector.us_hand, part.sector.them_hand);
        let (mut longest, mut error) = (0, None);
        let mut last = LastClass::default();
        self.variant.for_each_move(&pos, |_, child| {
            if error.is_some() || self.part_of(SectorKey::of(&child)).is_some() {
                return;
            }
            let value = match self.exits.locate(&child, &mut last) {
                Ok(Exit::Known(v)) => Ok(v),
                Ok(Exit::At(entry, at)) => self.exits.read(entry, at),
                Err(e) => Err(e),
            };
            match value.map(Value::from_parent) {
                Ok(Value::Loss(n)) => longest = longest.max(n),
                Ok(_) => {
                    error = Some(SolveError::Inconsistent {
                        position: pos.notation(self.variant.board),
                        what: "a move leaving the unit no longer loses".into(),
                    })
                }
                Err(e) => error = Some(e),
            }
        });
        error.map_or(Ok(longest), Err)
    }
}

/// Whether any cell of a word may act at `level`: resolved at `level - 1`
/// (it passes its result on), or winning in `level` through a move leaving
/// the unit (it settles). No false negatives; false positives are checked
/// cell by cell.
#[inline]
fn level_may_act(word: u64, level: u16) -> bool {
    let cells_equal = |cell: u16| has_zero_cell(word ^ (LOW_BITS * u64::from(cell)));
    (level > 0 && cells_equal(RESOLVED | (level - 1)))
        || (level <= MAX_WIN_BOUND && cells_equal(WIN_BOUND | level))
}

/// Marks an unresolved cell resolved at `level`; false if it already was.
fn settle(cells: &Cells, index: u64, level: u16) -> bool {
    cells
        .update(index, |c| (c & RESOLVED == 0).then_some(RESOLVED | level))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::{Selection, SolveOptions, solve};

    /// Positions whose longest loss through exits does not fit their cell
    /// find it again from those moves: storing none of them gives the same
    /// values as storing them all.
    #[test]
    fn losses_too_long_for_a_cell_are_found_again() {
        let variant = Variant::standard();
        let dir = tempfile::tempdir().unwrap();
        let key = |us, them| SectorKey::new(us, 0, them, 0);
        let options = SolveOptions::new(
            dir.path().to_path_buf(),
            variant,
            Selection::Sectors(vec![key(3, 4), key(4, 3)]),
        );
        solve(&options, &|_| {}).unwrap();
        let tablebase = Tablebase::open(dir.path(), variant).unwrap();
        for unit in [vec![key(3, 4), key(4, 3)], vec![key(4, 4)]] {
            let stored = solve_unit(variant, &unit, &tablebase, &|_| {}).unwrap();
            for stored_below in [0, 1] {
                let tuning = Tuning {
                    stored_below,
                    copy_budget: 0,
                };
                let found = solve_unit_tuned(variant, &unit, &tablebase, &|_| {}, tuning).unwrap();
                for (a, b) in stored.iter().zip(&found) {
                    assert_eq!(a.sector, b.sector);
                    for i in 0..a.len() {
                        assert_eq!(a.value(i), b.value(i), "{} index {i}", a.sector);
                    }
                }
            }
        }
    }

    /// A Lasker unit with men in hand reads its exits' values from copies in
    /// memory as it would from the files.
    #[test]
    fn exits_copied_into_memory_give_the_values_of_the_files() {
        let variant = Variant::by_name("lasker").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let unit = vec![SectorKey::new(3, 0, 3, 1), SectorKey::new(3, 1, 3, 0)];
        let options = SolveOptions::new(
            dir.path().to_path_buf(),
            variant,
            Selection::Sectors(unit.clone()),
        );
        solve(&options, &|_| {}).unwrap();
        let tablebase = Tablebase::open(dir.path(), variant).unwrap();
        let exits = Exits::new(variant, &unit, &tablebase, u64::MAX).unwrap();
        assert!(exits.copied() >= 2, "{} exits copied", exits.copied());
        let solved = |copy_budget| {
            let tuning = Tuning {
                stored_below: LONG_LOSS,
                copy_budget,
            };
            solve_unit_tuned(variant, &unit, &tablebase, &|_| {}, tuning).unwrap()
        };
        let (from_files, from_copies) = (solved(0), solved(u64::MAX));
        for (a, b) in from_files.iter().zip(&from_copies) {
            assert_eq!(a.sector, b.sector);
            for i in 0..a.len() {
                assert_eq!(a.value(i), b.value(i), "{} index {i}", a.sector);
            }
        }
    }
}
