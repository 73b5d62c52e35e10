//! The one answer every front end prints: a position's value, its category,
//! its distances with the metric each counts, and every legal move with the
//! same fields and the position it leads to, best first, whatever kind of
//! folder it comes from. The types derive `serde::Serialize`; their JSON is
//! documented field by field in `docs/ANSWER.md`.

use std::cmp::Reverse;

use serde::{Serialize, Serializer};

use crate::db::clock_value::ClockValue;
use crate::db::value::{Value, Wdl};
use crate::rules::{Board, Move, Outcome, Position};

/// What a folder holds, the one thing a caller matches on where the kind
/// of folder matters (raw or packed, the files read alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FolderValues {
    /// Wins and losses with their plies to the end, and draws.
    Distances,
    /// Win, draw or loss only (`morris pack --wdl`).
    WinDrawLoss,
    /// Under the move-count rule of `n` plies: wins and losses with their
    /// plies to the next mill, and draws.
    MoveCountRule { n: u8 },
}

/// A value's category as the lichess tablebase names them: under the
/// move-count rule a win that the rule turns into a draw is `cursed-win`, a
/// loss it saves `blessed-loss`; without the rule only the three plain ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Loss,
    BlessedLoss,
    Draw,
    CursedWin,
    Win,
}

impl Category {
    /// The category of a plain value.
    pub fn of(wdl: Wdl) -> Category {
        match wdl {
            Wdl::Win => Category::Win,
            Wdl::Draw => Category::Draw,
            Wdl::Loss => Category::Loss,
        }
    }

    /// `win`, `cursed-win`, `draw`, `blessed-loss` or `loss`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Win => "win",
            Category::CursedWin => "cursed-win",
            Category::Draw => "draw",
            Category::BlessedLoss => "blessed-loss",
            Category::Loss => "loss",
        }
    }
}

/// A value as the folder stores it, for the side it is given for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stored {
    /// Plies to the end.
    Distance(Value),
    /// No distance (a win/draw/loss-only folder).
    Wdl(Wdl),
    /// Under the move-count rule of `n` plies at counter `counter`: the
    /// value with a fresh counter and the plies to the next mill; `plain` is
    /// the value without the rule where the folder knows it (it tells a
    /// true draw from a cursed win or blessed loss at a fresh counter).
    Clock {
        fresh: ClockValue,
        counter: u8,
        n: u8,
        plain: Option<Wdl>,
    },
}

impl Stored {
    /// The value at the counter, without distance.
    pub fn wdl(self) -> Wdl {
        match self {
            Stored::Distance(v) => Wdl::of(v),
            Stored::Wdl(w) => w,
            Stored::Clock {
                fresh, counter, n, ..
            } => clock_wdl(fresh.at_counter(counter, n)),
        }
    }

    /// Its category: a draw under the rule that is a win or loss with a
    /// fresher counter, or without the rule, is cursed or blessed.
    pub fn category(self) -> Category {
        let Stored::Clock {
            fresh,
            counter,
            n,
            plain,
        } = self
        else {
            return Category::of(self.wdl());
        };
        match (fresh.at_counter(counter, n), fresh, plain) {
            (ClockValue::Win(_), ..) => Category::Win,
            (ClockValue::Loss(_), ..) => Category::Loss,
            (ClockValue::Draw, ClockValue::Win(_), _) | (_, _, Some(Wdl::Win)) => {
                Category::CursedWin
            }
            (ClockValue::Draw, ClockValue::Loss(_), _) | (_, _, Some(Wdl::Loss)) => {
                Category::BlessedLoss
            }
            _ => Category::Draw,
        }
    }

    /// The value with its plies to the end, where the folder holds them.
    pub fn distance(self) -> Option<Value> {
        match self {
            Stored::Distance(v) => Some(v),
            _ => None,
        }
    }

    /// Plies to the end of the game under perfect play, where the folder
    /// holds them and the game is decided.
    pub fn plies(self) -> Option<u16> {
        match self {
            Stored::Distance(v) => v.plies(),
            _ => None,
        }
    }

    /// Why [`Stored::plies`] is `None`, if it is.
    pub fn no_plies(self) -> Option<NoPlies> {
        match self {
            Stored::Distance(Value::Draw) => Some(NoPlies::Draw),
            Stored::Distance(_) => None,
            Stored::Wdl(_) => Some(NoPlies::WinDrawLoss),
            Stored::Clock { .. } => Some(NoPlies::MoveCountRule),
        }
    }

    /// Under the rule, the plies to the next mill at the counter (`None`
    /// for a draw there); `None` without the rule.
    pub fn mill_plies(self) -> Option<u8> {
        match self {
            Stored::Clock {
                fresh, counter, n, ..
            } => fresh.at_counter(counter, n).plies(),
            _ => None,
        }
    }

    /// The order of moves, one key for every kind of folder, larger is
    /// better for the mover: by value (fastest win, slowest win, draw,
    /// slowest loss, fastest loss); under the rule, by the value at the
    /// counter, then among equals by the category (a cursed win before a
    /// true draw before a blessed loss) and the value with a fresh counter.
    /// Moves equal in key keep the move generator's order.
    pub fn order_key(self) -> (i32, i32, i32) {
        match self {
            Stored::Distance(v) => (v.rank(), 0, 0),
            Stored::Wdl(w) => (w as i32, 0, 0),
            Stored::Clock {
                fresh, counter, n, ..
            } => (
                fresh.at_counter(counter, n).rank(),
                self.category() as i32,
                fresh.rank(),
            ),
        }
    }

    fn rule_fields(self) -> Option<RuleFields> {
        let Stored::Clock {
            fresh, n, plain, ..
        } = self
        else {
            return None;
        };
        let fresh_category = Stored::Clock {
            fresh,
            counter: 0,
            n,
            plain,
        }
        .category();
        Some(RuleFields {
            mill_plies: self.mill_plies(),
            fresh: Fresh {
                wdl: clock_wdl(fresh),
                category: fresh_category,
                mill_plies: fresh.plies(),
                holds_to_counter: fresh.survives_to(n),
            },
        })
    }
}

fn clock_wdl(value: ClockValue) -> Wdl {
    match value {
        ClockValue::Win(_) => Wdl::Win,
        ClockValue::Draw => Wdl::Draw,
        ClockValue::Loss(_) => Wdl::Loss,
    }
}

/// Why a value has no plies to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoPlies {
    /// A draw does not end.
    Draw,
    /// The folder holds win, draw or loss only.
    WinDrawLoss,
    /// The folder is under the move-count rule: its distances count the
    /// plies to the next mill.
    MoveCountRule,
}

impl NoPlies {
    pub fn as_str(self) -> &'static str {
        match self {
            NoPlies::Draw => "draw: perfect play never ends the game",
            NoPlies::WinDrawLoss => "win/draw/loss-only folder: it stores no plies",
            NoPlies::MoveCountRule => "move-count rule: values give the plies to the next mill",
        }
    }
}

impl Serialize for NoPlies {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One value in the fields of an answer: the same for a position and for
/// each of its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Verdict {
    /// The value as stored, for ordering and for callers in Rust.
    #[serde(skip)]
    pub stored: Stored,
    /// Win, draw or loss (at the counter, under the rule).
    pub wdl: Wdl,
    pub category: Category,
    /// Plies to the end under perfect play; `None` for a draw, a
    /// win/draw/loss-only folder, or under the rule.
    pub plies: Option<u16>,
    /// Under the rule: the plies to the next mill and the value with a
    /// fresh counter.
    #[serde(flatten)]
    pub rule: Option<RuleFields>,
}

impl Verdict {
    pub fn of(stored: Stored) -> Verdict {
        Verdict {
            stored,
            wdl: stored.wdl(),
            category: stored.category(),
            plies: stored.plies(),
            rule: stored.rule_fields(),
        }
    }
}

/// The fields of a value under the move-count rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RuleFields {
    /// Plies to the next mill at the counter (`None`: a draw there).
    pub mill_plies: Option<u8>,
    /// The value with a fresh counter.
    pub fresh: Fresh,
}

/// A value under the rule with a fresh counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Fresh {
    pub wdl: Wdl,
    pub category: Category,
    pub mill_plies: Option<u8>,
    /// The largest counter at which the value holds, if it is decided.
    pub holds_to_counter: Option<u8>,
}

/// One legal move and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveAnswer {
    #[serde(skip)]
    pub play: Move,
    /// The move in the notation of `docs/RULES.md`.
    #[serde(rename = "move")]
    pub notation: String,
    #[serde(skip)]
    pub position: Position,
    /// The position after the move.
    #[serde(rename = "position")]
    pub position_notation: String,
    /// It closes a mill (under the rule the counter starts afresh).
    pub mill: bool,
    /// The move's value for the side that plays it.
    #[serde(flatten)]
    pub value: Verdict,
    /// The opponent's legal replies after the move (0 when the move ends
    /// the game); `None` when not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replies: Option<u16>,
    /// How many of those replies are errors, worse for the opponent than
    /// its best reply ([`crate::db::is_error`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<u16>,
}

/// A position's value and its moves, best first ([`MoveAnswer::order_key`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    #[serde(skip)]
    pub position: Position,
    /// How the answer names the position: its notation, or the text asked
    /// about (a batch echoes its input).
    #[serde(rename = "position")]
    pub notation: String,
    /// The move-count rule's `n`, under the rule.
    #[serde(rename = "n_move", skip_serializing_if = "Option::is_none")]
    pub n: Option<u8>,
    /// Plies since the last mill, under the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter: Option<u8>,
    /// For the side to move.
    #[serde(flatten)]
    pub value: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plies_null_because: Option<NoPlies>,
    /// Every legal move, best first; `None` when not asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<MoveAnswer>>,
    /// The line of perfect play, when asked for and the folder has one.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub line: Option<LineAnswer>,
    /// Why a line asked for is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_null_because: Option<&'static str>,
}

impl Answer {
    pub(crate) fn new(board: &Board, position: Position, value: Stored) -> Answer {
        let (n, counter) = match value {
            Stored::Clock { n, counter, .. } => (Some(n), Some(counter)),
            _ => (None, None),
        };
        Answer {
            position,
            notation: position.notation(board),
            n,
            counter,
            value: Verdict::of(value),
            plies_null_because: value.no_plies(),
            moves: None,
            line: None,
            line_null_because: None,
        }
    }
}

impl MoveAnswer {
    /// The order of moves, larger is better for the mover: the value's
    /// ([`Stored::order_key`]); in a win/draw/loss-only folder, among equal
    /// values, a move that closes a mill first (without plies, the one
    /// sure progress).
    pub fn order_key(&self) -> (i32, i32, i32) {
        match self.value.stored {
            Stored::Wdl(w) => (w as i32, i32::from(self.mill), 0),
            stored => stored.order_key(),
        }
    }

    pub(crate) fn new(
        board: &Board,
        play: Move,
        position: Position,
        mill: bool,
        value: Stored,
    ) -> MoveAnswer {
        MoveAnswer {
            play,
            notation: play.notation(board),
            position,
            position_notation: position.notation(board),
            mill,
            value: Verdict::of(value),
            replies: None,
            errors: None,
        }
    }
}

/// Sorts moves best first, keeping the generator's order among equals.
pub(crate) fn best_first(moves: &mut [MoveAnswer]) {
    moves.sort_by_key(|m| Reverse(m.order_key()));
}

/// How a line of perfect play ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The side to move at the end has lost, or the board is full (Morabaraba).
    GameOver(Outcome),
    /// The last position occurred before: perfect play goes round (a draw).
    Repeats,
    /// The length limit was reached.
    Limit,
    /// The move-count rule drew the game: N plies without a mill.
    MoveCountRule,
}

impl LineEnd {
    /// `game over`, `repeats`, `limit` or `move-count rule`.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnd::GameOver(_) => "game over",
            LineEnd::Repeats => "repeats",
            LineEnd::Limit => "limit",
            LineEnd::MoveCountRule => "move-count rule",
        }
    }
}

impl Serialize for LineEnd {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A line of perfect play: the moves from the position and how it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub moves: Vec<Move>,
    pub end: LineEnd,
}

/// A line in an answer: the moves in notation and how it ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineAnswer {
    #[serde(skip)]
    pub line: Line,
    #[serde(rename = "line")]
    pub moves: Vec<String>,
    #[serde(rename = "line_end")]
    pub end: LineEnd,
}

impl LineAnswer {
    pub(crate) fn new(board: &Board, line: Line) -> LineAnswer {
        LineAnswer {
            moves: line.moves.iter().map(|m| m.notation(board)).collect(),
            end: line.end,
            line,
        }
    }
}

/// Whether `Tablebase::clock_move_value` reads a drawn move's value
/// without the rule.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum WithoutRule {
    Read,
    /// Not needed: an error is told at the counter alone.
    Skipped,
}
