use morris::Variant;
use morris::index::{SectorGraph, SectorIndex, SectorKey, binomial};

fn v(name: &str) -> &'static Variant {
    Variant::by_name(name).unwrap()
}

/// Classes of (us, them) placements under the whole group, by Burnside's
/// lemma: the average number of placements each symmetry fixes.
fn burnside(variant: &Variant, a: usize, b: usize) -> u64 {
    let board = variant.board;
    let syms = board.symmetries();
    let mut total = 0u64;
    for s in syms {
        // cycles of s
        let mut seen = vec![false; board.len()];
        let mut cycles = Vec::new();
        for p in 0..board.len() {
            if seen[p] {
                continue;
            }
            let mut len = 0;
            let mut q = p;
            while !seen[q] {
                seen[q] = true;
                len += 1;
                q = s.point(q as u8) as usize;
            }
            cycles.push(len);
        }
        // ways[i][j]: cycles coloured us with i points, them with j points
        let mut ways = vec![vec![0u64; b + 1]; a + 1];
        ways[0][0] = 1;
        for &len in &cycles {
            let mut next = ways.clone();
            for i in 0..=a {
                for j in 0..=b {
                    if i >= len {
                        next[i][j] += ways[i - len][j];
                    }
                    if j >= len {
                        next[i][j] += ways[i][j - len];
                    }
                }
            }
            ways = next;
        }
        total += ways[a][b];
    }
    total / syms.len() as u64
}

#[test]
fn standard_sector_graph_matches_the_published_counts() {
    let graph = SectorGraph::reachable(Variant::standard());
    assert_eq!(graph.len(), 498);
    assert_eq!(graph.sectors().filter(|s| s.is_movement()).count(), 49);
    // Movement units: 8-7 with 7-8, and each a-a alone.
    let units = graph.units();
    assert!(units.contains(&vec![SectorKey::movement(7, 8), SectorKey::movement(8, 7)]));
    assert!(units.contains(&vec![SectorKey::movement(3, 3)]));
    // Each unit comes after every unit it depends on.
    let position = |s: SectorKey| units.iter().position(|u| u.contains(&s)).unwrap();
    for s in graph.sectors() {
        for &t in graph.successors(s) {
            assert!(position(t) <= position(s), "{t} must come before {s}");
        }
    }
}

#[test]
fn sector_keys_print_and_parse() {
    for text in ["8-7", "4+5-3+4", "0+9-0+9", "3+0-3+1"] {
        let key: SectorKey = text.parse().unwrap();
        assert_eq!(key.to_string(), text);
    }
    assert_eq!(
        "3+0-3+0".parse::<SectorKey>().unwrap(),
        SectorKey::movement(3, 3)
    );
    assert!("8".parse::<SectorKey>().is_err());
    assert!("a-b".parse::<SectorKey>().is_err());
}

#[test]
fn index_sizes_match_burnside_and_the_published_totals() {
    let standard = Variant::standard();
    assert_eq!(SectorIndex::of(standard.board, 3, 3).size(), 169_626);
    let movement: u64 = (3..=9)
        .flat_map(|a| (3..=9).map(move |b| (a, b)))
        .map(|(a, b)| SectorIndex::count(standard.board, a, b))
        .sum();
    assert_eq!(movement, 8_904_593_601);
    for name in ["standard", "six", "morabaraba"] {
        let variant = v(name);
        for (a, b) in [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 3),
            (4, 3),
            (5, 2),
            (6, 6),
            (8, 7),
        ] {
            if a + b > variant.board.len() {
                continue;
            }
            assert_eq!(
                SectorIndex::count(variant.board, a, b),
                burnside(variant, a, b),
                "{name} {a}-{b}"
            );
        }
    }
}

/// Round trip for every index, and every symmetric image of every canonical
/// position indexes to the same value.
fn check_exhaustively(variant: &'static Variant, a: usize, b: usize) {
    let index = SectorIndex::of(variant.board, a, b);
    assert_eq!(index.size(), SectorIndex::count(variant.board, a, b));
    let mut seen = 0u64;
    index.for_each_in(0..index.size(), |i, us, them| {
        assert_eq!((us, them), index.men(i), "{a}-{b} sequential decode at {i}");
        assert_eq!(index.index(us, them), i, "{a}-{b} round trip at {i}");
        for s in variant.board.symmetries() {
            assert_eq!(
                index.index(s.apply(us), s.apply(them)),
                i,
                "{a}-{b} image at {i}"
            );
        }
        seen += 1;
    });
    assert_eq!(seen, index.size());
}

#[test]
fn the_index_is_exact_on_every_small_sector() {
    for name in ["standard", "six"] {
        let variant = v(name);
        let n = variant.board.len();
        for a in 0..=variant.men as usize {
            for b in 0..=variant.men as usize {
                if a + b <= n && binomial(n, a) * binomial(n - a, b) <= 1_000_000 {
                    check_exhaustively(variant, a, b);
                }
            }
        }
    }
}

#[test]
fn the_index_is_exact_on_random_positions_of_the_largest_sectors() {
    let variant = Variant::standard();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (a, b) in [(8, 8), (9, 8), (9, 9), (7, 6)] {
        let index = SectorIndex::of(variant.board, a, b);
        for _ in 0..20_000 {
            let i = next() % index.size();
            let (us, them) = index.men(i);
            assert_eq!(index.index(us, them), i);
            let s = &variant.board.symmetries()[(next() % 16) as usize];
            assert_eq!(index.index(s.apply(us), s.apply(them)), i);
        }
    }
}

/// A stored index answers as the built one: every position of the small
/// sectors of six and standard, in every symmetric image, and random ones of
/// large sectors.
#[test]
fn stored_indices_equal_built_ones() {
    use morris::db::{StoredIndex, write_stored_index};
    for (name, pairs) in [
        ("six", vec![(3, 3), (4, 5), (6, 6), (2, 5)]),
        ("standard", vec![(3, 3), (3, 5), (4, 4), (8, 8), (9, 3)]),
    ] {
        let variant = Variant::by_name(name).unwrap();
        let symmetries = variant.board.symmetries();
        let dir = tempfile::tempdir().unwrap();
        for (us, them) in pairs {
            let built = SectorIndex::of(variant.board, us, them);
            write_stored_index(dir.path(), variant, &built).unwrap();
            let stored = StoredIndex::open(dir.path(), variant, us as u8, them as u8, false)
                .unwrap()
                .unwrap();
            assert_eq!(stored.size(), built.size());
            let step = (built.size() / 200_000).max(1);
            for i in (0..built.size()).step_by(step as usize) {
                let (a, b) = built.men(i);
                for s in symmetries {
                    assert_eq!(
                        stored.index(s.apply(a), s.apply(b)).unwrap(),
                        i,
                        "{name} {us}-{them}"
                    );
                }
            }
        }
    }
}
