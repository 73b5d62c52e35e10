//! What the full values would cost if a win kept, instead of its plies,
//! which of its moves wins fastest (its ordinal among the moves, in one of
//! two orders): a probe of a win would then read one child, not all of
//! them, and add a ply to that child's loss. On every `EVERY`-th block of
//! 16,384 positions of a raw folder's sector: bits per position with zstd
//! over 16 KiB blocks (level 12) and the order-0 entropy, for the plain
//! values, the losses (wins kept as draws, as `pack` writes), and the
//! values with win ordinals; and how many moves a win probe would
//! generate. A measurement for docs/PERFORMANCE.md, not part of the format:
//!
//!     cargo bench --bench win_move -- ../dbs/standard 40 6-6 7-7

use std::path::Path;

use morris::Tablebase;
use morris::db::Value;
use morris::index::{SectorIndex, SectorKey};

const BLOCK: u64 = 16_384;

fn entropy(bytes: &[u8]) -> f64 {
    let mut counts = [0u64; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64) * (c as f64 / n).log2())
        .sum::<f64>()
        / n
}

fn zstd_bits(bytes: &[u8]) -> f64 {
    let packed: usize = bytes
        .chunks(BLOCK as usize)
        .map(|c| zstd::bulk::compress(c, 12).unwrap().len())
        .sum();
    packed as f64 * 8.0 / bytes.len() as f64
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let tb = Tablebase::open_folder(Path::new(&args[1])).unwrap();
    let every: u64 = args[2].parse().unwrap();
    let variant = tb.variant();
    for sector in &args[3..] {
        let key: SectorKey = sector.parse().unwrap();
        let index = SectorIndex::of_sector(variant.board, key);
        let (mut plain, mut losses, mut generated, mut captures_first) =
            (vec![], vec![], vec![], vec![]);
        let (mut wins, mut moves_generated, mut moves_capture_first, mut escapes) =
            (0u64, 0u64, 0u64, 0u64);
        for block in (0..index.size().div_ceil(BLOCK)).step_by(every as usize) {
            for i in block * BLOCK..((block + 1) * BLOCK).min(index.size()) {
                let pos = index.position(i, key.us_hand, key.them_hand);
                let value = tb.value(&pos).unwrap();
                let byte = value.to_byte();
                plain.push(byte);
                let Value::Win(n) = value else {
                    losses.push(byte);
                    generated.push(byte);
                    captures_first.push(byte);
                    continue;
                };
                losses.push(255);
                wins += 1;
                // Each move: whether it wins fastest, whether it captures.
                let mut children = Vec::new();
                let them = pos.them().count();
                variant.for_each_move(&pos, |_, child| {
                    let best = tb.value(&child).unwrap() == Value::Loss(n - 1);
                    // The child's side to move is the one that lost a man.
                    children.push((best, child.us().count() < them));
                });
                let first = children.iter().position(|c| c.0).unwrap();
                let mut order: Vec<usize> = (0..children.len()).collect();
                order.sort_by_key(|&k| !children[k].1);
                let first_capture = order.iter().position(|&k| children[k].0).unwrap();
                moves_generated += first as u64 + 1;
                moves_capture_first += first_capture as u64 + 1;
                let mut code = |k: usize| {
                    if k >= 126 {
                        escapes += 1;
                    }
                    (2 * k.min(126) + 1) as u8
                };
                let (a, b) = (code(first), code(first_capture));
                generated.push(a);
                captures_first.push(b);
            }
        }
        let n = plain.len() as f64;
        println!(
            "{sector}: {} positions sampled, {:.1}% won; a win probe generates {:.1} moves (captures first: {:.1}); {escapes} ordinals over 125",
            plain.len(),
            100.0 * wins as f64 / n,
            moves_generated as f64 / wins.max(1) as f64,
            moves_capture_first as f64 / wins.max(1) as f64,
        );
        for (name, bytes) in [
            ("plain values", &plain),
            ("losses", &losses),
            ("win ordinals", &generated),
            ("win ordinals, captures first", &captures_first),
        ] {
            println!(
                "  {name:30} zstd {:.4} bits/position, order-0 entropy {:.4}",
                zstd_bits(bytes),
                entropy(bytes)
            );
        }
    }
}
