//! `stats` and `verify`: reading a whole folder back, and checking it.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};

use super::{error_chain, note};
use morris::db::{FolderValues, SectorStats, estimated_time, folder_storage, sector_files};
use morris::index::{SectorGraph, SectorKey};
use morris::verify::decoded::Decoded;
use morris::verify::{Check, Checked, verify_sector};
use morris::{ErrorKind, FileError, ProbeError, Tablebase};

/// The record of `verify --resume`: one line per sector that passed a full
/// check, `SECTOR CHECKSUM` (the file's body checksum, so a rewritten file
/// is checked again).
const VERIFIED: &str = "morris-verified.txt";

fn read_verified(path: &std::path::Path) -> Vec<(SectorKey, u64)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (sector, sum) = l.split_once(' ')?;
            Some((
                sector.parse().ok()?,
                u64::from_str_radix(sum.trim(), 16).ok()?,
            ))
        })
        .collect()
}

/// Stored values that do not follow from their children.
#[derive(Debug, thiserror::Error)]
#[error("{0} stored values do not follow from their children")]
pub struct Mismatches(pub u64);

/// Sectors that a check could not read, their files or their children's
/// damaged or missing (each listed as it was met).
#[derive(Debug, Default, thiserror::Error)]
#[error(
    "{} could not be checked: {}{}",
    match sectors.as_slice() {
        [one] => format!("sector {one}"),
        many => format!("{} sectors", many.len()),
    },
    causes.join("; "),
    match mismatches {
        0 => String::new(),
        n => format!("; {n} stored values of the others do not follow from their children"),
    }
)]
pub struct Unreadable {
    pub sectors: Vec<SectorKey>,
    /// The damaged files and missing sectors, each once.
    pub causes: Vec<String>,
    /// The folder, and the sectors to solve again into it.
    pub dir: std::path::PathBuf,
    pub rebuild: Vec<SectorKey>,
    pub mismatches: u64,
    /// Some file was damaged, not only missing (a packed folder that
    /// `solve --pack` is still filling lacks sectors, and nothing is wrong).
    pub damaged: bool,
}

impl Unreadable {
    /// Lists a sector that cannot be checked, its file or a child's damaged
    /// or missing, and lets the check go on: one run names every file to
    /// rebuild. Any other error stops it.
    fn record(&mut self, out: &mut dyn Write, sector: SectorKey, e: ProbeError) -> Result<()> {
        // A file that cannot be written (the scratch folder of a packed
        // folder's decoding full) is no fault of the sector, and would fail
        // every sector after it.
        let unwritable = matches!(
            &e,
            ProbeError::File(FileError::Write { .. })
                | ProbeError::Damaged {
                    source: FileError::Write { .. },
                    ..
                }
        );
        if unwritable || !matches!(e.kind(), ErrorKind::DamagedData | ErrorKind::MissingData) {
            return Err(e.into());
        }
        writeln!(out, "{sector}: CANNOT BE CHECKED: {}", error_chain(&e))?;
        self.sectors.push(sector);
        let (cause, rebuild) = match &e {
            ProbeError::Damaged { source, sector, .. } => {
                self.damaged = true;
                (source.to_string(), Some(*sector))
            }
            ProbeError::MissingSector { sector, .. } => {
                (format!("sector {sector} is missing"), Some(*sector))
            }
            other => {
                self.damaged |= e.kind() == ErrorKind::DamagedData;
                (other.to_string(), None)
            }
        };
        if let Some(s) = rebuild.filter(|s| !self.rebuild.contains(s)) {
            self.rebuild.push(s);
        }
        if !self.causes.contains(&cause) {
            self.causes.push(cause);
        }
        Ok(())
    }
}

/// Positions a second, in millions where there are that many (a sample
/// of a few thousand checks in a second would read "0.00 M/s").
fn rate(positions: u64, seconds: f64) -> String {
    let per_second = positions as f64 / seconds.max(1e-9);
    if per_second >= 1e5 {
        format!("{:.2} M positions/s", per_second / 1e6)
    } else {
        format!("{per_second:.0} positions/s")
    }
}

/// A sector's line of `verify`, with its mismatches below.
fn write_checked(
    out: &mut dyn Write,
    variant: &morris::Variant,
    sector: SectorKey,
    checked: &morris::verify::Checked,
    sampled: &str,
    seconds: f64,
) -> Result<()> {
    writeln!(
        out,
        "{sector}: {} ({} positions{sampled} in {seconds:.2} s, {})",
        match checked.total_mismatches {
            0 => "ok".to_string(),
            n => format!("{n} MISMATCHES"),
        },
        checked.positions,
        rate(checked.positions, seconds),
    )?;
    for m in &checked.mismatches {
        writeln!(
            out,
            "  {} index {}: {} stored {}, its children give {}",
            m.sector,
            m.index,
            m.position.notation(variant.board),
            m.stored,
            m.recomputed
        )?;
    }
    // A whole-game check runs for hours: each sector shows as it ends.
    out.flush()?;
    Ok(())
}

/// Sectors that the folder's other sectors need but that it lacks.
#[derive(Debug, thiserror::Error)]
#[error(
    "the folder lacks {} that its other sectors were solved from: {}; it is damaged or files were deleted",
    if .0.len() == 1 { "a sector" } else { "sectors" },
    .0.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
)]
pub struct MissingSectors(pub Vec<SectorKey>);

/// The sectors that the folder's sectors were solved from but that it
/// lacks: a file deleted since.
fn missing_sectors(tablebase: &Tablebase, present: &[SectorKey]) -> Vec<SectorKey> {
    let graph = SectorGraph::reachable(tablebase.variant());
    let mut missing: Vec<SectorKey> = present
        .iter()
        .filter(|s| graph.contains(**s))
        .flat_map(|s| graph.successors(*s).to_vec())
        .filter(|s| !tablebase.has_sector(*s))
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

pub fn stats(out: &mut dyn Write, tablebase: &Tablebase, tsv: bool) -> Result<()> {
    let sectors = sector_files(tablebase.dir())?;
    let stats = tablebase.stats(&sectors)?;
    // One stored index serves every sector of its board counts: checked once.
    let mut counts: Vec<SectorKey> = Vec::new();
    for &sector in &sectors {
        if !counts
            .iter()
            .any(|s| (s.us_board, s.them_board) == (sector.us_board, sector.them_board))
        {
            tablebase.verify_index(sector)?;
            counts.push(sector);
        }
    }
    // A win/draw/loss-only folder has no plies: its longest are blank.
    let wdl_only = tablebase.values() == morris::FolderValues::WinDrawLoss;
    let longest = |plies: u16| {
        if wdl_only {
            "-".to_string()
        } else {
            plies.to_string()
        }
    };
    if tsv {
        writeln!(
            out,
            "sector\tpositions\twins\tlosses\tdraws\tlongest_win\tlongest_loss"
        )?;
        for s in &stats {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                s.sector,
                s.positions,
                s.wins,
                s.losses,
                s.draws,
                longest(s.longest_win),
                longest(s.longest_loss)
            )?;
        }
    } else {
        if wdl_only {
            writeln!(
                out,
                "win/draw/loss only (morris pack --wdl): no plies, so no longest win or loss"
            )?;
        }
        if let Some(n) = tablebase.variant().n_move {
            writeln!(
                out,
                "under the move-count rule of {n} plies: values with a fresh counter, the longest in plies to the next mill"
            )?;
        }
        write_stats_table(out, &stats, &longest)?;
    }
    let missing = missing_sectors(tablebase, &sectors);
    if !missing.is_empty() {
        return Err(MissingSectors(missing).into());
    }
    Ok(())
}

fn write_stats_table(
    out: &mut dyn Write,
    stats: &[SectorStats],
    longest: &dyn Fn(u16) -> String,
) -> Result<()> {
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13} {:>11} {:>11} {:>13}",
        "sector", "wins", "losses", "draws", "longest win", "longest loss", "file bytes"
    )?;
    let mut totals = [0u64; 3];
    for s in stats {
        writeln!(
            out,
            "{:<10} {:>13} {:>13} {:>13} {:>11} {:>11} {:>13}",
            s.sector.to_string(),
            s.wins,
            s.losses,
            s.draws,
            longest(s.longest_win),
            longest(s.longest_loss),
            s.file_bytes
        )?;
        totals[0] += s.wins;
        totals[1] += s.losses;
        totals[2] += s.draws;
    }
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13}",
        "total", totals[0], totals[1], totals[2]
    )?;
    Ok(())
}

/// The check `verify`'s options ask for.
pub fn check_of(sample: Option<u64>, seed: u64, oracle: bool) -> Check {
    match (sample, oracle) {
        (Some(count), _) => Check::Sample { count, seed },
        (None, true) => Check::Oracle,
        (None, false) => Check::All,
    }
}

/// Positions a second that a full check averages on two cores over files
/// whose wins and draws are found by a search over the children, each
/// searched again for every parent (0.39 M/s over the whole of `six`
/// packed as losses that way, against 8 M/s over its raw files).
const SEARCHED_CHECK_RATE_TWO_CORES: f64 = 0.4e6;

/// Says up front how long a check of losses files that are searched per
/// position takes (predicted loss bits, the sectors that read them, and
/// any with `--oracle`: the others are decoded once, see [`Decoded`]), and
/// what looks at them faster: such a check runs for hours on a large
/// folder.
fn warn_of_searches(tablebase: &Tablebase, sectors: &[SectorKey], how: Check) {
    let searched: u64 = sectors
        .iter()
        .filter(|&&s| how != Check::All || !Decoded::applies(tablebase, s).unwrap_or(true))
        .filter_map(|s| tablebase.sector(*s).ok())
        .filter(|f| f.header.encoding().losses_only())
        .map(|f| f.header.positions())
        .sum();
    if searched == 0 {
        return;
    }
    let time = estimated_time(searched as f64 / SEARCHED_CHECK_RATE_TWO_CORES);
    note(&format!(
        "note: {searched} positions are packed as losses and checked by a search per position (predicted loss bits, the sectors that read them, or --oracle): each win or draw is checked by a search over its children, about {:.1} M positions/s on two cores, so this check takes {time}; `--sample 100000` checks that many positions per sector in a fraction of it",
        SEARCHED_CHECK_RATE_TWO_CORES / 1e6
    ));
}

/// [`verify_sector`], or for every position of a losses file (with plies
/// or loss bits, see [`Decoded::applies`]) the check of its decoded values
/// (the scratch folder made at the first).
fn check_one<'a>(
    tablebase: &'a Tablebase,
    decoded: &mut Option<Decoded<'a>>,
    sector: SectorKey,
    how: Check,
) -> Result<Checked, ProbeError> {
    if how != Check::All || !Decoded::applies(tablebase, sector)? {
        return verify_sector(tablebase, sector, how, 5);
    }
    tablebase.verify_index(sector)?;
    let decoded = match decoded {
        Some(d) => d,
        None => decoded.insert(Decoded::new(tablebase)?),
    };
    decoded.check(sector, 5)
}

/// Notes in `record` ([`VERIFIED`]) that `sector`'s file, of this checksum,
/// passed: `verify --resume` skips it.
fn record_passed(record: &std::path::Path, sector: SectorKey, checksum: u64) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(record)
        .with_context(|| format!("cannot write {}", record.display()))?;
    writeln!(file, "{sector} {checksum:016x}")?;
    Ok(())
}

/// Verifies the sectors `only` names, or every sector file of the folder,
/// with the time and rate of each and of all.
pub fn verify(
    out: &mut dyn Write,
    tablebase: Tablebase,
    only: &[SectorKey],
    how: Check,
    resume: bool,
) -> Result<()> {
    // Children are read at random: each packed block decoded once where
    // every position is checked; a sample reads few of each block's values,
    // each from its chunk (pair-coded files).
    let tablebase = &match how {
        Check::Sample { .. } => tablebase.sampling(),
        Check::All | Check::Oracle => tablebase.keeping_decoded_blocks(),
    };
    let sectors = if only.is_empty() {
        sector_files(tablebase.dir())?
    } else {
        only.to_vec()
    };
    if tablebase.values() == FolderValues::WinDrawLoss {
        note(
            "note: this folder holds win, draw or loss without plies: its check shows every value consistent with its children's, not proven (without distances a ring of positions marked won and lost could hold itself up); the proof is the full folder's `verify` before packing, then `pack`'s comparison",
        );
    }
    let started = Instant::now();
    let (mut bad, mut positions, mut skipped) = (0u64, 0u64, 0usize);
    let record = tablebase.dir().join(VERIFIED);
    let passed = if resume {
        read_verified(&record)
    } else {
        Vec::new()
    };
    let packed = folder_storage(tablebase.dir()).is_packed();
    if !matches!(how, Check::Sample { .. }) {
        warn_of_searches(tablebase, &sectors, how);
    }
    let mut unreadable = Unreadable {
        dir: tablebase.dir().to_path_buf(),
        ..Unreadable::default()
    };
    if how == Check::All {
        let checked_now = |s: SectorKey| {
            let checksum = tablebase.sector(s).map(|f| f.header.checksum());
            checksum.is_ok_and(|c| !passed.contains(&(s, c)))
        };
        let room = Decoded::room_needed(tablebase, &sectors, checked_now, false);
        Decoded::refuse_without_room(room)?;
    }
    let mut decoded: Option<Decoded> = None;
    for (at, &sector) in sectors.iter().enumerate() {
        // Before each step, whatever it ends in (what room_needed counts).
        if let Some(decoded) = &mut decoded {
            decoded.keep_only_for(&sectors[at..]);
        }
        let file = match tablebase.sector(sector) {
            Ok(file) => file,
            Err(e) => {
                unreadable.record(out, sector, e)?;
                continue;
            }
        };
        let checksum = file.header.checksum();
        if passed.contains(&(sector, checksum)) {
            writeln!(out, "{sector}: ok (checked before, {})", VERIFIED)?;
            skipped += 1;
            continue;
        }
        let sector_started = Instant::now();
        let checked = match check_one(tablebase, &mut decoded, sector, how) {
            Ok(checked) => checked,
            Err(e) => {
                unreadable.record(out, sector, e)?;
                continue;
            }
        };
        let size = file.header.positions();
        if decoded.is_none() && packed {
            // Its blocks were kept decoded: memory for the next sector.
            tablebase.forget_all();
        }
        let seconds = sector_started.elapsed().as_secs_f64();
        let sampled = match how {
            Check::Sample { count, .. } if count >= size => " (the sample covers the sector: all)",
            Check::Sample { .. } => " sampled",
            _ => "",
        };
        write_checked(out, tablebase.variant(), sector, &checked, sampled, seconds)?;
        bad += checked.total_mismatches;
        positions += checked.positions;
        if resume && checked.total_mismatches == 0 {
            record_passed(&record, sector, checksum)?;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "checked {positions} positions of {} sectors in {seconds:.1} s ({}){}: {}",
        sectors.len() - skipped - unreadable.sectors.len(),
        rate(positions, seconds),
        match skipped {
            0 => String::new(),
            n => format!(", {n} sectors checked before"),
        },
        if bad == 0 && unreadable.sectors.is_empty() {
            "all agree with their children".to_string()
        } else if bad == 0 {
            "the others agree with their children".to_string()
        } else {
            format!("{bad} mismatches")
        }
    )?;
    if !unreadable.sectors.is_empty() {
        unreadable.mismatches = bad;
        return Err(unreadable.into());
    }
    if bad > 0 {
        return Err(Mismatches(bad).into());
    }
    Ok(())
}
