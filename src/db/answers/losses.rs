//! How a folder of losses (the default packing) answers: a lost position
//! is one read, its plies; a position not lost is won in one ply more than
//! its child lost the fastest, or drawn, so its children's marks are read.
//! An answer with its moves and their chances values the same positions
//! several times over (the children for the position's value and again for
//! the moves', the grandchildren for the moves' values and again for their
//! replies'), so the marks one answer reads are kept while it is built.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::tablebase::{Located, Tablebase};
use crate::db::error::ProbeError;
use crate::db::files::sector_file::SectorFile;
use crate::db::value::{LossMark, Value, Wdl};
use crate::index::SectorKey;
use crate::rules::{Outcome, Position};

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
                    // An answer with its moves reads thousands: room for
                    // them at once, only where a file of losses is read.
                    if marks.marks.capacity() == 0 {
                        marks.marks.reserve(4096);
                    }
                    marks.marks.insert(packed(pos), mark);
                }
            }
        });
    }
}

impl Tablebase {
    /// The value of a position of play where one read gives it; `None`
    /// where a file of losses marks it not lost (its children tell the
    /// rest: [`Tablebase::value_not_lost`]).
    pub(super) fn value_if_read(&self, pos: &Position) -> Result<Option<Value>, ProbeError> {
        match self.remembered_mark(pos) {
            Some(LossMark::Lost(Some(n))) => Ok(Some(Value::Loss(n))),
            Some(LossMark::Lost(None)) => Err(ProbeError::WdlOnly {
                dir: self.dir().to_path_buf(),
            }),
            Some(LossMark::NotLost) => Ok(None),
            None => self.with_located(pos, |located| match located {
                Located::Over(Outcome::Drawn) => Ok(Some(Value::Draw)),
                Located::Over(_) => Ok(Some(Value::Loss(0))),
                Located::At(sector, file, index) if file.header.encoding.losses_only() => {
                    match self.mark_at(sector, file, index, pos)? {
                        LossMark::Lost(Some(n)) => Ok(Some(Value::Loss(n))),
                        LossMark::Lost(None) => Err(ProbeError::WdlOnly {
                            dir: self.dir().to_path_buf(),
                        }),
                        LossMark::NotLost => Ok(None),
                    }
                }
                Located::At(sector, file, index) => file
                    .value(index)
                    .map(Some)
                    .map_err(|source| self.damaged(sector, Some(pos), source)),
            }),
        }
    }

    /// Win, draw or loss of a position of play where one read gives it;
    /// `None` where a file of losses marks it not lost
    /// ([`Tablebase::wdl_not_lost`] tells the rest).
    pub(super) fn wdl_if_read(&self, pos: &Position) -> Result<Option<Wdl>, ProbeError> {
        match self.remembered_mark(pos) {
            Some(LossMark::Lost(_)) => Ok(Some(Wdl::Loss)),
            Some(LossMark::NotLost) => Ok(None),
            None => self.with_located(pos, |located| match located {
                Located::Over(Outcome::Drawn) => Ok(Some(Wdl::Draw)),
                Located::Over(_) => Ok(Some(Wdl::Loss)),
                Located::At(sector, file, index) if file.header.encoding.losses_only() => {
                    match self.mark_at(sector, file, index, pos)? {
                        LossMark::Lost(_) => Ok(Some(Wdl::Loss)),
                        LossMark::NotLost => Ok(None),
                    }
                }
                Located::At(sector, file, index) => file
                    .wdl(index)
                    .map(Some)
                    .map_err(|source| self.damaged(sector, Some(pos), source)),
            }),
        }
    }

    /// The loss mark at `index` of `sector`'s file, which holds `pos`.
    fn mark_at(
        &self,
        sector: SectorKey,
        file: &SectorFile,
        index: u64,
        pos: &Position,
    ) -> Result<LossMark, ProbeError> {
        let mark = file
            .loss_mark(index, pos, self.variant())
            .map_err(|source| self.damaged(sector, Some(pos), source))?;
        if file.header.encoding.losses_only() {
            self.remember_mark(pos, mark);
        }
        Ok(mark)
    }

    /// Whether `pos` (a position of play) is lost for its side to move, as
    /// its file marks it.
    fn loss_mark(&self, pos: &Position) -> Result<LossMark, ProbeError> {
        if let Some(mark) = self.remembered_mark(pos) {
            return Ok(mark);
        }
        self.with_located(pos, |located| match located {
            Located::Over(Outcome::Drawn) => Ok(LossMark::NotLost),
            Located::Over(_) => Ok(LossMark::Lost(Some(0))),
            Located::At(sector, file, index) => self.mark_at(sector, file, index, pos),
        })
    }

    /// Calls `f` with the loss mark of each child of `pos` until it returns
    /// false.
    fn each_child_mark(
        &self,
        pos: &Position,
        mut f: impl FnMut(LossMark) -> bool,
    ) -> Result<(), ProbeError> {
        let (mut more, mut error) = (true, None);
        self.variant().for_each_move(pos, |_, child| {
            if more && error.is_none() {
                match self.loss_mark(&child) {
                    Ok(mark) => more = f(mark),
                    Err(e) => error = Some(e),
                }
            }
        });
        error.map_or(Ok(()), Err)
    }

    /// The value of a position a losses file marks not lost: won in one ply
    /// more than its child lost the fastest, drawn without a lost child.
    pub(super) fn value_not_lost(&self, pos: &Position) -> Result<Value, ProbeError> {
        let mut fastest: Option<u16> = None;
        let mut unmarked = false;
        self.each_child_mark(pos, |mark| {
            match mark {
                LossMark::Lost(Some(n)) => fastest = Some(fastest.map_or(n, |f| f.min(n))),
                LossMark::Lost(None) => unmarked = true,
                LossMark::NotLost => {}
            }
            fastest != Some(0) && !unmarked
        })?;
        if unmarked {
            // A file of losses without plies among files with them.
            return Err(ProbeError::WdlOnly {
                dir: self.dir().to_path_buf(),
            });
        }
        Ok(fastest.map_or(Value::Draw, |n| Value::Win(n + 1)))
    }

    /// [`Tablebase::value_not_lost`] without plies: won with a lost child.
    pub(super) fn wdl_not_lost(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let mut won = false;
        self.each_child_mark(pos, |mark| {
            won = matches!(mark, LossMark::Lost(_));
            !won
        })?;
        Ok(if won { Wdl::Win } else { Wdl::Draw })
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
