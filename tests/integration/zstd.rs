//! zstd-coded folders (`pack --zstd`, `solve --pack DIR --zstd`, format 3),
//! the coder beside the default pair-coded blocks (`pack.rs`): the same
//! values as the raw folder, checked by `verify`, and the same files packed
//! along the solve as after it. Damaged zstd-coded files are in `pack.rs`'s
//! damage test, planted values in `verify.rs`.

use morris::db::{Encoding, LossMark, same_values, sector_files};
use morris::index::{SectorIndex, SectorKey};
use morris::{Selection, Tablebase, Value, Variant, Wdl};

use crate::pack::{morris_in, pack_folder_as, solve_packing, verify_passes};
use crate::solver::solve_into;

/// zstd-coded folders (`pack --zstd`, format 3) of the plain values, the
/// plain win/draw/loss codes, the losses and the loss bits (predicted where
/// that packs smaller): every code of every sector of
/// six and of standard up to 6 men the same as the raw folder's, read one
/// by one and decoded whole (`same_values`), the statistics the same, and
/// `verify` passes on each folder. Packing again keeps the files (the same
/// file, not one written again; a predicted file counts as the loss bits
/// asked for).
#[test]
fn zstd_coded_folders_hold_the_same_values() {
    for (name, selection) in [("six", Selection::All), ("standard", Selection::MaxMen(6))] {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let raw = dir.path().join("raw");
        solve_into(&raw, variant, selection);
        let a = Tablebase::open(&raw, variant).unwrap();
        for (packing, flags) in [
            (Encoding::PackedPlies, &["--plain", "--zstd"][..]),
            (Encoding::PackedWdl, &["--plain", "--wdl", "--zstd"]),
            (Encoding::PackedLosses, &["--zstd"]),
            // Loss bits, predicted in the sectors where that packs smaller.
            (Encoding::PackedLossBits, &["--wdl", "--zstd"]),
        ] {
            let packed = dir.path().join(format!("{packing:?}"));
            pack_folder_as(&raw, &packed, flags);
            let b = Tablebase::open_folder(&packed).unwrap();
            for sector in sector_files(&raw).unwrap() {
                let (fa, fb) = (a.sector(sector).unwrap(), b.sector(sector).unwrap());
                assert!(
                    !fb.header.is_pair_coded() && fb.header.encoding().as_requested() == packing
                );
                fb.verify_checksum().unwrap();
                same_values(&fa, &fb, variant).unwrap();
                let index = SectorIndex::of_sector(variant.board, sector);
                for i in 0..fa.header.positions() {
                    let value = fa.value(i).unwrap();
                    match packing {
                        Encoding::PackedPlies => {
                            assert_eq!(fb.value(i).unwrap(), value, "{name} {sector} {i}")
                        }
                        Encoding::PackedWdl => {
                            assert_eq!(fb.wdl(i).unwrap(), Wdl::of(value), "{name} {sector} {i}")
                        }
                        _ => {
                            let pos = index.position(i, sector.us_hand, sector.them_hand);
                            let lost = match value {
                                Value::Loss(_) if packing == Encoding::PackedLossBits => {
                                    LossMark::Lost(None)
                                }
                                Value::Loss(n) => LossMark::Lost(Some(n)),
                                _ => LossMark::NotLost,
                            };
                            let mark = fb.loss_mark(i, &pos, variant).unwrap();
                            assert_eq!(mark, lost, "{name} {sector} {i}");
                        }
                    }
                }
                let stats = |t: &Tablebase| {
                    let s = t.sector_stats(sector).unwrap();
                    (s.wins, s.losses, s.draws)
                };
                assert_eq!(stats(&a), stats(&b), "{name} {sector}");
            }
            // A search per position: sampled on standard's flying sectors.
            let searched = matches!(packing, Encoding::PackedLosses | Encoding::PackedLossBits);
            verify_passes(&packed, searched && name == "standard");
            // Packing again keeps the files: a file written again would be a
            // new one (written aside, then renamed over the old).
            let inode = || {
                use std::os::unix::fs::MetadataExt;
                let name = morris::db::file_name(SectorKey::movement(3, 3));
                std::fs::metadata(packed.join(name)).unwrap().ino()
            };
            let before = inode();
            pack_folder_as(&raw, &packed, flags);
            assert_eq!(inode(), before, "{name} {packing:?}");
        }
    }
}

/// `solve --pack DIR --zstd` leaves the same files as `pack --zstd` after
/// a whole solve; `--zstd` without `--pack` is refused.
#[test]
fn zstd_coded_packing_as_the_solve_goes_gives_the_same_files() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    solve_into(&raw, six, Selection::All);
    pack_folder_as(&raw, &packed, &["--zstd"]);
    let (raw2, packed2) = (dir.path().join("raw2"), dir.path().join("packed2"));
    let out = solve_packing(&raw2, &packed2, "--all --zstd");
    assert!(out.contains("the starting position is a draw"), "{out}");
    assert!(sector_files(&raw2).unwrap().is_empty());
    let names = sector_files(&packed).unwrap();
    assert_eq!(names, sector_files(&packed2).unwrap());
    for s in names {
        let name = morris::db::file_name(s);
        let (a, b) = (packed.join(&name), packed2.join(&name));
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{name}"
        );
    }
    let raw3 = dir.path().join("raw3");
    let refused = morris_in(&["solve", "--db", raw3.to_str().unwrap(), "--zstd"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--pack"));
}
