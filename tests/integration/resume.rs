//! A `solve --pack` run again over its folders: what it solved before is
//! checked, and a damaged packed file, once deleted, is solved again from
//! the packed sectors its unit reads.

use morris::db::{file_name, sector_files};
use morris::index::SectorKey;
use morris::{Selection, Variant};

use crate::pack_wdl::{same_sector_files, solve_six};
use crate::solver::solve_into;

/// A resumed `solve --pack` checks the files of the units solved before,
/// packed ones decoded block by block, and says so; a packed file damaged
/// in a block (its header and table whole) stops it, named, with the way
/// to mend it.
#[test]
fn a_resumed_packing_solve_checks_what_it_solved_before() {
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 0, "{out}");
    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("checking the files of the 125 units solved before")
            && out.contains("checked the files of the 125 units solved before in"),
        "{out}"
    );
    // The last byte of the largest file lies in its last block.
    let largest = sector_files(&packed)
        .unwrap()
        .into_iter()
        .map(|s| packed.join(file_name(s)))
        .max_by_key(|path| std::fs::metadata(path).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&largest).unwrap();
    *bytes.last_mut().unwrap() ^= 0x10;
    std::fs::write(&largest, bytes).unwrap();
    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 3, "{out}");
    let name = largest.display().to_string();
    assert!(
        out.contains(&format!("{name} is corrupted: block"))
            && out.contains(&format!("hint: delete {name} and run this solve again")),
        "{out}"
    );
}

/// A packed file deleted (damaged) after its raw one was removed: the solve
/// run again decodes the packed sectors its unit reads back into raw files
/// (packing first a raw successor of theirs that only the raw folder holds),
/// solves the unit again, packs it, and leaves the packed folder a whole
/// solve packs, byte for byte, with no raw sector file behind.
#[test]
fn a_deleted_packed_file_is_solved_again_from_the_packed_folder() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    solve_into(&at("all-raw"), six, Selection::All);
    let (code, out) = solve_six(&at("raw-fresh"), &at("fresh"), None, "--all");
    assert_eq!(code, 0, "{out}");
    let (raw, packed) = (at("raw"), at("packed"));
    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 0, "{out}");

    // 4+1-5+0 lost, which reads 5-5 and 4-5; 4-5 (read by 5-5 too) only
    // raw, as while a unit that reads it is still to solve.
    let lost: SectorKey = "4+1-5+0".parse().unwrap();
    let successors = |s: SectorKey| s.successors(six).into_iter().filter(|c| c.is_valid(six));
    let (read, only_raw) = (SectorKey::movement(5, 5), SectorKey::movement(4, 5));
    assert!(successors(lost).any(|s| s == read) && successors(lost).any(|s| s == only_raw));
    assert!(successors(read).any(|s| s == only_raw));
    std::fs::remove_file(packed.join(file_name(lost))).unwrap();
    let name = file_name(only_raw);
    std::fs::copy(at("all-raw").join(&name), raw.join(&name)).unwrap();
    std::fs::remove_file(packed.join(&name)).unwrap();

    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n5-5 read by the next unit, packed only, decoded back into raw files")
            && out.contains("solved 4+1-5+0"),
        "{out}"
    );
    assert!(sector_files(&raw).unwrap().is_empty(), "{out}");
    same_sector_files(&at("fresh"), &packed);
}

/// Under the move-count rule the packed files keep values with clocks, which
/// do not decode back to raw files: the unit of a deleted one is refused,
/// named, not solved from what is missing.
#[test]
fn a_deleted_packed_file_under_the_move_count_rule_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let args = [
        "--variant",
        "six",
        "--n-move",
        "20",
        "solve",
        "--all",
        "--db",
        &at("raw"),
        "--pack",
        &at("packed"),
    ];
    let (code, _, err) = crate::first_use::run(&args);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(dir.path().join("packed").join("4+1-5+0.mdb")).unwrap();
    let (code, _, err) = crate::first_use::run(&args);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("reads sector 4-5, which is only in the packed folder")
            && err.contains("does not decode back to raw files"),
        "{err}"
    );
}

/// `scripts/run-summary.sh` reads a run's figures from its log over its
/// resumes: each unit once, every position, the starts, the peak disk.
#[test]
fn a_run_log_over_its_resumes_is_summed_up() {
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    let (code, first) = solve_six(&raw, &packed, None, "--sectors 4+2-4+1");
    assert_eq!(code, 0, "{first}");
    let (code, rest) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 0, "{rest}");
    let log = dir.path().join("run.log");
    // The first run's lines twice, as if a unit were solved again after an
    // interruption: each unit counts once.
    std::fs::write(&log, format!("{first}{first}{rest}")).unwrap();
    let out = std::process::Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/run-summary.sh"))
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("starts of the solve: 3 (resumed 2 times)")
            && text.contains("units solved: 125, 3141931 positions")
            && text.contains("peak disk the log tells: 0.00")
            && text.contains("largest units:\n  5-6 + 6-5: 253032 positions"),
        "{text}"
    );
}
