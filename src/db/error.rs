//! Errors of the file layer and of probing, in two layers (as shakmaty-syzygy
//! does): a [`FileError`] says what is wrong with one file, a [`ProbeError`]
//! says what a probe needed and wraps the file's error as its `source()`.
//! A message never repeats its cause: print the chain (`{:#}` in anyhow).

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::index::SectorKey;
use crate::rules::{PositionError, Variant};

/// Which of the folder's formats a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A sector's values (`8-7.mdb`).
    Sector,
    /// A board-count pair's stored index (`index-8-7.idx`).
    Index,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Sector => "sector",
            FileKind::Index => "index",
        })
    }
}

/// What is wrong with one file of a database folder.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is not a morris {kind} file (bad magic)", path.display())]
    Magic { path: PathBuf, kind: FileKind },
    #[error(
        "{} is a {kind} file of format version {found}; this program reads {}",
        path.display(),
        versions_read(supported)
    )]
    Version {
        path: PathBuf,
        kind: FileKind,
        found: u32,
        supported: &'static [u32],
    },
    #[error(
        "{} is truncated or has extra bytes: {found} bytes where its header implies {expected}",
        path.display()
    )]
    Truncated {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    #[error("{} is corrupted: {what}", path.display())]
    Corrupted { path: PathBuf, what: String },
}

impl FileError {
    /// The file this error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            FileError::Read { path, .. }
            | FileError::Write { path, .. }
            | FileError::Magic { path, .. }
            | FileError::Version { path, .. }
            | FileError::Truncated { path, .. }
            | FileError::Corrupted { path, .. } => path,
        }
    }

    pub(crate) fn corrupted(path: &std::path::Path, what: impl Into<String>) -> FileError {
        FileError::Corrupted {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    pub(crate) fn read(path: &std::path::Path) -> impl FnOnce(io::Error) -> FileError + '_ {
        move |source| FileError::Read {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn write(path: &std::path::Path) -> impl FnOnce(io::Error) -> FileError + '_ {
        move |source| FileError::Write {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// How big a job building a missing sector is, for the message that asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobSize {
    /// Sectors still to solve, the missing one and what it depends on.
    pub sectors: usize,
    /// Their positions up to symmetry.
    pub positions: u64,
    /// Their files' bytes.
    pub bytes: u64,
}

/// Positions a second that a whole-game solve averages on two cores
/// (docs/PERFORMANCE.md: 3.54 M/s on the Xeon, packing included): the
/// figure the estimates of a job's time use (a plan also counts the units
/// that run slower, `solve::MOVES_WHILE_HOLDING_SLOWDOWN`).
pub const SOLVE_RATE_TWO_CORES: f64 = 3.5e6;

impl JobSize {
    /// The estimated time on two cores, in seconds.
    pub fn seconds(&self) -> f64 {
        self.positions as f64 / SOLVE_RATE_TWO_CORES
    }
}

/// An estimated time in words: "under a second", "about 45 s", "about 5
/// minutes", "about 2.1 hours". The one wording of every estimate.
pub fn estimated_time(seconds: f64) -> String {
    if seconds < 1.0 {
        "under a second".to_string()
    } else if seconds < 90.0 {
        format!("about {seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("about {:.0} minutes", seconds / 60.0)
    } else {
        format!("about {:.1} hours", seconds / 3600.0)
    }
}

/// Bytes of disk for people: MB under a gigabyte, else GB, with three
/// decimals.
pub fn disk_size(bytes: u64) -> String {
    if bytes < 1_000_000_000 {
        format!("{:.3} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.3} GB", bytes as f64 / 1e9)
    }
}

impl fmt::Display for JobSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let time = estimated_time(self.seconds());
        let disk = if self.bytes < 100_000_000 {
            format!("{:.1} MB", self.bytes as f64 / 1e6)
        } else {
            format!("{:.1} GB", self.bytes as f64 / 1e9)
        };
        let sectors = if self.sectors == 1 {
            "sector"
        } else {
            "sectors"
        };
        write!(
            f,
            "{} {sectors}, {:.3e} positions, {time} on two cores, {disk} of disk",
            self.sectors, self.positions as f64,
        )
    }
}

/// What kind of failure an error is: the one thing a front end maps to its
/// own codes (the binary to exit codes, a server to HTTP status codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is wrong: a position, a counter, a sector that does not exist.
    BadInput,
    /// The request contradicts itself (options that cannot go together).
    Usage,
    /// The folder lacks what is asked for: no folder, a missing sector, or a
    /// folder of another variant or kind (no plies, packed files).
    MissingData,
    /// A file is damaged, or cannot be read or written; or the machine
    /// ran out of what a job needs (memory, a lock).
    DamagedData,
}

impl FileError {
    /// A file that is not there is missing data; any other problem damage.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FileError::Read { source, .. } if source.kind() == io::ErrorKind::NotFound => {
                ErrorKind::MissingData
            }
            _ => ErrorKind::DamagedData,
        }
    }
}

/// Why a probe (or opening a folder) failed. The messages say what is
/// wrong and what is missing; the command that mends it is the front end's
/// to say (the binary's hints).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("not a position of play")]
    InvalidPosition(#[from] PositionError),
    #[error("{}", missing_sector(*sector, dir, variant, job, *packed))]
    MissingSector {
        sector: SectorKey,
        dir: PathBuf,
        variant: &'static Variant,
        job: JobSize,
        /// The folder holds packed files, which `solve` does not write.
        packed: bool,
    },
    /// A position no game reaches: its men in hand do not fit the men on
    /// the board (no solve builds its sector).
    #[error(
        "no game of {} reaches this position's sector {sector}: the men in hand do not fit the men on the board",
        variant.label()
    )]
    UnreachableSector {
        sector: SectorKey,
        variant: &'static Variant,
    },
    #[error("{} holds a database of {found}, not of {wanted}", dir.display())]
    WrongVariant {
        dir: PathBuf,
        found: String,
        wanted: String,
        /// The same game on both sides, only the move-count rule differs.
        same_game: bool,
        /// The move-count rule of the rules wanted.
        wanted_rule: Option<u8>,
    },
    #[error("{}", not_a_database(dir))]
    NotADatabase { dir: PathBuf },
    #[error("{} is not a valid manifest: {problem}", path.display())]
    Manifest { path: PathBuf, problem: String },
    #[error("{} cannot be used here: {problem}", dir.display())]
    FolderKind { dir: PathBuf, problem: &'static str },
    #[error("sector {sector} cannot be read{}", position.as_ref().map_or(String::new(), |p| format!(" (probing {p})")))]
    Damaged {
        sector: SectorKey,
        /// The position being probed, when one was.
        position: Option<String>,
        /// The damaged file: the sector's, or the stored index it is probed through.
        #[source]
        source: FileError,
    },
    #[error(
        "a counter of {counter} plies since the last mill is past the folder's rule of {n}: the game was drawn at {n}"
    )]
    CounterPastRule { counter: u8, n: u8 },
    #[error("{}", rule_mismatch(dir, *has_rule))]
    RuleMismatch { dir: PathBuf, has_rule: bool },
    #[error(
        "{} holds win/draw/loss only, not the plies asked for (a folder packed in full has them)",
        dir.display()
    )]
    WdlOnly { dir: PathBuf },
    #[error(
        "{} has no ultra-strong ranking (its ultra/ folder is missing)",
        dir.display()
    )]
    NoUltra { dir: PathBuf },
    #[error(transparent)]
    File(#[from] FileError),
}

impl ProbeError {
    /// `dir` holds a database of `found`, not of `wanted`.
    pub(crate) fn wrong_variant(dir: &std::path::Path, found: &Variant, wanted: &Variant) -> Self {
        ProbeError::WrongVariant {
            dir: dir.to_path_buf(),
            found: found.label(),
            wanted: wanted.label(),
            same_game: found.name == wanted.name,
            wanted_rule: wanted.n_move,
        }
    }

    /// The kind of failure (see [`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProbeError::InvalidPosition(_)
            | ProbeError::UnreachableSector { .. }
            | ProbeError::CounterPastRule { .. } => ErrorKind::BadInput,
            ProbeError::MissingSector { .. }
            | ProbeError::WrongVariant { .. }
            | ProbeError::NotADatabase { .. }
            | ProbeError::FolderKind { .. }
            | ProbeError::RuleMismatch { .. }
            | ProbeError::WdlOnly { .. }
            | ProbeError::NoUltra { .. } => ErrorKind::MissingData,
            ProbeError::Manifest { .. } | ProbeError::Damaged { .. } => ErrorKind::DamagedData,
            ProbeError::File(e) => e.kind(),
        }
    }
}

fn missing_sector(
    sector: SectorKey,
    dir: &std::path::Path,
    variant: &Variant,
    job: &JobSize,
    packed: bool,
) -> String {
    let label = variant.label();
    if packed {
        format!(
            "sector {sector} of {label} is not in {}, a folder of packed files: it is solved into the raw folder this one was packed from, which is then packed again ({job})",
            dir.display()
        )
    } else {
        format!(
            "sector {sector} of {label} is not in {} ({job} to build it)",
            dir.display()
        )
    }
}

fn not_a_database(dir: &std::path::Path) -> String {
    if dir.exists() {
        format!(
            "{} is not a morris database folder (it has no {})",
            dir.display(),
            super::files::folder::MANIFEST
        )
    } else {
        format!("there is no database folder {}", dir.display())
    }
}

fn rule_mismatch(dir: &std::path::Path, has_rule: bool) -> String {
    if has_rule {
        format!(
            "{} holds values under the move-count rule: they depend on the plies since the last mill \
             and are read with a counter",
            dir.display()
        )
    } else {
        format!("{} holds values without the move-count rule", dir.display())
    }
}

/// "version 2" or "versions 2 and 3".
fn versions_read(versions: &[u32]) -> String {
    match versions {
        [one] => format!("version {one}"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(u32::to_string).collect();
            format!("versions {} and {last}", rest.join(", "))
        }
        [] => "no version".to_string(),
    }
}
