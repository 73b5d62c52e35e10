//! Packed sector files (format version 3): a sector's values in blocks that
//! decode to 16 KiB (or, `pack --block-bytes`, as little as 256 bytes), each
//! compressed with zstd, so a probe decodes one
//! block, not a whole file. What a block holds depends on the value encoding:
//!
//! - 6, losses (what `morris pack` writes): the plies of each lost position,
//!   a byte as in a raw file, and 255 for every position not lost. A win in
//!   n is a position with a child lost in n - 1 (the fewest), a draw one not
//!   lost with no lost child: a one-ply search over the children's bytes
//!   gives both, exactly. Wins and draws sharing one byte is what makes these
//!   files several times smaller than the value bytes (see the README).
//! - 7, loss bits (`--wdl`): one bit per position, 1 for lost, eight to a
//!   byte; a one-ply search tells a win from a draw.
//! - 8, predicted loss bits (`--wdl`, where smaller than 7): each bit is
//!   "lost" XOR the guess of a model of the sector's positions by four cheap
//!   features (`predictor.rs`); the model is in the file.
//! - 2 (or 4 under the move-count rule), plain (`--plain`): the value bytes
//!   of a raw file as they are. No search, several times larger.
//! - 5, plain win/draw/loss (`--plain --wdl`): two-bit codes, four to a byte.
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

use memmap2::Mmap;
use rayon::prelude::*;

use super::error::FileError;
use super::file::{SectorFile, file_name, write_atomically};
use super::format::{HEADER_LEN, Header, OVERFLOW_ENTRY_LEN, overflow_entry};
use super::mapped::u64_le;
use super::predictor::{MODEL_LEN, Model, Predicting};
use super::value::{Value, Wdl};
use crate::rules::Variant;

/// Bytes a compressed block decodes to, as a power of two: a random probe
/// decodes one (about 8 µs here); 4 KiB blocks took 12% more space (28% in
/// a losses file).
pub const PACKED_BLOCK_BYTES_BITS: u32 = 14;
/// zstd's level when packing: most of the size of its slow levels, at tens
/// of megabytes per second per core.
const LEVEL: i32 = 12;
/// zstd's level for loss bits, an eighth of the codes of the others: its
/// slowest (a few MB/s per core) takes 0.5% (8-9) to 5% (6-6) off them.
const BITS_LEVEL: i32 = 19;
/// Decoded blocks kept per file.
const CACHED_BLOCKS: usize = 16;
/// The smallest blocks `pack --block-bytes` writes: 256 bytes.
pub const SMALLEST_BLOCK_BYTES_BITS: u32 = 8;
/// Bytes of a dictionary for small blocks: zstd's tables and content the
/// blocks share, bought once per file.
const DICTIONARY_BYTES: usize = 16 << 10;
/// Blocks a dictionary is trained on (and judged on as many others).
const DICTIONARY_SAMPLES: usize = 4096;

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
    /// One zstd encoder per thread, for the same reason.
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(LEVEL).ok());
    static BITS_COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(BITS_LEVEL).ok());
}

/// What a packed file keeps of the values, and how (see the module's
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// The plies of the lost positions: every value, by a one-ply search.
    Losses,
    /// Which positions are lost: win, draw or loss, by a one-ply search.
    LossBits,
    /// Every value byte (or, under the move-count rule, every value with
    /// its plies to the next mill) as it is.
    Plain,
    /// Two-bit win/draw/loss codes.
    PlainWdl,
}

impl Packing {
    /// What `morris pack` writes of a folder of `variant`: win/draw/loss
    /// only or not, the plain codings or the losses. Under the move-count
    /// rule a value is not found from its children's losses: plain it is.
    pub fn new(variant: &Variant, wdl_only: bool, plain: bool) -> Packing {
        match (wdl_only, plain || variant.n_move.is_some()) {
            (false, false) => Packing::Losses,
            (true, false) => Packing::LossBits,
            (false, true) => Packing::Plain,
            (true, true) => Packing::PlainWdl,
        }
    }

    /// No distances: win, draw or loss only.
    pub fn wdl_only(self) -> bool {
        matches!(self, Packing::LossBits | Packing::PlainWdl)
    }

    /// The losses only, the rest found by a search.
    pub fn losses_only(self) -> bool {
        matches!(self, Packing::Losses | Packing::LossBits)
    }

    /// The packing of a file with this header.
    pub fn of(header: &Header) -> Packing {
        match (header.wdl_only, header.losses_only) {
            (false, true) => Packing::Losses,
            (true, true) => Packing::LossBits,
            (false, false) => Packing::Plain,
            (true, false) => Packing::PlainWdl,
        }
    }

    /// log2 of the positions per block: as many as decode to 16 KiB.
    pub fn block_bits(self) -> u32 {
        PACKED_BLOCK_BYTES_BITS + self.codes_per_byte().trailing_zeros()
    }

    /// Codes per byte of a decoded block.
    fn codes_per_byte(self) -> usize {
        match self {
            Packing::PlainWdl => 4,
            Packing::LossBits => 8,
            Packing::Losses | Packing::Plain => 1,
        }
    }
}

/// The byte of a losses file for a position not lost.
pub const NOT_LOST: u8 = 255;
/// Bytes of a losses file's record of its wins.
pub const WINS_RECORD_LEN: usize = 16;
/// Bytes of a predicted loss-bits file's record of its losses and model.
pub const PREDICTOR_RECORD_LEN: usize = 8 + MODEL_LEN;
/// Blocks of a sector of loss bits, evenly spaced (every block of a small
/// sector), that teach the predictor's model and judge whether it pays.
const SAMPLE_BLOCKS: usize = 32;
/// Writes the packed copy of a raw sector file into `dir`; returns its path.
///
/// # Errors
/// A damaged raw file, one under the move-count rule packed other than
/// plain (its values need their plies to the next mill), or one that cannot
/// be written.
pub fn write_packed(
    dir: &Path,
    raw: &SectorFile,
    packing: Packing,
    variant: &Variant,
) -> Result<PathBuf, FileError> {
    write_packed_choosing(dir, raw, packing, variant, None, PACKED_BLOCK_BYTES_BITS)
}

/// [`write_packed`] in blocks that decode to `2^block_bytes_bits` bytes
/// (from [`SMALLEST_BLOCK_BYTES_BITS`] to [`PACKED_BLOCK_BYTES_BITS`]):
/// blocks smaller than the default are compressed with a dictionary
/// trained on the sector's own blocks where that makes the file smaller.
///
/// # Errors
/// As [`write_packed`].
pub fn write_packed_in_blocks(
    dir: &Path,
    raw: &SectorFile,
    packing: Packing,
    variant: &Variant,
    block_bytes_bits: u32,
) -> Result<PathBuf, FileError> {
    write_packed_choosing(dir, raw, packing, variant, None, block_bytes_bits)
}

/// [`write_packed_in_blocks`]; loss bits predicted (`Some(true)`), plain
/// (`Some(false)`) or whichever is smaller (`None`), for tests of both.
#[doc(hidden)]
pub fn write_packed_choosing(
    dir: &Path,
    raw: &SectorFile,
    packing: Packing,
    variant: &Variant,
    predicted: Option<bool>,
    block_bytes_bits: u32,
) -> Result<PathBuf, FileError> {
    assert!(
        (SMALLEST_BLOCK_BYTES_BITS..=PACKED_BLOCK_BYTES_BITS).contains(&block_bytes_bits),
        "block size out of range"
    );
    let bytes = raw.bytes().ok_or_else(|| {
        FileError::corrupted(raw.path(), "it is packed already; packing reads raw files")
    })?;
    if packing != Packing::Plain && raw.header.mill_clock {
        return Err(FileError::corrupted(
            raw.path(),
            "its values are under the move-count rule, which needs their plies to the next mill: pack it plain, in full",
        ));
    }
    raw.verify_checksum()?;
    let mut header = raw.header.clone();
    header.block_bits = packing.block_bits() - (PACKED_BLOCK_BYTES_BITS - block_bytes_bits);
    header.wdl_only = packing.wdl_only();
    header.losses_only = packing.losses_only();
    let block_len = 1usize << header.block_bits;
    let predicting = match (packing, predicted) {
        (Packing::LossBits, None | Some(true)) => {
            // Judged on blocks of the default size, whatever the file's.
            let sample = sample_codes(raw, packing, 1 << packing.block_bits())?;
            Some((
                Predicting::learned(variant, raw.header.sector, &sample),
                sample,
            ))
        }
        _ => None,
    };
    let (compressor, level) = match packing {
        Packing::LossBits => (&BITS_COMPRESSOR, BITS_LEVEL),
        _ => (&COMPRESSOR, LEVEL),
    };
    let compress = |codes: &[u8]| {
        let packed = pack_codes(codes, packing.codes_per_byte());
        compressor
            .with(|c| c.borrow_mut().as_mut().map(|c| c.compress(&packed)))
            .unwrap_or_else(|| zstd::bulk::compress(&packed, level))
            .map_err(FileError::write(raw.path()))
    };
    header.predicted = match (&predicting, predicted) {
        (None, _) => false,
        (Some(_), Some(choice)) => choice,
        (Some((p, sample)), None) => prediction_pays(sample, p, &compress)?,
    };
    let guesser = predicting.map(|(p, _)| p).filter(|_| header.predicted);
    let codes_of = |i: usize| {
        let start = i * block_len;
        let block = &bytes[start..(start + block_len).min(bytes.len())];
        let mut codes = BlockCodes::of(raw, packing, start as u64, block)?;
        if let Some(p) = &guesser {
            p.guess_over(start as u64, &mut codes.codes);
        }
        Ok::<_, FileError>(codes)
    };
    let dictionary = if block_bytes_bits < PACKED_BLOCK_BYTES_BITS {
        trained_dictionary(bytes.len().div_ceil(block_len), packing, level, &codes_of)?
    } else {
        None
    };
    let prepared = dictionary
        .as_ref()
        .map(|d| zstd::dict::EncoderDictionary::copy(d, level));
    let blocks: Vec<(Vec<u8>, Wins, u64)> = (0..bytes.len().div_ceil(block_len))
        .into_par_iter()
        .map_init(
            || {
                prepared
                    .as_ref()
                    .map(|p| {
                        // A block's frame says neither its length (the file
                        // gives it) nor which dictionary (the file's).
                        let mut c = zstd::bulk::Compressor::with_prepared_dictionary(p)?;
                        c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))?;
                        c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))?;
                        Ok::<_, std::io::Error>(c)
                    })
                    .transpose()
            },
            |with_dictionary, i| {
                let codes = codes_of(i)?;
                let packed = pack_codes(&codes.codes, packing.codes_per_byte());
                let compressed = match (uniform(&packed), with_dictionary) {
                    (Some(byte), _) => vec![byte],
                    (None, Ok(Some(c))) => {
                        c.compress(&packed).map_err(FileError::write(raw.path()))?
                    }
                    (None, Ok(None)) => compress(&codes.codes)?,
                    (None, Err(e)) => {
                        return Err(FileError::write(raw.path())(std::io::Error::other(
                            e.to_string(),
                        )));
                    }
                };
                Ok((compressed, codes.wins, codes.lost))
            },
        )
        .collect::<Result<_, FileError>>()?;
    let losses: u64 = blocks.iter().map(|b| b.2).sum();
    let overflow = overflow_kept(raw, packing);
    header.overflow_entries = (overflow.len() / OVERFLOW_ENTRY_LEN) as u64;
    header.overflow_checksum = xxhash_rust::xxh3::xxh3_64(&overflow);
    let model = guesser.map(|p| (losses, p.model));
    let dictionary = dictionary.unwrap_or_default();
    header.dictionary = dictionary_field(&dictionary);
    let table = block_table(&mut header, &blocks, model, &dictionary, &overflow);
    let path = dir.join(file_name(header.sector));
    write_atomically(&path, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        std::io::Write::write_all(&mut out, &header.to_bytes())?;
        std::io::Write::write_all(&mut out, &table)?;
        for (b, _, _) in &blocks {
            std::io::Write::write_all(&mut out, b)?;
        }
        out.into_inner().map_err(|e| e.into_error())
    })?;
    Ok(path)
}

/// A zstd dictionary for the `blocks` blocks that `codes_of` gives, trained
/// on evenly spaced ones, if one trains and makes them smaller, its own
/// bytes counted.
fn trained_dictionary(
    blocks: usize,
    packing: Packing,
    level: i32,
    codes_of: &(impl Fn(usize) -> Result<BlockCodes, FileError> + Sync),
) -> Result<Option<Vec<u8>>, FileError> {
    let sampled = blocks.min(DICTIONARY_SAMPLES);
    if sampled < DICTIONARY_SAMPLES / 4 {
        return Ok(None); // too small a file to pay for one
    }
    let samples: Vec<Vec<u8>> = (0..sampled)
        .into_par_iter()
        .map(|k| {
            let codes = codes_of(k * blocks / sampled)?;
            Ok(pack_codes(&codes.codes, packing.codes_per_byte()).into_owned())
        })
        .collect::<Result<_, FileError>>()?;
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let Ok(dictionary) = zstd::dict::from_continuous(&samples.concat(), &sizes, DICTIONARY_BYTES)
    else {
        return Ok(None);
    };
    // Judged on other blocks than those it was trained on.
    let judged: Vec<Vec<u8>> = (0..sampled)
        .into_par_iter()
        .map(|k| {
            let codes = codes_of((k * blocks / sampled + blocks / sampled / 2).min(blocks - 1))?;
            Ok(pack_codes(&codes.codes, packing.codes_per_byte()).into_owned())
        })
        .collect::<Result<_, FileError>>()?;
    let size = |d: Option<&[u8]>| -> usize {
        let mut c = match d {
            Some(d) => zstd::bulk::Compressor::with_dictionary(level, d),
            None => zstd::bulk::Compressor::new(level),
        }
        .expect("a zstd compressor");
        judged
            .iter()
            .map(|j| c.compress(j).map_or(usize::MAX / judged.len(), |c| c.len()))
            .sum()
    };
    let (plain, with) = (size(None), size(Some(&dictionary)));
    let scale = blocks as f64 / sampled as f64;
    let pays = with as f64 * scale + (dictionary.len() as f64) < plain as f64 * scale;
    Ok(pays.then_some(dictionary))
}

/// The byte every byte of `bytes` is, if one: such a block is stored as that
/// one byte (no zstd frame is one byte long).
fn uniform(bytes: &[u8]) -> Option<u8> {
    let first = *bytes.first()?;
    bytes.iter().all(|&b| b == first).then_some(first)
}

/// The header's field of a file with this dictionary (empty: none).
fn dictionary_field(dictionary: &[u8]) -> (u32, u32) {
    if dictionary.is_empty() {
        return (0, 0);
    }
    (
        dictionary.len() as u32,
        xxhash_rust::xxh3::xxh3_64(dictionary) as u32,
    )
}

/// The codes of [`SAMPLE_BLOCKS`] evenly spaced blocks of a raw file, each
/// with the index of its first position.
fn sample_codes(
    raw: &SectorFile,
    packing: Packing,
    block_len: usize,
) -> Result<Vec<(u64, Vec<u8>)>, FileError> {
    let bytes = raw.bytes().unwrap_or_default();
    let blocks = bytes.len().div_ceil(block_len);
    let step = blocks.div_ceil(SAMPLE_BLOCKS).max(1);
    (0..blocks)
        .step_by(step)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|i| {
            let start = i * block_len;
            let block = &bytes[start..(start + block_len).min(bytes.len())];
            let codes = BlockCodes::of(raw, packing, start as u64, block)?.codes;
            Ok((start as u64, codes))
        })
        .collect()
}

/// Whether predicting pays: whether the sample's codes XOR the guesses
/// compress smaller than the codes.
fn prediction_pays(
    sample: &[(u64, Vec<u8>)],
    predicting: &Predicting,
    compress: &(impl Fn(&[u8]) -> Result<Vec<u8>, FileError> + Sync),
) -> Result<bool, FileError> {
    let (plain, guessed) = sample
        .par_iter()
        .map(|(start, codes)| {
            let mut guessed = codes.clone();
            predicting.guess_over(*start, &mut guessed);
            Ok((compress(codes)?.len(), compress(&guessed)?.len()))
        })
        .try_reduce(|| (0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1)))?;
    Ok(guessed < plain)
}

/// The table of a packed file of these compressed blocks (with each its
/// wins), `model` (a predicted file's losses and model) and overflow
/// entries, the header's sizes and checksum set to match.
fn block_table(
    header: &mut Header,
    blocks: &[(Vec<u8>, Wins, u64)],
    model: Option<(u64, Model)>,
    dictionary: &[u8],
    overflow: &[u8],
) -> Vec<u8> {
    let mut offsets = Vec::with_capacity(blocks.len() + 1);
    let mut at = 0u64;
    offsets.push(at);
    for (b, _, _) in blocks {
        at += b.len() as u64;
        offsets.push(at);
    }
    header.packed_bytes = Some(at);
    let mut table = Vec::with_capacity(16 * blocks.len() + 8);
    for o in &offsets {
        table.extend_from_slice(&o.to_le_bytes());
    }
    for (i, (b, _, _)) in blocks.iter().enumerate() {
        let sum = block_checksum(i, offsets[i], offsets[i + 1], b);
        table.extend_from_slice(&sum.to_le_bytes());
    }
    if header.losses_only {
        let wins = blocks
            .iter()
            .fold(Wins::default(), |a, (_, w, _)| a.merge(*w));
        table.extend_from_slice(&wins.to_bytes());
    }
    if let Some((losses, model)) = model {
        table.extend_from_slice(&losses.to_le_bytes());
        table.extend_from_slice(&model.to_bytes());
    }
    table.extend_from_slice(dictionary);
    table.extend_from_slice(overflow);
    header.checksum = xxhash_rust::xxh3::xxh3_64(&table);
    table
}

/// A sector's wins and its longest, as a losses file records them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wins {
    pub count: u64,
    pub longest: u64,
}

impl Wins {
    fn merge(self, other: Wins) -> Wins {
        Wins {
            count: self.count + other.count,
            longest: self.longest.max(other.longest),
        }
    }

    fn to_bytes(self) -> [u8; WINS_RECORD_LEN] {
        let mut b = [0u8; WINS_RECORD_LEN];
        b[..8].copy_from_slice(&self.count.to_le_bytes());
        b[8..].copy_from_slice(&self.longest.to_le_bytes());
        b
    }
}

/// The codes a packed block holds, one per value (before packing several
/// to a byte), and the wins among them.
struct BlockCodes {
    codes: Vec<u8>,
    wins: Wins,
    /// The lost positions among them (not counted in plain codes, which
    /// are never predicted).
    lost: u64,
}

impl BlockCodes {
    /// Of a block of raw value bytes whose first is at `start`.
    fn of(
        raw: &SectorFile,
        packing: Packing,
        start: u64,
        block: &[u8],
    ) -> Result<BlockCodes, FileError> {
        let mut wins = Wins::default();
        if packing == Packing::Plain {
            return Ok(BlockCodes {
                codes: block.to_vec(),
                wins,
                lost: 0,
            });
        }
        let mut codes = Vec::with_capacity(block.len());
        let mut lost_count = 0;
        for (i, &byte) in block.iter().enumerate() {
            let value = match Value::from_byte(byte) {
                Some(v) => v,
                None => raw.value(start + i as u64)?,
            };
            if let Value::Win(n) = value {
                wins.count += 1;
                wins.longest = wins.longest.max(n.into());
            }
            let lost = matches!(value, Value::Loss(_));
            lost_count += u64::from(lost);
            codes.push(match packing {
                Packing::PlainWdl => Wdl::of(value).code(),
                // An escaped loss stays escaped: its plies are in the table.
                Packing::Losses if lost => byte,
                Packing::Losses => NOT_LOST,
                _ => lost as u8,
            });
        }
        Ok(BlockCodes {
            codes,
            wins,
            lost: lost_count,
        })
    }
}

/// The overflow entries a packed file keeps of a raw file's: all in plain
/// full values, those of losses in a losses file, none without plies.
fn overflow_kept(raw: &SectorFile, packing: Packing) -> Vec<u8> {
    let table = raw.overflow_table();
    match packing {
        Packing::Plain => table.to_vec(),
        Packing::Losses => table
            .chunks_exact(OVERFLOW_ENTRY_LEN)
            .filter(|e| overflow_entry(e, 0).1.is_multiple_of(2))
            .flatten()
            .copied()
            .collect(),
        Packing::LossBits | Packing::PlainWdl => Vec::new(),
    }
}

/// Codes of `8 / per` bits packed `per` to a byte from the low bits up.
fn pack_codes(codes: &[u8], per: usize) -> std::borrow::Cow<'_, [u8]> {
    if per == 1 {
        return codes.into();
    }
    let bits = 8 / per;
    let mut out = vec![0u8; codes.len().div_ceil(per)];
    for (i, &c) in codes.iter().enumerate() {
        out[i / per] |= c << (bits * (i % per));
    }
    out.into()
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

/// Checks that a packed file holds exactly what its packing keeps of the
/// raw file's values: every code, the overflow entries kept and, in a
/// losses file, the record of the wins.
///
/// # Errors
/// A block that fails its check, or anything that differs.
pub fn same_values(
    raw: &SectorFile,
    packed: &SectorFile,
    variant: &Variant,
) -> Result<(), FileError> {
    let bytes = raw.bytes().unwrap_or_default();
    let packing = Packing::of(&packed.header);
    let same = packed.header.positions == raw.header.positions
        && packed.overflow_table() == overflow_kept(raw, packing);
    let predictor = packed.predictor();
    let predicting =
        predictor.map(|(_, model)| Predicting::new(variant, packed.header.sector, model));
    let differ = || {
        FileError::corrupted(
            packed.path(),
            "its values differ from the raw file's: the raw file is kept",
        )
    };
    let Some(body) = packed.packed_body() else {
        return Err(FileError::corrupted(packed.path(), "it is not packed"));
    };
    let block_len = 1usize << packed.header.block_bits;
    let blocks = body.blocks();
    if !same || bytes.len().div_ceil(block_len) != blocks {
        return Err(differ());
    }
    // Per block: the same codes, and its wins and losses.
    let (wins, losses) = (0..blocks)
        .into_par_iter()
        .map(|block| {
            let stored = body.block_codes(block)?;
            let at = block * block_len;
            let from_raw = &bytes[at..(at + block_len).min(bytes.len())];
            let mut codes = BlockCodes::of(raw, packing, at as u64, from_raw)?;
            if let Some(p) = &predicting {
                p.guess_over(at as u64, &mut codes.codes);
            }
            if codes.codes == stored {
                Ok((codes.wins, codes.lost))
            } else {
                Err(differ())
            }
        })
        .try_reduce(
            || (Wins::default(), 0),
            |a, b| Ok((a.0.merge(b.0), a.1 + b.1)),
        )?;
    let wins_kept = !packing.losses_only() || packed.wins()? == Some(wins);
    let losses_kept = predictor.is_none_or(|(count, _)| count == losses);
    if wins_kept && losses_kept {
        Ok(())
    } else {
        Err(differ())
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
    /// What its blocks hold.
    packing: Packing,
    /// Its bits are "lost" XOR a model's guess (encoding 8).
    predicted: bool,
    /// Where the compressed blocks start in the file.
    data_at: usize,
    data_len: u64,
    /// The zstd dictionary its blocks are compressed with, if any.
    dictionary: Option<zstd::dict::DecoderDictionary<'static>>,
    cache: Cache,
}

/// Decoded blocks kept: the last few, direct-mapped (probes), or every
/// block once decoded (reading a whole file at random, as `verify` does).
enum Cache {
    Recent(Box<[CacheSlot]>),
    Every(Box<[std::sync::OnceLock<Vec<u8>>]>),
}

/// One decoded block (its number and bytes), or none yet.
type CacheSlot = Mutex<Option<(usize, Arc<Vec<u8>>)>>;

impl PackedBody {
    /// The body of the packed file at `path` whose header (checked, with
    /// the file's length) is `header`; `keep_every_block` keeps each block
    /// decoded once read (memory: the file's values unpacked).
    ///
    /// # Errors
    /// A dictionary that fails its check or does not load.
    pub fn new(
        path: &Path,
        map: Mmap,
        header: &Header,
        keep_every_block: bool,
    ) -> Result<PackedBody, FileError> {
        let blocks = header.blocks() as usize;
        let data_len = header.packed_bytes.unwrap_or(0);
        let dictionary = match header.dictionary {
            (0, _) => None,
            (len, check) => {
                let at = HEADER_LEN
                    + 8 * (2 * blocks + 1)
                    + if header.losses_only {
                        WINS_RECORD_LEN
                    } else {
                        0
                    }
                    + if header.predicted {
                        PREDICTOR_RECORD_LEN
                    } else {
                        0
                    };
                let bytes = &map[at..at + len as usize];
                let damaged = || FileError::corrupted(path, "its zstd dictionary fails its check");
                if xxhash_rust::xxh3::xxh3_64(bytes) as u32 != check {
                    return Err(damaged());
                }
                Some(zstd::dict::DecoderDictionary::try_copy(bytes).map_err(|_| damaged())?)
            }
        };
        Ok(PackedBody {
            path: path.to_path_buf(),
            data_at: map.len() - data_len as usize,
            dictionary,
            map,
            blocks,
            positions: header.positions,
            block_bits: header.block_bits,
            packing: Packing::of(header),
            predicted: header.predicted,
            data_len,
            cache: if keep_every_block {
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
        if !self.packing.losses_only() {
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
        if !self.predicted {
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
        let len = values.div_ceil(self.packing.codes_per_byte());
        if let [byte] = bytes {
            return Ok(vec![*byte; len]);
        }
        let decoded = match &self.dictionary {
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

    /// The code at `index` (below the positions): a byte, or the two-bit
    /// code or the bit of a file that packs several to a byte.
    pub fn byte(&self, index: u64) -> Result<u8, FileError> {
        let block = (index >> self.block_bits) as usize;
        let within = (index & ((1 << self.block_bits) - 1)) as usize;
        let pick = |bytes: &[u8]| code_at(bytes, within, self.packing.codes_per_byte());
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

    /// Checks and decodes every block, keeping none.
    ///
    /// # Errors
    /// The first block that fails.
    pub fn check_all(&self) -> Result<(), FileError> {
        (0..self.blocks).try_for_each(|block| self.decode(block).map(drop))
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
        let per = self.packing.codes_per_byte();
        if per == 1 {
            return Ok(decoded);
        }
        Ok((0..self.values_in(block))
            .map(|i| code_at(&decoded, i, per))
            .collect())
    }
}
