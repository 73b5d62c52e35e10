//! The index lookups of the check's children, shared by the positions of
//! one group (see [`Blocks`]).

use std::sync::Arc;

use crate::db::SectorFile;
use crate::index::{SectorIndex, SectorKey, UsBlock};
use crate::rules::{Bitboard, Point, Position};

/// A worker's index lookups for one group of positions (one set of the
/// other side's men): per child sector and removed man (or none), its
/// [`UsBlock`], and its base for the position being checked. A child's index
/// then costs a couple of table lookups.
///
/// Every child's side to move has the group's men, less the man removed if
/// any, so the child sector and the removed point name the block.
pub(super) struct Blocks<'f> {
    /// The men of the group's other side that a mill may remove.
    pub(super) removable: Bitboard,
    /// The value bytes of each child sector's file, if raw (checked whole
    /// when the check began).
    pub(super) bytes: Vec<Option<&'f [u8]>>,
    pub(super) slots: Vec<Slot>,
    /// Counts the positions, so that a slot knows whose its base is.
    position: u32,
    /// Per child sector (an entry of the check's child sectors) and removed point
    /// ([`NO_REMOVAL`] for none): 1 + the slot, or 0 while not looked up.
    slot_of: Vec<[u8; NO_REMOVAL + 1]>,
}

/// The column of [`Blocks::slot_of`] for children that remove nothing.
const NO_REMOVAL: usize = 32;

pub(super) struct Slot {
    pub(super) block: UsBlock,
    /// The block's base for the side to move of position `base_of`.
    pub(super) base: u32,
    base_of: u32,
}

impl<'f> Blocks<'f> {
    pub(super) fn new(
        children: &'f [(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)],
    ) -> Blocks<'f> {
        Blocks {
            removable: Bitboard::EMPTY,
            bytes: children
                .iter()
                .map(|(_, _, file)| file.checked_bytes())
                .collect(),
            slots: Vec::new(),
            position: 0,
            slot_of: vec![[0; NO_REMOVAL + 1]; children.len()],
        }
    }

    /// A new group, whose other side may lose the men `removable` to a
    /// mill: nothing looked up yet.
    pub(super) fn clear(&mut self, removable: Bitboard) {
        self.removable = removable;
        self.slots.clear();
        self.slot_of.iter_mut().for_each(|row| row.fill(0));
    }

    /// A new position of the group: its bases are computed again.
    pub(super) fn next_position(&mut self) {
        self.position = self.position.wrapping_add(1);
    }

    /// The slot of the children in sector `entry` of the moves from `pos`
    /// that remove `remove` (or nothing), its base that of `pos`.
    #[inline]
    pub(super) fn slot(
        &mut self,
        entry: usize,
        index: &SectorIndex,
        pos: &Position,
        remove: Option<Point>,
    ) -> usize {
        let column = remove.map_or(NO_REMOVAL, usize::from);
        let slot = match self.slot_of[entry][column] {
            0 => {
                let mover = remove.map_or(pos.them(), |r| pos.them().without(r));
                self.slots.push(Slot {
                    block: index.us_block(mover),
                    base: 0,
                    base_of: self.position.wrapping_sub(1),
                });
                self.slot_of[entry][column] = self.slots.len() as u8;
                self.slots.len() - 1
            }
            n => n as usize - 1,
        };
        let found = &mut self.slots[slot];
        if found.base_of != self.position {
            found.base = index.block_base(&found.block, pos.us());
            found.base_of = self.position;
        }
        slot
    }

    /// The index of the child in sector `entry` of the move `at` from `pos`,
    /// after which the mover has `after`.
    #[inline]
    pub(super) fn index(
        &mut self,
        entry: usize,
        index: &SectorIndex,
        pos: &Position,
        at: ChildAt,
        after: Bitboard,
    ) -> u64 {
        let slot = self.slot(entry, index, pos, at.remove);
        let slot = &self.slots[slot];
        index.index_in_block_after(&slot.block, slot.base, after, at.from, at.to)
    }
}

/// One move, as the forward check's `child` needs it.
#[derive(Clone, Copy)]
pub(super) struct ChildAt {
    /// 1 for a placement, else 0.
    pub(super) placed: usize,
    pub(super) remove: Option<Point>,
    pub(super) from: Option<Point>,
    pub(super) to: Point,
}
