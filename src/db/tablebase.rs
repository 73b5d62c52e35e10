//! A database folder opened for probing: sector files mapped lazily, values
//! looked up by position. `Send + Sync`, so one instance serves many threads.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::file::{OpenError, SectorFile, file_name, read_ahead};
use super::format::FormatError;
use super::value::Value;
use crate::index::{SectorIndex, SectorKey, StoredIndex, first_checksum_at, index_file_name};
use crate::rules::{Outcome, Position, Variant};

/// Name of the file that records which variant a folder holds.
pub const MANIFEST: &str = "morris-db.txt";

/// Errors of opening and probing a database.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(
        "required sector {sector} is not in {dir}: build it with `morris solve --db {dir} --variant {variant} --sectors {sector}`"
    )]
    MissingSector {
        sector: SectorKey,
        dir: PathBuf,
        variant: String,
    },
    #[error(
        "{dir} holds a {found} database, not {wanted}: use another --db folder or --variant {found}"
    )]
    WrongVariant {
        dir: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{path} is corrupted: {source}")]
    Corrupted { path: PathBuf, source: FormatError },
    #[error("{0}")]
    Io(String),
    #[error("not a position of play: {0}")]
    IllegalPosition(String),
    #[error("{0} is not a morris database folder (no {MANIFEST}); build one with `morris solve`")]
    NotADatabase(PathBuf),
}

/// A database folder of one variant.
pub struct Tablebase {
    dir: PathBuf,
    variant: &'static Variant,
    /// Sectors mapped so far, with their indices.
    files: RwLock<HashMap<SectorKey, Mapped>>,
    /// Build each sector's index in memory even where it is stored.
    build_indices: bool,
    /// Reads are a few scattered bytes (probes): the system reads exactly
    /// the pages asked for instead of megabytes around each one.
    scattered: bool,
}

type Mapped = (Arc<SectorFile>, Arc<ProbeIndex>);

/// A sector's index for probing: its stored tables when the folder has them
/// (a cold probe reads a few pages), else built in memory.
enum ProbeIndex {
    Stored(StoredIndex),
    Built(Arc<SectorIndex>),
}

impl ProbeIndex {
    fn size(&self) -> u64 {
        match self {
            ProbeIndex::Stored(s) => s.size(),
            ProbeIndex::Built(b) => b.size(),
        }
    }

    fn index(&self, pos: &Position) -> Result<u64, FormatError> {
        match self {
            ProbeIndex::Stored(s) => s.index(pos.us(), pos.them()),
            ProbeIndex::Built(b) => Ok(b.index(pos.us(), pos.them())),
        }
    }
}

impl Tablebase {
    /// Opens an existing database folder built for `variant`.
    ///
    /// # Errors
    /// A folder without a manifest, or built for other rules.
    pub fn open(dir: &Path, variant: &'static Variant) -> Result<Tablebase, ProbeError> {
        let manifest = dir.join(MANIFEST);
        let text = fs::read_to_string(&manifest)
            .map_err(|_| ProbeError::NotADatabase(dir.to_path_buf()))?;
        check_manifest(dir, &text, variant)?;
        Ok(Tablebase {
            dir: dir.to_path_buf(),
            variant,
            files: RwLock::new(HashMap::new()),
            build_indices: false,
            scattered: true,
        })
    }

    /// Opens a database folder for writing, creating it and its manifest when
    /// missing.
    ///
    /// # Errors
    /// I/O errors, or a folder built for other rules.
    pub fn create(dir: &Path, variant: &'static Variant) -> Result<Tablebase, ProbeError> {
        fs::create_dir_all(dir)
            .map_err(|e| ProbeError::Io(format!("cannot create {}: {e}", dir.display())))?;
        let manifest = dir.join(MANIFEST);
        match fs::read_to_string(&manifest) {
            Ok(text) => check_manifest(dir, &text, variant)?,
            Err(_) => {
                let has_files = fs::read_dir(dir)
                    .map(|mut d| {
                        d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "mdb")))
                    })
                    .unwrap_or(false);
                if has_files {
                    return Err(ProbeError::NotADatabase(dir.to_path_buf()));
                }
                let text = format!(
                    "variant {}\nfingerprint {:016x}\n",
                    variant.name,
                    variant.fingerprint()
                );
                fs::write(&manifest, text).map_err(|e| {
                    ProbeError::Io(format!("cannot write {}: {e}", manifest.display()))
                })?;
            }
        }
        // The solver reads the blocks of its successors whole.
        Ok(Tablebase::open(dir, variant)?.reading_whole_files())
    }

    /// Tells the system that files will be read whole or block by block
    /// (solving, `stats`, `verify`), so that it reads ahead; without this it
    /// reads each page as it is touched, which suits probes only.
    pub fn reading_whole_files(mut self) -> Tablebase {
        self.scattered = false;
        self
    }

    /// Builds each sector's index in memory on first use instead of mapping
    /// the stored one: a slower first probe of each sector (tens of
    /// milliseconds on big ones), faster probes after it. For many probes.
    pub fn with_built_indices(mut self) -> Tablebase {
        self.build_indices = true;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    pub fn path(&self, sector: SectorKey) -> PathBuf {
        self.dir.join(file_name(sector))
    }

    /// True when the sector's file exists (complete files only ever exist).
    pub fn has_sector(&self, sector: SectorKey) -> bool {
        self.files
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&sector)
            || self.path(sector).is_file()
    }

    /// Forgets every mapped sector and its index (they are mapped again on use).
    pub fn forget_all(&self) {
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Forgets a mapped sector (before its file is replaced).
    pub fn forget(&self, sector: SectorKey) {
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&sector);
    }

    /// The mapped file of a sector, checked against this variant and its index.
    ///
    /// # Errors
    /// A missing, foreign or damaged file.
    pub fn sector(&self, sector: SectorKey) -> Result<Arc<SectorFile>, ProbeError> {
        Ok(self.mapped(sector)?.0)
    }

    /// The mapped file of a sector with its index.
    fn mapped(&self, sector: SectorKey) -> Result<Mapped, ProbeError> {
        if let Some(m) = self
            .files
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&sector)
        {
            return Ok(m.clone());
        }
        let path = self.path(sector);
        if !path.is_file() {
            return Err(ProbeError::MissingSector {
                sector,
                dir: self.dir.clone(),
                variant: self.variant.name.to_string(),
            });
        }
        if self.scattered {
            // The first pages of the sector file and of its stored index, and
            // the checksum of the index's first block, read together.
            let index_path = self
                .dir
                .join(index_file_name(sector.us_board, sector.them_board));
            read_ahead(&path, &[(0, 4096)]);
            let len = fs::metadata(&index_path).map_or(0, |m| m.len());
            read_ahead(&index_path, &[(0, 4096), (first_checksum_at(len), 8)]);
        }
        let file = SectorFile::open_with(&path, self.scattered).map_err(|e| match e {
            OpenError::Io { source, .. } => {
                ProbeError::Io(format!("cannot read {}: {source}", path.display()))
            }
            OpenError::Format { source, .. } => ProbeError::Corrupted {
                path: path.clone(),
                source,
            },
        })?;
        let h = &file.header;
        if h.fingerprint != self.variant.fingerprint() {
            return Err(ProbeError::WrongVariant {
                dir: self.dir.clone(),
                found: h.variant.clone(),
                wanted: self.variant.name.to_string(),
            });
        }
        let stored = if self.build_indices {
            Ok(None)
        } else {
            StoredIndex::open_with(
                &self.dir,
                self.variant,
                sector.us_board,
                sector.them_board,
                self.scattered,
            )
        };
        let index = match stored {
            Ok(Some(stored)) => ProbeIndex::Stored(stored),
            Ok(None) => ProbeIndex::Built(SectorIndex::of(
                self.variant.board,
                sector.us_board as usize,
                sector.them_board as usize,
            )),
            Err((path, source)) => return Err(ProbeError::Corrupted { path, source }),
        };
        if h.sector != sector || h.positions != index.size() {
            return Err(ProbeError::Corrupted {
                path,
                source: FormatError::Header("sector or size does not match its name"),
            });
        }
        let mapped = (Arc::new(file), Arc::new(index));
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(sector, mapped.clone());
        Ok(mapped)
    }

    /// Checks a sector file's checksum over its whole body.
    ///
    /// # Errors
    /// A missing, foreign or damaged file.
    pub fn verify_checksum(&self, sector: SectorKey) -> Result<(), ProbeError> {
        self.sector(sector)?
            .verify_checksum()
            .map_err(|source| ProbeError::Corrupted {
                path: self.path(sector),
                source,
            })
    }

    /// The value of any position of the variant, from the side to move.
    ///
    /// # Errors
    /// An illegal position, or a missing or damaged sector file.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        match self.variant.static_outcome(pos) {
            Some(Outcome::Lost) => return Ok(Value::Loss(0)),
            Some(Outcome::Drawn) => return Ok(Value::Draw),
            Some(Outcome::Won) => {
                return Err(ProbeError::IllegalPosition(
                    "the side not to move has fewer than 3 men: the game is already over".into(),
                ));
            }
            None => {}
        }
        let sector = SectorKey::of(pos);
        if !sector.is_valid(self.variant) {
            return Err(ProbeError::IllegalPosition(format!(
                "{} men do not fit the {} rules",
                sector, self.variant.name
            )));
        }
        let (file, index) = match self.mapped(sector) {
            Ok(m) => m,
            Err(e @ ProbeError::MissingSector { .. }) => {
                // A blocked side has lost without any file.
                return match self.variant.outcome(pos) {
                    Some(Outcome::Lost) => Ok(Value::Loss(0)),
                    _ => Err(e),
                };
            }
            Err(e) => return Err(e),
        };
        let corrupted = |source| ProbeError::Corrupted {
            path: self.path(sector),
            source,
        };
        file.value(index.index(pos).map_err(corrupted)?)
            .map_err(corrupted)
    }
}

fn check_manifest(dir: &Path, text: &str, variant: &Variant) -> Result<(), ProbeError> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
            .unwrap_or_default()
    };
    let found = field("variant ");
    if field("fingerprint ") != format!("{:016x}", variant.fingerprint()) {
        return Err(ProbeError::WrongVariant {
            dir: dir.to_path_buf(),
            found: if found.is_empty() {
                "another".into()
            } else {
                found
            },
            wanted: variant.name.to_string(),
        });
    }
    Ok(())
}
