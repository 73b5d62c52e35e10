use std::path::Path;

use morris::Variant;
use morris::db::{Tablebase, Value};
use morris::index::{SectorGraph, SectorIndex, SectorKey};
use morris::solve::{Selection, SolveOptions, solve};
use morris::verify::{Check, verify_sector};

use rayon::prelude::*;

use crate::naive::{
    Naive, NaiveValue, Sector, Solution, best_of, solve_sectors, solve_sectors_with_boundary,
};

fn v(name: &str) -> &'static Variant {
    Variant::by_name(name).unwrap()
}

pub fn solve_into(dir: &Path, variant: &'static Variant, selection: Selection) {
    solve(
        &SolveOptions::new(dir.to_path_buf(), variant, selection),
        &|_| {},
    )
    .unwrap();
}

fn from_naive((kind, plies): (i8, u16)) -> Value {
    match kind {
        1 => Value::Win(plies),
        -1 => Value::Loss(plies),
        _ => Value::Draw,
    }
}

fn to_naive(value: Value) -> NaiveValue {
    match value {
        Value::Win(n) => (1, n),
        Value::Loss(n) => (-1, n),
        Value::Draw => (0, 0),
    }
}

/// Every stored value of the sectors with these board counts equals the
/// naive solver's, depth included.
fn compare_with_oracle(
    variant: &'static Variant,
    sectors: &[(usize, usize)],
    selection: Selection,
) {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, selection);
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let with_hands: Vec<Sector> = sectors.iter().map(|&(a, b)| (a, 0, b, 0)).collect();
    compare_tablebase_with_oracle(&tb, &with_hands);
}

/// Every canonical position of these sectors, and every seventh raw one,
/// probes to the naive solver's value. The sectors must be closed under
/// moves (children outside them terminal).
fn compare_tablebase_with_oracle(tb: &Tablebase, sectors: &[Sector]) {
    let naive = Naive::new(tb.variant());
    compare_tablebase_with(tb, sectors, &naive, &solve_sectors(&naive, sectors));
}

/// Every canonical position of these sectors, and every seventh raw one of
/// the oracle's, probes to the oracle's value.
fn compare_tablebase_with(tb: &Tablebase, sectors: &[Sector], naive: &Naive, oracle: &Solution) {
    let variant = tb.variant();
    for &(a, ha, b, hb) in sectors {
        let index = SectorIndex::of(variant.board, a, b);
        for i in 0..index.size() {
            let pos = index.position(i, ha, hb);
            let expected = from_naive(oracle.get(&naive.state(&pos)));
            assert_eq!(
                tb.value(&pos).unwrap(),
                expected,
                "{} {}",
                variant.name,
                pos.notation(variant.board)
            );
        }
    }
    for (state, value) in oracle.states.iter().zip(&oracle.values).step_by(7) {
        assert_eq!(
            tb.value(&naive.position(state)).unwrap(),
            from_naive(*value)
        );
    }
}

/// The reachable sectors of `variant` where each side has 3 to `men` men on
/// board and in hand together: closed under moves, which never add men.
pub fn sectors_with_men_in_all(variant: &'static Variant, men: usize) -> Vec<Sector> {
    let graph = SectorGraph::reachable(variant);
    let mut out = Vec::new();
    for total_us in 3..=men {
        for total_them in 3..=men {
            for a in 0..=total_us {
                for b in 0..=total_them {
                    let key = SectorKey {
                        us_board: a as u8,
                        us_hand: (total_us - a) as u8,
                        them_board: b as u8,
                        them_hand: (total_them - b) as u8,
                    };
                    if graph.contains(key) {
                        out.push((a, key.us_hand, b, key.them_hand));
                    }
                }
            }
        }
    }
    out
}

fn keys(sectors: &[Sector]) -> Vec<SectorKey> {
    sectors
        .iter()
        .map(|&(a, ha, b, hb)| SectorKey {
            us_board: a as u8,
            us_hand: ha,
            them_board: b as u8,
            them_hand: hb,
        })
        .collect()
}

/// Every sector where each side has at most `men` men in all, solved with
/// their dependencies and compared with the naive solver.
fn compare_small_game(variant: &'static Variant, men: usize) {
    let sectors = sectors_with_men_in_all(variant, men);
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::Sectors(keys(&sectors)));
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    compare_tablebase_with_oracle(&tb, &sectors);
    // The fast check generates moves by its own loop: every variant's rules
    // (placing while moving, flying, removal) must agree with its files.
    for key in keys(&sectors) {
        let checked = verify_sector(&tb, key, Check::All, 3).unwrap();
        assert_eq!(
            checked.total_mismatches,
            0,
            "{key}: {:?}",
            checked.mismatches.first()
        );
    }
}

#[test]
fn standard_3_3_reproduces_gasser() {
    let dir = tempfile::tempdir().unwrap();
    let variant = Variant::standard();
    solve_into(
        dir.path(),
        variant,
        Selection::Sectors(vec![SectorKey::movement(3, 3)]),
    );
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let file = tb.sector(SectorKey::movement(3, 3)).unwrap();
    let (mut wins, mut losses, mut draws, mut longest_loss) = (0, 0, 0, 0);
    for i in 0..file.header.positions() {
        match file.value(i).unwrap() {
            Value::Win(_) => wins += 1,
            Value::Loss(n) => {
                losses += 1;
                longest_loss = longest_loss.max(n);
            }
            Value::Draw => draws += 1,
        }
    }
    assert_eq!((wins, losses, draws), (140_621, 28_736, 269));
    assert_eq!(longest_loss, 26);
    for check in [Check::All, Check::Oracle] {
        let checked = verify_sector(&tb, SectorKey::movement(3, 3), check, 3).unwrap();
        assert_eq!(checked.positions, 169_626);
        assert_eq!(
            checked.total_mismatches,
            0,
            "{:?}",
            checked.mismatches.first()
        );
    }
}

/// 3-3 and every placement sector with three men a side in all: over two
/// minutes, in `scripts/oracle.sh`. The suite checks the same kinds of unit
/// against the naive solver in six (placement in one pass, movement by
/// levels) and Lasker (placement sectors with cycles), and standard's
/// flying 3-3 against Gasser's published counts.
#[test]
#[ignore]
fn standard_with_three_men_a_side_equals_the_naive_solver() {
    compare_small_game(Variant::standard(), 3);
}

/// Six, which does not fly either, is the suite's check of this kind:
/// `scripts/oracle.sh`.
#[test]
#[ignore]
fn no_flying_with_three_men_a_side_equals_the_naive_solver() {
    compare_small_game(v("no-flying"), 3);
}

/// Lasker's sectors with men in hand have cycles (a side holding men may
/// move): the retrograde pass runs on them. Two minutes for the naive
/// solver, most of it on the dense flying 3-3: `scripts/oracle.sh`.
#[test]
#[ignore]
fn lasker_with_three_men_a_side_equals_the_naive_solver() {
    compare_small_game(v("lasker"), 3);
}

/// The same kind of unit at a smaller size for the suite: Lasker's sectors
/// where both sides still hold men (those with cycles) against the naive
/// solver, the values of their children with a side's three men all on
/// board read from the folder, whose every sector passes the fast check.
#[test]
fn lasker_sectors_with_men_in_hand_on_both_sides_equal_the_naive_solver() {
    let variant = v("lasker");
    let all = sectors_with_men_in_all(variant, 3);
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::Sectors(keys(&all)));
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    for key in keys(&all) {
        let checked = verify_sector(&tb, key, Check::All, 3).unwrap();
        assert_eq!(checked.total_mismatches, 0, "{key}");
    }
    let cyclic: Vec<Sector> = all.into_iter().filter(|s| s.1 > 0 && s.3 > 0).collect();
    assert!(cyclic.len() >= 4, "{cyclic:?}");
    let naive = Naive::new(variant);
    let from_folder = |s: &crate::naive::State| to_naive(tb.value(&naive.position(s)).unwrap());
    let oracle = solve_sectors_with_boundary(&naive, &cyclic, Some(&from_folder));
    compare_tablebase_with(&tb, &cyclic, &naive, &oracle);
}

/// Lasker's 3+1-4+1 and the 32 sectors it needs (49 M positions): unlike
/// with three men in all a side, a capture may leave the other side three
/// men, so the initial pass of a unit with men in hand reads the children
/// of placements and slides that close a mill from the sectors one man
/// fewer (`CaptureChildren` in `src/solve/initial.rs`), and slides do not
/// fly. Every value of every sector agrees with its children's (the forward
/// check, a proof with the distances); the naive solver would take too long
/// at this size. Four men in all a side were not enough: the slides'
/// captures read from the placements' sector (a planted fault) changed no
/// value there, and 8,274 here.
#[test]
fn lasker_sectors_up_to_five_men_a_side_pass_the_full_check() {
    let variant = v("lasker");
    let target = SectorKey::new(3, 1, 4, 1);
    let needed = SectorGraph::reachable(variant).needed_by(&[target]);
    let capturing_with_men_in_hand = needed
        .iter()
        .filter(|s| s.us_hand > 0 && s.us_board >= 3 && s.them_board + s.them_hand >= 4)
        .count();
    assert!(capturing_with_men_in_hand >= 4, "{needed:?}");
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::Sectors(vec![target]));
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let mut positions = 0;
    for &key in &needed {
        let checked = verify_sector(&tb, key, Check::All, 3).unwrap();
        assert_eq!(
            checked.total_mismatches, 0,
            "{key}: {:?}",
            checked.mismatches
        );
        positions += checked.positions;
    }
    assert!(positions > 40_000_000, "{positions}");
}

/// About a minute each for the naive solver (flying makes 3-3 dense):
/// `scripts/oracle.sh`.
#[test]
#[ignore]
fn strict_mills_and_morabaraba_with_three_men_a_side_equal_the_naive_solver() {
    compare_small_game(v("strict-mills"), 3);
    compare_small_game(v("morabaraba"), 3);
}

/// The whole game of six from the empty board (131 sectors). Positions
/// with at most four men a side in all equal the naive solver's values.
/// Every other placement value equals the best of its children's stored
/// values under the naive rules; the movement sectors with more men, where
/// those placements end, pass the fast check here and equal the naive
/// solver's in `the_whole_movement_phase_of_six_equals_the_naive_solver`
/// (`scripts/oracle.sh`).
#[test]
fn the_whole_game_of_six_equals_the_naive_solver() {
    let variant = v("six");
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::All);
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let graph = SectorGraph::reachable(variant);
    assert_eq!(graph.len(), 131);
    assert!(graph.sectors().all(|s| tb.has_sector(s)));

    let small = crate::naive::six_small_sectors();
    compare_tablebase_with(&tb, &small.sectors, &small.naive, &small.solution);
    let larger_movement = |s: &SectorKey| s.is_movement() && s.us_board.max(s.them_board) > 4;
    for sector in graph.sectors().filter(larger_movement) {
        let checked = verify_sector(&tb, sector, Check::All, 3).unwrap();
        assert_eq!(checked.total_mismatches, 0, "{sector}");
    }

    let naive = &small.naive;
    let as_naive = to_naive;
    for sector in graph.sectors().filter(|s| !s.is_movement()) {
        let index = SectorIndex::of_sector(variant.board, sector);
        (0..index.size()).into_par_iter().for_each(|i| {
            let pos = index.position(i, sector.us_hand, sector.them_hand);
            let children = naive.children(&naive.state(&pos));
            let expected = best_of(
                children
                    .iter()
                    .map(|c| as_naive(tb.value(&naive.position(c)).unwrap())),
            );
            assert_eq!(
                as_naive(tb.value(&pos).unwrap()),
                expected,
                "{}",
                pos.notation(variant.board)
            );
        });
    }
}

/// Several minutes for the naive solver: `scripts/oracle.sh`.
#[test]
#[ignore]
fn the_whole_movement_phase_of_six_equals_the_naive_solver() {
    let sectors: Vec<(usize, usize)> = (3..=6).flat_map(|a| (3..=6).map(move |b| (a, b))).collect();
    compare_with_oracle(v("six"), &sectors, Selection::MaxMen(12));
}

/// About 24 million raw positions for the naive solver: run it with
/// `cargo test --release -- --ignored` (scripts/oracle.sh).
#[test]
#[ignore]
fn the_3_4_unit_of_standard_variants_equals_the_naive_solver() {
    for name in ["standard", "strict-mills", "no-flying"] {
        compare_with_oracle(v(name), &[(3, 3), (3, 4), (4, 3)], Selection::MaxMen(7));
    }
}

#[test]
fn a_resumed_solve_writes_identical_files() {
    let variant = v("six");
    let whole = tempfile::tempdir().unwrap();
    solve_into(whole.path(), variant, Selection::MaxMen(9));
    // An interrupted solve: some units done, a stale temporary file of the
    // unit in progress, and one file of a two-sector unit missing.
    let resumed = tempfile::tempdir().unwrap();
    solve_into(resumed.path(), variant, Selection::MaxMen(7));
    std::fs::remove_file(resumed.path().join("4-3.mdb")).unwrap();
    std::fs::write(resumed.path().join("5-4.mdb.tmp"), b"half written").unwrap();
    solve_into(resumed.path(), variant, Selection::MaxMen(9));
    for entry in std::fs::read_dir(whole.path()).unwrap() {
        let name = entry.unwrap().file_name();
        let a = std::fs::read(whole.path().join(&name)).unwrap();
        let b = std::fs::read(resumed.path().join(&name)).unwrap();
        assert!(a == b, "{name:?} differs");
    }
}

#[test]
fn a_folder_of_another_variant_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), v("six"), Selection::MaxMen(6));
    let err = solve(
        &SolveOptions::new(
            dir.path().to_path_buf(),
            Variant::standard(),
            Selection::MaxMen(6),
        ),
        &|_| {},
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("holds a database of six"), "{err}");
}

#[test]
fn distances_too_long_for_a_byte_are_read_from_the_overflow_table() {
    let dir = tempfile::tempdir().unwrap();
    let header = morris::db::internals::header(Variant::standard(), SectorKey::movement(3, 3), 4);
    let body = [1u8, 254, 255, 254];
    let path = morris::db::internals::write_sector(
        dir.path(),
        header,
        |sink| sink(&body),
        &[(1, 301), (3, 300)],
    )
    .unwrap();
    let file = morris::db::SectorFile::open(&path, false).unwrap();
    file.verify_checksum().unwrap();
    let values: Vec<Value> = (0..4).map(|i| file.value(i).unwrap()).collect();
    assert_eq!(
        values,
        [
            Value::Win(1),
            Value::Win(301),
            Value::Draw,
            Value::Loss(300)
        ]
    );
}
