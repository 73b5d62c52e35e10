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
        let mut fold = Fold::new();
        for child in children {
            fold.add(child);
        }
        fold.value()
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

/// Whether a position is lost for its side to move, with its plies where
/// they are known: what a losses file holds (see `packed.rs`). A position
/// not lost is won if one of its children is lost (in one ply more than the
/// fewest), else drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossMark {
    NotLost,
    Lost(Option<u16>),
}

/// The best value for the mover among the children seen so far: the one
/// fold of Win/Loss/Draw over children that the solvers and the checks use.
/// With no child at all the mover is blocked: a loss in 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// Shortest win for the mover, `u16::MAX` for none.
    win: u16,
    draw: bool,
    /// Longest loss for the mover.
    loss: u16,
}

impl Default for Fold {
    fn default() -> Fold {
        Fold::new()
    }
}

impl Fold {
    pub const fn new() -> Fold {
        Fold {
            win: u16::MAX,
            draw: false,
            loss: 0,
        }
    }

    /// Adds a child's value, for the child's own side to move.
    #[inline]
    pub fn add(&mut self, child: Value) {
        self.add_for_mover(child.from_parent());
    }

    /// Adds a move's value already seen from the mover's side.
    #[inline]
    pub fn add_for_mover(&mut self, mine: Value) {
        match mine {
            Value::Win(n) => self.win = self.win.min(n),
            Value::Loss(n) => self.loss = self.loss.max(n),
            Value::Draw => self.draw = true,
        }
    }

    /// The shortest win seen, if any.
    pub fn shortest_win(&self) -> Option<u16> {
        (self.win != u16::MAX).then_some(self.win)
    }

    /// Whether a draw was seen.
    pub fn has_draw(&self) -> bool {
        self.draw
    }

    /// The longest loss seen (0 when none).
    pub fn longest_loss(&self) -> u16 {
        self.loss
    }

    /// The mover's value: its fastest win, else a draw, else its longest loss.
    pub fn value(&self) -> Value {
        match self.shortest_win() {
            Some(n) => Value::Win(n),
            None if self.draw => Value::Draw,
            None => Value::Loss(self.loss),
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

/// A value without its distance: what a win/draw/loss-only folder stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Wdl {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl Wdl {
    /// The value's kind.
    pub fn of(value: Value) -> Wdl {
        match value {
            Value::Win(_) => Wdl::Win,
            Value::Loss(_) => Wdl::Loss,
            Value::Draw => Wdl::Draw,
        }
    }

    /// This value (of a child) seen from the side that moved into it.
    pub fn from_parent(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
        }
    }

    /// The mover's value from its children's (each from its own side to
    /// move): a win if one is lost, else a draw if one is drawn, else a loss
    /// (no child at all: blocked).
    pub fn from_children(children: impl IntoIterator<Item = Wdl>) -> Wdl {
        children
            .into_iter()
            .map(Wdl::from_parent)
            .max()
            .unwrap_or(Wdl::Loss)
    }

    /// The two-bit code stored in a win/draw/loss-only file.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The value of a two-bit code; `None` for 3, which no value has.
    pub fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Loss),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            _ => None,
        }
    }

    /// `win`, `loss` or `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
