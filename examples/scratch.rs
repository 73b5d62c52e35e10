use morris::index::*;
use morris::*;
fn main() {
    let s = Variant::standard();
    let g = SectorGraph::reachable(s);
    println!(
        "reachable {} movement {}",
        g.len(),
        g.sectors().filter(|k| k.is_movement()).count()
    );
    println!("units {}", g.units().len());
    let t = std::time::Instant::now();
    let i33 = SectorIndex::of(s.board, 3, 3);
    println!("3-3 size {} built {:?}", i33.size(), t.elapsed());
    let mut total = 0u64;
    let t = std::time::Instant::now();
    for a in 3..=9 {
        for b in 3..=9 {
            let ix = SectorIndex::of(s.board, a, b);
            total += ix.size();
            if a == b || a == b + 1 {
                println!(
                    "{a}-{b} {} raw {} ratio {:.4}",
                    ix.size(),
                    ix.raw_positions(),
                    ix.raw_positions() as f64 / 16.0 / ix.size() as f64
                );
            }
        }
    }
    println!("movement total {total} {:?}", t.elapsed());
}
