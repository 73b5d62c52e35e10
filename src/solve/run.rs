//! Scheduling a solve: which units, in which order, what is already done,
//! writing each unit's files when it completes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::cells::SolvedSector;
use super::disk::{
    DiskForecast, DiskNeed, DiskPeak, DiskTimeline, PACKED_FRACTION, WDL_PACKED_FRACTION,
    raw_sector_len, refuse_if_short,
};
use super::error::SolveError;
use super::events::{SolveEvent, SolveSummary};
use super::lock::UnitLock;
use super::marks;
use super::mill_clock::solve_unit_under_rule;
use super::pack_along::PackAlong;
use super::placement::{Distances, MillClock, is_placement_unit, solve_placement};
use super::retrograde::{UnitEvent, solve_unit};
use crate::db::{
    Coder, ESCAPE_BYTE, Header, StoredIndex, Tablebase, file_name, index_file_name,
    is_current_index, remove_stale_temp_files, sector_files, write_sector, write_stored_index,
};
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::rules::Variant;
use crate::system::{anonymous_memory, release_free_memory};
use crate::system::{free_disk_bytes, same_disk};

/// Which sectors to solve (their dependencies always come too).
#[derive(Clone, Debug)]
pub enum Selection {
    /// Every sector reachable from the start: the whole game.
    All,
    /// Movement sectors with at most this many men on the board.
    MaxMen(u32),
    /// These sectors.
    Sectors(Vec<SectorKey>),
    /// The one unit that holds this sector, and nothing it depends on:
    /// every unit it reads must be complete in the folder (a workflow
    /// engine runs them first, one job each).
    Unit(SectorKey),
}

impl Selection {
    /// The sectors selected, before their dependencies.
    ///
    /// # Errors
    /// A named sector the game does not reach, or a selection that holds
    /// no sector.
    pub(super) fn targets(
        &self,
        variant: &Variant,
        graph: &SectorGraph,
    ) -> Result<Vec<SectorKey>, SolveError> {
        let targets: Vec<SectorKey> = match self {
            Selection::All => graph.sectors().collect(),
            Selection::MaxMen(n) => graph
                .sectors()
                .filter(|s| s.is_movement() && s.men_on_board() <= *n)
                .collect(),
            Selection::Unit(sector) => {
                if !graph.contains(*sector) {
                    return Err(SolveError::UnreachableSector {
                        sector: *sector,
                        variant: variant.name.to_string(),
                    });
                }
                vec![*sector]
            }
            Selection::Sectors(list) => {
                if let Some(&sector) = list.iter().find(|s| !graph.contains(**s)) {
                    return Err(SolveError::UnreachableSector {
                        sector,
                        variant: variant.name.to_string(),
                    });
                }
                list.clone()
            }
        };
        if targets.is_empty() {
            return Err(SolveError::NothingSelected {
                variant: variant.label(),
            });
        }
        Ok(targets)
    }

    /// Every sector a solve of this selection takes, the selected ones and
    /// what they depend on, in the order a solve builds them.
    ///
    /// # Errors
    /// As [`solve`]'s for the selection: a named sector the game does not
    /// reach, or a selection that holds no sector.
    pub fn sectors_to_solve(&self, variant: &Variant) -> Result<Vec<SectorKey>, SolveError> {
        let graph = SectorGraph::reachable(variant);
        Ok(self.units(variant, &graph)?.into_iter().flatten().collect())
    }

    /// The units a solve of this selection takes, in solve order.
    pub(super) fn units(
        &self,
        variant: &Variant,
        graph: &SectorGraph,
    ) -> Result<Vec<Vec<SectorKey>>, SolveError> {
        let targets = self.targets(variant, graph)?;
        Ok(match self {
            Selection::Unit(sector) => graph
                .units()
                .into_iter()
                .filter(|unit| unit.contains(sector))
                .collect(),
            _ => graph.units_for(&targets),
        })
    }
}

#[derive(Clone, Debug)]
pub struct SolveOptions {
    pub db: PathBuf,
    pub variant: &'static Variant,
    pub selection: Selection,
    /// Pack into this folder each sector that no unsolved unit reads any
    /// more, removing its raw file once the packed one is checked.
    pub pack: Option<PathBuf>,
    /// How those packed files' blocks are coded: `Coder::DEFAULT` (pair
    /// coded, what `morris pack` writes) or `Coder::ZSTD` (`pack --zstd`).
    pub pack_coder: Coder,
    /// With `pack`: a second packed folder, of win/draw/loss only (loss
    /// bits, what `morris pack --wdl` writes), filled the same way. Sectors
    /// packed before it was given are decoded from `pack` into it at the
    /// end, those whose successors are all packed.
    pub pack_wdl: Option<PathBuf>,
    /// Under the move-count rule, the same variant's folder without the
    /// rule: each fresh draw that is a win or a loss there is written as a
    /// cursed win or a blessed loss, so the folder alone tells them apart.
    pub without_rule: Option<PathBuf>,
}

impl SolveOptions {
    /// A solve of `selection` into `db` that writes raw files only: no
    /// packing as it goes, no move-count rule's folder beside. Set the
    /// other fields with struct update syntax:
    /// `SolveOptions { pack: Some(dir), ..SolveOptions::new(db, variant, selection) }`.
    pub fn new(db: impl Into<PathBuf>, variant: &'static Variant, selection: Selection) -> Self {
        SolveOptions {
            db: db.into(),
            variant,
            selection,
            pack: None,
            pack_coder: Coder::DEFAULT,
            pack_wdl: None,
            without_rule: None,
        }
    }

    /// Whether the solve ends with the catch-up (with `pack_wdl`, the
    /// sectors packed before it was asked for decoded into its folder): not
    /// a workflow's unit job, which leaves that to the workflow's last step
    /// (a solve of the whole selection), as in each job it would wait on
    /// the others.
    fn catches_up(&self) -> bool {
        !matches!(self.selection, Selection::Unit(_))
    }

    /// Fails on options that contradict each other (the command line
    /// cannot give them; a program can).
    fn refuse_contradictions(&self) -> Result<(), SolveError> {
        if self.pack_wdl.is_some() && self.pack.is_none() {
            return Err(SolveError::WdlWithoutPack);
        }
        Ok(())
    }
}

/// Solves the selected sectors and their dependencies into `options.db`,
/// skipping sectors whose files exist. An interruption loses at most the
/// unit in progress. Several processes may solve into one folder at once:
/// each unit is solved under a lock, by one of them.
///
/// # Errors
/// A folder of another variant, a sector that is not reachable, a damaged
/// existing file, or what solving a unit runs into.
pub fn solve(
    options: &SolveOptions,
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<SolveSummary, SolveError> {
    let variant = options.variant;
    let graph = SectorGraph::reachable(variant);
    let units = options.selection.units(variant, &graph)?;
    options.refuse_contradictions()?;
    let disk = check_disk(options, &graph, &units)?;
    // The folder is made only now that there is something to write in it.
    let (tablebase, made_here) = open_folder(options)?;
    let size = |s: &SectorKey| SectorIndex::count_of(variant.board, *s);
    let mut along = start_packing_along(&tablebase, options, &graph, made_here)?;
    let done_sector = |along: &Option<PackAlong>, s: SectorKey| match along {
        Some(a) => a.is_done(s),
        None => tablebase.has_sector(s),
    };
    let is_done =
        |along: &Option<PackAlong>, unit: &[SectorKey]| unit.iter().all(|s| done_sector(along, *s));
    // Packing along may pack the units' sectors, and those a single unit
    // reads, once no unit still to run reads them.
    let mut candidates: Vec<SectorKey> = units.iter().flatten().copied().collect();
    if let Selection::Unit(_) = options.selection {
        let inputs = unit_inputs(&graph, &units[0]);
        let done_input = |t: &SectorKey| done_sector(&along, *t);
        let missing: Vec<SectorKey> = inputs.iter().copied().filter(|t| !done_input(t)).collect();
        if !missing.is_empty() {
            let unit = units[0][0];
            return Err(SolveError::UnitNeedsSectors { unit, missing });
        }
        candidates.extend(inputs);
    }
    let unit_done: Vec<bool> = units.iter().map(|u| is_done(&along, u)).collect();
    on_event(planned(options, &units, &unit_done, disk));
    check_done_units(&tablebase, along.as_ref(), &units, &unit_done, on_event)?;

    let started = Instant::now();
    let mut summary = SolveSummary::default();
    for (unit, checked) in units.iter().zip(&unit_done) {
        let lock = if is_done(&along, unit) {
            None
        } else {
            let lock = UnitLock::acquire(&options.db, &unit[0].to_string(), || {
                on_event(SolveEvent::Waiting { sectors: unit })
            })?;
            // Another process may have solved it while this one waited.
            (!is_done(&along, unit)).then_some(lock)
        };
        let Some(_lock) = lock else {
            if !checked {
                // Solved by another process while this one waited.
                for &s in unit {
                    check_done_sector(&tablebase, along.as_ref(), s, on_event)?;
                }
            }
            on_event(SolveEvent::Skipped { sectors: unit });
            pack_along(&mut along, &candidates, &mut summary, on_event)?;
            continue;
        };
        restore_packed_inputs(along.as_ref(), &graph, unit, on_event)?;
        let stems: Vec<String> = unit.iter().map(|s| file_name(*s)).collect();
        remove_stale_temp_files(&options.db, &stems);
        let positions: u64 = unit.iter().map(size).sum();
        release_free_memory();
        on_event(SolveEvent::UnitStarted {
            sectors: unit,
            positions,
        });
        let unit_start = Instant::now();
        // Taken once the children are counted too: the exits' values copied
        // into memory (Lasker) are freed before the unit returns.
        let counted_memory = AtomicU64::new(0);
        let solved = solve_one_unit(variant, unit, &tablebase, &|e| {
            if let UnitEvent::Initialised { .. } = e {
                counted_memory.store(anonymous_memory().unwrap_or(0), Ordering::Relaxed);
            }
            on_event(SolveEvent::Unit(e))
        })?;
        write_unit(&tablebase, variant, &solved, on_event)?;
        let elapsed = unit_start.elapsed();
        // The folders' peak: the unit's new files beside every raw file it
        // read, before packing removes any (what the disk forecast counts).
        if let Some(along) = along.as_mut() {
            along.note_disk()?;
        }
        let memory = anonymous_memory().map(|m| m.max(counted_memory.into_inner()));
        if let Some(m) = memory
            && summary.peak_memory.is_none_or(|(peak, _)| m > peak)
        {
            summary.peak_memory = Some((m, positions));
        }
        for s in unit {
            summary.sectors.push((*s, size(s), elapsed));
        }
        summary.units.push((unit.clone(), positions, elapsed));
        summary.units_solved += 1;
        summary.positions_solved += positions;
        on_event(SolveEvent::UnitDone {
            sectors: unit,
            positions,
            elapsed,
            memory,
            peak_disk: along.as_ref().map(|a| a.peak_disk),
        });
        // Memory follows the unit in progress: the next maps and builds what it needs.
        drop(solved);
        pack_along(&mut along, &candidates, &mut summary, on_event)?;
        tablebase.forget_all();
        SectorIndex::release_cached();
    }
    catch_up(along.as_mut(), options, &mut summary, on_event)?;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// With `--pack-wdl`, the sectors packed before it was given decoded into
/// its folder ([`PackAlong::catch_up_wdl`]), at the end of a solve.
fn catch_up(
    along: Option<&mut PackAlong>,
    options: &SolveOptions,
    summary: &mut SolveSummary,
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    let Some(along) = along.filter(|_| options.catches_up()) else {
        return Ok(());
    };
    let started = Instant::now();
    let sectors = along.catch_up_wdl(on_event)?;
    summary.peak_disk = Some(along.peak_disk);
    if !sectors.is_empty() {
        let elapsed = started.elapsed();
        summary.packing += elapsed;
        on_event(SolveEvent::CaughtUp { sectors, elapsed });
    }
    Ok(())
}

/// What the solve is about to do: the units, those done, the positions, and
/// the disk it adds at most.
fn planned<'a>(
    options: &SolveOptions,
    units: &[Vec<SectorKey>],
    unit_done: &[bool],
    disk: DiskForecast,
) -> SolveEvent<'a> {
    let size = |s: &SectorKey| SectorIndex::count_of(options.variant.board, *s);
    SolveEvent::Planned {
        units: units.len(),
        done: unit_done.iter().filter(|d| **d).count(),
        positions: units.iter().flatten().map(size).sum(),
        to_solve: units
            .iter()
            .zip(unit_done)
            .filter(|(_, done)| !**done)
            .flat_map(|(u, _)| u)
            .map(size)
            .sum(),
        disk,
    }
}

/// The disk the solve of `units` adds at most, worked out from the files
/// already there (see [`DiskTimeline`]) before anything is written, and the
/// free space. Fails at once where the raw files alone cannot fit (the
/// solve would fail, maybe hours later); the packed files' share is an
/// estimate, told, not enforced.
fn check_disk(
    options: &SolveOptions,
    graph: &SectorGraph,
    units: &[Vec<SectorKey>],
) -> Result<DiskForecast, SolveError> {
    // Before the disk is measured: a killed run's files count against it.
    remove_stale_temp_files(&options.db, &[]);
    let pack = options.pack.as_deref();
    let solved = |s: SectorKey| {
        let name = file_name(s);
        options.db.join(&name).is_file() || pack.is_some_and(|p| p.join(&name).is_file())
    };
    let wdl = if options.pack_wdl.is_some() {
        WDL_PACKED_FRACTION
    } else {
        0.0
    };
    let fraction = pack.map(|_| PACKED_FRACTION + wdl);
    // A unit solved again reads these back as raw files.
    let packed_only = |s: SectorKey| {
        let name = file_name(s);
        !options.db.join(&name).is_file() && pack.is_some_and(|p| p.join(&name).is_file())
    };
    let (variant, restoring) = (options.variant, &packed_only);
    let timeline = DiskTimeline::restoring(variant, graph, units, fraction, &solved, restoring);
    let peak = timeline.peak();
    let free = free_disk_bytes(&options.db);
    refuse_if_short(peak, free, &options.db, pack.is_some())?;
    Ok(DiskForecast {
        disks: disk_needs(options, &timeline, peak),
    })
}

/// What lands on each disk. On the raw folder's, the raw files with the
/// share of the packed files beside them, at their peak together; on a disk
/// of packed folders alone their share of the packed files, with the
/// packing of the sectors solved but still raw. The win/draw/loss folder
/// also gets the sectors packed before it was asked for (the catch-up).
fn disk_needs(options: &SolveOptions, timeline: &DiskTimeline, peak: DiskPeak) -> Vec<DiskNeed> {
    let (pack, wdl_dir) = (options.pack.as_deref(), options.pack_wdl.as_deref());
    let all_packed = PACKED_FRACTION + wdl_dir.map_or(0.0, |_| WDL_PACKED_FRACTION);
    let share = |fraction: f64| (peak.packed_bytes as f64 * fraction / all_packed).ceil() as u64;
    let raw_bytes = |sectors: Vec<SectorKey>| {
        let lens = sectors
            .into_iter()
            .map(|s| raw_sector_len(options.variant, s));
        lens.sum::<u64>() as f64
    };
    let still_raw = raw_bytes(sector_files(&options.db).unwrap_or_default());
    let caught_up = match (pack, wdl_dir) {
        (Some(pack), Some(wdl)) => {
            let mut lacking = sector_files(pack).unwrap_or_default();
            lacking.retain(|s| !wdl.join(file_name(*s)).is_file());
            (raw_bytes(lacking) * WDL_PACKED_FRACTION).ceil() as u64
        }
        _ => 0,
    };
    let packed_folders = [
        (pack, PACKED_FRACTION, 0),
        (wdl_dir, WDL_PACKED_FRACTION, caught_up),
    ];
    let mut disks: Vec<(&Path, u64)> = vec![(&options.db, 0)];
    let (mut beside_raw, mut raw_disk_extra) = (0.0, 0);
    for (dir, fraction, extra) in packed_folders {
        let Some(dir) = dir else { continue };
        let away = share(fraction) + (still_raw * fraction).ceil() as u64 + extra;
        match disks.iter().position(|(d, _)| same_disk(d, dir)) {
            Some(0) => {
                beside_raw += fraction;
                raw_disk_extra += extra;
            }
            Some(i) => disks[i].1 += away,
            None => disks.push((dir, away)),
        }
    }
    disks[0].1 = timeline.peak_with(beside_raw / all_packed) + raw_disk_extra;
    disks
        .into_iter()
        .map(|(dir, needed)| DiskNeed {
            dir: dir.to_path_buf(),
            needed,
            free: free_disk_bytes(dir),
        })
        .collect()
}

/// The folder a solve writes and whether this solve made it (see
/// [`marks::create_folder`]); one made here is removed again if refused.
fn open_folder(options: &SolveOptions) -> Result<(Tablebase, bool), SolveError> {
    let made_here = !options.db.exists();
    let without_rule = options.without_rule.as_deref();
    let tablebase =
        marks::create_folder(&options.db, options.variant, without_rule).inspect_err(|_| {
            if made_here {
                marks::remove_empty_folder(&options.db);
            }
        })?;
    Ok((tablebase, made_here))
}

/// Under `--pack`, the packed folder beside the raw one; a refused one
/// leaves no raw folder this solve made.
fn start_packing_along<'a>(
    tablebase: &'a Tablebase,
    options: &SolveOptions,
    graph: &SectorGraph,
    made_here: bool,
) -> Result<Option<PackAlong<'a>>, SolveError> {
    let Some(dir) = &options.pack else {
        return Ok(None);
    };
    let folders_made: Vec<&std::path::Path> = [Some(dir.as_path()), options.pack_wdl.as_deref()]
        .into_iter()
        .flatten()
        .filter(|d| !d.exists())
        .collect();
    PackAlong::new(
        tablebase,
        (dir, options.pack_coder),
        options.pack_wdl.as_deref(),
        graph,
    )
    .and_then(|along| {
        // Before the solve: the catch-up at its end must have room.
        if options.catches_up() {
            along.catch_up_with_room()?;
        }
        Ok(Some(along))
    })
    .inspect_err(|_| {
        // Refused: the folders made for it go (empty of all but manifests).
        for folder in &folders_made {
            marks::remove_empty_folder(folder);
        }
        if made_here {
            marks::remove_empty_folder(&options.db);
        }
    })
}

/// The sectors a unit's moves lead to outside it, in order, each once.
fn unit_inputs(graph: &SectorGraph, unit: &[SectorKey]) -> Vec<SectorKey> {
    let inputs: std::collections::BTreeSet<SectorKey> = unit
        .iter()
        .flat_map(|s| graph.successors(*s).iter().copied())
        .filter(|t| !unit.contains(t))
        .collect();
    inputs.into_iter().collect()
}

/// Under `--pack`, writes back into the raw folder the sectors `unit`
/// reads that are packed only (see [`PackAlong::restore_inputs`]).
fn restore_packed_inputs(
    along: Option<&PackAlong>,
    graph: &SectorGraph,
    unit: &[SectorKey],
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    let Some(along) = along else {
        return Ok(());
    };
    let started = Instant::now();
    let sectors = along.restore_inputs(&unit_inputs(graph, unit))?;
    if !sectors.is_empty() {
        let elapsed = started.elapsed();
        on_event(SolveEvent::Restored { sectors, elapsed });
    }
    Ok(())
}

/// Checks the files of the units solved before this run, all sectors at
/// once, telling when it starts and ends: a resumed whole game has hundreds
/// (packed ones checked by their blocks' checksums, not decoded).
fn check_done_units(
    tablebase: &Tablebase,
    along: Option<&PackAlong>,
    units: &[Vec<SectorKey>],
    unit_done: &[bool],
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    let done: Vec<&[SectorKey]> = (units.iter().zip(unit_done))
        .filter_map(|(unit, done)| done.then_some(unit.as_slice()))
        .collect();
    if done.is_empty() {
        return Ok(());
    }
    let started = Instant::now();
    on_event(SolveEvent::Checking { units: done.len() });
    // Sectors sharing an index file (the same men on the board) go
    // together: one of them may write it again.
    let mut by_index: BTreeMap<(u8, u8), Vec<SectorKey>> = BTreeMap::new();
    for &s in done.iter().copied().flatten() {
        by_index
            .entry((s.us_board, s.them_board))
            .or_default()
            .push(s);
    }
    let groups: Vec<Vec<SectorKey>> = by_index.into_values().collect();
    let results: Vec<Result<(), SolveError>> = (groups.par_iter())
        .flat_map_iter(|group| {
            let check = |&s: &SectorKey| check_done_sector(tablebase, along, s, on_event);
            group.iter().map(check).collect::<Vec<_>>()
        })
        .collect();
    // Every damaged packed file named at once: each takes a delete and a
    // rerun, and a rerun checks for minutes first.
    let mut damaged: Option<SolveError> = None;
    for result in results {
        match (result, &mut damaged) {
            (Ok(()), _) => {}
            (
                Err(SolveError::DamagedPacked { sectors, files, .. }),
                Some(SolveError::DamagedPacked {
                    sectors: all,
                    files: all_files,
                    ..
                }),
            ) => {
                all.extend(sectors);
                all_files.extend(files);
            }
            (Err(e @ SolveError::DamagedPacked { .. }), None) => damaged = Some(e),
            (Err(e), _) => return Err(e),
        }
    }
    if let Some(e) = damaged {
        return Err(e);
    }
    on_event(SolveEvent::Checked {
        units: done.len(),
        elapsed: started.elapsed(),
    });
    // The next unit maps what it reads.
    tablebase.forget_all();
    Ok(())
}

/// Checks the files of a sector solved before: a finished file is never
/// rewritten, but a damaged one is reported; folders from before stored
/// indices get them now, and a damaged index is written again.
fn check_done_sector(
    tablebase: &Tablebase,
    along: Option<&PackAlong>,
    s: SectorKey,
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    match along {
        // Packed, and its raw file gone.
        Some(along) if !tablebase.has_sector(s) => along.verify_packed(s)?,
        _ => {
            match tablebase.verify_checksum(s) {
                // Another process (a workflow's job) packed it meanwhile
                // and removed its raw file.
                Err(_) if along.is_some() && !tablebase.path(s).is_file() => {
                    tablebase.forget(s);
                    return check_done_sector(tablebase, along, s, on_event);
                }
                checked => checked?,
            }
            if store_index(tablebase, s)? {
                on_event(SolveEvent::IndexRewritten { sector: s });
            }
        }
    }
    Ok(())
}

/// Under `--pack`, packs those of `candidates` that no unsolved unit reads
/// any more.
fn pack_along(
    along: &mut Option<PackAlong>,
    candidates: &[SectorKey],
    summary: &mut SolveSummary,
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    let Some(along) = along else {
        return Ok(());
    };
    let started = Instant::now();
    let sectors = along.pack_finished(candidates)?;
    let elapsed = started.elapsed();
    summary.peak_disk = Some(along.peak_disk);
    summary.packing += elapsed;
    if !sectors.is_empty() {
        on_event(SolveEvent::Packed { sectors, elapsed });
    }
    Ok(())
}

/// Solves one unit: a placement sector in one pass, anything with moves
/// inside it by retrograde analysis.
fn solve_one_unit(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
) -> Result<Vec<SolvedSector>, SolveError> {
    match unit {
        [sector] if is_placement_unit(variant, unit) => {
            let solved = match variant.n_move {
                Some(n) => solve_placement(variant, *sector, tablebase, &MillClock { n })?,
                None => solve_placement(variant, *sector, tablebase, &Distances)?,
            };
            on_event(UnitEvent::Initialised {
                positions: solved.len(),
            });
            Ok(vec![solved])
        }
        _ => match variant.n_move {
            Some(n) => solve_unit_under_rule(variant, unit, tablebase, n, on_event),
            None => solve_unit(variant, unit, tablebase, on_event),
        },
    }
}

/// Writes a solved sector's file, with the `marks` of its draws (index and
/// byte, in index order) under the move-count rule.
fn write(
    tablebase: &Tablebase,
    variant: &Variant,
    sector: &SolvedSector,
    marks: &[(u64, u8)],
) -> Result<(), SolveError> {
    let positions = sector.len();
    let byte = |i| match variant.n_move {
        Some(_) => sector.clock_byte(i),
        None => sector.value(i).to_byte(),
    };
    // Distances too long for a byte go to the overflow table (rare; never
    // under the move-count rule).
    let overflow: Vec<(u64, u32)> = (0..positions)
        .filter(|&i| byte(i) == ESCAPE_BYTE)
        .map(|i| (i, sector.value(i).plies().unwrap_or(0) as u32))
        .collect();
    let mut bytes = vec![0u8; 1 << 20];
    let mut marks = marks.iter().peekable();
    write_sector(
        tablebase.dir(),
        Header::new(variant, sector.sector, positions),
        |sink| {
            let mut start = 0u64;
            while start < positions {
                let end = (start + bytes.len() as u64).min(positions);
                for i in start..end {
                    bytes[(i - start) as usize] = match marks.next_if(|(at, _)| *at == i) {
                        Some(&(_, mark)) => mark,
                        None => byte(i),
                    };
                }
                sink(&bytes[..(end - start) as usize])?;
                start = end;
            }
            Ok(())
        },
        &overflow,
    )?;
    tablebase.forget(sector.sector);
    store_index(tablebase, sector.sector)?;
    Ok(())
}

/// Writes a solved unit's files, those of its sectors that a run killed
/// while it wrote them left behind checked whole like a solved unit's (and
/// their indices stored where that run did not get to them).
fn write_unit(
    tablebase: &Tablebase,
    variant: &'static Variant,
    solved: &[SolvedSector],
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<(), SolveError> {
    for sector in solved {
        if tablebase.has_sector(sector.sector) {
            check_done_sector(tablebase, None, sector.sector, on_event)?;
            continue;
        }
        let marks = match tablebase.marks_draws() {
            true => marks::marks(tablebase, sector)?,
            false => Vec::new(),
        };
        write(tablebase, variant, sector, &marks)?;
    }
    Ok(())
}

/// Writes the stored index of a sector's board counts, for fast cold
/// probes, unless a current one that passes its checks is there; returns
/// whether one that failed them was written again.
fn store_index(tablebase: &Tablebase, sector: SectorKey) -> Result<bool, SolveError> {
    let variant = tablebase.variant();
    let (us, them) = (sector.us_board, sector.them_board);
    let path = tablebase.dir().join(index_file_name(us, them));
    let damaged = if is_current_index(&path) {
        let stored = StoredIndex::open(tablebase.dir(), variant, us, them, false);
        match stored.map(|s| s.map(|s| s.verify_checksum())) {
            Ok(Some(Ok(()))) => return Ok(false),
            _ => true,
        }
    } else {
        path.exists()
    };
    // Another process resuming the folder may have removed it first.
    if damaged
        && let Err(e) = std::fs::remove_file(&path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(crate::db::FileError::write(&path)(e).into());
    }
    let index = SectorIndex::of(variant.board, us as usize, them as usize);
    write_stored_index(tablebase.dir(), variant, &index)?;
    Ok(damaged)
}
