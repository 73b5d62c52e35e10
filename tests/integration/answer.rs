//! The one answer (`Tablebase::answer`) on every kind of folder: equal to
//! the values each folder's own reads give, its JSON equal to the fields
//! `docs/ANSWER.md` documents, and its categories under the move-count rule
//! (cursed wins and blessed losses at every counter, 0 included) equal to
//! the naive solvers'.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use morris::db::{ClockValue, Stored};
use morris::index::SectorIndex;
use morris::{Category, FolderValues, Position, SectorKey, Selection, Tablebase, Variant, Wdl};
use rayon::prelude::*;
use serde_json::Value as Json;

use crate::naive::{
    ClockSolution, Naive, SIX_SMALL_RULE, Sector, Solution, six_small_sectors_under_rule,
    solve_sectors, solve_sectors_under_rule,
};
use crate::pack::pack_folder_as;
use crate::solver::solve_into;

fn six() -> &'static Variant {
    Variant::by_name("six").unwrap()
}

/// The kinds of folder, each built from one raw folder of six (`pack`
/// options) or under the rule.
const PACKINGS: [(&str, &[&str]); 4] = [
    ("losses", &[]),
    ("loss-bits", &["--wdl"]),
    ("plain", &["--plain"]),
    ("plain-wdl", &["--plain", "--wdl"]),
];

/// Six solved whole, raw, in every packing and under the rule of 20 plies:
/// (name, folder), made once for the tests of this file.
fn six_folders() -> &'static [(String, PathBuf)] {
    static FOLDERS: std::sync::OnceLock<Vec<(String, PathBuf)>> = std::sync::OnceLock::new();
    FOLDERS.get_or_init(|| {
        let dir = crate::shared_folder("six-packings", |dir| {
            let raw = dir.join("raw");
            solve_into(&raw, six(), Selection::All);
            for (name, options) in PACKINGS {
                pack_folder_as(&raw, &dir.join(name), options);
            }
            solve_into(
                &dir.join("rule-20"),
                six().with_n_move(20).unwrap(),
                Selection::All,
            );
        });
        let names = ["raw"].into_iter().chain(PACKINGS.map(|(name, _)| name));
        names
            .chain(["rule-20"])
            .map(|name| (name.to_string(), dir.join(name)))
            .collect()
    })
}

/// Every position of `sectors` (positions of play only).
fn positions_of(variant: &Variant, sectors: &[SectorKey]) -> Vec<Position> {
    positions_stepping(variant, sectors, 1)
}

/// One position in `step` of each sector's, positions of play only.
fn positions_stepping(variant: &Variant, sectors: &[SectorKey], step: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for s in sectors {
        let index = SectorIndex::of_sector(variant.board, *s);
        for i in (0..index.size()).step_by(step) {
            let pos = index.position(i, s.us_hand, s.them_hand);
            if variant.check_position(&pos).is_ok() {
                out.push(pos);
            }
        }
    }
    out
}

/// What `tb` stores for `pos` through its own reads, as an answer's value.
fn expected(tb: &Tablebase, pos: &Position) -> Stored {
    match tb.values() {
        FolderValues::Distances => Stored::Distance(tb.value(pos).unwrap()),
        FolderValues::WinDrawLoss => Stored::Wdl(tb.wdl(pos).unwrap()),
        FolderValues::MoveCountRule { n } => Stored::Clock {
            fresh: tb.clock_value(pos).unwrap(),
            counter: 0,
            n,
            plain: None,
        },
    }
}

/// One position in 13 of six's (one in 53 where a probe searches), and the
/// moves of a sample: the answer's value equals the folder's own read, each
/// move's value its child's seen from the mover, moves best first. Every
/// position (every fifth where a probe searches) in `scripts/oracle.sh`.
#[test]
fn answers_equal_the_values_of_every_kind_of_folder() {
    answers_equal_the_values_of_every_kind_of_folder_stepping(13, 53);
}

#[test]
#[ignore]
fn answers_equal_the_values_of_every_kind_of_folder_at_every_position() {
    answers_equal_the_values_of_every_kind_of_folder_stepping(1, 5);
}

/// Steps through six's positions: `step`, `search_step` where a probe
/// searches (a losses folder).
fn answers_equal_the_values_of_every_kind_of_folder_stepping(step: usize, search_step: usize) {
    let raw = Tablebase::open_folder(&six_folders()[0].1).unwrap();
    let sectors = morris::db::sector_files(raw.dir()).unwrap();
    let positions = positions_of(six(), &sectors);
    for (name, dir) in six_folders() {
        let tb = Tablebase::open_folder(dir).unwrap();
        let step = if name.starts_with("loss") {
            search_step
        } else {
            step
        };
        let checked = positions
            .par_iter()
            .step_by(step)
            .enumerate()
            .try_for_each(|(i, pos)| answer_agrees(&tb, &raw, name, pos, i % 29 == 0));
        if let Err(e) = checked {
            panic!("{e}");
        }
    }
}

/// Fails with a message instead of panicking: a parallel loop stops at
/// the first difference instead of running on.
macro_rules! ensure_eq {
    ($left:expr, $right:expr, $($what:tt)+) => {
        if $left != $right {
            return Err(format!("{:?} != {:?}: {}", $left, $right, format!($($what)+)));
        }
    };
}

/// One position's answer against the folder's own reads (and the raw
/// folder's value), with its moves when `moves`.
fn answer_agrees(
    tb: &Tablebase,
    raw: &Tablebase,
    name: &str,
    pos: &Position,
    moves: bool,
) -> Result<(), String> {
    let answer = tb.answer_value(pos, 0).unwrap();
    let at = &answer.notation;
    ensure_eq!(answer.value.stored, expected(tb, pos), "{name} {at}");
    // Every kind agrees with the raw folder's value; under the rule a win
    // or loss is one without it too.
    let plain = Wdl::of(raw.value(pos).unwrap());
    if !name.starts_with("rule") || answer.value.wdl != Wdl::Draw {
        ensure_eq!(answer.value.wdl, plain, "{name} {at}");
    }
    if !moves {
        return Ok(());
    }
    let moves = tb.answer(pos, 0).unwrap().moves.unwrap();
    let mut children = Vec::new();
    six().for_each_move(pos, |play, child| children.push((play, child)));
    ensure_eq!(moves.len(), children.len(), "{name} {at}");
    for m in &moves {
        let mine = match expected(tb, &m.position) {
            Stored::Distance(v) => Stored::Distance(v.from_parent()),
            Stored::Wdl(w) => Stored::Wdl(w.from_parent()),
            Stored::Clock {
                fresh,
                counter,
                n,
                plain,
            } => Stored::Clock {
                fresh: ClockValue::of_move(fresh, m.mill, n),
                counter,
                n,
                plain,
            },
        };
        ensure_eq!(m.value.stored, mine, "{name} {at} {}", m.notation);
        ensure_eq!(
            children.contains(&(m.play, m.position)),
            true,
            "{name} {at}"
        );
    }
    let ordered = moves
        .windows(2)
        .all(|w| w[0].order_key() >= w[1].order_key());
    ensure_eq!(ordered, true, "{name} {at}: moves out of order");
    if let Some(best) = moves.first() {
        ensure_eq!(best.value.wdl, answer.value.wdl, "{name} {at}");
    }
    Ok(())
}

/// A sample of standard up to 7 men, raw and packed as losses: the answer
/// equals the raw value and the moves the children's. Up to 8 men in
/// `scripts/oracle.sh`.
#[test]
fn answers_on_standard_equal_the_raw_values() {
    answers_on_standard_up_to(7);
}

#[test]
#[ignore]
fn answers_on_standard_up_to_8_men_equal_the_raw_values() {
    answers_on_standard_up_to(8);
}

fn answers_on_standard_up_to(men: u32) {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    let packed = dir.path().join("losses");
    solve_into(&raw, Variant::standard(), Selection::MaxMen(men));
    pack_folder_as(&raw, &packed, &[]);
    let raw_tb = Tablebase::open_folder(&raw).unwrap();
    let sectors = morris::db::sector_files(&raw).unwrap();
    let positions = positions_stepping(Variant::standard(), &sectors, 997);
    for dir in [&raw, &packed] {
        let tb = Tablebase::open_folder(dir).unwrap();
        positions.par_iter().for_each(|pos| {
            let answer = tb.answer(pos, 0).unwrap();
            let value = raw_tb.value(pos).unwrap();
            assert_eq!(answer.value.stored, Stored::Distance(value));
            assert_eq!(answer.value.plies, value.plies());
            for m in answer.moves.unwrap() {
                let child = raw_tb.value(&m.position).unwrap().from_parent();
                assert_eq!(m.value.stored, Stored::Distance(child));
            }
        });
    }
}

/// One documented field: its name, its type and when it is present.
#[derive(Debug)]
struct Field {
    name: String,
    kind: String,
    present: String,
}

/// The tables of `docs/ANSWER.md`, by heading: "The answer", "A move",
/// "`fresh`".
fn documented() -> HashMap<String, Vec<Field>> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ANSWER.md")).unwrap();
    let mut tables: HashMap<String, Vec<Field>> = HashMap::new();
    let mut heading = String::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            heading = h.trim().to_string();
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 5 && cells[1].starts_with('`') && cells[3] != "present" {
            tables.entry(heading.clone()).or_default().push(Field {
                name: cells[1].trim_matches('`').to_string(),
                kind: cells[2].to_string(),
                present: cells[3].to_string(),
            });
        }
    }
    tables
}

/// What was asked of one JSON answer, and of what folder.
#[derive(Clone, Copy)]
struct Asked {
    rule: bool,
    moves: bool,
    line: bool,
    has_line: bool,
}

fn type_fits(kind: &str, value: &Json) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_u64(),
        "integer or null" => value.is_u64() || value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "array of strings" => value
            .as_array()
            .is_some_and(|a| a.iter().all(Json::is_string)),
        other => panic!("docs/ANSWER.md names an unknown type '{other}'"),
    }
}

/// Checks one JSON object against a documented table: no field the table
/// lacks, every field of the right type, and present exactly when the
/// table says.
fn check_fields(object: &Json, fields: &[Field], asked: Asked, what: &str) {
    let object = object
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object"));
    let names: HashSet<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    for key in object.keys() {
        assert!(
            names.contains(key.as_str()),
            "{what}: '{key}' is not documented"
        );
    }
    let plies_null = object.get("plies").is_some_and(Json::is_null);
    for f in fields {
        let expected = match f.present.as_str() {
            "always" => true,
            "rule" => asked.rule,
            "no plies" => plies_null,
            "moves" => asked.moves,
            "line" => asked.line && asked.has_line,
            "no line" => asked.line && !asked.has_line,
            other => panic!("docs/ANSWER.md: unknown presence '{other}'"),
        };
        match object.get(&f.name) {
            Some(v) => {
                assert!(expected, "{what}: '{}' present ({})", f.name, f.present);
                assert!(
                    type_fits(&f.kind, v),
                    "{what}: '{}' is not {}: {v}",
                    f.name,
                    f.kind
                );
            }
            None => assert!(!expected, "{what}: '{}' missing ({})", f.name, f.present),
        }
    }
}

fn check_answer(json: &Json, docs: &HashMap<String, Vec<Field>>, asked: Asked, what: &str) {
    check_fields(json, &docs["The answer"], asked, what);
    let fresh = Asked {
        rule: true,
        ..asked
    };
    if let Some(f) = json.get("fresh") {
        check_fields(f, &docs["`fresh`"], fresh, what);
    }
    for m in json
        .get("moves")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        check_fields(m, &docs["A move"], asked, what);
        if let Some(f) = m.get("fresh") {
            check_fields(f, &docs["`fresh`"], fresh, what);
        }
    }
}

fn morris(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `probe --json` of every kind of folder, with and without `--line`, and
/// batches with and without `--moves`: every object has exactly the fields
/// `docs/ANSWER.md` documents, of their types, when it says.
#[test]
fn the_json_of_every_kind_of_folder_is_the_documented_one() {
    let docs = documented();
    for table in ["The answer", "A move", "`fresh`"] {
        assert!(
            docs.get(table).is_some_and(|t| t.len() >= 4),
            "{table}: {docs:?}"
        );
    }
    let positions = [
        "WWW/B.B/B..B/.../... w 0 0",
        ".../.../..../.../... w 6 6",
        "W.W/.W./B..B/.B./... b 0 0",
    ];
    for (name, dir) in six_folders() {
        let db = dir.to_str().unwrap();
        let rule = name.starts_with("rule");
        let has_line = !name.contains("wdl") && name != "loss-bits";
        for line in [false, true] {
            let mut args = vec!["probe", "--db", db, "--json"];
            if line {
                args.push("--line");
            }
            args.extend(positions);
            let asked = Asked {
                rule,
                moves: true,
                line,
                has_line,
            };
            for (text, pos) in morris(&args).lines().zip(positions) {
                let json: Json = serde_json::from_str(text).unwrap();
                check_answer(&json, &docs, asked, &format!("{name} {pos} line {line}"));
            }
        }
        let scratch = tempfile::tempdir().unwrap();
        let batch = scratch.path().join(format!("{name}-batch.txt"));
        std::fs::write(&batch, positions.join("\n")).unwrap();
        for moves in [false, true] {
            let mut args = vec![
                "probe",
                "--db",
                db,
                "--json",
                "--batch",
                batch.to_str().unwrap(),
            ];
            if moves {
                args.push("--moves");
            }
            let asked = Asked {
                rule,
                moves,
                line: false,
                has_line,
            };
            let out = morris(&args);
            assert_eq!(out.lines().count(), positions.len());
            for text in out.lines() {
                let json: Json = serde_json::from_str(text).unwrap();
                check_answer(&json, &docs, asked, &format!("{name} batch moves {moves}"));
            }
        }
    }
    // The check bites: a field the table lacks, or one it requires missing.
    let asked = Asked {
        rule: false,
        moves: true,
        line: false,
        has_line: true,
    };
    let good: Json = serde_json::from_str(&morris(&[
        "probe",
        "--db",
        six_folders()[0].1.to_str().unwrap(),
        "--json",
        positions[0],
    ]))
    .unwrap();
    for planted in ["extra", "drop"] {
        let mut bad = good.clone();
        let object = bad.as_object_mut().unwrap();
        if planted == "extra" {
            object.insert("surprise".into(), Json::Null);
        } else {
            object.remove("category");
        }
        let caught = std::panic::catch_unwind(|| check_answer(&bad, &docs, asked, planted));
        assert!(caught.is_err(), "{planted} not caught");
    }
}

/// The category the naive solvers give: the value under the rule at the
/// counter, and where that is a draw, the value without the rule.
fn naive_category(under_rule: i8, without: i8) -> Category {
    match (under_rule, without) {
        (1, _) => Category::Win,
        (-1, _) => Category::Loss,
        (_, 1) => Category::CursedWin,
        (_, -1) => Category::BlessedLoss,
        _ => Category::Draw,
    }
}

/// A category found, at its counter, for the position named.
type Found = (Category, u8, String);

/// Every position of `sectors` at counter 0, and one in three at every
/// counter: the category of the
/// answer of the folder under the rule, given the folder without it, equals
/// the naive solvers'; without that folder a fresh draw reads `draw`.
fn compare_categories(
    variant: &'static Variant,
    n: u8,
    selection: Selection,
    sectors: &[Sector],
    (under_rule, without): (&ClockSolution, &Solution),
) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (ruled_dir, plain_dir) = (dir.path().join("ruled"), dir.path().join("plain"));
    let ruled = variant.with_n_move(n).unwrap();
    solve_into(&ruled_dir, ruled, selection.clone());
    solve_into(&plain_dir, variant, selection.clone());
    // Solved again with the folder without the rule beside it: its draws
    // are marked, and it answers alone, as do its packed copies (`pack`,
    // and packed as the solve goes).
    let at = |name: &str| dir.path().join(name);
    for (name, pack) in [("marked", None), ("marked-raw", Some(at("marked-along")))] {
        let options = morris::SolveOptions {
            pack,
            without_rule: Some(plain_dir.clone()),
            ..morris::SolveOptions::new(at(name), ruled, selection.clone())
        };
        morris::solve(&options, &|_| {}).unwrap();
    }
    let (raw, packed) = (at("marked"), at("marked-packed"));
    morris(&[
        "pack",
        "--db",
        raw.to_str().unwrap(),
        "--out",
        packed.to_str().unwrap(),
    ]);
    // Packing along packs a sector once no unit still to solve reads it: a
    // selection short of the whole game leaves some unpacked.
    let sectors_in = |name: &str| morris::db::sector_files(&at(name)).unwrap();
    let along_whole = sectors_in("marked-along") == sectors_in("marked");
    assert_eq!(along_whole, matches!(selection, Selection::All));
    let marked: Vec<Tablebase> = ["marked", "marked-packed", "marked-along"]
        .iter()
        .filter(|name| along_whole || **name != "marked-along")
        .map(|name| Tablebase::open(&at(name), ruled).unwrap())
        .collect();
    assert!(marked.iter().all(|tb| tb.marks_draws()));
    let alone = Tablebase::open(&ruled_dir, ruled).unwrap();
    assert!(!alone.marks_draws());
    let tb = Tablebase::open(&ruled_dir, ruled)
        .unwrap()
        .with_folder_without_rule(Tablebase::open(&plain_dir, variant).unwrap())
        .unwrap();
    let naive_plain = Naive::new(variant);
    let (mut seen, mut cursed_fresh) = (HashSet::new(), Vec::new());
    for &(a, ha, b, hb) in sectors {
        let index = SectorIndex::of(variant.board, a, b);
        let found: Result<Vec<Vec<Found>>, String> = (0..index.size())
            .into_par_iter()
            .map(|i| {
                let pos = index.position(i, ha, hb);
                let state = naive_plain.state(&pos);
                let plain = without.get(&state).0;
                let at = pos.notation(variant.board);
                let fresh_draw = alone.clock_value(&pos).unwrap() == ClockValue::Draw;
                let mut found = Vec::new();
                // Every counter of one position in five, counter 0 of all.
                let counters = if i % 5 == 0 { n } else { 0 };
                for c in 0..=counters {
                    let want = naive_category(under_rule.get(&state, c as usize), plain);
                    // The answer at counter 0, the stored value's category
                    // (what the answer shows) at the others: cheaper.
                    let got = if c == 0 {
                        tb.answer_value(&pos, c).unwrap().value.category
                    } else {
                        tb.stored_value(&pos, c).unwrap().category()
                    };
                    ensure_eq!(got, want, "{at} at counter {c}");
                    // The marked raw folder at every position, its packed
                    // copies (the same bytes) at one in five.
                    let copies = if i % 5 == 0 { marked.len() } else { 1 };
                    for tb in &marked[..copies] {
                        let marked = tb.stored_value(&pos, c).unwrap().category();
                        ensure_eq!(marked, want, "{at} at counter {c}, marked");
                    }
                    // Without the folder without the rule, a fresh draw
                    // reads a plain draw.
                    if fresh_draw {
                        let alone = alone.stored_value(&pos, c).unwrap().category();
                        ensure_eq!(alone, Category::Draw, "{at} at counter {c}, alone");
                    }
                    found.push((got, c, at.clone()));
                }
                Ok(found)
            })
            .collect();
        let found = found.unwrap_or_else(|e| panic!("{e}"));
        for (category, counter, at) in found.into_iter().flatten() {
            if counter == 0 && category == Category::CursedWin {
                cursed_fresh.push(at);
            }
            seen.insert(category);
        }
    }
    // The rule bites here: every category occurs.
    assert_eq!(seen.len(), 5, "{seen:?}");
    (dir, cursed_fresh)
}

/// Six's sectors with at most four men a side in all, under a rule of 10
/// plies, where every category occurs.
#[test]
fn cursed_wins_and_blessed_losses_equal_the_naive_solvers_on_six() {
    let small = crate::naive::six_small_sectors();
    let (dir, cursed) = compare_categories(
        six(),
        SIX_SMALL_RULE,
        Selection::All,
        &small.sectors,
        (six_small_sectors_under_rule(), &small.solution),
    );
    // Through the binary: a cursed win at a fresh counter reads as one
    // with the folder without the rule, and as a draw without it.
    let at = cursed.first().expect("a cursed win at counter 0");
    let ruled = dir.path().join("ruled");
    let plain = dir.path().join("plain");
    let (ruled, plain) = (ruled.to_str().unwrap(), plain.to_str().unwrap());
    let json = |extra: &[&str]| -> Json {
        let mut args = vec!["probe", "--db", ruled, "--json", at.as_str()];
        args.extend(extra);
        serde_json::from_str(&morris(&args)).unwrap()
    };
    let with = json(&["--without-rule", plain]);
    assert_eq!(
        (&with["wdl"], &with["category"]),
        (&"draw".into(), &"cursed-win".into())
    );
    assert_eq!(with["fresh"]["category"], "cursed-win");
    assert_eq!(json(&[])["category"], "draw");
    let text = morris(&["probe", "--db", ruled, "--without-rule", plain, at]);
    assert!(
        text.contains("draw (cursed-win: a win without the move-count rule)"),
        "{text}"
    );
    // A folder solved with its draws marked says the same alone.
    let marked = dir.path().join("marked");
    let marked = marked.to_str().unwrap();
    let alone: Json =
        serde_json::from_str(&morris(&["probe", "--db", marked, "--json", at])).unwrap();
    assert_eq!(
        (&alone["category"], &alone["fresh"]["category"]),
        (&with["category"], &with["fresh"]["category"])
    );
    // A folder is marked whole or not at all: a marked one is not solved on
    // without the folder without the rule, an unmarked one not with it.
    let err = crate::first_use::fails(&["solve", "--db", marked, "--all"], 2);
    assert!(err.contains("marks its draws"), "{err}");
    let err = crate::first_use::fails(
        &["solve", "--db", ruled, "--all", "--without-rule", plain],
        2,
    );
    assert!(err.contains("not marked"), "{err}");
}

/// Standard 3 v 3 under a rule of 10 plies: a minute and 1.5 GB for the
/// naive solvers; `scripts/oracle.sh` runs it.
#[test]
#[ignore]
fn cursed_wins_and_blessed_losses_equal_the_naive_solvers_on_standard_3_3() {
    let sectors = [(3, 0, 3, 0)];
    let naive = Naive::new(Variant::standard());
    compare_categories(
        Variant::standard(),
        10,
        Selection::MaxMen(6),
        &sectors,
        (
            &solve_sectors_under_rule(&naive, &sectors, 10),
            &solve_sectors(&naive, &sectors),
        ),
    );
}

/// The folders of these tests cover the three kinds the library has.
#[test]
fn every_kind_of_folder_is_covered() {
    let kinds: HashSet<String> = six_folders()
        .iter()
        .map(|(_, dir)| format!("{:?}", Tablebase::open_folder(dir).unwrap().values()))
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
}
