use std::path::Path;

use morris::Variant;
use morris::db::{Tablebase, Value};
use morris::index::{SectorIndex, SectorKey};
use morris::solve::{Selection, SolveOptions, solve};
use morris::verify::verify_sector;

use crate::naive::{Naive, solve_movement};

fn v(name: &str) -> &'static Variant {
    Variant::by_name(name).unwrap()
}

fn solve_into(dir: &Path, variant: &'static Variant, selection: Selection) {
    solve(
        &SolveOptions {
            db: dir.to_path_buf(),
            variant,
            selection,
        },
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
    let naive = Naive::new(variant);
    let oracle = solve_movement(&naive, sectors);
    for &(a, b) in sectors {
        let sector = SectorKey::movement(a as u8, b as u8);
        let index = SectorIndex::of(variant.board, a, b);
        for i in 0..index.size() {
            let pos = index.position(i, 0, 0);
            let expected = from_naive(oracle[&naive.state(&pos)]);
            assert_eq!(
                tb.value(&pos).unwrap(),
                expected,
                "{} {sector} {}",
                variant.name,
                pos.notation(variant.board)
            );
        }
    }
    // Every raw position (not only canonical ones) probes to the oracle's value.
    for (state, value) in oracle.iter().step_by(7) {
        let mut pos = morris::Position::start(variant);
        pos.hand = [0, 0];
        for (p, &c) in state.cells.iter().enumerate() {
            if c > 0 {
                pos.men[(c - 1) as usize] = pos.men[(c - 1) as usize].with(p as u8);
            }
        }
        assert_eq!(tb.value(&pos).unwrap(), from_naive(*value));
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
    for i in 0..file.header.positions {
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
    let (mismatches, total) = verify_sector(&tb, SectorKey::movement(3, 3), 3).unwrap();
    assert_eq!(total, 0, "{:?}", mismatches.first().map(|m| m.position));
}

#[test]
fn standard_3_3_equals_the_naive_solver() {
    compare_with_oracle(Variant::standard(), &[(3, 3)], Selection::MaxMen(6));
}

#[test]
fn strict_mills_and_no_flying_3_3_equal_the_naive_solver() {
    compare_with_oracle(v("strict-mills"), &[(3, 3)], Selection::MaxMen(6));
    compare_with_oracle(v("no-flying"), &[(3, 3)], Selection::MaxMen(6));
}

#[test]
fn the_movement_sectors_of_six_up_to_five_men_a_side_equal_the_naive_solver() {
    let sectors: Vec<(usize, usize)> = (3..=5).flat_map(|a| (3..=5).map(move |b| (a, b))).collect();
    compare_with_oracle(v("six"), &sectors, Selection::MaxMen(10));
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
        &SolveOptions {
            db: dir.path().to_path_buf(),
            variant: Variant::standard(),
            selection: Selection::MaxMen(6),
        },
        &|_| {},
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("holds a six database"), "{err}");
}

#[test]
fn distances_too_long_for_a_byte_are_read_from_the_overflow_table() {
    let dir = tempfile::tempdir().unwrap();
    let header = morris::db::Header::new(Variant::standard(), SectorKey::movement(3, 3), 4);
    let body = [1u8, 254, 255, 254];
    let path = morris::db::write_sector(
        dir.path(),
        header,
        |sink| sink(&body),
        &[(1, 301), (3, 300)],
    )
    .unwrap();
    let file = morris::db::SectorFile::open(&path).unwrap();
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
