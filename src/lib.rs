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

pub mod db;
pub mod index;
pub mod probe;
pub mod rules;
pub mod solve;
pub mod verify;

pub use rules::{Bitboard, Board, Color, Move, Outcome, Point, Position, RemovalRule, Variant};

#[doc(hidden)]
pub mod cli;
