//! The rules of the game, exact: boards, variants, positions, moves, unmoves,
//! symmetries and notation. Nothing here knows of sectors or files.

mod bitboard;
mod board;
mod check;
mod moves;
mod notation;
mod position;
mod symmetry;
mod unmoves;
mod variant;

pub use bitboard::{Bitboard, Point, Points};
pub use board::Board;
pub use check::PositionError;
pub use moves::{Move, MoveParseError, Outcome};
pub use notation::PositionParseError;
pub use position::{Color, Position};
pub use symmetry::Symmetry;
pub use variant::{MAX_N_MOVE, RemovalRule, RuleError, Variant};
