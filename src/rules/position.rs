//! A position: the men of each side on the board, the men each holds in hand,
//! and the side to move.

use super::bitboard::Bitboard;
use super::variant::Variant;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Position {
    /// Men on the board, indexed by [`Color`].
    pub men: [Bitboard; 2],
    /// Men in hand, indexed by [`Color`].
    pub hand: [u8; 2],
    pub to_move: Color,
}

impl Position {
    /// The empty board, both sides holding all their men, White to move.
    pub fn start(variant: &Variant) -> Position {
        Position {
            men: [Bitboard::EMPTY; 2],
            hand: [variant.men; 2],
            to_move: Color::White,
        }
    }

    /// A position from the side to move's men and the other side's, White to move.
    pub fn from_sides(us: Bitboard, us_hand: u8, them: Bitboard, them_hand: u8) -> Position {
        Position {
            men: [us, them],
            hand: [us_hand, them_hand],
            to_move: Color::White,
        }
    }

    #[inline]
    pub fn us(&self) -> Bitboard {
        self.men[self.to_move as usize]
    }

    #[inline]
    pub fn them(&self) -> Bitboard {
        self.men[self.to_move.other() as usize]
    }

    #[inline]
    pub fn us_hand(&self) -> u8 {
        self.hand[self.to_move as usize]
    }

    #[inline]
    pub fn them_hand(&self) -> u8 {
        self.hand[self.to_move.other() as usize]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.men[0] | self.men[1]
    }

    /// Men on board plus in hand.
    #[inline]
    pub fn total(&self, color: Color) -> u32 {
        self.men[color as usize].count() + self.hand[color as usize] as u32
    }

    /// The same position with colours swapped (values are unchanged by this).
    pub fn swap_colors(&self) -> Position {
        Position {
            men: [self.men[1], self.men[0]],
            hand: [self.hand[1], self.hand[0]],
            to_move: self.to_move.other(),
        }
    }

    /// The same position seen with White to move: colours swapped if Black is.
    pub fn white_to_move(&self) -> Position {
        match self.to_move {
            Color::White => *self,
            Color::Black => self.swap_colors(),
        }
    }
}
