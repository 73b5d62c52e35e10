//! Solving a movement unit under the move-count rule (`Variant::n_move`).
//!
//! Every move that closes a mill removes a man and so leaves the unit, to a
//! position whose counter starts afresh: its value is the finished sector's
//! [`ClockValue`], whatever the counter was. Inside the unit the moves are
//! the quiet slides, each one ply further from the last mill. So a unit is
//! a retrograde analysis of "plies to the next mill": a move to a lost
//! position after a mill wins in 1, a blocked side loses in 0, a mill into
//! a won position loses in 1 (the mover must not take it), a mill into a
//! drawn one is an escape; levels run from 1 to N, and what is not decided
//! within N plies is a draw. Unlike the solver without the rule, a level
//! settles wins and losses alike (a loss in 1 has odd length), so the
//! cells store the value's byte with its kind.
//!
//! Cells (12 bits, see [`Cells`]): resolved, `RESOLVED` with the value's
//! byte; otherwise the number of children inside the unit not yet known
//! to be won for their mover, plus one that never goes if a mill escapes
//! to a draw.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::cells::{CELLS_PER_WORD, Cells, LOW_BITS, RESOLVED, SolvedSector, has_zero_cell};
use super::error::SolveError;
use super::exits::Exits;
use super::initial::{MovementScratch, MovementShortcuts, movement_moves};
use super::retrograde::UnitEvent;
use crate::db::{ClockValue, Tablebase};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Position, Variant};
use crate::system::prefetch_item;

/// Most children a cell counts.
const MAX_COUNT: u16 = 0x7ff;
/// Positions per parallel work item: whole words, so that no two items
/// look at one cell.
const CHUNK: u64 = 4096 * CELLS_PER_WORD;

struct Part<'a> {
    sector: SectorKey,
    index: Arc<SectorIndex>,
    cells: &'a Cells,
}

struct Unit<'a> {
    variant: &'static Variant,
    n: u8,
    parts: Vec<Part<'a>>,
    exits: Exits<'a>,
}

/// Solves the movement unit `unit` under the rule of `n` plies, reading the
/// sectors its mills lead to from `tablebase`. The cells hold
/// `RESOLVED` with each value's [`ClockValue::to_byte`].
///
/// # Errors
/// A missing or damaged successor file, no memory for the cells, or a
/// position with more children inside the unit than a cell counts.
pub(super) fn solve_unit_under_rule(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    n: u8,
    on_event: &(dyn Fn(UnitEvent) + Sync),
) -> Result<Vec<SolvedSector>, SolveError> {
    let solved = SolvedSector::zeroed_unit(variant, unit)?;
    let parts = solved
        .iter()
        .map(|s| Part {
            sector: s.sector,
            index: SectorIndex::of_sector(variant.board, s.sector),
            cells: s.cells(),
        })
        .collect();
    let unit = Unit {
        variant,
        n,
        parts,
        // Its units read their exits' clocks from the files: nothing copied
        // (nor would `copied_exit_budget` allow it: the rule is not built for
        // Lasker).
        exits: Exits::new(variant, unit, tablebase, 0)?,
    };
    unit.initialise()?;
    on_event(UnitEvent::Initialised {
        positions: unit.parts.iter().map(|p| p.index.size()).sum(),
    });
    for level in 1..=u16::from(n) {
        let resolved = unit
            .parts
            .iter()
            .map(|part| unit.run_level(part, level as u8))
            .sum::<Result<u64, SolveError>>()?;
        on_event(UnitEvent::Level {
            plies: level,
            resolved,
        });
        // Initialisation settles distances 0 and 1; after that a level
        // that settles nothing leaves the next one nothing to pass on.
        if resolved == 0 && level >= 2 {
            break;
        }
    }
    let draw = RESOLVED | u16::from(ClockValue::Draw.to_byte());
    for part in &unit.parts {
        part.cells
            .replace_all(|c| (c & RESOLVED == 0).then_some(draw));
    }
    drop(unit); // it borrows the cells
    Ok(solved)
}

fn resolved(value: ClockValue) -> u16 {
    RESOLVED | u16::from(value.to_byte())
}

/// The sector holding the positions that quiet slides from `sector` lead
/// to (and come from).
fn mirror(sector: SectorKey) -> SectorKey {
    SectorKey::new(
        sector.them_board,
        sector.them_hand,
        sector.us_board,
        sector.us_hand,
    )
}

impl Unit<'_> {
    fn part_of(&self, sector: SectorKey) -> Option<usize> {
        self.parts.iter().position(|p| p.sector == sector)
    }

    fn chunks(part: &Part) -> impl ParallelIterator<Item = std::ops::Range<u64>> {
        let size = part.index.size();
        (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
    }

    /// Counts every position's children inside the unit and values its
    /// mills from the finished sectors.
    fn initialise(&self) -> Result<(), SolveError> {
        for part in &self.parts {
            let part_of = |s| self.part_of(s);
            let shortcuts =
                MovementShortcuts::new(part.sector, &part_of, &self.exits).ok_or_else(|| {
                    SolveError::Inconsistent {
                        position: format!("a position of {}", part.sector),
                        what: "the move-count rule solves movement units only".into(),
                    }
                })?;
            let mirror = &self.parts[shortcuts.mirror].index;
            Unit::chunks(part).try_for_each_init(MovementScratch::default, |scratch, chunk| {
                let mut result = Ok(());
                part.index.for_each_in(chunk, |i, us, them| {
                    if result.is_ok() {
                        let s = part.sector;
                        let pos = Position::from_sides(us, s.us_hand, them, s.them_hand);
                        match self.initial_cell(&pos, mirror, &shortcuts, scratch) {
                            Ok(cell) => part.cells.set_zero_cell(i, cell),
                            Err(e) => result = Err(e),
                        }
                    }
                });
                result
            })?;
        }
        Ok(())
    }

    fn initial_cell(
        &self,
        pos: &Position,
        mirror: &SectorIndex,
        shortcuts: &MovementShortcuts,
        scratch: &mut MovementScratch,
    ) -> Result<u16, SolveError> {
        if self.variant.static_outcome(pos).is_some() {
            return Ok(resolved(ClockValue::Draw)); // Morabaraba's full board
        }
        let moves = movement_moves(self.variant, mirror, &self.exits, pos, shortcuts, scratch);
        if !moves.any_move {
            return Ok(resolved(ClockValue::Loss(0)));
        }
        if moves.capture_wins {
            return Ok(resolved(ClockValue::Win(1)));
        }
        // Every capture is a mill: its child starts afresh.
        let mut escape = false;
        let unmapped = scratch
            .unmapped
            .iter()
            .map(|child| self.unmapped_value(child));
        let pending = scratch.pending.iter().map(|&(entry, at)| {
            let (key, _, file) = &self.exits.sectors[entry];
            file.clock_value(at, self.n)
                .map_err(|source| self.exits.tablebase.damaged(*key, None, source).into())
        });
        for child in unmapped.chain(pending) {
            match ClockValue::of_move(child?, true, self.n) {
                ClockValue::Win(_) => return Ok(resolved(ClockValue::Win(1))),
                ClockValue::Draw => escape = true,
                ClockValue::Loss(_) => {}
            }
        }
        let count = moves.inside + u16::from(escape);
        if count == 0 {
            // Every move is a mill into a lost cause.
            return Ok(resolved(ClockValue::Loss(1)));
        }
        if count > MAX_COUNT {
            return Err(SolveError::CellOverflow {
                position: pos.notation(self.variant.board),
                what: format!("{count} children"),
            });
        }
        Ok(count)
    }

    /// The value of a child after a mill whose sector has no mapped file
    /// (the tablebase answers a game end, or says what is missing).
    fn unmapped_value(&self, child: &Position) -> Result<ClockValue, SolveError> {
        self.exits
            .tablebase
            .clock_value_of_checked(child)
            .map_err(|source| self.exits.unavailable(SectorKey::of(child), source))
    }

    /// One level: the positions settled at `level - 1` pass their result to
    /// their predecessors inside the unit. Returns how many it settled.
    fn run_level(&self, part: &Part, level: u8) -> Result<u64, SolveError> {
        let lost = resolved(ClockValue::Loss(level - 1));
        let won = (level > 1).then(|| resolved(ClockValue::Win(level - 1)));
        let settled = AtomicU64::new(0);
        let words = part.cells.words();
        Unit::chunks(part).try_for_each_init(Vec::new, |preds, chunk| {
            let mut count = 0;
            for w in chunk.start / CELLS_PER_WORD..chunk.end.div_ceil(CELLS_PER_WORD) {
                let word = words[w as usize].load(Ordering::Relaxed);
                let holds = |cell: u16| has_zero_cell(word ^ (LOW_BITS * u64::from(cell)));
                if !holds(lost) && !won.is_some_and(holds) {
                    continue;
                }
                let first = w * CELLS_PER_WORD;
                for i in first..(first + CELLS_PER_WORD).min(chunk.end) {
                    let cell = part.cells.get(i);
                    if cell == lost || Some(cell) == won {
                        count += self.propagate(part, i, level, cell == lost, preds)?;
                    }
                }
            }
            settled.fetch_add(count, Ordering::Relaxed);
            Ok::<(), SolveError>(())
        })?;
        Ok(settled.into_inner())
    }

    /// Passes a position settled at `level - 1` (`lost` for its mover, else
    /// won) to its predecessors; returns how many of them it settled.
    fn propagate(
        &self,
        part: &Part,
        index: u64,
        level: u8,
        lost: bool,
        preds: &mut Vec<u64>,
    ) -> Result<u64, SolveError> {
        let Some(k) = self.part_of(mirror(part.sector)) else {
            return Ok(0);
        };
        let pred_part = &self.parts[k];
        let pos = part
            .index
            .position(index, part.sector.us_hand, part.sector.them_hand);
        preds.clear();
        self.variant.for_each_quiet_unslide(&pos, |p| {
            let i = pred_part.index.index(p.us(), p.them());
            prefetch_item(pred_part.cells.word_of(i));
            preds.push(i);
        });
        // Different unslides give different predecessors unless a symmetry
        // fixes the mover's men.
        if part.index.us_is_symmetric(pos.us()) {
            preds.sort_unstable();
            preds.dedup();
        }
        let cells = pred_part.cells;
        let mut settled = 0;
        for &i in preds.iter() {
            let done = if lost {
                cells.update(i, |c| {
                    (c & RESOLVED == 0).then(|| resolved(ClockValue::Win(level)))
                })
            } else {
                // Its last child inside the unit won: the position is lost.
                cells.update(i, |c| {
                    (c & RESOLVED == 0).then(|| match c {
                        1 => resolved(ClockValue::Loss(level)),
                        _ => c - 1,
                    })
                })
            };
            if let Ok(old) = done
                && (lost || old == 1)
            {
                settled += 1;
            }
        }
        Ok(settled)
    }
}
