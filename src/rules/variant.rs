//! Variants as data: a board plus rule switches. The move generator and the
//! solver read these switches; adding a variant touches only this file.

use std::sync::{LazyLock, Mutex};

use super::board::Board;

/// What a mill lets its maker remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemovalRule {
    /// Any opposing man not in a mill; if every one is in a mill, any of them.
    MillsLast,
    /// Never a man in a mill; if every opposing man is in a mill, nothing.
    MillsNever,
}

/// A rule set: the board, the men per side and the switches that differ
/// between the games docs/RULES.md names.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: &'static str,
    pub description: &'static str,
    pub board: &'static Board,
    /// Men each side starts with in hand.
    pub men: u8,
    /// A side with exactly 3 men in all (board plus hand) may fly when it moves.
    pub flying: bool,
    pub removal: RemovalRule,
    /// A side holding men may also move a man on the board (Lasker).
    pub move_while_holding: bool,
    /// A full board with no men in hand is a draw (Morabaraba).
    pub full_board_draw: bool,
    /// The move-count rule: the game is drawn once this many plies in a row
    /// pass without closing a mill (`None`: no such rule). See
    /// [`Variant::with_n_move`].
    pub n_move: Option<u8>,
}

/// Why a variant cannot take the move-count rule asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error(
        "a move-count rule of {n} plies is out of range: the rule takes 1 to {MAX_N_MOVE} plies"
    )]
    OutOfRange { n: u8 },
    #[error(
        "the move-count rule is not built for {variant} yet: its mills do not always leave \
         the sector (a man placed while moving, or a mill with nothing to remove)"
    )]
    NotBuilt { variant: &'static str },
}

/// The longest move-count rule a database stores: a win or loss with up to
/// this many plies to the next mill fits a byte.
pub const MAX_N_MOVE: u8 = 126;

static STANDARD_BOARD: LazyLock<Board> = LazyLock::new(|| Board::new(&STANDARD_MILLS, &[]));
static MORABARABA_BOARD: LazyLock<Board> = LazyLock::new(|| {
    let mut mills = STANDARD_MILLS.to_vec();
    mills.extend_from_slice(&[
        ["a1", "b2", "c3"],
        ["g1", "f2", "e3"],
        ["a7", "b6", "c5"],
        ["g7", "f6", "e5"],
    ]);
    Board::new(&mills, &[])
});
static SIX_BOARD: LazyLock<Board> = LazyLock::new(|| {
    Board::new(
        &[
            ["a7", "d7", "g7"],
            ["g7", "g4", "g1"],
            ["a1", "d1", "g1"],
            ["a7", "a4", "a1"],
            ["b6", "d6", "f6"],
            ["f6", "f4", "f2"],
            ["b2", "d2", "f2"],
            ["b6", "b4", "b2"],
        ],
        &[["a4", "b4"], ["d7", "d6"], ["f4", "g4"], ["d1", "d2"]],
    )
});

const STANDARD_MILLS: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["b6", "d6", "f6"],
    ["c5", "d5", "e5"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c3", "d3", "e3"],
    ["b2", "d2", "f2"],
    ["a1", "d1", "g1"],
    ["a1", "a4", "a7"],
    ["b2", "b4", "b6"],
    ["c3", "c4", "c5"],
    ["d1", "d2", "d3"],
    ["d5", "d6", "d7"],
    ["e3", "e4", "e5"],
    ["f2", "f4", "f6"],
    ["g1", "g4", "g7"],
];

static VARIANTS: LazyLock<Vec<Variant>> = LazyLock::new(|| {
    let standard = Variant {
        name: "standard",
        description: "Nine Men's Morris: 9 men, flying at 3, mills removed last",
        board: &STANDARD_BOARD,
        men: 9,
        flying: true,
        removal: RemovalRule::MillsLast,
        move_while_holding: false,
        full_board_draw: false,
        n_move: None,
    };
    vec![
        Variant {
            name: "strict-mills",
            description: "standard, but a man in a mill is never removed",
            removal: RemovalRule::MillsNever,
            ..standard
        },
        Variant {
            name: "no-flying",
            description: "standard without flying",
            flying: false,
            ..standard
        },
        Variant {
            name: "lasker",
            description: "10 men; a side holding men may place or move",
            men: 10,
            move_while_holding: true,
            ..standard
        },
        Variant {
            name: "morabaraba",
            description: "12 men, diagonal mills, a full board is a draw",
            board: &MORABARABA_BOARD,
            men: 12,
            full_board_draw: true,
            ..standard
        },
        Variant {
            name: "six",
            description: "Six Men's Morris: 16 points, 6 men, no flying",
            board: &SIX_BOARD,
            men: 6,
            flying: false,
            ..standard
        },
        standard,
    ]
});

impl Variant {
    /// All built-in variants, `standard` first.
    pub fn all() -> impl Iterator<Item = &'static Variant> {
        let all = &*VARIANTS;
        all.iter()
            .rev()
            .take(1)
            .chain(all.iter().take(all.len() - 1))
    }

    /// A built-in variant by name.
    pub fn by_name(name: &str) -> Option<&'static Variant> {
        Variant::all().find(|v| v.name == name)
    }

    pub fn standard() -> &'static Variant {
        Variant::by_name("standard").expect("built in")
    }

    /// This variant under the move-count rule: drawn once `n` plies in a row
    /// pass without a mill (100 for "50 moves each"). The rule's values are
    /// solved only where every move that closes a mill leaves its unit
    /// (not Lasker's placing while moving, nor strict mills' closing
    /// without removal).
    ///
    /// # Errors
    /// `n` out of 1..=`MAX_N_MOVE`, or a variant the rule is not built for.
    pub fn with_n_move(&'static self, n: u8) -> Result<&'static Variant, RuleError> {
        static MADE: Mutex<Vec<&'static Variant>> = Mutex::new(Vec::new());
        if !(1..=MAX_N_MOVE).contains(&n) {
            return Err(RuleError::OutOfRange { n });
        }
        if self.move_while_holding || self.removal == RemovalRule::MillsNever {
            return Err(RuleError::NotBuilt { variant: self.name });
        }
        let base = Variant::by_name(self.name).expect("built in");
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = made
            .iter()
            .find(|v| v.name == self.name && v.n_move == Some(n))
        {
            return Ok(v);
        }
        // A handful per process at most: leaked so that it lives as long
        // as the built-in ones.
        let variant: &'static Variant = Box::leak(Box::new(Variant {
            n_move: Some(n),
            ..base.clone()
        }));
        made.push(variant);
        Ok(variant)
    }

    /// The variant's name with its move-count rule, as the messages give it:
    /// `six`, `six under the 20-ply move-count rule`.
    pub fn label(&self) -> String {
        match self.n_move {
            Some(n) => format!("{} under the {n}-ply move-count rule", self.name),
            None => self.name.to_string(),
        }
    }

    /// A 64-bit fingerprint of everything that decides a position's value:
    /// the board's points, links and mills and every rule switch. Database files
    /// record it, so a file is never read under other rules.
    pub fn fingerprint(&self) -> u64 {
        let board = self.board;
        let mut text = format!(
            "men={} flying={} removal={:?} hold={} full={};",
            self.men, self.flying, self.removal, self.move_while_holding, self.full_board_draw
        );
        for p in 0..board.len() as u8 {
            text.push_str(&format!("{}:{:x}:", board.name(p), board.links(p).0));
        }
        for mill in board.mills() {
            text.push_str(&format!("m{:x}", mill.0));
        }
        // Absent without the rule, so the files from before it keep theirs.
        if let Some(n) = self.n_move {
            text.push_str(&format!(";n-move={n}"));
        }
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    }
}
