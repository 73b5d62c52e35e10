//! Scheduling a solve: which units, in which order, what is already done,
//! writing each unit's files when it completes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::retrograde::{SolvedSector, UnitEvent, solve_unit};
use crate::db::{ESCAPE_BYTE, Header, ProbeError, Tablebase, write_sector};
use crate::index::{
    SectorGraph, SectorIndex, SectorKey, index_file_name, is_current_index, write_stored_index,
};
use crate::rules::Variant;

/// Which sectors to solve (their dependencies always come too).
#[derive(Clone, Debug)]
pub enum Selection {
    /// Every sector reachable from the start: the whole game.
    All,
    /// Movement sectors with at most this many men on the board.
    MaxMen(u32),
    /// These sectors.
    Sectors(Vec<SectorKey>),
}

#[derive(Clone, Debug)]
pub struct SolveOptions {
    pub db: PathBuf,
    pub variant: &'static Variant,
    pub selection: Selection,
}

/// What the solve reports as it goes; the binary draws it.
pub enum SolveEvent<'a> {
    Planned {
        units: usize,
        done: usize,
        positions: u64,
        to_solve: u64,
    },
    UnitStarted {
        sectors: &'a [SectorKey],
        positions: u64,
    },
    Unit(UnitEvent),
    UnitDone {
        sectors: &'a [SectorKey],
        positions: u64,
        elapsed: Duration,
        /// The process's anonymous memory with the unit's values still held
        /// (mapped files excluded), where the system reports it.
        memory: Option<u64>,
    },
    Skipped {
        sectors: &'a [SectorKey],
    },
}

/// Figures of a finished solve.
#[derive(Clone, Debug, Default)]
pub struct SolveSummary {
    pub units_solved: usize,
    pub positions_solved: u64,
    pub elapsed: Duration,
    /// Per solved sector: positions and seconds of its unit.
    pub sectors: Vec<(SectorKey, u64, Duration)>,
    /// Per solved unit: its sectors, positions and seconds.
    pub units: Vec<(Vec<SectorKey>, u64, Duration)>,
    /// The most anonymous memory (not mapped files) seen at the end of a
    /// unit, with its values held, and that unit's positions.
    pub peak_memory: Option<(u64, u64)>,
}

/// Solves the selected sectors and their dependencies into `options.db`,
/// skipping sectors whose files exist. An interruption loses at most the
/// unit in progress.
///
/// # Errors
/// A folder of another variant, a damaged existing file, or I/O errors.
pub fn solve(
    options: &SolveOptions,
    on_event: &(dyn Fn(SolveEvent) + Sync),
) -> Result<SolveSummary, ProbeError> {
    let variant = options.variant;
    let tablebase = Tablebase::create(&options.db, variant)?;
    let graph = SectorGraph::reachable(variant);
    let targets: Vec<SectorKey> = match &options.selection {
        Selection::All => graph.sectors().collect(),
        Selection::MaxMen(n) => graph
            .sectors()
            .filter(|s| s.is_movement() && s.men_on_board() <= *n)
            .collect(),
        Selection::Sectors(list) => {
            for s in list {
                if !graph.contains(*s) {
                    return Err(ProbeError::IllegalPosition(format!(
                        "sector {s} is not reachable in {}; `morris sectors --variant {}` lists them",
                        variant.name, variant.name
                    )));
                }
            }
            list.clone()
        }
    };
    let units = graph.units_for(&targets);
    let size = |s: &SectorKey| {
        SectorIndex::count(variant.board, s.us_board as usize, s.them_board as usize)
    };
    let is_done = |unit: &[SectorKey]| unit.iter().all(|s| tablebase.has_sector(*s));
    let done = units.iter().filter(|u| is_done(u)).count();
    on_event(SolveEvent::Planned {
        units: units.len(),
        done,
        positions: units.iter().flatten().map(size).sum(),
        to_solve: units
            .iter()
            .filter(|u| !is_done(u))
            .flatten()
            .map(size)
            .sum(),
    });

    let started = Instant::now();
    let mut summary = SolveSummary::default();
    for unit in &units {
        if is_done(unit) {
            for &s in unit {
                // A finished file is never rewritten, but a damaged one is reported.
                tablebase.verify_checksum(s)?;
                // Folders from before stored indices get them now.
                store_index(&tablebase, variant, s)?;
            }
            on_event(SolveEvent::Skipped { sectors: unit });
            continue;
        }
        let positions: u64 = unit.iter().map(size).sum();
        release_free_memory();
        on_event(SolveEvent::UnitStarted {
            sectors: unit,
            positions,
        });
        let unit_start = Instant::now();
        let solved = solve_unit(variant, unit, &tablebase, &|e| {
            on_event(SolveEvent::Unit(e))
        })?;
        for sector in &solved {
            if !tablebase.has_sector(sector.sector) {
                write(&tablebase, variant, sector)?;
            }
        }
        let elapsed = unit_start.elapsed();
        let memory = anonymous_memory();
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
        });
        // Memory follows the unit in progress: the next maps and builds what it needs.
        drop(solved);
        tablebase.forget_all();
        SectorIndex::release_cached();
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Gives the heap's free memory back to the system. The C allocator keeps
/// what a long solve freed (indices built while skipping finished units,
/// the last unit's tables) and reported it as ours: about 300 MiB after a
/// few hundred units.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            // glibc: returns free memory at the top of the heap and in its
            // free lists to the system; no other effect.
            safe fn malloc_trim(pad: usize) -> i32;
        }
        malloc_trim(0);
    }
}

/// Resident anonymous memory of this process (Linux: `RssAnon`), which
/// leaves out the mapped database files.
pub fn anonymous_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn write(
    tablebase: &Tablebase,
    variant: &Variant,
    sector: &SolvedSector,
) -> Result<(), ProbeError> {
    let io = |e: std::io::Error| {
        ProbeError::Io(format!(
            "cannot write {}: {e}",
            tablebase.path(sector.sector).display()
        ))
    };
    let positions = sector.len();
    // Distances too long for a byte go to the overflow table (rare).
    let overflow: Vec<(u64, u32)> = (0..positions)
        .filter_map(|i| {
            let value = sector.value(i);
            (value.to_byte() == ESCAPE_BYTE).then(|| (i, value.plies().unwrap_or(0) as u32))
        })
        .collect();
    let mut bytes = vec![0u8; 1 << 20];
    write_sector(
        tablebase.dir(),
        Header::new(variant, sector.sector, positions),
        |sink| {
            let mut start = 0u64;
            while start < positions {
                let end = (start + bytes.len() as u64).min(positions);
                for i in start..end {
                    bytes[(i - start) as usize] = sector.value(i).to_byte();
                }
                sink(&bytes[..(end - start) as usize])?;
                start = end;
            }
            Ok(())
        },
        &overflow,
    )
    .map_err(io)?;
    tablebase.forget(sector.sector);
    store_index(tablebase, variant, sector.sector)
}

/// Writes the stored index of a sector's board counts, for fast cold probes.
fn store_index(
    tablebase: &Tablebase,
    variant: &Variant,
    sector: SectorKey,
) -> Result<(), ProbeError> {
    let (us, them) = (sector.us_board, sector.them_board);
    if is_current_index(&tablebase.dir().join(index_file_name(us, them))) {
        return Ok(());
    }
    let index = SectorIndex::of(variant.board, us as usize, them as usize);
    write_stored_index(tablebase.dir(), variant, &index).map_err(|e| {
        ProbeError::Io(format!(
            "cannot write {}: {e}",
            tablebase.dir().join(index_file_name(us, them)).display()
        ))
    })
}
