//! Packed folders (`morris pack`, format 4: pair-coded): the same values as the raw
//! folder, read by every command, and damage reported, never read as a value.

use std::path::Path;

use morris::db::internals::write_packed_choosing;
use morris::db::{
    Coder, Encoding, LossMark, PACKED_BLOCK_BYTES_BITS, SectorFile, same_values, sector_files,
};
use morris::index::{SectorIndex, SectorKey};
use morris::{Selection, Tablebase, Value, Variant, Wdl};

const PACKINGS: [Encoding; 4] = [
    Encoding::PackedLosses,
    Encoding::PackedLossBits,
    Encoding::PackedPlies,
    Encoding::PackedWdl,
];

use crate::solver::solve_into;

pub fn pack_folder(raw: &Path, packed: &Path) {
    pack_folder_as(raw, packed, &[]);
}

/// `morris pack` with `extra` arguments (`--wdl`).
pub fn pack_folder_as(raw: &Path, packed: &Path, extra: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args([
            "pack",
            "--db",
            raw.to_str().unwrap(),
            "--out",
            packed.to_str().unwrap(),
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `morris verify` of `folder` succeeds; of 2,000 positions a sector when
/// `sample`.
pub fn verify_passes(folder: &Path, sample: bool) {
    let mut args = vec!["verify", "--db", folder.to_str().unwrap()];
    if sample {
        args.extend(["--sample", "2000"]);
    }
    let verify = morris_in(&args);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}

pub fn morris_in(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(args)
        .output()
        .unwrap()
}

/// Every value of every sector of six and of standard up to 6 men reads
/// the same from the packed folders, the losses (the default) and plain, in
/// full and win/draw/loss only; `verify` and `stats` pass on them. A probe
/// through a folder of loss bits searches: one position in 53 here.
/// Standard up to 8 men, with every position of six and one in 7 of
/// standard's probed, in `scripts/oracle.sh`.
#[test]
fn packed_folders_hold_the_same_values() {
    packed_folders_hold_the_same_values_in(&[
        ("six", Selection::All, 53),
        ("standard", Selection::MaxMen(6), 53),
    ]);
}

#[test]
#[ignore]
fn packed_folders_of_standard_up_to_8_men_hold_the_same_values() {
    packed_folders_hold_the_same_values_in(&[
        ("six", Selection::All, 1),
        ("standard", Selection::MaxMen(8), 7),
    ]);
}

/// Every value of each file compared; one position in each game's step
/// probed through the folders of loss bits, whose probe searches.
fn packed_folders_hold_the_same_values_in(games: &[(&str, Selection, u64)]) {
    for (name, selection, search_step) in games.iter().cloned() {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let folder = |kind: &str| dir.path().join(kind);
        let (raw, packed, wdl) = (folder("raw"), folder("packed"), folder("wdl"));
        let (plain, plain_wdl) = (folder("plain"), folder("plain-wdl"));
        solve_into(&raw, variant, selection);
        pack_folder(&raw, &packed);
        pack_folder_as(&raw, &wdl, &["--wdl"]);
        pack_folder_as(&raw, &plain, &["--plain"]);
        pack_folder_as(&raw, &plain_wdl, &["--plain", "--wdl"]);
        let a = Tablebase::open(&raw, variant).unwrap();
        let open = |dir: &Path| Tablebase::open_folder(dir).unwrap();
        let (b, c, d, e) = (open(&packed), open(&wdl), open(&plain), open(&plain_wdl));
        assert!(c.is_wdl_only() && e.is_wdl_only() && !b.is_wdl_only() && !d.is_wdl_only());
        for sector in sector_files(&raw).unwrap() {
            let fa = a.sector(sector).unwrap();
            let files = [&b, &c, &d, &e].map(|t| t.sector(sector).unwrap());
            for (f, packing) in files.iter().zip(PACKINGS) {
                assert!(f.is_packed() && f.header.encoding().as_requested() == packing);
                // Pair-coded: `pack`'s default.
                assert!(f.header.is_pair_coded(), "{name} {sector} {packing:?}");
                f.verify_checksum().unwrap();
            }
            let [fb, fc, fd, fe] = files;
            let index = SectorIndex::of_sector(variant.board, sector);
            for i in 0..fa.header.positions() {
                let value = fa.value(i).unwrap();
                let lost = match value {
                    Value::Loss(n) => LossMark::Lost(Some(n)),
                    _ => LossMark::NotLost,
                };
                let pos = index.position(i, sector.us_hand, sector.them_hand);
                let mark = |f: &SectorFile| f.loss_mark(i, &pos, variant).unwrap();
                assert_eq!(lost, mark(&fb), "{name} {sector} {i}");
                assert_eq!(value, fd.value(i).unwrap(), "{name} {sector} {i}");
                assert_eq!(Wdl::of(value), fe.wdl(i).unwrap(), "{name} {sector} {i}");
                let bit = match lost {
                    LossMark::Lost(_) => LossMark::Lost(None),
                    LossMark::NotLost => LossMark::NotLost,
                };
                assert_eq!(bit, mark(&fc), "{name} {sector} {i}");
                // A win or draw is found by a search: through the tablebase.
                if i % search_step == 0 {
                    assert_eq!(value, b.value(&pos).unwrap(), "{name} {sector} {i}");
                    assert_eq!(Wdl::of(value), c.wdl(&pos).unwrap(), "{name} {sector} {i}");
                }
            }
            // Files without distances have none to give, and a losses file
            // gives no value without its search.
            assert!(fc.value(0).is_err() && fe.value(0).is_err() && fb.value(0).is_err());
            let stats = |t: &Tablebase| {
                let s = t.sector_stats(sector).unwrap();
                (s.wins, s.losses, s.draws, s.longest_win, s.longest_loss)
            };
            let sa = stats(&a);
            assert_eq!(sa, stats(&b), "{name} {sector}");
            assert_eq!(sa, stats(&d), "{name} {sector}");
            for t in [&c, &e] {
                assert_eq!((sa.0, sa.1, sa.2, 0, 0), stats(t), "{name} {sector}");
            }
        }
        // Every folder checked in full: the losses and the loss bits each
        // sector decoded once (`verify::decoded`).
        for folder in [&packed, &wdl, &plain, &plain_wdl] {
            verify_passes(folder, false);
        }
        // Packing again keeps what is there (the same file, not one written
        // again aside and renamed over it); solving into it is refused.
        let inode = || {
            use std::os::unix::fs::MetadataExt;
            let name = morris::db::file_name(SectorKey::movement(3, 3));
            std::fs::metadata(packed.join(name)).unwrap().ino()
        };
        let before = inode();
        pack_folder(&raw, &packed);
        assert_eq!(inode(), before, "{name}");
        let err = morris::solve(
            &morris::SolveOptions::new(packed.clone(), variant, Selection::MaxMen(6)),
            &|_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("packed"), "{err}");
        // A folder packed one way is not packed into the other way.
        let out = morris_in(&[
            "pack",
            "--db",
            raw.to_str().unwrap(),
            "--out",
            wdl.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&out.stderr).contains("win/draw/loss only"));
        // Another variant's packed folder is refused.
        let other = if name == "six" {
            Variant::standard()
        } else {
            Variant::by_name("six").unwrap()
        };
        assert!(Tablebase::open(&packed, other).is_err());
        assert!(Tablebase::open(&wdl, other).is_err());
    }
}

/// A win/draw/loss-only folder through the binary: values without plies,
/// said so; moves ordered by value; no line; stats without the longest.
#[test]
fn a_win_draw_loss_folder_answers_without_plies() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (raw, wdl) = (dir.path().join("raw"), dir.path().join("wdl"));
    solve_into(&raw, six, Selection::All);
    pack_folder_as(&raw, &wdl, &["--wdl"]);
    let db = wdl.to_str().unwrap();
    let stdout = |args: &[&str]| {
        let out = morris_in(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let pos = "WWW/B.B/B..B/.../... w 0 0";
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["probe", "--db", db, "--json", pos])).unwrap();
    assert_eq!(json["wdl"], "win");
    assert_eq!(json["plies"], serde_json::Value::Null);
    assert!(
        json["plies_null_because"]
            .as_str()
            .unwrap()
            .contains("win/draw/loss-only")
    );
    let moves = json["moves"].as_array().unwrap();
    let rank = |m: &serde_json::Value| match m["wdl"].as_str().unwrap() {
        "win" => 2,
        "draw" => 1,
        _ => 0,
    };
    assert!(moves.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])));
    // The same values as the raw folder, move by move.
    let raw_tb = Tablebase::open(&raw, six).unwrap();
    let p = six.parse_position(pos).unwrap();
    let full = raw_tb.answer(&p, 0).unwrap().moves.unwrap();
    assert_eq!(moves.len(), full.len());
    assert_eq!(moves[0]["wdl"], full[0].value.wdl.as_str());

    let text = stdout(&["probe", "--db", db, pos]);
    assert!(text.contains("White to move: win (no plies"), "{text}");
    let batch_in = dir.path().join("batch.txt");
    std::fs::write(&batch_in, format!("{pos}\n")).unwrap();
    let batch = stdout(&["probe", "--db", db, "--batch", batch_in.to_str().unwrap()]);
    assert_eq!(batch.trim(), format!("{pos}\twin"));

    // A line needs distances: the value and moves come, and why no line.
    let out = morris_in(&["probe", "--db", db, "--line", pos]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("White to move: win"), "{text}");
    assert!(
        text.contains("line: none") && text.contains("no line of play"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["probe", "--db", db, "--line", "--json", pos])).unwrap();
    assert!(
        json["line_null_because"]
            .as_str()
            .unwrap()
            .contains("no line of play")
    );

    let stats = stdout(&["stats", "--db", db, "--tsv"]);
    let first = stats.lines().nth(1).unwrap();
    assert!(first.ends_with("\t-\t-"), "{first}");
    let game = stdout(&["play", "--db", db, "--human", "none", "--from", pos]);
    assert!(game.contains("White plays"), "{game}");

    // The library says why it has no distances.
    let tb = Tablebase::open_folder(&wdl).unwrap();
    assert_eq!(tb.wdl(&p).unwrap(), Wdl::Win);
    let err = tb.value(&p).unwrap_err();
    assert!(matches!(err, morris::ProbeError::WdlOnly { .. }), "{err}");

    // Under the move-count rule a value needs its plies: refused.
    let ruled = dir.path().join("ruled");
    let out = morris_in(&[
        "--variant",
        "six",
        "--n-move",
        "20",
        "solve",
        "--db",
        ruled.to_str().unwrap(),
        "--max-men",
        "6",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = morris_in(&[
        "pack",
        "--db",
        ruled.to_str().unwrap(),
        "--out",
        dir.path().join("x").to_str().unwrap(),
        "--wdl",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("move-count rule"));
}

/// A packed file, in full or win/draw/loss only, truncated, with a byte
/// flipped in its header, block table, pair grammar or compressed blocks,
/// or replaced by garbage: errors or right values, never a wrong value or
/// a panic. The four packings pair-coded (the default) and the losses and
/// plain values in zstd blocks here; predicted loss bits, small blocks and
/// the other zstd-coded ones in `scripts/oracle.sh`.
#[test]
fn damaged_packed_files_never_give_a_wrong_value() {
    let mut codings: Vec<_> = PACKINGS.map(|p| (p, false, Coder::DEFAULT)).into();
    codings.push((Encoding::PackedLosses, false, Coder::ZSTD));
    codings.push((Encoding::PackedPlies, false, Coder::ZSTD));
    damaged_packed_files(&codings);
}

#[test]
#[ignore]
fn damaged_packed_files_in_more_codings_never_give_a_wrong_value() {
    let zstd = |block_bytes_bits| Coder::Zstd { block_bytes_bits };
    damaged_packed_files(&[
        (Encoding::PackedLossBits, true, Coder::ZSTD),
        // Small blocks, one of equal bytes among them.
        (Encoding::PackedWdl, false, zstd(8)),
        (Encoding::PackedLosses, false, zstd(9)),
        (Encoding::PackedLossBits, false, Coder::ZSTD),
        (Encoding::PackedWdl, false, Coder::ZSTD),
    ]);
}

/// Each coding: (packing, loss bits predicted, how the blocks are coded).
fn damaged_packed_files(codings: &[(Encoding, bool, Coder)]) {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    solve_into(&raw, six, Selection::MaxMen(8));
    let good = Tablebase::open(&raw, six).unwrap();
    let index = SectorIndex::of(six.board, 4, 4);
    for &(packing, predicted, coder) in codings {
        let name = format!(
            "{packing:?}{} {coder:?}",
            if predicted { " predicted" } else { "" }
        );
        let packed = dir.path().join(&name);
        std::fs::create_dir_all(&packed).unwrap();
        Tablebase::create_packed(&packed, six, packing).unwrap();
        let source = SectorFile::open(&raw.join("4-4.mdb"), false).unwrap();
        let path =
            write_packed_choosing(&packed, &source, packing, six, Some(predicted), coder).unwrap();
        let header = SectorFile::open(&path, false).unwrap().header;
        assert_eq!(header.encoding().predicted(), predicted);
        assert_eq!(header.is_pair_coded(), coder == Coder::Pairs);
        let original = std::fs::read(&path).unwrap();
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
        // Every byte of the header and block table (a losses file's wins
        // record among them) and of a pair grammar, then bytes spread over
        // the blocks.
        let records = 24 + if predicted { 72 } else { 0 };
        let blocks = source.header.positions().div_ceil(1 << header.block_bits());
        let mut table_end = 128 + 16 * blocks + records;
        if coder == Coder::Pairs {
            table_end += header.dictionary_len() as u64;
        }
        let spread = (0..original.len()).step_by((original.len() / 150).max(1));
        for at in (0..table_end as usize).chain(spread) {
            let mut flipped = original.clone();
            flipped[at] ^= 0x10;
            damaged_files.push(flipped);
        }
        let sector = SectorKey::movement(4, 4);
        let right_stats = good.sector_stats(sector).unwrap();
        damaged_files.push(vec![0x5a; original.len()]);
        // A pair-coded sector this small keeps its blocks decoded; read from
        // its chunks too, as a large one is.
        assert!(coder != Coder::Pairs || blocks <= morris::db::PAIR_BLOCKS_KEPT_DECODED as u64);
        let chunk_reads: &[bool] = if coder == Coder::Pairs {
            &[false, true]
        } else {
            &[false]
        };
        for bytes in damaged_files {
            std::fs::write(&path, &bytes).unwrap();
            for &chunks in chunk_reads {
                let opened = Tablebase::open(&packed, six).unwrap().with_warnings(|_| {});
                let tb = if chunks {
                    opened.reading_pair_chunks()
                } else {
                    opened
                };
                for i in (0..index.size()).step_by(211) {
                    let pos = index.position(i, 0, 0);
                    let right = good.value(&pos).unwrap();
                    if !packing.wdl_only()
                        && let Ok(v) = tb.value(&pos)
                    {
                        assert_eq!(v, right, "{name} chunks {chunks} index {i}");
                    }
                    if let Ok(v) = tb.wdl(&pos) {
                        assert_eq!(v, Wdl::of(right), "{name} chunks {chunks} index {i}");
                    }
                }
                // Statistics: an error or the right ones, never wrong counts.
                if let Ok(s) = tb.sector_stats(sector) {
                    let counts = |s: &morris::db::SectorStats| (s.wins, s.losses, s.draws);
                    assert_eq!(counts(&s), counts(&right_stats), "{name}");
                    if !packing.wdl_only() {
                        assert_eq!(
                            (s.longest_win, s.longest_loss),
                            (right_stats.longest_win, right_stats.longest_loss),
                            "{name}"
                        );
                    }
                }
            }
            let tb = Tablebase::open(&packed, six).unwrap().with_warnings(|_| {});
            if bytes != original {
                let whole = tb.verify_checksum(sector);
                assert!(
                    whole.is_err(),
                    "{name}: damage unnoticed by the whole-file check"
                );
            }
        }
    }
}

pub fn solve_packing(raw: &Path, packed: &Path, selection: &str) -> String {
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
    for s in sector_files(&packed2).unwrap() {
        let file = SectorFile::open(&packed2.join(morris::db::file_name(s)), false).unwrap();
        assert!(
            file.header.is_pair_coded(),
            "{s}: solve --pack codes as pack does"
        );
    }

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

/// A packed folder of losses (the default) packs again into any packing
/// byte for byte as its raw folder does (decoded a sector at a time, each
/// value as a probe reads it), one of loss bits into two-bit codes;
/// what cannot be had is refused: plies from loss bits, plain values again.
#[test]
fn a_packed_folder_packs_again_as_its_raw_folder_does() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    solve_into(&at("raw"), six, Selection::All);
    pack_folder(&at("raw"), &at("losses"));
    for (extra, name) in [(&["--wdl"][..], "wdl"), (&["--plain"], "plain")] {
        pack_folder_as(&at("raw"), &at(name), extra);
        let again = format!("{name}-again");
        pack_folder_as(&at("losses"), &at(&again), extra);
        let sectors = sector_files(&at(name)).unwrap();
        assert_eq!(sectors, sector_files(&at(&again)).unwrap());
        for s in sectors {
            let file = morris::db::file_name(s);
            let read = |folder: &str| std::fs::read(at(folder).join(&file)).unwrap();
            assert!(read(name) == read(&again), "{name}: {file}");
        }
    }
    // Loss bits decoded into two-bit codes: those of the raw folder.
    pack_folder_as(&at("raw"), &at("codes"), &["--plain", "--wdl"]);
    pack_folder_as(&at("wdl"), &at("codes-again"), &["--plain", "--wdl"]);
    for s in sector_files(&at("wdl")).unwrap() {
        let file = morris::db::file_name(s);
        let read = |folder: &str| std::fs::read(at(folder).join(&file)).unwrap();
        assert!(read("codes") == read("codes-again"), "{file}");
    }
    let refused = |from: &str, extra: &[&str], says: &str| {
        let (from, out) = (at(from), at("refused"));
        let mut args = vec!["pack", "--db", from.to_str().unwrap()];
        args.extend(["--out", out.to_str().unwrap()]);
        let run = morris_in(&[&args[..], extra].concat());
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success() && err.contains(says), "{err}");
    };
    refused("wdl", &[], "no plies to pack");
    refused("wdl", &["--wdl"], "loss bits already");
    refused("plain", &["--wdl"], "pack its folder of raw files");
    // A raw folder emptied by `solve --pack`: its manifest alone.
    std::fs::create_dir(at("empty")).unwrap();
    let manifest = "morris-db.txt";
    std::fs::copy(at("raw").join(manifest), at("empty").join(manifest)).unwrap();
    refused("empty", &[], "no sector file");
}

/// Loss bits packed predicted (value encoding 8, each bit "lost" XOR its
/// model's guess) for every sector of six and standard up to 7 men, whether
/// or not the prediction is the smaller: every position's mark, value
/// through the tablebase, and the statistics equal the raw folder's.
#[test]
fn predicted_loss_bits_read_back_every_value() {
    for (name, men) in [("six", 12), ("standard", 7)] {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (raw, bits) = (dir.path().join("raw"), dir.path().join("bits"));
        solve_into(&raw, variant, Selection::MaxMen(men));
        Tablebase::create_packed(&bits, variant, Encoding::PackedLossBits).unwrap();
        let a = Tablebase::open(&raw, variant).unwrap();
        for sector in sector_files(&raw).unwrap() {
            let source = a.sector(sector).unwrap();
            let path = write_packed_choosing(
                &bits,
                &source,
                Encoding::PackedLossBits,
                variant,
                Some(true),
                Coder::ZSTD,
            )
            .unwrap();
            let file = SectorFile::open(&path, false).unwrap();
            assert!(file.header.encoding().predicted() && file.predictor().is_some());
            same_values(&source, &file, variant).unwrap();
        }
        let b = Tablebase::open_folder(&bits).unwrap();
        for sector in sector_files(&raw).unwrap() {
            let fb = b.sector(sector).unwrap();
            let index = SectorIndex::of_sector(variant.board, sector);
            for i in 0..index.size() {
                let pos = index.position(i, sector.us_hand, sector.them_hand);
                let value = a.value(&pos).unwrap();
                let lost = matches!(value, Value::Loss(_));
                assert_eq!(
                    fb.loss_mark(i, &pos, variant).unwrap() != LossMark::NotLost,
                    lost,
                    "{name} {sector} {i}"
                );
                if i % 5 == 0 {
                    // Any image of the position: its features are the same.
                    let symmetries = variant.board.symmetries();
                    let sym = &symmetries[i as usize % symmetries.len()];
                    let image = morris::Position::from_sides(
                        sym.apply(pos.us()),
                        pos.us_hand(),
                        sym.apply(pos.them()),
                        pos.them_hand(),
                    );
                    assert_eq!(
                        b.wdl(&image).unwrap(),
                        Wdl::of(value),
                        "{name} {sector} {i}"
                    );
                }
            }
            let counts = |t: &Tablebase| {
                let s = t.sector_stats(sector).unwrap();
                (s.wins, s.losses, s.draws)
            };
            assert_eq!(counts(&a), counts(&b), "{name} {sector}");
        }
    }
}

/// Packed in small blocks (`pack --block-bytes`), with the dictionaries the
/// larger sectors get: every code of every sector of six and of standard's
/// the same as packed in the default blocks, every value through the folder
/// the same as the raw one's; a dictionary that fails its check is refused
/// when the file is opened; a block size that is not a power of two in
/// range is refused by the command. Here standard's 3-5 with the sectors it
/// reads (the smallest that get dictionaries), one position in 41 of six's
/// and one in 401 of standard's probed through the folder; standard up to
/// 8 men, every position of six and one in 13 of standard's in
/// `scripts/oracle.sh`.
#[test]
fn small_blocks_hold_the_same_values() {
    let three_five = Selection::Sectors(vec![SectorKey::movement(3, 5)]);
    small_blocks_hold_the_same_values_probing(three_five, 41, 401, false);
}

#[test]
#[ignore]
fn small_blocks_hold_the_same_values_probing_more() {
    small_blocks_hold_the_same_values_probing(Selection::MaxMen(8), 1, 13, true);
}

/// Probes one position in `six_step` of six's and one in `standard_step` of
/// standard's (every one's code is compared in any case); runs `verify` on
/// six's packed folders, and on standard's when `verify_standard`.
fn small_blocks_hold_the_same_values_probing(
    standard: Selection,
    six_step: usize,
    standard_step: usize,
    verify_standard: bool,
) {
    for (name, selection) in [("six", Selection::All), ("standard", standard.clone())] {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let raw = dir.path().join("raw");
        solve_into(&raw, variant, selection);
        let a = Tablebase::open(&raw, variant).unwrap();
        let mut with_dictionary = Vec::new();
        for (packing, flags) in PACKINGS.into_iter().zip([
            &["--block-bytes", "256"][..],
            &["--wdl", "--block-bytes", "256"],
            &["--plain", "--block-bytes", "1024"],
            &["--plain", "--wdl", "--block-bytes", "512"],
        ]) {
            let packed = dir.path().join(format!("{packing:?}"));
            pack_folder_as(&raw, &packed, flags);
            // `verify` of standard's small blocks in the full run only (the
            // suite verifies its packed folders up to 6 men).
            if !packing.losses_only() && (name == "six" || verify_standard) {
                let verify = morris_in(&["verify", "--db", packed.to_str().unwrap()]);
                assert!(verify.status.success(), "{packing:?}");
            }
            let b = Tablebase::open_folder(&packed).unwrap();
            let bytes: u32 = flags.last().unwrap().parse().unwrap();
            for sector in sector_files(&raw).unwrap() {
                let (fa, fb) = (a.sector(sector).unwrap(), b.sector(sector).unwrap());
                assert_eq!(fb.header.encoding().as_requested(), packing);
                assert_eq!(
                    fb.header.block_bits(),
                    packing.block_bits() + bytes.trailing_zeros() - PACKED_BLOCK_BYTES_BITS
                );
                fb.verify_checksum().unwrap();
                same_values(&fa, &fb, variant).unwrap();
                if fb.header.dictionary_len() > 0 {
                    with_dictionary.push((packing, packed.join(morris::db::file_name(sector))));
                }
                let index = SectorIndex::of_sector(variant.board, sector);
                for i in (0..index.size()).step_by(if name == "six" {
                    six_step
                } else {
                    standard_step
                }) {
                    let pos = index.position(i, sector.us_hand, sector.them_hand);
                    let value = a.value(&pos).unwrap();
                    if packing.wdl_only() {
                        assert_eq!(b.wdl(&pos).unwrap(), Wdl::of(value), "{name} {sector} {i}");
                    } else {
                        assert_eq!(b.value(&pos).unwrap(), value, "{name} {sector} {i}");
                    }
                }
            }
        }
        if name == "six" {
            continue; // too small a game for a dictionary to pay
        }
        // Standard's larger sectors (3-5, 5-3) get dictionaries, in
        // several packings.
        let mut packings: Vec<Encoding> = with_dictionary.iter().map(|(p, _)| *p).collect();
        packings.dedup();
        assert!(packings.len() >= 2, "dictionaries in {packings:?}");
        for (_, path) in &with_dictionary {
            let original = std::fs::read(path).unwrap();
            let file = SectorFile::open(path, false).unwrap();
            let len = file.header.dictionary_len() as usize;
            let start = original.len()
                - file.header.packed_bytes() as usize
                - 12 * file.header.overflow_entries() as usize
                - len;
            for at in [start, start + len / 2, start + len - 1] {
                let mut flipped = original.clone();
                flipped[at] ^= 0x04;
                std::fs::write(path, &flipped).unwrap();
                let err = SectorFile::open(path, false).err().expect("refused");
                assert!(err.to_string().contains("dictionary"), "{err}");
            }
            std::fs::write(path, &original).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for bad in ["300", "128", "32768"] {
        let out = morris_in(&[
            "pack",
            "--db",
            dir.path().to_str().unwrap(),
            "--out",
            dir.path().join("p").to_str().unwrap(),
            "--block-bytes",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("power of two from 256 to 16384"), "{err}");
    }
}
