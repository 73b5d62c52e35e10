//! A solve as jobs for a workflow engine: the units of a selection in solve
//! order, each with what it reads, its size, memory, files and time, and the
//! figures of scale that follow (the critical path, the widest stage).
//! `morris plan --json` prints it; `workflow/Snakefile` runs one job per
//! unit from it (`morris solve --unit`).

use std::collections::HashMap;

use serde::Serialize;

use super::disk::{DiskTimeline, PACKED_FRACTION};
use super::error::SolveError;
use super::exits::copied_exit_bytes;
use super::run::Selection;
use crate::db::{SOLVE_RATE_TWO_CORES, raw_file_len};
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::rules::Variant;

/// The version of the plan's JSON: raised when a field changes meaning or
/// goes; new fields may come without it.
pub const PLAN_VERSION: u32 = 1;

/// Memory a unit's solve holds per position of the unit (its cells, index
/// and class tables: 1.65 to 1.71 measured, docs/PERFORMANCE.md), with or
/// without the move-count rule. Finished sectors are read through maps of
/// their files, which the system's page cache holds.
pub const SOLVE_BYTES_PER_POSITION: f64 = 1.75;

/// Memory a solve process holds besides the unit: the program, its
/// threads, the sector graph, the tables of the indices.
pub const SOLVE_BASE_BYTES: u64 = 128 << 20;

/// Memory packing one sector takes per position (`pack`'s pair coder: the
/// sequence of symbols the grammar is built on, two bytes each; the raw
/// file is read through a map).
pub const PACK_BYTES_PER_POSITION: f64 = 2.0;

/// Memory packing takes besides the process's own ([`SOLVE_BASE_BYTES`]):
/// the pair coder's tables of pair counts (up to four of 64 MiB) and of
/// pair symbols (32 MiB), freed before the blocks are coded, which they
/// leave room for (a packed sector of 592 M positions takes 95 to 190 MB).
pub const PACK_BASE_BYTES: u64 = 288 << 20;

/// The units of a selection as jobs.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// [`PLAN_VERSION`].
    pub version: u32,
    /// The variant's name (`--variant`).
    pub variant: String,
    /// The move-count rule's N, if any (`--n-move`).
    pub n_move: Option<u8>,
    /// Positions a second on which the times are estimated.
    pub rate: f64,
    /// Where the rate comes from: `measured` on this machine, or `assumed`
    /// (the development machine's two cores).
    pub rate_source: String,
    /// The units in an order that solves each after every unit it reads.
    pub units: Vec<PlannedUnit>,
    /// The totals of the units.
    pub positions: u64,
    pub raw_bytes: u64,
    /// The most memory one job needs, and packing as it goes.
    pub peak_memory_bytes: u64,
    pub peak_pack_memory_bytes: u64,
    /// The sector files a solve in the plan's order holds at most packing
    /// as it goes (`solve --pack`), raw and packed together (the packed
    /// estimated), and the raw files alone at their own peak (exact).
    pub peak_pack_disk_bytes: u64,
    pub peak_pack_raw_bytes: u64,
    /// The unit right after whose solve that peak comes.
    pub peak_pack_disk_after: String,
    /// The longest chain of units each reading the one before: the least
    /// time any number of machines can take.
    pub critical_path: CriticalPath,
    /// The number of units at each stage (a unit's stage is one more than
    /// the highest stage of the units it reads, 0 for one that reads none):
    /// the units of a stage can all run at once.
    pub units_per_stage: Vec<usize>,
}

/// One unit: the sectors solved together (their moves lead into each
/// other), one job of a workflow.
#[derive(Clone, Debug, Serialize)]
pub struct PlannedUnit {
    /// Its name, the first of its sectors: `morris solve --unit ID`.
    pub id: String,
    pub sectors: Vec<String>,
    /// The units whose files it reads: they must be complete first.
    pub reads: Vec<String>,
    /// The units that read its files: once all are complete, its sectors
    /// can be packed (no job reads them raw any more).
    pub read_by: Vec<String>,
    pub stage: usize,
    pub positions: u64,
    /// Memory its job needs, in bytes: its cells, and the exits' values it
    /// copies into memory (Lasker's units with men in hand).
    pub memory_bytes: u64,
    /// Memory its job needs when it packs as it goes (`--pack`): it may
    /// pack its own sectors and those of the units it reads (when it is
    /// their last reader), one at a time, after its solve.
    pub pack_memory_bytes: u64,
    /// The sectors a solve in the plan's order packs right after this
    /// unit when it packs as it goes (`--pack`): those no later unit reads.
    pub packs: Vec<String>,
    /// Its raw files' bytes, and an estimate once packed.
    pub raw_bytes: u64,
    pub packed_bytes_estimate: u64,
    /// Its estimated time at the plan's rate, in seconds, on the threads
    /// the rate was measured with ([`MOVES_WHILE_HOLDING_SLOWDOWN`] times
    /// as long for a unit where a side holding men may move).
    pub seconds: f64,
}

/// The longest chain of dependent units.
#[derive(Clone, Debug, Serialize)]
pub struct CriticalPath {
    /// Its units, the first solved first.
    pub units: Vec<String>,
    pub positions: u64,
    pub seconds: f64,
}

/// The rate at which a plan's times are estimated.
#[derive(Clone, Copy, Debug)]
pub enum PlanRate {
    /// Measured on this machine, in positions a second.
    Measured(f64),
    /// The development machine's figure, [`SOLVE_RATE_TWO_CORES`].
    Assumed,
}

/// How many times longer than the plan's rate says a unit takes whose
/// sectors hold men and which has moves inside (Lasker's, where a side
/// holding men may slide): its initial pass reads each placement's child
/// at a scattered place. On a 2-core EPYC Zen 3, Lasker's 4+0-7+1 took
/// 65.3 s and 4-7, the movement unit of the same men on the board, 33.4 s
/// (docs/PERFORMANCE.md, "Lasker's units with men in hand").
pub const MOVES_WHILE_HOLDING_SLOWDOWN: f64 = 2.0;

/// [`MOVES_WHILE_HOLDING_SLOWDOWN`] for such a unit, else 1.
fn slowdown(variant: &Variant, unit: &[SectorKey]) -> f64 {
    if variant.move_while_holding && unit.iter().any(|s| !s.is_movement()) {
        MOVES_WHILE_HOLDING_SLOWDOWN
    } else {
        1.0
    }
}

/// The plan of a solve of `selection` from nothing.
///
/// # Errors
/// As [`super::solve`]'s for the selection: a named sector the game does
/// not reach, or a selection that holds no sector.
pub fn plan(
    variant: &'static Variant,
    selection: &Selection,
    rate: PlanRate,
) -> Result<Plan, SolveError> {
    let graph = SectorGraph::reachable(variant);
    let units = graph.units_for(&selection.targets(variant, &graph)?);
    let (rate, rate_source) = match rate {
        PlanRate::Measured(r) => (r, "measured"),
        PlanRate::Assumed => (SOLVE_RATE_TWO_CORES, "assumed"),
    };
    let unit_of: HashMap<SectorKey, usize> = units
        .iter()
        .enumerate()
        .flat_map(|(i, unit)| unit.iter().map(move |s| (*s, i)))
        .collect();
    let size = |s: &SectorKey| SectorIndex::count_of(variant.board, *s);
    let mut planned: Vec<PlannedUnit> = Vec::with_capacity(units.len());
    let mut reads_of: Vec<Vec<usize>> = Vec::with_capacity(units.len());
    for (i, unit) in units.iter().enumerate() {
        let mut reads: Vec<usize> = unit
            .iter()
            .flat_map(|s| graph.successors(*s).iter().map(|t| unit_of[t]))
            .filter(|&u| u != i)
            .collect();
        reads.sort_unstable();
        reads.dedup();
        let positions: u64 = unit.iter().map(size).sum();
        let raw_bytes: u64 = unit
            .iter()
            .map(|s| raw_file_len(variant, *s, size(s)))
            .sum();
        let largest_packed = unit
            .iter()
            .chain(reads.iter().flat_map(|&u| units[u].iter()))
            .map(size)
            .max()
            .unwrap_or(0);
        let stage = reads
            .iter()
            .map(|&u| planned[u].stage + 1)
            .max()
            .unwrap_or(0);
        planned.push(PlannedUnit {
            id: unit[0].to_string(),
            sectors: unit.iter().map(|s| s.to_string()).collect(),
            reads: reads.iter().map(|&u| units[u][0].to_string()).collect(),
            read_by: Vec::new(),
            packs: Vec::new(),
            stage,
            positions,
            memory_bytes: (positions as f64 * SOLVE_BYTES_PER_POSITION) as u64
                + copied_exit_bytes(variant, unit)
                + SOLVE_BASE_BYTES,
            pack_memory_bytes: (largest_packed as f64 * PACK_BYTES_PER_POSITION) as u64
                + PACK_BASE_BYTES
                + SOLVE_BASE_BYTES,
            raw_bytes,
            packed_bytes_estimate: (raw_bytes as f64 * PACKED_FRACTION) as u64,
            seconds: positions as f64 / rate * slowdown(variant, unit),
        });
        reads_of.push(reads);
    }
    for (i, reads) in reads_of.iter().enumerate() {
        for &u in reads {
            let id = planned[i].id.clone();
            planned[u].read_by.push(id);
        }
    }
    let critical_path = critical_path(&planned, &reads_of);
    let timeline = DiskTimeline::new(variant, &graph, &units, Some(PACKED_FRACTION), &|_| false);
    let disk = timeline.peak();
    for (unit, packs) in planned.iter_mut().zip(&timeline.packed_after) {
        unit.packs = packs.iter().map(|s| s.to_string()).collect();
    }
    let stages = planned.iter().map(|u| u.stage + 1).max().unwrap_or(0);
    let mut units_per_stage = vec![0; stages];
    for u in &planned {
        units_per_stage[u.stage] += 1;
    }
    Ok(Plan {
        version: PLAN_VERSION,
        variant: variant.name.to_string(),
        n_move: variant.n_move,
        rate,
        rate_source: rate_source.to_string(),
        positions: planned.iter().map(|u| u.positions).sum(),
        raw_bytes: planned.iter().map(|u| u.raw_bytes).sum(),
        peak_memory_bytes: planned.iter().map(|u| u.memory_bytes).max().unwrap_or(0),
        peak_pack_memory_bytes: planned
            .iter()
            .map(|u| u.memory_bytes.max(u.pack_memory_bytes))
            .max()
            .unwrap_or(0),
        peak_pack_disk_bytes: disk.bytes,
        peak_pack_raw_bytes: disk.raw_bytes,
        peak_pack_disk_after: units
            .get(disk.after_unit)
            .map_or_else(String::new, |u| u[0].to_string()),
        critical_path,
        units_per_stage,
        units: planned,
    })
}

/// The chain of units, each reading the one before, whose times add up
/// to the most.
fn critical_path(units: &[PlannedUnit], reads_of: &[Vec<usize>]) -> CriticalPath {
    // Units come after what they read: one pass in order.
    let mut longest = vec![0.0f64; units.len()];
    let mut before: Vec<Option<usize>> = vec![None; units.len()];
    for (i, reads) in reads_of.iter().enumerate() {
        let best = reads
            .iter()
            .copied()
            .max_by(|&a, &b| longest[a].total_cmp(&longest[b]));
        longest[i] = units[i].seconds + best.map_or(0.0, |b| longest[b]);
        before[i] = best;
    }
    let mut at = (0..units.len()).max_by(|&a, &b| longest[a].total_cmp(&longest[b]));
    let mut chain = Vec::new();
    while let Some(i) = at {
        chain.push(i);
        at = before[i];
    }
    chain.reverse();
    CriticalPath {
        units: chain.iter().map(|&i| units[i].id.clone()).collect(),
        positions: chain.iter().map(|&i| units[i].positions).sum(),
        seconds: chain.iter().map(|&i| units[i].seconds).sum(),
    }
}
