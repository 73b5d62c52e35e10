//! The symmetry-reduced index: a bijection between the positions of a sector
//! up to the board's symmetries and `0..size`.
//!
//! The side to move's men pick a symmetry class of point sets (`us` classes,
//! ranked through a table over every subset of the board) and a symmetry that
//! maps them onto the class's representative. The other side's men, mapped by
//! that symmetry, are ranked combinatorially among the remaining points. When
//! the representative is itself symmetric, the other side's men are reduced
//! further under its stabiliser, through a sorted table of their canonical
//! ranks, so every class of positions gets exactly one index and none is wasted.

use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use super::built_once::BuiltOnce;
use super::sector::SectorKey;

use rayon::prelude::*;

use super::combinatorics::{
    binomial, colex_rank, colex_unrank, combination_rank, compress, compress_unrank, expand,
    next_combination, select_bit,
};
use crate::rules::{Bitboard, Board, Point, Position, Symmetry};

/// The symmetry classes of point sets of one board: for every subset of the
/// board, its class (ranked among the classes of its size) and a symmetry that
/// maps it onto the class representative. Each size is built on first use, so
/// a probe pays only for the sizes it meets.
pub struct SetClasses {
    symmetries: Vec<Symmetry>,
    points: usize,
    sizes: Vec<OnceLock<SizeClasses>>,
}

/// The classes of the sets of one size.
pub struct SizeClasses {
    /// `class << 4 | symmetry` for every set of this size, by its combination
    /// rank: a few MiB at most, where one table over all subsets would be 64.
    class_of: Vec<u32>,
    /// Representatives (the least image) of the classes, ascending.
    representatives: Vec<Bitboard>,
    /// For each class, the symmetries that fix the representative (bit mask).
    stabilizers: Vec<u16>,
}

impl SetClasses {
    fn new(board: &Board) -> SetClasses {
        let symmetries = board.symmetries().to_vec();
        assert!(
            symmetries.len() <= 16,
            "the class table holds 4 bits of symmetry"
        );
        SetClasses {
            symmetries,
            points: board.len(),
            sizes: (0..=board.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The classes of sets of `size` points.
    pub fn size(&self, size: usize) -> &SizeClasses {
        self.sizes[size].get_or_init(|| self.build(size))
    }

    fn build(&self, size: usize) -> SizeClasses {
        let symmetries = &self.symmetries;
        let canonical = |set: u32| -> (u32, u32) {
            let mut best = (set, 0);
            for (i, s) in symmetries.iter().enumerate().skip(1) {
                let image = s.apply(Bitboard(set)).0;
                if image < best.0 {
                    best = (image, i as u32);
                }
            }
            best
        };
        // The sets in colex order, which is ascending: position = combination rank.
        let count = binomial(self.points, size);
        let mut sets = Vec::with_capacity(count as usize);
        let mut m = compress_unrank(0, size);
        for _ in 0..count {
            sets.push(m);
            m = next_combination(m);
        }
        let canonicals: Vec<(u32, u32)> = sets.par_iter().map(|&m| canonical(m)).collect();
        let representatives: Vec<Bitboard> = sets
            .iter()
            .zip(&canonicals)
            .filter(|(m, (rep, _))| *m == rep)
            .map(|(&m, _)| Bitboard(m))
            .collect();
        let class_of = canonicals
            .par_iter()
            .map(|&(rep, sym)| {
                let class = representatives
                    .binary_search(&Bitboard(rep))
                    .expect("every set has a representative");
                (class as u32) << 4 | sym
            })
            .collect();
        let stabilizers = representatives
            .iter()
            .map(|&r| {
                symmetries
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.apply(r) == r)
                    .fold(0u16, |mask, (i, _)| mask | 1 << i)
            })
            .collect();
        SizeClasses {
            class_of,
            representatives,
            stabilizers,
        }
    }

    /// The classes of point sets of `board`, one instance per board.
    pub fn of(board: &'static Board) -> &'static SetClasses {
        static CACHE: Mutex<Vec<(usize, &'static SetClasses)>> = Mutex::new(Vec::new());
        let key = board as *const Board as usize;
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, classes)) = cache.iter().find(|(k, _)| *k == key) {
            return classes;
        }
        let classes: &'static SetClasses = Box::leak(Box::new(SetClasses::new(board)));
        cache.push((key, classes));
        classes
    }

    /// Number of classes of sets of `size` points.
    pub fn count(&self, size: usize) -> usize {
        self.size(size).representatives.len()
    }
}

/// Indices built so far, by board (its address) and counts.
static CACHE: LazyLock<BuiltOnce<(usize, usize, usize), SectorIndex>> =
    LazyLock::new(BuiltOnce::default);

/// The index of one board-count pair: the side to move has `us` men on the
/// board and the other side `them`. Men in hand do not change the index, so
/// every sector with these board counts shares it.
pub struct SectorIndex {
    classes: &'static SetClasses,
    /// The classes of the side to move's men.
    sets: &'static SizeClasses,
    board_mask: Bitboard,
    us: usize,
    them: usize,
    /// First index of each `us` class, and the total size last.
    offsets: Vec<u64>,
    /// For each run of `guide_step` indices, the class of its first: finds an
    /// index's class in a step or two instead of a binary search.
    guide: Vec<u32>,
    guide_step: u64,
    /// For `us` classes with a symmetric representative: the canonical colex
    /// ranks of the other side's men.
    symmetric: Vec<Option<CanonicalRanks>>,
}

/// The side to move's men looked up once (see [`SectorIndex::us_class`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct UsClass {
    pub(crate) us: Bitboard,
    class: u32,
    symmetry: u8,
    free: Bitboard,
    offset: u64,
    stabilizer: u16,
}

/// The points whose men bucket the class representatives: the board's
/// first ten (see [`RepresentativeClasses`]).
const BUCKET_MASK: u32 = (1 << 10) - 1;

/// The [`UsClass`] of every class representative of a sector's side to
/// move, bucketed by its men on the board's first points, so that the
/// classes whose men miss a set of the other side's are found without
/// looking at every class. A group of the other side's men (the placement
/// pass and the forward check visit positions so) meets a few per cent of
/// the classes: 9-9 has about 83,000 of them and 1,307,504 groups. With a
/// look at every class for each group, 9-9's forward check took 143 s;
/// bucketed, 85 s.
pub(crate) struct RepresentativeClasses {
    /// By bucket (the men on the first points), in class order within one.
    classes: Vec<UsClass>,
    /// Where each bucket starts in `classes`, then the end.
    starts: Vec<u32>,
}

impl RepresentativeClasses {
    /// Calls `f` with every class whose men miss `them`, bucket by bucket.
    #[inline]
    pub(crate) fn for_each_disjoint(&self, them: Bitboard, mut f: impl FnMut(&UsClass)) {
        let free = !them.0 & BUCKET_MASK;
        // Every bucket whose men miss `them`'s: the subsets of `free`.
        let mut bucket = free;
        loop {
            let (start, end) = (
                self.starts[bucket as usize],
                self.starts[bucket as usize + 1],
            );
            for class in &self.classes[start as usize..end as usize] {
                if (class.us & them).is_empty() {
                    f(class);
                }
            }
            if bucket == 0 {
                break;
            }
            bucket = (bucket - 1) & free;
        }
    }
}

/// A [`UsClass`] with the compressed image of every point (see [`SectorIndex::us_block`]).
#[derive(Clone, Debug)]
pub(crate) struct UsBlock {
    pub(crate) class: UsClass,
    lanes: [u32; 32],
}

/// The canonical ranks of one symmetric class, as a bitmap with counts
/// before each word: rank to position in one lookup, position to rank by a
/// binary search over the words (a sorted list as well took most of the
/// index's memory).
struct CanonicalRanks {
    blocks: Box<[RankBlock]>,
    len: u64,
}

#[derive(Clone, Copy, Default)]
struct RankBlock {
    bits: u64,
    before: u64,
}

impl CanonicalRanks {
    fn new(ascending: &[u32], plain: u64) -> CanonicalRanks {
        let mut blocks = vec![RankBlock::default(); plain.div_ceil(64) as usize];
        for &r in ascending {
            blocks[r as usize / 64].bits |= 1 << (r % 64);
        }
        let mut before = 0;
        for b in &mut blocks {
            b.before = before;
            before += b.bits.count_ones() as u64;
        }
        CanonicalRanks {
            blocks: blocks.into_boxed_slice(),
            len: ascending.len() as u64,
        }
    }

    /// The canonical rank at `position` (below `len`).
    #[inline]
    fn rank_at(&self, position: u64) -> u64 {
        let word = self.blocks.partition_point(|b| b.before <= position) - 1;
        let block = self.blocks[word];
        word as u64 * 64 + select_bit(block.bits, (position - block.before) as u32) as u64
    }

    /// The canonical ranks from `position` on, ascending.
    fn ranks_from(&self, position: u64) -> impl Iterator<Item = u64> + '_ {
        let first = self.blocks.partition_point(|b| b.before <= position).max(1) - 1;
        let skip = position - self.blocks.get(first).map_or(0, |b| b.before);
        self.blocks[first.min(self.blocks.len())..]
            .iter()
            .enumerate()
            .flat_map(move |(w, b)| {
                let base = (first + w) as u64 * 64;
                Bitboard64(b.bits).map(move |bit| base + bit as u64)
            })
            .skip(skip as usize)
    }

    /// The position of a canonical rank among the canonical ranks.
    #[inline]
    fn position(&self, rank: u64) -> u64 {
        let block = self.blocks[(rank / 64) as usize];
        debug_assert!(block.bits >> (rank % 64) & 1 == 1, "rank is canonical");
        block.before + (block.bits & ((1u64 << (rank % 64)) - 1)).count_ones() as u64
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// The set bits of a word, lowest first.
struct Bitboard64(u64);

impl Iterator for Bitboard64 {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

impl SectorIndex {
    /// The index of positions with `us` and `them` men on `board`, built once
    /// per board and counts.
    pub fn of(board: &'static Board, us: usize, them: usize) -> Arc<SectorIndex> {
        let key = (board as *const Board as usize, us, them);
        CACHE.get_or_build(key, || SectorIndex::new(board, us, them))
    }

    /// [`SectorIndex::of`] the men on the board of `sector` (those in hand
    /// do not change the index).
    pub fn of_sector(board: &'static Board, sector: SectorKey) -> Arc<SectorIndex> {
        Self::of(board, sector.us_board as usize, sector.them_board as usize)
    }

    /// How many times the cached index of these counts was built since the
    /// cache last let it go: what shows the cache at work (once, whoever
    /// asks). For the tests (the `internals` feature).
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn builds_so_far(board: &'static Board, us: usize, them: usize) -> usize {
        CACHE.builds(&(board as *const Board as usize, us, them))
    }

    /// Drops the cached indices (those still in use live on): a long solve
    /// calls it between units so its memory follows the unit in progress.
    pub fn release_cached() {
        CACHE.clear();
    }

    fn new(board: &'static Board, us: usize, them: usize) -> SectorIndex {
        assert!(us + them <= board.len(), "more men than points");
        let classes = SetClasses::of(board);
        let board_mask = board.all();
        let free_count = board.len() - us;
        let plain = binomial(free_count, them);
        let sets = classes.size(us);
        let reps = &sets.representatives;
        let stabs = &sets.stabilizers;
        let symmetric: Vec<Option<CanonicalRanks>> = (0..reps.len())
            .into_par_iter()
            .map(|c| {
                if stabs[c] == 1 {
                    return None;
                }
                let free = board_mask & !reps[c];
                let mut ranks = Vec::new();
                let mut compressed = compress_unrank(0, them);
                for rank in 0..plain {
                    let set = expand(compressed, free);
                    // Subsets of `free` of one size compare in colex order as
                    // their bit patterns compare: no rank is needed.
                    if stabilizer_images(classes, stabs[c], set).all(|image| image.0 >= set.0) {
                        ranks.push(rank as u32);
                    }
                    compressed = next_combination(compressed);
                }
                Some(CanonicalRanks::new(&ranks, plain))
            })
            .collect();
        let mut offsets = Vec::with_capacity(reps.len() + 1);
        let mut total = 0u64;
        for table in &symmetric {
            offsets.push(total);
            total += table.as_ref().map_or(plain, CanonicalRanks::len);
        }
        offsets.push(total);
        let guide_step = (total / reps.len().max(1) as u64).max(1);
        let mut guide = Vec::with_capacity((total / guide_step + 1) as usize);
        let mut class = 0;
        for start in (0..total).step_by(guide_step as usize) {
            while offsets[class + 1] <= start {
                class += 1;
            }
            guide.push(class as u32);
        }
        SectorIndex {
            classes,
            sets,
            board_mask,
            us,
            them,
            offsets,
            guide,
            guide_step,
            symmetric,
        }
    }

    /// The positions of `sector` (its index's size) without building it.
    pub fn count_of(board: &'static Board, sector: SectorKey) -> u64 {
        Self::count(board, sector.us_board as usize, sector.them_board as usize)
    }

    /// The size of the index of `us` and `them` men without building it:
    /// symmetric classes are counted by Burnside's lemma over their stabiliser.
    pub fn count(board: &'static Board, us: usize, them: usize) -> u64 {
        if us + them > board.len() {
            return 0;
        }
        let classes = SetClasses::of(board);
        let free_count = board.len() - us;
        let plain = binomial(free_count, them);
        let sets = classes.size(us);
        sets.representatives
            .iter()
            .zip(&sets.stabilizers)
            .map(|(&rep, &stab)| {
                if stab == 1 {
                    return plain;
                }
                let free = board.all() & !rep;
                let fixed: u64 = Bitboard(stab as u32)
                    .iter()
                    .map(|i| fixed_subsets(&classes.symmetries[i as usize], free, them))
                    .sum();
                fixed / stab.count_ones() as u64
            })
            .sum()
    }

    /// Men on the board: the side to move's, the other side's.
    pub fn counts(&self) -> (usize, usize) {
        (self.us, self.them)
    }

    /// Number of indices: exactly the number of positions up to symmetry.
    pub fn size(&self) -> u64 {
        *self.offsets.last().unwrap()
    }

    /// Number of positions without symmetry reduction.
    pub fn raw_positions(&self) -> u64 {
        let n = self.board_mask.count() as usize;
        binomial(n, self.us) * binomial(n - self.us, self.them)
    }

    /// The index of the position where the side to move has `us` and the
    /// other side `them`: the same for every symmetric image.
    ///
    /// # Panics
    /// In debug builds, when the counts do not match this index.
    #[inline]
    pub fn index(&self, us: Bitboard, them: Bitboard) -> u64 {
        self.index_in(&self.us_class(us), them)
    }

    /// What the index of positions with the side to move's men `us` needs of
    /// them, for [`SectorIndex::index_in`]: children that share `us` share it.
    #[inline]
    pub(crate) fn us_class(&self, us: Bitboard) -> UsClass {
        debug_assert_eq!(us.count() as usize, self.us);
        let entry = self.sets.class_of[combination_rank(us) as usize];
        let class = entry >> 4;
        let rep = self.sets.representatives[class as usize];
        UsClass {
            us,
            class,
            symmetry: (entry & 15) as u8,
            free: self.board_mask & !rep,
            offset: self.offsets[class as usize],
            stabilizer: self.sets.stabilizers[class as usize],
        }
    }

    /// [`SectorIndex::us_class`] prepared for many `them` sets that each add
    /// one point to a shared set (the children of placements): see
    /// [`SectorIndex::block_base`] and [`SectorIndex::index_in_block`].
    pub(crate) fn us_block(&self, us: Bitboard) -> UsBlock {
        let class = self.us_class(us);
        let symmetry = &self.classes.symmetries[class.symmetry as usize];
        let mut lanes = [0u32; 32];
        for p in self.board_mask & !us {
            lanes[p as usize] = compress(symmetry.apply(Bitboard::from_point(p)).0, class.free.0);
        }
        UsBlock { class, lanes }
    }

    /// The part of the shared set `them` that [`SectorIndex::index_in_block`] needs.
    #[inline]
    pub(crate) fn block_base(&self, block: &UsBlock, them: Bitboard) -> u32 {
        let symmetry = &self.classes.symmetries[block.class.symmetry as usize];
        compress(symmetry.apply(them).0, block.class.free.0)
    }

    /// The index of the position with the block's `us` and `them`, which is
    /// the shared set whose `base` is given plus `point`.
    #[inline]
    pub(crate) fn index_in_block(
        &self,
        block: &UsBlock,
        base: u32,
        them: Bitboard,
        point: Point,
    ) -> u64 {
        debug_assert!(them.contains(point));
        if block.class.stabilizer != 1 {
            return self.index_in(&block.class, them);
        }
        block.class.offset + combination_rank(Bitboard(base | block.lanes[point as usize]))
    }

    /// [`SectorIndex::index_in_block`] for any move of the shared set's
    /// side: `them` is the shared set whose `base` is given with `from` (if
    /// any) left and `to` added (a slide, a flight or a placement).
    #[inline]
    pub(crate) fn index_in_block_after(
        &self,
        block: &UsBlock,
        base: u32,
        them: Bitboard,
        from: Option<Point>,
        to: Point,
    ) -> u64 {
        debug_assert!(them.contains(to));
        if block.class.stabilizer != 1 {
            return self.index_in(&block.class, them);
        }
        let left = from.map_or(base, |f| base & !block.lanes[f as usize]);
        block.class.offset + combination_rank(Bitboard(left | block.lanes[to as usize]))
    }

    /// The indices of the positions whose side to move has the men of `class`.
    pub(crate) fn class_range(&self, class: &UsClass) -> std::ops::Range<u64> {
        self.offsets[class.class as usize]..self.offsets[class.class as usize + 1]
    }

    /// Whether a symmetry other than the identity maps the men `us` (of this
    /// index's side to move) onto themselves: otherwise positions sharing
    /// `us` with different `them` have different indices.
    #[inline]
    pub(crate) fn us_is_symmetric(&self, us: Bitboard) -> bool {
        let entry = self.sets.class_of[combination_rank(us) as usize];
        self.sets.stabilizers[(entry >> 4) as usize] != 1
    }

    /// The [`UsClass`] of every class representative: the side to move's
    /// men as the index stores them (no symmetry to apply).
    pub(crate) fn representative_classes(&self) -> RepresentativeClasses {
        let reps = &self.sets.representatives;
        let mut classes: Vec<UsClass> = (0..reps.len())
            .map(|c| UsClass {
                us: reps[c],
                class: c as u32,
                // The identity is the first symmetry (see `Board::symmetries`).
                symmetry: 0,
                free: self.board_mask & !reps[c],
                offset: self.offsets[c],
                stabilizer: self.sets.stabilizers[c],
            })
            .collect();
        // Stable: class order within a bucket.
        classes.sort_by_key(|c| c.us.0 & BUCKET_MASK);
        let mut starts = vec![0u32; BUCKET_MASK as usize + 2];
        for c in &classes {
            starts[(c.us.0 & BUCKET_MASK) as usize + 1] += 1;
        }
        for b in 0..=BUCKET_MASK as usize {
            starts[b + 1] += starts[b];
        }
        RepresentativeClasses { classes, starts }
    }

    /// Whether `them` is the image the index stores among those the
    /// symmetries fixing a representative's men give (always, when none but
    /// the identity does). `class` comes from [`SectorIndex::representative_classes`].
    #[inline]
    pub(crate) fn is_stored_image(&self, class: &UsClass, them: Bitboard) -> bool {
        debug_assert_eq!(class.symmetry, 0);
        class.stabilizer == 1
            || stabilizer_images(self.classes, class.stabilizer, them)
                .all(|image| image.0 >= them.0)
    }

    /// The other side's men as the index stores the position with the men
    /// of `class` and `them`: two positions sharing `class` are the same
    /// position when their stored men are the same, found without the rank
    /// [`SectorIndex::index_in`] looks up for a symmetric class.
    #[inline]
    pub(crate) fn stored_them(&self, class: &UsClass, them: Bitboard) -> Bitboard {
        debug_assert_eq!(them.count() as usize, self.them);
        debug_assert!((class.us & them).is_empty());
        let them = self.classes.symmetries[class.symmetry as usize].apply(them);
        if class.stabilizer == 1 {
            return them;
        }
        // The least image in colex order is the least bit pattern.
        stabilizer_images(self.classes, class.stabilizer, them)
            .min_by_key(|image| image.0)
            .expect("the identity fixes everything")
    }

    /// The index of the position with the men of `class` and `them`.
    #[inline]
    pub(crate) fn index_in(&self, class: &UsClass, them: Bitboard) -> u64 {
        let rank = colex_rank(self.stored_them(class, them), class.free);
        if class.stabilizer == 1 {
            return class.offset + rank;
        }
        let table = self.symmetric[class.class as usize]
            .as_ref()
            .expect("symmetric class");
        class.offset + table.position(rank)
    }

    /// The index of a position (whose side to move has this index's counts).
    #[inline]
    pub fn index_of(&self, pos: &Position) -> u64 {
        self.index(pos.us(), pos.them())
    }

    /// Every class's representative (the least image of the side to move's
    /// men), ascending: what a stored index searches.
    pub(crate) fn representatives(&self) -> &[Bitboard] {
        &self.sets.representatives
    }

    /// Per class: its first index, and for a symmetric class the canonical
    /// ranks of the other side's men as `(bits, canonical ranks before)` per
    /// 64 ranks.
    pub(crate) fn class_tables(&self) -> impl Iterator<Item = (u64, Option<Vec<(u64, u64)>>)> + '_ {
        self.offsets
            .iter()
            .zip(&self.symmetric)
            .map(|(&offset, table)| {
                let blocks = table
                    .as_ref()
                    .map(|t| t.blocks.iter().map(|b| (b.bits, b.before)).collect());
                (offset, blocks)
            })
    }

    /// The `us` class holding `index` (which is below the size).
    #[inline]
    fn class_at(&self, index: u64) -> usize {
        let mut class = self.guide[(index / self.guide_step) as usize] as usize;
        while self.offsets[class + 1] <= index {
            class += 1;
        }
        class
    }

    /// The canonical men `(us, them)` at `index`.
    ///
    /// # Panics
    /// When `index >= self.size()`.
    pub fn men(&self, index: u64) -> (Bitboard, Bitboard) {
        assert!(
            index < self.size(),
            "index {index} out of range {}",
            self.size()
        );
        let class = self.class_at(index);
        let local = index - self.offsets[class];
        let rep = self.sets.representatives[class];
        let rank = match &self.symmetric[class] {
            None => local,
            Some(table) => table.rank_at(local),
        };
        (rep, colex_unrank(rank, self.them, self.board_mask & !rep))
    }

    /// The canonical position at `index` with these men in hand, White to move.
    pub fn position(&self, index: u64, us_hand: u8, them_hand: u8) -> Position {
        let (us, them) = self.men(index);
        Position::from_sides(us, us_hand, them, them_hand)
    }

    /// Number of `us` classes.
    pub fn us_classes(&self) -> usize {
        self.classes.count(self.us)
    }

    /// Calls `f(index, us, them)` for the indices `range` in order, cheaper than
    /// [`SectorIndex::men`] for each.
    pub fn for_each_in(
        &self,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Bitboard, Bitboard),
    ) {
        if range.is_empty() {
            return;
        }
        let mut class = self.class_at(range.start);
        let mut index = range.start;
        while index < range.end {
            let rep = self.sets.representatives[class];
            let free = self.board_mask & !rep;
            let class_end = self.offsets[class + 1].min(range.end);
            let local = index - self.offsets[class];
            match &self.symmetric[class] {
                Some(table) => {
                    let ranks = table.ranks_from(local);
                    for (i, rank) in (index..class_end).zip(ranks) {
                        f(i, rep, colex_unrank(rank, self.them, free));
                    }
                }
                None => {
                    // Walk the subsets of the free points in colex order, which is
                    // the increasing order of their compressed bit patterns.
                    let mut compressed = compress_unrank(local, self.them);
                    for i in index..class_end {
                        f(i, rep, expand(compressed, free));
                        compressed = next_combination(compressed);
                    }
                }
            }
            index = class_end;
            class += 1;
        }
    }
}

fn stabilizer_images(
    classes: &SetClasses,
    stabilizer: u16,
    set: Bitboard,
) -> impl Iterator<Item = Bitboard> + '_ {
    Bitboard(stabilizer as u32)
        .iter()
        .map(move |i| classes.symmetries[i as usize].apply(set))
}

/// Number of `k`-subsets of `free` that `sym` (which maps `free` onto itself)
/// leaves unchanged: unions of its cycles.
fn fixed_subsets(sym: &Symmetry, free: Bitboard, k: usize) -> u64 {
    let mut ways = vec![0u64; k + 1];
    ways[0] = 1;
    let mut seen = Bitboard::EMPTY;
    for p in free {
        if seen.contains(p) {
            continue;
        }
        let mut len = 0;
        let mut q = p;
        loop {
            seen = seen.with(q);
            len += 1;
            q = sym.point(q);
            if q == p {
                break;
            }
        }
        for j in (len..=k).rev() {
            ways[j] += ways[j - len];
        }
    }
    ways[k]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::for_each_subset;
    use crate::rules::Variant;

    /// The bucketed classes whose men miss a set are exactly those a look
    /// at every class finds, each once, on every board and for sets of the
    /// other side of every size a sector has.
    #[test]
    fn the_buckets_find_every_class_that_misses_a_set() {
        for variant in Variant::all() {
            let board = variant.board;
            for (us, them) in [(3, 3), (4, 6), (6, 5), (2, 9)] {
                if us + them > board.len() {
                    continue;
                }
                let index = SectorIndex::of(board, us, them);
                let classes = index.representative_classes();
                let groups = binomial(board.len(), them);
                let step = (groups / 300).max(1);
                for_each_subset(board.len(), them, 0..groups, |set| {
                    if !combination_rank(set).is_multiple_of(step) {
                        return;
                    }
                    let mut found = Vec::new();
                    classes.for_each_disjoint(set, |c| found.push(c.class));
                    found.sort_unstable();
                    let mut every: Vec<u32> = classes
                        .classes
                        .iter()
                        .filter(|c| (c.us & set).is_empty())
                        .map(|c| c.class)
                        .collect();
                    every.sort_unstable();
                    assert_eq!(found, every, "{} {us}-{them} {set:?}", variant.name);
                });
            }
        }
    }
}
