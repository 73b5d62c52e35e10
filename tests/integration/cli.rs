use assert_cmd::Command;

fn morris() -> Command {
    Command::cargo_bin("morris").unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = morris().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Exit code 1: bad input.
fn failure(args: &[&str]) -> String {
    failure_with(args, 1)
}

/// Exit code 3: a database problem.
fn database_failure(args: &[&str]) -> String {
    failure_with(args, 3)
}

fn failure_with(args: &[&str], code: i32) -> String {
    let out = morris().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?} must fail with {code}"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn show_moves_and_perft() {
    assert!(stdout(&["show", "start"]).contains(".../.../.../....../.../.../... w 9 9"));
    assert_eq!(stdout(&["perft", "start", "4"]).trim(), "255024");
    assert_eq!(
        stdout(&["--variant", "six", "perft", "start", "2"]).trim(),
        "240"
    );
    let moves = stdout(&["moves", "WBW/.../.../W...../.../.../BB. w 0 0"]);
    assert!(moves.contains("a7-b6  .BW/W../.../W...../.../.../BB. b 0 0"));
    let help = stdout(&["--help"]);
    assert!(help.contains("Notation") && help.contains("Sanmill"));
}

#[test]
fn bad_input_is_a_clear_error() {
    assert!(failure(&["show", "nonsense"]).contains("4 fields"));
    let unknown = failure_with(&["--variant", "chess", "show", "start"], 2);
    assert!(
        unknown.contains("invalid value 'chess'") && unknown.contains("six"),
        "{unknown}"
    );
    assert!(
        failure(&["show", ".../.../.../....../.../.../... w 9 99"]).contains("Black's men in hand")
    );
}

#[test]
fn sectors_solve_stats_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let sectors = stdout(&["sectors", "--max-men", "6"]);
    assert!(sectors.contains("3-3") && sectors.contains("169626"));
    stdout(&["solve", "--db", db, "--sectors", "3-3", "--quiet"]);
    let stats = stdout(&["stats", "--db", db]);
    assert!(
        stats.contains("140621") && stats.contains("28736") && stats.contains("269"),
        "{stats}"
    );
    assert!(stdout(&["verify", "--db", db]).contains("3-3: ok"));
    assert!(stdout(&["verify", "--db", db, "--sectors", "3-3"]).contains("3-3: ok"));
    // Another variant's folder is refused.
    assert!(
        database_failure(&["--variant", "six", "solve", "--db", db, "--max-men", "6"])
            .contains("database of standard")
    );
    // A flipped byte is caught.
    let path = dir.path().join("db").join("3-3.mdb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(database_failure(&["verify", "--db", db]).contains("checksum"));
    // A truncated file is corrupted, not an I/O error.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..500]).unwrap();
    assert!(database_failure(&["stats", "--db", db]).contains("truncated"));
}

/// The whole game of six in a temporary folder, through the binary.
fn six_database() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_str().unwrap().to_string();
    stdout(&["--variant", "six", "solve", "--all", "--db", &db, "--quiet"]);
    (dir, db)
}

const SIX_MIDGAME: &str = "W.B/.W./B..W/.B./... w 3 3";

/// `morris --variant six probe --db DB ARGS...`, with what it prints.
fn six_probe(db: &str, args: &[&str]) -> String {
    let mut all = vec!["--variant", "six", "probe", "--db", db];
    all.extend_from_slice(args);
    stdout(&all)
}

#[test]
fn probe_prints_values_moves_and_lines() {
    let (_dir, db) = six_database();
    let text = six_probe(&db, &["start", "--line"]);
    assert!(text.contains("White to move: draw"), "{text}");
    assert!(
        text.contains("line: ") && text.contains("(repeats: draw)"),
        "{text}"
    );
    // JSON: the documented shape, moves best first, values for the mover.
    let json = six_probe(&db, &["--json", SIX_MIDGAME]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["position"], SIX_MIDGAME);
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    for m in moves {
        assert!(m["move"].is_string() && m["position"].is_string());
        assert!(["win", "draw", "loss"].contains(&m["wdl"].as_str().unwrap()));
        assert_eq!(m["plies"].is_null(), m["wdl"] == "draw");
    }
    assert_eq!(moves[0]["wdl"], v["wdl"]);
    assert_eq!(moves[0]["plies"], v["plies"]);
    let rank = |m: &serde_json::Value| match m["wdl"].as_str().unwrap() {
        "win" => 1000 - m["plies"].as_i64().unwrap(),
        "draw" => 0,
        _ => -1000 + m["plies"].as_i64().unwrap(),
    };
    assert!(moves.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])));
    // Each move's value is its position's value seen from the mover.
    for m in moves.iter().take(3) {
        let child = six_probe(&db, &["--json", m["position"].as_str().unwrap()]);
        let c: serde_json::Value = serde_json::from_str(child.trim()).unwrap();
        let flipped = match c["wdl"].as_str().unwrap() {
            "win" => "loss",
            "loss" => "win",
            d => d,
        };
        assert_eq!(m["wdl"], flipped);
        if !c["plies"].is_null() {
            assert_eq!(
                m["plies"].as_i64().unwrap(),
                c["plies"].as_i64().unwrap() + 1
            );
        }
    }
}

#[test]
fn batch_probes_keep_the_input_order() {
    let (dir, db) = six_database();
    let input = dir.path().join("positions.txt");
    let positions = [
        "start",
        SIX_MIDGAME,
        "WWW/.B./B..B/.B./W.. b 0 0",
        "W.B/.W./B..W/.B./... b 2 3",
    ];
    std::fs::write(&input, positions.join("\n") + "\n\n").unwrap();
    let input = input.to_str().unwrap();
    let out = six_probe(&db, &["--batch", input, "--json"]);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), positions.len());
    for (line, wanted) in lines.iter().zip(positions) {
        if wanted != "start" {
            assert_eq!(line["position"], wanted);
        }
        assert!(line.get("moves").is_none(), "moves only with --moves");
    }
    let with_moves = six_probe(&db, &["--batch", input, "--json", "--moves"]);
    assert!(with_moves.lines().all(|l| l.contains("\"moves\"")));
    let text = six_probe(&db, &["--batch", input]);
    assert_eq!(text.lines().count(), positions.len());
    assert!(text.lines().all(|l| l.contains('\t')));
    // Standard input, and a bad line among good ones: reported in place.
    let out = morris()
        .args([
            "--variant",
            "six",
            "probe",
            "--db",
            &db,
            "--batch",
            "-",
            "--json",
        ])
        .write_stdin(format!("{SIX_MIDGAME}\nnonsense\nstart\n"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1].contains("\"error\""));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("1 of 3 positions")
    );
}

#[test]
fn probe_errors_have_messages_and_exit_codes() {
    let (dir, db) = six_database();
    let six = |args: &[&str]| -> Vec<String> {
        let mut v = vec![
            "--variant".to_string(),
            "six".into(),
            "probe".into(),
            "--db".into(),
            db.clone(),
        ];
        v.extend(args.iter().map(|s| s.to_string()));
        v
    };
    let run = |args: Vec<String>, code: i32| -> String {
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        failure_with(&args, code)
    };
    // Bad positions: exit 1.
    assert!(run(six(&["nonsense"]), 1).contains("cannot read the position"));
    assert!(run(six(&["WWW/.../..../.../BB. w 0 0"]), 1).contains("the game ended before"));
    // Not a database, another variant: exit 3.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(
        database_failure(&[
            "--variant",
            "six",
            "probe",
            "--db",
            empty.to_str().unwrap(),
            "start"
        ])
        .contains("not a morris database")
    );
    // A folder knows its variant; another one asked for is refused.
    assert!(stdout(&["probe", "--db", &db, "start"]).contains("draw"));
    assert!(
        database_failure(&["--variant", "standard", "probe", "--db", &db, "start"])
            .contains("holds a database of six")
    );
    // A missing sector names itself and the command that builds it.
    let four_four = "WW./W../W.B./BB./B.. w 0 0";
    let sector = std::path::Path::new(&db).join("4-4.mdb");
    let saved = std::fs::read(&sector).unwrap();
    std::fs::remove_file(&sector).unwrap();
    let missing = run(six(&[four_four]), 3);
    assert!(
        missing.contains("4-4") && missing.contains("morris solve"),
        "{missing}"
    );
    // A flipped byte among the values (caught by its block's checksum), in
    // the header, and a truncated file: all corrupted.
    for offset in [200, 30] {
        let mut flipped = saved.clone();
        flipped[offset] ^= 4;
        std::fs::write(&sector, &flipped).unwrap();
        let corrupted = run(six(&[four_four]), 3);
        assert!(corrupted.contains("corrupted"), "{corrupted}");
    }
    std::fs::write(&sector, &saved[..saved.len() - 3]).unwrap();
    let truncated = run(six(&[four_four]), 3);
    assert!(truncated.contains("truncated"), "{truncated}");
}

#[test]
fn play_against_perfect_play_and_watch_it() {
    let (_dir, db) = six_database();
    let watched = stdout(&[
        "--variant",
        "six",
        "play",
        "--db",
        &db,
        "--human",
        "none",
        "--seed",
        "7",
        "--values",
    ]);
    assert!(watched.contains("White plays") && watched.contains("Black plays"));
    assert!(watched.contains("White to move: draw"));
    assert!(watched.contains("three times: a draw"), "{watched}");
    let out = morris()
        .args([
            "--variant",
            "six",
            "play",
            "--db",
            &db,
            "--human",
            "white",
            "--seed",
            "1",
        ])
        .write_stdin("hint\nvalue\nz9\nd7-d6\nd7\nquit\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  d7 draw"), "{text}"); // the hint lists moves with values
    assert!(text.contains("'z9' is not a point"));
    assert!(text.contains("d7-d6 is not a legal move here"));
    assert!(text.contains("Black plays"));
}

#[test]
fn bench_solves_both_phases_and_prints_rates() {
    let out = stdout(&["bench", "--max-men", "6"]);
    assert!(out.contains("total: 169626 positions"), "{out}");
    assert!(out.contains("placement: 1 sector with"), "{out}");
    assert!(out.contains("positions/s"), "{out}");
}

/// A log (stderr not a terminal) tells where a unit with moves inside it
/// spent its time; a placement unit, valued in one pass, says nothing of it.
#[test]
fn a_solve_log_gives_each_units_phases() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    let args = [
        "--variant",
        "lasker",
        "solve",
        "--sectors",
        "3+0-3+1",
        "--db",
        db,
    ];
    let out = morris().args(args).output().unwrap();
    assert!(out.status.success());
    let log = String::from_utf8(out.stderr).unwrap();
    let unit = log
        .lines()
        .find(|l| l.starts_with("solved 3+0-3+1 + 3+1-3+0: "))
        .unwrap_or_else(|| panic!("{log}"));
    let counted = unit.split("; children counted in ").nth(1).unwrap();
    let levels: u32 = counted
        .split(", then ")
        .nth(1)
        .and_then(|rest| rest.split(" levels").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{unit}"));
    assert!(levels > 1, "{unit}");
    let standard = tempfile::tempdir().unwrap();
    let db = standard.path().to_str().unwrap();
    let args = ["solve", "--sectors", "3+1-3+0", "--db", db];
    let out = morris().args(args).output().unwrap();
    let log = String::from_utf8(out.stderr).unwrap();
    let placement = log.lines().find(|l| l.starts_with("solved 3+1-3+0: "));
    let placement = placement.unwrap_or_else(|| panic!("{log}"));
    assert!(!placement.contains("levels"), "{placement}");
}
