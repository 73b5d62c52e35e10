//! Packing as the solve goes (`solve --pack DIR`): once no unsolved unit
//! reads a sector any more, its packed copy is written into the packed
//! folder, checked against the raw file value by value, and only then is the
//! raw file removed. The raw folder then holds the files of the units in
//! progress and of what they still read, so the disk a whole game needs is
//! far below its raw size (Lasker's and Morabaraba's raw files would not
//! fit). An interruption loses at most the unit in progress: a sector found
//! in both folders was packed and checked, and only its removal was lost.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use super::error::SolveError;
use super::events::SolveEvent;
use super::lock::UnitLock;
use crate::db::{
    Coder, Encoding, FileError, ProbeError, SectorFile, Tablebase, copy_stored_index, file_name,
    same_values, sector_files, write_packed_checked,
};
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::verify::decoded::{Decoded, write_raw_sector};

pub(super) struct PackAlong<'a> {
    raw: &'a Tablebase,
    packed: Tablebase,
    /// What the packed files keep (what `morris pack` writes).
    encoding: Encoding,
    /// How their blocks are coded.
    coder: Coder,
    /// The folder of win/draw/loss only filled beside it (`--pack-wdl`).
    wdl: Option<Tablebase>,
    /// Per sector, the sectors whose moves lead into it, and those it
    /// leads into.
    readers: HashMap<SectorKey, Vec<SectorKey>>,
    successors: HashMap<SectorKey, Vec<SectorKey>>,
    /// The most bytes both folders held after a unit.
    pub(super) peak_disk: u64,
}

impl<'a> PackAlong<'a> {
    /// Packs into `dir` (created, or a packed folder of the same variant)
    /// what the solve into `raw` finishes.
    pub(super) fn new(
        raw: &'a Tablebase,
        (dir, coder): (&Path, Coder),
        wdl_dir: Option<&Path>,
        graph: &SectorGraph,
    ) -> Result<Self, SolveError> {
        let variant = raw.variant();
        if wdl_dir.is_some() && variant.n_move.is_some() {
            return Err(SolveError::WdlUnderRule);
        }
        let encoding = Encoding::packed(variant, false, false);
        let packed = Tablebase::create_packed(dir, variant, encoding)?.marking_draws_like(raw)?;
        let wdl = match wdl_dir {
            Some(wdl_dir) => {
                let encoding = Encoding::packed(variant, true, false);
                let wdl = Tablebase::create_packed(wdl_dir, variant, encoding)?;
                Some(wdl.marking_draws_like(raw)?)
            }
            None => None,
        };
        // A sector's readers with their units' other sectors: a unit solved
        // again after a damaged file was deleted has one sector missing and
        // another done, and still reads what either reads.
        let mut readers: HashMap<SectorKey, Vec<SectorKey>> = HashMap::new();
        let mut successors: HashMap<SectorKey, Vec<SectorKey>> = HashMap::new();
        for unit in graph.units() {
            for &s in &unit {
                for &child in graph.successors(s) {
                    readers.entry(child).or_default().extend(&unit);
                }
                successors.insert(s, graph.successors(s).to_vec());
            }
        }
        for unit_readers in readers.values_mut() {
            unit_readers.sort_unstable();
            unit_readers.dedup();
        }
        Ok(PackAlong {
            raw,
            packed,
            encoding,
            coder,
            wdl,
            readers,
            successors,
            peak_disk: 0,
        })
    }

    /// Whether a sector is solved: raw, or packed already.
    pub(super) fn is_done(&self, sector: SectorKey) -> bool {
        self.raw.has_sector(sector) || self.packed.has_sector(sector)
    }

    /// A packed sector's file passes its checks (a sector done earlier
    /// whose raw file is gone).
    pub(super) fn verify_packed(&self, sector: SectorKey) -> Result<(), SolveError> {
        // Its blocks' checksums suffice: it was compared value by value with
        // its raw file when written. A file that cannot be read (permissions,
        // the disk) is not damaged.
        let unreadable = |e: &ProbeError| {
            matches!(
                e,
                ProbeError::Damaged {
                    source: FileError::Read { .. },
                    ..
                }
            )
        };
        let checked = self.packed.verify_checksums_only(sector);
        checked.map_err(|e| match e {
            ProbeError::Damaged { .. } if !unreadable(&e) => SolveError::DamagedPacked {
                sectors: vec![sector],
                files: vec![self.packed.path(sector)],
                n_move: self.raw.variant().n_move,
                source: Box::new(e),
            },
            e => e.into(),
        })
    }

    /// Packs every raw sector of `sectors` that no unsolved sector reads;
    /// returns those it packed. Then notes the disk both folders use.
    pub(super) fn pack_finished(
        &mut self,
        sectors: &[SectorKey],
    ) -> Result<Vec<SectorKey>, SolveError> {
        let mut packed = Vec::new();
        for &s in sectors {
            let read_later = self
                .readers
                .get(&s)
                .is_some_and(|r| r.iter().any(|&reader| !self.is_done(reader)));
            if self.raw.has_sector(s) && !read_later {
                // Jobs of a workflow that finish together may both find a
                // sector ready: one packs it, the other finds it gone.
                let _lock = UnitLock::acquire(self.raw.dir(), &format!("pack-{s}"), || {})?;
                self.raw.forget(s);
                if self.raw.path(s).is_file() {
                    self.pack(s)?;
                    packed.push(s);
                }
            }
        }
        self.note_disk()?;
        Ok(packed)
    }

    /// Writes back into the raw folder, decoded from the packed folder, those
    /// of `inputs` (the sectors a unit about to be solved reads) that are
    /// packed only: the unit of a damaged packed file, deleted, is solved
    /// again this way. A raw successor of one is packed first, for the
    /// decoding to read (both copies are kept until it is packed as usual,
    /// then compared). Returns the sectors written back.
    pub(super) fn restore_inputs(
        &self,
        inputs: &[SectorKey],
    ) -> Result<Vec<SectorKey>, SolveError> {
        let packed_only: Vec<SectorKey> = (inputs.iter().copied())
            .filter(|&s| !self.raw.has_sector(s) && self.packed.has_sector(s))
            .collect();
        // Refused, all named, before anything is written for them.
        let mut refused = Vec::new();
        for &input in &packed_only {
            if !Decoded::applies(&self.packed, input)? {
                refused.push(input);
            }
        }
        if !refused.is_empty() {
            let dir = self.packed.dir().to_path_buf();
            let n_move = self.raw.variant().n_move;
            return Err(SolveError::PackedOnly {
                sectors: refused,
                dir,
                n_move,
            });
        }
        let mut restored = Vec::new();
        for input in packed_only {
            for &child in self.successors.get(&input).into_iter().flatten() {
                let _lock = UnitLock::acquire(self.raw.dir(), &format!("pack-{child}"), || {})?;
                if self.raw.has_sector(child) && !self.packed.has_sector(child) {
                    self.pack_into(&self.packed, &*self.raw.sector(child)?, self.encoding)?;
                }
            }
            // Another job re-solving a unit that reads it may have written it.
            let _lock = UnitLock::acquire(self.raw.dir(), &format!("pack-{input}"), || {})?;
            self.raw.forget(input);
            if self.raw.path(input).is_file() {
                continue;
            }
            write_raw_sector(&self.packed, input, self.raw.dir())?;
            copy_stored_index(self.packed.dir(), self.raw.dir(), input)?;
            self.raw.forget(input);
            restored.push(input);
        }
        Ok(restored)
    }

    /// Notes the disk the folders use now, for [`Self::peak_disk`].
    pub(super) fn note_disk(&mut self) -> Result<(), SolveError> {
        let mut disk = folder_bytes(self.raw.dir())? + folder_bytes(self.packed.dir())?;
        if let Some(wdl) = &self.wdl {
            disk += folder_bytes(wdl.dir())?;
        }
        self.peak_disk = self.peak_disk.max(disk);
        Ok(())
    }

    fn pack(&self, sector: SectorKey) -> Result<(), SolveError> {
        let raw = self.raw.sector(sector)?;
        self.pack_into(&self.packed, &raw, self.encoding)?;
        if let Some(wdl) = &self.wdl {
            let encoding = Encoding::packed(self.raw.variant(), true, false);
            self.pack_into(wdl, &raw, encoding)?;
        }
        self.raw.forget(sector);
        drop(raw);
        let raw_path = self.raw.path(sector);
        std::fs::remove_file(&raw_path).map_err(FileError::write(&raw_path))?;
        Ok(())
    }

    /// Packs one raw sector into `folder` (unless a sound file of the same
    /// packing is there), checks it value by value, and copies its stored
    /// index.
    fn pack_into(
        &self,
        folder: &Tablebase,
        raw: &SectorFile,
        encoding: Encoding,
    ) -> Result<(), SolveError> {
        let sector = raw.header.sector;
        let path = folder.dir().join(file_name(sector));
        let kept = SectorFile::open(&path, false).ok().filter(|f| {
            f.header.encoding.as_requested() == encoding
                && f.header.is_pair_coded() == (self.coder == Coder::Pairs)
                && f.verify_checksum().is_ok()
        });
        let variant = self.raw.variant();
        match kept {
            // Packed before an interruption: checked all the same.
            Some(file) => same_values(raw, &file, variant)?,
            None => write_packed_checked(folder.dir(), raw, encoding, variant, self.coder)?,
        }
        Ok(copy_stored_index(self.raw.dir(), folder.dir(), sector)?)
    }

    /// The sectors the catch-up decodes now ([`Self::catch_up_wdl`]):
    /// packed, not in the win/draw/loss folder, and read from the packed
    /// folder alone (every sector they read is packed).
    fn to_catch_up(&self) -> Result<Vec<SectorKey>, SolveError> {
        let Some(wdl) = &self.wdl else {
            return Ok(Vec::new());
        };
        let all_packed = |sector: SectorKey| {
            self.successors.get(&sector).is_some_and(|read| {
                read.iter()
                    .all(|c| self.packed.has_sector(*c) && !self.raw.has_sector(*c))
            })
        };
        let mut todo = Vec::new();
        for sector in sector_files(self.packed.dir())? {
            if !wdl.has_sector(sector)
                && !self.raw.has_sector(sector)
                && all_packed(sector)
                && Decoded::applies(&self.packed, sector)?
            {
                todo.push(sector);
            }
        }
        Ok(todo)
    }

    /// [`Self::to_catch_up`], failing where the system's temporary folder
    /// cannot hold their decoding (a solve asks before it starts, so as
    /// not to fail after a day of solving, and again at the end, when more
    /// may be packed).
    pub(super) fn catch_up_with_room(&self) -> Result<Vec<SectorKey>, SolveError> {
        let todo = self.to_catch_up()?;
        let room = Decoded::room_needed(&self.packed, &todo, |_| true, true);
        Decoded::refuse_without_room(room)?;
        Ok(todo)
    }

    /// With `--pack-wdl`: the sectors of the packed folder that the folder
    /// of win/draw/loss lacks (packed before it was asked for), decoded
    /// from the packed folder (as `morris pack` of a packed folder does)
    /// where everything they read is packed, each under the lock packing it
    /// takes; returns those written.
    pub(super) fn catch_up_wdl(
        &mut self,
        on_event: &(dyn Fn(SolveEvent) + Sync),
    ) -> Result<Vec<SectorKey>, SolveError> {
        let Some(wdl) = &self.wdl else {
            return Ok(Vec::new());
        };
        let mut written = Vec::new();
        let mut decoded: Option<Decoded> = None;
        let encoding = Encoding::packed(self.raw.variant(), true, false);
        let variant = self.raw.variant();
        let todo = self.catch_up_with_room()?;
        let size = |s: SectorKey| SectorIndex::count_of(variant.board, s);
        if !todo.is_empty() {
            on_event(SolveEvent::CatchingUp {
                sectors: todo.len(),
                positions: todo.iter().map(|&s| size(s)).sum(),
            });
        }
        for sector in todo {
            let started = Instant::now();
            // Jobs of a workflow that finish together: one decodes it.
            let _lock = UnitLock::acquire(self.raw.dir(), &format!("pack-{sector}"), || {})?;
            wdl.forget(sector);
            if wdl.path(sector).is_file() {
                continue;
            }
            let decoder = match &mut decoded {
                Some(d) => d,
                None => decoded.insert(Decoded::new(&self.packed)?),
            };
            // The index first: a sector file without it is never revisited.
            let dir = wdl.dir();
            copy_stored_index(self.packed.dir(), dir, sector)?;
            let values = decoder.raw_sector(sector)?;
            write_packed_checked(dir, &values, encoding, variant, self.coder)?;
            drop(values);
            decoder.forget(sector);
            written.push(sector);
            on_event(SolveEvent::CaughtUpSector {
                sector,
                positions: size(sector),
                elapsed: started.elapsed(),
            });
        }
        drop(decoded);
        self.note_disk()?;
        Ok(written)
    }
}

/// The bytes of the files in a folder.
fn folder_bytes(dir: &Path) -> Result<u64, FileError> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).map_err(FileError::read(dir))? {
        let entry = entry.map_err(FileError::read(dir))?;
        match entry.metadata() {
            Ok(metadata) => total += metadata.len(),
            // Removed since it was listed: another job packed it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(FileError::read(dir)(e)),
        }
    }
    Ok(total)
}
