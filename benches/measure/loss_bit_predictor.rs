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

use std::path::Path;

use morris::db::internals::predictor::{CELLS, Model, cell};
use morris::db::{SectorFile, Value, file_name};
use morris::index::{SectorIndex, SectorKey};
use morris::rules::Variant;
use rayon::prelude::*;

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
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let [_, dir, sector, every] = &args[..] else {
        eprintln!("usage: loss_bit_predictor DIR SECTOR EVERY (a raw standard folder)");
        std::process::exit(2);
    };
    let variant = Variant::standard();
    let key: SectorKey = sector.parse().expect("a sector such as 8-9");
    let every: usize = every.parse().expect("a block stride");
    let file = SectorFile::open(&Path::new(dir).join(file_name(key)), false).expect("a raw file");
    let index = SectorIndex::of(
        variant.board,
        key.us_board as usize,
        key.them_board as usize,
    );
    let size = index.size();
    // Per sampled block: each position's lost bit and cell.
    let blocks: Vec<(Vec<bool>, Vec<u16>)> = (0..size.div_ceil(PER_BLOCK))
        .step_by(every)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|block| {
            let range = block * PER_BLOCK..((block + 1) * PER_BLOCK).min(size);
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
