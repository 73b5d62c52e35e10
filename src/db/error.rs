//! Errors of the file layer and of probing, in two layers (as shakmaty-syzygy
//! does): a [`FileError`] says what is wrong with one file, a [`ProbeError`]
//! says what a probe needed and wraps the file's error as its `source()`.
//! A message never repeats its cause: print the chain (`{:#}` in anyhow).

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::index::SectorKey;
use crate::rules::PositionError;

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
        "{} is a {kind} file of format version {found}; this program reads version {supported}",
        path.display()
    )]
    Version {
        path: PathBuf,
        kind: FileKind,
        found: u32,
        supported: u32,
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

impl fmt::Display for JobSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 2.5 M positions/s: what a whole-game solve averaged on the
        // 2-core development machine (README, Status).
        let seconds = self.positions as f64 / 2.5e6;
        let time = if seconds < 90.0 {
            format!("{seconds:.0} s")
        } else if seconds < 5400.0 {
            format!("{:.0} minutes", seconds / 60.0)
        } else {
            format!("{:.1} hours", seconds / 3600.0)
        };
        write!(
            f,
            "{} sectors, {:.3e} positions, about {time} on two cores, {:.1} GB of disk",
            self.sectors,
            self.positions as f64,
            self.bytes as f64 / 1e9
        )
    }
}

/// Why a probe (or opening a folder) failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("not a position of play")]
    InvalidPosition(#[from] PositionError),
    #[error("{}", missing_sector(*sector, dir, variant, job, *packed))]
    MissingSector {
        sector: SectorKey,
        dir: PathBuf,
        variant: String,
        job: JobSize,
        /// The folder holds packed files, which `solve` does not write.
        packed: bool,
    },
    #[error(
        "{} holds a {found} database, not {wanted}: use another --db folder, or --variant {found}",
        dir.display()
    )]
    WrongVariant {
        dir: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{} is not a morris database folder (no {}); build one with `morris solve`", dir.display(), super::files::folder::MANIFEST)]
    NotADatabase { dir: PathBuf },
    #[error("{} is not a valid manifest: {problem}", path.display())]
    Manifest { path: PathBuf, problem: String },
    #[error("sector {sector} cannot be read{}; {remedy}", position.as_ref().map_or(String::new(), |p| format!(" (probing {p})")))]
    Damaged {
        sector: SectorKey,
        /// The position being probed, when one was.
        position: Option<String>,
        /// What to delete or run again.
        remedy: String,
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
        "{} holds win/draw/loss only (`morris pack --wdl`), not the plies asked for: `Tablebase::wdl` reads it, and a folder packed in full has the plies",
        dir.display()
    )]
    WdlOnly { dir: PathBuf },
    #[error(transparent)]
    File(#[from] FileError),
}

fn missing_sector(
    sector: SectorKey,
    dir: &std::path::Path,
    variant: &str,
    job: &JobSize,
    packed: bool,
) -> String {
    let solve = format!("morris solve --variant {variant} --sectors {sector}");
    if packed {
        format!(
            "required sector {sector} is not in {}: build it with `{solve} --db RAW` into the raw folder it was packed from, then pack that again into it ({job})",
            dir.display()
        )
    } else {
        format!(
            "required sector {sector} is not in {}: build it with `{solve} --db {}` ({job})",
            dir.display(),
            dir.display()
        )
    }
}

fn rule_mismatch(dir: &std::path::Path, has_rule: bool) -> String {
    if has_rule {
        format!(
            "{} holds values under the move-count rule: they depend on the plies since the last mill \
             and are read with a counter (`Tablebase::clock_value` reads them)",
            dir.display()
        )
    } else {
        format!("{} holds values without the move-count rule", dir.display())
    }
}
