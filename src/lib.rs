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
//! The layers, each using only those above it: [`rules`] (the game),
//! [`index`] (sectors and the index of a position in its sector), [`db`]
//! (files, folders, [`Tablebase`] and its answers), [`solve`] (building
//! folders), [`verify`] (checking them). The `morris` binary is a thin
//! command line over these.

pub mod db;
pub mod index;
pub mod rules;
pub mod solve;
pub mod system;
pub mod verify;

pub use db::{
    Answer, Category, ErrorKind, FileError, FolderValues, Line, LineEnd, MoveAnswer, ProbeError,
    Stored, Tablebase, Value, Verdict, Wdl,
};
pub use index::{SectorGraph, SectorKey};
pub use rules::{
    Bitboard, Board, Color, Move, Outcome, Point, Position, PositionError, RemovalRule, RuleError,
    Variant,
};
pub use solve::{Selection, SolveError, SolveOptions, solve};
