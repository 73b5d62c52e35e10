//! Perfect-play answers over a [`Tablebase`]: a position's value, every legal
//! move with the value it leads to, best first, and the line of perfect play.
//!
//! ```no_run
//! use morris::{Tablebase, Variant};
//!
//! let variant = Variant::standard();
//! let tablebase = Tablebase::open("db".as_ref(), variant)?;
//! let pos = variant.parse_position("WBW/.../.../W...../.../.../BB. w 0 0")?;
//! let answer = tablebase.probe(&pos)?;
//! println!("{}", answer.value);
//! for m in &answer.moves {
//!     println!("{} {}", m.play.notation(variant.board), m.value);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use super::tablebase::Tablebase;
use crate::db::error::ProbeError;
use crate::db::value::Value;
use crate::rules::{Move, Outcome, Position};

/// One legal move and what it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub play: Move,
    /// The position after the move.
    pub position: Position,
    /// The move's value for the side that plays it: the position's value
    /// when the move is a best one.
    pub value: Value,
}

/// A position's value and its moves, best first: fastest wins, then draws,
/// then the longest losses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub position: Position,
    /// For the side to move.
    pub value: Value,
    pub moves: Vec<MoveValue>,
}

/// How a line of perfect play ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The side to move at the end has lost, or the board is full (Morabaraba).
    GameOver(Outcome),
    /// The last position occurred before: perfect play goes round (a draw).
    Repeats,
    /// The length limit was reached.
    Limit,
    /// The move-count rule drew the game: N plies without a mill.
    MoveCountRule,
}

/// A line of perfect play: the moves from the position and how it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub moves: Vec<Move>,
    pub end: LineEnd,
}

impl Tablebase {
    /// Every legal move of `pos` with its value for the mover, best first;
    /// among equal moves, in the move generator's order.
    ///
    /// # Errors
    /// A position that is not one of play, or a missing or damaged sector
    /// file of a child.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let mut out = self.each_move(pos, |play, child| {
            Ok(MoveValue {
                play,
                position: *child,
                value: self.value_of_checked(child)?.from_parent(),
            })
        })?;
        out.sort_by_key(|m| std::cmp::Reverse(m.value.rank()));
        Ok(out)
    }

    /// `answer` of every legal move of `pos` (checked first) and its child,
    /// in the move generator's order: the walk the move lists share.
    ///
    /// # Errors
    /// A position that is not one of play, or the first error of `answer`.
    pub(crate) fn each_move<T>(
        &self,
        pos: &Position,
        mut answer: impl FnMut(Move, &Position) -> Result<T, ProbeError>,
    ) -> Result<Vec<T>, ProbeError> {
        self.variant().check_position(pos)?;
        let mut out = Vec::new();
        let mut error = None;
        self.variant().for_each_move(pos, |play, child| {
            if error.is_none() {
                match answer(play, &child) {
                    Ok(t) => out.push(t),
                    Err(e) => error = Some(e),
                }
            }
        });
        error.map_or(Ok(out), Err)
    }

    /// The value of `pos` and all its moves, best first.
    ///
    /// # Errors
    /// An illegal position, or a missing or damaged sector file.
    pub fn probe(&self, pos: &Position) -> Result<Answer, ProbeError> {
        let value = self.value(pos)?;
        Ok(Answer {
            position: *pos,
            value,
            moves: self.move_values(pos)?,
        })
    }

    /// The line of perfect play from `pos`, at most `limit` plies: each side
    /// plays its first best move until the game ends or a position repeats.
    ///
    /// # Errors
    /// An illegal position, or a missing or damaged sector file.
    pub fn line(&self, pos: &Position, limit: usize) -> Result<Line, ProbeError> {
        self.value(pos)?;
        let mut seen = HashSet::new();
        let mut pos = *pos;
        let mut moves = Vec::new();
        loop {
            if let Some(outcome) = self.variant().outcome(&pos) {
                return Ok(Line {
                    moves,
                    end: LineEnd::GameOver(outcome),
                });
            }
            if !seen.insert(pos) {
                return Ok(Line {
                    moves,
                    end: LineEnd::Repeats,
                });
            }
            if moves.len() >= limit {
                return Ok(Line {
                    moves,
                    end: LineEnd::Limit,
                });
            }
            let best = self.move_values(&pos)?[0];
            moves.push(best.play);
            pos = best.position;
        }
    }
}
