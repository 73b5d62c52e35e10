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

use rayon::prelude::*;

use super::cells::{Cells, DRAW, RESOLVED, SolvedSector};
use super::error::SolveError;
use crate::db::{ClockValue, FileError, Fold, SectorFile, Tablebase, Value};
use crate::index::{
    RepresentativeClasses, SectorIndex, SectorKey, UsBlock, UsClass, binomial, for_each_subset,
};
use crate::rules::{Bitboard, Variant};
use crate::system::{prefetch_item, prefetch_range};

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
    /// The value bytes of the file, once every block is checked.
    fn checked_bytes(&self) -> Option<&[u8]> {
        match self {
            Children::In(_, _, file) => file.checked_bytes(),
            _ => None,
        }
    }

    fn new(tablebase: &Tablebase, variant: &Variant, key: SectorKey) -> Children {
        if key.us_board + key.us_hand < 3 {
            return Children::Lost;
        }
        match tablebase.sector(key) {
            Ok(file) => Children::In(key, SectorIndex::of_sector(variant.board, key), file),
            Err(_) => Children::Unavailable(key),
        }
    }
}

/// How the pass values a position from its children: by distance to the
/// end ([`Distances`]) or under the move-count rule ([`MillClock`]).
pub(super) trait Metric: Sync {
    /// The best of the children folded so far.
    type Best;
    fn start(&self) -> Self::Best;
    /// Folds in the child at `index` of `file`, reached by a move that
    /// closes a mill or not.
    fn add(
        &self,
        best: &mut Self::Best,
        file: &SectorFile,
        index: u64,
        mill: bool,
    ) -> Result<(), FileError>;
    /// Folds in a child's stored byte, read from a raw file whose blocks are
    /// all checked; false when the byte alone is no value (an escaped
    /// distance), for [`Metric::add`] to read.
    fn add_byte(&self, best: &mut Self::Best, byte: u8, mill: bool) -> bool;
    /// Folds in a child whose side to move has lost (fewer than three men).
    fn add_lost(&self, best: &mut Self::Best, mill: bool);
    /// Whether nothing can beat what was found: the pass stops early.
    fn won_at_once(&self, best: &Self::Best) -> bool;
    /// The position's resolved cell.
    fn cell(&self, best: &Self::Best) -> Result<u16, GroupError>;
}

/// Values as plies to the end of the game, the database without the rule.
pub(super) struct Distances;

impl Metric for Distances {
    type Best = Fold;
    fn start(&self) -> Fold {
        Fold::new()
    }
    #[inline]
    fn add(
        &self,
        best: &mut Fold,
        file: &SectorFile,
        index: u64,
        _: bool,
    ) -> Result<(), FileError> {
        best.add(file.value(index)?);
        Ok(())
    }
    #[inline]
    fn add_byte(&self, best: &mut Fold, byte: u8, _: bool) -> bool {
        Value::from_byte(byte).map(|v| best.add(v)).is_some()
    }
    fn add_lost(&self, best: &mut Fold, _: bool) {
        best.add(Value::Loss(0));
    }
    fn won_at_once(&self, best: &Fold) -> bool {
        best.shortest_win() == Some(1)
    }
    fn cell(&self, best: &Fold) -> Result<u16, GroupError> {
        let plies = match best.value() {
            Value::Draw => return Ok(RESOLVED | DRAW),
            Value::Win(n) | Value::Loss(n) => n,
        };
        if plies >= DRAW {
            return Err(GroupError::TooLong(plies));
        }
        Ok(RESOLVED | plies)
    }
}

/// Values under the move-count rule of `n` plies (see [`ClockValue`]); the
/// cell holds the value's byte.
pub(super) struct MillClock {
    pub(super) n: u8,
}

impl Metric for MillClock {
    type Best = ClockValue;
    fn start(&self) -> ClockValue {
        ClockValue::best([])
    }
    #[inline]
    fn add(
        &self,
        best: &mut ClockValue,
        file: &SectorFile,
        index: u64,
        mill: bool,
    ) -> Result<(), FileError> {
        let child = file.clock_value(index, self.n)?;
        *best = ClockValue::best([*best, ClockValue::of_move(child, mill, self.n)]);
        Ok(())
    }
    #[inline]
    fn add_byte(&self, best: &mut ClockValue, byte: u8, mill: bool) -> bool {
        ClockValue::from_byte(byte, self.n)
            .map(|child| {
                *best = ClockValue::best([*best, ClockValue::of_move(child, mill, self.n)])
            })
            .is_some()
    }
    fn add_lost(&self, best: &mut ClockValue, mill: bool) {
        *best = ClockValue::best([
            *best,
            ClockValue::of_move(ClockValue::Loss(0), mill, self.n),
        ]);
    }
    fn won_at_once(&self, best: &ClockValue) -> bool {
        *best == ClockValue::Win(1)
    }
    fn cell(&self, best: &ClockValue) -> Result<u16, GroupError> {
        Ok(RESOLVED | u16::from(best.to_byte()))
    }
}

/// Solves a sector for which [`is_placement_unit`] holds.
///
/// # Errors
/// A missing or damaged successor file, or no memory for the cells.
pub(super) fn solve_placement<M: Metric>(
    variant: &'static Variant,
    sector: SectorKey,
    tablebase: &Tablebase,
    metric: &M,
) -> Result<SolvedSector, SolveError> {
    let board = variant.board;
    let (us_board, them_board) = (sector.us_board as usize, sector.them_board as usize);
    let index = SectorIndex::of(board, us_board, them_board);
    let cells = Cells::zeroed(sector, index.size())?;
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
    let unavailable = |needed: SectorKey| match tablebase.sector(needed) {
        Err(source) => SolveError::MissingDependency {
            sector,
            needed,
            source,
        },
        Ok(_) => SolveError::Inconsistent {
            position: format!("a position of {sector}"),
            what: format!("sector {needed} became available during the solve"),
        },
    };

    // Every block of the children's files is checked here, once, so that
    // the pass reads their value bytes without a check each.
    for children in [&quiet, &taking] {
        if let Children::In(key, _, file) = children {
            file.check_blocks()
                .map_err(|source| SolveError::from(tablebase.damaged(*key, None, source)))?;
        }
    }

    let groups = binomial(board.len(), them_board);
    (0..groups.div_ceil(GROUPS_PER_ITEM))
        .into_par_iter()
        .try_for_each(|item| {
            let mut result = Ok(());
            // Each group's blocks are prefetched while the group before it is
            // solved.
            let mut previous: Option<Group> = None;
            let mut solve = |group: Group| {
                if result.is_ok() {
                    result = solve_group(
                        variant,
                        metric,
                        &index,
                        &classes,
                        &group,
                        (&quiet, &taking),
                        &cells,
                    )
                    .map_err(|e| match e {
                        GroupError::Corrupted(key, source) => {
                            tablebase.damaged(key, None, source).into()
                        }
                        GroupError::Unavailable(key) => unavailable(key),
                        GroupError::TooLong(plies) => SolveError::CellOverflow {
                            position: format!("a position of {sector}"),
                            what: format!("a distance of {plies} plies"),
                        },
                    });
                }
            };
            let ranks = item * GROUPS_PER_ITEM..(item + 1) * GROUPS_PER_ITEM;
            for_each_subset(board.len(), them_board, ranks, |them| {
                let next = Group::new(variant, them, &quiet, &taking);
                if let Some(group) = previous.replace(next) {
                    solve(group);
                }
            });
            if let Some(group) = previous {
                solve(group);
            }
            result
        })?;
    Ok(SolvedSector::new(sector, cells))
}

pub(super) enum GroupError {
    Corrupted(SectorKey, FileError),
    Unavailable(SectorKey),
    TooLong(u16),
}

/// The positions whose other side's men are `them`, with the blocks of the
/// successor sectors their children lie in.
struct Group {
    them: Bitboard,
    removable: Bitboard,
    /// Children without a removal: their side to move has `them`.
    quiet: Option<UsBlock>,
    /// Children with a removal, one block per removable man.
    taking: Vec<UsBlock>,
}

impl Group {
    fn new(variant: &Variant, them: Bitboard, quiet: &Children, taking: &Children) -> Group {
        let removable = variant.removable(them);
        let block = |children: &Children, us: Bitboard| match children {
            Children::In(_, index, file) => {
                let block = index.us_block(us);
                prefetch_range(
                    file.bytes().unwrap_or_default(),
                    index.class_range(&block.class),
                );
                Some(block)
            }
            _ => None,
        };
        Group {
            them,
            removable,
            quiet: block(quiet, them),
            taking: removable
                .iter()
                .filter_map(|r| block(taking, them.without(r)))
                .collect(),
        }
    }
}

/// Values every position of `group`.
fn solve_group<M: Metric>(
    variant: &Variant,
    metric: &M,
    index: &SectorIndex,
    classes: &RepresentativeClasses,
    group: &Group,
    (quiet, taking): (&Children, &Children),
    cells: &Cells,
) -> Result<(), GroupError> {
    let board = variant.board;
    let them = group.them;
    // The children's value bytes, checked when the pass began.
    let (quiet, taking) = (
        (quiet, quiet.checked_bytes()),
        (taking, taking.checked_bytes()),
    );
    let add = |best: &mut M::Best,
               (children, bytes): (&Children, Option<&[u8]>),
               block: Option<(&UsBlock, u32)>,
               after: Bitboard,
               to,
               mill| match (children, block) {
        (Children::In(key, index, file), Some((block, base))) => {
            let at = index.index_in_block(block, base, after, to);
            if let Some(bytes) = bytes
                && metric.add_byte(best, bytes[at as usize], mill)
            {
                return Ok(());
            }
            metric
                .add(best, file, at, mill)
                .map_err(|source| GroupError::Corrupted(*key, source))
        }
        (Children::Unavailable(key), _) => Err(GroupError::Unavailable(*key)),
        _ => {
            metric.add_lost(best, mill);
            Ok(())
        }
    };
    let base = |(children, _): (&Children, _), block: &UsBlock, us: Bitboard| match children {
        Children::In(_, index, _) => index.block_base(block, us),
        _ => 0,
    };
    let mut taking_bases = [0u32; 32];
    let mut solve_position = |class: &UsClass| {
        let us = class.us;
        // The cell lies at a scattered place: its word is asked for now and
        // arrives while the children are read, for the atomic update below.
        let at = index.index_in(class, them);
        prefetch_item(cells.word_of(at));
        let quiet_base = group.quiet.as_ref().map(|b| (b, base(quiet, b, us)));
        let mut taking_ready = false;
        let mut best = metric.start();
        for to in board.all() & !(us | them) {
            let after = us.with(to);
            // A mill with nothing to remove is still a mill (the move-count
            // rule starts afresh), but its child is the quiet one.
            let mill = board.closes_mill(after, to);
            if mill && !group.removable.is_empty() {
                if group.taking.is_empty() {
                    // Lost or unavailable: the same for every removal.
                    add(&mut best, taking, None, after, to, true)?;
                } else {
                    if !taking_ready {
                        for (b, block) in taking_bases.iter_mut().zip(&group.taking) {
                            *b = base(taking, block, us);
                        }
                        taking_ready = true;
                    }
                    for (block, &b) in group.taking.iter().zip(&taking_bases) {
                        add(&mut best, taking, Some((block, b)), after, to, true)?;
                    }
                }
            } else {
                add(&mut best, quiet, quiet_base, after, to, mill)?;
            }
            if metric.won_at_once(&best) {
                break; // nothing beats winning at once
            }
        }
        cells.set_zero_cell(at, metric.cell(&best)?);
        Ok(())
    };
    let mut result = Ok(());
    classes.for_each_disjoint(them, |class| {
        if result.is_ok() && index.is_stored_image(class, them) {
            result = solve_position(class);
        }
    });
    result
}
