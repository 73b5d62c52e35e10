//! Placement sectors where every move places a man (every variant but
//! Lasker's): no move stays in the sector, so each value follows from the
//! finished successor sectors in one pass, without levels.
//!
//! The pass visits positions grouped by the men of the side *not* to move.
//! After a placement those men are the mover's men of every child, so the
//! children of one group lie in one block of the successor sector (one block
//! per removable man after a mill), which stays in the processor's cache.
//! Visiting in index order instead reads each child from a random place of a
//! file of hundreds of megabytes: that pass waited on memory most of its time.
//! Within a group the values are written one per class of the mover's men, in
//! increasing index order per class, so the writes stream too.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

use rayon::prelude::*;

use super::retrograde::{DRAW, RESOLVED, SolvedSector, UnitEvent};
use crate::db::{FormatError, ProbeError, SectorFile, Tablebase, Value};
use crate::index::{SectorIndex, SectorKey, UsClass, binomial, for_each_subset};
use crate::rules::{Bitboard, Variant};

/// Sets of the other side's men per parallel work item.
const GROUPS_PER_ITEM: u64 = 64;

/// True when `unit` is a sector whose every move places a man.
pub fn is_placement_unit(variant: &Variant, unit: &[SectorKey]) -> bool {
    matches!(unit, [s] if s.us_hand > 0 && !variant.move_while_holding)
}

/// Where the children of one kind (a placement with or without a removal) are.
enum Children {
    /// The side to move in them has fewer than three men: they are lost.
    Lost,
    /// In this finished sector.
    In(SectorKey, Arc<SectorIndex>, Arc<SectorFile>),
    /// In a sector without a usable file; an error if a child needs it.
    Unavailable(SectorKey),
}

impl Children {
    fn new(tablebase: &Tablebase, variant: &Variant, key: SectorKey) -> Children {
        if key.us_board + key.us_hand < 3 {
            return Children::Lost;
        }
        match tablebase.sector(key) {
            Ok(file) => Children::In(
                key,
                SectorIndex::of(
                    variant.board,
                    key.us_board as usize,
                    key.them_board as usize,
                ),
                file,
            ),
            Err(_) => Children::Unavailable(key),
        }
    }

    /// The class of the children's side to move, whose men are `us`.
    fn class(&self, us: Bitboard) -> Option<UsClass> {
        match self {
            Children::In(_, index, _) => Some(index.us_class(us)),
            _ => None,
        }
    }
}

/// The best value for the mover among the children seen so far.
struct Best {
    /// Shortest win, `u16::MAX` for none.
    win: u16,
    draw: bool,
    /// Longest loss (0 with no child at all: blocked).
    loss: u16,
}

impl Best {
    fn new() -> Best {
        Best {
            win: u16::MAX,
            draw: false,
            loss: 0,
        }
    }

    /// Adds a child's value (for its own side to move).
    #[inline]
    fn add(&mut self, child: Value) {
        match child {
            Value::Loss(n) => self.win = self.win.min(n + 1),
            Value::Win(n) => self.loss = self.loss.max(n + 1),
            Value::Draw => self.draw = true,
        }
    }

    fn cell(&self) -> u16 {
        RESOLVED
            | if self.win != u16::MAX {
                self.win
            } else if self.draw {
                DRAW
            } else {
                self.loss
            }
    }
}

/// Solves a sector for which [`is_placement_unit`] holds.
///
/// # Errors
/// A missing or damaged successor file.
pub fn solve_placement(
    variant: &'static Variant,
    sector: SectorKey,
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
) -> Result<SolvedSector, ProbeError> {
    let board = variant.board;
    let (us_board, them_board) = (sector.us_board as usize, sector.them_board as usize);
    let index = SectorIndex::of(board, us_board, them_board);
    let cells: Vec<AtomicU16> = (0..index.size())
        .into_par_iter()
        .map(|_| AtomicU16::new(0))
        .collect();
    let classes = index.representative_classes();
    let child_key = |them_left: u8| {
        SectorKey::new(
            them_left,
            sector.them_hand,
            sector.us_board + 1,
            sector.us_hand - 1,
        )
    };
    let quiet = Children::new(tablebase, variant, child_key(sector.them_board));
    let taking = match sector.them_board {
        0 => Children::Lost, // nothing to remove: never used
        n => Children::new(tablebase, variant, child_key(n - 1)),
    };
    let unavailable = |key: SectorKey| match tablebase.sector(key) {
        Err(e) => e,
        Ok(_) => ProbeError::Io(format!("sector {key} became available during the solve")),
    };

    let groups = binomial(board.len(), them_board);
    (0..groups.div_ceil(GROUPS_PER_ITEM))
        .into_par_iter()
        .try_for_each_init(Vec::new, |taking_classes, item| {
            let mut result = Ok(());
            let ranks = item * GROUPS_PER_ITEM..(item + 1) * GROUPS_PER_ITEM;
            for_each_subset(board.len(), them_board, ranks, |them| {
                if result.is_ok() {
                    result = solve_group(
                        variant,
                        &index,
                        &classes,
                        them,
                        (&quiet, &taking),
                        taking_classes,
                        &cells,
                    )
                    .map_err(|e| match e {
                        GroupError::Corrupted(key, source) => ProbeError::Corrupted {
                            path: tablebase.path(key),
                            source,
                        },
                        GroupError::Unavailable(key) => unavailable(key),
                    });
                }
            });
            result
        })?;
    on_event(UnitEvent::Initialised {
        positions: index.size(),
    });
    Ok(SolvedSector::new(sector, cells))
}

enum GroupError {
    Corrupted(SectorKey, FormatError),
    Unavailable(SectorKey),
}

/// Values every position whose other side's men are `them`.
fn solve_group(
    variant: &Variant,
    index: &SectorIndex,
    classes: &[UsClass],
    them: Bitboard,
    (quiet, taking): (&Children, &Children),
    taking_classes: &mut Vec<UsClass>,
    cells: &[AtomicU16],
) -> Result<(), GroupError> {
    let board = variant.board;
    let removable = variant.removable(them);
    // Every child's side to move has `them`, or `them` less one removed man.
    let quiet_class = quiet.class(them);
    taking_classes.clear();
    if let Children::In(..) = taking {
        taking_classes.extend(
            removable
                .iter()
                .filter_map(|r| taking.class(them.without(r))),
        );
    }
    let read = |children: &Children, class: &UsClass, men: Bitboard| match children {
        Children::In(key, index, file) => file
            .value(index.index_in(class, men))
            .map_err(|source| GroupError::Corrupted(*key, source)),
        Children::Lost => Ok(Value::Loss(0)),
        Children::Unavailable(key) => Err(GroupError::Unavailable(*key)),
    };
    for class in classes {
        let us = class.us;
        if !(us & them).is_empty() || !index.is_stored_image(class, them) {
            continue;
        }
        let mut best = Best::new();
        for to in board.all() & !(us | them) {
            let after = us.with(to);
            if !removable.is_empty() && board.closes_mill(after, to) {
                if let Children::In(..) = taking {
                    for child_class in taking_classes.iter() {
                        best.add(read(taking, child_class, after)?);
                    }
                } else {
                    best.add(read(taking, class, after)?);
                }
            } else {
                let child_class = quiet_class.as_ref().unwrap_or(class);
                best.add(read(quiet, child_class, after)?);
            }
            if best.win == 1 {
                break; // nothing beats winning at once
            }
        }
        cells[index.index_in(class, them) as usize].store(best.cell(), Ordering::Relaxed);
    }
    Ok(())
}
