//! What coding the loss bits of a packed win/draw/loss folder (`pack --wdl --zstd`:
//! the bits as stored, XOR the guesses in predicted files) as runs of equal
//! bits would cost against zstd, on every `EVERY`-th block: a coder that
//! decodes one value from a checkpoint instead of a 16 KiB block. Runs end
//! at each chunk of 2,048, 4,096 or 8,192 positions (where a probe starts
//! decoding); a run's length is one of 72 symbols (1 to 16, then the top
//! three bits, the rest raw), Huffman-coded per file with the run's bit and
//! the length class of the run before it as context (A), or of the two
//! before it (B); each chunk costs its first bit, a 16-bit offset and its
//! padding to a byte. A measurement for the README, not part of the format:
//!
//!     cargo bench --bench runs_probe -- ../dbs/standard-bits 20 8-9 6-6

use std::path::Path;

use morris::db::{SectorFile, sector_files};

const CHUNKS: [usize; 3] = [2048, 4096, 8192];

fn symbol(len: usize) -> (usize, u32) {
    if len <= 16 {
        return (len - 1, 0);
    }
    let k = 63 - (len as u64).leading_zeros() as usize;
    let m = (len >> (k - 2)) & 3;
    (16 + (k - 4) * 4 + m, (k - 2) as u32)
}

fn class(len: usize) -> usize {
    match len {
        0 => 7,
        1 => 0,
        2 => 1,
        3..=4 => 2,
        5..=8 => 3,
        9..=16 => 4,
        17..=64 => 5,
        _ => 6,
    }
}

const SYMBOLS: usize = 16 + 14 * 4;

/// Huffman code lengths' total cost for these counts.
fn huffman_bits(counts: &[u64]) -> f64 {
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>> = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| std::cmp::Reverse(c))
        .collect();
    if heap.len() == 1 {
        return heap.pop().unwrap().0 as f64;
    }
    let mut total = 0u64;
    while heap.len() > 1 {
        let a = heap.pop().unwrap().0;
        let b = heap.pop().unwrap().0;
        total += a + b;
        heap.push(std::cmp::Reverse(a + b));
    }
    total as f64
}

fn entropy(counts: &[u64]) -> f64 {
    let t: u64 = counts.iter().sum();
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64) * (c as f64 / t as f64).log2())
        .sum()
}

struct Stats {
    /// per chunk size: [scheme A contexts 16][symbols], scheme B [128]
    a: Vec<Vec<u64>>,
    b: Vec<Vec<u64>>,
    raw: f64,
    chunks: u64,
    runs: u64,
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(&args[1]);
    let every: usize = args[2].parse().unwrap();
    let only: Vec<String> = args[3..].to_vec();
    let mut totals = vec![(0f64, 0f64, 0f64, 0f64); CHUNKS.len()];
    let mut total_zstd = 0f64;
    let mut total_positions = 0f64;
    for sector in sector_files(dir).unwrap() {
        let name = sector.to_string();
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        let path = dir.join(morris::db::file_name(sector));
        let bytes = std::fs::read(&path).unwrap();
        let file = SectorFile::open(&path, false).unwrap();
        let h = &file.header;
        assert!(
            !h.is_pair_coded(),
            "{name}: pair-coded; this reads zstd blocks (pack --wdl --zstd)"
        );
        let blocks = h.positions().div_ceil(1 << h.block_bits()) as usize;
        let data_len = h.packed_bytes() as usize;
        let data_at = bytes.len() - data_len;
        let off = |i: usize| {
            u64::from_le_bytes(bytes[128 + 8 * i..136 + 8 * i].try_into().unwrap()) as usize
        };
        let per_block = 1usize << h.block_bits();
        let mut zstd_bytes = 0usize;
        let mut positions = 0usize;
        let mut stats: Vec<Stats> = CHUNKS
            .iter()
            .map(|_| Stats {
                a: vec![vec![0; SYMBOLS]; 16],
                b: vec![vec![0; SYMBOLS]; 128],
                raw: 0.0,
                chunks: 0,
                runs: 0,
            })
            .collect();
        for block in (0..blocks).step_by(every.min(blocks.div_ceil(4)).max(1)) {
            let z = &bytes[data_at + off(block)..data_at + off(block + 1)];
            zstd_bytes += z.len();
            let n = per_block.min(h.positions as usize - block * per_block);
            positions += n;
            let dec = zstd::bulk::decompress(z, n.div_ceil(8)).unwrap();
            let bit = |k: usize| (dec[k / 8] >> (k % 8)) & 1;
            for (ci, &chunk) in CHUNKS.iter().enumerate() {
                let s = &mut stats[ci];
                let mut start = 0;
                while start < n {
                    let end = (start + chunk).min(n);
                    s.chunks += 1;
                    let mut k = start;
                    let (mut prev, mut prev2) = (0usize, 0usize);
                    let mut first = true;
                    while k < end {
                        let b = bit(k);
                        let mut len = 1;
                        while k + len < end && bit(k + len) == b {
                            len += 1;
                        }
                        k += len;
                        if k == end {
                            break; // the last run is implied
                        }
                        let (sym, raw) = symbol(len);
                        let kind = b as usize;
                        let pc = if first { 7 } else { class(prev) };
                        let p2 = if first { 7 } else { class(prev2) };
                        s.a[kind * 8 + pc][sym] += 1;
                        s.b[(kind * 8 + pc) * 8 + p2][sym] += 1;
                        s.raw += raw as f64;
                        s.runs += 1;
                        prev2 = prev;
                        prev = len;
                        first = false;
                    }
                    start = end;
                }
            }
        }
        let zbits = zstd_bytes as f64 * 8.0;
        total_zstd += zbits / positions as f64 * h.positions as f64;
        total_positions += h.positions as f64;
        let mut line = format!(
            "{name}\t{}\tzstd {:.4}",
            h.positions,
            zbits / positions as f64
        );
        for (ci, s) in stats.iter().enumerate() {
            // per chunk: first bit 1, padding 4, offset 16 bits.
            let over = s.chunks as f64 * 21.0;
            let ha: f64 = s.a.iter().map(|c| huffman_bits(c)).sum();
            let ea: f64 = s.a.iter().map(|c| entropy(c)).sum();
            let hb: f64 = s.b.iter().map(|c| huffman_bits(c)).sum();
            let a = (ha + s.raw + over) / positions as f64;
            let b = (hb + s.raw + over) / positions as f64;
            let e = (ea + s.raw + over) / positions as f64;
            let scale = h.positions as f64;
            totals[ci].0 += a * scale;
            totals[ci].1 += b * scale;
            totals[ci].2 += e * scale;
            totals[ci].3 += (a.min(zbits / positions as f64)) * scale;
            line += &format!(
                "\t{}: A {a:.4} B {b:.4} (ent {e:.4}; {:.1} runs/chunk)",
                CHUNKS[ci],
                s.runs as f64 / s.chunks as f64
            );
        }
        println!("{line}");
    }
    println!(
        "total: zstd {:.1} MB over {:.3e} positions",
        total_zstd / 8e6,
        total_positions
    );
    for (ci, t) in totals.iter().enumerate() {
        println!(
            "  chunk {}: A {:.1} MB, B {:.1} MB, A-entropy {:.1} MB, min(A, zstd) {:.1} MB",
            CHUNKS[ci],
            t.0 / 8e6,
            t.1 / 8e6,
            t.2 / 8e6,
            t.3 / 8e6
        );
    }
}
