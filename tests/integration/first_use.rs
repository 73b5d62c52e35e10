//! What a new user and a damaged disk run into, through the real binary:
//! messages, exit codes, and work that goes on.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

pub(crate) fn morris() -> Command {
    Command::new(env!("CARGO_BIN_EXE_morris"))
}

/// Runs `morris ARGS`, returning (exit code, stdout, stderr).
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = morris().args(args).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

pub(crate) fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

pub(crate) fn fails(args: &[&str], code: i32) -> String {
    let (got, _, err) = run(args);
    assert_eq!(got, code, "{args:?}: {err}");
    err
}

/// A standard folder with the movement sectors up to 7 men.
pub(crate) fn small_folder() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_str().unwrap().to_string();
    ok(&["solve", "--db", &db, "--max-men", "7", "--quiet"]);
    (dir, db)
}

pub(crate) const THREE_THREE: &str = "WBW/.../.../W...../.../.../BB. w 0 0";

/// The README's first steps on a small folder: a probe, a game from a
/// position of the solved sectors; and the start, whose sectors are not
/// there, asked for with the size of the job.
#[test]
fn the_first_session_works_and_a_missing_sector_says_how_big_it_is() {
    let (_dir, db) = small_folder();
    assert!(ok(&["probe", "--db", &db, THREE_THREE, "--line"]).contains("line:"));
    let game = ok(&[
        "play",
        "--db",
        &db,
        "--human",
        "none",
        "--seed",
        "1",
        "--from",
        THREE_THREE,
    ]);
    assert!(game.contains("has lost") || game.contains("draw"), "{game}");
    let err = fails(&["play", "--db", &db, "--human", "none"], 3);
    assert!(
        err.contains("0+9-0+9")
            && err.contains("positions")
            && err.contains("hours")
            && err.contains("GB")
            && err.contains("hint: build it with `morris solve --db"),
        "{err}"
    );
    let help = ok(&["solve", "--help"]);
    assert!(help.contains("10 men") && !help.contains("9 men"), "{help}");
}

/// A batch goes on past a line that is not UTF-8, and says which line.
#[test]
fn a_line_that_is_not_utf8_is_one_error_among_answers() {
    let (_dir, db) = small_folder();
    let mut child = morris()
        .args(["probe", "--db", &db, "--batch", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(THREE_THREE.as_bytes()).unwrap();
    input.write_all(b"\n\xff\xfe\n").unwrap();
    input.write_all(THREE_THREE.as_bytes()).unwrap();
    input.write_all(b"\n").unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].contains("line 2 is not UTF-8"), "{text}");
    assert!(
        lines[0].contains("win") && lines[2].contains("win"),
        "{text}"
    );
}

/// From a pipe each line is answered before the next one is written.
#[test]
fn a_batch_from_a_pipe_answers_each_line_as_it_comes() {
    let (_dir, db) = small_folder();
    let mut child = morris()
        .args(["probe", "--db", &db, "--batch", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let (answers, arrived) = std::sync::mpsc::channel();
    let output = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            let _ = answers.send(line.unwrap());
        }
    });
    for _ in 0..3 {
        writeln!(input, "{THREE_THREE}").unwrap();
        input.flush().unwrap();
        let answer = arrived
            .recv_timeout(Duration::from_secs(30))
            .expect("answered");
        assert!(answer.contains("\"wdl\":\"win\""), "{answer}");
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

/// A huge bad line is not echoed back whole.
#[test]
fn a_huge_bad_line_gets_a_short_answer() {
    let (_dir, db) = small_folder();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, format!("{}\n", "x".repeat(1 << 20))).unwrap();
    let out = morris()
        .args(["probe", "--db", &db, "--batch", input.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() < 2000, "{} bytes", out.stdout.len());
    assert!(out.stderr.len() < 2000, "{} bytes", out.stderr.len());
}

/// Progress to a closed pipe neither crashes nor stops a solve.
#[test]
fn a_solve_into_a_closed_pipe_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let script =
        r#""$0" solve --db "$1" --max-men 7 2>&1 | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}""#;
    let out = bash(script, &db);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
    assert!(db.join("3-4.mdb").exists() && db.join("4-3.mdb").exists());
}

/// Runs a bash `script` with `$0` the morris binary and `$1` the folder `db`.
fn bash(script: &str, db: &Path) -> std::process::Output {
    Command::new("bash")
        .args([
            "-c",
            script,
            env!("CARGO_BIN_EXE_morris"),
            db.to_str().unwrap(),
        ])
        .output()
        .unwrap()
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

/// A damaged stored index is named by every check, worked around by probes
/// (saying so once), and rewritten by `solve`; a truncated one too.
#[test]
fn a_damaged_index_is_named_worked_around_and_rewritten() {
    let (_dir, db) = small_folder();
    let index = Path::new(&db).join("index-3-4.idx");
    let original = std::fs::read(&index).unwrap();
    let pos = "WBW/.../.../W...../.../.../BBB w 0 0"; // 3 white, 4 black, White to move
    let good = ok(&["probe", "--db", &db, pos]);
    flip(&index, 100);
    let (code, out, err) = run(&["probe", "--db", &db, pos]);
    assert_eq!((code, out.as_str()), (0, good.as_str()), "{err}");
    assert_eq!(err.matches("index-3-4.idx").count(), 1, "{err}");
    for check in ["verify", "stats"] {
        let err = fails(&[check, "--db", &db], 3);
        assert!(
            err.contains("index-3-4.idx") && !err.contains("3-4.mdb is"),
            "{check}: {err}"
        );
    }
    let (code, _, err) = run(&["solve", "--db", &db, "--max-men", "7"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("stored index of 3-4"), "{err}");
    assert_eq!(std::fs::read(&index).unwrap(), original);
    std::fs::write(&index, &original[..original.len() / 3]).unwrap();
    let (code, out, err) = run(&["probe", "--db", &db, pos]);
    assert_eq!((code, out.as_str()), (0, good.as_str()), "{err}");
    assert!(err.contains("truncated"), "{err}");
    ok(&["solve", "--db", &db, "--max-men", "7", "--quiet"]);
    assert_eq!(std::fs::read(&index).unwrap(), original);
    ok(&["verify", "--db", &db]);
}

/// A damaged sector file: every command names it, exits 3, and says what to
/// delete and run again; a deleted one is reported by `stats`.
#[test]
fn a_damaged_or_deleted_sector_is_named() {
    let (_dir, db) = small_folder();
    let file = Path::new(&db).join("3-4.mdb");
    let saved = std::fs::read(&file).unwrap();
    let pos = "WBW/.../.../W...../.../.../BBB w 0 0";
    // A byte in every block of values: whichever a command reads is damaged.
    let mut damaged = saved.clone();
    for at in (128..saved.len() * 9 / 10).step_by(4096) {
        damaged[at] ^= 0x20;
    }
    std::fs::write(&file, &damaged).unwrap();
    for args in [
        vec!["probe", "--db", &db, pos],
        vec!["stats", "--db", &db],
        vec!["verify", "--db", &db],
        vec!["solve", "--db", &db, "--max-men", "7"],
    ] {
        let err = fails(&args, 3);
        assert!(
            err.contains("3-4.mdb") && err.contains("delete") && err.contains("--sectors 3-4"),
            "{args:?}: {err}"
        );
    }
    // Reserved header bytes are checked too; each cause is said once.
    std::fs::write(&file, &saved).unwrap();
    flip(&file, 120);
    let err = fails(&["probe", "--db", &db, pos], 3);
    assert!(err.contains("reserved"), "{err}");
    flip(&file, 120);
    flip(&file, 20);
    let err = fails(&["probe", "--db", &db, pos], 3);
    assert_eq!(err.matches("checksum").count(), 1, "{err}");
    std::fs::remove_file(&file).unwrap();
    let err = fails(&["stats", "--db", &db], 3);
    assert!(err.contains("lacks") && err.contains("3-4"), "{err}");
}

/// A write that fails (here: a file-size limit, as a full disk would) names
/// the file and leaves no temporary file behind.
#[test]
fn a_failed_write_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let script = r#"trap "" XFSZ; ulimit -f 64; exec "$0" solve --db "$1" --sectors 3-3 --quiet"#;
    let out = bash(script, &db);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("cannot write") && err.contains("3-3.mdb"),
        "{err}"
    );
    let names: Vec<String> = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
}

/// An empty or inconsistent manifest is said to be so.
#[test]
fn a_bad_manifest_is_named() {
    let (_dir, db) = small_folder();
    let manifest = Path::new(&db).join("morris-db.txt");
    let saved = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, "").unwrap();
    let err = fails(&["probe", "--db", &db, THREE_THREE], 3);
    assert!(
        err.contains("morris-db.txt") && err.contains("empty"),
        "{err}"
    );
    std::fs::write(&manifest, saved.replace("standard", "six")).unwrap();
    let err = fails(&["probe", "--db", &db, THREE_THREE], 3);
    assert!(err.contains("fingerprint"), "{err}");
}

/// One rule for a position of play: show and moves refuse what probe refuses.
#[test]
fn show_moves_and_probe_share_one_rule() {
    let (_dir, db) = small_folder();
    let over = "WWW/.../.../....../.../.../BB. w 0 0";
    let messages: Vec<String> = [
        vec!["show", over],
        vec!["moves", over],
        vec!["probe", "--db", &db, over],
    ]
    .iter()
    .map(|args| fails(args, 1))
    .collect();
    for m in &messages {
        assert!(m.contains("Black has 2 men and is not to move"), "{m}");
    }
}

/// `verify --resume` goes on where an earlier check stopped: the sectors
/// recorded as passed are skipped, a sector whose file changed since is
/// checked again.
#[test]
fn an_interrupted_verify_resumes() {
    let (_dir, db) = small_folder();
    let first = ok(&["verify", "--db", &db, "--resume"]);
    assert!(!first.contains("checked before"), "{first}");
    let again = ok(&["verify", "--db", &db, "--resume"]);
    assert_eq!(again.matches("checked before,").count(), 3, "{again}");
    // A record whose checksum no longer matches the file: checked again.
    let record = Path::new(&db).join("morris-verified.txt");
    let text = std::fs::read_to_string(&record).unwrap();
    let changed: String = text
        .lines()
        .map(|l| {
            if l.starts_with("3-4 ") {
                "3-4 0000000000000000".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&record, changed).unwrap();
    let third = ok(&["verify", "--db", &db, "--resume"]);
    assert!(
        third.contains("3-4: ok (") && !third.contains("3-4: ok (checked before"),
        "{third}"
    );
}

/// Runs `morris ARGS` and kills it after `limit`: a hang fails the test
/// instead of stalling the suite.
pub(crate) fn run_within(args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = morris()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("{args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The output is small here: unread pipes do not fill while it waits.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        stderr,
    )
}

/// A sample larger than its sector checks each position once (it took
/// minutes, and never ended for a huge one); thread counts of 0 or past any
/// machine's are refused as usage, before any folder is made.
#[test]
fn huge_samples_are_capped_and_absurd_thread_counts_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six").to_str().unwrap().to_string();
    ok(&[
        "--variant",
        "six",
        "solve",
        "--db",
        &db,
        "--max-men",
        "6",
        "--quiet",
    ]);
    let (code, out, err) = run_within(
        &[
            "verify",
            "--db",
            &db,
            "--sectors",
            "3-3",
            "--sample",
            "99999999999999",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the sample covers the sector"), "{out}");
    // A sample smaller than the sector is still a sample.
    let out = ok(&["verify", "--db", &db, "--sectors", "3-3", "--sample", "100"]);
    assert!(out.contains("100 positions sampled"), "{out}");

    let fresh = dir.path().join("fresh").to_str().unwrap().to_string();
    for threads in ["0", "100000"] {
        let err = fails(
            &[
                "solve",
                "--db",
                &fresh,
                "--sectors",
                "3-3",
                "--threads",
                threads,
            ],
            2,
        );
        assert!(err.contains("give 1 to 1024 worker threads"), "{err}");
    }
    let err = fails(&["bench", "--threads", "0"], 2);
    assert!(err.contains("worker threads"), "{err}");
    assert!(
        !Path::new(&fresh).exists(),
        "a refused solve made its folder"
    );
}

/// The help of commands that take no folder does not send the user to one,
/// and the notation it cites is a file of the project.
#[test]
fn help_cites_the_projects_own_rules_and_no_folder_where_none_is_taken() {
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs/RULES.md")
            .exists()
    );
    for command in ["show", "moves", "perft", "sectors"] {
        let help = ok(&[command, "--help"]);
        assert!(
            !help.contains("the variant the --db folder holds"),
            "{command}: {help}"
        );
        assert!(!help.contains("see RULES.md"), "{command}: {help}");
        if help.contains("Notation") {
            assert!(help.contains("docs/RULES.md"), "{command}: {help}");
        }
    }
}

/// A solve that has nothing to do, or is asked for a sector the game never
/// reaches, says so and leaves no folder behind.
#[test]
fn an_empty_or_unreachable_selection_is_refused_without_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_str().unwrap().to_string();
    let err = fails(&["solve", "--db", &db, "--max-men", "2"], 1);
    assert!(err.contains("nothing to solve"), "{err}");
    let err = fails(&["solve", "--db", &db, "--sectors", "10-10"], 1);
    assert!(err.contains("not reachable"), "{err}");
    assert!(!Path::new(&db).exists(), "a refused solve left {db}");
}
