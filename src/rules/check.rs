//! What a position of play is, checked in one place: every public entry of
//! the library that takes a [`Position`] built by a caller (parsing, probing,
//! lines of play) calls [`Variant::check_position`], so overlapping men, a
//! point off the board or impossible counts are an error, never a wrong
//! value or a panic further in.

use super::position::{Color, Position};
use super::variant::Variant;

/// Why a position is not a position of play of a variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("White and Black both have a man on {points}")]
    Overlap { points: String },
    #[error("{color} has a man on point {point}, which the {variant} board does not have")]
    OffBoard {
        color: &'static str,
        point: u32,
        variant: String,
    },
    #[error(
        "{color} has {on_board} men on the board and {in_hand} in hand: more than the {men} men of {variant}"
    )]
    TooManyMen {
        color: &'static str,
        on_board: u32,
        in_hand: u8,
        men: u8,
        variant: String,
    },
    #[error(
        "{color} has {total} men and is not to move: the game ended before this position (the side not to move needs at least 3)"
    )]
    GameOver { color: &'static str, total: u32 },
}

impl Variant {
    /// Checks that `pos` is a position of play of this variant: men only on
    /// the board's points, never two on one point, at most the variant's men
    /// per side (board plus hand), and a side not to move that still has
    /// three men (otherwise the game ended before it).
    ///
    /// # Errors
    /// The first rule the position breaks.
    pub fn check_position(&self, pos: &Position) -> Result<(), PositionError> {
        let all = self.board.all();
        for color in [Color::White, Color::Black] {
            let men = pos.men[color as usize];
            let off = men & !all;
            if !off.is_empty() {
                return Err(PositionError::OffBoard {
                    color: color.name(),
                    point: off.0.trailing_zeros(),
                    variant: self.name.to_string(),
                });
            }
        }
        let both = pos.men[0] & pos.men[1];
        if !both.is_empty() {
            let names: Vec<&str> = both.iter().map(|p| self.board.name(p)).collect();
            return Err(PositionError::Overlap {
                points: names.join(", "),
            });
        }
        for color in [Color::White, Color::Black] {
            if pos.total(color) > self.men as u32 {
                return Err(PositionError::TooManyMen {
                    color: color.name(),
                    on_board: pos.men[color as usize].count(),
                    in_hand: pos.hand[color as usize],
                    men: self.men,
                    variant: self.name.to_string(),
                });
            }
        }
        let waiting = pos.to_move.other();
        if pos.total(waiting) < 3 {
            return Err(PositionError::GameOver {
                color: waiting.name(),
                total: pos.total(waiting),
            });
        }
        Ok(())
    }
}
