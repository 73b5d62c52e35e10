//! The solver's inner pieces, one at a time: `cargo bench --bench inner`.
//! The whole solver's throughput is `morris bench`.

use std::sync::Arc;

use divan::{Bencher, black_box};
use morris::index::{SectorIndex, SectorKey};
use morris::{Position, Variant};

fn main() {
    divan::main();
}

/// Every 997th position of a sector, in one of its 16 symmetric images, so the
/// index sees positions as scattered as the solver's children are.
fn samples(index: &SectorIndex, variant: &Variant) -> Vec<Position> {
    let symmetries = variant.board.symmetries();
    (0..index.size())
        .step_by(997)
        .take(20_000)
        .enumerate()
        .map(|(k, i)| {
            let (us, them) = index.men(i);
            let s = &symmetries[k % symmetries.len()];
            Position::from_sides(s.apply(us), 0, s.apply(them), 0)
        })
        .collect()
}

fn sector_index(us: usize, them: usize) -> (Arc<SectorIndex>, Vec<Position>) {
    let variant = Variant::standard();
    let index = SectorIndex::of(variant.board, us, them);
    let samples = samples(&index, variant);
    (index, samples)
}

/// Nanoseconds per index call (the samples' count divides the time).
#[divan::bench(args = [(3, 5), (6, 6), (8, 8)])]
fn index(bencher: Bencher, (us, them): (usize, usize)) {
    let (index, samples) = sector_index(us, them);
    bencher
        .counter(divan::counter::ItemsCount::new(samples.len()))
        .bench(|| {
            samples
                .iter()
                .map(|p| index.index(black_box(p.us()), black_box(p.them())))
                .fold(0u64, u64::wrapping_add)
        });
}

/// The canonical position at an index (the retrograde pass's unrank).
#[divan::bench(args = [(3, 5), (6, 6), (8, 8)])]
fn men(bencher: Bencher, (us, them): (usize, usize)) {
    let (index, _) = sector_index(us, them);
    let indices: Vec<u64> = (0..index.size()).step_by(997).take(20_000).collect();
    bencher
        .counter(divan::counter::ItemsCount::new(indices.len()))
        .bench(|| {
            indices
                .iter()
                .map(|&i| index.men(black_box(i)).1.0 as u64)
                .fold(0u64, u64::wrapping_add)
        });
}

/// Runs `visit` over the samples, counted per position.
fn per_position(bencher: Bencher, samples: &[Position], visit: impl Fn(&Position) -> u64 + Sync) {
    bencher
        .counter(divan::counter::ItemsCount::new(samples.len()))
        .bench(|| {
            samples
                .iter()
                .map(|p| visit(black_box(p)))
                .fold(0u64, u64::wrapping_add)
        });
}

/// Legal moves with their child positions, per position.
#[divan::bench(args = [(3, 5), (6, 6), (8, 8)])]
fn moves(bencher: Bencher, (us, them): (usize, usize)) {
    let variant = Variant::standard();
    let (_, samples) = sector_index(us, them);
    per_position(bencher, &samples, |p| {
        let mut n = 0u64;
        variant.for_each_move(p, |_, c| n += c.us().0 as u64);
        n
    });
}

/// Quiet un-slides (the predecessors inside a unit), per position.
#[divan::bench(args = [(3, 5), (6, 6), (8, 8)])]
fn quiet_unslides(bencher: Bencher, (us, them): (usize, usize)) {
    let variant = Variant::standard();
    let (_, samples) = sector_index(us, them);
    per_position(bencher, &samples, |p| {
        let mut n = 0u64;
        variant.for_each_quiet_unslide(p, |c| n += c.us().0 as u64);
        n
    });
}

/// The sector of a position (looked up for every child).
#[divan::bench]
fn sector_key(bencher: Bencher) {
    let (_, samples) = sector_index(6, 6);
    per_position(bencher, &samples, |p| {
        SectorKey::of(p).men_on_board() as u64
    });
}
