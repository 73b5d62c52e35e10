//! `morris plan` and `morris solve --unit`, the two halves of a workflow,
//! through the real binary: the plan against the sector graph and a plain
//! longest-path search, a unit solved alone against a whole solve.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value as Json;

use crate::first_use::{fails, ok};

/// `morris RULES plan --json FLAGS`, read.
fn plan(rules: &[&str], flags: &[&str]) -> Json {
    let args = [rules, &["plan", "--json"], flags].concat();
    serde_json::from_str(&ok(&args)).unwrap()
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The plan of six's whole game: every sector of `sectors --all` once, each
/// unit after the units it reads (which are the units of its sectors'
/// successors), stages one above what they read, and a critical path that
/// a plain search over all chains confirms.
#[test]
fn a_plan_orders_every_sector_and_finds_the_longest_chain() {
    let plan = plan(&["--variant", "six"], &["--all"]);
    assert_eq!(plan["version"], 1);
    assert_eq!(plan["variant"], "six");
    let units = plan["units"].as_array().unwrap();
    let listed = ok(&["--variant", "six", "sectors", "--all"]);
    let total = listed.lines().find(|l| l.contains(" sectors (")).unwrap();
    let sector_count: usize = total.split_whitespace().next().unwrap().parse().unwrap();
    let mut seen = HashSet::new();
    let mut position_of = HashMap::new();
    for (i, unit) in units.iter().enumerate() {
        let id = unit["id"].as_str().unwrap().to_string();
        for sector in strings(&unit["sectors"]) {
            assert!(seen.insert(sector), "a sector in two units");
        }
        for read in strings(&unit["reads"]) {
            let at: usize = position_of[&read];
            assert!(at < i, "{id} comes before {read}, which it reads");
            let stage = units[at]["stage"].as_u64().unwrap();
            assert!(unit["stage"].as_u64().unwrap() > stage, "{id}");
            assert!(
                strings(&units[at]["read_by"]).contains(&id),
                "{read} read by {id}"
            );
        }
        position_of.insert(id, i);
    }
    assert_eq!(seen.len(), sector_count, "{listed}");
    let positions: u64 = units.iter().map(|u| u["positions"].as_u64().unwrap()).sum();
    assert_eq!(plan["positions"].as_u64().unwrap(), positions);
    assert_eq!(positions, 3_141_931);

    // Packing as it goes, a job may pack its own sectors and those of the
    // units it reads: its memory covers the largest of them, two bytes a
    // position, even where that is a sector it reads (one unit at least).
    let six = morris::Variant::by_name("six").unwrap();
    let size = |sector: &str| {
        let key: morris::index::SectorKey = sector.parse().unwrap();
        let (us, them) = (key.us_board as usize, key.them_board as usize);
        morris::index::SectorIndex::count(six.board, us, them)
    };
    let largest = |unit: &Json| {
        strings(&unit["sectors"])
            .iter()
            .map(|s| size(s))
            .max()
            .unwrap()
    };
    let mut larger_read = 0;
    for unit in units {
        let own = largest(unit);
        let read = strings(&unit["reads"])
            .iter()
            .map(|r| largest(&units[position_of[r]]))
            .max()
            .unwrap_or(0);
        let base = morris::solve::PACK_BASE_BYTES + morris::solve::SOLVE_BASE_BYTES;
        let packing = unit["pack_memory_bytes"].as_u64().unwrap() - base;
        assert!(packing >= 2 * own.max(read), "{}", unit["id"]);
        larger_read += usize::from(read > own);
    }
    assert!(larger_read > 0);
    let most = units
        .iter()
        .map(|u| u["pack_memory_bytes"].as_u64().unwrap())
        .max();
    assert!(plan["peak_pack_memory_bytes"].as_u64() >= most);

    // The longest chain by plain recursion over every unit.
    fn longest(units: &[Json], at: &HashMap<String, usize>, i: usize) -> f64 {
        let below = strings(&units[i]["reads"])
            .iter()
            .map(|r| longest(units, at, at[r]))
            .fold(0.0, f64::max);
        units[i]["seconds"].as_f64().unwrap() + below
    }
    let best = (0..units.len())
        .map(|i| longest(units, &position_of, i))
        .fold(0.0, f64::max);
    let path = &plan["critical_path"];
    let seconds = path["seconds"].as_f64().unwrap();
    assert!(
        (seconds - best).abs() < 1e-9 * best.max(1.0),
        "{seconds} {best}"
    );
    let chain = strings(&path["units"]);
    for pair in chain.windows(2) {
        assert!(strings(&units[position_of[&pair[1]]]["reads"]).contains(&pair[0]));
    }
    let per_stage: u64 = plan["units_per_stage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(per_stage as usize, units.len());
}

/// A unit where a side holding men may move (Lasker's) is planned
/// `MOVES_WHILE_HOLDING_SLOWDOWN` times as long as its positions at the
/// plan's rate, as measured; a movement unit, and every unit of a game
/// where men in hand must be placed, at the rate.
#[test]
fn units_where_men_in_hand_may_move_are_planned_slower() {
    let seconds_per_position = |rules: &[&str], sectors: &str| -> HashMap<String, f64> {
        let plan = plan(rules, &["--sectors", sectors]);
        let rate = plan["rate"].as_f64().unwrap();
        plan["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                let (seconds, positions) = (
                    u["seconds"].as_f64().unwrap(),
                    u["positions"].as_f64().unwrap(),
                );
                (
                    u["id"].as_str().unwrap().to_string(),
                    seconds * rate / positions,
                )
            })
            .collect()
    };
    let lasker = seconds_per_position(&["--variant", "lasker"], "4+0-5+1");
    let slowdown = morris::solve::MOVES_WHILE_HOLDING_SLOWDOWN;
    assert!((lasker["4+0-5+1"] - slowdown).abs() < 1e-9, "{lasker:?}");
    assert!((lasker["3+0-4+1"] - slowdown).abs() < 1e-9, "{lasker:?}");
    assert!((lasker["4-5"] - 1.0).abs() < 1e-9, "{lasker:?}");
    let standard = seconds_per_position(&[], "8+1-8+0");
    assert!(
        standard.values().all(|&f| (f - 1.0).abs() < 1e-9),
        "{standard:?}"
    );
    let text = ok(&["--variant", "lasker", "plan", "--sectors", "4+0-5+1"]);
    assert!(
        text.contains(&format!(
            "{slowdown} times as long for a unit where a side holding men may move"
        )),
        "{text}"
    );
    assert!(!ok(&["plan", "--sectors", "8+1-8+0"]).contains("times as long"));
}

/// A Lasker unit with men in hand copies its exits' values into memory
/// (up to twice its positions in bytes), and its job asks for that memory
/// too; movement units and the standard game's units copy nothing.
#[test]
fn units_that_copy_their_exits_ask_for_that_memory() {
    let extra_memory = |rules: &[&str], sectors: &str| -> HashMap<String, (u64, u64)> {
        let plan = plan(rules, &["--sectors", sectors]);
        plan["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                let positions = u["positions"].as_u64().unwrap();
                let cells = (positions as f64 * morris::solve::SOLVE_BYTES_PER_POSITION) as u64;
                let base = cells + morris::solve::SOLVE_BASE_BYTES;
                let memory = u["memory_bytes"].as_u64().unwrap();
                let id = u["id"].as_str().unwrap().to_string();
                (id, (memory - base, positions))
            })
            .collect()
    };
    let lasker = extra_memory(&["--variant", "lasker"], "4+0-5+1");
    for id in ["4+0-5+1", "3+0-4+1"] {
        let (copied, positions) = lasker[id];
        assert!(copied > 0 && copied <= 2 * positions, "{id}: {lasker:?}");
    }
    assert_eq!(lasker["4-5"].0, 0, "{lasker:?}");
    let standard = extra_memory(&[], "8+1-8+0");
    assert!(standard.values().all(|&(c, _)| c == 0), "{standard:?}");
}

/// `solve --unit` solves one unit once what it reads is there, and refuses
/// at once, naming what is missing, before; a rerun of a finished unit
/// changes nothing; the files are those of a whole solve, also when a
/// unit is solved again after one of its files was deleted.
#[test]
fn a_unit_is_solved_alone_once_what_it_reads_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").to_str().unwrap().to_string();
    let err = fails(&["solve", "--db", &db, "--unit", "4-3"], 3);
    assert!(err.contains("3-3") && err.contains("lacks"), "{err}");
    ok(&["solve", "--db", &db, "--unit", "3-3", "--quiet"]);
    ok(&["solve", "--db", &db, "--unit", "4-3", "--quiet"]);
    ok(&["solve", "--db", &db, "--unit", "3-4", "--quiet"]);
    let whole = dir.path().join("whole").to_str().unwrap().to_string();
    ok(&["solve", "--db", &whole, "--sectors", "3-4", "--quiet"]);
    for name in ["3-3.mdb", "3-4.mdb", "4-3.mdb", "morris-db.txt"] {
        let one = std::fs::read(Path::new(&db).join(name)).unwrap();
        let other = std::fs::read(Path::new(&whole).join(name)).unwrap();
        assert!(one == other, "{name} differs");
    }
    // A unit with one of its sectors' files deleted (say, found damaged)
    // is solved again whole, to the same files.
    std::fs::remove_file(Path::new(&db).join("4-3.mdb")).unwrap();
    ok(&["solve", "--db", &db, "--unit", "3-4", "--quiet"]);
    for name in ["3-4.mdb", "4-3.mdb"] {
        let again = std::fs::read(Path::new(&db).join(name)).unwrap();
        let other = std::fs::read(Path::new(&whole).join(name)).unwrap();
        assert!(again == other, "{name} differs once solved again");
    }
    let err = fails(&["solve", "--db", &db, "--unit", "3-3", "--all"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// The disk a solve packing as it goes holds at most: below the raw files
/// of the whole game, at least the largest unit's raw files, no more than
/// the same walk at the units' grain (each unit packed once no unit reads
/// any of its sectors) holds; each unit's packing is what a real solve
/// does; and a solve says what it needs before it starts.
#[test]
fn a_plan_foresees_the_disk_of_packing_as_it_goes() {
    let plan = plan(&["--variant", "six"], &["--all"]);
    let peak = plan["peak_pack_disk_bytes"].as_u64().unwrap();
    let raw_peak = plan["peak_pack_raw_bytes"].as_u64().unwrap();
    let units = plan["units"].as_array().unwrap();
    let raw_of = |u: &Json| u["raw_bytes"].as_u64().unwrap();
    assert!(raw_peak <= peak && peak < plan["raw_bytes"].as_u64().unwrap());
    assert!(raw_peak >= units.iter().map(raw_of).max().unwrap());

    // The walk at the units' grain.
    let position_of: HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u["id"].as_str().unwrap().to_string(), i))
        .collect();
    let (mut raw, mut coarse_peak) = (0u64, 0u64);
    let mut kept = vec![false; units.len()];
    for (i, unit) in units.iter().enumerate() {
        raw += raw_of(unit);
        kept[i] = true;
        coarse_peak = coarse_peak.max(raw);
        for (j, earlier) in units.iter().enumerate().take(i + 1) {
            let read_later = strings(&earlier["read_by"])
                .iter()
                .any(|r| position_of[r] > i);
            if kept[j] && !read_later {
                kept[j] = false;
                raw -= raw_of(earlier);
            }
        }
    }
    assert!(raw_peak <= coarse_peak, "{raw_peak} against {coarse_peak}");

    // A real solve packs, after each unit, what the plan says (its log:
    // "solved UNIT: ..." then "packed SECTOR + SECTOR in ..."), and
    // says what it needs before it starts.
    let dir = tempfile::tempdir().unwrap();
    let (db, packed) = (dir.path().join("raw"), dir.path().join("packed"));
    let (db, packed) = (db.to_str().unwrap(), packed.to_str().unwrap());
    let args = [
        "--variant",
        "six",
        "solve",
        "--all",
        "--db",
        db,
        "--pack",
        packed,
    ];
    let (code, _, log) = crate::first_use::run(&args);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("MB more disk"), "{log}");
    // Each unit's line in a log tells how far the whole solve has got, and
    // the most disk its folders held so far (the largest over a run's
    // resumes is its peak): here at most the whole solve's.
    let last = log.lines().filter(|l| l.starts_with("solved ")).nth_back(1);
    // The figure after the last "held at most " of `text`.
    let mb = |text: &str| -> f64 {
        let rest = text.rsplit("held at most ").next().unwrap();
        rest.split(" MB").next().unwrap().parse().unwrap()
    };
    let last = last.unwrap_or_else(|| panic!("{log}"));
    assert!(
        last.contains("; done: 100.0% of this run's ")
            && last.contains("left at its rate; the folders held at most ")
            && last.ends_with(" MB so far"),
        "{log}"
    );
    let so_far = mb(last);
    assert!(so_far > 0.0 && so_far <= mb(&log), "{log}");
    // Measured once the unit's files are written, before packing removes
    // any: the first unit's line counts its own files (it said 0 when the
    // folders were measured after packing alone, the disk's peak missed).
    let first = log.lines().find(|l| l.starts_with("solved ")).unwrap();
    assert!(mb(first) > 0.0, "{log}");
    let mut packs_seen: HashMap<String, Vec<String>> = HashMap::new();
    let mut unit = String::new();
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("solved ") {
            unit = rest.split([' ', ':']).next().unwrap().to_string();
        } else if let Some(rest) = line.strip_prefix("packed ") {
            // "packed A + B in ...".
            let sectors = rest.split(" in ").next().unwrap().split(" + ");
            let seen = packs_seen.entry(unit.clone()).or_default();
            seen.extend(sectors.map(str::to_string));
        }
    }
    for unit in units {
        let id = unit["id"].as_str().unwrap();
        let mut seen = packs_seen.remove(id).unwrap_or_default();
        seen.sort();
        let mut planned = strings(&unit["packs"]);
        planned.sort();
        assert_eq!(seen, planned, "unit {id}");
    }
    assert!(packs_seen.is_empty(), "{packs_seen:?}");
}
