//! Values under the move-count rule (`Variant::n_move`, N plies): the game is
//! drawn once N plies in a row pass without a mill. The counter `c` is the
//! plies played since the last mill; a position's value depends on it, but
//! only towards a draw as it grows, so one value with a fresh counter and
//! the plies to the next mill describe every counter (README, "The
//! move-count rule").

use std::fmt;

use super::value::{DRAW_BYTE, Wdl};

/// A position's value for the side to move with a fresh counter, and the
/// plies `d` to the next mill under perfect play: the winner closes a mill
/// that keeps its win (or blocks the other side, or wins) within `d` plies,
/// the loser delays it as long as it can. At counter `c` the value holds
/// exactly when `c + d <= N`; past that it is a draw.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ClockValue {
    Win(u8),
    Loss(u8),
    Draw,
}

impl ClockValue {
    /// The value at counter `c` under the rule of `n` plies: a win or loss
    /// whose next mill comes too late is a draw.
    pub fn at_counter(self, c: u8, n: u8) -> ClockValue {
        match self {
            ClockValue::Win(d) | ClockValue::Loss(d)
                if u16::from(c) + u16::from(d) > u16::from(n) =>
            {
                ClockValue::Draw
            }
            value => value,
        }
    }

    /// What a move to `child` (valued for its own side to move with a fresh
    /// counter) is worth to the mover with a fresh counter: after a mill the
    /// child starts afresh and the next mill is this one; otherwise the
    /// child's counter is one more and its next mill one ply further.
    pub fn of_move(child: ClockValue, mill: bool, n: u8) -> ClockValue {
        match (child, mill) {
            (ClockValue::Draw, _) => ClockValue::Draw,
            (ClockValue::Loss(_), true) => ClockValue::Win(1),
            (ClockValue::Win(_), true) => ClockValue::Loss(1),
            (ClockValue::Loss(d), false) if d < n => ClockValue::Win(d + 1),
            (ClockValue::Win(d), false) if d < n => ClockValue::Loss(d + 1),
            // The child holds its value only from a fresh counter.
            _ => ClockValue::Draw,
        }
    }

    /// The mover's value from its moves' values ([`ClockValue::of_move`]):
    /// the quickest win, else a draw, else the slowest loss; no move at
    /// all is a loss in 0.
    pub fn best(moves: impl IntoIterator<Item = ClockValue>) -> ClockValue {
        moves.into_iter().fold(ClockValue::Loss(0), |best, m| {
            if m.rank() > best.rank() { m } else { best }
        })
    }

    /// Orders values for the side to move: quick wins best, then slow wins,
    /// draws, slow losses, quick losses.
    pub fn rank(self) -> i32 {
        match self {
            ClockValue::Win(d) => 1000 - i32::from(d),
            ClockValue::Draw => 0,
            ClockValue::Loss(d) => -1000 + i32::from(d),
        }
    }

    /// Plies to the next mill, if the position is decided.
    pub fn plies(self) -> Option<u8> {
        match self {
            ClockValue::Win(d) | ClockValue::Loss(d) => Some(d),
            ClockValue::Draw => None,
        }
    }

    /// The largest counter at which the value holds under the rule of `n`
    /// plies, if it is decided.
    pub fn survives_to(self, n: u8) -> Option<u8> {
        self.plies().map(|d| n - d)
    }

    /// Win, draw or loss, without the plies.
    pub fn wdl(self) -> Wdl {
        match self {
            ClockValue::Win(_) => Wdl::Win,
            ClockValue::Loss(_) => Wdl::Loss,
            ClockValue::Draw => Wdl::Draw,
        }
    }

    /// The stored byte: a win's is odd and a loss's even, as in files
    /// without the rule, so tallies of wins and losses read both alike.
    pub fn to_byte(self) -> u8 {
        match self {
            ClockValue::Win(d) => 2 * d - 1,
            ClockValue::Loss(d) => 2 * d,
            ClockValue::Draw => DRAW_BYTE,
        }
    }

    /// The value of a stored byte under the rule of `n` plies; `None` for a
    /// byte no such value has (a damaged file). A marked draw is a draw.
    pub fn from_byte(byte: u8, n: u8) -> Option<ClockValue> {
        let value = match byte {
            DRAW_BYTE | CURSED_WIN_BYTE | BLESSED_LOSS_BYTE => return Some(ClockValue::Draw),
            b if b % 2 == 1 => ClockValue::Win(b / 2 + 1),
            b => ClockValue::Loss(b / 2),
        };
        (value.plies()? <= n).then_some(value)
    }
}

/// A draw under the rule with a fresh counter that is a win without the
/// rule: a cursed win, in a folder solved with the folder without the rule
/// beside it (a byte no value under a rule of at most 126 plies takes).
pub const CURSED_WIN_BYTE: u8 = 253;
/// Likewise a draw that is a loss without the rule: a blessed loss.
pub const BLESSED_LOSS_BYTE: u8 = 254;

/// The byte of a fresh draw whose value without the rule is `plain`.
pub fn marked_draw_byte(plain: Wdl) -> u8 {
    match plain {
        Wdl::Win => CURSED_WIN_BYTE,
        Wdl::Loss => BLESSED_LOSS_BYTE,
        Wdl::Draw => DRAW_BYTE,
    }
}

/// The value without the rule of a fresh draw's byte in a marked folder:
/// a win, a loss, or a draw for the plain draw byte; `None` for a byte
/// that is not a draw.
pub fn marked_plain(byte: u8) -> Option<Wdl> {
    match byte {
        CURSED_WIN_BYTE => Some(Wdl::Win),
        BLESSED_LOSS_BYTE => Some(Wdl::Loss),
        DRAW_BYTE => Some(Wdl::Draw),
        _ => None,
    }
}

impl fmt::Display for ClockValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockValue::Win(d) => write!(f, "win, next mill within {d} plies"),
            ClockValue::Loss(d) => write!(f, "loss, next mill within {d} plies"),
            ClockValue::Draw => f.write_str("draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips_through_its_byte() {
        let n = 126;
        let mut seen = std::collections::HashSet::new();
        let values = (1..=n)
            .map(ClockValue::Win)
            .chain((0..=n).map(ClockValue::Loss))
            .chain([ClockValue::Draw]);
        for v in values {
            assert!(seen.insert(v.to_byte()), "{v:?}");
            assert_eq!(ClockValue::from_byte(v.to_byte(), n), Some(v));
        }
        assert_eq!(
            ClockValue::from_byte(ClockValue::Win(11).to_byte(), 10),
            None
        );
        // The marks are draws under the rule, and no other value's byte.
        for plain in [Wdl::Win, Wdl::Loss, Wdl::Draw] {
            let byte = marked_draw_byte(plain);
            assert_eq!(ClockValue::from_byte(byte, n), Some(ClockValue::Draw));
            assert_eq!(marked_plain(byte), Some(plain));
            assert!(byte == DRAW_BYTE || !seen.contains(&byte), "{byte}");
        }
    }

    #[test]
    fn a_counter_turns_late_mills_into_draws() {
        let n = 10;
        assert_eq!(ClockValue::Win(4).at_counter(6, n), ClockValue::Win(4));
        assert_eq!(ClockValue::Win(4).at_counter(7, n), ClockValue::Draw);
        assert_eq!(ClockValue::Win(4).wdl(), Wdl::Win);
        assert_eq!(ClockValue::Loss(0).at_counter(10, n), ClockValue::Loss(0));
        assert_eq!(ClockValue::Loss(3).at_counter(8, n), ClockValue::Draw);
        assert_eq!(
            ClockValue::of_move(ClockValue::Loss(9), false, n),
            ClockValue::Win(10)
        );
        assert_eq!(
            ClockValue::of_move(ClockValue::Loss(10), false, n),
            ClockValue::Draw
        );
        assert_eq!(
            ClockValue::of_move(ClockValue::Win(10), true, n),
            ClockValue::Loss(1)
        );
        assert_eq!(ClockValue::best([]), ClockValue::Loss(0));
    }
}
