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

fn failure(args: &[&str]) -> String {
    let out = morris().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?} must fail");
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
    assert!(failure(&["--variant", "chess", "show", "start"]).contains("unknown variant 'chess'"));
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
    // Another variant's folder is refused.
    assert!(
        failure(&["--variant", "six", "solve", "--db", db, "--max-men", "6"])
            .contains("standard database")
    );
    // A flipped byte is caught.
    let path = dir.path().join("db").join("3-3.mdb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(failure(&["verify", "--db", db]).contains("checksum"));
    // A truncated file is corrupted, not an I/O error.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..500]).unwrap();
    assert!(failure(&["stats", "--db", db]).contains("truncated"));
}
