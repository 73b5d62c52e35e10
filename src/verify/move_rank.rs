//! A move's value for its mover as one number: the check's fold of a
//! position's children into its best move.

use crate::db::Value;

/// A move's value for its mover as one number, the larger the better: a win
/// above a draw above a loss, a shorter win and a longer loss above others.
/// The best move is then a maximum, the fold [`crate::db::Fold`] makes in three parts.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct MoveRank(u32);

const DRAW_RANK: u32 = 1 << 16;
const WIN_RANK: u32 = 3 << 16;

/// The best move of a position without moves (blocked): lost at once.
pub(super) const NO_MOVE: MoveRank = MoveRank(0);

/// The rank of a move whose child is lost at once: nothing beats it.
pub(super) const WIN_AT_ONCE: MoveRank = MoveRank(WIN_RANK - 1);

/// [`RANK_OF_BYTE`]'s entry for a byte that is no value by itself (the escape).
pub(super) const SLOW_BYTE: MoveRank = MoveRank(u32::MAX);

impl MoveRank {
    /// The rank of a move to a child of value `child` (for the child's side to move).
    pub(super) fn of_child(child: Value) -> MoveRank {
        MoveRank(match child.from_parent() {
            Value::Win(n) => WIN_RANK - u32::from(n),
            Value::Draw => DRAW_RANK,
            Value::Loss(n) => u32::from(n),
        })
    }

    /// The value of a position whose best move has this rank.
    pub(super) fn value(self) -> Value {
        match self.0 {
            r if r > DRAW_RANK => Value::Win((WIN_RANK - r) as u16),
            DRAW_RANK => Value::Draw,
            r => Value::Loss(r as u16),
        }
    }
}

/// The rank of a move to a child whose stored byte (in a raw file) is the index.
pub(super) static RANK_OF_BYTE: std::sync::LazyLock<[MoveRank; 256]> =
    std::sync::LazyLock::new(|| {
        std::array::from_fn(|b| Value::from_byte(b as u8).map_or(SLOW_BYTE, MoveRank::of_child))
    });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Fold;

    /// The best move by rank is the best move by [`Fold`], for every set of
    /// up to three children's values (and none: blocked).
    #[test]
    fn the_rank_of_the_best_move_is_the_folds_value() {
        let values: Vec<Value> = (0..12)
            .map(Value::from_plies)
            .chain([Value::Draw, Value::Loss(300), Value::Win(301)])
            .collect();
        let mut sets: Vec<Vec<Value>> = vec![vec![]];
        for a in &values {
            sets.push(vec![*a]);
            for b in &values {
                sets.push(vec![*a, *b]);
                for c in &values {
                    sets.push(vec![*a, *b, *c]);
                }
            }
        }
        for children in sets {
            let mut fold = Fold::new();
            let mut best = NO_MOVE;
            for &v in &children {
                fold.add(v);
                best = best.max(MoveRank::of_child(v));
            }
            assert_eq!(best.value(), fold.value(), "{children:?}");
            assert_eq!(best == WIN_AT_ONCE, fold.shortest_win() == Some(1));
        }
    }
}
