//! Variants as data: a board plus rule switches. The move generator and the
//! solver read these switches; adding a variant touches only this file.

use std::sync::LazyLock;

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
/// between the games RULES.md names.
#[derive(Debug)]
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
}

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
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    }
}
