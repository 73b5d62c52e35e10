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
pub fn same_sector_files(a: &Path, b: &Path) {
    let sectors = sector_files(a).unwrap();
    assert!(!sectors.is_empty());
    assert_eq!(sectors, sector_files(b).unwrap());
    for s in sectors {
        let name = file_name(s);
        let read = |folder: &Path| std::fs::read(folder.join(&name)).unwrap();
        assert!(read(a) == read(b), "{name}");
    }
}

pub fn solve_six(raw: &Path, pack: &Path, wdl: Option<&Path>, selection: &str) -> (i32, String) {
    let mut args = vec!["--variant", "six", "solve"];
    args.extend(selection.split(' '));
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
/// that packed without it and is run again with it decodes the sectors
/// packed before from the packed folder, to the same files: all of them
/// after a whole solve, some after a smaller one (the rest packed along);
/// after a solve of a few sectors, those whose successors are packed (the
/// others wait: what they read is still raw).
#[test]
fn win_draw_loss_packed_as_the_solve_goes_is_what_pack_writes() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    solve_into(&at("raw"), six, Selection::All);
    pack_folder_as(&at("raw"), &at("wdl"), &["--wdl"]);
    let whole = sector_files(&at("wdl")).unwrap().len();

    let (code, log) = solve_six(&at("raw2"), &at("packed2"), Some(&at("wdl2")), "--all");
    assert_eq!(code, 0, "{log}");
    let both = format!(
        "packed into {} and {}",
        at("packed2").display(),
        at("wdl2").display()
    );
    assert!(log.contains(&both), "{log}");
    assert!(sector_files(&at("raw2")).unwrap().is_empty());
    same_sector_files(&at("wdl"), &at("wdl2"));
    verify_passes(&at("wdl2"), false);

    // Solved whole without it, then asked for it: every sector decoded.
    let (code, log) = solve_six(&at("raw3"), &at("packed3"), None, "--all");
    assert_eq!(code, 0, "{log}");
    let (code, log) = solve_six(&at("raw3"), &at("packed3"), Some(&at("wdl3")), "--all");
    assert_eq!(code, 0, "{log}");
    // Said before it starts (a large game's takes an hour), each sector as
    // it is written, then the whole.
    let starting = format!("decoding the win/draw/loss of {whole} sectors (");
    let each = log.lines().filter(|l| l.contains(" decoded: ")).count();
    let done = format!("win/draw/loss of {whole} sectors packed before --pack-wdl");
    assert!(log.contains(&starting) && log.contains(&done), "{log}");
    assert_eq!(each, whole, "{log}");
    same_sector_files(&at("wdl"), &at("wdl3"));
    // Nothing left to solve: the peak told is measured after the decoding.
    let held: f64 = log
        .split("held at most ")
        .nth(1)
        .and_then(|rest| rest.split(" MB").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{log}"));
    let bytes: u64 = ["raw3", "packed3", "wdl3"]
        .iter()
        .flat_map(|f| std::fs::read_dir(at(f)).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(held * 1e6 + 1e3 >= bytes as f64, "{held} MB, {bytes} bytes");

    // Part solved without it, the rest with it.
    let (raw, packed, wdl) = (at("raw4"), at("packed4"), at("wdl4"));
    let (code, log) = solve_six(&raw, &packed, None, "--sectors 4+2-4+1");
    assert_eq!(code, 0, "{log}");
    let before = sector_files(&packed).unwrap().len();
    assert!(before > 0 && before < whole);
    let (code, log) = solve_six(&raw, &packed, Some(&wdl), "--all");
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains(&format!("win/draw/loss of {before} sectors")),
        "{log}"
    );
    same_sector_files(&at("wdl"), &wdl);

    // A few sectors: what can be decoded is, the same as the whole game's.
    let (raw, packed, wdl) = (at("raw5"), at("packed5"), at("wdl5"));
    let (code, log) = solve_six(&raw, &packed, None, "--sectors 3+3-3+3");
    assert_eq!(code, 0, "{log}");
    let (code, log) = solve_six(&raw, &packed, Some(&wdl), "--sectors 3+3-3+3");
    assert_eq!(code, 0, "{log}");
    let decoded = sector_files(&wdl).unwrap();
    assert!(!decoded.is_empty() && decoded.len() < sector_files(&packed).unwrap().len());
    for s in decoded {
        let name = file_name(s);
        let read = |folder: &Path| std::fs::read(folder.join(&name)).unwrap();
        assert!(read(&at("wdl")) == read(&wdl), "{name}");
    }
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
    // A win/draw/loss folder that cannot be made (a file is in its place):
    // the packed folder made for the solve goes with the refusal.
    let (file, fresh) = (at("a-file"), at("fresh"));
    std::fs::write(&file, "not a folder").unwrap();
    let args = ["solve", "--max-men", "6", "--db", &raw, "--pack", &fresh];
    let (code, _, err) = run(&[&args[..], &["--pack-wdl", &file]].concat());
    assert_ne!(code, 0, "{err}");
    assert!(!Path::new(&fresh).exists(), "{fresh} left behind: {err}");
    // The library's options the command line cannot give: the folder of
    // win/draw/loss without the packed one it is packed beside.
    let err = morris::solve(
        &morris::SolveOptions {
            pack_wdl: Some(at("w").into()),
            ..morris::SolveOptions::new(
                &raw,
                morris::Variant::by_name("six").unwrap(),
                morris::Selection::MaxMen(6),
            )
        },
        &|_| {},
    )
    .unwrap_err();
    assert!(matches!(err, morris::SolveError::WdlWithoutPack), "{err}");
    for folder in [raw, packed, at("w"), fresh] {
        assert!(!Path::new(&folder).exists(), "{folder} left behind");
    }
}
