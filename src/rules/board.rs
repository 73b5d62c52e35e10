//! Board geometry as data: points, their names, links and mills.
//!
//! Everything else (adjacency masks, mills through each point, ranks for the
//! notation, the symmetry group) is derived here from the lines of the board,
//! so a new board is a list of point names, mills and extra links.

use super::bitboard::{Bitboard, Point};
use super::symmetry::Symmetry;

/// The geometry of a board.
#[derive(Debug)]
pub struct Board {
    names: Vec<String>,
    /// Point indices of each rank, top rank first, left to right.
    ranks: Vec<Vec<Point>>,
    links: Vec<Bitboard>,
    mills: Vec<Bitboard>,
    /// Per point its mills, padded with a mask no set of men fills: what
    /// [`Board::closes_mill`] tests without a loop.
    mills_through: [[Bitboard; MAX_MILLS_AT]; 32],
    symmetries: Vec<Symmetry>,
}

/// The most mills through one point on any board.
const MAX_MILLS_AT: usize = 3;

impl Board {
    /// Builds a board from its mills (each listed in line order, so that
    /// neighbours in the list are linked) and links that lie on no mill.
    ///
    /// Point names are a file letter and a rank digit (`a7`); the notation order
    /// is rank by rank from the highest, left to right.
    ///
    /// # Panics
    /// If a mill or link names a point that the mills do not define twice, or
    /// if the board has more than 32 points: boards are built-in data.
    pub fn new(mills: &[[&str; 3]], extra_links: &[[&str; 2]]) -> Board {
        let mut names: Vec<String> = mills
            .iter()
            .flatten()
            .chain(extra_links.iter().flatten())
            .map(|s| s.to_string())
            .collect();
        names.sort_by_key(|name| {
            let bytes = name.as_bytes();
            (std::cmp::Reverse(bytes[1]), bytes[0])
        });
        names.dedup();
        assert!(names.len() <= 32, "a board has at most 32 points");
        let point = |name: &str| -> Point {
            names.iter().position(|n| n == name).expect("known point") as Point
        };

        let mut ranks: Vec<Vec<Point>> = Vec::new();
        let mut last_rank = 0u8;
        for (i, name) in names.iter().enumerate() {
            let rank = name.as_bytes()[1];
            if ranks.is_empty() || rank != last_rank {
                ranks.push(Vec::new());
                last_rank = rank;
            }
            ranks.last_mut().unwrap().push(i as Point);
        }

        let mut links = vec![Bitboard::EMPTY; names.len()];
        let mut link = |a: Point, b: Point| {
            links[a as usize] = links[a as usize].with(b);
            links[b as usize] = links[b as usize].with(a);
        };
        let mut mill_masks = Vec::new();
        for mill in mills {
            let p: Vec<Point> = mill.iter().map(|n| point(n)).collect();
            link(p[0], p[1]);
            link(p[1], p[2]);
            mill_masks.push(p.into_iter().collect::<Bitboard>());
        }
        for [a, b] in extra_links {
            link(point(a), point(b));
        }
        let mills_at: Vec<Vec<Bitboard>> = (0..names.len() as Point)
            .map(|p| {
                mill_masks
                    .iter()
                    .copied()
                    .filter(|m| m.contains(p))
                    .collect()
            })
            .collect();
        let mut mills_through = [[Bitboard(u32::MAX); MAX_MILLS_AT]; 32];
        for (p, mills) in mills_at.iter().enumerate() {
            assert!(
                mills.len() <= MAX_MILLS_AT,
                "too many mills through a point"
            );
            mills_through[p][..mills.len()].copy_from_slice(mills);
        }
        let mut board = Board {
            names,
            ranks,
            links,
            mills: mill_masks,
            mills_through,
            symmetries: Vec::new(),
        };
        board.symmetries = derive_symmetries(&board);
        board
    }

    /// Number of points.
    #[inline]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a board has points.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All points of the board.
    #[inline]
    pub fn all(&self) -> Bitboard {
        Bitboard::first(self.len())
    }

    pub fn name(&self, point: Point) -> &str {
        &self.names[point as usize]
    }

    pub fn point(&self, name: &str) -> Option<Point> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|p| p as Point)
    }

    /// Points of each rank, top rank first.
    pub fn ranks(&self) -> &[Vec<Point>] {
        &self.ranks
    }

    /// The points linked to `point`.
    #[inline]
    pub fn links(&self, point: Point) -> Bitboard {
        self.links[point as usize]
    }

    /// The points of `empty` a man on `point` can move to: any of them when
    /// it flies, else those linked to it. (Moves are reversible, so these are
    /// also the points it can have come from.)
    #[inline]
    pub fn moves_from(&self, point: Point, empty: Bitboard, flying: bool) -> Bitboard {
        if flying {
            empty
        } else {
            self.links(point) & empty
        }
    }

    pub fn mills(&self) -> &[Bitboard] {
        &self.mills
    }

    /// The mills that pass through `point`.
    #[inline]
    pub fn mills_at(&self, point: Point) -> &[Bitboard] {
        let row = &self.mills_through[point as usize];
        &row[..row.iter().take_while(|m| m.0 != u32::MAX).count()]
    }

    /// True when `men` fill a mill through `point`.
    #[inline]
    pub fn closes_mill(&self, men: Bitboard, point: Point) -> bool {
        let mills = &self.mills_through[point as usize & 31];
        // A padding mask holds all 32 points, which no side's men do.
        mills
            .iter()
            .fold(false, |closed, &m| closed | m.is_subset(men))
    }

    /// The men of `men` that stand in one of its mills.
    #[inline]
    pub fn in_mills(&self, men: Bitboard) -> Bitboard {
        let mut covered = Bitboard::EMPTY;
        for &mill in &self.mills {
            if mill.is_subset(men) {
                covered |= mill;
            }
        }
        covered
    }

    /// The permutations of points that keep links and mills (the identity first).
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.symmetries
    }

    /// Column of a point's file (`a` = 0) and its rank number (`1` = 1).
    pub fn coordinates(&self, point: Point) -> (usize, usize) {
        let b = self.names[point as usize].as_bytes();
        ((b[0] - b'a') as usize, (b[1] - b'0') as usize)
    }

    /// A text picture of the board, `mark(point)` giving each point's character.
    pub fn draw(&self, mark: impl Fn(Point) -> char) -> String {
        let files = (0..self.len() as Point)
            .map(|p| self.coordinates(p).0)
            .max()
            .unwrap_or(0)
            + 1;
        let top = self.coordinates(self.ranks[0][0]).1;
        let bottom = self.coordinates(self.ranks[self.ranks.len() - 1][0]).1;
        let width = files * 4 - 3;
        let height = (top - bottom) * 2 + 1;
        let mut canvas = vec![vec![' '; width]; height];
        let cell = |p: Point| {
            let (file, rank) = self.coordinates(p);
            ((top - rank) * 2, file * 4)
        };
        for p in 0..self.len() as Point {
            for q in self.links(p).iter().filter(|&q| q > p) {
                let ((r1, c1), (r2, c2)) = (cell(p), cell(q));
                if r1 == r2 {
                    for cell in &mut canvas[r1][c1.min(c2) + 1..c1.max(c2)] {
                        *cell = '-';
                    }
                } else if c1 == c2 {
                    for row in canvas.iter_mut().take(r1.max(r2)).skip(r1.min(r2) + 1) {
                        row[c1] = '|';
                    }
                } else {
                    // A diagonal link: one stroke half way.
                    let (r, c) = ((r1 + r2) / 2, (c1 + c2) / 2);
                    let falling = (r2 > r1) == (c2 > c1);
                    canvas[r][c] = if falling { '\\' } else { '/' };
                }
            }
        }
        for p in 0..self.len() as Point {
            let (r, c) = cell(p);
            canvas[r][c] = mark(p);
        }
        let mut out = String::new();
        for (row, line) in canvas.iter().enumerate() {
            if row % 2 == 0 {
                out.push_str(&format!("{} ", top - row / 2));
            } else {
                out.push_str("  ");
            }
            out.push_str(line.iter().collect::<String>().trim_end());
            out.push('\n');
        }
        out.push_str("  ");
        for f in 0..files {
            out.push((b'a' + f as u8) as char);
            if f + 1 < files {
                out.push_str("   ");
            }
        }
        out.push('\n');
        out
    }
}

/// All automorphisms of the board's link graph that also map mills to mills,
/// the identity first.
fn derive_symmetries(board: &Board) -> Vec<Symmetry> {
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
