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

use std::io::{BufWriter, Read, Write};
use std::path::Path;

use super::mapped::{BLOCK_CHECKSUM_LEN, CheckedMap, u32_le, u64_le};
use super::sector_file::write_atomically;
use crate::db::error::{FileError, FileKind};
use crate::index::{SectorIndex, SectorKey, colex_rank};
use crate::rules::{Bitboard, Symmetry, Variant};

const MAGIC: &[u8; 8] = b"MORRISIX";
const VERSION: u32 = 2;
/// Bytes per checked block: a page, so that a cold probe reads nothing more.
const BLOCK_BITS: u32 = 12;
/// Guide entries at most: with the header they fill less than a page.
const GUIDE: usize = 512;
const HEADER_LEN: usize = 64;

/// File name of the stored index of `us` and `them` men on the board.
pub fn index_file_name(us: u8, them: u8) -> String {
    format!("index-{us}-{them}.idx")
}

/// Copies the stored index file that `sector` reads from folder `from` into
/// folder `to`, unless `to` has it or `from` has none (a folder reads fine
/// without: the index is then built in memory). Atomic: a copy cut short
/// leaves only a temporary file, which the next run removes.
///
/// # Errors
/// The file cannot be read or written.
pub fn copy_stored_index(from: &Path, to: &Path, sector: SectorKey) -> Result<(), FileError> {
    let name = index_file_name(sector.us_board, sector.them_board);
    let (source, target) = (from.join(&name), to.join(&name));
    if !source.exists() || target.exists() {
        return Ok(());
    }
    write_atomically(&target, |mut file| {
        std::io::copy(&mut std::fs::File::open(&source)?, &mut file)?;
        Ok(file)
    })
}

/// The tables of `index` as the file holds them after its header: a guide of
/// `guide` representatives (that of class `i * C / guide` for each `i`),
/// every class's representative, then per class its first index and first
/// rank block (`u32::MAX` for a class without symmetry) in 16 bytes, then
/// every symmetric class's rank blocks (bits, then count before).
/// Returns the number of rank blocks.
fn write_tables(index: &SectorIndex, out: &mut impl Write, guide: usize) -> std::io::Result<u64> {
    let reps = index.representatives();
    for i in 0..guide {
        out.write_all(&reps[i * reps.len() / guide].0.to_le_bytes())?;
    }
    for rep in reps {
        out.write_all(&rep.0.to_le_bytes())?;
    }
    let mut first = 0u32;
    let mut rank_blocks = Vec::new();
    for (offset, blocks) in index.class_tables() {
        let start = match blocks {
            Some(blocks) => {
                let start = first;
                first += blocks.len() as u32;
                rank_blocks.extend(blocks);
                start
            }
            None => u32::MAX,
        };
        out.write_all(&offset.to_le_bytes())?;
        out.write_all(&start.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
    }
    for (bits, before) in &rank_blocks {
        out.write_all(&bits.to_le_bytes())?;
        out.write_all(&before.to_le_bytes())?;
    }
    Ok(rank_blocks.len() as u64)
}

/// Writes the stored form of `index` into `dir` (under a temporary name,
/// then renamed), unless a current one is there already.
///
/// # Errors
/// Any I/O error, with the file's name.
pub fn write_stored_index(
    dir: &Path,
    variant: &Variant,
    index: &SectorIndex,
) -> Result<(), FileError> {
    let (us, them) = index.counts();
    let path = dir.join(index_file_name(us as u8, them as u8));
    if is_current_index(&path) {
        return Ok(());
    }
    let classes = index.representatives().len() as u64;
    let guide = GUIDE.min(classes as usize);
    let mut body = Vec::new();
    let blocks = write_tables(index, &mut body, guide).map_err(FileError::write(&path))?;
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
    write_atomically(&path, |file| {
        let mut out = BufWriter::new(file);
        out.write_all(&file_bytes)?;
        out.write_all(&sums)?;
        out.into_inner().map_err(|e| e.into_error())
    })
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
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head[0..8] == MAGIC && head[8..12] == VERSION.to_le_bytes())
}

/// A stored index, mapped; each block is checked when first read.
pub struct StoredIndex {
    map: CheckedMap,
    symmetries: &'static [Symmetry],
    all: Bitboard,
    classes: usize,
    guide: usize,
    /// Reads are scattered (see [`StoredIndex::open`]).
    scattered: bool,
    size: u64,
    blocks: usize,
}

impl StoredIndex {
    /// Maps the stored index of `us` and `them` men in `dir`; `None` when
    /// there is none, or one of an older version. `scattered` tells the
    /// system that reads will be scattered (probes): each page fault then
    /// reads its page, not megabytes around it.
    ///
    /// # Errors
    /// An unreadable file, or one that fails its checks (magic, counts,
    /// variant, length, reserved bytes, the header's checksum).
    pub fn open(
        dir: &Path,
        variant: &'static Variant,
        us: u8,
        them: u8,
        scattered: bool,
    ) -> Result<Option<StoredIndex>, FileError> {
        let path = dir.join(index_file_name(us, them));
        if !path.exists() {
            return Ok(None);
        }
        let (map, _) = CheckedMap::map(&path, scattered)?;
        let corrupted = |what: &str| FileError::corrupted(&path, what);
        if map.len() >= 8 && &map[0..8] != MAGIC {
            return Err(FileError::Magic {
                path: path.clone(),
                kind: FileKind::Index,
            });
        }
        if map.len() < HEADER_LEN {
            return Err(FileError::Truncated {
                path,
                found: map.len() as u64,
                expected: HEADER_LEN as u64,
            });
        }
        let u64_at = |o: usize| u64_le(&map, o).expect("inside the header");
        let u32_at = |o: usize| u32_le(&map, o).expect("inside the header");
        let version = u32_at(8);
        if version < VERSION {
            return Ok(None);
        }
        if version != VERSION {
            return Err(FileError::Version {
                path,
                kind: FileKind::Index,
                found: version,
                supported: &[VERSION],
            });
        }
        if map[12] != us || map[13] != them || u64_at(16) != variant.fingerprint() {
            return Err(corrupted("its header names other men or rules"));
        }
        if map[14..16].iter().chain(&map[56..64]).any(|&b| b != 0) {
            return Err(corrupted("its header has reserved bytes that are not zero"));
        }
        if u32_at(48) != BLOCK_BITS {
            return Err(corrupted(
                "its header gives an unexpected checksum block size",
            ));
        }
        let (classes, size, blocks) = (u64_at(24), u64_at(32), u64_at(40));
        let guide = u32_at(52) as u64;
        if guide != (GUIDE as u64).min(classes) {
            return Err(corrupted("its header gives an unexpected guide length"));
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
            return Err(FileError::Truncated {
                path,
                found: map.len() as u64,
                expected: expected.unwrap_or(u64::MAX),
            });
        }
        let sums_at = checked_len.unwrap_or(0) as usize;
        let index = StoredIndex {
            map: CheckedMap::new(&path, map, 0..sums_at, BLOCK_BITS, sums_at),
            symmetries: variant.board.symmetries(),
            all: variant.board.all(),
            classes: classes as usize,
            guide: guide as usize,
            scattered,
            size,
            blocks: blocks as usize,
        };
        // The header's fields were read before its block was checked.
        index.map.check(0, HEADER_LEN)?;
        Ok(Some(index))
    }

    /// Checks every block (for `verify`).
    ///
    /// # Errors
    /// The first block that fails its checksum.
    pub fn verify_checksum(&self) -> Result<(), FileError> {
        self.map.check_all()
    }

    /// Number of indices.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn u32_at(&self, offset: usize) -> Result<u32, FileError> {
        self.map.u32_at(offset)
    }

    fn u64_at(&self, offset: usize) -> Result<u64, FileError> {
        self.map.u64_at(offset)
    }

    /// The index of the position where the side to move has `us` and the
    /// other side `them`, as [`SectorIndex::index`] gives it.
    ///
    /// # Errors
    /// When the tables do not hold the position (a damaged file).
    pub fn index(&self, us: Bitboard, them: Bitboard) -> Result<u64, FileError> {
        let damaged =
            || FileError::corrupted(self.map.path(), "its tables do not hold the position");
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
        if self.scattered && lo < self.classes && !self.map.is_checked(reps + 4 * lo) {
            // A cold read: the representatives and entries the search may
            // need, fetched together rather than one after the other.
            self.map.will_need(reps + 4 * lo..reps + 4 * hi);
            self.map.will_need(entries + 16 * lo..entries + 16 * hi);
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
            return Err(damaged());
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
                return Err(damaged());
            }
            let bits = self.u64_at(blocks + 16 * block)?;
            let before = self.u64_at(blocks + 16 * block + 8)?;
            if bits >> (rank % 64) & 1 == 0 {
                return Err(damaged());
            }
            offset + before + (bits & ((1u64 << (rank % 64)) - 1)).count_ones() as u64
        };
        if index >= self.size {
            return Err(damaged());
        }
        Ok(index)
    }
}
