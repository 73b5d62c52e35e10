//! Perfect-play answers over a [`Tablebase`], one entry for every kind of
//! folder: a position's [`Answer`] (its value and every legal move with the
//! value it leads to, best first) and the line of perfect play.
//!
//! ```no_run
//! use morris::{Tablebase, Variant};
//!
//! let variant = Variant::standard();
//! let tablebase = Tablebase::open("db".as_ref(), variant)?;
//! let pos = variant.parse_position("WBW/.../.../W...../.../.../BB. w 0 0")?;
//! let answer = tablebase.answer(&pos, 0)?;
//! println!("{} {:?}", answer.value.category.as_str(), answer.value.plies);
//! for m in answer.moves.iter().flatten() {
//!     println!("{} {}", m.notation, m.value.category.as_str());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use super::answer::{
    Answer, FolderValues, Line, LineAnswer, LineEnd, MoveAnswer, Stored, WithoutRule, best_first,
};
use super::chances::Ranking;
use super::losses::keeping_marks;
use super::tablebase::Tablebase;
use crate::db::clock_value::ClockValue;
use crate::db::error::ProbeError;
use crate::db::value::{Value, Wdl};
use crate::rules::{Move, Position};

/// Why a win/draw/loss-only folder gives no line of play.
const NO_LINE: &str = "win/draw/loss-only folder: without plies nothing tells a winning move that makes progress from one that goes round, so it gives no line of play (probe a folder packed in full, or the raw one)";

impl Tablebase {
    /// What this folder holds: the one thing to match on where the kind
    /// matters.
    pub fn values(&self) -> FolderValues {
        match self.variant().n_move {
            Some(n) => FolderValues::MoveCountRule { n },
            None if self.is_wdl_only() => FolderValues::WinDrawLoss,
            None => FolderValues::Distances,
        }
    }

    /// The value of any position of play as the folder stores it, at
    /// `counter` plies since the last mill (read under the move-count rule
    /// only; pass 0 elsewhere).
    ///
    /// # Errors
    /// A position that is not one of play, a counter past the folder's
    /// rule, or a missing or damaged sector file.
    pub fn stored_value(&self, pos: &Position, counter: u8) -> Result<Stored, ProbeError> {
        self.variant().check_position(pos)?;
        self.check_counter(counter)?;
        self.stored_of_checked(pos, counter)
    }

    /// The position's value and every legal move with its value and the
    /// opponent's replies and errors after it, best first: by value
    /// ([`Stored::order_key`]), then among equal values by the chances
    /// they leave ([`Ranking::Chances`]).
    ///
    /// # Errors
    /// As [`Tablebase::stored_value`], for the position, a child or a
    /// grandchild.
    pub fn answer(&self, pos: &Position, counter: u8) -> Result<Answer, ProbeError> {
        self.answer_ranked(pos, counter, Ranking::default())
    }

    /// [`Tablebase::answer`] with moves of equal value in the order of `ranking`.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn answer_ranked(
        &self,
        pos: &Position,
        counter: u8,
        ranking: Ranking,
    ) -> Result<Answer, ProbeError> {
        keeping_marks(|| {
            let mut answer = self.answer_value(pos, counter)?;
            let mut moves = self.moves_best_first(pos, counter)?;
            self.add_chances(counter, &mut moves, ranking)?;
            answer.moves = Some(moves);
            Ok(answer)
        })
    }

    /// Every legal move of `pos` with its value, best first.
    pub(super) fn moves_best_first(
        &self,
        pos: &Position,
        counter: u8,
    ) -> Result<Vec<MoveAnswer>, ProbeError> {
        let mut moves = self.each_move(pos, |play, child| {
            let (mill, value) = self.move_value(play, child, counter)?;
            Ok(MoveAnswer::new(
                self.variant().board,
                play,
                *child,
                mill,
                value,
            ))
        })?;
        best_first(&mut moves);
        Ok(moves)
    }

    /// [`Tablebase::answer`] without the moves.
    ///
    /// # Errors
    /// As [`Tablebase::stored_value`].
    pub fn answer_value(&self, pos: &Position, counter: u8) -> Result<Answer, ProbeError> {
        let value = self.stored_value(pos, counter)?;
        Ok(Answer::new(self.variant().board, *pos, value))
    }

    /// Adds the line of perfect play from the answer's position, at most
    /// `limit` plies, or where the folder gives none (win/draw/loss only),
    /// why not.
    ///
    /// # Errors
    /// A missing or damaged sector file along the line.
    pub fn add_line(&self, answer: &mut Answer, limit: usize) -> Result<(), ProbeError> {
        if self.values() == FolderValues::WinDrawLoss {
            answer.line_null_because = Some(NO_LINE);
            return Ok(());
        }
        let line = self.line(&answer.position, answer.counter.unwrap_or(0), limit)?;
        answer.line = Some(LineAnswer::new(self.variant().board, line));
        Ok(())
    }

    /// The line of perfect play from `pos` at `counter`, at most `limit`
    /// plies: each side plays its first best move until the game ends, a
    /// position repeats, or the move-count rule draws it.
    ///
    /// # Errors
    /// A win/draw/loss-only folder, and as [`Tablebase::stored_value`].
    pub fn line(&self, pos: &Position, counter: u8, limit: usize) -> Result<Line, ProbeError> {
        if self.values() == FolderValues::WinDrawLoss {
            return Err(ProbeError::WdlOnly {
                dir: self.dir().to_path_buf(),
            });
        }
        keeping_marks(|| self.line_kept(pos, counter, limit))
    }

    /// [`Tablebase::line`], its marks kept along the line.
    fn line_kept(&self, pos: &Position, counter: u8, limit: usize) -> Result<Line, ProbeError> {
        self.stored_value(pos, counter)?;
        let rule = self.variant().n_move;
        let (mut pos, mut counter) = (*pos, counter);
        let mut seen = HashSet::new();
        let mut moves = Vec::new();
        let end = loop {
            if let Some(outcome) = self.variant().outcome(&pos) {
                break LineEnd::GameOver(outcome);
            }
            if rule.is_some_and(|n| counter >= n) {
                break LineEnd::MoveCountRule;
            }
            // Under the rule the counter grows to a draw; without it a
            // repeated position is one.
            if rule.is_none() && !seen.insert(pos) {
                break LineEnd::Repeats;
            }
            if moves.len() >= limit {
                break LineEnd::Limit;
            }
            let (play, child) = self.line_move(&pos, counter)?;
            moves.push(play);
            let mill = self.variant().board.closes_mill(child.them(), play.to);
            pos = child;
            counter = if mill { 0 } else { counter.saturating_add(1) };
        };
        Ok(Line { moves, end })
    }

    /// The move a line plays from `pos` (a position with moves): the one
    /// [`Tablebase::moves_best_first`] puts first, the first best in the
    /// generator's order. In a folder of distances it is found reading
    /// only what tells it: a lost child where there is one (the fastest
    /// win), else the first drawn child (a child's children read until the
    /// first lost one tell it won), else every child's plies (the longest
    /// loss).
    fn line_move(&self, pos: &Position, counter: u8) -> Result<(Move, Position), ProbeError> {
        if self.values() != FolderValues::Distances {
            let best = self.moves_best_first(pos, counter)?.swap_remove(0);
            return Ok((best.play, best.position));
        }
        let children = self.each_move(pos, |play, child| {
            Ok((play, *child, self.value_if_read(child)?))
        })?;
        let lost_in = |value: &Option<Value>| match value {
            Some(Value::Loss(n)) => Some(*n),
            _ => None,
        };
        // (`min_by_key` keeps the first of equals.)
        let fastest = children
            .iter()
            .filter(|(.., v)| lost_in(v).is_some())
            .min_by_key(|(.., v)| lost_in(v));
        if let Some((play, child, _)) = fastest {
            return Ok((*play, *child));
        }
        for (play, child, value) in &children {
            let drawn = match value {
                Some(v) => *v == Value::Draw,
                None => self.wdl_not_lost(child)? == Wdl::Draw,
            };
            if drawn {
                return Ok((*play, *child));
            }
        }
        // Every child is won: the longest win for the other side is best.
        let mut longest: Option<(u16, Move, Position)> = None;
        for (play, child, value) in &children {
            let won = match value {
                Some(v) => *v,
                None => self.value_not_lost(child)?,
            };
            let plies = won.plies().unwrap_or(0);
            if longest.is_none_or(|(l, ..)| plies > l) {
                longest = Some((plies, *play, *child));
            }
        }
        let (_, play, child) = longest.expect("a position with moves");
        Ok((play, child))
    }

    /// A counter the folder's rule allows (any counter without a rule: it
    /// is not read there).
    fn check_counter(&self, counter: u8) -> Result<(), ProbeError> {
        match self.variant().n_move {
            Some(n) if counter > n => Err(ProbeError::CounterPastRule { counter, n }),
            _ => Ok(()),
        }
    }

    /// [`Tablebase::stored_value`] of a position known to be one of play.
    pub(crate) fn stored_of_checked(
        &self,
        pos: &Position,
        counter: u8,
    ) -> Result<Stored, ProbeError> {
        Ok(match self.values() {
            FolderValues::Distances => Stored::Distance(self.value_of_checked(pos)?),
            FolderValues::WinDrawLoss => Stored::Wdl(self.wdl_of_checked(pos)?),
            FolderValues::MoveCountRule { n } => {
                let fresh = self.clock_value_of_checked(pos)?;
                Stored::Clock {
                    fresh,
                    counter,
                    n,
                    plain: self.plain_value_of_draw(pos, fresh)?,
                }
            }
        })
    }

    /// A move's value for its mover, from its child's, and whether it
    /// closes a mill.
    pub(super) fn move_value(
        &self,
        play: Move,
        child: &Position,
        counter: u8,
    ) -> Result<(bool, Stored), ProbeError> {
        // The mover's men after the move are the child's other side.
        let mill = self.variant().board.closes_mill(child.them(), play.to);
        let value = match self.values() {
            FolderValues::Distances => {
                Stored::Distance(self.value_of_checked(child)?.from_parent())
            }
            FolderValues::WinDrawLoss => Stored::Wdl(self.wdl_of_checked(child)?.from_parent()),
            FolderValues::MoveCountRule { n } => {
                self.clock_move_value(child, mill, counter, n, WithoutRule::Read)?
            }
        };
        Ok((mill, value))
    }

    /// [`Tablebase::move_value`] under the move-count rule of `n`, for a
    /// move to `child` that closes a mill or not; the value without the
    /// rule of a move the rule draws (a read of the folder beside) only
    /// where `without_rule` asks for it.
    pub(super) fn clock_move_value(
        &self,
        child: &Position,
        mill: bool,
        counter: u8,
        n: u8,
        without_rule: WithoutRule,
    ) -> Result<Stored, ProbeError> {
        let fresh = ClockValue::of_move(self.clock_value_of_checked(child)?, mill, n);
        let plain = match (fresh, without_rule) {
            (ClockValue::Draw, WithoutRule::Read) => self.plain_wdl(child)?.map(Wdl::from_parent),
            _ => None,
        };
        Ok(Stored::Clock {
            fresh,
            counter,
            n,
            plain,
        })
    }

    /// The value without the rule of a position the rule's folder values
    /// `fresh`, where it can tell more: a draw under the rule may be a win
    /// or loss without it ([`Tablebase::with_folder_without_rule`]).
    fn plain_value_of_draw(
        &self,
        pos: &Position,
        fresh: ClockValue,
    ) -> Result<Option<Wdl>, ProbeError> {
        match fresh {
            ClockValue::Draw => self.plain_wdl(pos),
            _ => Ok(None),
        }
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
}
