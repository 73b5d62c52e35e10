//! A sector index stored beside the database files and mapped for probing.
//! Building an index takes tens of milliseconds on the big sectors; a probe of
//! a sector whose index is stored reads a few pages of it instead. The solver
//! writes one file per board-count pair (`index-8-7.idx`), little-endian:
//!
//! ```text
//! offset size  field
//!      0    8  magic "MORRISIX"
//!      8    4  version (1)
//!     12    1  men of the side to move on the board
//!     13    1  men of the other side on the board
//!     14    2  zero
//!     16    8  variant fingerprint
//!     24    8  classes C of the side to move's men
//!     32    8  index size
//!     40    8  rank blocks B
//!     48    8  xxh3-64 of everything after the header
//!     56    8  zero
//!     64   4C  each class's representative (a point set), ascending
//!  64+4C 8C+8  each class's first index, then the index size
//!     ..   4C  each class's first rank block; u32::MAX for a class without symmetry
//!     ..  16B  rank blocks of the symmetric classes: 64 bits of "this rank is
//!              canonical", then the number of canonical ranks before them
//! ```

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::indexer::{SectorIndex, colex_rank};
use crate::db::FormatError;
use crate::rules::{Bitboard, Symmetry, Variant};

const MAGIC: &[u8; 8] = b"MORRISIX";
const VERSION: u32 = 1;
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
    if path.is_file() {
        return Ok(());
    }
    let mut body = Vec::new();
    index.write_tables(&mut body)?;
    let (classes, blocks) = index.table_counts();
    let mut header = [0u8; HEADER_LEN];
    header[0..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    header[12] = us as u8;
    header[13] = them as u8;
    header[16..24].copy_from_slice(&variant.fingerprint().to_le_bytes());
    header[24..32].copy_from_slice(&classes.to_le_bytes());
    header[32..40].copy_from_slice(&index.size().to_le_bytes());
    header[40..48].copy_from_slice(&blocks.to_le_bytes());
    header[48..56].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
    let temp = path.with_extension("idx.tmp");
    let mut out = BufWriter::new(File::create(&temp)?);
    out.write_all(&header)?;
    out.write_all(&body)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, &path)
}

/// A stored index, mapped and checked.
pub struct StoredIndex {
    map: Mmap,
    symmetries: &'static [Symmetry],
    all: Bitboard,
    classes: usize,
    size: u64,
    blocks: usize,
}

impl StoredIndex {
    /// Maps the stored index of `us` and `them` men in `dir`; `None` when
    /// there is none.
    ///
    /// # Errors
    /// An unreadable file, or one that fails its checks (magic, counts,
    /// variant, length, checksum).
    pub fn open(
        dir: &Path,
        variant: &'static Variant,
        us: u8,
        them: u8,
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
        if map.len() < HEADER_LEN || &map[0..8] != MAGIC {
            return Err(bad(FormatError::Magic));
        }
        let u64_at = |o: usize| u64::from_le_bytes(map[o..o + 8].try_into().unwrap());
        let version = u32::from_le_bytes(map[8..12].try_into().unwrap());
        if version != VERSION {
            return Err(bad(FormatError::Version(version)));
        }
        if map[12] != us || map[13] != them || u64_at(16) != variant.fingerprint() {
            return Err(bad(FormatError::Header("index file of other men or rules")));
        }
        let (classes, size, blocks) = (u64_at(24), u64_at(32), u64_at(40));
        let expected = classes
            .checked_mul(16)
            .and_then(|c| c.checked_add(8))
            .and_then(|c| c.checked_add(blocks.checked_mul(16)?))
            .and_then(|c| c.checked_add(HEADER_LEN as u64));
        if expected != Some(map.len() as u64) {
            return Err(bad(FormatError::Length {
                found: map.len() as u64,
                expected: expected.unwrap_or(u64::MAX),
            }));
        }
        if xxhash_rust::xxh3::xxh3_64(&map[HEADER_LEN..]) != u64_at(48) {
            return Err(bad(FormatError::Checksum));
        }
        Ok(Some(StoredIndex {
            map,
            symmetries: variant.board.symmetries(),
            all: variant.board.all(),
            classes: classes as usize,
            size,
            blocks: blocks as usize,
        }))
    }

    /// Number of indices.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn u32_at(&self, offset: usize) -> u32 {
        u32::from_le_bytes(self.map[offset..offset + 4].try_into().unwrap())
    }

    fn u64_at(&self, offset: usize) -> u64 {
        u64::from_le_bytes(self.map[offset..offset + 8].try_into().unwrap())
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
        let reps = HEADER_LEN;
        let (mut lo, mut hi) = (0, self.classes);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.u32_at(reps + 4 * mid) < rep.0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let class = lo;
        if class == self.classes || self.u32_at(reps + 4 * class) != rep.0 {
            return Err(damaged);
        }
        let offsets = reps + 4 * self.classes;
        let firsts = offsets + 8 * (self.classes + 1);
        let blocks = firsts + 4 * self.classes;
        let offset = self.u64_at(offsets + 8 * class);
        let free = self.all & !rep;
        let them = self.symmetries[sym].apply(them);
        let first = self.u32_at(firsts + 4 * class);
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
            let bits = self.u64_at(blocks + 16 * block);
            let before = self.u64_at(blocks + 16 * block + 8);
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
