//! The edges of the commands that a new user met in a second round of
//! first use, through the real binary (message and exit code): the counter
//! outside probes, `sectors` and `solve` agreeing, a damaged folder listed
//! whole, benches that stop cleanly and say what they do, leftovers, and a
//! solve too large for its disk.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use morris::db::internals::write_packed_choosing;
use morris::db::{Coder, Encoding, SectorFile, file_name, sector_files};
use morris::{Position, Tablebase, Variant};

use crate::first_use::{THREE_THREE, fails, morris, ok, run, run_within, small_folder};

/// Counts move paths under the move-count rule of `n` plies the plain way:
/// a move that removes a man closed a mill and starts the counter afresh;
/// a position whose counter has reached `n` has no moves.
fn perft_under_rule(variant: &Variant, pos: &Position, counter: u8, n: u8, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if counter >= n {
        return 0;
    }
    variant
        .moves(pos)
        .into_iter()
        .map(|(m, child)| {
            let next = if m.remove.is_some() { 0 } else { counter + 1 };
            perft_under_rule(variant, &child, next, n, depth - 1)
        })
        .sum()
}

/// `show`, `moves` and `perft` read the counter that probes read under
/// `--n-move`, and use it: moves give their children's counters, the game
/// ends at N, perft stops there. A sixth field and a counter without the
/// rule say what a position holds.
#[test]
fn the_counter_is_read_by_show_moves_and_perft_under_the_rule() {
    let shown = ok(&["--n-move", "100", "show", &format!("{THREE_THREE} 3")]);
    assert!(shown.contains(&format!("{THREE_THREE} 3")), "{shown}");
    let listed = ok(&["--n-move", "100", "moves", &format!("{THREE_THREE} 7")]);
    assert!(
        listed
            .lines()
            .all(|l| l.ends_with(" 8") || l.ends_with(" 0"))
            && listed.lines().count() > 10,
        "{listed}"
    );
    let ended = ok(&["--n-move", "100", "moves", &format!("{THREE_THREE} 100")]);
    assert!(ended.contains("drawn by the move-count rule"), "{ended}");
    let shown = ok(&["--n-move", "100", "show", &format!("{THREE_THREE} 100")]);
    assert!(
        shown.contains("game over: drawn by the move-count rule"),
        "{shown}"
    );

    let err = fails(
        &["--n-move", "100", "show", &format!("{THREE_THREE} 7 1")],
        1,
    );
    assert!(
        err.contains("4 or 5 fields") && err.contains("found 6"),
        "{err}"
    );
    let err = fails(&["show", &format!("{THREE_THREE} 7")], 1);
    assert!(err.contains("--n-move"), "{err}");

    // perft against the plain count with mills read from the removals.
    let standard = Variant::standard();
    let text = "WW./B../.../W.B.B./.../.../WB. w 0 0";
    let pos = standard.parse_position(text).unwrap();
    let plain = standard.perft(&pos, 4);
    let mut differs = false;
    for counter in [0u8, 96, 97, 98, 100] {
        let counted: u64 = ok(&[
            "--n-move",
            "100",
            "perft",
            &format!("{text} {counter}"),
            "4",
        ])
        .trim()
        .parse()
        .unwrap();
        assert_eq!(
            counted,
            perft_under_rule(standard, &pos, counter, 100, 4),
            "counter {counter}"
        );
        differs |= counted != plain;
    }
    assert!(
        differs,
        "the rule never cut a path: the test would not bite"
    );
}

/// A game that is over says why: a side down to two men, or blocked.
#[test]
fn a_finished_game_says_why_it_ended() {
    let down = ok(&["moves", "WW./.../.../BBB.../.../.../... w 0 0"]);
    assert!(
        down.contains("White to move has lost, with 2 men"),
        "{down}"
    );
    // White's four corners, each hemmed in by Black's midpoints.
    let blocked = ok(&["show", "WBW/.../.../B....B/.../.../WBW w 0 0"]);
    assert!(
        blocked.contains("White to move has lost: it has no legal move"),
        "{blocked}"
    );
}

/// The first column of `sectors`: the sectors it lists.
fn listed_sectors(table: &str) -> Vec<String> {
    table
        .lines()
        .skip(1)
        .take_while(|l| !l.contains(" sector") && !l.starts_with("a solve"))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// `sectors` lists what `solve` with the same flags writes, in the same
/// words: a folder solved with `--max-men 7` holds exactly the files that
/// `sectors --max-men 7` lists; one sector is "1 sector".
#[test]
fn sectors_lists_what_solve_writes() {
    let (_dir, db) = small_folder();
    let mut written: Vec<String> = std::fs::read_dir(&db)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".mdb").map(str::to_string)
        })
        .collect();
    written.sort();
    let table = ok(&["sectors", "--max-men", "7"]);
    let mut listed = listed_sectors(&table);
    listed.sort();
    assert_eq!(listed, written, "{table}");
    assert!(table.contains("a solve of them from nothing"), "{table}");
    let one = ok(&["sectors", "--sectors", "3-3"]);
    assert!(one.contains("1 sector (1 movement)"), "{one}");
    // A placement sector brings what it depends on.
    let placement = ok(&["sectors", "--sectors", "3+1-3+0"]);
    assert!(listed_sectors(&placement).len() > 1, "{placement}");
    let err = fails(&["sectors", "--max-men", "2"], 1);
    assert!(err.contains("nothing to solve"), "{err}");
}

/// `verify` lists every sector it cannot check, with the damaged file or
/// the missing sector, then exits 3 with the command that rebuilds them.
#[test]
fn verify_lists_every_damaged_file_before_failing() {
    let (dir, db) = small_folder();
    let packed = dir.path().join("packed").to_str().unwrap().to_string();
    ok(&["pack", "--db", &db, "--out", &packed]);
    // The raw folder as solved, to pack again from once the packed one is
    // damaged.
    let db_before_damage = dir.path().join("raw-copy").to_str().unwrap().to_string();
    std::fs::create_dir_all(&db_before_damage).unwrap();
    for entry in std::fs::read_dir(&db).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            Path::new(&db_before_damage).join(entry.file_name()),
        )
        .unwrap();
    }
    // A byte near the end flipped: the file opens, a block fails its check.
    let damage = |path: &Path| {
        let mut bytes = std::fs::read(path).unwrap();
        let last = bytes.len() - 10;
        bytes[last] ^= 0xff;
        std::fs::write(path, bytes).unwrap();
    };
    for name in ["3-4.mdb", "4-3.mdb"] {
        damage(&Path::new(&db).join(name));
    }
    let (code, out, err) = run(&["verify", "--db", &db]);
    assert_eq!(code, 3, "{err}");
    assert!(
        out.contains("3-4: CANNOT BE CHECKED") && out.contains("4-3: CANNOT BE CHECKED"),
        "{out}"
    );
    assert!(out.contains("3-3: ok"), "the check stopped early: {out}");
    assert!(
        err.contains("3-4.mdb is corrupted")
            && err.contains("4-3.mdb is corrupted")
            && err.contains("--sectors 3-4,4-3"),
        "{err}"
    );
    // A packed folder's files are rebuilt through its raw folder.
    let path = Path::new(&packed).join("3-4.mdb");
    damage(&path);
    let (code, _, err) = run(&["verify", "--db", &packed]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("3-4.mdb is corrupted")
            && err.contains("raw folder")
            && err.contains("--sectors 3-4")
            && err.contains(&format!("pack --db RAW --out {packed}")),
        "{err}"
    );
    // Followed, the hint mends the folder.
    std::fs::remove_file(&path).unwrap();
    ok(&["pack", "--db", &db_before_damage, "--out", &packed]);
    let (code, _, err) = run(&["verify", "--db", &packed]);
    assert_eq!(code, 0, "{err}");
    // A folder that only lacks sectors (as one that `solve --pack` is still
    // filling does) is not called damaged.
    for folder in [&packed, &db_before_damage] {
        std::fs::remove_file(Path::new(folder).join("3-3.mdb")).unwrap();
        let (code, _, err) = run(&["verify", "--db", folder]);
        assert_eq!(code, 3, "{err}");
        assert!(
            err.contains("sector 3-3 is missing")
                && err.contains("nothing read was damaged")
                && err.contains("--sectors 3-3")
                && !err.contains("delete each damaged file"),
            "{err}"
        );
    }
}

/// `play --from` a position whose sector the folder lacks fails before it
/// draws a board; `solve --pack` into its own `--db` is refused as usage
/// and leaves no folder.
#[test]
fn play_and_solve_refuse_before_they_start() {
    let (dir, db) = small_folder();
    let four_four = "WBW/B../.../W...../.../B../WB. w 0 0";
    let (code, out, err) = run(&["play", "--db", &db, "--human", "none", "--from", four_four]);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty(), "a board was drawn: {out}");
    assert!(err.contains("4-4"), "{err}");

    let fresh = dir.path().join("fresh").to_str().unwrap().to_string();
    let err = fails(
        &[
            "solve",
            "--db",
            &fresh,
            "--sectors",
            "3-3",
            "--pack",
            &format!("{fresh}/"),
        ],
        2,
    );
    assert!(err.contains("is the --db folder"), "{err}");
    assert!(!Path::new(&fresh).exists(), "a refused solve left {fresh}");
    // Packing into a folder of raw files is refused by the library, after
    // it made the --db folder: which goes again.
    let err = fails(
        &["solve", "--db", &fresh, "--sectors", "3-3", "--pack", &db],
        3,
    );
    assert!(err.contains("a folder of raw files"), "{err}");
    assert!(!Path::new(&fresh).exists(), "a refused solve left {fresh}");
}

/// A full check of files searched per position (predicted loss bits) says
/// up front how long it takes, and what is faster; the default packing and
/// the plain loss bits (`--wdl`), each sector decoded once, need no such
/// word. A folder without plies says its check is not a proof.
#[test]
fn verify_of_a_searched_folder_says_how_long_it_takes() {
    // Six's sectors: a full check of the loss bits of standard's 3-3 takes
    // seconds.
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_str().unwrap().to_string();
    ok(&[
        "--variant",
        "six",
        "solve",
        "--db",
        &db,
        "--max-men",
        "7",
        "--quiet",
    ]);
    // Predicted loss bits: `pack --wdl --zstd` predicts where that packs
    // smaller; here every file is.
    let predicted = dir.path().join("predicted");
    std::fs::create_dir_all(&predicted).unwrap();
    Tablebase::create_packed(&predicted, six, Encoding::PackedLossBits).unwrap();
    for sector in sector_files(Path::new(&db)).unwrap() {
        let source = SectorFile::open(&Path::new(&db).join(file_name(sector)), false).unwrap();
        write_packed_choosing(
            &predicted,
            &source,
            Encoding::PackedLossBits,
            six,
            Some(true),
            Coder::ZSTD,
        )
        .unwrap();
    }
    let predicted = predicted.to_str().unwrap();
    let (code, _, err) = run(&["verify", "--db", predicted, "--sectors", "3-3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("predicted loss bits") && err.contains("--sample"),
        "{err}"
    );
    assert!(
        err.contains("consistent") && err.contains("not proven"),
        "{err}"
    );
    // The loss bits as `pack --wdl` writes them are decoded once per
    // sector: no such wait, but no proof either.
    let bits = dir.path().join("bits").to_str().unwrap().to_string();
    ok(&["pack", "--db", &db, "--wdl", "--out", &bits]);
    let (code, _, err) = run(&["verify", "--db", &bits]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("predicted loss bits"), "{err}");
    assert!(err.contains("not proven"), "{err}");
    // The default packing: neither.
    let losses = dir.path().join("losses").to_str().unwrap().to_string();
    ok(&["pack", "--db", &db, "--out", &losses]);
    let (code, _, err) = run(&["verify", "--db", &losses]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("loss bits") && !err.contains("not proven"),
        "{err}"
    );
    let (_, _, err) = run(&["verify", "--db", &db, "--sectors", "3-3"]);
    assert!(!err.contains("loss bits"), "{err}");
}

/// A bench too large is refused with its size; a bench stopped by SIGTERM
/// removes its temporary folder; `bench --probe` names the machine before
/// it starts timing.
#[test]
fn benches_refuse_runaways_clean_up_and_speak_at_once() {
    let err = fails(&["bench", "--max-men", "300"], 2);
    assert!(
        err.contains("positions") && err.contains("morris solve"),
        "{err}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let child = morris()
        .args(["bench", "--max-men", "10"])
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let folder = tmp.path().join(format!("morris-bench-{}", child.id()));
    let started = std::time::Instant::now();
    while !folder.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no bench folder"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing left: neither the folder nor the renamed one it is removed as.
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(
        left.is_empty(),
        "the bench left {left:?} ({})",
        folder.display()
    );

    let (_dir, db) = small_folder();
    let mut child = morris()
        .args(["bench", "--probe", &db])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.starts_with("machine:"), "{first}");
    // A bench that runs to its end on the small folder.
    let (code, out, err) = run_within(&["bench", "--probe", &db], Duration::from_secs(120));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("positions per pass")
            && out.contains("probes/s")
            && out.contains("bits per position")
            && out.contains("answer with every move and its value:")
            && out.contains("answer with every move, its value, replies and errors")
            && out.contains("ms a position on one thread"),
        "{out}"
    );
}

/// The README's examples write folders that git does not list, and no test
/// keeps a temporary folder in a static, which is never dropped.
#[test]
fn examples_and_tests_leave_nothing_behind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ignored = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "/db-*/"), "{ignored}");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains("--db db-six"),
        "the README's example changed: check .gitignore"
    );
    for entry in std::fs::read_dir(root.join("tests/integration")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let kept = ["OnceLock<tempfile::", "OnceLock<(tempfile::"];
        assert!(
            kept.iter().all(|k| !text.contains(k)) || path.ends_with("edges.rs"),
            "{} keeps a temporary folder in a static",
            path.display()
        );
    }
}

/// A folder that does not exist, a packed folder given to `solve`, and a
/// folder without the rule probed under `--n-move` are each told what is
/// wrong and what to do instead (exit 3, a database problem).
#[test]
fn folder_mistakes_say_what_to_do_instead() {
    let (dir, db) = small_folder();
    let missing = dir.path().join("nowhere").to_str().unwrap().to_string();
    let err = fails(&["probe", "--db", &missing, THREE_THREE], 3);
    assert!(
        err.contains("there is no database folder") && err.contains("morris solve --db"),
        "{err}"
    );
    let err = fails(&["--n-move", "100", "probe", "--db", &db, THREE_THREE], 3);
    assert!(
        err.contains("leave out --n-move") && !err.contains("--variant standard"),
        "{err}"
    );
    let err = fails(
        &[
            "--variant",
            "strict-mills",
            "probe",
            "--db",
            &db,
            THREE_THREE,
        ],
        3,
    );
    assert!(
        err.contains("holds a database of standard, not of strict-mills")
            && err.contains("leave out --variant"),
        "{err}"
    );
    // A counter without the rule: the library says what is wrong, the
    // binary which option reads it.
    let err = fails(&["probe", "--db", &db, &format!("{THREE_THREE} 3")], 1);
    assert!(
        err.contains("found 5") && err.contains("hint: a fifth field (the counter)"),
        "{err}"
    );
    assert_eq!(err.matches("--n-move").count(), 1, "{err}");
    let packed = dir.path().join("packed").to_str().unwrap().to_string();
    ok(&["pack", "--db", &db, "--out", &packed, "--plain"]);
    let err = fails(&["solve", "--db", &packed, "--sectors", "3-3"], 3);
    assert!(
        err.contains("packed files") && err.contains("solving writes raw files"),
        "{err}"
    );
}

/// A solve whose raw files cannot fit on the folder's disk is refused
/// before it writes anything, with the figures; one that fits says how much
/// it will add. On a 2 MB file system of its own, where the system lets a
/// test mount one (as root on Linux); elsewhere it says it did not run.
#[test]
fn a_solve_too_large_for_its_disk_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = dir.path().join("tiny");
    std::fs::create_dir(&tiny).unwrap();
    let Some(_unmount) = mount_tiny(&tiny, "2m") else {
        eprintln!("not run: cannot mount a small file system here");
        return;
    };
    let db = tiny.join("db");
    let db = db.to_str().unwrap();
    // Up to 9 men: 44.5 MB of raw files.
    let err = fails(&["solve", "--db", db, "--max-men", "9"], 3);
    assert!(
        err.contains("raw files need 44.5") && err.contains("MB free"),
        "{err}"
    );
    assert!(err.contains("--pack DIR"), "{err}");
    assert!(!Path::new(db).exists(), "a refused solve made its folder");
    let packed = dir.path().join("packed");
    let args = ["solve", "--db", db, "--max-men", "9", "--pack"];
    let err = fails(&[&args[..], &[packed.to_str().unwrap()]].concat(), 3);
    assert!(err.contains("(packing as it goes)"), "{err}");
    assert!(!packed.exists(), "a refused solve made its packed folder");
    // 3-3 alone fits (0.17 MB), and says so.
    let (code, _, log) = run(&["solve", "--db", db, "--max-men", "6"]);
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("up to 0.1") && log.contains("MB free"),
        "{log}"
    );
}

/// A packed folder on a disk of its own too small for its estimated share
/// is named in the forecast, under `--quiet` too (the raw folder's disk has
/// room). A 64 KB file system mounted for the test, as above; the solve is
/// stopped once it has told its forecast.
#[test]
fn a_packed_folder_on_a_small_disk_of_its_own_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = dir.path().join("tiny");
    std::fs::create_dir(&tiny).unwrap();
    let Some(_unmount) = mount_tiny(&tiny, "64k") else {
        eprintln!("not run: cannot mount a small file system here");
        return;
    };
    let (db, packed, wdl) = (
        dir.path().join("db"),
        dir.path().join("packed"),
        tiny.join("wdl"),
    );
    let mut child = morris()
        .args(["--variant", "six", "solve", "--all", "--db"])
        .arg(&db)
        .arg("--pack")
        .arg(&packed)
        .arg("--pack-wdl")
        .arg(&wdl)
        .arg("--quiet")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut forecast = String::new();
    let mut log = BufReader::new(child.stderr.take().unwrap());
    while !forecast.contains("more disk") && log.read_line(&mut forecast).unwrap() > 0 {}
    let _ = child.kill();
    let _ = child.wait();
    // Six whole: 3.1 MB raw, so about 0.12 MB of win/draw/loss files; a
    // warning, said under --quiet too.
    assert!(
        forecast.contains("up to 0.12")
            && forecast.contains(&format!("in {} (another disk), 0.0", wdl.display()))
            && forecast.contains("MB free: it may not fit"),
        "{forecast}"
    );
    // Solved and packed whole, then asked for the win/draw/loss folder on
    // that disk: nothing to solve, but the catch-up fills it; foreseen.
    // The disk then fills, and the hint does not blame TMPDIR.
    let solve = ["--variant", "six", "solve", "--all", "--db"];
    let (db, packed) = (db.to_str().unwrap(), packed.to_str().unwrap());
    ok(&[&solve[..], &[db, "--pack", packed, "--quiet"]].concat());
    let wdl = tiny.join("wdl2");
    let late = [&solve[..], &[db, "--pack", packed, "--pack-wdl"]].concat();
    let (code, _, err) = run(&[&late[..], &[wdl.to_str().unwrap()]].concat());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("0 to solve")
            && err.contains("up to 0.12")
            && err.contains("may not fit")
            && err.contains("No space left")
            && !err.contains("TMPDIR"),
        "{err}"
    );
}

/// Unmounts its file system when dropped.
struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A tmpfs of `size` mounted on `dir`, where the system lets a test mount
/// one (as root on Linux).
fn mount_tiny(dir: &Path, size: &str) -> Option<Unmount> {
    std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then(|| Unmount(dir.to_path_buf()))
}

/// A packed folder's check (and `pack` of one) decodes its sectors into the
/// system's temporary folder: one too small for what the check holds at
/// once is refused before anything is decoded, with the room it needs; one
/// of just that room suffices; one that cannot be written stops the check
/// at the first sector with that one error (it was a line for every sector
/// after it). Each hint names TMPDIR. On small file systems of its own,
/// where the system lets a test mount them (as root on Linux).
#[test]
fn a_packed_check_without_room_to_decode_says_so_once() {
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    let (raw, packed) = (raw.to_str().unwrap(), packed.to_str().unwrap());
    ok(&["--variant", "six", "solve", "--all", "--db", raw, "--quiet"]);
    ok(&["pack", "--db", raw, "--out", packed]);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let with_tmpdir = |size: &str, args: &[&str]| {
        let _unmount = mount_tiny(&tmp, size)?;
        let out = morris().args(args).env("TMPDIR", &tmp).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let left = std::fs::read_dir(&tmp).unwrap().count();
        Some((out.status.code(), err, left))
    };
    let verify = ["verify", "--db", packed];
    let Some((code, err, left)) = with_tmpdir("64k", &verify) else {
        eprintln!("not run: cannot mount a small file system here");
        return;
    };
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("need at least 1.9") && err.contains("TMPDIR"),
        "{err}"
    );
    assert_eq!(left, 0, "the refused check wrote there");
    let wdl = dir.path().join("wdl");
    let repack = [
        "pack",
        "--db",
        packed,
        "--out",
        wdl.to_str().unwrap(),
        "--wdl",
    ];
    let (code, err, _) = with_tmpdir("64k", &repack).unwrap();
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("need at least 0.1") && err.contains("TMPDIR"),
        "{err}"
    );
    // The win/draw/loss catch-up of a solve decodes there too.
    let (raw2, packed2) = (dir.path().join("raw2"), dir.path().join("packed2"));
    let (raw2, packed2) = (raw2.to_str().unwrap(), packed2.to_str().unwrap());
    let solve = [
        "--variant",
        "six",
        "solve",
        "--all",
        "--db",
        raw2,
        "--pack",
        packed2,
    ];
    ok(&[&solve[..], &["--quiet"]].concat());
    let wdl2 = dir.path().join("wdl2");
    let catch_up = [&solve[..], &["--pack-wdl", wdl2.to_str().unwrap()]].concat();
    let (code, err, _) = with_tmpdir("64k", &catch_up).unwrap();
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("need at least 0.1") && err.contains("TMPDIR"),
        "{err}"
    );
    // The room it said (1.92 MB, and a little for the folder): enough.
    let (code, err, left) = with_tmpdir("1900k", &verify).unwrap();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(left, 0, "the check left its decoded sectors");
    // Room (past the 1.92 MB), but nothing can be written there: the first
    // decoded file fails, and the check stops there.
    let (code, err, _) = with_tmpdir("4m,ro", &verify).unwrap();
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.matches("cannot write").count() == 1
            && err.contains("/morris-verify-")
            && !err.contains("could not be checked"),
        "{err}"
    );
    assert!(err.contains("TMPDIR"), "{err}");
    // A killed check's scratch folder is not in the way: removed first.
    let dead = tmp.join("morris-verify-4294967");
    let mounted = mount_tiny(&tmp, "2400k").unwrap();
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("6-6.mdb"), vec![0u8; 1_500_000]).unwrap();
    let out = morris().args(verify).env("TMPDIR", &tmp).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dead.exists());
    drop(mounted);
}

/// `pack` into a folder where a killed `pack` on this machine left a
/// temporary file removes it (one of another machine stays: it may still
/// be writing).
#[test]
fn pack_removes_what_a_killed_pack_left() {
    let (dir, db) = small_folder();
    let packed = dir.path().join("packed");
    std::fs::create_dir(&packed).unwrap();
    let host = morris::system::host_name();
    // Above any process number Linux gives.
    let ours = packed.join(format!("3-3.mdb.tmp.{host}.4294967"));
    let theirs = packed.join(format!("3-4.mdb.tmp.another-{host}.4294967"));
    for f in [&ours, &theirs] {
        std::fs::write(f, "cut short").unwrap();
    }
    ok(&["pack", "--db", &db, "--out", packed.to_str().unwrap()]);
    if cfg!(target_os = "linux") {
        assert!(!ours.exists() && theirs.exists());
    }
}
