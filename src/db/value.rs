//! Game values and their one-byte encoding.

use std::fmt;

/// The value of a position for the side to move, with the distance in plies
/// to the end of the game under perfect play (winner fastest, loser slowest).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    Win(u16),
    Loss(u16),
    Draw,
}

/// Byte of a draw.
pub const DRAW_BYTE: u8 = 255;
/// Byte of a distance too long for a byte: the value is in the overflow table.
pub const ESCAPE_BYTE: u8 = 254;

impl Value {
    /// The value of a position whose every child has been valued, from the
    /// children's values (each from its own side to move).
    pub fn from_children(children: impl IntoIterator<Item = Value>) -> Value {
        let mut best: Option<Value> = None;
        for child in children {
            let mine = child.from_parent();
            best = Some(match best {
                None => mine,
                Some(b) => b.max_for_mover(mine),
            });
        }
        best.unwrap_or(Value::Loss(0))
    }

    /// This value (of a child) seen from the side that moved into it.
    pub fn from_parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// The better of two values for the side to move.
    pub fn max_for_mover(self, other: Value) -> Value {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    /// Orders values from the mover's point of view: quick wins best, then
    /// slow wins, draws, slow losses, quick losses.
    pub fn rank(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::Draw => 0,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// Plies to the end, if the game is decided.
    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }

    /// `win`, `loss` or `draw`.
    pub fn wdl(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// A distance with its parity: odd for wins, even for losses.
    pub fn from_plies(plies: u16) -> Value {
        if plies % 2 == 1 {
            Value::Win(plies)
        } else {
            Value::Loss(plies)
        }
    }

    /// The byte stored in a database file, or `ESCAPE_BYTE` when the distance
    /// does not fit.
    pub fn to_byte(self) -> u8 {
        match self {
            Value::Draw => DRAW_BYTE,
            Value::Win(n) | Value::Loss(n) if n < ESCAPE_BYTE as u16 => n as u8,
            _ => ESCAPE_BYTE,
        }
    }

    /// The value of a stored byte other than `ESCAPE_BYTE`.
    pub fn from_byte(byte: u8) -> Option<Value> {
        match byte {
            DRAW_BYTE => Some(Value::Draw),
            ESCAPE_BYTE => None,
            n => Some(Value::from_plies(n as u16)),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n}"),
            Value::Loss(n) => write!(f, "loss in {n}"),
            Value::Draw => f.write_str("draw"),
        }
    }
}
