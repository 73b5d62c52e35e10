//! The disk a whole-game `solve --all --pack` needs, worked out without
//! solving: the solve's units in its order, each followed by what `--pack`
//! does after a unit (pack every raw sector no unsolved unit reads, copy its
//! stored index, remove the raw file), with the sizes of the files of a raw
//! folder and of its packed copy. Prints the largest total of both folders
//! once a unit's files are written, before its packing (the disk's peak,
//! what `solve --pack` reports), and after its packing (what it reported
//! until 2026-12-05), when each is reached, and what the raw folder alone
//! holds then.
//!
//!     cargo bench --bench pack_along_disk -- ../dbs/standard ../dbs/standard-losses
//!
//! `EACH=1` prints the total after every unit too (to hold against a real
//! run's folders).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use morris::db::{file_name, index_file_name};
use morris::index::{SectorGraph, SectorKey};
use morris::rules::Variant;

fn size(path: &Path) -> u64 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let each = std::env::var_os("EACH").is_some();
    let [_, raw_dir, packed_dir] = &args[..] else {
        eprintln!("usage: pack_along_disk RAW PACKED (a solved standard folder and its `pack`)");
        std::process::exit(2);
    };
    let (raw_dir, packed_dir) = (Path::new(raw_dir), Path::new(packed_dir));
    let variant = Variant::standard();
    let graph = SectorGraph::reachable(variant);
    let all: Vec<SectorKey> = graph.sectors().collect();
    let units = graph.units_for(&all);
    let mut readers: HashMap<SectorKey, Vec<SectorKey>> = HashMap::new();
    for s in graph.sectors() {
        for &child in graph.successors(s) {
            readers.entry(child).or_default().push(s);
        }
    }
    let index_of = |s: SectorKey| index_file_name(s.us_board, s.them_board);
    let (mut done, mut raw, mut packed) = (HashSet::new(), HashSet::new(), HashSet::new());
    let (mut raw_indices, mut packed_indices) = (HashSet::new(), HashSet::new());
    let (mut raw_bytes, mut packed_bytes) = (0u64, 0u64);
    // (bytes, after unit n, raw bytes then)
    let (mut peak, mut peak_before_packing) = ((0u64, 0usize, 0u64), (0u64, 0usize, 0u64));
    for (n, unit) in units.iter().enumerate() {
        for &s in unit {
            done.insert(s);
            raw.insert(s);
            raw_bytes += size(&raw_dir.join(file_name(s)));
            if raw_indices.insert(index_of(s)) {
                raw_bytes += size(&raw_dir.join(index_of(s)));
            }
        }
        if raw_bytes + packed_bytes > peak_before_packing.0 {
            peak_before_packing = (raw_bytes + packed_bytes, n + 1, raw_bytes);
        }
        let finished: Vec<SectorKey> = raw
            .iter()
            .copied()
            .filter(|s| {
                readers
                    .get(s)
                    .is_none_or(|r| r.iter().all(|reader| done.contains(reader)))
            })
            .collect();
        for s in finished {
            raw.remove(&s);
            raw_bytes -= size(&raw_dir.join(file_name(s)));
            packed.insert(s);
            packed_bytes += size(&packed_dir.join(file_name(s)));
            if packed_indices.insert(index_of(s)) {
                packed_bytes += size(&packed_dir.join(index_of(s)));
            }
        }
        if each {
            println!("{} {} {}", n + 1, raw_bytes + packed_bytes, raw_bytes);
        }
        if raw_bytes + packed_bytes > peak.0 {
            peak = (raw_bytes + packed_bytes, n + 1, raw_bytes);
        }
    }
    println!(
        "{} units; the two folders hold at most {:.3} GB together before a unit's packing, unit {} ({:.3} GB raw then); {:.3} GB after it, unit {} ({:.3} GB raw then); at the end {:.3} GB packed, {:.3} GB raw (stored indices)",
        units.len(),
        peak_before_packing.0 as f64 / 1e9,
        peak_before_packing.1,
        peak_before_packing.2 as f64 / 1e9,
        peak.0 as f64 / 1e9,
        peak.1,
        peak.2 as f64 / 1e9,
        packed_bytes as f64 / 1e9,
        raw_bytes as f64 / 1e9
    );
}
