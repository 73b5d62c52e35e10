//! The solver's own errors. A file that cannot be read or written is the
//! file layer's [`FileError`], a sector that cannot be probed the probe
//! layer's [`ProbeError`]; this layer adds what only solving runs into.

use std::io;
use std::path::PathBuf;

use crate::db::{ErrorKind, FileError, ProbeError, disk_size};
use crate::index::SectorKey;

/// Why a solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("no memory for the {bytes} bytes of cells of sector {sector}")]
    OutOfMemory {
        sector: SectorKey,
        bytes: u64,
        #[source]
        source: io::Error,
    },
    #[error(
        "a folder of win/draw/loss only cannot hold values under the move-count rule (they depend on the plies to the next mill): solve without --pack-wdl"
    )]
    WdlUnderRule,
    #[error(
        "a win/draw/loss folder is packed as the solve goes, beside the packed folder of full values: it needs that folder too"
    )]
    WdlWithoutPack,
    #[error("{}", not_enough_disk(dir, *needed, *free, *packing))]
    NotEnoughDisk {
        dir: PathBuf,
        needed: u64,
        free: u64,
        packing: bool,
    },
    #[error("position {position} exceeds the solver's cell: {what}")]
    CellOverflow { position: String, what: String },
    #[error("sector {sector} is not reachable in {variant}")]
    UnreachableSector { sector: SectorKey, variant: String },
    #[error("the selection holds no sector of {variant}: nothing to solve")]
    NothingSelected { variant: String },
    #[error(
        "the unit of {unit} reads {}, which the folder lacks: their units come first (a plan's order)",
        missing.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
    )]
    UnitNeedsSectors {
        unit: SectorKey,
        missing: Vec<SectorKey>,
    },
    #[error("sector {sector} needs sector {needed}, which is not available")]
    MissingDependency {
        sector: SectorKey,
        needed: SectorKey,
        #[source]
        source: ProbeError,
    },
    #[error("position {position}: {what} (the finished sectors changed during the solve?)")]
    Inconsistent { position: String, what: String },
    #[error(
        "marking draws with their values without the move-count rule needs a solve under the rule; {variant} has none"
    )]
    MarksWithoutRule { variant: String },
    #[error("{}", marks_mismatch(dir, *marked))]
    MarksMismatch { dir: PathBuf, marked: bool },
    #[error("{}", damaged_packed(sectors))]
    DamagedPacked {
        sectors: Vec<SectorKey>,
        files: Vec<PathBuf>,
        /// The folder's move-count rule: its packed values do not decode
        /// back into raw files.
        n_move: Option<u8>,
        /// The first file's error.
        source: Box<ProbeError>,
    },
    #[error(
        "the unit to solve reads {}, only in the packed folder {}, whose packing does not decode back into raw files (only the packings of losses do: not the move-count rule's, nor `--plain` or `--wdl` ones)",
        sectors.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" and "),
        dir.display()
    )]
    PackedOnly {
        sectors: Vec<SectorKey>,
        dir: PathBuf,
        n_move: Option<u8>,
    },
    #[error("cannot take the lock {}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error(transparent)]
    File(#[from] FileError),
}

impl SolveError {
    /// The kind of failure (see [`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            SolveError::UnreachableSector { .. } | SolveError::NothingSelected { .. } => {
                ErrorKind::BadInput
            }
            SolveError::UnitNeedsSectors { .. } => ErrorKind::MissingData,
            SolveError::MarksMismatch { .. }
            | SolveError::MarksWithoutRule { .. }
            | SolveError::WdlUnderRule
            | SolveError::WdlWithoutPack => ErrorKind::Usage,
            SolveError::DamagedPacked { .. } => ErrorKind::DamagedData,
            SolveError::PackedOnly { .. } => ErrorKind::MissingData,
            SolveError::MissingDependency { source, .. } | SolveError::Probe(source) => {
                source.kind()
            }
            SolveError::File(e) => e.kind(),
            SolveError::OutOfMemory { .. }
            | SolveError::NotEnoughDisk { .. }
            | SolveError::CellOverflow { .. }
            | SolveError::Inconsistent { .. }
            | SolveError::Lock { .. } => ErrorKind::DamagedData,
        }
    }
}

fn damaged_packed(sectors: &[SectorKey]) -> String {
    match sectors {
        [_] => "a packed file of a unit solved before is damaged".into(),
        _ => format!(
            "{} packed files of units solved before are damaged ({}); the first",
            sectors.len(),
            sectors
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn not_enough_disk(dir: &std::path::Path, needed: u64, free: u64, packing: bool) -> String {
    let (when, hint) = if packing {
        (
            " at their peak (packing as it goes)",
            "free some, or solve into a folder on a larger disk",
        )
    } else {
        (
            "",
            "free some, solve into a folder on a larger disk, or pack as it goes (--pack DIR)",
        )
    };
    format!(
        "this solve's raw files need {} more disk{when}, and {} has {} free: {hint} (`morris plan` gives the figures)",
        disk_size(needed),
        dir.display(),
        disk_size(free),
    )
}

fn marks_mismatch(dir: &std::path::Path, marked: bool) -> String {
    if marked {
        format!(
            "{} marks its draws with their values without the move-count rule: its other sectors need the folder without the rule too",
            dir.display()
        )
    } else {
        format!(
            "{} holds sectors whose draws are not marked: marking only the new ones would mix the two (solve into a new folder)",
            dir.display()
        )
    }
}
