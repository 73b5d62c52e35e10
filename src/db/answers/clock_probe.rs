//! Perfect-play answers under the move-count rule: a position's value at a
//! counter (plies since the last mill), every move with its value, best
//! first at that counter, and the line of perfect play with the counter
//! running.

use super::probe::{Line, LineEnd};
use super::tablebase::Tablebase;
use crate::db::clock_value::ClockValue;
use crate::db::error::ProbeError;
use crate::rules::{Move, Position};

/// One legal move under the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockMove {
    pub play: Move,
    pub position: Position,
    /// Whether the move closes a mill: the counter starts afresh after it.
    pub mill: bool,
    /// The move's value for its mover with a fresh counter
    /// ([`ClockValue::of_move`]); at counter `c`, `value.at_counter(c, n)`.
    pub value: ClockValue,
}

/// A position's value under the rule and its moves, best first at the
/// counter asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockAnswer {
    pub position: Position,
    /// Plies since the last mill.
    pub counter: u8,
    /// The rule: drawn after this many plies without a mill.
    pub n: u8,
    /// For the side to move with a fresh counter.
    pub fresh: ClockValue,
    pub moves: Vec<ClockMove>,
}

impl ClockAnswer {
    /// The value at the answer's counter.
    pub fn value(&self) -> ClockValue {
        self.fresh.at_counter(self.counter, self.n)
    }
}

impl Tablebase {
    /// The rule's `n`, and `counter` checked against it.
    fn rule_at(&self, counter: u8) -> Result<u8, ProbeError> {
        let n = self
            .variant()
            .n_move
            .ok_or_else(|| ProbeError::RuleMismatch {
                dir: self.dir().to_path_buf(),
                has_rule: false,
            })?;
        if counter > n {
            return Err(ProbeError::CounterPastRule { counter, n });
        }
        Ok(n)
    }

    /// Every legal move of `pos` with its value under the folder's rule,
    /// best first at `counter`; among equal moves, the one best with a
    /// fresh counter, then the move generator's order.
    ///
    /// # Errors
    /// A folder without the rule, a counter past it, a position that is
    /// not one of play, or a missing or damaged file of a child.
    pub fn clock_moves(&self, pos: &Position, counter: u8) -> Result<Vec<ClockMove>, ProbeError> {
        let n = self.rule_at(counter)?;
        let board = self.variant().board;
        let mut out = self.each_move(pos, |play, child| {
            // The mover's men after the move are the child's other side.
            let mill = board.closes_mill(child.them(), play.to);
            Ok(ClockMove {
                play,
                position: *child,
                mill,
                value: ClockValue::of_move(self.clock_value_of_checked(child)?, mill, n),
            })
        })?;
        out.sort_by_key(|m| {
            std::cmp::Reverse((m.value.at_counter(counter, n).rank(), m.value.rank()))
        });
        Ok(out)
    }

    /// The value of `pos` at `counter` and all its moves, best first.
    ///
    /// # Errors
    /// As [`Tablebase::clock_moves`].
    pub fn clock_probe(&self, pos: &Position, counter: u8) -> Result<ClockAnswer, ProbeError> {
        let n = self.rule_at(counter)?;
        Ok(ClockAnswer {
            position: *pos,
            counter,
            n,
            fresh: self.clock_value(pos)?,
            moves: self.clock_moves(pos, counter)?,
        })
    }

    /// The line of perfect play from `pos` at `counter`, at most `limit`
    /// plies: each side plays its first best move, the counter running,
    /// until the game ends or the rule draws it.
    ///
    /// # Errors
    /// As [`Tablebase::clock_moves`].
    pub fn clock_line(
        &self,
        pos: &Position,
        counter: u8,
        limit: usize,
    ) -> Result<Line, ProbeError> {
        let n = self.rule_at(counter)?;
        self.clock_value(pos)?;
        let (mut pos, mut counter) = (*pos, counter);
        let mut moves = Vec::new();
        loop {
            if let Some(outcome) = self.variant().outcome(&pos) {
                return Ok(Line {
                    moves,
                    end: LineEnd::GameOver(outcome),
                });
            }
            if counter >= n {
                return Ok(Line {
                    moves,
                    end: LineEnd::MoveCountRule,
                });
            }
            if moves.len() >= limit {
                return Ok(Line {
                    moves,
                    end: LineEnd::Limit,
                });
            }
            let best = self.clock_moves(&pos, counter)?[0];
            moves.push(best.play);
            pos = best.position;
            counter = if best.mill { 0 } else { counter + 1 };
        }
    }
}
