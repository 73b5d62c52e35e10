//! The disk a solve needs, worked out before it starts: a whole game of
//! Morabaraba or Lasker runs for a day, and a disk that fills after twenty
//! hours loses the unit in progress and the night. Packing as it goes
//! (`--pack`), a sector's raw file stays until the last unit that reads it
//! is solved, so the peak comes partway, and is what `plan` reports and
//! `solve` checks against the free space.

use std::collections::HashMap;
use std::path::Path;

use super::error::SolveError;
use crate::db::raw_file_len;
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::rules::Variant;

/// A packed file's bytes over its raw file's, as `morris pack` writes them
/// by default, rounded up: the whole standard game's losses took 3.9 GB
/// over 26.8 GB in zstd blocks, about 6% more pair-coded (6.4% on the 434
/// sectors of 498 measured: about 4.2 GB).
pub const PACKED_FRACTION: f64 = 0.16;

/// The sector files a solve of `units`, in that order, holds at most.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskPeak {
    /// Raw and packed files together at the peak (packed files estimated
    /// at [`PACKED_FRACTION`] of their raw files).
    pub bytes: u64,
    /// The raw files alone at their own peak: exact, so a disk smaller
    /// than this cannot hold the solve.
    pub raw_bytes: u64,
    /// The unit (its index in the order) right after whose solve the peak
    /// comes, before it packs what it freed.
    pub after_unit: usize,
}

/// Step by step, the sector files of a solve of `units` in order: after
/// each unit, its raw files, then (packing as it goes) the packing of every
/// sector that no unit still to run reads.
pub(crate) struct DiskTimeline {
    /// Raw and packed bytes right after each unit's solve, before its packing.
    at_peak: Vec<(u64, u64)>,
    /// Raw and packed bytes after each unit's packing.
    settled: Vec<(u64, u64)>,
}

impl DiskTimeline {
    /// The timeline of `units` in order; `pack`: packing as it goes, else
    /// every raw file stays.
    pub(crate) fn new(
        variant: &Variant,
        graph: &SectorGraph,
        units: &[Vec<SectorKey>],
        pack: bool,
    ) -> DiskTimeline {
        let raw_len = |s: SectorKey| {
            let positions =
                SectorIndex::count(variant.board, s.us_board as usize, s.them_board as usize);
            raw_file_len(variant, s, positions)
        };
        let unit_of: HashMap<SectorKey, usize> = units
            .iter()
            .enumerate()
            .flat_map(|(i, unit)| unit.iter().map(move |s| (*s, i)))
            .collect();
        // The unit after which each sector is packed: its own, or that of
        // its last reader; never while a reader is left out of the units.
        let mut packed_after: Vec<Vec<SectorKey>> = vec![Vec::new(); units.len()];
        if pack {
            let mut last_reader: HashMap<SectorKey, Option<usize>> =
                unit_of.iter().map(|(s, &i)| (*s, Some(i))).collect();
            for reader in graph.sectors() {
                let at = unit_of.get(&reader).copied();
                for child in graph.successors(reader) {
                    if let Some(last) = last_reader.get_mut(child) {
                        *last = match (*last, at) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            _ => None,
                        };
                    }
                }
            }
            for (s, last) in last_reader {
                if let Some(i) = last {
                    packed_after[i].push(s);
                }
            }
        }
        let (mut raw, mut packed) = (0u64, 0u64);
        let mut timeline = DiskTimeline {
            at_peak: Vec::with_capacity(units.len()),
            settled: Vec::with_capacity(units.len()),
        };
        for (unit, freed) in units.iter().zip(&packed_after) {
            raw += unit.iter().map(|s| raw_len(*s)).sum::<u64>();
            timeline.at_peak.push((raw, packed));
            for s in freed {
                raw -= raw_len(*s);
                packed += (raw_len(*s) as f64 * PACKED_FRACTION) as u64;
            }
            timeline.settled.push((raw, packed));
        }
        timeline
    }

    /// The peak of the units from `first` on, over what the units before
    /// it left: the disk a solve resumed at unit `first` adds at most.
    pub(crate) fn peak_from(&self, first: usize) -> DiskPeak {
        let (raw_before, packed_before) = first
            .checked_sub(1)
            .map_or((0, 0), |before| self.settled[before]);
        let mut peak = DiskPeak::default();
        for (i, &(raw, packed)) in self.at_peak.iter().enumerate().skip(first) {
            let bytes = (raw + packed).saturating_sub(raw_before + packed_before);
            if bytes > peak.bytes {
                peak.bytes = bytes;
                peak.after_unit = i;
            }
            peak.raw_bytes = peak.raw_bytes.max(raw.saturating_sub(raw_before));
        }
        peak
    }
}

/// An error where the raw files of a solve (its exact part) need more than
/// `free` bytes: it would fail hours later with its disk full.
pub(crate) fn refuse_if_short(
    peak: DiskPeak,
    free: Option<u64>,
    dir: &Path,
    packing: bool,
) -> Result<(), SolveError> {
    match free {
        Some(free) if peak.raw_bytes > free => Err(SolveError::NotEnoughDisk {
            dir: dir.to_path_buf(),
            needed: peak.raw_bytes,
            free,
            packing,
        }),
        _ => Ok(()),
    }
}

/// The bytes free to this program on the file system that holds `dir`
/// (its nearest existing ancestor), or `None` where the system does not
/// say.
pub fn free_disk_bytes(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|d| d.exists())?;
    let existing = if existing.as_os_str().is_empty() {
        Path::new(".")
    } else {
        existing
    };
    free_bytes_of(existing)
}

#[cfg(unix)]
fn free_bytes_of(dir: &Path) -> Option<u64> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stats` a buffer of the
    // struct `statvfs` fills; it is read only when the call succeeded.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    Some((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

#[cfg(not(unix))]
fn free_bytes_of(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packing as it goes holds less than every raw file, more than the
    /// largest unit, and a resumed solve needs no more than a fresh one.
    #[test]
    fn packing_along_peaks_below_the_raw_total() {
        // A whole game: a sector read by one left out is never packed.
        let six = Variant::by_name("six").unwrap();
        let graph = SectorGraph::reachable(six);
        let units = graph.units();
        let raw_len = |s: &SectorKey| {
            let n = SectorIndex::count(six.board, s.us_board as usize, s.them_board as usize);
            raw_file_len(six, *s, n)
        };
        let total: u64 = units.iter().flatten().map(raw_len).sum();
        let raw = DiskTimeline::new(six, &graph, &units, false).peak_from(0);
        assert_eq!((raw.bytes, raw.raw_bytes), (total, total));
        let timeline = DiskTimeline::new(six, &graph, &units, true);
        let packed = timeline.peak_from(0);
        assert!(packed.bytes < total, "{packed:?} against {total}");
        assert!(packed.raw_bytes <= packed.bytes);
        assert!(timeline.peak_from(units.len() - 1).bytes <= packed.bytes);
        // Right after its solve a unit's files are there, and those of every
        // sector it reads: nothing it reads is packed before it is solved.
        for (i, unit) in units.iter().enumerate() {
            let mut held: Vec<SectorKey> = unit.clone();
            held.extend(
                unit.iter()
                    .flat_map(|s| graph.successors(*s).iter().copied()),
            );
            held.sort_unstable();
            held.dedup();
            let least: u64 = held.iter().map(raw_len).sum();
            assert!(timeline.at_peak[i].0 >= least, "unit {i}");
        }
    }

    /// A disk too small for the raw files is refused with the figures, and
    /// one too small only for the estimated packed files is not.
    #[test]
    fn a_disk_too_small_for_the_raw_files_is_refused() {
        let peak = DiskPeak {
            bytes: 12_000_000_000,
            raw_bytes: 9_000_000_000,
            after_unit: 3,
        };
        let dir = Path::new("db");
        let error = refuse_if_short(peak, Some(8_000_000_000), dir, true).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("9.0 GB more disk"), "{message}");
        assert!(message.contains("8.0 GB free"), "{message}");
        assert!(refuse_if_short(peak, Some(10_000_000_000), dir, true).is_ok());
        assert!(refuse_if_short(peak, None, dir, false).is_ok());
        let message = refuse_if_short(peak, Some(0), dir, false)
            .unwrap_err()
            .to_string();
        assert!(message.contains("--pack DIR"), "{message}");
    }
}
