//! The symmetries of a board, found by search rather than typed by hand: every
//! permutation of the points that maps links to links and mills to mills.

use super::bitboard::{Bitboard, Point};

/// One symmetry: a permutation of the points, with byte tables that apply it
/// to a whole [`Bitboard`] in four lookups.
#[derive(Clone)]
pub struct Symmetry {
    image: Vec<Point>,
    byte_images: [[u32; 256]; 4],
}

impl Symmetry {
    pub(super) fn new(image: Vec<Point>) -> Symmetry {
        let mut byte_images = [[0u32; 256]; 4];
        for (chunk, table) in byte_images.iter_mut().enumerate() {
            for (byte, slot) in table.iter_mut().enumerate() {
                for bit in 0..8 {
                    let point = chunk * 8 + bit;
                    if byte >> bit & 1 != 0 && point < image.len() {
                        *slot |= 1 << image[point];
                    }
                }
            }
        }
        Symmetry { image, byte_images }
    }

    /// The point that `point` is mapped to.
    #[inline]
    pub fn point(&self, point: Point) -> Point {
        self.image[point as usize]
    }

    /// The image of a set of points.
    #[inline]
    pub fn apply(&self, set: Bitboard) -> Bitboard {
        let b = set.0;
        let t = &self.byte_images;
        Bitboard(
            t[0][(b & 0xff) as usize]
                | t[1][(b >> 8 & 0xff) as usize]
                | t[2][(b >> 16 & 0xff) as usize]
                | t[3][(b >> 24) as usize],
        )
    }

    /// The inverse permutation.
    pub fn inverse(&self) -> Symmetry {
        let mut image = vec![0; self.image.len()];
        for (p, &q) in self.image.iter().enumerate() {
            image[q as usize] = p as Point;
        }
        Symmetry::new(image)
    }

    pub fn is_identity(&self) -> bool {
        self.image.iter().enumerate().all(|(p, &q)| p == q as usize)
    }
}

impl std::fmt::Debug for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Symmetry({:?})", self.image)
    }
}
