//! The loss predictor of predicted loss-bits files (value encoding 8): a
//! position's cell of four cheap features, and a model that says, per cell,
//! whether most of its positions in the sector are lost. Such a file stores
//! "lost" XOR the model's guess, which zstd packs smaller where the guess is
//! mostly right (measured in the README's packing section).
//!
//! The features are the same for every symmetric image of a position (they
//! depend on links and mills only), so a probe computes them from the
//! position it holds, not from the canonical one the index stores. What
//! `pack` needs besides (`Predicting`) learns a sector's model from a
//! sample of its loss bits and turns them into the stored ones and back.

use rayon::prelude::*;

use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Bitboard, Position, Variant};

/// Mobility above this is counted as this.
const MOBILITY_CAP: u32 = 10;
/// Cells of the model: mobility and "can close a mill" for both sides.
pub const CELLS: usize = ((MOBILITY_CAP as usize + 1) * 2).pow(2);
/// Bytes of a model in a file: one bit per cell, padded to whole words.
pub const MODEL_LEN: usize = CELLS.div_ceil(64) * 8;

/// One side's features: its mobility (capped; the cap when it places or
/// flies) and whether it has a move that closes a mill.
#[inline]
fn side_features(variant: &Variant, men: Bitboard, hand: u8, other: Bitboard) -> (u32, bool) {
    let board = variant.board;
    let empty = board.all() & !(men | other);
    let places = hand > 0;
    let free = places || variant.flies(men.count(), hand);
    let mobility = if free {
        MOBILITY_CAP
    } else {
        men.iter()
            .map(|p| (board.links(p) & empty).count())
            .sum::<u32>()
            .min(MOBILITY_CAP)
    };
    let slides = variant.may_slide(hand);
    let closes = board.mills().iter().any(|&mill| {
        let gap = mill & empty;
        (mill & men).count() == 2
            && gap.count() == 1
            && (free
                || (slides
                    && !(board.links(gap.first_point().expect("one point")) & men & !mill)
                        .is_empty()))
    });
    (mobility, closes)
}

/// The cell of the position with `us` to move: both sides' features.
#[inline]
pub fn cell_of(
    variant: &Variant,
    us: Bitboard,
    us_hand: u8,
    them: Bitboard,
    them_hand: u8,
) -> usize {
    let (us_moves, us_mill) = side_features(variant, us, us_hand, them);
    let (them_moves, them_mill) = side_features(variant, them, them_hand, us);
    let side = |moves: u32, mill: bool| (moves * 2 + mill as u32) as usize;
    side(us_moves, us_mill) * (2 * (MOBILITY_CAP as usize + 1)) + side(them_moves, them_mill)
}

/// [`cell_of`] a position.
#[inline]
pub fn cell(variant: &Variant, pos: &Position) -> usize {
    cell_of(
        variant,
        pos.us(),
        pos.us_hand(),
        pos.them(),
        pos.them_hand(),
    )
}

/// Per cell, whether the model guesses "lost".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Model {
    lost: [u64; MODEL_LEN / 8],
}

impl Model {
    /// The model that guesses "lost" in the cells where more positions were
    /// lost than not (`counts[cell] = [not lost, lost]`).
    pub fn from_counts(counts: &[[u64; 2]; CELLS]) -> Model {
        let mut lost = [0u64; MODEL_LEN / 8];
        for (cell, [not, yes]) in counts.iter().enumerate() {
            if yes > not {
                lost[cell / 64] |= 1 << (cell % 64);
            }
        }
        Model { lost }
    }

    /// Whether the model guesses "lost" in `cell`.
    #[inline]
    pub fn guesses_lost(&self, cell: usize) -> bool {
        self.lost[cell / 64] >> (cell % 64) & 1 == 1
    }

    pub fn to_bytes(self) -> [u8; MODEL_LEN] {
        let mut b = [0u8; MODEL_LEN];
        for (chunk, word) in b.chunks_exact_mut(8).zip(self.lost) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        b
    }

    /// The model of these bytes; `None` when a bit past the last cell is set.
    pub fn from_bytes(bytes: &[u8; MODEL_LEN]) -> Option<Model> {
        let mut lost = [0u64; MODEL_LEN / 8];
        for (word, chunk) in lost.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        let spare = lost[CELLS / 64] >> (CELLS % 64);
        (CELLS.is_multiple_of(64) || spare == 0).then_some(Model { lost })
    }
}

/// What the codes of a predicted loss-bits file need: the sector's index
/// (positions for the features) and the model.
pub(crate) struct Predicting<'a> {
    variant: &'a Variant,
    index: std::sync::Arc<SectorIndex>,
    pub(crate) model: Model,
    us_hand: u8,
    them_hand: u8,
}

impl<'a> Predicting<'a> {
    /// The predicting of `sector` with `model`.
    pub(crate) fn new(variant: &'a Variant, sector: SectorKey, model: Model) -> Predicting<'a> {
        Predicting {
            variant,
            index: SectorIndex::of_sector(variant.board, sector),
            model,
            us_hand: sector.us_hand,
            them_hand: sector.them_hand,
        }
    }

    /// The predicting of `sector` whose model guesses "lost" in the cells
    /// where most positions of `sample` are: blocks of loss bits (one per
    /// byte), each with the index of its first position.
    pub(crate) fn learned(
        variant: &'a Variant,
        sector: SectorKey,
        sample: &[(u64, Vec<u8>)],
    ) -> Predicting<'a> {
        let mut predicting = Predicting::new(
            variant,
            sector,
            Model {
                lost: [0; MODEL_LEN / 8],
            },
        );
        let counts = sample
            .par_iter()
            .map(|(start, codes)| {
                let mut counts = Box::new([[0u64; 2]; CELLS]);
                predicting.for_each_cell(*start, codes.len(), |at, cell| {
                    counts[cell][codes[at] as usize] += 1;
                });
                counts
            })
            .reduce(
                || Box::new([[0u64; 2]; CELLS]),
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b.iter()) {
                        x[0] += y[0];
                        x[1] += y[1];
                    }
                    a
                },
            );
        predicting.model = Model::from_counts(&counts);
        predicting
    }

    /// Turns the loss bits (one per byte) of the positions from `start` on
    /// into the stored bits, or back: each XOR the model's guess.
    pub(crate) fn guess_over(&self, start: u64, codes: &mut [u8]) {
        self.for_each_cell(start, codes.len(), |at, cell| {
            codes[at] ^= self.model.guesses_lost(cell) as u8;
        });
    }

    /// Calls `f(k, cell)` for the `k`-th of the `len` positions from `start` on.
    fn for_each_cell(&self, start: u64, len: usize, mut f: impl FnMut(usize, usize)) {
        let (us_hand, them_hand) = (self.us_hand, self.them_hand);
        self.index
            .for_each_in(start..start + len as u64, |i, us, them| {
                f(
                    (i - start) as usize,
                    cell_of(self.variant, us, us_hand, them, them_hand),
                );
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Bitboard;

    /// The features against the move generator's: a side's mobility is its
    /// legal quiet moves (capped) where it slides, and it can close a mill
    /// exactly when one of its legal moves does.
    #[test]
    fn the_features_follow_the_rules() {
        for variant in Variant::all() {
            let board = variant.board;
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut random = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..3000 {
                let mut us = Bitboard::EMPTY;
                let mut them = Bitboard::EMPTY;
                for p in board.all() {
                    match random() % 3 {
                        0 => us = us.with(p),
                        1 => them = them.with(p),
                        _ => {}
                    }
                }
                let us_hand = if random() % 3 == 0 { 1 } else { 0 };
                let men = |side: Bitboard, hand: u8| side.count() + u32::from(hand);
                if men(us, us_hand) < 3 || men(them, 0) < 3 {
                    continue; // the game is over: no moves to compare with
                }
                let pos = Position::from_sides(us, us_hand, them, 0);
                let (mut quiet, mut mill) = (0, false);
                variant.for_each_move(&pos, |play, child| {
                    let closes = play.remove.is_some() || board.closes_mill(child.them(), play.to);
                    mill |= closes;
                    quiet += u32::from(!closes);
                });
                let (mobility, closes) = side_features(variant, us, us_hand, them);
                assert_eq!(closes, mill, "{} {}", variant.name, pos.notation(board));
                if us_hand == 0 && !variant.flies(us.count(), 0) && !mill {
                    assert_eq!(mobility, quiet.min(MOBILITY_CAP), "{}", pos.notation(board));
                }
            }
        }
    }

    #[test]
    fn a_model_reads_back_from_its_bytes() {
        let mut counts = [[0u64; 2]; CELLS];
        for (i, c) in counts.iter_mut().enumerate() {
            *c = [(i % 7) as u64, (i % 5) as u64];
        }
        let model = Model::from_counts(&counts);
        assert_eq!(Model::from_bytes(&model.to_bytes()), Some(model));
        let mut bytes = model.to_bytes();
        bytes[MODEL_LEN - 1] |= 0x80;
        assert_eq!(Model::from_bytes(&bytes), None);
        assert!((0..CELLS).any(|c| model.guesses_lost(c)));
        assert!((0..CELLS).any(|c| !model.guesses_lost(c)));
    }
}
