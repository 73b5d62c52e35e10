//! The fast forward check against the simple one (its oracle), on correct
//! files and on files with planted wrong values whose checksums were made
//! to match, so that only the forward check can catch them.

use std::path::Path;

use morris::db::internals::write_sector;
use morris::db::{SectorFile, Value, sector_files};
use morris::index::{SectorIndex, SectorKey};
use morris::verify::decoded::Decoded;
use morris::verify::{Check, Checked, verify_sector};
use morris::{Selection, Tablebase, Variant};

use crate::solver::solve_into;

fn indices(checked: &Checked) -> Vec<u64> {
    let mut found: Vec<u64> = checked.mismatches.iter().map(|m| m.index).collect();
    found.sort_unstable();
    found
}

/// Rewrites `sector`'s file with `change` applied to its values, checksums
/// recomputed: the file passes every checksum.
fn plant(
    dir: &Path,
    sector: SectorKey,
    mut change: impl FnMut(u64, Value) -> Option<Value>,
) -> Vec<u64> {
    let path = dir.join(format!("{sector}.mdb"));
    let file = SectorFile::open(&path, false).unwrap();
    let header = file.header.clone();
    let mut bytes = file.bytes().unwrap().to_vec();
    let mut planted = Vec::new();
    for (i, b) in bytes.iter_mut().enumerate() {
        let value = file.value(i as u64).unwrap();
        if let Some(new) = change(i as u64, value) {
            *b = new.to_byte();
            planted.push(i as u64);
        }
    }
    drop(file);
    std::fs::remove_file(&path).unwrap();
    write_sector(dir, header, |sink| sink(&bytes), &[]).unwrap();
    planted
}

/// Every sector of the whole of six and the standard movement sectors up
/// to 6 men (8 in the long run below): the fast check and the oracle both
/// find nothing in the files as solved, and the same mismatches, the planted
/// ones among them, in files with a win shortened by two plies, a draw
/// turned into a win and a loss turned into a draw.
#[test]
fn the_fast_check_agrees_with_the_oracle() {
    fast_check_agrees_with_the_oracle(&[
        (
            "six",
            Selection::All,
            // A placement sector: the check values its positions in a loop of its own.
            &[SectorKey::movement(4, 4), "5+1-6+0".parse().unwrap()],
        ),
        (
            "standard",
            Selection::MaxMen(6),
            &[SectorKey::movement(3, 3)],
        ),
    ]);
}

/// The same on the standard movement sectors up to 8 men (the oracle takes
/// a minute or two here): `scripts/oracle.sh`.
#[test]
#[ignore]
fn the_fast_check_agrees_with_the_oracle_up_to_8_men() {
    fast_check_agrees_with_the_oracle(&[(
        "standard",
        Selection::MaxMen(8),
        &[SectorKey::movement(4, 4)],
    )]);
}

/// Each case: a game, what of it to solve, the sectors to plant wrong
/// values in (one at a time).
fn fast_check_agrees_with_the_oracle(cases: &[(&str, Selection, &[SectorKey])]) {
    for (name, selection, planted_in) in cases.iter().cloned() {
        let variant = Variant::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        solve_into(dir.path(), variant, selection);
        let tb = Tablebase::open(dir.path(), variant).unwrap();
        for sector in sector_files(dir.path()).unwrap() {
            let fast = verify_sector(&tb, sector, Check::All, 10).unwrap();
            let oracle = verify_sector(&tb, sector, Check::Oracle, 10).unwrap();
            assert_eq!(
                fast.total_mismatches,
                0,
                "{name} {sector}: {:?}",
                fast.mismatches.first()
            );
            assert_eq!(oracle.total_mismatches, 0, "{name} {sector}");
            assert_eq!(fast.positions, oracle.positions, "{name} {sector}");
        }
        drop(tb);
        for &sector in planted_in {
            let path = dir.path().join(morris::db::file_name(sector));
            let solved = std::fs::read(&path).unwrap();
            planted_values_are_caught(dir.path(), variant, sector);
            std::fs::write(&path, solved).unwrap();
        }
    }
}

/// One of each kind of wrong value planted in `planted_in`: the fast check
/// and the oracle find the same mismatches, the planted ones among them.
fn planted_values_are_caught(dir: &Path, variant: &'static Variant, planted_in: SectorKey) {
    let name = format!("{} {planted_in}", variant.name);
    // One of each kind of wrong value, at the first place it can go.
    let (mut win, mut draw, mut loss) = (false, false, false);
    let planted = plant(dir, planted_in, |_, v| match v {
        Value::Win(n) if n >= 3 && !win => {
            win = true;
            Some(Value::Win(n - 2))
        }
        _ => None,
    });
    let planted_draw = plant(dir, planted_in, |_, v| match v {
        Value::Draw if !draw => {
            draw = true;
            Some(Value::Win(1))
        }
        _ => None,
    });
    let planted_loss = plant(dir, planted_in, |_, v| match v {
        Value::Loss(n) if n > 0 && !loss => {
            loss = true;
            Some(Value::Draw)
        }
        _ => None,
    });
    let tb = Tablebase::open(dir, variant).unwrap();
    tb.verify_checksum(planted_in).expect("the checksums pass");
    let fast = verify_sector(&tb, planted_in, Check::All, 100_000).unwrap();
    let oracle = verify_sector(&tb, planted_in, Check::Oracle, 100_000).unwrap();
    assert_eq!(indices(&fast), indices(&oracle), "{name}");
    assert_eq!(fast.total_mismatches, oracle.total_mismatches);
    for i in planted.iter().chain(&planted_draw).chain(&planted_loss) {
        assert!(
            indices(&fast).contains(i),
            "{name}: planted value at {i} not caught"
        );
    }
    assert_eq!(planted.len() + planted_draw.len() + planted_loss.len(), 3);
}

/// `verify --sample` checks the positions its seed draws: the same seed the
/// same ones, another seed others.
#[test]
fn samples_are_reproducible_for_a_seed() {
    let variant = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::MaxMen(8));
    let sector = SectorKey::movement(4, 4);
    // Every 7th draw turned into a win: plenty for a sample to hit.
    plant(dir.path(), sector, |i, v| {
        (v == Value::Draw && i % 7 == 0).then_some(Value::Win(1))
    });
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let sample =
        |seed| verify_sector(&tb, sector, Check::Sample { count: 2000, seed }, 10_000).unwrap();
    let (a, b, c) = (sample(1), sample(1), sample(2));
    assert_eq!(a.positions, 2000);
    assert!(a.total_mismatches > 0);
    assert_eq!(indices(&a), indices(&b));
    assert_ne!(indices(&a), indices(&c));
}

/// The published counts of an independent solver (`data/published-movement-wdl.tsv`)
/// for the rows a small folder holds: the standard movement sectors up to 8 men.
/// `scripts/compare-published.sh` compares a whole folder.
#[test]
fn movement_counts_agree_with_the_published_ones() {
    let variant = Variant::standard();
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), variant, Selection::MaxMen(8));
    let tb = Tablebase::open(dir.path(), variant).unwrap();
    let published = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/published-movement-wdl.tsv"
    ))
    .unwrap();
    let mut compared = 0;
    for line in published.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let sector: SectorKey = f[0].parse().unwrap();
        if !tb.has_sector(sector) {
            continue;
        }
        let s = tb.sector_stats(sector).unwrap();
        let counts: Vec<u64> = f[1..4].iter().map(|n| n.parse().unwrap()).collect();
        assert_eq!(vec![s.wins, s.losses, s.draws], counts, "{sector}");
        compared += 1;
    }
    assert_eq!(compared, 6, "3-3, 3-4, 4-3, 3-5, 5-3 and 4-4");
}

/// Packed as losses (`pack`'s default) from a file with planted wrong
/// losses, checksums recomputed: a loss made a draw, a draw made a loss and
/// a loss made two plies longer and another two shorter. `verify` of the packed folder finds each,
/// and of the folders of the plain values (`pack --plain`) and of the
/// losses zstd-coded (`pack --zstd`).
/// Both ways: the search per position, and the sector decoded once then
/// checked as raw (what `verify` of a whole packed folder does), whose
/// scratch folder goes when done. (Of win/draw/loss bits it need not:
/// without plies a loss made a draw can turn its won children into draws
/// that hold each other up, consistent though false, as the README says.)
#[test]
fn planted_losses_are_caught_in_a_packed_folder() {
    let variant = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    solve_into(&raw, variant, Selection::MaxMen(8));
    let sector = SectorKey::movement(4, 4);
    // Each at a position of its own: planted one after the other at the
    // first that fits, they would all land on one.
    let mut taken = Vec::new();
    let mut first = |from: fn(Value) -> Option<Value>| {
        let mut done = false;
        let planted = plant(&raw, sector, |i, v| {
            let new = from(v).filter(|_| !done && !taken.contains(&i));
            done |= new.is_some();
            new
        });
        taken.extend_from_slice(&planted);
        planted
    };
    let loss_made_draw = first(|v| matches!(v, Value::Loss(n) if n > 0).then_some(Value::Draw));
    let draw_made_loss = first(|v| (v == Value::Draw).then_some(Value::Loss(2)));
    let loss_made_longer = first(|v| match v {
        Value::Loss(n) if n > 0 => Some(Value::Loss(n + 2)),
        _ => None,
    });
    // Each loss the search per position finds is confirmed by its children's
    // searches cut short: a loss made shorter as well as longer, at a
    // position one of whose children wins as fast as the planted loss says
    // its slowest does (only the slower one shows it wrong).
    let tb = Tablebase::open(&raw, variant).unwrap();
    let index = SectorIndex::of(variant.board, 4, 4);
    let fits = |i: u64| {
        let Value::Loss(n) = tb.sector(sector).unwrap().value(i).unwrap() else {
            return false;
        };
        let pos = index.position(i, 0, 0);
        let mut children = variant.moves(&pos).into_iter();
        n > 2 && children.any(|(_, c)| tb.value(&c).unwrap() == Value::Win(n - 3))
    };
    let shorter_at = (0..index.size()).find(|&i| !taken.contains(&i) && fits(i));
    drop(tb);
    let shorter_at = shorter_at.expect("a loss with a child that wins two plies faster");
    let loss_made_shorter = plant(&raw, sector, |i, v| match v {
        Value::Loss(n) if i == shorter_at => Some(Value::Loss(n - 2)),
        _ => None,
    });
    // The plain values, the losses zstd-coded and pair-coded, alike; read
    // as `verify` reads them, and as `verify --sample` does (each value from
    // its chunk, or zstd blocks kept once decoded).
    let packings = [
        ("plain", &["--plain"][..]),
        ("losses zstd", &["--zstd"]),
        ("losses", &[]),
    ];
    for (kind, flags) in packings {
        let packed = dir.path().join(kind);
        crate::pack::pack_folder_as(&raw, &packed, flags);
        for sampling in [false, true] {
            let mut tb = Tablebase::open_folder(&packed).unwrap();
            if sampling {
                tb = tb.sampling();
            }
            let checked = verify_sector(&tb, sector, Check::All, 100_000).unwrap();
            let planted = [
                &loss_made_draw,
                &draw_made_loss,
                &loss_made_longer,
                &loss_made_shorter,
            ];
            for &i in planted.into_iter().flatten() {
                let found = indices(&checked).contains(&i);
                assert!(found, "{kind} (sampling {sampling}): {i} not caught");
            }
        }
    }
    // The default packing (the loop's last) once more, its blocks kept.
    let packed = dir.path().join("losses");
    let tb = Tablebase::open_folder(&packed)
        .unwrap()
        .keeping_decoded_blocks();
    let checked = verify_sector(&tb, sector, Check::All, 100_000).unwrap();
    let planted = [
        loss_made_draw,
        draw_made_loss,
        loss_made_longer,
        loss_made_shorter,
    ]
    .concat();
    let mut apart = planted.clone();
    apart.sort_unstable();
    apart.dedup();
    assert_eq!((planted.len(), apart.len()), (4, 4));
    let mut decoded = Decoded::new(&tb).unwrap();
    let by_decoding = decoded.check(sector, 100_000).unwrap();
    // Another sector of the folder, untouched, is found whole.
    let clean = decoded.check(SectorKey::movement(4, 3), 10).unwrap();
    assert!(
        clean.positions > 0 && clean.total_mismatches == 0,
        "{clean:?}"
    );
    let scratch = decoded.dir().to_path_buf();
    assert!(scratch.exists());
    drop(decoded);
    assert!(!scratch.exists());
    for i in planted {
        assert!(
            indices(&checked).contains(&i),
            "planted value at {i} not caught"
        );
        assert!(
            indices(&by_decoding).contains(&i),
            "planted value at {i} not caught once decoded"
        );
    }
}

/// A folder of loss bits (`pack --wdl`), from files with planted wrong
/// values (losses made draws, draws made losses), checksums recomputed:
/// each sector decoded once then checked as wins, draws and losses
/// (`Decoded`, what `verify` of the whole folder does) finds the same
/// mismatches as the search per position (the simple check, one ply
/// deeper), some of them; in the folder as solved, none.
#[test]
fn decoded_loss_bits_are_checked_as_the_search_checks_them() {
    let variant = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    solve_into(&raw, variant, Selection::MaxMen(8));
    let clean = dir.path().join("clean");
    crate::pack::pack_folder_as(&raw, &clean, &["--wdl"]);
    let tb = Tablebase::open_folder(&clean).unwrap();
    let mut decoded = Decoded::new(&tb).unwrap();
    for sector in sector_files(&clean).unwrap() {
        assert!(Decoded::applies(&tb, sector).unwrap(), "{sector}");
        let checked = decoded.check(sector, 10).unwrap();
        assert!(
            checked.positions > 0 && checked.total_mismatches == 0,
            "{sector}: {checked:?}"
        );
    }
    drop(decoded);
    // Every 500th loss made a draw, every 500th draw a loss.
    let sector = SectorKey::movement(4, 4);
    let (mut losses, mut draws) = (0, 0);
    let planted = plant(&raw, sector, |_, v| match v {
        Value::Loss(_) => {
            losses += 1;
            (losses % 500 == 0).then_some(Value::Draw)
        }
        Value::Draw => {
            draws += 1;
            (draws % 500 == 0).then_some(Value::Loss(2))
        }
        Value::Win(_) => None,
    });
    assert!(planted.len() > 10, "{}", planted.len());
    let packed = dir.path().join("planted");
    crate::pack::pack_folder_as(&raw, &packed, &["--wdl"]);
    let tb = Tablebase::open_folder(&packed).unwrap();
    let searched = verify_sector(&tb, sector, Check::All, 1_000_000).unwrap();
    let by_decoding = Decoded::new(&tb).unwrap().check(sector, 1_000_000).unwrap();
    assert!(searched.total_mismatches > 0);
    assert_eq!(by_decoding.positions, searched.positions);
    let found = |checked: &Checked| {
        let mut found: Vec<String> = checked
            .mismatches
            .iter()
            .map(|m| format!("{} {} {}", m.index, m.stored, m.recomputed))
            .collect();
        found.sort_unstable();
        found
    };
    assert_eq!(found(&by_decoding), found(&searched));
}

/// The check of a packed folder removes the scratch folders that checks
/// killed on this machine left in the temporary folder, and keeps those of
/// other machines sharing it (it cannot tell whether they still run) and
/// of processes alive here.
#[test]
fn dead_scratch_folders_of_this_machine_alone_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    let (raw, packed) = (raw.to_str().unwrap(), packed.to_str().unwrap());
    crate::first_use::ok(&[
        "--variant",
        "six",
        "solve",
        "--db",
        raw,
        "--max-men",
        "7",
        "--quiet",
    ]);
    crate::first_use::ok(&["pack", "--db", raw, "--out", packed]);
    let tmp = dir.path().join("tmp");
    let host = morris::system::host_name();
    // Above any process number Linux gives (2^22 at most).
    let dead = 4_294_967;
    let alive = std::process::id();
    let folders = [
        (format!("morris-verify-{dead}-on-{host}"), false),
        (format!("morris-verify-{dead}-2-on-{host}"), false),
        (format!("morris-verify-{dead}"), false),
        (format!("morris-verify-{dead}-on-another-{host}"), true),
        (format!("morris-verify-{alive}-on-{host}"), true),
    ];
    for (name, _) in &folders {
        std::fs::create_dir_all(tmp.join(name)).unwrap();
    }
    let out = crate::first_use::morris()
        .args(["verify", "--db", packed])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if !cfg!(target_os = "linux") {
        return;
    }
    for (name, kept) in &folders {
        assert_eq!(tmp.join(name).exists(), *kept, "{name}");
    }
    // And its own is gone.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 2);
}

/// `verify --sample` of a packed folder checks every block's checksum
/// without decoding the blocks, and reads only the chunks its sample needs:
/// a block damaged where no sampled value lies is still found.
#[test]
fn a_sample_of_a_packed_folder_checks_every_block() {
    let six = Variant::by_name("six").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (raw, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    solve_into(&raw, six, Selection::MaxMen(8));
    crate::pack::pack_folder(&raw, &packed);
    let name = morris::db::file_name(SectorKey::movement(4, 4));
    // As `verify --sample` reads it.
    let tb = Tablebase::open_folder(&packed).unwrap().sampling();
    let sample = Check::Sample { count: 5, seed: 1 };
    let checked = verify_sector(&tb, SectorKey::movement(4, 4), sample, 10).unwrap();
    assert_eq!((checked.positions, checked.total_mismatches), (5, 0));
    drop(tb);
    // The last byte of the file lies in its last block.
    let path = packed.join(&name);
    let mut bytes = std::fs::read(&path).unwrap();
    *bytes.last_mut().unwrap() ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let tb = Tablebase::open_folder(&packed).unwrap().sampling();
    let err = verify_sector(&tb, SectorKey::movement(4, 4), sample, 10).unwrap_err();
    // Found by the checksums, before any position is probed.
    let morris::db::ProbeError::Damaged {
        position: None,
        source,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert!(
        source.to_string().contains("fails its checksum"),
        "{source}"
    );
}
