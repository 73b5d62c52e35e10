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

/// The same for the win/draw/loss folder of `solve --pack-wdl` (loss bits,
/// pair-coded), rounded up: the whole standard game's took 1.05 GB.
pub const WDL_PACKED_FRACTION: f64 = 0.04;

/// The sector files a solve of `units`, in that order, adds at most.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DiskPeak {
    /// Raw and packed files together at the peak (packed files estimated
    /// at the timeline's fraction of their raw files).
    pub bytes: u64,
    /// The raw files alone at their own peak. Their sizes are exact (but
    /// for the few positions a file keeps in its overflow table, and the
    /// stored index files), so a disk with less free cannot hold the solve.
    pub raw_bytes: u64,
    /// The packed files at their most (at the end), estimated.
    pub packed_bytes: u64,
    /// The unit (its index in the order) right after whose solve the peak
    /// comes, before it packs what it freed.
    pub after_unit: usize,
}

/// What a solve will add to the disks it writes, told before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskForecast {
    /// Each disk, the raw folder's first, then those of packed folders on
    /// disks of their own.
    pub disks: Vec<DiskNeed>,
}

impl DiskForecast {
    /// Whether the estimate does not fit on some disk (a solve whose raw
    /// files alone do not fit is refused instead).
    pub fn short(&self) -> bool {
        self.disks.iter().any(DiskNeed::short)
    }
}

/// What a solve adds to one disk at most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskNeed {
    /// The folder written there.
    pub dir: std::path::PathBuf,
    /// The bytes added at most: exact for raw files, the packed ones
    /// estimated at [`PACKED_FRACTION`] of their raw files (and
    /// [`WDL_PACKED_FRACTION`] for `pack_wdl`'s).
    pub needed: u64,
    /// Its free bytes, where the system says.
    pub free: Option<u64>,
}

impl DiskNeed {
    /// Whether the estimate does not fit.
    pub fn short(&self) -> bool {
        self.free.is_some_and(|f| f < self.needed)
    }
}

/// Step by step, the sector files a solve of `units` in order adds: after
/// each unit its raw files, then (packing as it goes) the packed files of
/// every sector that no unit still to run reads, in place of their raw
/// ones. A sector already solved adds nothing, and its packing is left
/// out (it frees disk, so the figures stay on the safe side).
pub(crate) struct DiskTimeline {
    /// Raw and packed bytes added right after each unit's solve, before
    /// its packing.
    at_peak: Vec<(u64, u64)>,
    /// The sectors packed right after each unit.
    pub(crate) packed_after: Vec<Vec<SectorKey>>,
}

impl DiskTimeline {
    /// The timeline of `units` in order; `packed_fraction`: packing as it
    /// goes, the packed folders' bytes over the raw files' (else every raw
    /// file stays); `solved`: whether a sector's file is already there (raw
    /// or packed).
    pub(crate) fn new(
        variant: &Variant,
        graph: &SectorGraph,
        units: &[Vec<SectorKey>],
        packed_fraction: Option<f64>,
        solved: &dyn Fn(SectorKey) -> bool,
    ) -> DiskTimeline {
        Self::restoring(variant, graph, units, packed_fraction, solved, &|_| false)
    }

    /// [`Self::new`], where the solved sectors that `packed_only` names
    /// (packed, their raw files gone) are written back as raw files when a
    /// unit still to solve reads them (see `PackAlong::restore_inputs`), and
    /// held until they are packed again.
    pub(crate) fn restoring(
        variant: &Variant,
        graph: &SectorGraph,
        units: &[Vec<SectorKey>],
        packed_fraction: Option<f64>,
        solved: &dyn Fn(SectorKey) -> bool,
        packed_only: &dyn Fn(SectorKey) -> bool,
    ) -> DiskTimeline {
        let raw_len = |s: SectorKey| {
            if solved(s) {
                0
            } else {
                raw_sector_len(variant, s)
            }
        };
        let unit_of: HashMap<SectorKey, usize> = units
            .iter()
            .enumerate()
            .flat_map(|(i, unit)| unit.iter().map(move |s| (*s, i)))
            .collect();
        // The unit after which each sector is packed: its own, or that of
        // its last reader; never while a reader is left out of the units.
        let mut packed_after: Vec<Vec<SectorKey>> = vec![Vec::new(); units.len()];
        if packed_fraction.is_some() {
            let mut last_reader: HashMap<SectorKey, Option<usize>> =
                unit_of.iter().map(|(s, &i)| (*s, Some(i))).collect();
            for reader in graph.sectors() {
                let at = unit_of.get(&reader).copied();
                for child in graph.successors(reader) {
                    if let Some(last) = last_reader.get_mut(child) {
                        *last = last.zip(at).map(|(a, b)| a.max(b));
                    }
                }
            }
            for (s, last) in last_reader {
                if let Some(i) = last {
                    packed_after[i].push(s);
                }
            }
            packed_after.iter_mut().for_each(|p| p.sort_unstable());
        }
        let (mut raw, mut packed) = (0u64, 0u64);
        let mut at_peak = Vec::with_capacity(units.len());
        let mut restored = std::collections::HashSet::new();
        for (unit, freed) in units.iter().zip(&packed_after) {
            raw += unit.iter().map(|s| raw_len(*s)).sum::<u64>();
            // Solved again: its packed sectors are written raw too, beside
            // what it reads.
            if unit.iter().any(|s| !solved(*s)) {
                let read = unit
                    .iter()
                    .flat_map(|s| graph.successors(*s).iter().copied());
                for s in unit.iter().copied().chain(read) {
                    if packed_only(s) && restored.insert(s) {
                        raw += raw_sector_len(variant, s);
                    }
                }
            }
            at_peak.push((raw, packed));
            for s in freed {
                raw -= raw_len(*s);
                packed += (raw_len(*s) as f64 * packed_fraction.unwrap_or(0.0)) as u64;
                if restored.remove(s) {
                    raw -= raw_sector_len(variant, *s);
                }
            }
        }
        // The packing after the last unit, as a moment of its own.
        at_peak.push((raw, packed));
        DiskTimeline {
            at_peak,
            packed_after,
        }
    }

    /// The most the solve adds, and the raw files' own most.
    pub(crate) fn peak(&self) -> DiskPeak {
        let mut peak = DiskPeak::default();
        for (i, &(raw, packed)) in self.at_peak.iter().enumerate() {
            if raw + packed > peak.bytes {
                peak.bytes = raw + packed;
                peak.after_unit = i;
            }
            peak.raw_bytes = peak.raw_bytes.max(raw);
            peak.packed_bytes = peak.packed_bytes.max(packed);
        }
        peak
    }

    /// The most the solve adds to the raw folder's disk where only this
    /// share of the packed files lands there too (the others on disks of
    /// their own).
    pub(crate) fn peak_with(&self, packed_share: f64) -> u64 {
        let at = |&(raw, packed): &(u64, u64)| raw + (packed as f64 * packed_share).ceil() as u64;
        self.at_peak.iter().map(at).max().unwrap_or(0)
    }
}

/// The bytes of `sector`'s raw file, from its index's size (what `solve`
/// writes, but for the few values too long for a byte).
pub(crate) fn raw_sector_len(variant: &Variant, sector: SectorKey) -> u64 {
    let (us, them) = (sector.us_board as usize, sector.them_board as usize);
    raw_file_len(variant, sector, SectorIndex::count(variant.board, us, them))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_len(variant: &Variant, s: &SectorKey) -> u64 {
        raw_sector_len(variant, *s)
    }

    /// Packing as it goes, the whole game holds less than every raw file,
    /// and right after its solve a unit's files are there with those of
    /// every sector it reads (nothing it reads is packed before it).
    #[test]
    fn packing_along_peaks_below_the_raw_total() {
        let six = Variant::by_name("six").unwrap();
        let graph = SectorGraph::reachable(six);
        let units = graph.units();
        let total: u64 = units.iter().flatten().map(|s| raw_len(six, s)).sum();
        let raw = DiskTimeline::new(six, &graph, &units, None, &|_| false).peak();
        assert_eq!(
            (raw.bytes, raw.raw_bytes, raw.packed_bytes),
            (total, total, 0)
        );
        let timeline = DiskTimeline::new(six, &graph, &units, Some(PACKED_FRACTION), &|_| false);
        let packed = timeline.peak();
        assert!(packed.bytes < total, "{packed:?} against {total}");
        // The raw folder's disk with all the packed files, none, or a part.
        assert_eq!(timeline.peak_with(1.0), packed.bytes);
        assert_eq!(timeline.peak_with(0.0), packed.raw_bytes);
        let part = timeline.peak_with(0.5);
        assert!(packed.raw_bytes < part && part < packed.bytes, "{part}");
        let estimate = (total as f64 * PACKED_FRACTION) as u64;
        assert!(packed.packed_bytes.abs_diff(estimate) < units.len() as u64 * 2);
        for (i, unit) in units.iter().enumerate() {
            let mut held: Vec<SectorKey> = unit.clone();
            held.extend(
                unit.iter()
                    .flat_map(|s| graph.successors(*s).iter().copied()),
            );
            held.sort_unstable();
            held.dedup();
            let least: u64 = held.iter().map(|s| raw_len(six, s)).sum();
            assert!(timeline.at_peak[i].0 >= least, "unit {i}");
        }
        // Every sector is packed once, at the end at the latest.
        let mut packs: Vec<SectorKey> = timeline.packed_after.concat();
        packs.sort_unstable();
        let mut all: Vec<SectorKey> = units.concat();
        all.sort_unstable();
        assert_eq!(packs, all);
    }

    /// A unit solved again (a packed file deleted) writes its packed
    /// sectors and those it reads back as raw files: they count from that
    /// unit until they are packed again.
    #[test]
    fn sectors_written_back_count_until_packed_again() {
        let six = Variant::by_name("six").unwrap();
        let graph = SectorGraph::reachable(six);
        let units = graph.units();
        let lost: SectorKey = "5-6".parse().unwrap();
        let solved = |s: SectorKey| s != lost;
        let fraction = Some(PACKED_FRACTION);
        let timeline = DiskTimeline::restoring(six, &graph, &units, fraction, &solved, &solved);
        let at = units.iter().position(|u| u.contains(&lost)).unwrap();
        let mut held: Vec<SectorKey> = units[at].clone();
        held.extend(
            units[at]
                .iter()
                .flat_map(|s| graph.successors(*s).iter().copied()),
        );
        held.sort_unstable();
        held.dedup();
        assert!(held.len() > 2, "{held:?}");
        let bytes: u64 = held.iter().map(|s| raw_len(six, s)).sum();
        assert_eq!(timeline.at_peak[at].0, bytes);
        assert_eq!(timeline.at_peak.last().unwrap().0, 0);
        // Counted as written only: the lost sector's raw file alone.
        let plain = DiskTimeline::new(six, &graph, &units, fraction, &solved);
        assert_eq!(plain.at_peak[at].0, raw_len(six, &lost));
    }

    /// A sector read by a sector left out of the solve stays raw: the
    /// standard movement sectors up to 6-6 pack nothing (placement sectors
    /// read them all).
    #[test]
    fn a_sector_read_from_outside_stays_raw() {
        let standard = Variant::standard();
        let graph = SectorGraph::reachable(standard);
        let units = graph.units_for(&["6-6".parse().unwrap()]);
        let total: u64 = units.iter().flatten().map(|s| raw_len(standard, s)).sum();
        let timeline =
            DiskTimeline::new(standard, &graph, &units, Some(PACKED_FRACTION), &|_| false);
        assert!(timeline.packed_after.iter().all(Vec::is_empty));
        assert_eq!(timeline.peak().raw_bytes, total);
    }

    /// Sectors already solved add nothing: resumed after its first half,
    /// the solve adds what the second half's raw files take, and a solve
    /// with nothing left adds nothing.
    #[test]
    fn a_resumed_solve_counts_only_what_is_left() {
        let six = Variant::by_name("six").unwrap();
        let graph = SectorGraph::reachable(six);
        let units = graph.units();
        let half: Vec<SectorKey> = units[..units.len() / 2].concat();
        let solved = |s: SectorKey| half.contains(&s);
        let resumed = DiskTimeline::new(six, &graph, &units, None, &solved).peak();
        let left: u64 = units[units.len() / 2..]
            .iter()
            .flatten()
            .map(|s| raw_len(six, s))
            .sum();
        assert_eq!(resumed.raw_bytes, left);
        let fresh =
            DiskTimeline::new(six, &graph, &units, Some(PACKED_FRACTION), &|_| false).peak();
        let packing = DiskTimeline::new(six, &graph, &units, Some(PACKED_FRACTION), &solved).peak();
        assert!(packing.bytes < fresh.bytes && packing.raw_bytes <= fresh.raw_bytes);
        let done = DiskTimeline::new(six, &graph, &units, Some(PACKED_FRACTION), &|_| true).peak();
        assert_eq!((done.bytes, done.raw_bytes), (0, 0));
    }

    /// A disk too small for the raw files is refused with the figures, and
    /// one too small only for the estimated packed files is not.
    /// (A relative folder not made yet is measured at ".".)
    #[test]
    fn a_disk_too_small_for_the_raw_files_is_refused() {
        let peak = DiskPeak {
            bytes: 12_000_000_000,
            raw_bytes: 9_000_000_000,
            packed_bytes: 3_000_000_000,
            after_unit: 3,
        };
        let dir = Path::new("db");
        let error = refuse_if_short(peak, Some(8_000_000_000), dir, true).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("9.000 GB more disk"), "{message}");
        assert!(message.contains("8.000 GB free"), "{message}");
        assert!(refuse_if_short(peak, Some(10_000_000_000), dir, true).is_ok());
        assert!(refuse_if_short(peak, None, dir, false).is_ok());
        let message = refuse_if_short(peak, Some(0), dir, false)
            .unwrap_err()
            .to_string();
        assert!(message.contains("--pack DIR"), "{message}");
    }
}
