//! The loss marks one answer reads, kept while it is built. In a folder of
//! losses (the default packing) a position not lost is valued by reading
//! its children's marks, and an answer with its moves and their chances
//! values the same positions several times over (the children for the
//! position's value and again for the moves', the grandchildren for the
//! moves' values and again for their replies'): each is read once.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::tablebase::Tablebase;
use crate::db::value::LossMark;
use crate::rules::Position;

/// The marks of one tablebase's positions (the tablebase by its address:
/// a folder under the move-count rule answers through the one without it),
/// each position packed into one number.
struct Marks {
    tablebase: usize,
    marks: HashMap<u128, LossMark, BuildHasherDefault<PackedKeyHasher>>,
}

thread_local! {
    static MARKS: RefCell<Option<Marks>> = const { RefCell::new(None) };
}

/// Runs `f`, keeping the marks read from files of losses on this thread
/// until it returns; a call within another shares the outer one's.
pub(crate) fn keeping_marks<R>(f: impl FnOnce() -> R) -> R {
    let outermost = MARKS.with(|marks| marks.borrow().is_none());
    /// Forgets the marks when the outermost call ends, by a panic too.
    struct Forget(bool);
    impl Drop for Forget {
        fn drop(&mut self) {
            if self.0 {
                MARKS.with(|marks| *marks.borrow_mut() = None);
            }
        }
    }
    let _forget = Forget(outermost);
    if outermost {
        MARKS.with(|marks| {
            *marks.borrow_mut() = Some(Marks {
                tablebase: 0,
                marks: HashMap::default(),
            })
        });
    }
    f()
}

/// A position as one number: both sides' men, hands and the side to move.
fn packed(pos: &Position) -> u128 {
    u128::from(pos.men[0].0)
        | u128::from(pos.men[1].0) << 32
        | u128::from(pos.hand[0]) << 64
        | u128::from(pos.hand[1]) << 72
        | (pos.to_move as u128) << 80
}

impl Tablebase {
    /// The mark of `pos` read before in this answer, if any.
    pub(super) fn remembered_mark(&self, pos: &Position) -> Option<LossMark> {
        let me = self as *const Tablebase as usize;
        MARKS.with(|marks| {
            let marks = marks.borrow();
            let marks = marks.as_ref().filter(|m| m.tablebase == me)?;
            marks.marks.get(&packed(pos)).copied()
        })
    }

    /// Keeps the mark of `pos`, read from a file of losses, while an
    /// answer is built (by the first tablebase that reads one).
    pub(super) fn remember_mark(&self, pos: &Position, mark: LossMark) {
        let me = self as *const Tablebase as usize;
        MARKS.with(|marks| {
            if let Some(marks) = marks.borrow_mut().as_mut() {
                if marks.tablebase == 0 {
                    marks.tablebase = me;
                }
                if marks.tablebase == me {
                    marks.marks.insert(packed(pos), mark);
                }
            }
        });
    }
}

/// A hasher for the packed positions: one multiply (the default hasher,
/// built against hostile keys, cost more than the reads it saved).
#[derive(Default)]
struct PackedKeyHasher(u64);

impl Hasher for PackedKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u128(&mut self, key: u128) {
        let folded = key as u64 ^ ((key >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        // The high bits are the mixed ones; the table takes the low.
        self.0.rotate_left(26)
    }
}
