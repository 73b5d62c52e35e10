//! The chances a move leaves (the opponent's replies and its errors among
//! them) against the naive solver, and the ranking that uses them.

use std::collections::HashMap;

use morris::Variant;
use morris::db::{Tablebase, Value};
use morris::players::{MatchOptions, MatchResult, Player, play_match};
use morris::solve::Selection;

use crate::naive::{Naive, State};
use crate::solver::solve_into;

fn six() -> &'static Variant {
    Variant::by_name("six").unwrap()
}

fn wdl_rank(v: Value) -> i32 {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => -1,
    }
}

/// The naive count after a move to `child`: the opponent's replies, and
/// those worse for it than its best (a lower win/draw/loss, or the same
/// loss sooner), each reply valued from its grandchild.
fn naive_chances(naive: &Naive, value_of: &dyn Fn(&State) -> Value, child: &State) -> (u16, u16) {
    if naive.count(child, 1) < 3 {
        return (0, 0);
    }
    let replies: Vec<Value> = naive
        .children(child)
        .iter()
        .map(|g| value_of(g).from_parent())
        .collect();
    let Some(best) = replies.iter().copied().max_by_key(|v| v.rank()) else {
        return (0, 0);
    };
    let errors = replies
        .iter()
        .filter(|&&r| {
            wdl_rank(r) < wdl_rank(best)
                || matches!((best, r), (Value::Loss(b), Value::Loss(x)) if x < b)
        })
        .count();
    (replies.len() as u16, errors as u16)
}

/// Checks each move's replies and errors against the naive count, and the
/// order: values first, then within a value the share of errors never
/// rises. Called by `probe::probe_answers_equal_the_naive_solver` over
/// every position of six with at most four men a side (one naive solve for
/// both). Returns how many moves leave errors.
pub fn check_chances(
    naive: &Naive,
    value_of: &dyn Fn(&State) -> Value,
    state: &State,
    moves: &[morris::MoveAnswer],
) -> usize {
    let pos = naive.position(state);
    let mut wanted: HashMap<State, (u16, u16)> = HashMap::new();
    for child in naive.children(state) {
        wanted.insert(child, naive_chances(naive, value_of, &child));
    }
    let mut with_errors = 0;
    for m in moves {
        let got = (m.replies.unwrap(), m.errors.unwrap());
        assert_eq!(
            Some(&got),
            wanted.get(&naive.state(&m.position)),
            "{} then {}",
            pos.notation(six().board),
            m.notation
        );
        with_errors += usize::from(got.1 > 0);
    }
    for pair in moves.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(a.order_key() >= b.order_key(), "value order");
        if a.order_key() == b.order_key() {
            let share = |m: &morris::MoveAnswer| {
                f64::from(m.errors.unwrap()) / f64::from(m.replies.unwrap().max(1))
            };
            assert!(share(a) >= share(b), "{} before {}", a.notation, b.notation);
        }
    }
    with_errors
}

/// Six solved whole with its ultra-strong ranking, once for the match and
/// ranking tests.
pub fn six_whole() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        crate::shared_folder("six-for-matches", |dir| {
            solve_into(dir, six(), Selection::All);
            let tb = Tablebase::open(dir, six()).unwrap();
            tb.write_ultra(&|_, _| {}).unwrap();
        })
    })
}

fn match_between(first: &str, second: &str, games: u64, seed: u64) -> MatchResult {
    let tb = Tablebase::open(six_whole(), six()).unwrap();
    let options = MatchOptions {
        games,
        seed,
        from: None,
        max_plies: 400,
    };
    let players = [first.parse().unwrap(), second.parse().unwrap()];
    play_match(six(), Some(&tb), players, &options, &|| {}).unwrap()
}

/// The same seed plays the same games; another seed others.
#[test]
fn a_match_is_reproducible_for_a_seed() {
    let a = match_between("ranked", "noisy:0.3", 60, 11);
    let b = match_between("ranked", "noisy:0.3", 60, 11);
    assert_eq!((a.wins, a.draws, a.losses), (b.wins, b.draws, b.losses));
    let runs: Vec<(u64, u64, u64)> = (12..16)
        .map(|seed| {
            let r = match_between("search:1", "noisy:0.5", 60, seed);
            (r.wins, r.draws, r.losses)
        })
        .collect();
    assert!(runs.windows(2).any(|w| w[0] != w[1]), "{runs:?}");
    assert_eq!(a.wins + a.draws + a.losses, 60);
}

/// From the drawn start of six, no perfect player loses a game, whoever
/// it plays; the fallible players lose some.
#[test]
fn perfect_players_never_lose_from_the_start_of_six() {
    for first in ["perfect", "ranked", "ultra"] {
        for second in [
            "noisy:0.3",
            "noisy:1",
            "search:1",
            "search:2",
            "perfect",
            "ranked",
            "ultra",
        ] {
            let r = match_between(first, second, 40, 3);
            assert_eq!(r.losses, 0, "{first} against {second}: {r:?}");
            if second.starts_with("noisy") {
                assert!(r.wins > 0, "{first} against {second}: {r:?}");
            }
        }
    }
}

/// A player's text names it: `noisy:P` and `search:D` in range, others refused.
#[test]
fn players_read_from_their_names() {
    for good in [
        "perfect",
        "ranked",
        "ultra",
        "noisy:0",
        "noisy:0.25",
        "noisy:1",
        "search:1",
        "search:8",
    ] {
        let player: Player = good.parse().unwrap();
        assert_eq!(player.to_string(), good);
    }
    for bad in [
        "best", "noisy", "noisy:2", "noisy:-1", "search:0", "search:9", "search:x",
    ] {
        assert!(bad.parse::<Player>().is_err(), "{bad}");
    }
}

/// `morris match` through the binary: JSON with the counts, the same for a
/// seed, and a player that reads a folder refused without one.
#[test]
fn match_runs_from_the_command_line() {
    let run = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("morris")
            .unwrap()
            .args(args)
            .arg("--db")
            .arg(six_whole())
            .output()
            .unwrap()
    };
    let args = [
        "match", "ranked", "search:1", "--games", "20", "--seed", "4", "--json",
    ];
    let (a, b) = (run(&args), run(&args));
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let json: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let count = |k: &str| json[k].as_u64().unwrap();
    assert_eq!(
        count("wins") + count("draws") + count("losses"),
        count("games")
    );
    assert_eq!(count("games"), 20);
    let refused = assert_cmd::Command::cargo_bin("morris")
        .unwrap()
        .args(["match", "perfect", "search:1", "--db"])
        .arg("/nonexistent/folder")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(3));
    let no_folder = assert_cmd::Command::cargo_bin("morris")
        .unwrap()
        .args(["--variant", "six", "match", "ranked", "search:1"])
        .output()
        .unwrap();
    assert_eq!(no_folder.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_folder.stderr).contains("give --db"));
    let folderless = assert_cmd::Command::cargo_bin("morris")
        .unwrap()
        .args([
            "--variant",
            "six",
            "match",
            "search:1",
            "noisy:0.5",
            "--games",
            "4",
        ])
        .output()
        .unwrap();
    assert!(!folderless.status.success(), "noisy reads a folder");
}
