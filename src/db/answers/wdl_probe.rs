//! Answers from a folder of win/draw/loss only (`morris pack --wdl`): a
//! position's value and every legal move with the value it leads to, best
//! first, without plies. Such a folder gives no line of play: without
//! distances nothing tells a winning move that makes progress from one that
//! goes round.

use super::tablebase::Tablebase;
use crate::db::error::ProbeError;
use crate::db::value::Wdl;
use crate::rules::{Move, Position};

/// One legal move and the value it leads to, for the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WdlMove {
    pub play: Move,
    /// The position after the move.
    pub position: Position,
    pub value: Wdl,
}

/// A position's value and its moves, best first (wins, draws, losses; in
/// the move generator's order among equals).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WdlAnswer {
    pub position: Position,
    /// For the side to move.
    pub value: Wdl,
    pub moves: Vec<WdlMove>,
}

impl Tablebase {
    /// Every legal move of `pos` with its value for the mover, best first.
    ///
    /// # Errors
    /// A position that is not one of play, or a missing or damaged sector
    /// file of a child.
    pub fn wdl_moves(&self, pos: &Position) -> Result<Vec<WdlMove>, ProbeError> {
        let mut out = self.each_move(pos, |play, child| {
            Ok(WdlMove {
                play,
                position: *child,
                value: self.wdl_of_checked(child)?.from_parent(),
            })
        })?;
        out.sort_by_key(|m| std::cmp::Reverse(m.value));
        Ok(out)
    }

    /// The value of `pos` and all its moves, best first.
    ///
    /// # Errors
    /// An illegal position, or a missing or damaged sector file.
    pub fn wdl_probe(&self, pos: &Position) -> Result<WdlAnswer, ProbeError> {
        Ok(WdlAnswer {
            position: *pos,
            value: self.wdl(pos)?,
            moves: self.wdl_moves(pos)?,
        })
    }
}
