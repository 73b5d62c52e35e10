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

/// The marks of one tablebase's positions (a folder under the move-count
/// rule answers through the one without it, which reads the marks), each
/// position packed into one number; kept between answers, emptied, so that
/// the table is not allocated again for each.
#[derive(Default)]
struct Marks {
    /// Within a [`keeping_marks`] call.
    active: bool,
    /// [`Tablebase::id`] of the tablebase whose marks these are (0: none yet).
    tablebase: u64,
    marks: HashMap<u128, LossMark, BuildHasherDefault<PackedKeyHasher>>,
}

thread_local! {
    static MARKS: RefCell<Marks> = RefCell::default();
}

/// Runs `f`, keeping the marks read from files of losses on this thread
/// until it returns; a call within another shares the outer one's. (A line
/// of play keeps them along the whole line: a few megabytes at most.)
pub(crate) fn keeping_marks<R>(f: impl FnOnce() -> R) -> R {
    let outermost = MARKS.with(|marks| {
        let mut marks = marks.borrow_mut();
        let outermost = !marks.active;
        if outermost {
            marks.active = true;
            marks.tablebase = 0;
        }
        outermost
    });
    /// Forgets the marks when the outermost call ends, by a panic too.
    struct Forget(bool);
    impl Drop for Forget {
        fn drop(&mut self) {
            if self.0 {
                MARKS.with(|marks| {
                    let mut marks = marks.borrow_mut();
                    marks.active = false;
                    marks.marks.clear();
                    // What a long line grew is not kept.
                    if marks.marks.capacity() > KEPT_ROOM {
                        marks.marks.shrink_to(ROOM);
                    }
                });
            }
        }
    }
    let _forget = Forget(outermost);
    f()
}

/// The marks room is made for at the first: an answer with its moves reads
/// thousands.
const ROOM: usize = 4096;
/// The most room kept between answers (about 2 MB).
const KEPT_ROOM: usize = 1 << 16;

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
        MARKS.with(|marks| {
            let marks = marks.borrow();
            if !marks.active || marks.tablebase != self.id {
                return None;
            }
            marks.marks.get(&packed(pos)).copied()
        })
    }

    /// Keeps the mark of `pos`, read from a file of losses, while an
    /// answer is built (by the first tablebase that reads one).
    pub(super) fn remember_mark(&self, pos: &Position, mark: LossMark) {
        MARKS.with(|marks| {
            let mut marks = marks.borrow_mut();
            if !marks.active {
                return;
            }
            if marks.tablebase == 0 {
                marks.tablebase = self.id;
            }
            if marks.tablebase == self.id {
                if marks.marks.capacity() == 0 {
                    marks.marks.reserve(ROOM);
                }
                marks.marks.insert(packed(pos), mark);
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
        // No win is faster than 0 plies: the search never stops short.
        Ok(self
            .value_not_lost_unless_won_within(pos, 0)?
            .unwrap_or(Value::Draw))
    }

    /// [`Tablebase::value_not_lost`], the search stopped at the first child
    /// that makes the position won in fewer than `plies` plies: `None` then.
    pub(super) fn value_not_lost_unless_won_within(
        &self,
        pos: &Position,
        plies: u16,
    ) -> Result<Option<Value>, ProbeError> {
        let mut fastest: Option<u16> = None;
        let mut unmarked = false;
        let within = |fastest: Option<u16>| fastest.is_some_and(|n| n + 1 < plies);
        self.each_child_mark(pos, |mark| {
            match mark {
                LossMark::Lost(Some(n)) => fastest = Some(fastest.map_or(n, |f| f.min(n))),
                LossMark::Lost(None) => unmarked = true,
                LossMark::NotLost => {}
            }
            fastest != Some(0) && !unmarked && !within(fastest)
        })?;
        if unmarked {
            // A file of losses without plies among files with them.
            return Err(ProbeError::WdlOnly {
                dir: self.dir().to_path_buf(),
            });
        }
        if within(fastest) {
            return Ok(None);
        }
        Ok(Some(fastest.map_or(Value::Draw, |n| Value::Win(n + 1))))
    }

    /// Whether the children of `pos` (a position of play found lost in
    /// `plies`) make it lost in exactly that many plies, as
    /// [`Value::from_children`] of their values would: every child won in
    /// at most `plies - 1` plies and one in exactly that. Each child's search
    /// stops at its first lost child that shows it wins fast enough, so most
    /// read a few marks instead of all. `false` where not, and where this
    /// cheap way cannot tell: the full recomputation then gives the value.
    /// (A search cut short reads fewer files: one missing or without plies
    /// beyond the cut is not reported here.)
    ///
    /// # Errors
    /// A missing or damaged file.
    pub(crate) fn children_confirm_loss(
        &self,
        pos: &Position,
        plies: u16,
    ) -> Result<bool, ProbeError> {
        if plies == 0 || self.variant().static_outcome(pos).is_some() {
            return Ok(false);
        }
        let mut slowest_seen = false;
        for (_, child) in self.variant().moves(pos) {
            let won_in = match self.value_if_read(&child)? {
                Some(Value::Win(n)) => Some(n),
                Some(_) => return Ok(false),
                // Until the slowest win is seen, a child must win in under
                // `plies - 1` to be passed over; after, in under `plies`.
                None => {
                    let within = if slowest_seen { plies } else { plies - 1 };
                    match self.value_not_lost_unless_won_within(&child, within)? {
                        None => None,
                        Some(Value::Win(n)) => Some(n),
                        Some(_) => return Ok(false),
                    }
                }
            };
            match won_in.map(|n| u32::from(n) + 1) {
                Some(lost_in) if lost_in == u32::from(plies) => slowest_seen = true,
                Some(lost_in) if lost_in > u32::from(plies) => return Ok(false),
                _ => {}
            }
        }
        Ok(slowest_seen)
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

/// A hasher for the packed positions: one multiply, its 128-bit product's
/// halves folded together so that every key bit reaches both the bucket
/// (low bits) and the tag hashbrown keeps (top bits). The default hasher,
/// built against hostile keys, cost more than the reads it saved.
#[derive(Default)]
struct PackedKeyHasher(u64);

/// An odd constant with its bits well spread (2^64 over the golden ratio).
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for PackedKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = fold_multiply(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = fold_multiply(key as u64 ^ ((key >> 64) as u64).rotate_left(29));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn fold_multiply(x: u64) -> u64 {
    let product = u128::from(x) * u128::from(SPREAD);
    product as u64 ^ (product >> 64) as u64
}
