//! A sector index stored beside the database files and mapped for probing.
//! Building an index takes tens of milliseconds on the big sectors; a probe of
//! a sector whose index is stored reads a few pages of it instead. The solver
//! writes one file per board-count pair (`index-8-7.idx`), little-endian:
//!
//! ```text
//! offset size  field
//!      0    8  magic "MORRISIX"
//!      8    4  version (2)
//!     12    1  men of the side to move on the board
//!     13    1  men of the other side on the board
//!     14    2  zero
//!     16    8  variant fingerprint
//!     24    8  classes C of the side to move's men
//!     32    8  index size
//!     40    8  rank blocks B
//!     48    4  checksum block bits K (12: 4 KiB blocks)
//!     52    4  guide entries G (up to 512; 0 when C is 0)
//!     56    8  zero
//!     64   4G  guide: the representative of class i * C / G, for each i
//!  64+4G   4C  each class's representative (a point set), ascending
//!     ..  16C  per class: its first index (8), its first rank block (4;
//!              u32::MAX for a class without symmetry), zero (4)
//!     ..  16B  rank blocks of the symmetric classes: 64 bits of "this rank is
//!              canonical", then the number of canonical ranks before them
//!     ..   8N  xxh3-64 of each 2^K-byte block of the file before this table
//!              (the header included), in order
//! ```
//!
//! A probe checks each block the first time it reads from it, so a cold
//! probe reads a few pages of the file, not all of it: the header's page with
//! the guide, one page of representatives, one of class entries. Version 1 files (one
//! checksum of the whole file) are ignored: the index is built in memory, and
//! the next `solve` over the folder writes version 2.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;

use super::indexer::{SectorIndex, colex_rank};
use crate::db::FormatError;
use crate::rules::{Bitboard, Symmetry, Variant};

const MAGIC: &[u8; 8] = b"MORRISIX";
const VERSION: u32 = 2;
/// Bytes per checked block: a page, so that a cold probe reads nothing more.
const BLOCK_BITS: u32 = 12;
const BLOCK_CHECKSUM_LEN: usize = 8;
/// Guide entries at most: with the header they fill less than a page.
const GUIDE: usize = 512;
const HEADER_LEN: usize = 64;

/// File name of the stored index of `us` and `them` men on the board.
pub fn index_file_name(us: u8, them: u8) -> String {
    format!("index-{us}-{them}.idx")
}

/// Writes the stored form of `index` into `dir` (under a temporary name,
/// then renamed), unless it is there already.
///
/// # Errors
/// Any I/O error.
pub fn write_stored_index(
    dir: &Path,
    variant: &Variant,
    index: &SectorIndex,
) -> std::io::Result<()> {
    let (us, them) = index.counts();
    let path = dir.join(index_file_name(us as u8, them as u8));
    if is_current_index(&path) {
        return Ok(());
    }
    let (classes, blocks) = index.table_counts();
    let guide = GUIDE.min(classes as usize);
    let mut body = Vec::new();
    index.write_tables(&mut body, guide)?;
    let mut header = [0u8; HEADER_LEN];
    header[0..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    header[12] = us as u8;
    header[13] = them as u8;
    header[16..24].copy_from_slice(&variant.fingerprint().to_le_bytes());
    header[24..32].copy_from_slice(&classes.to_le_bytes());
    header[32..40].copy_from_slice(&index.size().to_le_bytes());
    header[40..48].copy_from_slice(&blocks.to_le_bytes());
    header[48..52].copy_from_slice(&BLOCK_BITS.to_le_bytes());
    header[52..56].copy_from_slice(&(guide as u32).to_le_bytes());
    let mut file_bytes = header.to_vec();
    file_bytes.append(&mut body);
    let sums: Vec<u8> = file_bytes
        .chunks(1 << BLOCK_BITS)
        .flat_map(|block| xxhash_rust::xxh3::xxh3_64(block).to_le_bytes())
        .collect();
    let temp = path.with_extension("idx.tmp");
    let mut out = BufWriter::new(File::create(&temp)?);
    out.write_all(&file_bytes)?;
    out.write_all(&sums)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, &path)
}

/// Where the first block checksum of a stored index file of `file_len`
/// bytes is (0 when no block count fits that length).
pub fn first_checksum_at(file_len: u64) -> u64 {
    let per_block = (1u64 << BLOCK_BITS) + BLOCK_CHECKSUM_LEN as u64;
    let guess = file_len / per_block;
    (guess.saturating_sub(1)..=guess + 1)
        .find(|&k| {
            file_len >= k * BLOCK_CHECKSUM_LEN as u64
                && (file_len - k * BLOCK_CHECKSUM_LEN as u64).div_ceil(1 << BLOCK_BITS) == k
        })
        .map_or(0, |k| file_len - k * BLOCK_CHECKSUM_LEN as u64)
}

/// Whether `path` holds a stored index of the current version.
pub fn is_current_index(path: &Path) -> bool {
    let mut head = [0u8; 12];
    File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head[0..8] == MAGIC && head[8..12] == VERSION.to_le_bytes())
}

/// A stored index, mapped; each block is checked when first read.
pub struct StoredIndex {
    map: Mmap,
    /// One bit per block: checked and found intact.
    checked: Box<[AtomicU64]>,
    /// Where the block checksums start: the checked bytes end there.
    sums_at: usize,
    symmetries: &'static [Symmetry],
    all: Bitboard,
    classes: usize,
    guide: usize,
    /// Reads are scattered (see [`StoredIndex::open_with`]).
    scattered: bool,
    size: u64,
    blocks: usize,
}

impl StoredIndex {
    /// Maps the stored index of `us` and `them` men in `dir`; `None` when
    /// there is none, or one of an older version.
    ///
    /// # Errors
    /// An unreadable file, or one that fails its checks (magic, counts,
    /// variant, length, the header's checksum).
    pub fn open(
        dir: &Path,
        variant: &'static Variant,
        us: u8,
        them: u8,
    ) -> Result<Option<StoredIndex>, (PathBuf, FormatError)> {
        StoredIndex::open_with(dir, variant, us, them, false)
    }

    /// [`StoredIndex::open`], telling the system when reads will be scattered
    /// (probes): each page fault then reads its page, not megabytes around it.
    ///
    /// # Errors
    /// As [`StoredIndex::open`].
    pub fn open_with(
        dir: &Path,
        variant: &'static Variant,
        us: u8,
        them: u8,
        scattered: bool,
    ) -> Result<Option<StoredIndex>, (PathBuf, FormatError)> {
        let path = dir.join(index_file_name(us, them));
        let Ok(file) = File::open(&path) else {
            return Ok(None);
        };
        let bad = |e| (path.clone(), e);
        // SAFETY: index files are written once under a temporary name and
        // renamed into place; nothing modifies a finished one.
        let map =
            unsafe { Mmap::map(&file) }.map_err(|_| bad(FormatError::Header("cannot map")))?;
        if scattered {
            let _ = map.advise(memmap2::Advice::Random);
        }
        if map.len() < HEADER_LEN || &map[0..8] != MAGIC {
            return Err(bad(FormatError::Magic));
        }
        let u64_at = |o: usize| u64::from_le_bytes(map[o..o + 8].try_into().unwrap());
        let version = u32::from_le_bytes(map[8..12].try_into().unwrap());
        if version < VERSION {
            return Ok(None);
        }
        if version != VERSION {
            return Err(bad(FormatError::Version(version)));
        }
        if map[12] != us || map[13] != them || u64_at(16) != variant.fingerprint() {
            return Err(bad(FormatError::Header("index file of other men or rules")));
        }
        if u32::from_le_bytes(map[48..52].try_into().unwrap()) != BLOCK_BITS {
            return Err(bad(FormatError::Header("unexpected checksum block size")));
        }
        let (classes, size, blocks) = (u64_at(24), u64_at(32), u64_at(40));
        let guide = u32::from_le_bytes(map[52..56].try_into().unwrap()) as u64;
        if guide != (GUIDE as u64).min(classes) {
            return Err(bad(FormatError::Header("unexpected guide length")));
        }
        let checked_len = classes
            .checked_mul(20)
            .and_then(|c| c.checked_add(4 * guide))
            .and_then(|c| c.checked_add(blocks.checked_mul(16)?))
            .and_then(|c| c.checked_add(HEADER_LEN as u64));
        let expected = checked_len.and_then(|n| {
            n.div_ceil(1 << BLOCK_BITS)
                .checked_mul(BLOCK_CHECKSUM_LEN as u64)?
                .checked_add(n)
        });
        if expected != Some(map.len() as u64) {
            return Err(bad(FormatError::Length {
                found: map.len() as u64,
                expected: expected.unwrap_or(u64::MAX),
            }));
        }
        let sums_at = checked_len.unwrap_or(0) as usize;
        let index = StoredIndex {
            checked: (0..(sums_at >> BLOCK_BITS).div_ceil(64) + 1)
                .map(|_| AtomicU64::new(0))
                .collect(),
            map,
            sums_at,
            symmetries: variant.board.symmetries(),
            all: variant.board.all(),
            classes: classes as usize,
            guide: guide as usize,
            scattered,
            size,
            blocks: blocks as usize,
        };
        // The header's fields were read before its block was checked.
        index.check(0, HEADER_LEN).map_err(bad)?;
        Ok(Some(index))
    }

    /// Whether the block holding `map[at]` has been checked.
    fn is_checked(&self, at: usize) -> bool {
        let block = at >> BLOCK_BITS;
        self.checked[block / 64].load(Ordering::Relaxed) & 1 << (block % 64) != 0
    }

    /// Checks the blocks holding `map[at..at + len]` (once each).
    #[inline]
    fn check(&self, at: usize, len: usize) -> Result<(), FormatError> {
        for block in at >> BLOCK_BITS..=(at + len - 1) >> BLOCK_BITS {
            let (word, bit) = (block / 64, 1u64 << (block % 64));
            if self.checked[word].load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            let start = block << BLOCK_BITS;
            let end = (start + (1 << BLOCK_BITS)).min(self.sums_at);
            let sum_at = self.sums_at + block * BLOCK_CHECKSUM_LEN;
            let stored = u64::from_le_bytes(
                self.map[sum_at..sum_at + BLOCK_CHECKSUM_LEN]
                    .try_into()
                    .unwrap(),
            );
            if xxhash_rust::xxh3::xxh3_64(&self.map[start..end]) != stored {
                return Err(FormatError::Checksum);
            }
            self.checked[word].fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Number of indices.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn u32_at(&self, offset: usize) -> Result<u32, FormatError> {
        self.check(offset, 4)?;
        Ok(u32::from_le_bytes(
            self.map[offset..offset + 4].try_into().unwrap(),
        ))
    }

    fn u64_at(&self, offset: usize) -> Result<u64, FormatError> {
        self.check(offset, 8)?;
        Ok(u64::from_le_bytes(
            self.map[offset..offset + 8].try_into().unwrap(),
        ))
    }

    /// The index of the position where the side to move has `us` and the
    /// other side `them`, as [`SectorIndex::index`] gives it.
    ///
    /// # Errors
    /// When the tables do not hold the position (a damaged file).
    pub fn index(&self, us: Bitboard, them: Bitboard) -> Result<u64, FormatError> {
        let damaged = FormatError::Header("the stored index does not hold this position");
        // The class: the least image of `us`, found among the representatives.
        let (mut rep, mut sym) = (us, 0);
        for (i, s) in self.symmetries.iter().enumerate().skip(1) {
            let image = s.apply(us);
            if image.0 < rep.0 {
                (rep, sym) = (image, i);
            }
        }
        // The guide (in the header's page) narrows the search to a few
        // hundred bytes of representatives.
        let guide = HEADER_LEN;
        let reps = guide + 4 * self.guide;
        let (mut lo, mut hi) = (0, self.guide);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.u32_at(guide + 4 * mid)? <= rep.0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let (mut lo, mut hi) = match lo {
            0 => (0, 0),
            g => (
                (g - 1) * self.classes / self.guide,
                (g * self.classes / self.guide).min(self.classes),
            ),
        };
        if lo < self.classes && hi == lo {
            hi = lo + 1;
        }
        let entries = reps + 4 * self.classes;
        if self.scattered && !self.is_checked(reps + 4 * lo) {
            // A cold read: the representatives and entries the search may
            // need, fetched together rather than one after the other.
            for (at, len) in [
                (reps + 4 * lo, 4 * (hi - lo)),
                (entries + 16 * lo, 16 * (hi - lo)),
            ] {
                let _ = self.map.advise_range(memmap2::Advice::WillNeed, at, len);
            }
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.u32_at(reps + 4 * mid)? < rep.0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let class = lo;
        if class == self.classes || self.u32_at(reps + 4 * class)? != rep.0 {
            return Err(damaged);
        }
        let blocks = entries + 16 * self.classes;
        let offset = self.u64_at(entries + 16 * class)?;
        let free = self.all & !rep;
        let them = self.symmetries[sym].apply(them);
        let first = self.u32_at(entries + 16 * class + 8)?;
        let index = if first == u32::MAX {
            offset + colex_rank(them, free)
        } else {
            // The least image under the symmetries that fix the representative.
            let least = self
                .symmetries
                .iter()
                .filter(|s| s.apply(rep) == rep)
                .map(|s| s.apply(them))
                .min_by_key(|image| image.0)
                .unwrap_or(them);
            let rank = colex_rank(least, free);
            let block = first as usize + (rank / 64) as usize;
            if block >= self.blocks {
                return Err(damaged);
            }
            let bits = self.u64_at(blocks + 16 * block)?;
            let before = self.u64_at(blocks + 16 * block + 8)?;
            if bits >> (rank % 64) & 1 == 0 {
                return Err(damaged);
            }
            offset + before + (bits & ((1u64 << (rank % 64)) - 1)).count_ones() as u64
        };
        if index >= self.size {
            return Err(damaged);
        }
        Ok(index)
    }
}
