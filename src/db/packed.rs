//! Packed sector files (format version 3): the value bytes of a raw file
//! (encoding 1) in blocks of 2^14 values, each compressed with zstd, so a
//! probe decodes one block of 16 KiB, not a whole file. A win/draw/loss-only
//! file (encoding 5) packs two-bit codes instead, four to a byte, so a block
//! decodes to 4 KiB.
//!
//! ```text
//! offset   size    field
//!      0    128    the header of format.rs, version 3, encoding 2; bytes
//!                  112..120 hold the compressed bytes D; its own checksum
//!                  covers every header byte but itself
//!    128  8(B+1)   where each block starts in the compressed bytes, and D last
//!     ..    8B     per block, xxh3-64 (seeded with the block's number and
//!                  offsets) of its compressed bytes
//!     ..    12E    overflow entries, as in a raw file
//!     ..     D     the compressed blocks
//! ```
//!
//! The header's body checksum (offset 48) covers the offsets, the block
//! checksums and the overflow entries; each block is checked against its
//! checksum, then decoded to exactly its length, the first time it is read.
//! A few decoded blocks per file are kept (a direct-mapped cache).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rayon::prelude::*;

use super::error::FileError;
use super::file::{SectorFile, file_name, write_atomically};
use super::format::{HEADER_LEN, Header, OVERFLOW_ENTRY_LEN};
use super::mapped::u64_le;
use super::value::{Value, Wdl};

/// Values per compressed block, as a power of two: a random probe decodes
/// one (about 8 µs here); 4 KiB blocks took 12% more space.
pub const PACKED_BLOCK_BITS: u32 = 14;
/// zstd's level when packing: most of the size of its slow levels, at tens
/// of megabytes per second per core.
const LEVEL: i32 = 12;
/// Decoded blocks kept per file.
const CACHED_BLOCKS: usize = 16;

thread_local! {
    /// One zstd decoder per thread: making one costs more than decoding a block.
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
    /// One zstd encoder per thread, for the same reason.
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(LEVEL).ok());
}

/// What a packed file keeps of the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// Every value with its distance (or, under the move-count rule, its
    /// plies to the next mill).
    Full,
    /// Win, draw or loss only: no distances, a fraction of the size.
    WdlOnly,
}

/// Values per byte of a win/draw/loss-only block.
const CODES_PER_BYTE: usize = 4;

/// Writes the packed copy of a raw sector file into `dir`; returns its path.
///
/// # Errors
/// A damaged raw file, one under the move-count rule packed win/draw/loss
/// only (its values need their plies), or one that cannot be written.
pub fn write_packed(dir: &Path, raw: &SectorFile, packing: Packing) -> Result<PathBuf, FileError> {
    let bytes = raw.bytes().ok_or_else(|| {
        FileError::corrupted(raw.path(), "it is packed already; packing reads raw files")
    })?;
    let wdl_only = packing == Packing::WdlOnly;
    if wdl_only && raw.header.mill_clock {
        return Err(FileError::corrupted(
            raw.path(),
            "its values are under the move-count rule, which needs their plies to the next mill: pack it in full",
        ));
    }
    raw.verify_checksum()?;
    let mut header = raw.header.clone();
    header.block_bits = PACKED_BLOCK_BITS;
    header.wdl_only = wdl_only;
    let block_len = 1usize << PACKED_BLOCK_BITS;
    let blocks: Vec<Vec<u8>> = bytes
        .par_chunks(block_len)
        .enumerate()
        .map(|(i, block)| {
            let codes;
            let block = if wdl_only {
                codes = wdl_codes(raw, (i * block_len) as u64, block)?;
                &codes[..]
            } else {
                block
            };
            COMPRESSOR
                .with(|c| c.borrow_mut().as_mut().map(|c| c.compress(block)))
                .unwrap_or_else(|| zstd::bulk::compress(block, LEVEL))
                .map_err(FileError::write(raw.path()))
        })
        .collect::<Result<_, FileError>>()?;
    if wdl_only {
        // No distances, so no escaped ones.
        header.overflow_entries = 0;
        header.overflow_checksum = xxhash_rust::xxh3::xxh3_64(&[]);
    }
    let mut offsets = Vec::with_capacity(blocks.len() + 1);
    let mut at = 0u64;
    offsets.push(at);
    for b in &blocks {
        at += b.len() as u64;
        offsets.push(at);
    }
    header.packed_bytes = Some(at);
    let mut table = Vec::with_capacity(16 * blocks.len() + 8);
    for o in &offsets {
        table.extend_from_slice(&o.to_le_bytes());
    }
    for (i, b) in blocks.iter().enumerate() {
        let sum = block_checksum(i, offsets[i], offsets[i + 1], b);
        table.extend_from_slice(&sum.to_le_bytes());
    }
    if !wdl_only {
        table.extend_from_slice(raw.overflow_table());
    }
    header.checksum = xxhash_rust::xxh3::xxh3_64(&table);
    let path = dir.join(file_name(header.sector));
    write_atomically(&path, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        std::io::Write::write_all(&mut out, &header.to_bytes())?;
        std::io::Write::write_all(&mut out, &table)?;
        for b in &blocks {
            std::io::Write::write_all(&mut out, b)?;
        }
        out.into_inner().map_err(|e| e.into_error())
    })?;
    Ok(path)
}

/// The `i`-th two-bit code of packed codes.
#[inline]
fn code_at(codes: &[u8], i: usize) -> u8 {
    (codes[i / CODES_PER_BYTE] >> (2 * (i % CODES_PER_BYTE))) & 3
}

/// The two-bit codes of a block of raw value bytes whose first is at
/// `start`, four to a byte from the low bits up.
fn wdl_codes(raw: &SectorFile, start: u64, block: &[u8]) -> Result<Vec<u8>, FileError> {
    let mut codes = vec![0u8; block.len().div_ceil(CODES_PER_BYTE)];
    for (i, &byte) in block.iter().enumerate() {
        let value = match Value::from_byte(byte) {
            Some(v) => v,
            None => raw.value(start + i as u64)?,
        };
        codes[i / CODES_PER_BYTE] |= Wdl::of(value).code() << (2 * (i % CODES_PER_BYTE));
    }
    Ok(codes)
}

/// Checks that a packed file holds exactly the raw file's values (in a
/// win/draw/loss-only file, their kinds).
///
/// # Errors
/// A block that fails its check, or any value that differs.
pub fn same_values(raw: &SectorFile, packed: &SectorFile) -> Result<(), FileError> {
    let bytes = raw.bytes().unwrap_or_default();
    let wdl_only = packed.header.wdl_only;
    let mut at = 0usize;
    let mut same = packed.header.positions == raw.header.positions
        && (wdl_only || packed.overflow_table() == raw.overflow_table());
    let mut error = None;
    packed.for_each_block(|block| {
        if !same || error.is_some() {
            return;
        }
        if wdl_only {
            match wdl_codes(
                raw,
                at as u64,
                bytes.get(at..at + block.len()).unwrap_or_default(),
            ) {
                Ok(codes) => {
                    let unpacked = (0..block.len()).map(|i| code_at(&codes, i));
                    same &= codes.len() == block.len().div_ceil(CODES_PER_BYTE)
                        && unpacked.eq(block.iter().copied());
                }
                Err(e) => error = Some(e),
            }
        } else {
            same &= bytes.get(at..at + block.len()) == Some(block);
        }
        at += block.len();
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    if same && at == bytes.len() {
        Ok(())
    } else {
        Err(FileError::corrupted(
            packed.path(),
            "its values differ from the raw file's: the raw file is kept",
        ))
    }
}

/// A block's checksum: of its bytes, seeded with its number and where it
/// lies, so that a damaged offset fails it too.
fn block_checksum(block: usize, start: u64, end: u64, bytes: &[u8]) -> u64 {
    let seed = (block as u64).rotate_left(40) ^ start ^ end.rotate_left(20);
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
}

/// The body of a packed file, mapped.
pub struct PackedBody {
    path: PathBuf,
    map: Mmap,
    blocks: usize,
    positions: u64,
    /// log2 of the values per block (the header's).
    block_bits: u32,
    /// Two-bit win/draw/loss codes, four to a byte, instead of value bytes.
    wdl_only: bool,
    /// Where the compressed blocks start in the file.
    data_at: usize,
    data_len: u64,
    cache: Box<[CacheSlot]>,
}

/// One decoded block (its number and bytes), or none yet.
type CacheSlot = Mutex<Option<(usize, Arc<Vec<u8>>)>>;

impl PackedBody {
    /// The body of the packed file at `path` whose header (checked, with
    /// the file's length) is `header`.
    pub fn new(path: &Path, map: Mmap, header: &Header) -> PackedBody {
        let blocks = header.blocks() as usize;
        let data_len = header.packed_bytes.unwrap_or(0);
        PackedBody {
            path: path.to_path_buf(),
            data_at: map.len() - data_len as usize,
            map,
            blocks,
            positions: header.positions,
            block_bits: header.block_bits,
            wdl_only: header.wdl_only,
            data_len,
            cache: (0..CACHED_BLOCKS).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// The offsets, block checksums and overflow entries: what the header's
    /// body checksum covers.
    pub fn table(&self) -> &[u8] {
        &self.map[HEADER_LEN..self.data_at]
    }

    /// The overflow entries.
    pub fn overflow_table(&self, entries: u64) -> &[u8] {
        let start = self.data_at - entries as usize * OVERFLOW_ENTRY_LEN;
        &self.map[start..self.data_at]
    }

    fn corrupted(&self, what: String) -> FileError {
        FileError::corrupted(&self.path, what)
    }

    /// The values in block `block`: a whole block but for the last.
    fn values_in(&self, block: usize) -> usize {
        (1usize << self.block_bits)
            .min((self.positions - ((block as u64) << self.block_bits)) as usize)
    }

    /// Block `block`, checked and decoded (not cached).
    fn decode(&self, block: usize) -> Result<Vec<u8>, FileError> {
        let table = HEADER_LEN;
        let offset = |i: usize| u64_le(&self.map, table + 8 * i).unwrap_or(u64::MAX);
        let (start, end) = (offset(block), offset(block + 1));
        if start > end || end > self.data_len {
            return Err(self.corrupted(format!("block {block} has offsets out of range")));
        }
        let at = self.data_at + start as usize;
        let bytes = &self.map[at..at + (end - start) as usize];
        let stored = u64_le(&self.map, table + 8 * (self.blocks + 1) + 8 * block).unwrap_or(0);
        if block_checksum(block, start, end, bytes) != stored {
            return Err(self.corrupted(format!("block {block} fails its checksum")));
        }
        let values = self.values_in(block);
        let len = if self.wdl_only {
            values.div_ceil(CODES_PER_BYTE)
        } else {
            values
        };
        let decoded = DECOMPRESSOR
            .with(|d| d.borrow_mut().as_mut().map(|d| d.decompress(bytes, len)))
            .unwrap_or_else(|| zstd::bulk::decompress(bytes, len))
            .map_err(|e| self.corrupted(format!("block {block} does not decode: {e}")))?;
        if decoded.len() != len {
            return Err(self.corrupted(format!("block {block} decodes to the wrong length")));
        }
        Ok(decoded)
    }

    /// The value byte at `index` (below the positions), or in a
    /// win/draw/loss-only file its two-bit code.
    pub fn byte(&self, index: u64) -> Result<u8, FileError> {
        let block = (index >> self.block_bits) as usize;
        let within = (index & ((1 << self.block_bits) - 1)) as usize;
        let pick = |bytes: &[u8]| {
            if self.wdl_only {
                code_at(bytes, within)
            } else {
                bytes[within]
            }
        };
        let slot = &self.cache[block % CACHED_BLOCKS];
        if let Some((b, bytes)) = &*slot.lock().unwrap_or_else(|e| e.into_inner())
            && *b == block
        {
            return Ok(pick(bytes));
        }
        let bytes = Arc::new(self.decode(block)?);
        let byte = pick(&bytes);
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((block, bytes));
        Ok(byte)
    }

    /// Checks and decodes every block, keeping none.
    ///
    /// # Errors
    /// The first block that fails.
    pub fn check_all(&self) -> Result<(), FileError> {
        (0..self.blocks).try_for_each(|block| self.decode(block).map(drop))
    }

    /// Checks and decodes every block, calling `f` with each in order (a
    /// win/draw/loss-only file's unpacked to a code per byte).
    ///
    /// # Errors
    /// The first block that fails.
    pub fn for_each_block(&self, mut f: impl FnMut(&[u8])) -> Result<(), FileError> {
        for block in 0..self.blocks {
            let decoded = self.decode(block)?;
            if self.wdl_only {
                let codes: Vec<u8> = (0..self.values_in(block))
                    .map(|i| code_at(&decoded, i))
                    .collect();
                f(&codes);
            } else {
                f(&decoded);
            }
        }
        Ok(())
    }
}
