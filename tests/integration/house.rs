//! The shape of the code and what a caller of the library cannot break:
//! the layering and sizes of the source, positions checked at the boundary,
//! values read from files never wrapping, two solvers on one folder, and
//! parsers and file readers fed random and damaged input.

use std::path::{Path, PathBuf};

use morris::db::internals::{header as new_header, write_sector};
use morris::index::SectorKey;
use morris::{Bitboard, Color, Position, ProbeError, Selection, Tablebase, Variant};
use proptest::prelude::*;

use crate::solver::solve_into;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// No source file over 800 lines, no function over 120; the layers import
/// only downwards (rules, index, db, solve), the files of one folder import
/// each other without a circle, and the command line is the binary's, not
/// the library's.
#[test]
fn the_layers_and_sizes_hold() {
    let mut paths = Vec::new();
    source_files(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut paths,
    );
    assert!(paths.len() > 20);
    let layer_may_not = [
        (
            "/src/rules/",
            &["crate::index", "crate::db", "crate::solve"][..],
        ),
        ("/src/index/", &["crate::db", "crate::solve"][..]),
        ("/src/db/", &["crate::solve", "crate::verify"][..]),
    ];
    let files: Vec<(PathBuf, String)> = paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    for (path, text) in &files {
        let name = path.display().to_string();
        let lines = text.lines().count();
        assert!(lines <= 800, "{name}: {lines} lines");
        for (layer, banned) in layer_may_not {
            if name.contains(layer) {
                for b in banned {
                    assert!(!text.contains(b), "{name} uses {b}");
                }
            }
        }
        let long = long_functions(text);
        assert!(long.is_empty(), "{name}: {long:?}");
    }
    let circles = circles_between_files(&files);
    assert!(
        circles.is_empty(),
        "files of one folder in a circle: {circles:?}"
    );
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    assert!(
        !lib.contains("mod cli"),
        "the command line is not part of the library"
    );
}

/// The functions of a source text longer than 120 lines, or whose end
/// cannot be found, as (line, length or `None`). A function ends at the
/// first line that closes it at its indentation; any mix of `pub(..)`,
/// `const`, `unsafe`, `async` and `extern` may stand before `fn`.
fn long_functions(text: &str) -> Vec<(usize, Option<usize>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some(at) = trimmed.find("fn ") else {
            continue;
        };
        let before_fn = trimmed[..at].split_whitespace().all(|w| {
            w.starts_with("pub") || ["const", "unsafe", "async", "extern", "\"C\""].contains(&w)
        });
        let one_line = trimmed.contains('{') && trimmed.ends_with('}');
        if !before_fn || line.ends_with(';') || one_line {
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let end = lines[i + 1..]
            .iter()
            .position(|l| *l == format!("{indent}}}"));
        match end {
            None => found.push((i + 1, None)),
            Some(n) if n + 2 > 120 => found.push((i + 1, Some(n + 2))),
            Some(_) => {}
        }
    }
    found
}

/// The module path of the folder a source file lies in: `crate::db::files`
/// for `…/src/db/files/encoding.rs`.
fn folder_module(path: &Path) -> String {
    let dir = path.parent().unwrap().display().to_string();
    let below_src = dir.rsplit_once("/src").map_or("", |(_, rest)| rest);
    format!("crate{}", below_src.replace('/', "::"))
}

/// The names a path names right after `prefix` (`super::` or the folder's
/// module path with `::`): `name` in `prefix name::…`, and each first name
/// in `prefix {a::X, b}`.
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let word = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                names.extend(group.split(',').map(word));
            }
            None => names.push(word(rest)),
        }
    }
    names
}

/// Circles of imports between the files of one folder (`super::name` or
/// `crate::folder::name` from a file that is not the folder's `mod.rs`),
/// each as its files' names.
fn circles_between_files(files: &[(PathBuf, String)]) -> Vec<Vec<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    // file -> the files of its folder it names.
    let mut uses: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (path, text) in files {
        if path.file_name().is_some_and(|n| n == "mod.rs") {
            continue;
        }
        let dir = path.parent().unwrap();
        let mut named = BTreeSet::new();
        let module = format!("{}::", folder_module(path));
        for prefix in ["super::", module.as_str()] {
            for name in names_after(text, prefix) {
                let sibling = dir.join(format!("{name}.rs"));
                if sibling != *path && files.iter().any(|(p, _)| *p == sibling) {
                    named.insert(sibling);
                }
            }
        }
        uses.insert(path.clone(), named);
    }
    // A circle: a file reached again from itself.
    let mut circles = Vec::new();
    for start in uses.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((file, trail)) = stack.pop() {
            for next in uses.get(&file).into_iter().flatten() {
                if next == start {
                    let names: Vec<String> =
                        trail.iter().map(|p| p.display().to_string()).collect();
                    circles.push(names);
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    circles
}

/// The house checks bite: a planted circle between two files of a folder,
/// a planted long `const fn` and `unsafe fn`, and a function whose end is
/// not where the check looks.
#[test]
fn the_house_checks_catch_planted_faults() {
    let file = |name: &str, text: &str| (PathBuf::from(format!("/src/x/{name}")), text.to_string());
    let planted = [
        file("a.rs", "use super::b::B;\npub struct A;\n"),
        file("b.rs", "use super::a::A;\npub struct B;\n"),
        file("c.rs", "use super::a::A;\n"),
        file("mod.rs", "mod a;\nmod b;\nmod c;\nuse self::a::A;\n"),
    ];
    let circles = circles_between_files(&planted);
    assert!(
        !circles.is_empty() && circles.iter().all(|c| c.len() == 2),
        "{circles:?}"
    );
    let without = [planted[0].clone(), planted[2].clone(), planted[3].clone()];
    assert!(circles_between_files(&without).is_empty());
    // The same circle through the folder's path from the crate's root, one
    // side in a group.
    let by_path = [
        file("a.rs", "use crate::x::b::B;\npub struct A;\n"),
        file("b.rs", "use crate::x::{a::A, c};\npub struct B;\n"),
        file("c.rs", "pub struct C;\n"),
    ];
    let circles = circles_between_files(&by_path);
    assert!(
        !circles.is_empty() && circles.iter().all(|c| c.len() == 2),
        "{circles:?}"
    );
    assert!(circles_between_files(&by_path[1..]).is_empty());
    let body = "    x += 1;\n".repeat(130);
    for head in [
        "pub const fn f() {",
        "unsafe fn f() {",
        "pub(crate) const unsafe fn f() {",
        "fn f() {",
    ] {
        let text = format!("{head}\n{body}}}\n");
        assert_eq!(long_functions(&text), vec![(1, Some(132))], "{head}");
    }
    // Its closing brace at another indentation: an end not found.
    let text = format!("    pub fn f() {{\n{body}}}\n");
    assert_eq!(long_functions(&text), vec![(1, None)]);
    assert!(long_functions("const fn f() -> u8 {\n    1\n}\n").is_empty());
}

/// A position built through the library with overlapping men, a man off the
/// board, too many men or a side not to move below three is refused by every
/// entry that takes a position, never valued.
#[test]
fn invalid_positions_are_errors_at_every_entry() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), six, Selection::MaxMen(7));
    let tb = Tablebase::open(dir.path(), six).unwrap();
    let good = six.parse_position("WWW/.../..../.../BBB w 0 0").unwrap();
    assert!(tb.value(&good).is_ok());
    let with = |white: Bitboard, black: Bitboard, hand: [u8; 2]| Position {
        men: [white, black],
        hand,
        to_move: Color::White,
    };
    let (w, b) = (good.men[0], good.men[1]);
    let bad = [
        (
            with(w, b.with(w.iter().next().unwrap()), [0, 0]),
            "both have a man",
        ),
        (with(w.with(20), b, [0, 0]), "does not have"),
        (with(w, b, [5, 0]), "more than the 6 men"),
        (
            with(w, Bitboard::from_point(15).with(14), [0, 0]),
            "game ended",
        ),
    ];
    for (pos, message) in bad {
        let errors = [
            tb.value(&pos).err(),
            tb.answer(&pos, 0).err(),
            tb.answer_value(&pos, 0).err(),
            tb.line(&pos, 0, 10).err(),
            six.check_position(&pos).err().map(ProbeError::from),
        ];
        for e in errors {
            let e = e.expect("refused");
            assert!(matches!(e, ProbeError::InvalidPosition(_)), "{e}");
            let text = format!("{}", anyhow::Error::from(e).chain().last().unwrap());
            assert!(text.contains(message), "{text}");
        }
    }
    assert!(tb.line(&good, 0, 100).is_ok());
}

/// An overflow entry whose distance would wrap once a ply is added (65,535)
/// is a damaged file, not a value.
#[test]
fn overflow_distances_out_of_range_are_errors() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_into(
        dir.path(),
        six,
        Selection::Sectors(vec![SectorKey::movement(3, 3)]),
    );
    let key = SectorKey::movement(3, 3);
    let index = morris::index::SectorIndex::of(six.board, 3, 3);
    for (plies, fine) in [
        (u16::MAX as u32, false),
        (70_000, false),
        (12, false),
        (301, true),
    ] {
        std::fs::remove_file(dir.path().join("3-3.mdb")).unwrap();
        let mut values = vec![255u8; index.size() as usize];
        values[5] = morris::db::internals::ESCAPE_BYTE;
        write_sector(
            dir.path(),
            new_header(six, key, index.size()),
            |sink| sink(&values),
            &[(5, plies)],
        )
        .unwrap();
        let tb = Tablebase::open(dir.path(), six).unwrap();
        let pos = index.position(5, 0, 0);
        match tb.value(&pos) {
            Ok(v) => assert!(fine && v == morris::Value::Win(301), "{plies}: {v}"),
            Err(e) => assert!(
                !fine && matches!(e, ProbeError::Damaged { .. }),
                "{plies}: {e}"
            ),
        }
    }
}

fn folder_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Two solves into one folder at once finish with the files of a single
/// solve, byte for byte, and leave no temporary file or lock behind.
#[test]
fn two_solvers_on_one_folder_agree_with_one() {
    two_solvers_agree_with_one(None);
}

/// The same with the lock of file systems without `flock`: a file created
/// only where none is.
#[test]
fn two_solvers_agree_with_one_under_the_exclusive_file_lock() {
    two_solvers_agree_with_one(Some("exclusive-file"));
}

/// Under the exclusive-file lock, a `.held` file left by a process of this
/// host that no longer runs is taken over; one whose holder runs is waited
/// for.
#[test]
fn a_held_file_of_a_dead_process_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    std::fs::create_dir(&db).unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    // A process id above the kernel's largest: no such process runs.
    std::fs::write(db.join("3-3.held"), format!("{} 999999999\n", host.trim())).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args([
            "solve",
            "--db",
            db.to_str().unwrap(),
            "--sectors",
            "3-3",
            "--quiet",
        ])
        .env("MORRIS_LOCK", "exclusive-file")
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the solve waited for a dead holder");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
    assert!(db.join("3-3.mdb").exists() && !db.join("3-3.held").exists());

    // A live holder (this test's process) is waited for.
    std::fs::write(
        db.join("3-4.held"),
        format!("{} {}\n", host.trim(), std::process::id()),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["solve", "--db", db.to_str().unwrap(), "--sectors", "3-4"])
        .env("MORRIS_LOCK", "exclusive-file")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the solve did not wait"
    );
    std::fs::remove_file(db.join("3-4.held")).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("waiting for another solver") && err.contains(".held"),
        "{err}"
    );
}

fn two_solvers_agree_with_one(lock: Option<&str>) {
    let variant = Variant::standard();
    let single = tempfile::tempdir().unwrap();
    solve_into(single.path(), variant, Selection::MaxMen(7));
    let shared = tempfile::tempdir().unwrap();
    let db = shared.path().to_str().unwrap().to_string();
    let start = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_morris"));
        command.args(["solve", "--db", &db, "--max-men", "7", "--threads", "1"]);
        if let Some(mode) = lock {
            command.env("MORRIS_LOCK", mode);
        }
        command
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (one, two) = (folder_files(single.path()), folder_files(shared.path()));
    let names: Vec<&String> = two.iter().map(|(n, _)| n).collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".tmp") && !n.ends_with(".lock") && !n.ends_with(".held")),
        "{names:?}"
    );
    assert_eq!(one.len(), two.len(), "{names:?}");
    for ((n1, b1), (n2, b2)) in one.iter().zip(&two) {
        assert_eq!(n1, n2);
        assert!(b1 == b2, "{n1} differs");
    }
}

/// A unit locked by a live process is waited for; a lock file left by a
/// process that died (no lock held on it) and its temporary files block
/// nothing and are cleaned up.
#[test]
fn a_held_lock_is_waited_for_and_a_stale_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    std::fs::create_dir_all(db).unwrap();
    // Left by a killed solver: the lock file, and a half-written sector.
    std::fs::write(db.join("3-3.lock"), "12345\n").unwrap();
    std::fs::write(db.join("3-3.mdb.tmp.999999999"), [1u8; 100]).unwrap();
    std::fs::write(db.join("3-3.mdb.tmp"), [1u8; 100]).unwrap();
    // A dead writer of this host is seen; one of another machine sharing
    // the folder is not judged (its process ids are not this machine's).
    let host = morris::system::host_name();
    std::fs::write(db.join(format!("4-4.mdb.tmp.{host}.999999999")), [1u8; 9]).unwrap();
    let elsewhere = "4-5.mdb.tmp.another-node.example.org.999999999";
    std::fs::write(db.join(elsewhere), [1u8; 9]).unwrap();
    solve_into(
        db,
        Variant::standard(),
        Selection::Sectors(vec![SectorKey::movement(3, 3)]),
    );
    let names: Vec<String> = folder_files(db).into_iter().map(|(n, _)| n).collect();
    assert!(names.iter().any(|n| n == elsewhere), "{names:?}");
    std::fs::remove_file(db.join(elsewhere)).unwrap();
    let names: Vec<String> = folder_files(db).into_iter().map(|(n, _)| n).collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".tmp") && !n.ends_with(".lock") && !n.ends_with(".held")),
        "{names:?}"
    );
    // A lock held by someone else: the solver says it waits, and goes on
    // once the lock is released.
    let held = std::fs::File::create(db.join("3-4.lock")).unwrap();
    held.lock().unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["solve", "--db", db.to_str().unwrap(), "--sectors", "3-4"])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        !db.join("3-4.mdb").exists(),
        "solved while the lock was held"
    );
    drop(held);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("waiting for another solver"), "{err}");
    assert!(db.join("3-4.mdb").exists() && db.join("4-3.mdb").exists());
}

fn standard() -> &'static Variant {
    Variant::standard()
}

/// Cases per fuzz test: a few hundred in `cargo test`, more through
/// `scripts/fuzz.sh` (MORRIS_FUZZ_CASES).
fn fuzz_cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("MORRIS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(fuzz_cases(400))]

    /// Any text: an error or a position of play, never a panic.
    #[test]
    fn any_text_parses_or_is_refused(text in "\\PC{0,60}") {
        for v in Variant::all() {
            if let Ok(pos) = v.parse_position(&text) {
                prop_assert!(v.check_position(&pos).is_ok());
            }
        }
    }

    /// Valid position strings and FENs with one character changed, dropped
    /// or added: an error or a position of play, never a panic.
    #[test]
    fn mutated_position_strings_never_panic(
        which in 0usize..3,
        at in 0usize..80,
        ch in prop::sample::select(vec!['W', 'B', '.', '/', ' ', '*', 'O', '@', 'w', 'b', 'p', 'm', '9', '0', '-', 'x', 'é']),
        action in 0u8..3,
    ) {
        let texts = [
            "WBW/.../.../W...../.../.../BB. w 0 0",
            ".../.../.../....../.../.../... w 9 9",
            "O@O*****/********/******** b p r 2 6 2 6 0 0 -1 -1 -1 -1 0 0 1",
        ];
        let mut chars: Vec<char> = texts[which].chars().collect();
        let at = at % (chars.len() + 1);
        match action {
            0 if at < chars.len() => chars[at] = ch,
            1 if at < chars.len() => { chars.remove(at); }
            _ => chars.insert(at, ch),
        }
        let text: String = chars.into_iter().collect();
        if let Ok(pos) = standard().parse_position(&text) {
            prop_assert!(standard().check_position(&pos).is_ok());
        }
    }
}

/// The six folder solved once for the file-damage tests.
fn six_folder() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        crate::shared_folder("six-up-to-8", |dir| {
            solve_into(dir, Variant::by_name("six").unwrap(), Selection::MaxMen(8));
        })
    })
}

/// Opens a copy of the six folder whose `name` holds `bytes`, and probes a
/// spread of 4-4 positions: each answer must be an error or the right value.
fn probe_damaged(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let six = Variant::by_name("six").unwrap();
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(six_folder()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(copy.path().join(name), bytes).unwrap();
    let good = Tablebase::open(six_folder(), six).unwrap();
    let tb = Tablebase::open(copy.path(), six)
        .unwrap()
        .with_warnings(|_| {});
    let index = morris::index::SectorIndex::of(six.board, 4, 4);
    for i in (0..index.size()).step_by(4999) {
        let pos = index.position(i, 0, 0);
        if let Ok(v) = tb.value(&pos) {
            prop_assert_eq!(v, good.value(&pos).unwrap(), "{} index {}", name, i);
        }
    }
    let _ = tb.verify_checksum(SectorKey::movement(4, 4));
    let _ = tb.verify_index(SectorKey::movement(4, 4));
    Ok(())
}

/// Truncated at every offset of the header and of the first blocks, or a
/// byte changed anywhere: a sector file or stored index file gives errors or
/// right values, never a panic and never a value from a damaged block.
#[test]
fn damaged_files_never_give_a_value_or_panic() {
    for name in ["4-4.mdb", "index-4-4.idx"] {
        let original = std::fs::read(six_folder().join(name)).unwrap();
        for cut in (0..200).chain([original.len() / 2, original.len() - 1]) {
            probe_damaged(name, &original[..cut]).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(fuzz_cases(64))]

    #[test]
    fn random_bytes_and_flips_never_give_a_wrong_value(
        index_file in any::<bool>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        garbage in prop::collection::vec(any::<u8>(), 0..400),
        replace in any::<bool>(),
    ) {
        let name = if index_file { "index-4-4.idx" } else { "4-4.mdb" };
        let mut bytes = std::fs::read(six_folder().join(name)).unwrap();
        if replace {
            bytes = garbage;
        } else {
            for (at, x) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
        }
        probe_damaged(name, &bytes)?;
    }
}
