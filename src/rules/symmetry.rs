//! The symmetries of a board, found by search rather than typed by hand: every
//! permutation of the points that maps links to links and mills to mills.

use super::bitboard::{Bitboard, Point};
use super::board::Board;

/// One symmetry: a permutation of the points, with byte tables that apply it
/// to a whole [`Bitboard`] in four lookups.
#[derive(Clone)]
pub struct Symmetry {
    image: Vec<Point>,
    byte_images: [[u32; 256]; 4],
}

impl Symmetry {
    fn new(image: Vec<Point>) -> Symmetry {
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

/// All automorphisms of the board's link graph that also map mills to mills,
/// the identity first.
pub(super) fn derive_symmetries(board: &Board) -> Vec<Symmetry> {
    let n = board.len();
    // Visit points so that each one after the first of its component has an
    // already placed neighbour: its image must then be a neighbour's image.
    let mut order: Vec<Point> = Vec::with_capacity(n);
    let mut seen = Bitboard::EMPTY;
    for start in 0..n as Point {
        if seen.contains(start) {
            continue;
        }
        seen = seen.with(start);
        order.push(start);
        let mut i = order.len() - 1;
        while i < order.len() {
            for q in board.links(order[i]).iter() {
                if !seen.contains(q) {
                    seen = seen.with(q);
                    order.push(q);
                }
            }
            i += 1;
        }
    }

    let mut found = Vec::new();
    let mut image = vec![Point::MAX; n];
    search(board, &order, 0, &mut image, Bitboard::EMPTY, &mut found);
    let mut symmetries: Vec<Symmetry> = found.into_iter().map(Symmetry::new).collect();
    symmetries.sort_by_key(|s| !s.is_identity());
    symmetries
}

fn search(
    board: &Board,
    order: &[Point],
    depth: usize,
    image: &mut Vec<Point>,
    used: Bitboard,
    found: &mut Vec<Vec<Point>>,
) {
    if depth == order.len() {
        let keeps_mills = board.mills().iter().all(|&mill| {
            let mapped: Bitboard = mill.iter().map(|p| image[p as usize]).collect();
            board.mills().contains(&mapped)
        });
        if keeps_mills {
            found.push(image.clone());
        }
        return;
    }
    let p = order[depth];
    for q in (board.all() & !used).iter() {
        if board.links(q).count() != board.links(p).count() {
            continue;
        }
        // Links between p and every placed point must match links between images.
        let consistent = order[..depth]
            .iter()
            .all(|&r| board.links(p).contains(r) == board.links(q).contains(image[r as usize]));
        if consistent {
            image[p as usize] = q;
            search(board, order, depth + 1, image, used.with(q), found);
            image[p as usize] = Point::MAX;
        }
    }
}
