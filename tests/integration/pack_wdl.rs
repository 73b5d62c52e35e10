//! `solve --pack DIR --pack-wdl DIR2`: the whole game's win/draw/loss
//! folder filled as the solve goes, beside the default packing, without
//! the raw files; and caught up from the packed folder for the sectors
//! packed before it was asked for.

use std::path::Path;

use morris::db::{file_name, sector_files};
use morris::{Selection, Variant};

use crate::first_use::run;
use crate::pack::{pack_folder_as, verify_passes};
use crate::solver::solve_into;

/// Every sector file of `a` is in `b`, byte for byte, and no other.
fn same_sector_files(a: &Path, b: &Path) {
    let sectors = sector_files(a).unwrap();
    assert!(!sectors.is_empty());
    assert_eq!(sectors, sector_files(b).unwrap());
    for s in sectors {
        let name = file_name(s);
        let read = |folder: &Path| std::fs::read(folder.join(&name)).unwrap();
        assert!(read(a) == read(b), "{name}");
    }
}

fn solve_six(raw: &Path, pack: &Path, wdl: Option<&Path>) -> (i32, String) {
    let mut args = vec!["--variant", "six", "solve", "--all"];
    args.extend([
        "--db",
        raw.to_str().unwrap(),
        "--pack",
        pack.to_str().unwrap(),
    ]);
    if let Some(wdl) = wdl {
        args.extend(["--pack-wdl", wdl.to_str().unwrap()]);
    }
    let (code, out, err) = run(&args);
    (code, format!("{out}{err}"))
}

/// The folder of win/draw/loss that a solve packs as it goes is the one
/// `pack --wdl` writes from the raw folder, and passes `verify`; a solve
/// interrupted without it and resumed with it decodes the sectors packed
/// before from the packed folder, to the same files.
#[test]
fn win_draw_loss_packed_as_the_solve_goes_is_what_pack_writes() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    solve_into(&at("raw"), six, Selection::All);
    pack_folder_as(&at("raw"), &at("wdl"), &["--wdl"]);

    let (code, log) = solve_six(&at("raw2"), &at("packed2"), Some(&at("wdl2")));
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("and ") && log.contains("held at most"),
        "{log}"
    );
    assert!(sector_files(&at("raw2")).unwrap().is_empty());
    same_sector_files(&at("wdl"), &at("wdl2"));
    verify_passes(&at("wdl2"), false);

    // Stopped part way without --pack-wdl, then resumed with it.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["--variant", "six", "solve", "--all", "--quiet", "--db"])
        .args([at("raw3"), "--pack".into(), at("packed3")])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    child.kill().unwrap();
    child.wait().unwrap();
    // Those whose raw file is gone are decoded (one whose raw file was not
    // yet removed is packed again from it).
    let raw_left = sector_files(&at("raw3")).unwrap_or_default();
    let decoded = sector_files(&at("packed3"))
        .unwrap_or_default()
        .into_iter()
        .filter(|s| !raw_left.contains(s))
        .count();
    let (code, log) = solve_six(&at("raw3"), &at("packed3"), Some(&at("wdl3")));
    assert_eq!(code, 0, "{log}");
    if decoded > 0 {
        assert!(
            log.contains(&format!("win/draw/loss of {decoded} sectors")),
            "{log}"
        );
    }
    same_sector_files(&at("wdl"), &at("wdl3"));
}

/// What cannot be: the win/draw/loss folder in the packed one's place,
/// or under the move-count rule (values that depend on the plies to the
/// next mill); neither leaves a folder behind.
#[test]
fn win_draw_loss_packing_along_refuses_what_cannot_be() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (raw, packed) = (at("raw"), at("packed"));
    let args = ["solve", "--max-men", "6", "--db", &raw, "--pack", &packed];
    let (code, _, err) = run(&[&args[..], &["--pack-wdl", &packed]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("each packing goes into a folder of its own"),
        "{err}"
    );
    let (code, _, err) =
        run(&[&["--n-move", "100"], &args[..], &["--pack-wdl", &at("w")]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("move-count rule"), "{err}");
    for folder in [raw, packed, at("w")] {
        assert!(!Path::new(&folder).exists(), "{folder} left behind");
    }
}
