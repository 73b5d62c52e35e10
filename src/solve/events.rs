//! What a solve tells as it goes ([`SolveEvent`]) and its figures at the
//! end ([`SolveSummary`]): the binary draws the one and prints the other.

use std::time::Duration;

use super::disk::DiskForecast;
use super::retrograde::UnitEvent;
use crate::index::SectorKey;

/// What the solve reports as it goes; the binary draws it.
pub enum SolveEvent<'a> {
    Planned {
        units: usize,
        done: usize,
        positions: u64,
        to_solve: u64,
        /// The disk the solve adds at most, and what is free.
        disk: DiskForecast,
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
        /// The process's anonymous memory (mapped files excluded), where the
        /// system reports it: the larger of the figures when the unit's
        /// children were counted (copied exits held) and after its levels
        /// (its values held).
        memory: Option<u64>,
        /// Under `pack`: the most bytes the folders held so far in this
        /// run, measured once each unit's files were written, before its
        /// packing (in a log, the largest over its resumes is the whole
        /// run's peak).
        peak_disk: Option<u64>,
    },
    Skipped {
        sectors: &'a [SectorKey],
    },
    /// Sectors packed into the packed folder, their raw files removed.
    Packed {
        sectors: Vec<SectorKey>,
        /// Packing, checking and removing them took this long.
        elapsed: Duration,
    },
    /// Under `pack_wdl`, the sectors packed before it was asked for are
    /// about to be decoded from the packed folder into the folder of
    /// win/draw/loss only (at the end of the solve: long on a large game).
    CatchingUp {
        sectors: usize,
        positions: u64,
    },
    /// ... one of them is written, in this time.
    CaughtUpSector {
        sector: SectorKey,
        positions: u64,
        elapsed: Duration,
    },
    /// ... all of them.
    CaughtUp {
        sectors: Vec<SectorKey>,
        elapsed: Duration,
    },
    /// The files of the units solved before this run are being checked.
    Checking {
        units: usize,
    },
    /// ... and were found whole, in this time.
    Checked {
        units: usize,
        elapsed: Duration,
    },
    /// Sectors the next unit reads that were packed only (their unit
    /// solved again), decoded from the packed folder back into raw files.
    Restored {
        sectors: Vec<SectorKey>,
        elapsed: Duration,
    },
    /// Another process holds the unit's lock: this one waits for it.
    Waiting {
        sectors: &'a [SectorKey],
    },
    /// A stored index failed its check and was written again.
    IndexRewritten {
        sector: SectorKey,
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
    /// The most anonymous memory (not mapped files) a unit held, as
    /// [`SolveEvent::UnitDone`] gives it, and that unit's positions.
    pub peak_memory: Option<(u64, u64)>,
    /// Under `pack`: the most bytes the raw and packed folders held together
    /// after a unit.
    pub peak_disk: Option<u64>,
    /// Under `pack`: the time spent packing, included in `elapsed`.
    pub packing: Duration,
}
