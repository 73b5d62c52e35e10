//! Unmoves: every position from which one legal move leads to a given one.
//! The retrograde solver walks these edges backwards.

use super::bitboard::{Bitboard, Point};
use super::moves::Move;
use super::position::Position;
use super::variant::Variant;

impl Variant {
    /// Calls `f` with every `(move, predecessor)` such that `move` is legal in
    /// `predecessor` and leads to `pos`: un-placings, un-slides and un-flights,
    /// each with or without the man it removed put back.
    pub fn for_each_unmove(&self, pos: &Position, mut f: impl FnMut(Move, Position)) {
        let mover = pos.to_move.other();
        let (mover_i, victim_i) = (mover as usize, pos.to_move as usize);
        // The side that moved had at least three men before and loses none by moving.
        if pos.total(mover) < 3 {
            return;
        }
        let men_after = pos.men[mover_i];
        let victim_after = pos.men[victim_i];
        let empty = self.board.all() & !pos.occupied();
        let victim_full = pos.total(pos.to_move) as u8 >= self.men;
        let victim_can_be_back = pos.total(pos.to_move) + 1 >= 3 && !victim_full;
        let victim_stays_valid = pos.total(pos.to_move) >= 3;

        let mut emit = |from: Option<Point>, to: Point, before: Position| {
            let closes = self.board.closes_mill(men_after, to);
            if victim_stays_valid && (!closes || self.removable(victim_after).is_empty()) {
                f(
                    Move {
                        from,
                        to,
                        remove: None,
                    },
                    before,
                );
            }
            if closes && victim_can_be_back {
                // The removed man stood on a point that is empty now and was not
                // the mover's starting point.
                let candidates = match from {
                    Some(from) => empty.without(from),
                    None => empty,
                };
                for r in candidates {
                    let victim_before = victim_after.with(r);
                    if self.removable(victim_before).contains(r) {
                        let mut p = before;
                        p.men[victim_i] = victim_before;
                        f(
                            Move {
                                from,
                                to,
                                remove: Some(r),
                            },
                            p,
                        );
                    }
                }
            }
        };

        let hand = pos.hand[mover_i];
        let flying = self.flies(men_after.count(), hand);
        for to in men_after {
            // Un-place: the man came from the hand.
            if hand < self.men {
                let mut before = *pos;
                before.to_move = mover;
                before.men[mover_i] = men_after.without(to);
                before.hand[mover_i] = hand + 1;
                emit(None, to, before);
            }
            // Un-slide or un-fly: the man came from an empty point.
            if self.may_slide(hand) {
                let sources = if flying {
                    empty
                } else {
                    self.board.links(to) & empty
                };
                for from in sources {
                    let mut before = *pos;
                    before.to_move = mover;
                    before.men[mover_i] = men_after.without(to).with(from);
                    emit(Some(from), to, before);
                }
            }
        }
    }

    /// The predecessors of `pos` by a slide or flight that removed nothing:
    /// exactly the unmoves that keep the men on board and in hand, so the
    /// predecessors lying in the same solving unit as `pos`.
    #[inline]
    pub fn for_each_quiet_unslide(&self, pos: &Position, mut f: impl FnMut(Position)) {
        let mover = pos.to_move.other();
        let (mover_i, victim_i) = (mover as usize, pos.to_move as usize);
        let hand = pos.hand[mover_i];
        if pos.total(mover) < 3 || pos.total(pos.to_move) < 3 || !self.may_slide(hand) {
            return;
        }
        let men_after = pos.men[mover_i];
        let victim_may_lose_a_man = !self.removable(pos.men[victim_i]).is_empty();
        let empty = self.board.all() & !pos.occupied();
        let flying = self.flies(men_after.count(), hand);
        for to in men_after {
            if victim_may_lose_a_man && self.board.closes_mill(men_after, to) {
                continue;
            }
            let rest: Bitboard = men_after.without(to);
            for from in self.board.moves_from(to, empty, flying) {
                let mut before = *pos;
                before.to_move = mover;
                before.men[mover_i] = rest.with(from);
                f(before);
            }
        }
    }
}
