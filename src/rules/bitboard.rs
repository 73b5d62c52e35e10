//! A set of board points as a bit mask: bit `i` is point `i` in notation order.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Index of a point on a board, in notation order (rank 7 first, left to right).
pub type Point = u8;

/// A set of points. Boards have at most 32 points, so a `u32` holds any set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Bitboard(pub u32);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set holding `point` alone.
    #[inline]
    pub const fn from_point(point: Point) -> Bitboard {
        Bitboard(1 << point)
    }

    /// The first `n` points.
    #[inline]
    pub const fn first(n: usize) -> Bitboard {
        if n >= 32 {
            Bitboard(u32::MAX)
        } else {
            Bitboard((1u32 << n) - 1)
        }
    }

    #[inline]
    pub const fn contains(self, point: Point) -> bool {
        self.0 >> point & 1 != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when every point of `self` is in `other`.
    #[inline]
    pub const fn is_subset(self, other: Bitboard) -> bool {
        self.0 & !other.0 == 0
    }

    #[inline]
    pub const fn with(self, point: Point) -> Bitboard {
        Bitboard(self.0 | 1 << point)
    }

    #[inline]
    pub const fn without(self, point: Point) -> Bitboard {
        Bitboard(self.0 & !(1 << point))
    }

    /// The lowest point of the set, if any.
    #[inline]
    pub const fn first_point(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as Point)
        }
    }

    /// The points of the set in increasing order.
    #[inline]
    pub fn iter(self) -> Points {
        Points(self.0)
    }
}

/// Iterator over the points of a [`Bitboard`], lowest first.
#[derive(Clone)]
pub struct Points(u32);

impl Iterator for Points {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let point = self.0.trailing_zeros() as Point;
        self.0 &= self.0 - 1;
        Some(point)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Points {}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = Points;
    fn into_iter(self) -> Points {
        self.iter()
    }
}

impl FromIterator<Point> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Bitboard({:#010x}: {:?})",
            self.0,
            self.iter().collect::<Vec<_>>()
        )
    }
}
