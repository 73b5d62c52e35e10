//! Malom's ultra-strong ranking (`morris ultra`) against independent
//! computations: the sector scores from the naive solver's counts (six's
//! sectors of 3 and 4 men a side, placement included), and the keys of
//! every drawn position of six from a plain value iteration (no
//! thresholds, no attractors).

use std::collections::{HashMap, HashSet};

use morris::db::{Tablebase, Ultra, Value};
use morris::index::SectorIndex;
use morris::{SectorGraph, SectorKey, Variant};

use crate::naive::State;

fn six() -> &'static Variant {
    Variant::by_name("six").unwrap()
}

/// Six solved whole with its ranking written (the matches' folder).
fn ranked_six() -> Tablebase {
    Tablebase::open(crate::chances::six_whole(), six()).unwrap()
}

fn sector_of(s: &State) -> SectorKey {
    let on_board = |side: u8| s.cells.iter().filter(|&&c| c == side).count() as u8;
    SectorKey::new(on_board(1), s.hand[0], on_board(2), s.hand[1])
}

/// Every sector's counts (those of 3 and 4 men a side from the naive solver, each position
/// counted once up to symmetry), its score, material and rank as defined:
/// ranks in the set of every material and one minus it.
#[test]
fn sector_scores_equal_an_independent_count() {
    let tb = ranked_six();
    let ultra = tb.ultra().unwrap();
    let small = crate::naive::six_small_sectors();
    let (naive, oracle) = (&small.naive, &small.solution);
    let mut seen = HashSet::new();
    let mut counts: HashMap<SectorKey, [u64; 3]> = HashMap::new();
    for (state, &(kind, _)) in oracle.states.iter().zip(&oracle.values) {
        let sector = sector_of(state);
        if ultra.scores().iter().all(|s| s.sector != sector) {
            continue; // not reached in a game of six: no file
        }
        let index = sector_index(sector);
        let pos = naive.position(state);
        if seen.insert((sector, index.index_of(&pos))) {
            counts.entry(sector).or_default()[(1 - kind) as usize] += 1;
        }
    }
    let by_sector: HashMap<SectorKey, &morris::db::SectorScore> =
        ultra.scores().iter().map(|s| (s.sector, s)).collect();
    for (sector, [wins, draws, losses]) in &counts {
        let s = by_sector[sector];
        assert_eq!(
            (s.wins, s.draws, s.losses),
            (*wins, *draws, *losses),
            "{sector}"
        );
    }
    // The definition, again: score, material, symmetric ranks.
    let score =
        |s: &morris::db::SectorScore| (s.wins as f64 + 0.5 * s.draws as f64) / s.positions as f64;
    let material = |s: &morris::db::SectorScore| match by_sector.get(&s.sector.mirror()) {
        Some(m) => (score(s) + 1.0 - score(m)) / 2.0,
        None => score(s),
    };
    let mut points: Vec<f64> = ultra
        .scores()
        .iter()
        .flat_map(|s| [material(s), 1.0 - material(s), 0.5])
        .collect();
    points.sort_by(f64::total_cmp);
    points.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    assert_eq!(points.len(), ultra.levels() as usize);
    for s in ultra.scores() {
        assert!((s.score - score(s)).abs() < 1e-12, "{}", s.sector);
        assert!((s.material - material(s)).abs() < 1e-12, "{}", s.sector);
        let rank = points.partition_point(|&p| p < material(s) - 1e-9);
        assert_eq!(s.rank as usize, rank, "{}", s.sector);
        if by_sector.contains_key(&s.sector.mirror()) {
            assert_eq!(ultra.sector_rank(s.sector.mirror()), ultra.flip(s.rank));
        }
    }
    assert!(counts.len() > 20, "{} sectors counted", counts.len());
    assert_eq!(ultra.scores().len(), 131);
}

/// The key of every drawn position of six equals a plain value iteration's:
/// start every drawn position at its sector's rank (the worth of a game
/// that never leaves it), then repeat "the best, for the side to move, of
/// each drawing move's key seen from it" until nothing changes. Within a
/// unit whose exits are settled, the iteration is the game cut after k
/// plies with the sector's rank at the cut, and past the unit's number of
/// positions it is the game itself. No thresholds, no attractors, no
/// copies of a position per side.
#[test]
fn keys_equal_a_value_iteration_over_the_whole_game() {
    let tb = ranked_six();
    let ultra = tb.ultra().unwrap();
    let variant = six();
    let mut number: HashMap<(SectorKey, u64), usize> = HashMap::new();
    let (mut drawn, mut stay) = (Vec::new(), Vec::new());
    for s in ultra.scores() {
        let index = sector_index(s.sector);
        for i in 0..index.size() {
            let pos = index.position(i, s.sector.us_hand, s.sector.them_hand);
            if tb.value(&pos).unwrap() == Value::Draw {
                assert!(variant.outcome(&pos).is_none(), "six has no drawn ends");
                number.insert((s.sector, i), drawn.len());
                drawn.push(pos);
                stay.push(s.rank);
            }
        }
    }
    let moves: Vec<Vec<usize>> = drawn
        .iter()
        .map(|pos| {
            variant
                .moves(pos)
                .iter()
                .filter(|(_, child)| tb.value(child).unwrap() == Value::Draw)
                .map(|(_, child)| {
                    let sector = SectorKey::of(child);
                    number[&(sector, sector_index(sector).index_of(child))]
                })
                .collect()
        })
        .collect();
    // Unit by unit in solve order, the units each reads already settled:
    // iterated over the whole game at once, the cut's timing would let a
    // side delay a move out of a unit into an unsettled one, and the
    // rounds cycle.
    let mut keys = stay.clone();
    let mut rounds = 0;
    for unit in SectorGraph::reachable(variant).units() {
        let nodes: Vec<usize> = (0..drawn.len())
            .filter(|&i| unit.contains(&SectorKey::of(&drawn[i])))
            .collect();
        for round in 1.. {
            let next: Vec<u16> = nodes
                .iter()
                .map(|&i| moves[i].iter().map(|&c| ultra.flip(keys[c])).max().unwrap())
                .collect();
            let mut changed = false;
            for (&i, &key) in nodes.iter().zip(&next) {
                changed |= keys[i] != key;
                keys[i] = key;
            }
            if !changed {
                rounds = rounds.max(round);
                break;
            }
            // Past its positions' count a settled game stops changing.
            assert!(round <= nodes.len() + 1, "unit {unit:?} never settles");
        }
    }
    let mut away_from_stay = 0;
    for (i, pos) in drawn.iter().enumerate() {
        assert_eq!(
            ultra.key(pos),
            Some(keys[i]),
            "{}",
            pos.notation(variant.board)
        );
        // Only a movement sector's own rank is its positions' worth of
        // staying; a placement sector is always left.
        if SectorKey::of(pos).is_movement() {
            away_from_stay += usize::from(keys[i] != stay[i]);
        }
    }
    // A check that could not fail would see every movement key at its
    // sector's rank, or settle in one round.
    assert!(
        drawn.len() > 200_000 && away_from_stay > 1000 && rounds > 3,
        "{} drawn, {away_from_stay} movement keys away from their sector's rank, {rounds} rounds",
        drawn.len()
    );
}

fn sector_index(sector: SectorKey) -> std::sync::Arc<SectorIndex> {
    SectorIndex::of(
        six().board,
        sector.us_board as usize,
        sector.them_board as usize,
    )
}

/// A damaged or missing key file is an error, never keys.
#[test]
fn damaged_rankings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    crate::solver::solve_into(dir.path(), six(), morris::solve::Selection::MaxMen(7));
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let err = Ultra::open(dir.path(), six()).err().unwrap();
    assert!(matches!(err, morris::ProbeError::NoUltra { .. }), "{err}");
    tb.write_ultra(&|_, _| {}).unwrap();
    let file = dir.path().join("ultra").join("4-3.ultra");
    let good = std::fs::read(&file).unwrap();
    for at in [0, 9, 17, 30, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&file, &bad).unwrap();
        assert!(Ultra::open(dir.path(), six()).is_err(), "byte {at} flipped");
    }
    std::fs::write(&file, &good[..good.len() - 2]).unwrap();
    assert!(Ultra::open(dir.path(), six()).is_err());
    std::fs::write(&file, &good).unwrap();
    assert!(Ultra::open(dir.path(), six()).is_ok());
}

/// Through the binary: an `ultra` player without the ranking is refused
/// with the command that writes it; `morris ultra` writes it; then it plays.
#[test]
fn ultra_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    crate::solver::solve_into(dir.path(), six(), morris::solve::Selection::MaxMen(7));
    let morris = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("morris")
            .unwrap()
            .args(args)
            .arg("--db")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let game = [
        "match",
        "ultra",
        "noisy:0.5",
        "--from",
        "4-3",
        "--games",
        "6",
    ];
    let refused = morris(&game);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("no ultra-strong ranking") && stderr.contains("morris ultra --db"),
        "{stderr}"
    );
    let written = morris(&["ultra"]);
    let stdout = String::from_utf8_lossy(&written.stdout);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert!(
        stdout.contains("4-3\t") && stdout.contains("ranks"),
        "{stdout}"
    );
    let play = [
        "play",
        "--human",
        "none",
        "--rank",
        "ultra",
        "--from",
        "W.W/.W./B..W/.../B.B w 0 0",
    ];
    let played = morris(&play);
    assert!(
        played.status.success(),
        "{}",
        String::from_utf8_lossy(&played.stderr)
    );
    let played = morris(&game);
    assert!(
        played.status.success(),
        "{}",
        String::from_utf8_lossy(&played.stderr)
    );
    assert!(String::from_utf8_lossy(&played.stdout).contains("6 games"));
}
