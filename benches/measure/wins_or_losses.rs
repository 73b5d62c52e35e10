//! Which side's plies a one-ply-search packing should keep: the losses'
//! (`pack`'s default: a win or a draw is found from its children's
//! losses) or the wins' (a loss or a draw from its children's wins). The
//! choice is the whole game's, as a search reads the other side's plies in
//! the children. Codes whole sectors of a raw folder with the pair grammar
//! `pack` uses, in memory, both ways, and prints the bytes of each. A
//! measurement for docs/PERFORMANCE.md, not part of the format:
//!
//!     cargo bench --bench wins_or_losses -- ../dbs/standard 6-6 7-7 ...

use std::path::Path;

use morris::db::internals::{MAX_BLOCK_LEN, PairCode};
use morris::db::{SectorFile, Value, file_name};
use morris::index::SectorKey;

/// What a position not kept is coded as (the draw byte, as `pack` does).
const NOT_KEPT: u8 = 255;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(&args[1]);
    let (mut positions, mut loss_bytes, mut win_bytes) = (0u64, 0u64, 0u64);
    println!("sector\tpositions\twon\tlost\tlosses bytes\twins bytes\tlosses bits\twins bits");
    for sector in &args[2..] {
        let key: SectorKey = sector.parse().unwrap();
        let file = SectorFile::open(&dir.join(file_name(key)), false).unwrap();
        let bytes = file.bytes().unwrap();
        let value =
            |i: usize| Value::from_byte(bytes[i]).unwrap_or_else(|| file.value(i as u64).unwrap());
        let keep = |wins: bool| -> Vec<u8> {
            (0..bytes.len())
                .map(|i| match value(i) {
                    Value::Win(_) if wins => bytes[i],
                    Value::Loss(_) if !wins => bytes[i],
                    _ => NOT_KEPT,
                })
                .collect()
        };
        let coded = |codes: &[u8]| PairCode::new(codes, MAX_BLOCK_LEN, 4096).stored_bytes() as u64;
        let losses = coded(&keep(false));
        let wins = coded(&keep(true));
        let n = bytes.len() as u64;
        let (won, lost) = (0..bytes.len()).fold((0u64, 0u64), |(w, l), i| match value(i) {
            Value::Win(_) => (w + 1, l),
            Value::Loss(_) => (w, l + 1),
            Value::Draw => (w, l),
        });
        println!(
            "{sector}\t{n}\t{won}\t{lost}\t{losses}\t{wins}\t{:.3}\t{:.3}",
            losses as f64 * 8.0 / n as f64,
            wins as f64 * 8.0 / n as f64
        );
        positions += n;
        loss_bytes += losses;
        win_bytes += wins;
    }
    println!(
        "total\t{positions}\t\t\t{loss_bytes}\t{win_bytes}\t{:.3}\t{:.3}",
        loss_bytes as f64 * 8.0 / positions as f64,
        win_bytes as f64 * 8.0 / positions as f64
    );
}
