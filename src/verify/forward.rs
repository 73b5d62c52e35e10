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
//! table lookups (see `Blocks`). Visiting
//! in index order instead reads each child from a random place of a file of
//! hundreds of megabytes.
//!
//! The moves are generated here (`Forward::for_each_child`), to the rules
//! of [`Variant::for_each_move`] but without building each child as a
//! position: that took a third off a placement sector's check (5+1-6+0:
//! 17.7 s to 11.5 s) and a quarter off 6-6's.

mod decode;

use std::sync::Arc;

pub use decode::DecodedSector;

use rayon::prelude::*;

use super::blocks::{Blocks, ChildAt};
use super::move_rank::{MoveRank, NO_MOVE, RANK_OF_BYTE, SLOW_BYTE, WIN_AT_ONCE};
use super::{Checked, Found, Mismatch};
use crate::db::{ClockValue, FolderValues, ProbeError, SectorFile, Tablebase, Value, Wdl};
use crate::index::{SectorIndex, SectorKey, binomial, for_each_subset};
use crate::rules::{Bitboard, Outcome, Point, Position, Variant};
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
    /// Won positions are counted, not recomputed: see
    /// [`Forward::with_wins_by_construction`].
    wins_by_construction: bool,
    /// What the values are read and recomputed as: the folder's, or win,
    /// draw and loss only ([`Forward::checking_win_draw_loss`]).
    values: FolderValues,
}

/// Where one child is, see [`Forward::child`].
enum Child {
    Lost,
    At(Stored),
    /// In a sector without a file: the position, for the tablebase.
    Other(Position),
}

/// A stored value to read: at `index` of the file of `entry` (see
/// [`Forward::file_of`]), whose byte is `raw` in a raw file.
#[derive(Clone, Copy)]
struct Stored {
    entry: usize,
    index: u64,
    raw: Option<u8>,
}

/// The [`Stored::entry`] of the sector checked itself.
const CHECKED_SECTOR: usize = usize::MAX;

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

impl<'a> Forward<'a> {
    /// Maps `sector` and the successor sectors the folder holds.
    ///
    /// # Errors
    /// A missing or damaged file.
    pub fn new(tablebase: &'a Tablebase, sector: SectorKey) -> Result<Forward<'a>, ProbeError> {
        let variant = tablebase.variant();
        let index_of = |s: SectorKey| SectorIndex::of_sector(variant.board, s);
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
                // No slide while holding men: no such child, and no block of
                // that sector to fetch for each group.
                if placed == 0 && !variant.may_slide(sector.us_hand) {
                    *kind = ChildSector::Other;
                }
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
            wins_by_construction: false,
            values: tablebase.values(),
        })
    }

    /// For a sector decoded from a losses file ([`Forward::decode_losses`])
    /// whose successors are decoded alike: its won positions are counted
    /// as checked without being recomputed. The decoding made each one won
    /// in one ply more than its fastest lost child, read from the same loss
    /// marks its children's decoded files hold, which is what the check
    /// would recompute; the lost positions, whose values rest on their
    /// children's wins, are checked as ever, and the drawn ones by their
    /// first drawn child (`has_drawn_child`). It saves the check's work in
    /// proportion to the won and drawn positions.
    pub fn with_wins_by_construction(mut self) -> Self {
        self.wins_by_construction = true;
        self
    }

    /// For a sector decoded from loss bits ([`Forward::decode_losses`] of a
    /// win/draw/loss-only folder) into a raw file whose plies stand in for
    /// the values (a loss in 0, a win in 1): its values are read and
    /// recomputed as wins, draws and losses only.
    pub fn checking_win_draw_loss(mut self) -> Self {
        self.values = FolderValues::WinDrawLoss;
        self
    }

    /// The stored value `at` of a checked file (see [`Forward::new`]), of
    /// the position `pos` if known (a child's is not built).
    #[inline]
    fn stored(&self, at: Stored, pos: Option<&Position>) -> Result<Value, ProbeError> {
        match at.raw.and_then(Value::from_byte) {
            Some(v) => Ok(v),
            // Only an escaped value or a packed file needs more.
            None => {
                let (file, key) = self.file_of(at.entry);
                file.value(at.index)
                    .map_err(|source| self.tablebase.damaged(key, pos, source))
            }
        }
    }

    /// The stored value of a position under the folder's move-count rule.
    #[inline]
    fn stored_clock(
        &self,
        at: Stored,
        pos: Option<&Position>,
        n: u8,
    ) -> Result<ClockValue, ProbeError> {
        match at.raw.and_then(|b| ClockValue::from_byte(b, n)) {
            Some(v) => Ok(v),
            // A packed file, or a byte that is no value: the checked path says which.
            None => {
                let (file, key) = self.file_of(at.entry);
                file.clock_value(at.index, n)
                    .map_err(|source| self.tablebase.damaged(key, pos, source))
            }
        }
    }

    /// The stored value of a position of a win/draw/loss-only folder.
    #[inline]
    fn stored_wdl(&self, at: Stored, pos: Option<&Position>) -> Result<Wdl, ProbeError> {
        // A raw file's byte (a decoded one's, see `checking_win_draw_loss`).
        if let Some(v) = at.raw.and_then(Value::from_byte) {
            return Ok(Wdl::of(v));
        }
        let (file, key) = self.file_of(at.entry);
        file.wdl(at.index)
            .map_err(|source| self.tablebase.damaged(key, pos, source))
    }

    /// The file and sector of a [`Stored::entry`].
    fn file_of(&self, entry: usize) -> (&SectorFile, SectorKey) {
        match entry {
            CHECKED_SECTOR => (&self.file, self.sector),
            _ => (&self.children[entry].2, self.children[entry].0),
        }
    }

    /// The stored value `at` of a checked file, as the folder's rule reads it.
    fn stored_found(&self, at: Stored, pos: &Position) -> Result<Found, ProbeError> {
        Ok(match self.values {
            FolderValues::WinDrawLoss => Found::Wdl(self.stored_wdl(at, Some(pos))?),
            FolderValues::MoveCountRule { n } => {
                Found::Clock(self.stored_clock(at, Some(pos), n)?)
            }
            FolderValues::Distances => Found::Distance(self.stored(at, Some(pos))?),
        })
    }

    /// Every child of `pos`, with whether its move closed a mill (with a
    /// removal or not), until `f` returns false.
    ///
    /// The moves are generated here rather than by
    /// [`Variant::for_each_move`], to the same rules (`tests` below holds the
    /// two together, child by child): a child is wanted as an index, never as a
    /// position, and the other side's removable men are the group's
    /// ([`Blocks::clear`]).
    #[inline]
    fn for_each_child(
        &self,
        pos: &Position,
        blocks: &mut Blocks,
        mut f: impl FnMut(Child, bool) -> bool,
    ) {
        let variant = self.variant;
        if variant.static_outcome(pos).is_some() {
            return;
        }
        let board = variant.board;
        let (us, them) = (pos.us(), pos.them());
        debug_assert_eq!(blocks.removable, variant.removable(them));
        let removable = blocks.removable;
        let empty = board.all() & !(us | them);
        let hand = pos.us_hand();
        blocks.next_position();
        // One move of the side to move's men, `from` (none: a placement) to `to`.
        let mut step = |from: Option<Point>, to: Point, after: Bitboard| -> bool {
            let placed = from.is_none() as usize;
            let mill = board.closes_mill(after, to);
            if !mill || removable.is_empty() {
                let child = self.child(
                    ChildAt {
                        placed,
                        remove: None,
                        from,
                        to,
                    },
                    pos,
                    after,
                    blocks,
                );
                return f(child, mill);
            }
            for r in removable {
                let child = self.child(
                    ChildAt {
                        placed,
                        remove: Some(r),
                        from,
                        to,
                    },
                    pos,
                    after,
                    blocks,
                );
                if !f(child, true) {
                    return false;
                }
            }
            true
        };
        if hand > 0 {
            for to in empty {
                if !step(None, to, us.with(to)) {
                    return;
                }
            }
        }
        if variant.may_slide(hand) {
            let flying = variant.flies(us.count(), hand);
            for from in us {
                let left = us.without(from);
                for to in board.moves_from(from, empty, flying) {
                    if !step(Some(from), to, left.with(to)) {
                        return;
                    }
                }
            }
        }
    }

    /// Where the child of one move from `pos` is: its side to move is the
    /// other side of `pos` (less the removed man), its other side `after`.
    #[inline]
    fn child(&self, at: ChildAt, pos: &Position, after: Bitboard, blocks: &mut Blocks) -> Child {
        match self.kinds[at.placed][at.remove.is_some() as usize] {
            ChildSector::Lost => Child::Lost,
            ChildSector::File(entry) => {
                let index = blocks.index(entry, &self.children[entry].1, pos, at, after);
                let raw = blocks.bytes[entry].map(|b| b[index as usize]);
                Child::At(Stored { entry, index, raw })
            }
            ChildSector::Other => {
                let mover = at.remove.map_or(pos.them(), |r| pos.them().without(r));
                let hand = pos.us_hand() - at.placed as u8;
                Child::Other(Position::from_sides(mover, pos.them_hand(), after, hand))
            }
        }
    }

    /// The value of `pos` from its children's stored values.
    fn recompute(&self, pos: &Position, blocks: &mut Blocks) -> Result<Found, ProbeError> {
        match self.values {
            FolderValues::WinDrawLoss => self.recompute_wdl(pos, blocks).map(Found::Wdl),
            FolderValues::MoveCountRule { n } => {
                self.recompute_clock(pos, blocks, n).map(Found::Clock)
            }
            FolderValues::Distances => self.recompute_distance(pos, blocks).map(Found::Distance),
        }
    }

    fn recompute_distance(&self, pos: &Position, blocks: &mut Blocks) -> Result<Value, ProbeError> {
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(Value::Draw);
        }
        if let Some(best) = self.best_placement(pos, blocks) {
            return Ok(best.value());
        }
        let rank_of_byte = &*RANK_OF_BYTE;
        let mut best = NO_MOVE;
        let mut error = None;
        self.for_each_child(pos, blocks, |child, _| {
            let value = match child {
                Child::At(Stored { raw: Some(b), .. }) if rank_of_byte[b as usize] != SLOW_BYTE => {
                    best = best.max(rank_of_byte[b as usize]);
                    return best != WIN_AT_ONCE;
                }
                Child::Lost => Ok(Value::Loss(0)),
                Child::At(at) => self.stored(at, None),
                // A sector without a file: the tablebase answers or explains.
                Child::Other(child) => self.tablebase.value(&child),
            };
            match value {
                Ok(v) => best = best.max(MoveRank::of_child(v)),
                Err(e) => error = Some(e),
            }
            // Nothing beats winning at once: the rest cannot change the value.
            error.is_none() && best != WIN_AT_ONCE
        });
        error.map_or(Ok(best.value()), Err)
    }

    /// The best move of a position whose every move places a man, when every
    /// child is in a raw file (or lost) and no stored byte is escaped; else
    /// `None`, for the general loop. The moves are those of
    /// [`Forward::for_each_child`] (a test holds the two together), the
    /// children's indices taken from the group's blocks with their bases
    /// looked up once per position rather than once per child: the bulk of
    /// a placement sector's check.
    #[inline]
    fn best_placement(&self, pos: &Position, blocks: &mut Blocks) -> Option<MoveRank> {
        let variant = self.variant;
        if pos.us_hand() == 0 || variant.may_slide(pos.us_hand()) {
            return None;
        }
        if variant.static_outcome(pos).is_some() {
            return None; // no moves: the general loop says what it is
        }
        let ChildSector::File(quiet) = self.kinds[1][0] else {
            return None;
        };
        let taking = self.kinds[1][1];
        if let ChildSector::Other = taking {
            return None;
        }
        let bytes = |entry: usize| blocks.bytes[entry];
        let quiet_bytes = bytes(quiet)?;
        let taking_bytes = match taking {
            ChildSector::File(entry) => Some(bytes(entry)?),
            _ => None,
        };
        let board = variant.board;
        let (us, them) = (pos.us(), pos.them());
        let removable = blocks.removable;
        let quiet_index = &self.children[quiet].1;
        blocks.next_position();
        let quiet_slot = blocks.slot(quiet, quiet_index, pos, None);
        // The slots of the children after each removal, looked up at the first mill.
        let mut taking_slots = [0usize; 32];
        let mut takings = None;
        let rank_of_byte = &*RANK_OF_BYTE;
        let mut best = NO_MOVE;
        for to in board.all() & !(us | them) {
            let after = us.with(to);
            if removable.is_empty() || !board.closes_mill(after, to) {
                let slot = &blocks.slots[quiet_slot];
                let at = quiet_index.index_in_block_after(&slot.block, slot.base, after, None, to);
                best = best.max(rank_of_byte[quiet_bytes[at as usize] as usize]);
            } else if let (ChildSector::File(entry), Some(bytes)) = (taking, taking_bytes) {
                let taking_index = &self.children[entry].1;
                let n = *takings.get_or_insert_with(|| {
                    let mut n = 0;
                    for r in removable {
                        taking_slots[n] = blocks.slot(entry, taking_index, pos, Some(r));
                        n += 1;
                    }
                    n
                });
                for &slot in &taking_slots[..n] {
                    let slot = &blocks.slots[slot];
                    let at =
                        taking_index.index_in_block_after(&slot.block, slot.base, after, None, to);
                    best = best.max(rank_of_byte[bytes[at as usize] as usize]);
                }
            } else {
                // The other side is left with fewer than three men.
                best = best.max(WIN_AT_ONCE);
            }
            // An escaped byte ranks above every value: the general loop reads it.
            if best >= WIN_AT_ONCE {
                break;
            }
        }
        (best != SLOW_BYTE).then_some(best)
    }

    /// [`Forward::recompute`] in a win/draw/loss-only folder.
    fn recompute_wdl(&self, pos: &Position, blocks: &mut Blocks) -> Result<Wdl, ProbeError> {
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(Wdl::Draw);
        }
        let mut best = None;
        let mut error = None;
        self.for_each_child(pos, blocks, |child, _| {
            let value = match child {
                Child::Lost => Ok(Wdl::Loss),
                Child::At(at) => self.stored_wdl(at, None),
                Child::Other(child) => self.tablebase.wdl(&child),
            };
            match value {
                Ok(v) => best = best.max(Some(v.from_parent())),
                Err(e) => error = Some(e),
            }
            error.is_none() && best != Some(Wdl::Win)
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
        let mut best = ClockValue::best([]);
        let mut error = None;
        self.for_each_child(pos, blocks, |child, mill| {
            let value = match child {
                Child::Lost => Ok(ClockValue::Loss(0)),
                Child::At(at) => self.stored_clock(at, None, n),
                Child::Other(child) => self.tablebase.clock_value(&child),
            };
            match value {
                Ok(v) => best = ClockValue::best([best, ClockValue::of_move(v, mill, n)]),
                Err(e) => error = Some(e),
            }
            error.is_none() && best != ClockValue::Win(1)
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
        let raw = || self.file.checked_bytes().map(|b| b[index as usize]);
        if self.wins_by_construction {
            let done = match raw().and_then(Value::from_byte) {
                Some(Value::Win(_)) => true,
                Some(Value::Draw) => self.has_drawn_child(&pos, blocks)?,
                _ => false,
            };
            if done {
                found.positions += 1;
                return Ok(());
            }
        } else {
            // The positions of a group lie all over their file: the stored
            // byte is fetched while the children are valued.
            prefetch(self.file.bytes().unwrap_or_default(), index);
        }
        let recomputed = self.recompute(&pos, blocks)?;
        let raw = raw();
        let at = Stored {
            entry: CHECKED_SECTOR,
            index,
            raw,
        };
        let stored = self.stored_found(at, &pos)?;
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

    /// Whether a child of `pos`, a position decoded as drawn, is drawn
    /// ([`Forward::with_wins_by_construction`]): the decoding found none of
    /// its children lost, from the marks its children's files hold, so one
    /// drawn child makes it drawn, as the full recomputation would find, and
    /// the search stops there instead of valuing every child. `false` sends
    /// the position to the full recomputation (one with a static outcome,
    /// or none of whose children is found drawn).
    fn has_drawn_child(&self, pos: &Position, blocks: &mut Blocks) -> Result<bool, ProbeError> {
        if self.variant.static_outcome(pos).is_some() {
            return Ok(false);
        }
        let (mut drawn, mut lost) = (false, false);
        let mut error = None;
        self.for_each_child(pos, blocks, |child, _| {
            let value = match child {
                Child::Lost => Ok(Value::Loss(0)),
                Child::At(at) => self.stored(at, None),
                Child::Other(child) => self.tablebase.value(&child),
            };
            match value {
                Ok(Value::Draw) => drawn = true,
                Ok(Value::Loss(_)) => lost = true,
                Ok(Value::Win(_)) => {}
                Err(e) => error = Some(e),
            }
            !drawn && !lost && error.is_none()
        });
        error.map_or(Ok(drawn && !lost), Err)
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
                    prefetch_range(bytes, index.class_range(&index.us_class(mover)));
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
                let mut blocks = Blocks::new(&self.children);
                let mut found = Checked::default();
                let mut result = Ok(());
                let ranks = item * GROUPS_PER_ITEM..(item + 1) * GROUPS_PER_ITEM;
                // Each group's child blocks are prefetched while the group
                // before it is checked.
                let mut previous = None;
                let mut check_group = |them: Bitboard| {
                    blocks.clear(self.variant.removable(them));
                    classes.for_each_disjoint(them, |class| {
                        if result.is_err() || !self.index.is_stored_image(class, them) {
                            return;
                        }
                        let index = self.index.index_in(class, them);
                        let pos = Position::from_sides(class.us, s.us_hand, them, s.them_hand);
                        result = self.check_one(index, pos, &mut blocks, &mut found, limit);
                    });
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
                let mut blocks = Blocks::new(&self.children);
                blocks.clear(self.variant.removable(pos.them()));
                self.check_one(index, pos, &mut blocks, &mut found, limit)?;
                Ok(found)
            })
            .try_reduce(Checked::default, |a, b| Ok(a.merge(b, limit)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::SectorGraph;
    use crate::solve::{Selection, SolveOptions, solve};

    /// The check's own move loop gives the children [`Variant::for_each_move`]
    /// gives, each at the index its sector's index gives and with the same
    /// mill, in every variant (placing while able to move, flying, removal
    /// rules, a full board) on the sectors of up to three men a side.
    #[test]
    fn the_move_loop_gives_the_rules_children() {
        for variant in Variant::all() {
            let dir = tempfile::tempdir().unwrap();
            let reachable: Vec<SectorKey> = SectorGraph::reachable(variant).sectors().collect();
            let sectors: Vec<SectorKey> = reachable
                .into_iter()
                .filter(|s| s.us_board + s.us_hand <= 3 && s.them_board + s.them_hand <= 3)
                .collect();
            let options = SolveOptions::new(
                dir.path().to_path_buf(),
                variant,
                Selection::Sectors(sectors.clone()),
            );
            solve(&options, &|_| {}).unwrap();
            let (mut checked, mut with_hand) = (0u64, 0u64);
            let tablebase = Tablebase::open(dir.path(), variant).unwrap();
            for sector in sectors {
                let forward = Forward::new(&tablebase, sector).unwrap();
                for i in (0..forward.index.size()).step_by(7) {
                    let pos = forward.index.position(i, sector.us_hand, sector.them_hand);
                    let mut blocks = Blocks::new(&forward.children);
                    blocks.clear(variant.removable(pos.them()));
                    let mut ours = Vec::new();
                    forward.for_each_child(&pos, &mut blocks, |child, mill| {
                        ours.push(match child {
                            Child::Lost => (None, mill),
                            Child::At(at) => (Some((forward.children[at.entry].0, at.index)), mill),
                            Child::Other(p) => (Some((SectorKey::of(&p), u64::MAX)), mill),
                        });
                        true
                    });
                    let mut rules = Vec::new();
                    variant.for_each_move(&pos, |play, child| {
                        let mill = play.remove.is_some()
                            || variant.board.closes_mill(child.them(), play.to);
                        let key = SectorKey::of(&child);
                        rules.push(if child.total(child.to_move) < 3 {
                            (None, mill)
                        } else {
                            match forward.children.iter().find(|(k, _, _)| *k == key) {
                                Some((_, index, _)) => (Some((key, index.index_of(&child))), mill),
                                None => (Some((key, u64::MAX)), mill),
                            }
                        });
                    });
                    ours.sort_unstable();
                    rules.sort_unstable();
                    let board = variant.board;
                    assert_eq!(ours, rules, "{}: {}", variant.name, pos.notation(board));
                    checked += 1;
                    with_hand += (sector.us_hand > 0) as u64;
                }
            }
            assert!(
                with_hand > 0,
                "{}: {checked} positions, none with men in hand",
                variant.name
            );
        }
    }
}
