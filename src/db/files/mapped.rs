//! A file mapped for reading whose bytes are covered by checksummed blocks,
//! each checked the first time it is read: what the sector files and the
//! stored index files share. Their formats differ only in their layout.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use memmap2::{Advice, Mmap};
use rayon::prelude::*;

use crate::db::error::FileError;

/// Bytes of one block checksum (xxh3-64, little-endian).
pub const BLOCK_CHECKSUM_LEN: usize = 8;

/// Little-endian `u32` at `at`; `None` past the end.
pub fn u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// Little-endian `u64` at `at`; `None` past the end.
pub fn u64_le(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        bytes.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// A mapped file; see the module docs.
pub struct CheckedMap {
    path: PathBuf,
    map: Mmap,
    /// The checked bytes: blocks of `2^block_bits` from `covered.start`,
    /// the last one possibly shorter.
    covered: Range<usize>,
    block_bits: u32,
    /// Where the blocks' checksums are, one after the other.
    sums_at: usize,
    /// One bit per block: checked and found intact.
    checked: Box<[AtomicU64]>,
    /// Every block checked (by [`CheckedMap::check_all`]).
    all_checked: AtomicBool,
}

impl CheckedMap {
    /// Maps `path` whole. `scattered` tells the system that reads will be a
    /// few scattered bytes (probes): each page fault then reads its page, not
    /// the megabytes of read-ahead around it.
    ///
    /// # Errors
    /// An unreadable file.
    pub fn map(path: &Path, scattered: bool) -> Result<(Mmap, u64), FileError> {
        let file = File::open(path).map_err(FileError::read(path))?;
        let len = file.metadata().map_err(FileError::read(path))?.len();
        // SAFETY: database and index files are written once under a
        // temporary name and renamed into place; the program never modifies a
        // finished file, and assumes no other process does while it is mapped
        // (a change would show as a checksum mismatch, or as a value read
        // before its block was checked again: the README says so).
        let map = unsafe { Mmap::map(&file) }.map_err(FileError::read(path))?;
        if scattered {
            let _ = map.advise(Advice::Random);
        }
        Ok((map, len))
    }

    /// Wraps a map whose `covered` bytes are checked per block against the
    /// checksums at `sums_at`; the caller has checked that these ranges lie
    /// in the map.
    pub fn new(
        path: &Path,
        map: Mmap,
        covered: Range<usize>,
        block_bits: u32,
        sums_at: usize,
    ) -> CheckedMap {
        let blocks = (covered.end - covered.start).div_ceil(1 << block_bits);
        debug_assert!(covered.end <= map.len());
        debug_assert!(sums_at + blocks * BLOCK_CHECKSUM_LEN <= map.len());
        CheckedMap {
            path: path.to_path_buf(),
            map,
            covered,
            block_bits,
            sums_at,
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            all_checked: AtomicBool::new(false),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file, unchecked.
    pub fn raw(&self) -> &[u8] {
        &self.map
    }

    /// Number of checksummed blocks.
    pub fn blocks(&self) -> usize {
        (self.covered.end - self.covered.start).div_ceil(1 << self.block_bits)
    }

    fn block_range(&self, block: usize) -> Range<usize> {
        let start = self.covered.start + (block << self.block_bits);
        start..(start + (1 << self.block_bits)).min(self.covered.end)
    }

    fn stored_sum(&self, block: usize) -> u64 {
        u64_le(&self.map, self.sums_at + block * BLOCK_CHECKSUM_LEN).unwrap_or(0)
    }

    /// Whether the block holding `map[at]` has been checked.
    pub fn is_checked(&self, at: usize) -> bool {
        if !self.covered.contains(&at) {
            return false;
        }
        let block = (at - self.covered.start) >> self.block_bits;
        self.checked[block / 64].load(Ordering::Relaxed) >> (block % 64) & 1 == 1
    }

    /// Checks the blocks holding `map[at..at + len]`, once each; a range
    /// outside the covered bytes is corruption (an offset read from the file).
    #[inline]
    pub fn check(&self, at: usize, len: usize) -> Result<(), FileError> {
        let end = at.checked_add(len.max(1));
        if at < self.covered.start || end.is_none_or(|end| end > self.covered.end) {
            return Err(FileError::corrupted(
                &self.path,
                format!("an offset ({at}) points outside the file's checked bytes"),
            ));
        }
        let first = (at - self.covered.start) >> self.block_bits;
        let last = (at + len.max(1) - 1 - self.covered.start) >> self.block_bits;
        for block in first..=last {
            let (word, bit) = (block / 64, 1u64 << (block % 64));
            if self.checked[word].load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            self.check_block(block)?;
            self.checked[word].fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }

    #[cold]
    fn check_block(&self, block: usize) -> Result<(), FileError> {
        let range = self.block_range(block);
        let sum_at = self.sums_at + block * BLOCK_CHECKSUM_LEN;
        // The block's pages and its checksum's are read together, not one
        // after the other, when reads are scattered.
        self.will_need(range.clone());
        self.will_need(sum_at..sum_at + BLOCK_CHECKSUM_LEN);
        if xxhash_rust::xxh3::xxh3_64(&self.map[range]) != self.stored_sum(block) {
            return Err(FileError::corrupted(
                &self.path,
                format!("block {block} fails its checksum"),
            ));
        }
        Ok(())
    }

    /// Checks every block not checked yet, in parallel (for `verify`, and
    /// before [`CheckedMap::checked_bytes`]).
    ///
    /// # Errors
    /// A block that fails.
    pub fn check_all(&self) -> Result<(), FileError> {
        if self.all_checked.load(Ordering::Acquire) {
            return Ok(());
        }
        (0..self.blocks()).into_par_iter().try_for_each(|block| {
            let (word, bit) = (block / 64, 1u64 << (block % 64));
            if self.checked[word].load(Ordering::Relaxed) & bit == 0 {
                self.check_block(block)?;
                self.checked[word].fetch_or(bit, Ordering::Relaxed);
            }
            Ok(())
        })?;
        self.all_checked.store(true, Ordering::Release);
        Ok(())
    }

    /// The covered bytes, once [`CheckedMap::check_all`] has passed: then
    /// read without a check each.
    pub fn checked_bytes(&self) -> Option<&[u8]> {
        self.all_checked
            .load(Ordering::Acquire)
            .then(|| &self.map[self.covered.clone()])
    }

    /// A checked little-endian `u32`.
    pub fn u32_at(&self, at: usize) -> Result<u32, FileError> {
        self.check(at, 4)?;
        Ok(u32_le(&self.map, at).expect("checked bytes lie in the map"))
    }

    /// A checked little-endian `u64`.
    pub fn u64_at(&self, at: usize) -> Result<u64, FileError> {
        self.check(at, 8)?;
        Ok(u64_le(&self.map, at).expect("checked bytes lie in the map"))
    }

    /// A checked byte: one load of the block's bit once it is checked.
    #[inline]
    pub fn byte_at(&self, at: usize) -> Result<u8, FileError> {
        if self.covered.contains(&at) && self.is_checked(at) {
            return Ok(self.map[at]);
        }
        self.check(at, 1)?;
        Ok(self.map[at])
    }

    /// Asks the system to read `range` soon (clipped to the file). Advice only.
    pub fn will_need(&self, range: Range<usize>) {
        let end = range.end.min(self.map.len());
        if range.start < end {
            let _ = self
                .map
                .advise_range(Advice::WillNeed, range.start, end - range.start);
        }
    }
}

/// Asks the system to start reading `ranges` (offset, length) of the file
/// at `path`, so that reads the program will need one after the other go to
/// the disk together. Only advice: errors are ignored.
pub fn read_ahead(path: &Path, ranges: &[(u64, u64)]) {
    let Ok(file) = File::open(path) else { return };
    // SAFETY: the map is only advised, never read.
    let Ok(map) = (unsafe { Mmap::map(&file) }) else {
        return;
    };
    for &(offset, len) in ranges {
        let end = (offset.saturating_add(len)).min(map.len() as u64);
        if offset < end {
            let _ = map.advise_range(Advice::WillNeed, offset as usize, (end - offset) as usize);
        }
    }
}
