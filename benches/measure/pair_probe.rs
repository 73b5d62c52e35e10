//! A pair grammar with Huffman codes in 64-byte chunks (`PairCode`, after
//! Syzygy's tables, as `pack` writes it) on whole sectors of a raw
//! folder, in memory: bits per position and the time to read one value at
//! random, for the full values (the value bytes) and for the two-bit
//! win/draw/loss codes.
//! Compare with what `pack --plain --block-bytes 512` and `pack --plain
//! --wdl --block-bytes 512` write for the same sectors. A measurement for
//! docs/PERFORMANCE.md, not part of the format:
//!
//!     cargo bench --bench pair_probe -- ../dbs/standard 6-6 7-7

use std::path::Path;
use std::time::Instant;

use morris::db::internals::{MAX_BLOCK_LEN, PairCode};
use morris::db::{SectorFile, Value, Wdl, file_name};
use morris::index::SectorKey;

const PROBES: u64 = 2_000_000;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(&args[1]);
    let max_symbols: usize = std::env::var("SYMBOLS").map_or(4096, |s| s.parse().unwrap());
    let block_len: usize = std::env::var("BLOCK").map_or(MAX_BLOCK_LEN, |s| s.parse().unwrap());
    for sector in &args[2..] {
        let key: SectorKey = sector.parse().unwrap();
        let file = SectorFile::open(&dir.join(file_name(key)), false).unwrap();
        let bytes = file.bytes().unwrap();
        let value =
            |i: usize| Value::from_byte(bytes[i]).unwrap_or_else(|| file.value(i as u64).unwrap());
        let wdl: Vec<u8> = (0..bytes.len()).map(|i| Wdl::of(value(i)).code()).collect();
        for (what, values) in [("full", bytes), ("wdl", &wdl[..])] {
            {
                let started = Instant::now();
                let code = PairCode::new(values, block_len, max_symbols);
                let built = started.elapsed().as_secs_f64();
                let positions = values.len() as u64;
                // Random positions by a fixed LCG; every read checked.
                let mut state = 0x9e37_79b9_7f4a_7c15u64;
                let mut next = || {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (state >> 11) % positions
                };
                let wanted: Vec<u64> = (0..PROBES).map(|_| next()).collect();
                let started = Instant::now();
                let mut wrong = 0u64;
                for &p in &wanted {
                    wrong += (code.get(p as usize) != values[p as usize]) as u64;
                }
                let per = started.elapsed().as_secs_f64() / PROBES as f64;
                assert_eq!(wrong, 0, "{sector} {what}: wrong values");
                println!(
                    "{sector} {what}: {:.4} bits/position ({} bytes, {} symbols), {:.0} ns a read, built in {:.1} s",
                    code.stored_bytes() as f64 * 8.0 / positions as f64,
                    code.stored_bytes(),
                    code.grammar().symbols(),
                    per * 1e9,
                    built
                );
            }
        }
    }
}
