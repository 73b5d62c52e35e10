//! Packed sector files (format version 3, `pack --zstd`): a sector's values
//! in blocks that decode to 16 KiB (or, `pack --block-bytes`, as little as
//! 256 bytes), each compressed with zstd, so a probe decodes one
//! block, not a whole file. What a block holds depends on the value
//! encoding:
//!
//! - 6, losses (what `morris pack` writes): the plies of each lost position,
//!   a byte as in a raw file, and 255 for every position not lost. A win in
//!   n is a position with a child lost in n - 1 (the fewest), a draw one not
//!   lost with no lost child: a one-ply search over the children's bytes
//!   gives both, exactly. Wins and draws sharing one byte is what makes these
//!   files several times smaller than the value bytes (see the README).
//! - 7, loss bits (`--wdl`): one bit per position, 1 for lost, eight to a
//!   byte; a one-ply search tells a win from a draw.
//! - 8, predicted loss bits (`--wdl --zstd`, where smaller than 7): each bit is
//!   "lost" XOR the guess of a model of the sector's positions by four cheap
//!   features (`predictor.rs`); the model is in the file.
//! - 2 (or 4 under the move-count rule), plain (`--plain`): the value bytes
//!   of a raw file as they are. No search, several times larger.
//! - 5, plain win/draw/loss (`--plain --wdl`): two-bit codes, four to a byte.
//!
//! Format version 4 (`pack`'s default) has the same layout and keeps the same
//! codes, one per position, in pair-coded blocks of 65,536 positions, with
//! the grammar where the dictionary is (`pair_code.rs`): a probe reads one
//! chunk's codes.
//!
//! ```text
//! offset   size    field
//!      0    128    the header of format.rs, version 3; bytes 112..120 hold
//!                  the compressed bytes D, 120..124 the dictionary's length
//!                  L (0: none), 124..128 the low half of its xxh3-64; its
//!                  own checksum covers every header byte but itself
//!    128  8(B+1)   where each block starts in the compressed bytes, and D last
//!     ..    8B     per block, xxh3-64 (seeded with the block's number and
//!                  offsets) of its compressed bytes
//!     ..    16     losses files only: the sector's wins (u64) and its
//!                  longest win in plies (u64), which the file itself gives
//!                  only by a search per position
//!     ..    72     encoding 8 only: the sector's losses (u64), which its
//!                  bits give only with each position's features, and the
//!                  model: per cell a bit, 1 for "guess lost", 484 cells
//!                  from the low bit of the first byte up, the rest zero
//!     ..     L    the zstd dictionary of the blocks (blocks under 16 KiB,
//!                  where it pays)
//!     ..    12E    overflow entries, as in a raw file (a losses file keeps
//!                  those of losses only)
//!     ..     D     the compressed blocks; one of a single byte is that
//!                  byte repeated
//! ```
//!
//! The header's body checksum (offset 48) covers the offsets, the block
//! checksums, the wins and predictor records and the overflow entries; each block is
//! checked against its checksum, then decoded to exactly its length, the
//! first time it is read. A few decoded blocks per file are kept (a
//! direct-mapped cache).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::{Advice, Mmap};
use rayon::prelude::*;

use super::encoding::Encoding;
pub use super::encoding::PACKED_BLOCK_BYTES_BITS;
use super::header::{
    HEADER_LEN, Header, OVERFLOW_ENTRY_LEN, PREDICTOR_RECORD_LEN, WINS_RECORD_LEN,
};
use super::mapped::u64_le;
use super::pair_code::Grammar;
use super::predictor::{MODEL_LEN, Model};
use crate::db::error::FileError;

/// Decoded blocks kept per file.
const CACHED_BLOCKS: usize = 16;
/// Which decoded blocks a packed file keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeptBlocks {
    /// What probes want: zstd files keep the last few blocks; pair-coded
    /// ones read a chunk per probe, but for files of at most
    /// [`PAIR_BLOCKS_KEPT_DECODED`] blocks, which keep every block.
    #[default]
    Probing,
    /// Every block, once decoded (reading whole files at random: `verify`).
    Every,
    /// As `Probing`, but a pair-coded file of any size reads a chunk per
    /// probe: for tests of that path on small files.
    Chunks,
    /// A sample of positions read at random (`verify --sample`): a
    /// pair-coded file as `Probing` (a chunk per value); a zstd file keeps
    /// every block once decoded, as its 16 slots would decode a block for
    /// nearly every value.
    Sampling,
}

/// A pair-coded file of at most this many blocks (262,144 positions) keeps
/// each block decoded once read, and is read as bytes from then on: a
/// search probes such small sectors over and over, and decoding a chunk
/// for each probe made six's packed folder serve at half the rate of zstd's
/// cached blocks. A block decodes in well under a millisecond, once.
pub const PAIR_BLOCKS_KEPT_DECODED: usize = 4;
/// The smallest blocks `pack --block-bytes` writes: 256 bytes.
pub const SMALLEST_BLOCK_BYTES_BITS: u32 = 8;

/// `bytes` decoded with `dictionary` into at most `len` bytes, by this
/// thread's zstd context (one that is not tied to one dictionary).
fn decompress_with(
    dictionary: &zstd::dict::DecoderDictionary<'_>,
    bytes: &[u8],
    len: usize,
) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(len);
    let decoded = DICTIONARY_CONTEXT.with(|c| {
        c.borrow_mut()
            .decompress_using_ddict(&mut out, bytes, dictionary.as_ddict())
    });
    decoded.map_err(|code| std::io::Error::other(zstd::zstd_safe::get_error_name(code)))?;
    Ok(out)
}

thread_local! {
    /// A zstd context per thread for files with dictionaries.
    static DICTIONARY_CONTEXT: std::cell::RefCell<zstd::zstd_safe::DCtx<'static>> =
        std::cell::RefCell::new(zstd::zstd_safe::DCtx::create());
    /// One zstd decoder per thread: making one costs more than decoding a block.
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
}

/// The byte of a losses file for a position not lost.
pub const NOT_LOST: u8 = 255;
/// A sector's wins and its longest, as a losses file records them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wins {
    pub count: u64,
    pub longest: u64,
}

impl Wins {
    pub(crate) fn merge(self, other: Wins) -> Wins {
        Wins {
            count: self.count + other.count,
            longest: self.longest.max(other.longest),
        }
    }

    pub(crate) fn to_bytes(self) -> [u8; WINS_RECORD_LEN] {
        let mut b = [0u8; WINS_RECORD_LEN];
        b[..8].copy_from_slice(&self.count.to_le_bytes());
        b[8..].copy_from_slice(&self.longest.to_le_bytes());
        b
    }
}

/// The `i`-th code of codes packed `per` to a byte.
#[inline]
fn code_at(bytes: &[u8], i: usize, per: usize) -> u8 {
    if per == 1 {
        return bytes[i];
    }
    let bits = 8 / per;
    (bytes[i / per] >> (bits * (i % per))) & ((1 << bits) - 1)
}

/// A block's checksum: of its bytes, seeded with its number and where it
/// lies, so that a damaged offset fails it too.
pub(crate) fn block_checksum(block: usize, start: u64, end: u64, bytes: &[u8]) -> u64 {
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
    /// What its blocks hold.
    encoding: Encoding,
    /// Where the compressed blocks start in the file.
    data_at: usize,
    data_len: u64,
    coding: BlockCoding,
    cache: Cache,
    /// One bit per block: its pages asked for ahead once
    /// ([`PackedBody::block_bytes_read_ahead`]).
    read_ahead: Box<[std::sync::atomic::AtomicU64]>,
}

/// How a packed file's blocks are coded, with what the file stores for it.
enum BlockCoding {
    /// zstd, with the dictionary the blocks are compressed with, if any.
    Zstd(Option<zstd::dict::DecoderDictionary<'static>>),
    /// A pair grammar; a probe reads one code without decoding the block,
    /// after checking the block once (a bit per block, set when checked).
    Pairs {
        grammar: Box<Grammar>,
        checked: Box<[std::sync::atomic::AtomicU64]>,
    },
}

/// Decoded blocks kept: the last few, direct-mapped (probes), or every
/// block once decoded (reading a whole file at random, as `verify` does).
enum Cache {
    Recent(Box<[CacheSlot]>),
    Every(Box<[std::sync::OnceLock<Vec<u8>>]>),
}

/// Asks the system to read `range` of `map` soon (clipped). Advice only.
fn will_need(map: &Mmap, range: std::ops::Range<usize>) {
    let end = range.end.min(map.len());
    if range.start < end {
        let _ = map.advise_range(Advice::WillNeed, range.start, end - range.start);
    }
}

/// One decoded block (its number and bytes), or none yet.
type CacheSlot = Mutex<Option<(usize, Arc<Vec<u8>>)>>;

impl PackedBody {
    /// The body of the packed file at `path` whose header (checked, with
    /// the file's length) is `header`, keeping the decoded blocks `kept`
    /// says (every block: memory for the file's values unpacked).
    ///
    /// # Errors
    /// A dictionary that fails its check or does not load.
    pub fn new(
        path: &Path,
        map: Mmap,
        header: &Header,
        kept: KeptBlocks,
    ) -> Result<PackedBody, FileError> {
        let blocks = header.blocks() as usize;
        let data_len = header.packed_bytes;
        let at = HEADER_LEN
            + 8 * (2 * blocks + 1)
            + if header.encoding.losses_only() {
                WINS_RECORD_LEN
            } else {
                0
            }
            + if header.encoding.predicted() {
                PREDICTOR_RECORD_LEN
            } else {
                0
            };
        let (len, check) = header.dictionary;
        // Read whole at once: on a cold cache its pages would otherwise
        // come one fault after another (the map is advised random).
        will_need(&map, at..at + len as usize);
        let stored = &map[at..at + len as usize];
        let what = if header.pairs {
            "pair grammar"
        } else {
            "zstd dictionary"
        };
        let damaged = || FileError::corrupted(path, format!("its {what} fails its check"));
        if len > 0 && xxhash_rust::xxh3::xxh3_64(stored) as u32 != check {
            return Err(damaged());
        }
        let coding = if header.pairs {
            BlockCoding::Pairs {
                grammar: Box::new(
                    Grammar::from_bytes(stored, 1 << header.block_bits).ok_or_else(damaged)?,
                ),
                checked: (0..blocks.div_ceil(64))
                    .map(|_| std::sync::atomic::AtomicU64::new(0))
                    .collect(),
            }
        } else if len == 0 {
            BlockCoding::Zstd(None)
        } else {
            BlockCoding::Zstd(Some(
                zstd::dict::DecoderDictionary::try_copy(stored).map_err(|_| damaged())?,
            ))
        };
        Ok(PackedBody {
            path: path.to_path_buf(),
            data_at: map.len() - data_len as usize,
            coding,
            map,
            blocks,
            positions: header.positions,
            block_bits: header.block_bits,
            encoding: header.encoding,
            data_len,
            read_ahead: (0..blocks.div_ceil(64))
                .map(|_| std::sync::atomic::AtomicU64::new(0))
                .collect(),
            cache: if kept == KeptBlocks::Every
                || (kept == KeptBlocks::Sampling && !header.pairs)
                || (matches!(kept, KeptBlocks::Probing | KeptBlocks::Sampling)
                    && header.pairs
                    && blocks <= PAIR_BLOCKS_KEPT_DECODED)
            {
                Cache::Every((0..blocks).map(|_| std::sync::OnceLock::new()).collect())
            } else {
                Cache::Recent((0..CACHED_BLOCKS).map(|_| Mutex::new(None)).collect())
            },
        })
    }

    /// The offsets, block checksums and overflow entries: what the header's
    /// body checksum covers.
    pub fn table(&self) -> &[u8] {
        &self.map[HEADER_LEN..self.data_at]
    }

    /// A losses file's record of its wins.
    pub fn wins(&self) -> Option<Wins> {
        if !self.encoding.losses_only() {
            return None;
        }
        let at = HEADER_LEN + 8 * (2 * self.blocks + 1);
        Some(Wins {
            count: u64_le(&self.map, at)?,
            longest: u64_le(&self.map, at + 8)?,
        })
    }

    /// A predicted loss-bits file's losses and model; `None` for other
    /// files.
    ///
    /// # Errors
    /// A model with bits set past its cells.
    pub fn predictor(&self) -> Result<Option<(u64, Model)>, FileError> {
        if !self.encoding.predicted() {
            return Ok(None);
        }
        let at = HEADER_LEN + 8 * (2 * self.blocks + 1) + WINS_RECORD_LEN;
        let damaged = || self.corrupted("its predictor's model has bits past its cells".into());
        let losses = u64_le(&self.map, at).ok_or_else(damaged)?;
        let model = self
            .map
            .get(at + 8..at + 8 + MODEL_LEN)
            .and_then(|b| Model::from_bytes(b.try_into().ok()?))
            .ok_or_else(damaged)?;
        Ok(Some((losses, model)))
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

    /// The compressed bytes of block `block`, not checked.
    /// Its offsets among the compressed bytes come with it.
    fn block_bytes(&self, block: usize) -> Result<(&[u8], u64), FileError> {
        let offset = |i: usize| u64_le(&self.map, HEADER_LEN + 8 * i).unwrap_or(u64::MAX);
        let (start, end) = (offset(block), offset(block + 1));
        if start > end || end > self.data_len {
            return Err(self.corrupted(format!("block {block} has offsets out of range")));
        }
        let at = self.data_at + start as usize;
        Ok((&self.map[at..at + (end - start) as usize], start))
    }

    /// Block `block`'s compressed bytes, not checked; the first time, its
    /// table entries and its bytes are asked of the disk together before
    /// they are read: on a cold cache a block's first read is then two
    /// waits for the disk (its offsets, then its bytes), not one per page.
    fn block_bytes_read_ahead(&self, block: usize) -> Result<(&[u8], u64), FileError> {
        use std::sync::atomic::Ordering::Relaxed;
        let (word, bit) = (&self.read_ahead[block / 64], 1u64 << (block % 64));
        if word.fetch_or(bit, Relaxed) & bit != 0 {
            return self.block_bytes(block);
        }
        let offsets = HEADER_LEN + 8 * block;
        will_need(&self.map, offsets..offsets + 16);
        let sum = HEADER_LEN + 8 * (self.blocks + 1) + 8 * block;
        will_need(&self.map, sum..sum + 8);
        let (bytes, start) = self.block_bytes(block)?;
        let at = self.data_at + start as usize;
        will_need(&self.map, at..at + bytes.len());
        Ok((bytes, start))
    }

    /// Checks `bytes`, block `block`'s from `start` among the compressed
    /// bytes, against its checksum.
    fn check_block(&self, block: usize, (bytes, start): (&[u8], u64)) -> Result<(), FileError> {
        let stored = u64_le(&self.map, HEADER_LEN + 8 * (self.blocks + 1) + 8 * block).unwrap_or(0);
        if block_checksum(block, start, start + bytes.len() as u64, bytes) != stored {
            return Err(self.corrupted(format!("block {block} fails its checksum")));
        }
        Ok(())
    }

    /// Codes per byte of a decoded block: one per byte in a pair-coded
    /// file, whatever they are.
    fn codes_per_byte(&self) -> usize {
        match self.coding {
            BlockCoding::Pairs { .. } => 1,
            BlockCoding::Zstd(_) => self.encoding.codes_per_byte(),
        }
    }

    /// Block `block`, checked and decoded (not cached).
    fn decode(&self, block: usize) -> Result<Vec<u8>, FileError> {
        let (bytes, start) = self.block_bytes_read_ahead(block)?;
        self.check_block(block, (bytes, start))?;
        let values = self.values_in(block);
        let dictionary = match &self.coding {
            BlockCoding::Pairs { grammar, .. } => {
                return grammar
                    .decode_block(bytes, values)
                    .ok_or_else(|| self.corrupted(format!("block {block} does not decode")));
            }
            BlockCoding::Zstd(dictionary) => dictionary,
        };
        let len = values.div_ceil(self.encoding.codes_per_byte());
        if let [byte] = bytes {
            return Ok(vec![*byte; len]);
        }
        let decoded = match dictionary {
            None => DECOMPRESSOR
                .with(|d| d.borrow_mut().as_mut().map(|d| d.decompress(bytes, len)))
                .unwrap_or_else(|| zstd::bulk::decompress(bytes, len)),
            Some(dictionary) => decompress_with(dictionary, bytes, len),
        }
        .map_err(|e| self.corrupted(format!("block {block} does not decode: {e}")))?;
        if decoded.len() != len {
            return Err(self.corrupted(format!("block {block} decodes to the wrong length")));
        }
        Ok(decoded)
    }

    /// The code at `within` of block `block` of a pair-coded file, read
    /// from its chunk; the block checked the first time.
    fn pair_code_at(
        &self,
        grammar: &Grammar,
        checked: &[std::sync::atomic::AtomicU64],
        block: usize,
        within: usize,
    ) -> Result<u8, FileError> {
        use std::sync::atomic::Ordering::Relaxed;
        let (word, bit) = (&checked[block / 64], 1u64 << (block % 64));
        let first_read = word.load(Relaxed) & bit == 0;
        let (bytes, start) = if first_read {
            self.block_bytes_read_ahead(block)?
        } else {
            self.block_bytes(block)?
        };
        let positions = self.values_in(block);
        let damaged = || self.corrupted(format!("block {block} does not decode"));
        if first_read {
            self.check_block(block, (bytes, start))?;
            if !grammar.layout_holds(bytes, positions) {
                return Err(damaged());
            }
            word.fetch_or(bit, Relaxed);
        }
        grammar
            .code_at(bytes, within, positions)
            .ok_or_else(damaged)
    }

    /// The code at `index` (below the positions): a byte, or the two-bit
    /// code or the bit of a file that packs several to a byte.
    pub fn byte(&self, index: u64) -> Result<u8, FileError> {
        let block = (index >> self.block_bits) as usize;
        let within = (index & ((1 << self.block_bits) - 1)) as usize;
        let pick = |bytes: &[u8]| code_at(bytes, within, self.codes_per_byte());
        if let (BlockCoding::Pairs { grammar, checked }, Cache::Recent(_)) =
            (&self.coding, &self.cache)
        {
            return self.pair_code_at(grammar, checked, block, within);
        }
        let slots = match &self.cache {
            Cache::Every(kept) => {
                let kept = &kept[block];
                if kept.get().is_none() {
                    let _ = kept.set(self.decode(block)?);
                }
                return Ok(pick(kept.get().expect("set above")));
            }
            Cache::Recent(slots) => slots,
        };
        let slot = &slots[block % CACHED_BLOCKS];
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

    /// Checks and decodes every block, in parallel, keeping none.
    ///
    /// # Errors
    /// A block that fails.
    pub fn check_all(&self) -> Result<(), FileError> {
        (0..self.blocks)
            .into_par_iter()
            .try_for_each(|block| self.decode(block).map(drop))
    }

    /// Checks every block's checksum, in parallel, without decoding it (a
    /// value read later still decodes its chunk, checked as it goes).
    ///
    /// # Errors
    /// A block that fails.
    pub fn check_checksums(&self) -> Result<(), FileError> {
        (0..self.blocks).into_par_iter().try_for_each(|block| {
            let bytes = self.block_bytes(block)?;
            self.check_block(block, bytes)
        })
    }

    /// Checks and decodes every block, calling `f` with each in order,
    /// unpacked to a code per byte.
    ///
    /// # Errors
    /// The first block that fails.
    pub fn for_each_block(&self, mut f: impl FnMut(&[u8])) -> Result<(), FileError> {
        for block in 0..self.blocks {
            f(&self.block_codes(block)?);
        }
        Ok(())
    }

    /// Blocks of the file.
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Block `block` checked, decoded and unpacked to a code per byte.
    ///
    /// # Errors
    /// A block that fails its check.
    pub fn block_codes(&self, block: usize) -> Result<Vec<u8>, FileError> {
        let decoded = self.decode(block)?;
        let per = self.codes_per_byte();
        if per == 1 {
            return Ok(decoded);
        }
        Ok((0..self.values_in(block))
            .map(|i| code_at(&decoded, i, per))
            .collect())
    }
}
