//! How much the predictor of `pack --wdl --zstd` (value encoding 8, see
//! `src/db/predictor.rs`) shrinks a sector's loss bits: each position's
//! cell of four features (the mover's mobility, capped at 10, and whether
//! it can close a mill; the same for the other side) predicts "lost" where
//! most of that cell's sampled positions are lost, and the bits stored are
//! lost XOR predicted. Prints the zstd
//! size of both over the same blocks (every `EVERY`-th block of 131,072
//! positions, as `pack --wdl --zstd` blocks them). A measurement for the README's
//! packing section, not part of the format:
//!
//!     cargo bench --bench loss_bit_predictor -- ../dbs/standard 8-9 40

use morris::db::Value;
use morris::db::internals::predictor::{CELLS, Model, cell};
use morris::rules::Variant;
use rayon::prelude::*;

#[path = "sampled_sector.rs"]
mod sampled_sector;
use sampled_sector::SampledSector;

/// Positions per block of the loss-bits coding.
const PER_BLOCK: u64 = 131_072;
/// zstd's level when packing.
const LEVEL: i32 = 12;
/// zstd's size of `bits` packed eight to a byte, low bit first.
fn packed_size(bits: &[bool]) -> usize {
    let mut bytes = vec![0u8; bits.len().div_ceil(8)];
    for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
        bytes[i / 8] |= 1 << (i % 8);
    }
    zstd::bulk::compress(&bytes, LEVEL).expect("zstd").len()
}

fn main() {
    let variant = Variant::standard();
    let sampled = SampledSector::from_args("loss_bit_predictor");
    let (key, file, index) = (sampled.key, &sampled.file, &sampled.index);
    // Per sampled block: each position's lost bit and cell.
    let blocks: Vec<(Vec<bool>, Vec<u16>)> = sampled
        .blocks(PER_BLOCK)
        .into_par_iter()
        .map(|range| {
            range
                .map(|i| {
                    let lost = matches!(file.value(i).expect("a value"), Value::Loss(_));
                    let pos = index.position(i, key.us_hand, key.them_hand);
                    (lost, cell(variant, &pos) as u16)
                })
                .unzip()
        })
        .collect();
    let mut counts = Box::new([[0u64; 2]; CELLS]);
    for (lost, cells) in &blocks {
        for (&l, &c) in lost.iter().zip(cells) {
            counts[c as usize][l as usize] += 1;
        }
    }
    let model = Model::from_counts(&counts);
    let (mut positions, mut lost_count, mut wrong, mut plain, mut residual) = (0, 0, 0, 0, 0);
    for (lost, cells) in &blocks {
        let errors: Vec<bool> = lost
            .iter()
            .zip(cells)
            .map(|(&l, &c)| l ^ model.guesses_lost(c as usize))
            .collect();
        positions += lost.len();
        lost_count += lost.iter().filter(|l| **l).count();
        wrong += errors.iter().filter(|e| **e).count();
        plain += packed_size(lost);
        residual += packed_size(&errors);
    }
    let share = |n: usize| n as f64 / positions as f64;
    println!(
        "{key}: {} blocks, {positions} positions, lost {:.3}, predictor wrong {:.3}; \
         loss bits {plain} bytes ({:.3} bits), predicted {residual} bytes ({:.3} bits), ratio {:.3}",
        blocks.len(),
        share(lost_count),
        share(wrong),
        8.0 * share(plain),
        8.0 * share(residual),
        residual as f64 / plain as f64,
    );
}
