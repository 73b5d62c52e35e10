//! A `solve --pack` run again over its folders: what it solved before is
//! checked, and a damaged packed file, once deleted, is solved again from
//! the packed sectors its unit reads.

use morris::db::{file_name, sector_files};
use morris::index::SectorKey;
use morris::{Selection, Variant};

use crate::first_use::run;
use crate::pack_wdl::{same_sector_files, solve_six};
use crate::solver::solve_into;

/// A resumed `solve --pack` checks the files of the units solved before,
/// packed ones by their blocks' checksums, and says so; packed files damaged
/// in a block (their headers and tables whole) stop it, all named, with the
/// way to mend them.
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
    // The last byte of a file lies in its last block: the two largest
    // damaged, both named at once.
    let mut files: Vec<_> = sector_files(&packed)
        .unwrap()
        .into_iter()
        .map(|s| packed.join(file_name(s)))
        .collect();
    files.sort_by_key(|path| std::cmp::Reverse(std::fs::metadata(path).unwrap().len()));
    for file in &files[..2] {
        let mut bytes = std::fs::read(file).unwrap();
        *bytes.last_mut().unwrap() ^= 0x10;
        std::fs::write(file, bytes).unwrap();
    }
    let (code, out) = solve_six(&raw, &packed, None, "--all");
    assert_eq!(code, 3, "{out}");
    let (a, b) = (files[0].display(), files[1].display());
    assert!(
        out.contains("2 packed files of units solved before are damaged")
            && out.contains("is corrupted: block")
            && (out.contains(&format!("hint: delete {a} {b} and run this solve again"))
                || out.contains(&format!("hint: delete {b} {a} and run this solve again"))),
        "{out}"
    );
}

/// Packed files deleted (damaged) after their raw ones were removed: the
/// solve run again decodes the packed sectors their units read back into
/// raw files (packing first a raw successor of theirs that only the raw
/// folder holds), solves the units again, packs them, and leaves the packed
/// and win/draw/loss folders a whole solve packs, byte for byte, with no
/// raw sector file behind; `solve --unit` does the same for one unit.
#[test]
fn a_deleted_packed_file_is_solved_again_from_the_packed_folder() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    solve_into(&at("all-raw"), six, Selection::All);
    let fresh = (at("fresh"), at("fresh-wdl"));
    let (code, out) = solve_six(&at("raw-fresh"), &fresh.0, Some(&fresh.1), "--all");
    assert_eq!(code, 0, "{out}");
    let (raw, packed, wdl) = (at("raw"), at("packed"), at("wdl"));
    let (code, out) = solve_six(&raw, &packed, Some(&wdl), "--all");
    assert_eq!(code, 0, "{out}");

    // 4+1-5+0 lost, which reads 5-5 and 4-5; 4-5 (read by 5-5 too) only
    // raw, as while a unit that reads it is still to solve.
    let lost: SectorKey = "4+1-5+0".parse().unwrap();
    let successors = |s: SectorKey| s.successors(six).into_iter().filter(|c| c.is_valid(six));
    let (read, only_raw) = (SectorKey::movement(5, 5), SectorKey::movement(4, 5));
    assert!(successors(lost).any(|s| s == read) && successors(lost).any(|s| s == only_raw));
    assert!(successors(read).any(|s| s == only_raw));
    std::fs::remove_file(packed.join(file_name(lost))).unwrap();
    // And one sector of a movement unit: its mirror, solved again, is
    // compared with its packed file, kept.
    std::fs::remove_file(packed.join(file_name(SectorKey::movement(5, 6)))).unwrap();
    let name = file_name(only_raw);
    std::fs::copy(at("all-raw").join(&name), raw.join(&name)).unwrap();
    std::fs::remove_file(packed.join(&name)).unwrap();

    let (code, out) = solve_six(&raw, &packed, Some(&wdl), "--all");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n5-5 read by the next unit, packed only, decoded back into raw files")
            && out.contains("solved 4+1-5+0")
            && out.contains("solved 5-6 + 6-5"),
        "{out}"
    );
    assert!(sector_files(&raw).unwrap().is_empty(), "{out}");
    same_sector_files(&fresh.0, &packed);
    same_sector_files(&fresh.1, &wdl);

    // The same through a workflow's job, `--unit`: one sector of a unit
    // deleted, in both folders; the unit is solved again from the packed
    // sectors it reads, and packed again, its other sector left as it was.
    let deleted = file_name(SectorKey::movement(4, 3));
    std::fs::remove_file(packed.join(&deleted)).unwrap();
    std::fs::remove_file(wdl.join(&deleted)).unwrap();
    let (code, out) = solve_six(&raw, &packed, Some(&wdl), "--unit 3-4");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("solved 3-4 + 4-3"), "{out}");
    assert!(sector_files(&raw).unwrap().is_empty(), "{out}");
    same_sector_files(&fresh.0, &packed);
    same_sector_files(&fresh.1, &wdl);
}

/// Under the move-count rule the packed files keep values with clocks, which
/// do not decode back into raw files: a damaged one and the unit of a deleted
/// one are refused, the sectors named, with the mend that works, followed
/// here: those sectors solved into a new folder, their raw files copied in.
#[test]
fn a_deleted_packed_file_under_the_move_count_rule_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (raw, packed, new) = (at("raw"), at("packed"), at("new"));
    let rule = ["--variant", "six", "--n-move", "20", "solve"];
    let args = [&rule[..], &["--all", "--db", &raw, "--pack", &packed]].concat();
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let packed_dir = dir.path().join("packed");
    let file = packed_dir.join("5-6.mdb");
    let mut bytes = std::fs::read(&file).unwrap();
    *bytes.last_mut().unwrap() ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let (code, _, err) = run(&args);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("hint: values under the move-count rule do not decode back"),
        "{err}"
    );
    *bytes.last_mut().unwrap() ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();

    std::fs::remove_file(packed_dir.join("4+1-5+0.mdb")).unwrap();
    let (code, _, err) = run(&args);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("reads 4-5 and 5-5, only in the packed folder")
            && err.contains("does not decode back into raw files")
            && err.contains("--n-move 20 solve --db NEW --sectors 4-5,5-5")
            && err.contains("copy NEW/4-5.mdb NEW/5-5.mdb into"),
        "{err}"
    );
    let new_args = [&rule[..], &["--sectors", "4-5,5-5", "--db", &new]].concat();
    assert_eq!(run(&new_args).0, 0);
    for name in ["4-5.mdb", "5-5.mdb"] {
        std::fs::copy(
            dir.path().join("new").join(name),
            dir.path().join("raw").join(name),
        )
        .unwrap();
    }
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(sector_files(&dir.path().join("raw")).unwrap().is_empty());
}

/// `scripts/run-summary.sh` reads a run's figures from its log over its
/// resumes: each unit once, every position, the starts, the peak disk, the
/// phases of the units.
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
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/run-summary.sh"
        ))
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
    // And where the time of units with moves inside them went.
    let largest = text
        .lines()
        .find(|l| l.starts_with("  5-6 + 6-5: "))
        .unwrap();
    assert!(largest.contains(", children counted in "), "{text}");
    assert!(largest.ends_with(" levels)"), "{text}");
    // Its times are milliseconds: read as such, never more than the whole.
    let share: f64 = text
        .split(" s): ")
        .nth(1)
        .and_then(|rest| rest.split("% counting children, the rest in levels").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(share > 0.0 && share <= 100.0, "{text}");
}

/// A unit whose files a killed run wrote only in part (one sector's file,
/// not its stored index, not the other sector's): the solve run again
/// writes what is missing, and the folder is a whole solve's.
#[test]
fn a_unit_written_in_part_is_completed() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (whole, part) = (dir.path().join("whole"), dir.path().join("part"));
    let sectors = || Selection::Sectors(vec![SectorKey::movement(3, 4)]);
    solve_into(&whole, six, sectors());
    solve_into(&part, six, sectors());
    std::fs::remove_file(part.join(file_name(SectorKey::movement(4, 3)))).unwrap();
    let index = part.join(morris::db::index_file_name(3, 4));
    std::fs::remove_file(&index).unwrap();
    solve_into(&part, six, sectors());
    assert!(index.is_file(), "{} not written", index.display());
    same_sector_files(&whole, &part);
    for name in ["index-3-4.idx", "index-4-3.idx"] {
        let read = |d: &std::path::Path| std::fs::read(d.join(name)).unwrap();
        assert_eq!(read(&whole), read(&part), "{name}");
    }
    // The file left behind damaged: the solve stops, naming it.
    std::fs::remove_file(part.join(file_name(SectorKey::movement(4, 3)))).unwrap();
    let left = part.join(file_name(SectorKey::movement(3, 4)));
    let mut bytes = std::fs::read(&left).unwrap();
    *bytes.last_mut().unwrap() ^= 0x10;
    std::fs::write(&left, bytes).unwrap();
    let options = morris::SolveOptions::new(&part, six, sectors());
    let err = morris::solve(&options, &|_| {}).unwrap_err();
    let mut said = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(e) = source {
        said += &format!(": {e}");
        source = e.source();
    }
    assert!(
        said.contains("sector 3-4 cannot be read") && said.contains(&left.display().to_string()),
        "{said}"
    );
}
