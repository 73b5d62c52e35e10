//! The fast forward check of a sector: every position's value recomputed
//! from its children's stored values.
//!
//! Positions are visited grouped by the men of the side not to move, as the
//! placement pass does: after any move those men are the mover's men of
//! every child that removes nothing, so those children lie in one class of
//! their sector's index, a few kilobytes of its file that stay in the cache;
//! children after a removal lie in one class per removed man. The class of a
//! child's mover is looked up once per group, and what its index needs of the
//! parent's men once per position, so a child's index costs a couple of
//! table lookups (see [`Blocks`]). Visiting
//! in index order instead reads each child from a random place of a file of
//! hundreds of megabytes.

use std::sync::Arc;

use rayon::prelude::*;

use super::{Checked, Found, Mismatch};
use crate::db::{ClockValue, Fold, ProbeError, SectorFile, Tablebase, Value, Wdl};
use crate::index::{SectorIndex, SectorKey, UsBlock, binomial, for_each_subset};
use crate::rules::{Bitboard, Move, Outcome, Position, Variant};
use crate::system::{prefetch, prefetch_range};

/// Groups (sets of the other side's men) per parallel work item.
const GROUPS_PER_ITEM: u64 = 64;

/// One sector to check, with the finished sectors its moves lead to.
pub struct Forward<'a> {
    tablebase: &'a Tablebase,
    variant: &'static Variant,
    sector: SectorKey,
    index: Arc<SectorIndex>,
    file: Arc<SectorFile>,
    /// The successor sectors whose files the folder holds.
    children: Vec<(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)>,
    /// Where a move's child is, by whether it places a man and whether it
    /// removes one.
    kinds: [[ChildSector; 2]; 2],
}

/// Where one child is, see [`Forward::locate`].
enum Child<'f> {
    Lost,
    At(&'f SectorFile, SectorKey, u64),
    Other,
}

/// Where the children of one kind of move are.
#[derive(Clone, Copy, Debug)]
enum ChildSector {
    /// Their side to move has fewer than three men: lost.
    Lost,
    /// In `children[i]`.
    File(usize),
    /// In a sector without a file (or none at all): asked of the tablebase.
    Other,
}

/// Where the children of `sector` are after a move that places a man or
/// not and removes one or not.
fn child_sector(
    sector: SectorKey,
    placed: bool,
    removed: bool,
    children: &[(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)],
) -> ChildSector {
    let s = sector;
    let (Some(them_board), Some(us_hand)) = (
        s.them_board.checked_sub(removed as u8),
        s.us_hand.checked_sub(placed as u8),
    ) else {
        return ChildSector::Other; // no such move
    };
    if them_board + s.them_hand < 3 {
        return ChildSector::Lost;
    }
    let key = SectorKey::new(them_board, s.them_hand, s.us_board + placed as u8, us_hand);
    children
        .iter()
        .position(|(c, _, _)| *c == key)
        .map_or(ChildSector::Other, ChildSector::File)
}

/// A worker's index lookups for one group of positions (one set of the
/// other side's men): per child sector and mover's men met so far, its
/// [`UsBlock`], and its base for the position being checked. A child's index
/// then costs a couple of table lookups.
#[derive(Default)]
struct Blocks {
    slots: Vec<Slot>,
}

struct Slot {
    entry: usize,
    mover: Bitboard,
    block: UsBlock,
    /// The block's base for the current position's side to move, once needed.
    base: Option<u32>,
}

impl Blocks {
    /// A new group: nothing looked up yet.
    fn clear(&mut self) {
        self.slots.clear();
    }

    /// A new position of the group: its bases are computed again.
    fn next_position(&mut self) {
        for slot in &mut self.slots {
            slot.base = None;
        }
    }

    /// The index of a child in sector `entry` whose mover has `mover`, reached
    /// by `play` of the parent's men `us`.
    #[inline]
    fn index(
        &mut self,
        entry: usize,
        index: &SectorIndex,
        us: Bitboard,
        child: &Position,
        play: Move,
    ) -> u64 {
        let mover = child.us();
        let at = match self
            .slots
            .iter()
            .position(|s| s.entry == entry && s.mover == mover)
        {
            Some(at) => at,
            None => {
                self.slots.push(Slot {
                    entry,
                    mover,
                    block: index.us_block(mover),
                    base: None,
                });
                self.slots.len() - 1
            }
        };
        let slot = &mut self.slots[at];
        let base = *slot
            .base
            .get_or_insert_with(|| index.block_base(&slot.block, us));
        index.index_in_block_after(&slot.block, base, child.them(), play.from, play.to)
    }
}

impl<'a> Forward<'a> {
    /// Maps `sector` and the successor sectors the folder holds.
    ///
    /// # Errors
    /// A missing or damaged file.
    pub fn new(tablebase: &'a Tablebase, sector: SectorKey) -> Result<Forward<'a>, ProbeError> {
        let variant = tablebase.variant();
        let index_of = |s: SectorKey| {
            SectorIndex::of(variant.board, s.us_board as usize, s.them_board as usize)
        };
        // Every file read is checked whole once here (its checksum and every
        // block), so that its value bytes can be read without a check each.
        let checked = |s: SectorKey| {
            tablebase.verify_checksum(s)?;
            tablebase.sector(s)
        };
        let file = checked(sector)?;
        let mut children: Vec<(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)> = Vec::new();
        for s in sector.successors(variant) {
            if s.is_valid(variant) && tablebase.has_sector(s) {
                children.push((s, index_of(s), checked(s)?));
            }
        }
        // Where the children of each kind of move are: a placement or not,
        // a removal or not.
        let mut kinds = [[ChildSector::Lost; 2]; 2];
        for (placed, row) in kinds.iter_mut().enumerate() {
            for (removed, kind) in row.iter_mut().enumerate() {
                *kind = child_sector(sector, placed == 1, removed == 1, &children);
            }
        }
        Ok(Forward {
            tablebase,
            variant,
            sector,
            index: index_of(sector),
            file,
            children,
            kinds,
        })
    }

    /// The stored value at `index` of a checked file (see [`Forward::new`]).
    #[inline]
    fn stored(
        &self,
        file: &SectorFile,
        key: SectorKey,
        index: u64,
        pos: &Position,
    ) -> Result<Value, ProbeError> {
        let raw = file.bytes().map(|b| b[index as usize]);
        match raw.and_then(Value::from_byte) {
            Some(v) => Ok(v),
            // Only an escaped value or a packed file needs more.
            None => file
                .value(index)
                .map_err(|source| self.tablebase.damaged(key, Some(pos), source)),
        }
    }

    /// The stored value of a position under the folder's move-count rule.
    #[inline]
    fn stored_clock(
        &self,
        file: &SectorFile,
        key: SectorKey,
        index: u64,
        pos: &Position,
        n: u8,
    ) -> Result<ClockValue, ProbeError> {
        let raw = file.bytes().map(|b| b[index as usize]);
        match raw.and_then(|b| ClockValue::from_byte(b, n)) {
            Some(v) => Ok(v),
            // A packed file, or a byte that is no value: the checked path says which.
            None => file
                .clock_value(index, n)
                .map_err(|source| self.tablebase.damaged(key, Some(pos), source)),
        }
    }

    /// The stored value at `index` of a checked file, as the folder's rule
    /// reads it.
    fn stored_found(
        &self,
        file: &SectorFile,
        key: SectorKey,
        index: u64,
        pos: &Position,
    ) -> Result<Found, ProbeError> {
        if self.tablebase.is_wdl_only() {
            return self.stored_wdl(file, key, index, pos).map(Found::Wdl);
        }
        Ok(match self.variant.n_move {
            Some(n) => Found::Clock(self.stored_clock(file, key, index, pos, n)?),
            None => Found::Distance(self.stored(file, key, index, pos)?),
        })
    }

    /// The stored value of a position of a win/draw/loss-only folder.
    #[inline]
    fn stored_wdl(
        &self,
        file: &SectorFile,
        key: SectorKey,
        index: u64,
        pos: &Position,
    ) -> Result<Wdl, ProbeError> {
        file.wdl(index)
            .map_err(|source| self.tablebase.damaged(key, Some(pos), source))
    }

    /// Where the child of `play` (from a position whose mover has `us`) is.
    #[inline]
    fn locate(&self, play: Move, child: &Position, us: Bitboard, blocks: &mut Blocks) -> Child<'_> {
        match self.kinds[play.from.is_none() as usize][play.remove.is_some() as usize] {
            ChildSector::Lost => Child::Lost,
            ChildSector::File(entry) => {
                let (key, index, file) = &self.children[entry];
                Child::At(file, *key, blocks.index(entry, index, us, child, play))
            }
            ChildSector::Other => Child::Other,
        }
    }

    /// The value of `pos` from its children's stored values.
    fn recompute(&self, pos: &Position, blocks: &mut Blocks) -> Result<Found, ProbeError> {
        if self.tablebase.is_wdl_only() {
            return self.recompute_wdl(pos, blocks).map(Found::Wdl);
        }
        match self.variant.n_move {
            Some(n) => self.recompute_clock(pos, blocks, n).map(Found::Clock),
            None => self.recompute_distance(pos, blocks).map(Found::Distance),
        }
    }

    fn recompute_distance(&self, pos: &Position, blocks: &mut Blocks) -> Result<Value, ProbeError> {
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(Value::Draw);
        }
        let mut fold = Fold::new();
        let mut error = None;
        blocks.next_position();
        let us = pos.us();
        self.variant.for_each_move(pos, |play, child| {
            // Nothing beats winning at once: the rest cannot change the value.
            if error.is_some() || fold.shortest_win() == Some(1) {
                return;
            }
            let value = match self.locate(play, &child, us, blocks) {
                Child::Lost => Ok(Value::Loss(0)),
                Child::At(file, key, at) => self.stored(file, key, at, &child),
                // A sector without a file: the tablebase answers or explains.
                Child::Other => self.tablebase.value(&child),
            };
            match value {
                Ok(v) => fold.add(v),
                Err(e) => error = Some(e),
            }
        });
        error.map_or(Ok(fold.value()), Err)
    }

    /// [`Forward::recompute`] in a win/draw/loss-only folder.
    fn recompute_wdl(&self, pos: &Position, blocks: &mut Blocks) -> Result<Wdl, ProbeError> {
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(Wdl::Draw);
        }
        let mut best = None;
        let mut error = None;
        blocks.next_position();
        let us = pos.us();
        self.variant.for_each_move(pos, |play, child| {
            if error.is_some() || best == Some(Wdl::Win) {
                return;
            }
            let value = match self.locate(play, &child, us, blocks) {
                Child::Lost => Ok(Wdl::Loss),
                Child::At(file, key, at) => self.stored_wdl(file, key, at, &child),
                Child::Other => self.tablebase.wdl(&child),
            };
            match value {
                Ok(v) => best = best.max(Some(v.from_parent())),
                Err(e) => error = Some(e),
            }
        });
        // No move at all: blocked, lost.
        error.map_or(Ok(best.unwrap_or(Wdl::Loss)), Err)
    }

    /// [`Forward::recompute`] under the move-count rule of `n` plies: each
    /// child at counter 0 after a mill, else one ply further.
    fn recompute_clock(
        &self,
        pos: &Position,
        blocks: &mut Blocks,
        n: u8,
    ) -> Result<ClockValue, ProbeError> {
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(ClockValue::Draw);
        }
        let board = self.variant.board;
        let mut best = ClockValue::best([]);
        let mut error = None;
        blocks.next_position();
        let us = pos.us();
        self.variant.for_each_move(pos, |play, child| {
            if error.is_some() || best == ClockValue::Win(1) {
                return;
            }
            let value = match self.locate(play, &child, us, blocks) {
                Child::Lost => Ok(ClockValue::Loss(0)),
                Child::At(file, key, at) => self.stored_clock(file, key, at, &child, n),
                Child::Other => self.tablebase.clock_value(&child),
            };
            // A mill with nothing to remove is a mill too.
            let mill = play.remove.is_some() || board.closes_mill(child.them(), play.to);
            match value {
                Ok(v) => best = ClockValue::best([best, ClockValue::of_move(v, mill, n)]),
                Err(e) => error = Some(e),
            }
        });
        error.map_or(Ok(best), Err)
    }

    /// Checks the position at `index`, adding a mismatch to `found`.
    fn check_one(
        &self,
        index: u64,
        pos: Position,
        blocks: &mut Blocks,
        found: &mut Checked,
        limit: usize,
    ) -> Result<(), ProbeError> {
        // The positions of a group lie all over their file: the stored byte
        // is fetched while the children are valued.
        prefetch(self.file.bytes().unwrap_or_default(), index);
        let recomputed = self.recompute(&pos, blocks)?;
        let stored = self.stored_found(&self.file, self.sector, index, &pos)?;
        found.positions += 1;
        if stored != recomputed {
            found.add(
                Mismatch {
                    sector: self.sector,
                    index,
                    position: pos,
                    stored,
                    recomputed,
                },
                limit,
            );
        }
        Ok(())
    }

    /// Asks for the blocks that the children of the positions whose other
    /// side has `them` lie in: one per child sector without a removal, one
    /// per removable man with one.
    fn prefetch_group(&self, them: Bitboard) {
        let removable = self.variant.removable(them);
        for row in &self.kinds {
            for (removed, kind) in row.iter().enumerate() {
                let ChildSector::File(entry) = *kind else {
                    continue;
                };
                let (_, index, file) = &self.children[entry];
                let bytes = file.bytes().unwrap_or_default();
                let fetch = |mover: Bitboard| {
                    prefetch_range(bytes, index.class_range(&index.us_block(mover).class));
                };
                if removed == 0 {
                    fetch(them);
                } else {
                    removable.iter().for_each(|r| fetch(them.without(r)));
                }
            }
        }
    }

    /// Checks every position of the sector, in parallel; at most `limit`
    /// mismatches are kept.
    ///
    /// # Errors
    /// A missing or damaged file of a child.
    pub fn check_all(&self, limit: usize) -> Result<Checked, ProbeError> {
        let board = self.variant.board;
        let s = self.sector;
        let classes = self.index.representative_classes();
        let groups = binomial(board.len(), s.them_board as usize);
        (0..groups.div_ceil(GROUPS_PER_ITEM))
            .into_par_iter()
            .map(|item| {
                let (mut blocks, mut found) = (Blocks::default(), Checked::default());
                let mut result = Ok(());
                let ranks = item * GROUPS_PER_ITEM..(item + 1) * GROUPS_PER_ITEM;
                // Each group's child blocks are prefetched while the group
                // before it is checked.
                let mut previous = None;
                let mut check_group = |them: Bitboard| {
                    blocks.clear();
                    for class in &classes {
                        if result.is_err()
                            || !(class.us & them).is_empty()
                            || !self.index.is_stored_image(class, them)
                        {
                            continue;
                        }
                        let index = self.index.index_in(class, them);
                        let pos = Position::from_sides(class.us, s.us_hand, them, s.them_hand);
                        result = self.check_one(index, pos, &mut blocks, &mut found, limit);
                    }
                };
                for_each_subset(board.len(), s.them_board as usize, ranks, |them| {
                    self.prefetch_group(them);
                    if let Some(group) = previous.replace(them) {
                        check_group(group);
                    }
                });
                if let Some(group) = previous {
                    check_group(group);
                }
                result.map(|()| found)
            })
            .try_reduce(Checked::default, |a, b| Ok(a.merge(b, limit)))
    }

    /// Checks `count` positions drawn at random from the sector (the same
    /// ones for the same `seed`), in parallel.
    ///
    /// # Errors
    /// A missing or damaged file of a child.
    pub fn check_sample(&self, count: u64, seed: u64, limit: usize) -> Result<Checked, ProbeError> {
        let size = self.index.size();
        if size == 0 {
            return Ok(Checked::default());
        }
        let pick = super::sample_indices(self.sector, seed, size);
        let s = self.sector;
        (0..count)
            .into_par_iter()
            .map(|n| {
                let index = pick(n);
                let mut found = Checked::default();
                let pos = self.index.position(index, s.us_hand, s.them_hand);
                self.check_one(index, pos, &mut Blocks::default(), &mut found, limit)?;
                Ok(found)
            })
            .try_reduce(Checked::default, |a, b| Ok(a.merge(b, limit)))
    }
}
