//! The fast check of a folder packed as losses (the default packing, whose
//! wins and draws a probe finds by a one-ply search), or as loss bits (`pack
//! --wdl`, the same without plies): each sector is decoded
//! once, by that search, into a raw sector file of a scratch folder (in the
//! system's temporary folder, `morris-verify-PID-on-HOST`), and the raw files get the forward
//! check ([`super::forward`]). A sector stays decoded while a sector still to
//! check reads it, so each is searched about once instead of once per parent
//! position (what the simple check does, two plies deep).
//!
//! What is proven is the values a probe of the packed folder gives: they are
//! the decoded bytes, and the forward check proves them as it proves a
//! solve's, but for the won positions, which the decoding made from the
//! same loss marks the check would read
//! ([`Forward::with_wins_by_construction`]), and the drawn ones, each
//! checked by its first drawn child. Loss bits decode to losses in 0 plies
//! and wins in 1, checked as wins, draws and losses only
//! ([`Forward::checking_win_draw_loss`]): consistent, not proven, as any
//! check of a folder without plies. The scratch folder takes up to the raw
//! files' size on disk (one byte per position) and is removed at the end.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::Checked;
use super::forward::Forward;
use crate::db::{
    Encoding, FileError, Header, ProbeError, SectorFile, Tablebase, disk_size, raw_file_len,
    write_sector,
};
use crate::index::SectorKey;
use crate::system::{UNKNOWN_HOST, host_name};

/// A packed folder's sectors decoded into a scratch raw folder, as checks
/// need them.
pub struct Decoded<'a> {
    packed: &'a Tablebase,
    scratch: Tablebase,
    dir: PathBuf,
    decoded: HashSet<SectorKey>,
}

impl<'a> Decoded<'a> {
    /// Whether `sector` of `packed` is checked this way: a losses file, with
    /// plies or loss bits, whose successors' files are too, and theirs (its
    /// successors are decoded with it). Predicted loss bits are not: a
    /// child's bit needs its position, which the decoding does not build.
    ///
    /// # Errors
    /// A missing or damaged file.
    pub fn applies(packed: &Tablebase, sector: SectorKey) -> Result<bool, ProbeError> {
        let variant = packed.variant();
        let successors = |s: SectorKey| {
            s.successors(variant)
                .into_iter()
                .filter(|c| c.is_valid(variant) && packed.has_sector(*c))
        };
        // Its file and its successors' files are of losses.
        let decodable = |s: SectorKey| -> Result<bool, ProbeError> {
            for f in std::iter::once(s).chain(successors(s)) {
                let encoding = packed.sector(f)?.header.encoding;
                if !matches!(encoding, Encoding::PackedLosses | Encoding::PackedLossBits) {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        for s in std::iter::once(sector).chain(successors(sector)) {
            if !decodable(s)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The most room the scratch folder takes while the `sectors` of
    /// `packed` are checked in this order, those that `decodes` names
    /// decoded ([`Self::check`]: each with the successors it reads, kept
    /// while a sector still to check reads them, as
    /// [`Self::keep_only_for`] keeps them); with `one_at_a_time`, as `pack`
    /// decodes them instead, each alone and forgotten once packed. Files
    /// that cannot be read count nothing (the check names them).
    pub fn room_needed(
        packed: &Tablebase,
        sectors: &[SectorKey],
        decodes: impl Fn(SectorKey) -> bool,
        one_at_a_time: bool,
    ) -> u64 {
        let variant = packed.variant();
        // Each file's bytes in whole pages, as a file system allocates them.
        let raw_len = |s: SectorKey| {
            let len = packed
                .sector(s)
                .map_or(0, |f| raw_file_len(variant, s, f.header.positions()));
            len.next_multiple_of(4096)
        };
        let decoded = |s: SectorKey| decodes(s) && Self::applies(packed, s).unwrap_or(false);
        if one_at_a_time {
            let largest = sectors.iter().filter(|&&s| decoded(s)).map(|&s| raw_len(s));
            return largest.max().unwrap_or(0);
        }
        // The last sector to check that reads each (as itself or a successor).
        let mut last_read = HashMap::new();
        for (at, &s) in sectors.iter().enumerate() {
            for read in std::iter::once(s).chain(s.successors(variant)) {
                last_read.insert(read, at);
            }
        }
        let (mut held, mut bytes, mut most) = (HashMap::new(), 0, 0);
        for (at, &sector) in sectors.iter().enumerate() {
            if decoded(sector) {
                let successors = sector.successors(variant).into_iter();
                let present = successors.filter(|s| s.is_valid(variant) && packed.has_sector(*s));
                for s in std::iter::once(sector).chain(present) {
                    held.entry(s).or_insert_with(|| {
                        bytes += raw_len(s);
                        raw_len(s)
                    });
                }
                most = most.max(bytes);
            }
            held.retain(|s, len| {
                let kept = last_read.get(s).is_some_and(|&last| last > at);
                if !kept {
                    bytes -= *len;
                }
                kept
            });
        }
        most
    }

    /// Fails at once, before anything is decoded, where the system's
    /// temporary folder (`TMPDIR`) has less than `least` bytes free (see
    /// [`Self::room_needed`]): the decoding would fail partway.
    ///
    /// # Errors
    /// Too little room, as a file of that folder that cannot be written.
    pub fn refuse_without_room(least: u64) -> Result<(), ProbeError> {
        // What killed checks left is not in the way: it goes first.
        remove_dead_scratch_folders();
        let dir = std::env::temp_dir();
        match crate::system::free_disk_bytes(&dir) {
            Some(free) if free < least => Err(FileError::Write {
                path: dir,
                source: std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    format!(
                        "the sectors decoded from the packed folder need at least {} there, {} free",
                        disk_size(least),
                        disk_size(free)
                    ),
                ),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// A fresh scratch folder of this process in the system's temporary
    /// folder (`TMPDIR`): the packed folder may be read-only, and two checks
    /// of it may run at once.
    ///
    /// # Errors
    /// The scratch folder cannot be made.
    pub fn new(packed: &'a Tablebase) -> Result<Decoded<'a>, ProbeError> {
        // One of its own for each check of this process too (tests run
        // several at once).
        static CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = match n {
            0 => format!("morris-verify-{}-on-{}", std::process::id(), host_name()),
            n => format!(
                "morris-verify-{}-{n}-on-{}",
                std::process::id(),
                host_name()
            ),
        };
        remove_dead_scratch_folders();
        let dir = std::env::temp_dir().join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(FileError::write(&dir))?;
        }
        let scratch = Tablebase::create(&dir, packed.variant())?;
        Ok(Decoded {
            packed,
            scratch,
            dir,
            decoded: HashSet::new(),
        })
    }

    /// The scratch folder (removed when this is dropped).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Checks `sector`: the forward check of its decoded values against its
    /// successors' decoded values (each packed file's checksums are checked
    /// when it is decoded, by [`Forward::new`]).
    ///
    /// # Errors
    /// A missing or damaged file, or one that cannot be written.
    pub fn check(&mut self, sector: SectorKey, limit: usize) -> Result<Checked, ProbeError> {
        let variant = self.packed.variant();
        self.decode(sector)?;
        for s in sector.successors(variant) {
            if s.is_valid(variant) && self.packed.has_sector(s) {
                self.decode(s)?;
            }
        }
        let forward = Forward::new(&self.scratch, sector)?.with_wins_by_construction();
        if self.packed.is_wdl_only() {
            forward.checking_win_draw_loss().check_all(limit)
        } else {
            forward.check_all(limit)
        }
    }

    /// Removes the decoded sectors that none of `still_to_check` reads.
    pub fn keep_only_for(&mut self, still_to_check: &[SectorKey]) {
        let variant = self.packed.variant();
        let needed: HashSet<SectorKey> = still_to_check
            .iter()
            .flat_map(|&s| std::iter::once(s).chain(s.successors(variant)))
            .collect();
        let gone: Vec<SectorKey> = self
            .decoded
            .iter()
            .copied()
            .filter(|s| !needed.contains(s))
            .collect();
        for s in gone {
            self.forget(s);
        }
        // The packed files' decoded blocks: memory for the next sector.
        self.packed.forget_all();
    }

    /// `sector`'s values decoded, as a raw sector file of the scratch
    /// folder (what `pack` of a packed folder packs again); [`Self::forget`]
    /// removes it.
    ///
    /// # Errors
    /// A missing or damaged file, or one that cannot be written.
    pub fn raw_sector(&mut self, sector: SectorKey) -> Result<Arc<SectorFile>, ProbeError> {
        self.decode(sector)?;
        self.scratch.sector(sector)
    }

    /// Removes `sector`'s decoded file.
    pub fn forget(&mut self, sector: SectorKey) {
        self.scratch.forget(sector);
        let _ = std::fs::remove_file(self.scratch.path(sector));
        self.decoded.remove(&sector);
    }

    /// Writes `sector`'s values, each found by the packed folder's probe,
    /// as a raw sector file of the scratch folder (once).
    fn decode(&mut self, sector: SectorKey) -> Result<(), ProbeError> {
        if self.decoded.contains(&sector) {
            return Ok(());
        }
        write_raw_sector(self.packed, sector, &self.dir)?;
        self.decoded.insert(sector);
        Ok(())
    }
}

/// Writes `sector`'s values, each found by the probe of `packed` (a
/// folder of losses, where [`Decoded::applies`]), as a raw sector file into
/// `dir`: the file the solve wrote before it was packed.
///
/// # Errors
/// A missing or damaged file, or one that cannot be written.
pub fn write_raw_sector(
    packed: &Tablebase,
    sector: SectorKey,
    dir: &std::path::Path,
) -> Result<(), ProbeError> {
    let decoded = Forward::new(packed, sector)?.decode_losses()?;
    let positions = decoded.bytes.len() as u64;
    write_sector(
        dir,
        Header::new(packed.variant(), sector, positions),
        |sink| sink(&decoded.bytes),
        &decoded.overflow,
    )?;
    Ok(())
}

/// Removes the scratch folders of checks whose process is gone (killed
/// before its `Drop` ran): each may hold a decoded sector of a gigabyte.
fn remove_dead_scratch_folders() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix("morris-verify-") else {
            continue;
        };
        // `PID[-N]-on-HOST`: a folder of another machine sharing the
        // temporary folder is not judged (before hosts were named: this one).
        let (process, host) = rest.split_once("-on-").unwrap_or((rest, ""));
        let here = host.is_empty() || (host != UNKNOWN_HOST && host == host_name());
        let pid = process.split('-').next().unwrap_or("");
        let gone = here
            && pid.parse::<u32>().is_ok_and(|pid| {
                cfg!(target_os = "linux")
                    && pid != std::process::id()
                    && !std::path::Path::new(&format!("/proc/{pid}")).exists()
            });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Drop for Decoded<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
