//! The chances a move leaves the opponent to go wrong, and the order of
//! moves that prefers them among moves of equal value.
//!
//! After a move, each of the opponent's replies is an *error* when it is
//! worse for the opponent than its best reply: after a drawing move, a
//! reply that loses; after a losing move (the opponent wins), a reply that
//! fails to win; after a winning move, a reply that loses faster than the
//! best defence. Everything is read from the folder, two plies deep: no
//! extra file.

use std::cmp::Ordering;

use super::answer::{FolderValues, MoveAnswer, Stored, WithoutRule};
use super::losses::keeping_marks;
use super::tablebase::Tablebase;
use crate::db::error::ProbeError;
use crate::db::value::Wdl;
use crate::rules::Position;

/// How moves of equal value are ordered (their values always come first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ranking {
    /// The move generator's order among equals (a player picks among them
    /// at random).
    Best,
    /// The larger share of the opponent's replies that are errors first
    /// (equal shares keep the generator's order).
    #[default]
    Chances,
}

/// Whether `reply` is worse for the side that plays it than `best`, its
/// best reply: a lower win, draw or loss (under the move-count rule, at the
/// counter: a cursed win is a draw there), or the same loss sooner where the
/// folder has plies to the end.
pub fn is_error(best: Stored, reply: Stored) -> bool {
    let (b, r) = (best.wdl() as i32, reply.wdl() as i32);
    if r != b {
        return r < b;
    }
    best.wdl() == Wdl::Loss
        && matches!((best.plies(), reply.plies()), (Some(pb), Some(pr)) if pr < pb)
}

impl Tablebase {
    /// Counts, for each move, the opponent's replies and its errors among
    /// them (`counter`: the position's, under the rule), and orders the
    /// moves by `ranking` within equal values.
    ///
    /// # Errors
    /// A missing or damaged sector file two plies deep.
    pub fn add_chances(
        &self,
        counter: u8,
        moves: &mut [MoveAnswer],
        ranking: Ranking,
    ) -> Result<(), ProbeError> {
        for m in moves.iter_mut() {
            let child_counter = if m.mill { 0 } else { counter.saturating_add(1) };
            let (replies, errors) = self.replies_and_errors(&m.position, child_counter)?;
            m.replies = Some(replies);
            m.errors = Some(errors);
        }
        rank(moves, ranking);
        Ok(())
    }

    /// Every legal move of `pos` with its value, best first, ranked by
    /// `ranking` among equal values; the replies and errors are counted
    /// only for [`Ranking::Chances`], which needs them (cheaper otherwise).
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn ranked_moves(
        &self,
        pos: &Position,
        counter: u8,
        ranking: Ranking,
    ) -> Result<Vec<MoveAnswer>, ProbeError> {
        keeping_marks(|| {
            let mut moves = self.moves_best_first(pos, counter)?;
            if ranking == Ranking::Chances {
                self.add_chances(counter, &mut moves, ranking)?;
            }
            Ok(moves)
        })
    }

    /// The opponent's replies from `child` and how many are errors.
    fn replies_and_errors(&self, child: &Position, counter: u8) -> Result<(u16, u16), ProbeError> {
        let variant = self.variant();
        if variant.static_outcome(child).is_some() || variant.n_move.is_some_and(|n| counter >= n) {
            return Ok((0, 0));
        }
        let FolderValues::MoveCountRule { n } = self.values() else {
            return self.replies_and_errors_reading_less(child);
        };
        // Under the rule an error is told by win, draw or loss at the
        // counter alone (`is_error`: no plies to the end), so the value
        // without the rule, a read of the folder beside, is not asked for.
        let values = self.each_move(child, |reply, grandchild| {
            let mill = variant.board.closes_mill(grandchild.them(), reply.to);
            let value =
                self.clock_move_value(grandchild, mill, counter, n, WithoutRule::Skipped)?;
            Ok(value.wdl())
        })?;
        let Some(&best) = values.iter().max() else {
            return Ok((0, 0));
        };
        let errors = values.iter().filter(|&&w| w < best).count();
        Ok((values.len() as u16, errors as u16))
    }
}

impl Tablebase {
    /// [`Tablebase::replies_and_errors`] in a folder without the move-count
    /// rule, reading only what tells the errors. In a file of losses a
    /// reply's value is one read only where it wins (its position is lost);
    /// for the others the position's children are read, and only as far as
    /// needed:
    /// - a reply wins: every reply that does not win is an error;
    /// - else a reply draws: the errors are the replies that lose, and a
    ///   position's children tell that it is won at the first lost one;
    /// - else every reply loses: the errors lose sooner than the longest
    ///   loss, so each position's plies are found, or only as many as tell
    ///   it loses sooner than the longest so far (no errors without plies).
    fn replies_and_errors_reading_less(&self, child: &Position) -> Result<(u16, u16), ProbeError> {
        let plies = self.values() == FolderValues::Distances;
        // Each grandchild, valued from its own mover's side (a lost one is
        // a winning reply), as far as one read tells.
        let mut replies = self.each_move(child, |_, grandchild| {
            let value = if plies {
                self.value_if_read(grandchild)?
            } else {
                None
            };
            let wdl = match value {
                Some(v) => Some(Wdl::of(v)),
                None if plies => None,
                None => self.wdl_if_read(grandchild)?,
            };
            Ok((*grandchild, wdl, value))
        })?;
        let count = replies.len() as u16;
        let lost = |wdl: &Option<Wdl>| *wdl == Some(Wdl::Loss);
        if replies.iter().any(|(_, wdl, _)| lost(wdl)) {
            let errors = replies.iter().filter(|(_, wdl, _)| !lost(wdl)).count();
            return Ok((count, errors as u16));
        }
        for (grandchild, wdl, _) in &mut replies {
            if wdl.is_none() {
                *wdl = Some(self.wdl_not_lost(grandchild)?);
            }
        }
        if replies.iter().any(|(_, wdl, _)| *wdl == Some(Wdl::Draw)) {
            let errors = replies
                .iter()
                .filter(|(_, wdl, _)| *wdl == Some(Wdl::Win))
                .count();
            return Ok((count, errors as u16));
        }
        if !plies {
            return Ok((count, 0));
        }
        // Every grandchild is won: the longest win is the best defence. A
        // win found faster than the longest so far is an error whatever
        // follows (the longest only grows), so its search stops there.
        let mut longest = 0;
        let mut wins = Vec::with_capacity(replies.len());
        for (grandchild, _, value) in &replies {
            let won = match value {
                Some(v) => Some(*v),
                None => self.value_not_lost_unless_won_within(grandchild, longest)?,
            };
            let plies = won.map(|v| v.plies().unwrap_or(0));
            longest = longest.max(plies.unwrap_or(0));
            wins.push(plies);
        }
        let errors = wins
            .iter()
            .filter(|p| p.is_none_or(|p| p < longest))
            .count();
        Ok((count, errors as u16))
    }
}

/// Sorts moves best first: by value, then as `ranking` says, keeping the
/// generator's order among equals.
pub fn rank(moves: &mut [MoveAnswer], ranking: Ranking) {
    moves.sort_by(|a, b| {
        b.order_key()
            .cmp(&a.order_key())
            .then_with(|| match ranking {
                Ranking::Best => Ordering::Equal,
                Ranking::Chances => chances_order(b, a),
            })
    });
}

/// The order of two moves' chances: the share of errors among the
/// replies, `errors / replies` (no replies: no errors), compared without
/// division.
pub fn chances_order(a: &MoveAnswer, b: &MoveAnswer) -> Ordering {
    let counts = |m: &MoveAnswer| {
        (
            u32::from(m.errors.unwrap_or(0)),
            u32::from(m.replies.unwrap_or(0)).max(1),
        )
    };
    let ((ea, ra), (eb, rb)) = (counts(a), counts(b));
    (ea * rb).cmp(&(eb * ra))
}
