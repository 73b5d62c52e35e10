//! A database folder opened for probing: sector files mapped lazily, values
//! looked up by position. `Send + Sync`, so one instance serves many threads.
//! The answers built on values (moves with their values, lines of play) are
//! in `probe.rs`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use super::thread_sectors::{THREAD_SECTORS, ThreadSectors, thread_slot};
use crate::db::clock_value::ClockValue;
use crate::db::error::{FileError, JobSize, ProbeError};
use crate::db::files::encoding::{Encoding, Storage};
use crate::db::files::folder::{
    folder_marks_draws, folder_storage, folder_variant, has_sector_files, write_manifest,
};
use crate::db::files::header::Header;
use crate::db::files::index_file::{StoredIndex, first_checksum_at, index_file_name};
use crate::db::files::mapped::read_ahead;
use crate::db::files::packed::KeptBlocks;
use crate::db::files::sector_file::{SectorFile, file_name};
use crate::db::value::{Value, Wdl};
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::rules::{Outcome, Position, PositionError, Variant};

/// A database folder of one variant.
pub struct Tablebase {
    dir: PathBuf,
    variant: &'static Variant,
    /// Sectors mapped so far, with their indices: one cell per sector, so
    /// that two threads never map or build the same one twice.
    files: RwLock<HashMap<SectorKey, Arc<Slot>>>,
    /// Build each sector's index in memory even where it is stored.
    build_indices: bool,
    /// Reads are a few scattered bytes (probes): the system reads exactly
    /// the pages asked for instead of megabytes around each one.
    scattered: bool,
    /// Told once per damaged stored index that the index is built instead.
    warn: Option<Warn>,
    /// The folder holds win/draw/loss only (`morris pack --wdl`).
    wdl_only: bool,
    /// Packed files keep every block decoded once read.
    kept_blocks: KeptBlocks,
    /// Under the move-count rule, the same variant's folder without it:
    /// tells a true draw from a cursed win or blessed loss.
    pub(super) without_rule: Option<Box<Tablebase>>,
    /// Under the move-count rule, the fresh draws say what they are without
    /// the rule (the folder was solved with that folder beside it).
    pub(super) marked_draws: bool,
    /// Per thread of the pool (and one for every other thread), the sectors
    /// it has probed: a probe finds its file without the shared map's lock
    /// and reference counts, which the threads would pass between their
    /// caches at every probe.
    by_thread: Box<[ThreadSectors<Mapped>]>,
    /// The ultra-strong ranking stored beside the folder, read once.
    pub(super) ultra: OnceLock<super::ultra_keys::Ultra>,
    /// The variant's sectors, built at the first missing one.
    sector_graph: OnceLock<SectorGraph>,
    /// This tablebase among those of the process (`losses.rs` keeps marks
    /// for one at a time).
    pub(super) id: u64,
}

/// The ids of tablebases (0 is none).
static TABLEBASES: AtomicU64 = AtomicU64::new(1);

fn next_tablebase_id() -> u64 {
    TABLEBASES.fetch_add(1, Ordering::Relaxed)
}

/// What a [`Tablebase`] calls with a damaged stored index it works around.
type Warn = Box<dyn Fn(&FileError) + Send + Sync>;

/// One sector's cell: filled by the first thread that needs it.
#[derive(Default)]
struct Slot {
    mapped: OnceLock<Mapped>,
    opening: Mutex<()>,
}

pub(crate) type Mapped = (Arc<SectorFile>, Arc<ProbeIndex>);

/// A sector's index for probing: its stored tables when the folder has them
/// (a cold probe reads a few pages), else built in memory. A stored index
/// found damaged is replaced by the built one, with a warning.
pub(crate) struct ProbeIndex {
    stored: Option<StoredIndex>,
    built: OnceLock<Arc<SectorIndex>>,
    counts: (usize, usize),
    board: &'static crate::Board,
}

impl ProbeIndex {
    fn built(&self) -> &SectorIndex {
        if let Some(built) = self.built.get() {
            return built;
        }
        // Built outside the cell: `SectorIndex::of` waits for another
        // thread building it, and a thread that meets itself (a job taken
        // while its own build waited) builds a copy instead of deadlocking.
        let built = SectorIndex::of(self.board, self.counts.0, self.counts.1);
        self.built.get_or_init(|| built)
    }

    fn size(&self) -> u64 {
        match &self.stored {
            Some(s) => s.size(),
            None => self.built().size(),
        }
    }

    fn index(&self, tablebase: &Tablebase, pos: &Position) -> u64 {
        if let Some(stored) = &self.stored
            && self.built.get().is_none()
        {
            match stored.index(pos.us(), pos.them()) {
                Ok(i) => return i,
                Err(e) => {
                    if let Some(warn) = &tablebase.warn {
                        warn(&e);
                    }
                }
            }
        }
        self.built().index(pos.us(), pos.them())
    }
}

impl Tablebase {
    /// Opens an existing database folder built for `variant`.
    ///
    /// # Errors
    /// A folder without a manifest, with a damaged one, or built for other rules.
    pub fn open(dir: &Path, variant: &'static Variant) -> Result<Tablebase, ProbeError> {
        let found = folder_variant(dir)?.ok_or_else(|| ProbeError::NotADatabase {
            dir: dir.to_path_buf(),
        })?;
        if found.fingerprint() != variant.fingerprint() {
            return Err(ProbeError::wrong_variant(dir, found, variant));
        }
        Ok(Tablebase {
            dir: dir.to_path_buf(),
            variant,
            files: RwLock::new(HashMap::new()),
            build_indices: false,
            scattered: true,
            warn: None,
            wdl_only: folder_storage(dir) == Storage::PackedWdl,
            kept_blocks: KeptBlocks::Probing,
            without_rule: None,
            marked_draws: folder_marks_draws(dir),
            by_thread: (0..THREAD_SECTORS)
                .map(|_| ThreadSectors::default())
                .collect(),
            ultra: OnceLock::new(),
            sector_graph: OnceLock::new(),
            id: next_tablebase_id(),
        })
    }

    /// Opens a folder to write the packed copy of a folder of `variant`
    /// into (`morris pack`, packing as a solve goes), creating it and its
    /// manifest when missing; the temporary files that writers killed on
    /// this machine left there are removed.
    ///
    /// # Errors
    /// I/O errors, or a folder of other rules or of files of another kind.
    pub fn create_packed(
        dir: &Path,
        variant: &'static Variant,
        encoding: Encoding,
    ) -> Result<Tablebase, ProbeError> {
        prepare_folder(dir, variant, encoding.storage())?;
        crate::db::remove_stale_temp_files(dir, &[]);
        Tablebase::open(dir, variant)
    }

    /// Opens an existing database folder for the variant its manifest names.
    ///
    /// # Errors
    /// As [`Tablebase::open`].
    pub fn open_folder(dir: &Path) -> Result<Tablebase, ProbeError> {
        let variant = folder_variant(dir)?.ok_or_else(|| ProbeError::NotADatabase {
            dir: dir.to_path_buf(),
        })?;
        Tablebase::open(dir, variant)
    }

    /// Opens a database folder for writing, creating it and its manifest when
    /// missing.
    ///
    /// # Errors
    /// I/O errors, or a folder built for other rules.
    pub fn create(dir: &Path, variant: &'static Variant) -> Result<Tablebase, ProbeError> {
        prepare_folder(dir, variant, Storage::Raw)?;
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

    /// Keeps every block of a packed file decoded once read, until the
    /// sector is forgotten: reading whole sectors at random (`verify`)
    /// decodes each block once. Memory: the files' values unpacked.
    pub fn keeping_decoded_blocks(mut self) -> Tablebase {
        self.kept_blocks = KeptBlocks::Every;
        self
    }

    /// Reads few values of each block, at random (`verify --sample`): a
    /// pair-coded file's from their chunks, a zstd file's blocks kept once
    /// decoded ([`KeptBlocks::Sampling`]).
    pub fn sampling(mut self) -> Tablebase {
        self.kept_blocks = KeptBlocks::Sampling;
        self
    }

    /// Reads a pair-coded file's values from its chunks whatever its size
    /// (small files keep their blocks decoded otherwise): for tests of that
    /// path.
    #[doc(hidden)]
    pub fn reading_pair_chunks(mut self) -> Tablebase {
        self.kept_blocks = KeptBlocks::Chunks;
        self
    }

    /// Builds each sector's index in memory on first use instead of mapping
    /// the stored one: a slower first probe of each sector (tens of
    /// milliseconds on big ones), faster probes after it. For many probes.
    pub fn with_built_indices(mut self) -> Tablebase {
        self.build_indices = true;
        self
    }

    /// Calls `warn` when a stored index turns out damaged and the index is
    /// built in memory instead (the values stay right; `solve` rewrites it).
    pub fn with_warnings(mut self, warn: impl Fn(&FileError) + Send + Sync + 'static) -> Tablebase {
        self.warn = Some(Box::new(warn));
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the folder holds win/draw/loss only (`morris pack --wdl`):
    /// [`Tablebase::wdl`] answers, [`Tablebase::value`] cannot.
    pub fn is_wdl_only(&self) -> bool {
        self.wdl_only
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
            .get(&sector)
            .is_some_and(|s| s.mapped.get().is_some())
            || self.path(sector).is_file()
    }

    /// How many sectors the thread slot `slot` keeps (see
    /// `thread_slot`): for the tests of the per-thread cache (the
    /// `internals` feature).
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn sectors_in_slot(&self, slot: usize) -> usize {
        self.by_thread
            .get(slot)
            .map_or(0, |t| t.lock().unwrap_or_else(|e| e.into_inner()).len())
    }

    /// Forgets every mapped sector and its index (they are mapped again on use).
    pub fn forget_all(&self) {
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        for t in &self.by_thread {
            t.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
    }

    /// Forgets a mapped sector (before its file is replaced).
    pub fn forget(&self, sector: SectorKey) {
        self.files
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&sector);
        for t in &self.by_thread {
            t.lock().unwrap_or_else(|e| e.into_inner()).remove(&sector);
        }
    }

    /// Calls `f` with the mapped file of `sector` and its index (`None`
    /// without a file), found among this thread's sectors first. `f` must
    /// not probe this tablebase: it runs with this thread's sectors locked
    /// (a call that finds them locked takes the shared map instead).
    fn with_mapped<R>(
        &self,
        sector: SectorKey,
        f: impl FnOnce(Option<(&SectorFile, &ProbeIndex)>) -> R,
    ) -> Result<R, ProbeError> {
        let Ok(mut mine) = self.by_thread[thread_slot()].try_lock() else {
            let mapped = self.mapped_if_present(sector)?;
            return Ok(f(mapped.as_ref().map(|(file, index)| (&**file, &**index))));
        };
        if let Some((file, index)) = mine.get(&sector) {
            return Ok(f(Some((file, index))));
        }
        let Some(mapped) = self.mapped_if_present(sector)? else {
            return Ok(f(None));
        };
        let (file, index) = &*mine.entry(sector).or_insert(mapped);
        Ok(f(Some((file, index))))
    }

    /// The mapped file of a sector, checked against this variant and its index.
    ///
    /// # Errors
    /// A missing, foreign or damaged file.
    pub fn sector(&self, sector: SectorKey) -> Result<Arc<SectorFile>, ProbeError> {
        Ok(self.mapped(sector)?.0)
    }

    /// How big a job building `sector` is: it and the sectors it needs that
    /// the folder lacks.
    pub fn job_size(&self, sector: SectorKey) -> JobSize {
        let missing: Vec<SectorKey> = self
            .sector_graph()
            .needed_by(&[sector])
            .into_iter()
            .filter(|s| !self.path(*s).is_file())
            .collect();
        let board = self.variant.board;
        let size = |s: &SectorKey| SectorIndex::count_of(board, *s);
        JobSize {
            sectors: missing.len(),
            positions: missing.iter().map(size).sum(),
            bytes: missing
                .iter()
                .map(|s| {
                    Header::new(self.variant, *s, size(s))
                        .file_len()
                        .unwrap_or(0)
                })
                .sum(),
        }
    }

    /// The variant's reachable sectors. Built once: a caller probing a
    /// partial folder meets them at every probe of a missing sector.
    fn sector_graph(&self) -> &SectorGraph {
        self.sector_graph
            .get_or_init(|| SectorGraph::reachable(self.variant))
    }

    fn missing(&self, sector: SectorKey) -> ProbeError {
        // Nothing builds a sector no game reaches (men in hand out of step
        // with those on the board): not a missing one.
        if !self.sector_graph().contains(sector) {
            return ProbeError::UnreachableSector {
                sector,
                variant: self.variant,
            };
        }
        ProbeError::MissingSector {
            sector,
            dir: self.dir.clone(),
            variant: self.variant,
            job: self.job_size(sector),
            packed: folder_storage(&self.dir).is_packed(),
        }
    }

    /// A damaged file of `sector`, named in `source`.
    pub(crate) fn damaged(
        &self,
        sector: SectorKey,
        position: Option<&Position>,
        source: FileError,
    ) -> ProbeError {
        ProbeError::Damaged {
            sector,
            position: position.map(|p| p.notation(self.variant.board)),
            source,
        }
    }

    /// The mapped file of a sector with its index.
    fn mapped(&self, sector: SectorKey) -> Result<Mapped, ProbeError> {
        self.mapped_if_present(sector)?
            .ok_or_else(|| self.missing(sector))
    }

    /// [`Tablebase::mapped`], `None` when the folder has no file for the sector.
    fn mapped_if_present(&self, sector: SectorKey) -> Result<Option<Mapped>, ProbeError> {
        let slot = {
            let files = self.files.read().unwrap_or_else(|e| e.into_inner());
            match files.get(&sector) {
                Some(slot) => match slot.mapped.get() {
                    Some(m) => return Ok(Some(m.clone())),
                    None => slot.clone(),
                },
                None => {
                    drop(files);
                    self.files
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry(sector)
                        .or_default()
                        .clone()
                }
            }
        };
        let _opening = slot.opening.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.mapped.get() {
            return Ok(Some(m.clone()));
        }
        let path = self.path(sector);
        if !path.is_file() {
            return Ok(None);
        }
        let mapped = self.map_sector(sector, &path)?;
        Ok(Some(slot.mapped.get_or_init(|| mapped).clone()))
    }

    fn map_sector(&self, sector: SectorKey, path: &Path) -> Result<Mapped, ProbeError> {
        let path = path.to_path_buf();
        let (us, them) = (sector.us_board, sector.them_board);
        let index_path = self.dir.join(index_file_name(us, them));
        if self.scattered {
            // The first pages of the sector file and of its stored index, and
            // the checksum of the index's first block, read together.
            read_ahead(&path, &[(0, 4096)]);
            let len = fs::metadata(&index_path).map_or(0, |m| m.len());
            read_ahead(&index_path, &[(0, 4096), (first_checksum_at(len), 8)]);
        }
        let file = SectorFile::open_with(&path, self.scattered, self.kept_blocks)
            .map_err(|source| self.damaged(sector, None, source))?;
        let h = &file.header;
        if h.fingerprint == self.variant.fingerprint()
            && (h.encoding.mill_clock() != self.variant.n_move.is_some()
                || h.encoding.wdl_only() != self.wdl_only)
        {
            let problem = if h.encoding.wdl_only() != self.wdl_only {
                "its header's value encoding disagrees with its folder's kind (win/draw/loss only or not)"
            } else {
                "its header's value encoding disagrees with its rules' move-count rule"
            };
            return Err(self.damaged(
                sector,
                None,
                FileError::corrupted(&path, problem.to_string()),
            ));
        }
        if h.fingerprint != self.variant.fingerprint() {
            return Err(ProbeError::WrongVariant {
                dir: self.dir.clone(),
                found: h.variant.clone(),
                wanted: self.variant.label(),
                same_game: h.variant == self.variant.name,
                wanted_rule: self.variant.n_move,
            });
        }
        let stored = if self.build_indices {
            None
        } else {
            match StoredIndex::open(&self.dir, self.variant, us, them, self.scattered) {
                Ok(stored) => stored,
                Err(e) => {
                    // The index can be built from nothing: the values stay right.
                    if let Some(warn) = &self.warn {
                        warn(&e);
                    }
                    None
                }
            }
        };
        let index = ProbeIndex {
            stored,
            built: OnceLock::new(),
            counts: (us as usize, them as usize),
            board: self.variant.board,
        };
        if h.sector != sector || h.positions != index.size() {
            let what = "its header names another sector or size than its file name";
            return Err(self.damaged(sector, None, FileError::corrupted(&path, what)));
        }
        Ok((Arc::new(file), Arc::new(index)))
    }

    /// Checks a sector file whole: its checksum and every block.
    ///
    /// # Errors
    /// A missing, foreign or damaged file, naming the damaged file.
    pub fn verify_checksum(&self, sector: SectorKey) -> Result<(), ProbeError> {
        let (file, _) = self.mapped(sector)?;
        file.verify_checksum()
            .map_err(|source| self.damaged(sector, None, source))
    }

    /// [`Tablebase::verify_checksum`] without decoding a packed file's
    /// blocks ([`SectorFile::verify_checksums_only`]).
    ///
    /// # Errors
    /// A missing, foreign or damaged file, naming the damaged file.
    pub fn verify_checksums_only(&self, sector: SectorKey) -> Result<(), ProbeError> {
        let (file, _) = self.mapped(sector)?;
        file.verify_checksums_only()
            .map_err(|source| self.damaged(sector, None, source))
    }

    /// Checks the stored index a sector is probed through, when the folder
    /// has one, whole.
    ///
    /// # Errors
    /// A damaged index file, named, with what to do about it.
    pub fn verify_index(&self, sector: SectorKey) -> Result<(), ProbeError> {
        let (us, them) = (sector.us_board, sector.them_board);
        let checked = StoredIndex::open(&self.dir, self.variant, us, them, false)
            .and_then(|stored| stored.map_or(Ok(()), |s| s.verify_checksum()));
        checked.map_err(|source| self.damaged(sector, None, source))
    }

    /// The value of any position of play of the variant, from the side to move.
    /// In a folder packed as losses (`morris pack`) a position not lost is
    /// valued by a one-ply search over its children's losses.
    ///
    /// # Errors
    /// A position that is not one of play, or a missing or damaged sector file.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        self.variant.check_position(pos)?;
        self.value_of_checked(pos)
    }

    /// The value of any position of play under the folder's move-count rule
    /// with a fresh counter, and the plies to the next mill.
    ///
    /// # Errors
    /// A folder without the rule, a position that is not one of play, or a
    /// missing or damaged sector file.
    pub fn clock_value(&self, pos: &Position) -> Result<ClockValue, ProbeError> {
        self.variant.check_position(pos)?;
        self.clock_value_of_checked(pos)
    }

    /// [`Tablebase::clock_value`] of a position known to be one of play.
    pub(crate) fn clock_value_of_checked(&self, pos: &Position) -> Result<ClockValue, ProbeError> {
        let Some(n) = self.variant.n_move else {
            return Err(ProbeError::RuleMismatch {
                dir: self.dir.clone(),
                has_rule: false,
            });
        };
        self.with_located(pos, |located| match located {
            Located::Over(Outcome::Drawn) => Ok(ClockValue::Draw),
            Located::Over(_) => Ok(ClockValue::Loss(0)),
            Located::At(sector, file, index) => file
                .clock_value(index, n)
                .map_err(|source| self.damaged(sector, Some(pos), source)),
        })
    }

    /// Win, draw or loss for any position of play of the variant, from the
    /// side to move: what every folder without the move-count rule answers,
    /// a win/draw/loss-only one included.
    ///
    /// # Errors
    /// A folder under the rule, a position that is not one of play, or a
    /// missing or damaged sector file.
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.variant.check_position(pos)?;
        self.wdl_of_checked(pos)
    }

    /// [`Tablebase::wdl`] of a position known to be one of play.
    pub(crate) fn wdl_of_checked(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        if self.variant.n_move.is_some() {
            return Err(ProbeError::RuleMismatch {
                dir: self.dir.clone(),
                has_rule: true,
            });
        }
        let found = self.wdl_if_read(pos)?;
        found.map_or_else(|| self.wdl_not_lost(pos), Ok)
    }

    /// [`Tablebase::value`] of a position known to be one of play (a child
    /// generated from one).
    pub(crate) fn value_of_checked(&self, pos: &Position) -> Result<Value, ProbeError> {
        if self.wdl_only {
            return Err(ProbeError::WdlOnly {
                dir: self.dir.clone(),
            });
        }
        if self.variant.n_move.is_some() {
            return Err(ProbeError::RuleMismatch {
                dir: self.dir.clone(),
                has_rule: true,
            });
        }
        let found = self.value_if_read(pos)?;
        found.map_or_else(|| self.value_not_lost(pos), Ok)
    }

    /// Calls `f` with where a position's value is: a game over for the
    /// side to move (lost or, on Morabaraba's full board, drawn), or a
    /// file's index. `f` must not probe this tablebase (see
    /// [`Tablebase::with_mapped`]).
    pub(super) fn with_located<R>(
        &self,
        pos: &Position,
        f: impl FnOnce(Located<'_>) -> Result<R, ProbeError>,
    ) -> Result<R, ProbeError> {
        let sector = match self.sector_of_play(pos)? {
            Ok(sector) => sector,
            Err(over) => return f(Located::Over(over)),
        };
        self.with_mapped(sector, |mapped| match mapped {
            Some((file, index)) => f(Located::At(sector, file, index.index(self, pos))),
            None => f(Located::Over(self.without_file(pos, sector)?)),
        })?
    }

    /// The sector holding `pos`, or the game's end for the side to move
    /// (lost, or on Morabaraba's full board drawn) that no file holds.
    ///
    /// # Errors
    /// A position whose side not to move has lost already.
    fn sector_of_play(&self, pos: &Position) -> Result<Result<SectorKey, Outcome>, ProbeError> {
        match self.variant.static_outcome(pos) {
            Some(Outcome::Won) => {
                let waiting = pos.to_move.other();
                Err(ProbeError::InvalidPosition(PositionError::GameOver {
                    color: waiting.name(),
                    total: pos.total(waiting),
                }))
            }
            Some(over) => Ok(Err(over)),
            None => Ok(Ok(SectorKey::of(pos))),
        }
    }

    /// What a position whose sector has no file is: lost when its side is
    /// blocked.
    ///
    /// # Errors
    /// Otherwise the sector is missing, with how big a job building it is.
    fn without_file(&self, pos: &Position, sector: SectorKey) -> Result<Outcome, ProbeError> {
        match self.variant.outcome(pos) {
            Some(Outcome::Lost) => Ok(Outcome::Lost),
            _ => Err(self.missing(sector)),
        }
    }
}

/// See [`Tablebase::with_located`].
pub(super) enum Located<'a> {
    Over(Outcome),
    At(SectorKey, &'a SectorFile, u64),
}

/// Creates `dir` with a manifest for `variant` and for files of the kind
/// `storage` says when it has none, and checks that a folder with one holds
/// that kind (the variant is checked when it is opened).
fn prepare_folder(
    dir: &Path,
    variant: &'static Variant,
    storage: Storage,
) -> Result<(), ProbeError> {
    fs::create_dir_all(dir).map_err(FileError::write(dir))?;
    if folder_variant(dir)?.is_none() {
        if has_sector_files(dir) {
            return Err(ProbeError::NotADatabase {
                dir: dir.to_path_buf(),
            });
        }
        write_manifest(dir, variant, storage)?;
    }
    let found = folder_storage(dir);
    if found != storage {
        let problem = match (found, storage) {
            (Storage::Raw, _) => "it is a folder of raw files: packing writes into a new folder",
            (_, Storage::Raw) => {
                "it is a folder of packed files: solving writes raw files, into a folder of raw ones (pack that afterwards)"
            }
            (Storage::PackedWdl, _) => {
                "it is a folder packed win/draw/loss only: a full packing goes into another folder"
            }
            _ => {
                "it is a folder packed in full: a win/draw/loss-only packing goes into another folder"
            }
        };
        return Err(ProbeError::FolderKind {
            dir: dir.to_path_buf(),
            problem,
        });
    }
    Ok(())
}
