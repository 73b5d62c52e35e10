//! # morris
//!
//! Strong solutions of Nine Men's Morris and its variants by retrograde
//! analysis: the game's rules, a symmetry-reduced index of every position,
//! a parallel solver writing memory-mapped databases, and a probing API.
//!
//! ```
//! use morris::{Position, Variant};
//!
//! let standard = Variant::standard();
//! let start = Position::start(standard);
//! assert_eq!(standard.moves(&start).len(), 24);
//! assert_eq!(standard.parse_position(".../.../.../....../.../.../... w 9 9").unwrap(), start);
//! ```
//!
//! Solve a small game into a folder, then ask the folder about a position:
//! its value and every move, best first, whatever kind of folder it is
//! (raw, packed, win/draw/loss only, under the move-count rule).
//!
//! ```
//! use morris::{Category, Position, Selection, SolveOptions, Tablebase, Variant};
//!
//! let dir = std::env::temp_dir().join(format!("morris-doc-{}", std::process::id()));
//! let six = Variant::by_name("six").unwrap();
//! let options = SolveOptions::new(dir.clone(), six, Selection::All);
//! morris::solve(&options, &|_| {})?; // about a second
//!
//! let tablebase = Tablebase::open_folder(&dir)?;
//! let answer = tablebase.answer(&Position::start(six), 0)?;
//! assert_eq!(answer.value.category, Category::Draw);
//! let moves = answer.moves.as_ref().unwrap();
//! assert_eq!(moves.len(), 16); // a man placed on any point
//! println!("{}", serde_json::to_string(&answer)?); // what `morris probe --json` prints
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The layers, each using only those above it: [`rules`] (the game),
//! [`index`] (sectors and the index of a position in its sector), [`db`]
//! (files, folders, [`Tablebase`] and its answers), [`solve`](mod@solve) (building
//! folders), [`verify`] (checking them). The `morris` binary is a thin
//! command line over these.

pub mod db;
pub mod index;
pub mod players;
pub mod rules;
pub mod solve;
pub mod system;
pub mod verify;

pub use db::{
    Answer, Category, ErrorKind, FileError, FolderValues, Line, LineEnd, MoveAnswer, ProbeError,
    Ranking, Stored, Tablebase, Value, Verdict, Wdl,
};
pub use index::{SectorGraph, SectorKey};
pub use rules::{
    Bitboard, Board, Color, Move, Outcome, Point, Position, PositionError, RemovalRule, RuleError,
    Variant,
};
pub use solve::{Selection, SolveError, SolveOptions, solve};
