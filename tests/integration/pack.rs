//! Packed folders (`morris pack`, format 3): the same values as the raw
//! folder, read by every command, and damage reported, never read as a value.

use std::path::Path;

use morris::db::{SectorFile, sector_files, write_packed};
use morris::index::SectorIndex;
use morris::{Selection, Tablebase, Variant};

use crate::solver::solve_into;

pub fn pack_folder(raw: &Path, packed: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args([
            "pack",
            "--db",
            raw.to_str().unwrap(),
            "--out",
            packed.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every value of every sector of six and of standard up to 8 men reads
/// the same from the packed folder; `verify` and `stats` pass on it.
#[test]
fn packed_folders_hold_the_same_values() {
    for (name, selection) in [("six", Selection::All), ("standard", Selection::MaxMen(8))] {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
        solve_into(&raw, variant, selection);
        pack_folder(&raw, &packed);
        let (a, b) = (
            Tablebase::open(&raw, variant).unwrap(),
            Tablebase::open_folder(&packed).unwrap(),
        );
        for sector in sector_files(&raw).unwrap() {
            let (fa, fb) = (a.sector(sector).unwrap(), b.sector(sector).unwrap());
            assert!(fb.is_packed() && !fa.is_packed());
            fb.verify_checksum().unwrap();
            for i in 0..fa.header.positions {
                assert_eq!(
                    fa.value(i).unwrap(),
                    fb.value(i).unwrap(),
                    "{name} {sector} {i}"
                );
            }
            assert_eq!(
                a.sector_stats(sector).unwrap().wins,
                b.sector_stats(sector).unwrap().wins
            );
        }
        let verify = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
            .args(["verify", "--db", packed.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            verify.status.success(),
            "{}",
            String::from_utf8_lossy(&verify.stderr)
        );
        // Packing again keeps what is there; solving into it is refused.
        pack_folder(&raw, &packed);
        let err = morris::solve(
            &morris::SolveOptions {
                db: packed.clone(),
                variant,
                selection: Selection::MaxMen(6),
                pack: None,
            },
            &|_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("packed"), "{err}");
        // Another variant's packed folder is refused.
        let other = if name == "six" {
            Variant::standard()
        } else {
            Variant::by_name("six").unwrap()
        };
        assert!(Tablebase::open(&packed, other).is_err());
    }
}

/// A packed file truncated, with a byte flipped in its header, block table
/// or compressed blocks, or replaced by garbage: errors or right values,
/// never a wrong value or a panic.
#[test]
fn damaged_packed_files_never_give_a_wrong_value() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    solve_into(&raw, six, Selection::MaxMen(8));
    std::fs::create_dir_all(&packed).unwrap();
    Tablebase::create_packed(&packed, six).unwrap();
    let source = SectorFile::open(&raw.join("4-4.mdb"), false).unwrap();
    let path = write_packed(&packed, &source).unwrap();
    let original = std::fs::read(&path).unwrap();
    let index = SectorIndex::of(six.board, 4, 4);
    let good = Tablebase::open(&raw, six).unwrap();
    let mut damaged_files: Vec<Vec<u8>> = Vec::new();
    for cut in [
        0,
        7,
        64,
        127,
        128,
        200,
        original.len() / 2,
        original.len() - 1,
    ] {
        damaged_files.push(original[..cut].to_vec());
    }
    for at in (0..original.len()).step_by((original.len() / 150).max(1)) {
        let mut flipped = original.clone();
        flipped[at] ^= 0x10;
        damaged_files.push(flipped);
    }
    damaged_files.push(vec![0x5a; original.len()]);
    for bytes in damaged_files {
        std::fs::write(&path, &bytes).unwrap();
        let tb = Tablebase::open(&packed, six).unwrap().with_warnings(|_| {});
        for i in (0..index.size()).step_by(101) {
            let pos = index.position(i, 0, 0);
            if let Ok(v) = tb.value(&pos) {
                assert_eq!(v, good.value(&pos).unwrap(), "index {i}");
            }
        }
        if bytes != original {
            let whole = tb.verify_checksum(morris::index::SectorKey::movement(4, 4));
            assert!(whole.is_err(), "damage unnoticed by the whole-file check");
        }
    }
}

fn solve_packing(raw: &Path, packed: &Path, selection: &str) -> String {
    let mut args = vec!["--variant", "six", "solve", "--db", raw.to_str().unwrap()];
    args.extend(["--pack", packed.to_str().unwrap()]);
    args.extend(selection.split(' '));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `solve --pack` leaves the same packed files as `pack` after a whole
/// solve, no raw sector file behind, and reports its peak disk; interrupted
/// (a sector packed but its raw file not yet removed, a packed file half
/// written) and resumed, the same again.
#[test]
fn packing_as_the_solve_goes_gives_the_same_packed_files() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    solve_into(&raw, six, Selection::All);
    pack_folder(&raw, &packed);

    let (raw2, packed2) = (dir.path().join("raw2"), dir.path().join("packed2"));
    let out = solve_packing(&raw2, &packed2, "--all");
    assert!(out.contains("held at most"), "{out}");
    assert!(out.contains("the starting position is a draw"), "{out}");
    assert!(sector_files(&raw2).unwrap().is_empty());
    let same = |a: &Path, b: &Path| {
        let names = sector_files(a).unwrap();
        assert_eq!(names, sector_files(b).unwrap());
        for s in names {
            let name = morris::db::file_name(s);
            assert!(
                std::fs::read(a.join(&name)).unwrap() == std::fs::read(b.join(&name)).unwrap(),
                "{name}"
            );
        }
    };
    same(&packed, &packed2);

    // Interrupted: stopped part way, wherever that falls...
    let (raw3, packed3) = (dir.path().join("raw3"), dir.path().join("packed3"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["--variant", "six", "solve", "--all", "--quiet"])
        .args([
            "--db",
            raw3.to_str().unwrap(),
            "--pack",
            packed3.to_str().unwrap(),
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    solve_packing(&raw3, &packed3, "--all");
    assert!(sector_files(&raw3).unwrap().is_empty());
    same(&packed, &packed3);
    // ...and, whatever that left, with a sector packed whose raw file was
    // not yet removed and a packed file half written.
    let name = morris::db::file_name(sector_files(&packed).unwrap()[0]);
    std::fs::copy(raw.join(&name), raw3.join(&name)).unwrap();
    std::fs::write(packed3.join(format!("{name}.tmp.999999")), b"half").unwrap();
    solve_packing(&raw3, &packed3, "--all");
    assert!(sector_files(&raw3).unwrap().is_empty());
    same(&packed, &packed3);
    let temp = |e: std::fs::DirEntry| e.file_name().to_string_lossy().contains(".tmp");
    assert!(
        !std::fs::read_dir(&packed3)
            .unwrap()
            .any(|e| temp(e.unwrap()))
    );
}
