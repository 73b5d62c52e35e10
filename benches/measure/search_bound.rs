//! What a probe of a loss-bits folder would cost if its codec were free:
//! the same one-ply search (a position not lost is won when some child is
//! lost), every value read from a raw folder instead; beside it the direct
//! read a raw probe makes. 1,000 random positions of every sector,
//! shuffled, as `bench --probe` draws them. A measurement for the README:
//!
//!     cargo bench --bench search_bound -- ../dbs/standard

use std::path::Path;
use std::time::Instant;

use morris::Tablebase;
use morris::db::{Value, sector_files};
use morris::index::SectorIndex;
use morris::rules::Position;
use rayon::prelude::*;

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let tb = Tablebase::open_folder(Path::new(&dir)).unwrap();
    let variant = tb.variant();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut samples = Vec::new();
    for s in sector_files(Path::new(&dir)).unwrap() {
        let index = SectorIndex::of_sector(variant.board, s);
        for _ in 0..1000 {
            samples.push(index.position(random() % index.size(), s.us_hand, s.them_hand));
        }
    }
    for i in (1..samples.len()).rev() {
        samples.swap(i, (random() % (i as u64 + 1)) as usize);
    }
    let direct = |p: &Position| tb.value(p).map_or(0, |v| v.rank() as i64);
    let search = |p: &Position| {
        if matches!(tb.value(p), Ok(Value::Loss(_))) {
            return -1i64;
        }
        let mut won = false;
        variant.for_each_move(p, |_, child| {
            if !won {
                won = matches!(tb.value(&child), Ok(Value::Loss(_)));
            }
        });
        won as i64
    };
    for (name, f) in [
        ("direct", &direct as &(dyn Fn(&Position) -> i64 + Sync)),
        ("search", &search),
    ] {
        let _: i64 = samples.par_iter().map(f).sum();
        let t = Instant::now();
        let one: i64 = samples.iter().map(f).sum();
        let r1 = samples.len() as f64 / t.elapsed().as_secs_f64();
        let t = Instant::now();
        let two: i64 = samples.par_iter().map(f).sum();
        let r2 = samples.len() as f64 / t.elapsed().as_secs_f64();
        println!(
            "{name}: {:.3} M/s one thread, {:.3} M/s two ({one} {two})",
            r1 / 1e6,
            r2 / 1e6
        );
    }
}
