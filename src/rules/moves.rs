//! Legal moves and the end of the game, exactly as docs/RULES.md states them.

use std::fmt;

use super::bitboard::{Bitboard, Point};
use super::board::Board;
use super::position::Position;
use super::variant::{RemovalRule, Variant};

/// One move: a placement (`from` is `None`) or a slide or flight, with the
/// removal it makes, if any. A move and its removal are one ply.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    pub from: Option<Point>,
    pub to: Point,
    pub remove: Option<Point>,
}

impl Move {
    /// The move in the notation of docs/RULES.md: `d2`, `d2xg7`, `a1-a4`, `a1-a4xd7`.
    pub fn notation(&self, board: &Board) -> String {
        let mut s = String::new();
        if let Some(from) = self.from {
            s.push_str(board.name(from));
            s.push('-');
        }
        s.push_str(board.name(self.to));
        if let Some(r) = self.remove {
            s.push('x');
            s.push_str(board.name(r));
        }
        s
    }

    /// Reads a move in the notation of docs/RULES.md.
    ///
    /// # Errors
    /// When the text is not a move of this board's points.
    pub fn parse(board: &Board, text: &str) -> Result<Move, MoveParseError> {
        let point = |name: &str| {
            board
                .point(name)
                .ok_or_else(|| MoveParseError::UnknownPoint(name.to_string(), text.to_string()))
        };
        let (main, remove) = match text.split_once('x') {
            Some((main, r)) => (main, Some(point(r)?)),
            None => (text, None),
        };
        let (from, to) = match main.split_once('-') {
            Some((f, t)) => (Some(point(f)?), point(t)?),
            None => (None, point(main)?),
        };
        Ok(Move { from, to, remove })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    #[error(
        "'{0}' is not a point of this board (in move '{1}'); moves read d2, d2xg7, a1-a4 or a1-a4xd7"
    )]
    UnknownPoint(String, String),
}

/// How a game has ended, seen from the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// Fewer than 3 men, or no legal move.
    Lost,
    /// Morabaraba's full board.
    Drawn,
    /// The other side has fewer than 3 men: the game ended before this move.
    Won,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Lost => "lost",
            Outcome::Drawn => "drawn",
            Outcome::Won => "won",
        })
    }
}

impl Variant {
    /// True when a side with these men flies when it moves.
    #[inline]
    pub fn flies(&self, on_board: u32, in_hand: u8) -> bool {
        self.flying && on_board + in_hand as u32 == 3
    }

    /// True when a side holding `in_hand` men may move a man on the board.
    #[inline]
    pub fn may_slide(&self, in_hand: u8) -> bool {
        in_hand == 0 || self.move_while_holding
    }

    /// The men of `men` that a mill closed against them may remove.
    #[inline]
    pub fn removable(&self, men: Bitboard) -> Bitboard {
        let free = men & !self.board.in_mills(men);
        match self.removal {
            RemovalRule::MillsLast if free.is_empty() => men,
            _ => free,
        }
    }

    /// The end of the game that does not depend on the moves: a side below
    /// three men, or Morabaraba's full board.
    #[inline]
    pub fn static_outcome(&self, pos: &Position) -> Option<Outcome> {
        if pos.total(pos.to_move) < 3 {
            Some(Outcome::Lost)
        } else if pos.total(pos.to_move.other()) < 3 {
            Some(Outcome::Won)
        } else if self.full_board_draw && pos.hand == [0, 0] && pos.occupied() == self.board.all() {
            Some(Outcome::Drawn)
        } else {
            None
        }
    }

    /// How the game stands at `pos`: `None` while the side to move has a move.
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if let Some(outcome) = self.static_outcome(pos) {
            return Some(outcome);
        }
        let mut any = false;
        self.for_each_move(pos, |_, _| any = true);
        if any { None } else { Some(Outcome::Lost) }
    }

    /// Calls `f` with every legal move of `pos` and the position it leads to.
    /// A position whose game has ended has no moves.
    #[inline]
    pub fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move, Position)) {
        if self.static_outcome(pos).is_some() {
            return;
        }
        let board = self.board;
        let me = pos.to_move as usize;
        let (us, them) = (pos.us(), pos.them());
        let empty = board.all() & !(us | them);
        let hand = pos.us_hand();

        let mut finish = |from: Option<Point>, to: Point, us_after: Bitboard, hand_after: u8| {
            let mut child = *pos;
            child.men[me] = us_after;
            child.hand[me] = hand_after;
            child.to_move = pos.to_move.other();
            let removable = if board.closes_mill(us_after, to) {
                self.removable(them)
            } else {
                Bitboard::EMPTY
            };
            if removable.is_empty() {
                f(
                    Move {
                        from,
                        to,
                        remove: None,
                    },
                    child,
                );
            } else {
                for r in removable {
                    let mut taken = child;
                    taken.men[1 - me] = them.without(r);
                    f(
                        Move {
                            from,
                            to,
                            remove: Some(r),
                        },
                        taken,
                    );
                }
            }
        };

        if hand > 0 {
            for to in empty {
                finish(None, to, us.with(to), hand - 1);
            }
        }
        if self.may_slide(hand) {
            let flying = self.flies(us.count(), hand);
            for from in us {
                for to in board.moves_from(from, empty, flying) {
                    finish(Some(from), to, us.without(from).with(to), hand);
                }
            }
        }
    }

    /// Every legal move of `pos` with the position it leads to.
    pub fn moves(&self, pos: &Position) -> Vec<(Move, Position)> {
        let mut out = Vec::new();
        self.for_each_move(pos, |m, p| out.push((m, p)));
        out
    }

    /// Number of move paths of `depth` plies from `pos` (a move with its
    /// removal is one; a finished game has no moves).
    pub fn perft(&self, pos: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        self.for_each_move(pos, |_, child| {
            total += if depth == 1 {
                1
            } else {
                self.perft(&child, depth - 1)
            };
        });
        total
    }
}
