//! The move-count rule: the fast solve against the naive solver over
//! (position, counter) pairs, a forward check of every pair of the whole of
//! six, and the rule's limits.

use std::path::Path;

use morris::db::{Category, ClockValue};
use morris::index::SectorIndex;
use morris::{SectorGraph, Selection, Tablebase, Value, Variant};
use rayon::prelude::*;

use crate::naive::{
    ClockSolution, Naive, SIX_SMALL_RULE, Sector, six_small_sectors, six_small_sectors_under_rule,
    solve_sectors_under_rule,
};
use crate::solver::solve_into;

fn v(name: &str) -> &'static Variant {
    Variant::by_name(name).unwrap()
}

fn kind(value: ClockValue) -> i8 {
    match value {
        ClockValue::Win(_) => 1,
        ClockValue::Loss(_) => -1,
        ClockValue::Draw => 0,
    }
}

fn solved_under_rule(
    dir: &Path,
    variant: &'static Variant,
    n: u8,
    selection: Selection,
) -> Tablebase {
    let ruled = variant.with_n_move(n).unwrap();
    solve_into(dir, ruled, selection);
    Tablebase::open(dir, ruled).unwrap()
}

/// Every position of `sectors` at every counter 0..=n: the value the
/// folder gives equals the naive solver's.
fn compare_with_naive(tb: &Tablebase, sectors: &[Sector]) {
    let naive = Naive::new(tb.variant());
    let n = tb.variant().n_move.unwrap();
    compare_with(
        tb,
        sectors,
        &solve_sectors_under_rule(&naive, sectors, n as usize),
    );
}

/// The same with the oracle given.
fn compare_with(tb: &Tablebase, sectors: &[Sector], oracle: &ClockSolution) {
    let variant = tb.variant();
    let n = variant.n_move.unwrap();
    let naive = Naive::new(variant);
    for &(a, ha, b, hb) in sectors {
        let index = SectorIndex::of(variant.board, a, b);
        (0..index.size()).into_par_iter().for_each(|i| {
            let pos = index.position(i, ha, hb);
            let fresh = tb.clock_value(&pos).unwrap();
            let state = naive.state(&pos);
            for c in 0..=n {
                assert_eq!(
                    kind(fresh.at_counter(c, n)),
                    oracle.get(&state, c as usize),
                    "{} at counter {c} under {n}: stored {fresh:?}",
                    pos.notation(variant.board)
                );
            }
            // A sample: each move's replies and errors at a few counters.
            if i % 41 == 0 && variant.outcome(&pos).is_none() {
                for c in [0, n / 2, n - 1] {
                    check_chances_under_rule(tb, &naive, oracle, &pos, c);
                }
            }
        });
    }
}

/// The replies and errors of each move of `pos` at `counter` against the
/// naive (position, counter) oracle: a reply is an error when its win,
/// draw or loss at its counter is below the best reply's.
fn check_chances_under_rule(
    tb: &Tablebase,
    naive: &Naive,
    oracle: &crate::naive::ClockSolution,
    pos: &morris::Position,
    counter: u8,
) {
    let n = tb.variant().n_move.unwrap() as usize;
    let value = |s: &crate::naive::State, c: usize| {
        if naive.count(s, 1) < 3 {
            -1
        } else {
            oracle.get(s, c)
        }
    };
    let state = naive.state(pos);
    let mut wanted = std::collections::HashMap::new();
    for (child, mill) in naive.children_with_mills(&state) {
        let c1 = if mill { 0 } else { counter as usize + 1 };
        let chances = if c1 >= n || naive.count(&child, 1) < 3 {
            (0, 0)
        } else {
            let replies: Vec<i8> = naive
                .children_with_mills(&child)
                .into_iter()
                .map(|(g, mill2)| -value(&g, if mill2 { 0 } else { c1 + 1 }))
                .collect();
            let best = replies.iter().copied().max().unwrap_or(0);
            let errors = replies.iter().filter(|&&r| r < best).count();
            (replies.len() as u16, errors as u16)
        };
        wanted.insert(child, chances);
    }
    let answer = tb.answer(pos, counter).unwrap();
    for m in answer.moves.unwrap() {
        assert_eq!(
            Some(&(m.replies.unwrap(), m.errors.unwrap())),
            wanted.get(&naive.state(&m.position)),
            "{} at counter {counter} then {}",
            pos.notation(tb.variant().board),
            m.notation
        );
    }
}

/// Six's small sectors: every one with at most four men a side in all (the
/// placement phase's end, where captures and blocks decide, and the
/// movement sectors up to 4 v 4) under a rule of 10 plies, where the rule
/// bites often (100 plies: the whole game's check below). 20 plies in
/// `scripts/oracle.sh`.
#[test]
fn six_equals_the_naive_solver_under_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let tb = solved_under_rule(dir.path(), v("six"), SIX_SMALL_RULE, Selection::All);
    compare_with(
        &tb,
        &six_small_sectors().sectors,
        six_small_sectors_under_rule(),
    );
}

#[test]
#[ignore]
fn six_equals_the_naive_solver_under_a_rule_of_20() {
    let dir = tempfile::tempdir().unwrap();
    let tb = solved_under_rule(dir.path(), v("six"), 20, Selection::All);
    compare_with_naive(&tb, &six_small_sectors().sectors);
}

/// Standard 3 v 3, where the first mill ends the game: a win in d plies
/// stays a win at counter c exactly when c + d <= N. A minute and 1.5 GB
/// for the naive solver: run it with `cargo test --release -- --ignored`
/// (scripts/oracle.sh).
#[test]
#[ignore]
fn standard_3_3_equals_the_naive_solver_under_the_rule() {
    for n in [10, 20] {
        let dir = tempfile::tempdir().unwrap();
        let tb = solved_under_rule(dir.path(), Variant::standard(), n, Selection::MaxMen(6));
        compare_with_naive(&tb, &[(3, 0, 3, 0)]);
    }
}

/// About 27 million raw positions for the naive solver: run it with
/// `cargo test --release -- --ignored` (scripts/oracle.sh).
#[test]
#[ignore]
fn the_3_4_unit_of_standard_equals_the_naive_solver_under_the_rule() {
    for n in [10, 20] {
        let dir = tempfile::tempdir().unwrap();
        let tb = solved_under_rule(dir.path(), Variant::standard(), n, Selection::MaxMen(7));
        compare_with_naive(&tb, &[(3, 0, 3, 0), (3, 0, 4, 0), (4, 0, 3, 0)]);
    }
}

/// Every position of the whole game of six under the rule of 100 plies, at
/// every counter, equals what the rule makes of its children's stored
/// values under the naive rules: drawn at 100 unless blocked, else the best
/// of the children at counter + 1, or at 0 after a mill. With the naive
/// solver's agreement on the sectors where the game ends, this checks every
/// value of the game: one position in 5 here, every one in
/// `scripts/oracle.sh`.
#[test]
fn the_whole_game_of_six_under_the_rule_of_100_follows_from_its_children() {
    the_whole_game_of_six_under_the_rule_of_100_stepping(5);
}

#[test]
#[ignore]
fn every_position_of_six_under_the_rule_of_100_follows_from_its_children() {
    the_whole_game_of_six_under_the_rule_of_100_stepping(1);
}

fn the_whole_game_of_six_under_the_rule_of_100_stepping(step: u64) {
    let variant = v("six");
    let n = 100u8;
    let dir = tempfile::tempdir().unwrap();
    let tb = solved_under_rule(dir.path(), variant, n, Selection::All);
    let naive = Naive::new(tb.variant());
    let graph = SectorGraph::reachable(variant);
    let as_kind = |v: ClockValue, c: u8| kind(v.at_counter(c, n));
    for sector in graph.sectors() {
        let index = SectorIndex::of_sector(variant.board, sector);
        (0..index.size())
            .into_par_iter()
            .filter(|i| i % step == 0)
            .for_each(|i| {
                let pos = index.position(i, sector.us_hand, sector.them_hand);
                let stored = tb.clock_value(&pos).unwrap();
                let children: Vec<(ClockValue, bool)> = naive
                    .children_with_mills(&naive.state(&pos))
                    .iter()
                    .map(|(c, mill)| (tb.clock_value(&naive.position(c)).unwrap(), *mill))
                    .collect();
                for c in 0..=n {
                    let expected = if children.is_empty() {
                        -1
                    } else if c == n {
                        0
                    } else {
                        children
                            .iter()
                            .map(|&(child, mill)| -as_kind(child, if mill { 0 } else { c + 1 }))
                            .max()
                            .unwrap()
                    };
                    assert_eq!(
                        as_kind(stored, c),
                        expected,
                        "{} at counter {c}: stored {stored:?}",
                        pos.notation(variant.board)
                    );
                }
            });
    }
    let start = morris::Position::start(variant);
    assert_eq!(tb.clock_value(&start).unwrap(), ClockValue::Draw);
}

/// A rule longer than every distance of six's database changes no value
/// with a fresh counter; a rule can only turn wins and losses into draws.
/// So a sector's wins without the rule less its wins under it are its
/// cursed wins at counter 0 (`scripts/move-count-table.sh` counts them so
/// for the whole game): the same as the answers' categories, and likewise
/// the blessed losses.
#[test]
fn the_rule_only_turns_wins_and_losses_into_draws() {
    let variant = v("six");
    let plain_dir = tempfile::tempdir().unwrap();
    solve_into(plain_dir.path(), variant, Selection::All);
    let plain = Tablebase::open(plain_dir.path(), variant).unwrap();
    let graph = SectorGraph::reachable(variant);
    let longest = graph
        .sectors()
        .map(|s| {
            let stats = plain.sector_stats(s).unwrap();
            stats.longest_win.max(stats.longest_loss)
        })
        .max()
        .unwrap();
    assert!(
        longest < u16::from(morris::rules::MAX_N_MOVE),
        "six's longest distance is {longest}"
    );
    for n in [20, morris::rules::MAX_N_MOVE] {
        let dir = tempfile::tempdir().unwrap();
        let ruled = solved_under_rule(dir.path(), variant, n, Selection::All)
            .with_folder_without_rule(Tablebase::open(plain_dir.path(), variant).unwrap())
            .unwrap();
        let (mut cursed_wins, mut blessed_losses) = (0, 0);
        for sector in graph.sectors() {
            let index = SectorIndex::of_sector(variant.board, sector);
            let (with_rule, without) = (
                ruled.sector_stats(sector).unwrap(),
                plain.sector_stats(sector).unwrap(),
            );
            // (Under the longest rule the stored counts are equal below.)
            let categories = (0..index.size())
                .into_par_iter()
                .filter(|_| n < morris::rules::MAX_N_MOVE)
                .map(|i| {
                    let pos = index.position(i, sector.us_hand, sector.them_hand);
                    let category = ruled.stored_value(&pos, 0).unwrap().category();
                    (
                        u64::from(category == Category::CursedWin),
                        u64::from(category == Category::BlessedLoss),
                    )
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            assert_eq!(
                categories,
                (
                    without.wins - with_rule.wins,
                    without.losses - with_rule.losses
                ),
                "{sector} under {n}"
            );
            cursed_wins += categories.0;
            blessed_losses += categories.1;
            (0..index.size()).into_par_iter().for_each(|i| {
                let pos = index.position(i, sector.us_hand, sector.them_hand);
                let without = plain.value(&pos).unwrap();
                let with = ruled.clock_value(&pos).unwrap();
                let same = match (without, with) {
                    (Value::Win(_), ClockValue::Win(_))
                    | (Value::Loss(_), ClockValue::Loss(_))
                    | (Value::Draw, ClockValue::Draw) => true,
                    (_, ClockValue::Draw) => n < morris::rules::MAX_N_MOVE,
                    _ => false,
                };
                assert!(
                    same,
                    "{} under {n}: {without:?} then {with:?}",
                    pos.notation(variant.board)
                );
            });
        }
        // Under 20 plies the rule bites; under the longest it cannot.
        assert_eq!(
            cursed_wins > 0 && blessed_losses > 0,
            n < morris::rules::MAX_N_MOVE,
            "{cursed_wins} cursed wins, {blessed_losses} blessed losses under {n}"
        );
    }
}

#[test]
fn rules_are_kept_apart() {
    let variant = v("six");
    let dir = tempfile::tempdir().unwrap();
    solved_under_rule(dir.path(), variant, 20, Selection::MaxMen(7));
    // The folder records its rule: opened as it is, it has it.
    let tb = Tablebase::open_folder(dir.path()).unwrap();
    assert_eq!(tb.variant().n_move, Some(20));
    let err = Tablebase::open(dir.path(), variant).err().unwrap();
    assert!(
        err.to_string()
            .contains("of six under the 20-ply move-count rule, not of six"),
        "{err}"
    );
    let err = Tablebase::open(dir.path(), variant.with_n_move(30).unwrap())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("not of six under the 30-ply"),
        "{err}"
    );
    // The header says what its bytes mean: value encoding 3.
    let bytes = std::fs::read(dir.path().join("3-4.mdb")).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), 3);
    // Values without a counter are refused, not misread.
    let pos = variant
        .parse_position("WWW/B.B/B..B/.../... w 0 0")
        .unwrap();
    assert!(tb.value(&pos).is_err());
    assert!(tb.answer(&pos, 21).is_err());
    assert!(v("lasker").with_n_move(100).is_err());
    assert!(v("strict-mills").with_n_move(100).is_err());
    assert!(Variant::standard().with_n_move(0).is_err());
    assert!(Variant::standard().with_n_move(127).is_err());
}

mod command_line {
    use assert_cmd::Command;

    fn morris(args: &[&str]) -> std::process::Output {
        Command::cargo_bin("morris")
            .unwrap()
            .args(args)
            .output()
            .unwrap()
    }

    fn stdout(args: &[&str]) -> String {
        let out = morris(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Solve, probe at counters, stats and verify of six under a rule of 20
    /// plies, through the binary.
    #[test]
    fn solve_probe_stats_and_verify_under_the_rule() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().to_str().unwrap();
        let solved = stdout(&[
            "--variant",
            "six",
            "--n-move",
            "20",
            "solve",
            "--all",
            "--quiet",
            "--db",
            db,
        ]);
        assert!(
            solved.contains("the starting position is a draw"),
            "{solved}"
        );
        let manifest = std::fs::read_to_string(dir.path().join("morris-db.txt")).unwrap();
        assert!(manifest.contains("n-move 20"), "{manifest}");

        // White closes a mill in 3 plies: a win up to counter 17, a cursed
        // win from 18.
        let pos = "WWW/B.B/B..B/.../... w 0 0";
        let json = |counter: u8| -> serde_json::Value {
            let text = stdout(&["probe", "--db", db, "--json", &format!("{pos} {counter}")]);
            serde_json::from_str(&text).unwrap()
        };
        let fresh = json(0);
        assert_eq!(fresh["wdl"], "win");
        assert_eq!(fresh["category"], "win");
        assert_eq!(fresh["mill_plies"], 3);
        assert_eq!(fresh["fresh"]["holds_to_counter"], 17);
        assert_eq!(fresh["plies"], serde_json::Value::Null);
        let late = json(18);
        assert_eq!(late["wdl"], "draw");
        assert_eq!(late["category"], "cursed-win");
        assert_eq!(late["counter"], 18);
        // The move's child is a loss for Black: blessed at counter 19.
        let child = late["moves"][0]["position"].as_str().unwrap().to_string();
        let text = stdout(&["probe", "--db", db, "--json", &format!("{child} 19")]);
        let blessed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(blessed["category"], "blessed-loss");

        let text = stdout(&["probe", "--db", db, &format!("{pos} 18")]);
        assert!(
            text.contains("18 plies since the last mill (drawn at 20)"),
            "{text}"
        );
        assert!(text.contains("cursed-win"), "{text}");
        let line = stdout(&["probe", "--db", db, "--line", pos]);
        assert!(line.contains("line: "), "{line}");

        // A counter past the rule is bad input.
        let out = morris(&["probe", "--db", db, &format!("{pos} 21")]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("past the folder's rule of 20"));

        // Perfect play against itself with the counter running.
        let from = format!("{pos} 15");
        let game = stdout(&[
            "play", "--db", db, "--human", "none", "--values", "--from", &from,
        ]);
        assert!(
            game.contains("win, next mill within 3 plies (win; 15 of 20 plies"),
            "{game}"
        );
        assert!(game.contains("White plays d7-d6"), "{game}");

        let stats = stdout(&["stats", "--db", db]);
        assert!(stats.contains("move-count rule of 20 plies"), "{stats}");
        let verified = stdout(&["verify", "--db", db]);
        assert!(
            verified.contains("all agree with their children"),
            "{verified}"
        );

        // A rule the variant's mills do not fit is refused plainly.
        let out = morris(&[
            "--variant",
            "lasker",
            "--n-move",
            "100",
            "solve",
            "--db",
            db,
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not built for lasker"));
    }

    /// A value changed in a file whose checksums were then recomputed is
    /// caught by the check under the rule.
    #[test]
    fn a_planted_value_is_caught_under_the_rule() {
        use morris::db::SectorFile;
        use morris::db::internals::{header as new_header, write_sector};
        use morris::{SectorKey, Tablebase, Variant};
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().to_str().unwrap();
        stdout(&[
            "--variant",
            "six",
            "--n-move",
            "20",
            "solve",
            "--quiet",
            "--max-men",
            "8",
            "--db",
            db,
        ]);
        let variant = Variant::by_name("six").unwrap().with_n_move(20).unwrap();
        let sector = SectorKey::movement(4, 4);
        let tb = Tablebase::open(dir.path(), variant).unwrap();
        let file: std::sync::Arc<SectorFile> = tb.sector(sector).unwrap();
        let mut bytes = file.bytes().unwrap().to_vec();
        let at = bytes.iter().position(|&b| b == 5).expect("a win in 3");
        bytes[at] = 3; // a win in 2
        drop((file, tb));
        std::fs::remove_file(dir.path().join("4-4.mdb")).unwrap();
        write_sector(
            dir.path(),
            new_header(variant, sector, bytes.len() as u64),
            |sink| sink(&bytes),
            &[],
        )
        .unwrap();
        let out = morris(&["verify", "--db", db, "--sectors", "4-4"]);
        assert_eq!(out.status.code(), Some(3));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("stored win, next mill within 2 plies"),
            "{text}"
        );
    }
}

/// The fast check under the rule agrees with the simple one on every sector
/// of six under 20 plies, with a win shortened, a draw made a win and a loss
/// made a draw planted in 4-4 (checksums recomputed): both find each.
#[test]
fn the_fast_check_under_the_rule_equals_the_simple_one() {
    use morris::db::internals::{header as new_header, write_sector};
    use morris::verify::{Check, verify_sector};
    let variant = v("six");
    let dir = tempfile::tempdir().unwrap();
    let tb = solved_under_rule(dir.path(), variant, 20, Selection::All);
    let ruled = tb.variant();
    let sector = morris::SectorKey::movement(4, 4);
    let mut bytes = tb.sector(sector).unwrap().bytes().unwrap().to_vec();
    let mut planted = Vec::new();
    for (from, to) in [
        (ClockValue::Win(5), ClockValue::Win(3)),
        (ClockValue::Draw, ClockValue::Win(1)),
        (ClockValue::Loss(4), ClockValue::Draw),
    ] {
        let at = bytes.iter().position(|&b| b == from.to_byte()).unwrap();
        bytes[at] = to.to_byte();
        planted.push(at as u64);
    }
    drop(tb);
    std::fs::remove_file(dir.path().join("4-4.mdb")).unwrap();
    let header = new_header(ruled, sector, bytes.len() as u64);
    write_sector(dir.path(), header, |sink| sink(&bytes), &[]).unwrap();
    let tb = Tablebase::open(dir.path(), ruled).unwrap();
    for sector in SectorGraph::reachable(variant).sectors() {
        let fast = verify_sector(&tb, sector, Check::All, 1000).unwrap();
        let simple = verify_sector(&tb, sector, Check::Oracle, 1000).unwrap();
        let at = |c: &morris::verify::Checked| {
            let mut v: Vec<u64> = c.mismatches.iter().map(|m| m.index).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(at(&fast), at(&simple), "{sector}");
        assert_eq!(fast.positions, simple.positions);
        if sector == morris::SectorKey::movement(4, 4) {
            for i in &planted {
                assert!(at(&fast).contains(i), "planted at {i} not found");
            }
        }
    }
}

/// A folder under the rule packs like any other: every value reads the same
/// from the packed copies, pair-coded and in zstd blocks, which keep the
/// rule.
#[test]
fn a_folder_under_the_rule_packs_losslessly() {
    let variant = v("six");
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    let tb = solved_under_rule(&raw, variant, 20, Selection::All);
    // Pair-coded (the default) and in zstd blocks.
    for (name, flags) in [("packed", &[][..]), ("zstd", &["--zstd"])] {
        let packed = dir.path().join(name);
        crate::pack::pack_folder_as(&raw, &packed, flags);
        let copy = Tablebase::open_folder(&packed).unwrap();
        assert_eq!(copy.variant().n_move, Some(20));
        let bytes = std::fs::read(packed.join("4-4.mdb")).unwrap();
        assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), 4);
        for sector in morris::db::sector_files(&raw).unwrap() {
            let (a, b) = (tb.sector(sector).unwrap(), copy.sector(sector).unwrap());
            assert!(b.is_packed());
            assert_eq!(b.header.is_pair_coded(), flags.is_empty(), "{name}");
            for i in 0..a.header.positions() {
                assert_eq!(a.clock_value(i, 20).unwrap(), b.clock_value(i, 20).unwrap());
            }
        }
    }
}

/// A folder under the rule paired with the default packing of the folder
/// without it (which reads loss marks, kept for the answer, from inside
/// the rule folder's answers) answers as when paired with the raw one:
/// values, categories, moves and their chances.
#[test]
fn a_folder_under_the_rule_answers_alike_beside_a_packed_folder_without_it() {
    let variant = v("six");
    let dir = tempfile::tempdir().unwrap();
    let (plain, packed) = (dir.path().join("plain"), dir.path().join("packed"));
    solve_into(&plain, variant, Selection::All);
    crate::pack::pack_folder(&plain, &packed);
    let ruled_dir = dir.path().join("ruled");
    let open_ruled = || solved_under_rule(&ruled_dir, variant, 20, Selection::All);
    let beside_raw = open_ruled()
        .with_folder_without_rule(Tablebase::open(&plain, variant).unwrap())
        .unwrap();
    let beside_packed = open_ruled()
        .with_folder_without_rule(Tablebase::open_folder(&packed).unwrap())
        .unwrap();
    let index = SectorIndex::of(variant.board, 4, 4);
    let mut categories = std::collections::HashSet::new();
    for i in (0..index.size()).step_by(7) {
        let pos = index.position(i, 0, 0);
        for counter in [0, 11] {
            let answer = beside_raw.answer(&pos, counter).unwrap();
            categories.insert(answer.value.stored.category());
            assert_eq!(
                beside_packed.answer(&pos, counter).unwrap(),
                answer,
                "{} at {counter}",
                pos.notation(variant.board)
            );
        }
    }
    // Cursed wins and blessed losses among them: the folder without the
    // rule was read.
    assert!(
        categories.contains(&Category::CursedWin) && categories.contains(&Category::BlessedLoss),
        "{categories:?}"
    );
}
