//! Writing packed sector files (the layout is in `packed.rs`): the codes
//! of each block from a raw file, compressed with zstd (with a dictionary
//! trained on the sector's blocks where blocks are small and it pays), the
//! block table, and the check that a packed file holds what it should.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::encoding::{Coder, Encoding, PAIR_BLOCK_BITS};
use super::header::{Header, OVERFLOW_ENTRY_LEN, overflow_entry};
use super::packed::{
    NOT_LOST, PACKED_BLOCK_BYTES_BITS, SMALLEST_BLOCK_BYTES_BITS, Wins, block_checksum,
};
use super::pair_code::{Grammar, Leaves, MAX_SYMBOLS};
use super::predictor::{Model, Predicting};
use super::sector_file::{SectorFile, file_name, write_atomically_checked};
use crate::db::error::FileError;
use crate::db::value::{Value, Wdl};
use crate::rules::Variant;

/// zstd's level when encoding: most of the size of its slow levels, at tens
/// of megabytes per second per core.
const LEVEL: i32 = 12;
/// zstd's level for loss bits, an eighth of the codes of the others: its
/// slowest (a few MB/s per core) takes 0.5% (8-9) to 5% (6-6) off them.
const BITS_LEVEL: i32 = 19;
/// Bytes of a dictionary for small blocks: zstd's tables and content the
/// blocks share, bought once per file.
const DICTIONARY_BYTES: usize = 16 << 10;
/// Blocks a dictionary is trained on (and judged on as many others, between
/// them).
const DICTIONARY_SAMPLES: usize = 4096;

thread_local! {
    /// One zstd encoder per thread, for the same reason.
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(LEVEL).ok());
    static BITS_COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(BITS_LEVEL).ok());
}

/// Blocks of a sector of loss bits, evenly spaced (every block of a small
/// sector), that teach the predictor's model and judge whether it pays.
const SAMPLE_BLOCKS: usize = 32;
/// Writes the packed copy of a raw sector file into `dir`, in pair-coded
/// blocks (`Coder::DEFAULT`, what `morris pack` writes); returns its path.
///
/// # Errors
/// A damaged raw file, one under the move-count rule packed other than
/// plain (its values need their plies to the next mill), or one that cannot
/// be written.
pub fn write_packed(
    dir: &Path,
    raw: &SectorFile,
    encoding: Encoding,
    variant: &Variant,
) -> Result<PathBuf, FileError> {
    write_packed_choosing(dir, raw, encoding, variant, None, Coder::DEFAULT)
}

/// [`write_packed`] with `coder`: zstd in blocks that decode to
/// `2^block_bytes_bits` bytes (from [`SMALLEST_BLOCK_BYTES_BITS`] to
/// [`PACKED_BLOCK_BYTES_BITS`]; blocks smaller than the default are
/// compressed with a dictionary trained on the sector's own blocks where
/// that makes the file smaller), or a pair grammar (no loss bits
/// predicted).
///
/// # Errors
/// As [`write_packed`].
pub fn write_packed_in_blocks(
    dir: &Path,
    raw: &SectorFile,
    encoding: Encoding,
    variant: &Variant,
    coder: Coder,
) -> Result<PathBuf, FileError> {
    write_packed_choosing(dir, raw, encoding, variant, None, coder)
}

/// [`write_packed_in_blocks`], the file read back and compared with `raw`
/// value by value ([`same_values`]) before it takes its name: what every
/// packing of a sector (`pack`, packing as the solve goes, its win/draw/loss
/// catch-up) does before it lets the raw values go.
///
/// # Errors
/// As [`write_packed_in_blocks`], or the packed file differs (its error
/// names the temporary file, removed).
pub fn write_packed_checked(
    dir: &Path,
    raw: &SectorFile,
    encoding: Encoding,
    variant: &Variant,
    coder: Coder,
) -> Result<(), FileError> {
    // Compared before it takes its name: a file found in place is checked.
    let compare = |temp: &Path| same_values(raw, &SectorFile::open(temp, false)?, variant);
    write_packed_with(dir, raw, (encoding, variant, None, coder), &compare).map(drop)
}

/// A check of a packed file's complete temporary file, before it takes its
/// final name.
type BeforeRename<'a> = &'a dyn Fn(&Path) -> Result<(), FileError>;

/// [`write_packed_in_blocks`]; loss bits predicted (`Some(true)`), plain
/// (`Some(false)`) or whichever is smaller (`None`), for tests of both.
#[doc(hidden)]
pub fn write_packed_choosing(
    dir: &Path,
    raw: &SectorFile,
    encoding: Encoding,
    variant: &Variant,
    predicted: Option<bool>,
    coder: Coder,
) -> Result<PathBuf, FileError> {
    write_packed_with(dir, raw, (encoding, variant, predicted, coder), &|_| Ok(()))
}

/// [`write_packed_choosing`], `before_rename` run on the complete file.
fn write_packed_with(
    dir: &Path,
    raw: &SectorFile,
    (encoding, variant, predicted, coder): (Encoding, &Variant, Option<bool>, Coder),
    before_rename: BeforeRename,
) -> Result<PathBuf, FileError> {
    let block_bytes_bits = match coder {
        Coder::Zstd { block_bytes_bits } => block_bytes_bits,
        Coder::Pairs => PACKED_BLOCK_BYTES_BITS,
    };
    assert!(
        (SMALLEST_BLOCK_BYTES_BITS..=PACKED_BLOCK_BYTES_BITS).contains(&block_bytes_bits),
        "block size out of range"
    );
    let bytes = raw.bytes().ok_or_else(|| {
        FileError::corrupted(raw.path(), "it is packed already; encoding reads raw files")
    })?;
    assert!(encoding.is_packed(), "encoding writes a packed encoding");
    let encoding = encoding.as_requested();
    if encoding.mill_clock() != raw.header.encoding.mill_clock() {
        return Err(FileError::corrupted(
            raw.path(),
            if raw.header.encoding.mill_clock() {
                "its values are under the move-count rule, which needs their plies to the next mill: pack it plain, in full"
            } else {
                "its values are not under the move-count rule: they cannot be packed as values under it"
            },
        ));
    }
    raw.verify_checksum()?;
    let mut header = raw.header.clone();
    if coder == Coder::Pairs {
        header.encoding = encoding;
        return write_pair_coded(dir, raw, header, bytes, before_rename);
    }
    header.block_bits = encoding.block_bits() - (PACKED_BLOCK_BYTES_BITS - block_bytes_bits);
    header.encoding = encoding;
    let block_len = 1usize << header.block_bits;
    let predicting = match (encoding, predicted) {
        (Encoding::PackedLossBits, None | Some(true)) => {
            // Judged on blocks of the default size, whatever the file's.
            let sample = sample_codes(raw, encoding, 1 << encoding.block_bits())?;
            Some((
                Predicting::learned(variant, raw.header.sector, &sample),
                sample,
            ))
        }
        _ => None,
    };
    let (compressor, level) = match encoding {
        Encoding::PackedLossBits => (&BITS_COMPRESSOR, BITS_LEVEL),
        _ => (&COMPRESSOR, LEVEL),
    };
    let compress = |codes: &[u8]| {
        let packed = pack_codes(codes, encoding.codes_per_byte());
        compressor
            .with(|c| c.borrow_mut().as_mut().map(|c| c.compress(&packed)))
            .unwrap_or_else(|| zstd::bulk::compress(&packed, level))
            .map_err(FileError::write(raw.path()))
    };
    let predicted = match (&predicting, predicted) {
        (None, _) => false,
        (Some(_), Some(choice)) => choice,
        (Some((p, sample)), None) => prediction_pays(sample, p, &compress)?,
    };
    if predicted {
        header.encoding = Encoding::PackedPredictedLossBits;
    }
    let guesser = predicting.map(|(p, _)| p).filter(|_| predicted);
    let codes_of = |i: usize| {
        let start = i * block_len;
        let block = &bytes[start..(start + block_len).min(bytes.len())];
        let mut codes = BlockCodes::of(raw, encoding, start as u64, block)?;
        if let Some(p) = &guesser {
            p.guess_over(start as u64, &mut codes.codes);
        }
        Ok::<_, FileError>(codes)
    };
    let dictionary = if block_bytes_bits < PACKED_BLOCK_BYTES_BITS {
        let blocks = bytes.len().div_ceil(block_len);
        trained_dictionary(raw, encoding, (blocks, &codes_of), level, &compress)?
    } else {
        None
    };
    let blocks = compress_blocks(
        raw,
        encoding,
        (bytes.len().div_ceil(block_len), &codes_of),
        dictionary.as_deref().map(|d| (d, level)),
        &compress,
    )?;
    let losses: u64 = blocks.iter().map(|b| b.2).sum();
    let model = guesser.map(|p| (losses, p.model));
    let dictionary = dictionary.unwrap_or_default();
    write_file(dir, raw, header, &blocks, model, &dictionary, before_rename)
}

/// A packed file of `raw`'s values (`bytes`) in pair-coded blocks, the
/// header's encoding set.
fn write_pair_coded(
    dir: &Path,
    raw: &SectorFile,
    mut header: Header,
    bytes: &[u8],
    before_rename: BeforeRename,
) -> Result<PathBuf, FileError> {
    header.block_bits = PAIR_BLOCK_BITS;
    header.pairs = true;
    let block_len = 1usize << PAIR_BLOCK_BITS;
    let code_block = |i: usize| {
        let start = i * block_len;
        let block = &bytes[start..(start + block_len).min(bytes.len())];
        BlockCodes::of(raw, header.encoding, start as u64, block)
    };
    // The codes twice, in parallel: first their leaves and each block's
    // tallies, then the leaf symbols into the one sequence the grammar is
    // built on, so that no copy of the codes is held beside it.
    let firsts: Vec<(Vec<u8>, Wins, u64)> = (0..bytes.len().div_ceil(block_len))
        .into_par_iter()
        .map(|i| {
            let c = code_block(i)?;
            let leaves = Leaves::of([&c.codes[..]]).into_codes();
            Ok((leaves, c.wins, c.lost))
        })
        .collect::<Result<_, FileError>>()?;
    let leaves = Leaves::of(firsts.iter().map(|f| &f.0[..]));
    let mut seq = vec![0u16; bytes.len()];
    seq.par_chunks_mut(block_len)
        .enumerate()
        .try_for_each(|(i, out)| {
            leaves.symbols_into(&code_block(i)?.codes, out);
            Ok::<_, FileError>(())
        })?;
    let (grammar, symbols) = Grammar::build_on(leaves, seq, MAX_SYMBOLS);
    let blocks: Vec<(Vec<u8>, Wins, u64)> = (0..symbols.blocks())
        .into_par_iter()
        .zip(&firsts)
        .map(|(i, &(_, wins, lost))| (grammar.encode_block(symbols.block(i)), wins, lost))
        .collect();
    let grammar = grammar.to_bytes();
    write_file(dir, raw, header, &blocks, None, &grammar, before_rename)
}

/// Writes the packed file of these blocks (with each its wins and losses),
/// `model` (a predicted file's losses and model) and `dictionary` (a zstd
/// dictionary or a pair grammar) with the overflow entries its encoding
/// keeps of `raw`'s, `before_rename` run on it complete; returns its path.
fn write_file(
    dir: &Path,
    raw: &SectorFile,
    mut header: Header,
    blocks: &[(Vec<u8>, Wins, u64)],
    model: Option<(u64, Model)>,
    dictionary: &[u8],
    before_rename: BeforeRename,
) -> Result<PathBuf, FileError> {
    let overflow = overflow_kept(raw, header.encoding);
    header.overflow_entries = (overflow.len() / OVERFLOW_ENTRY_LEN) as u64;
    header.overflow_checksum = xxhash_rust::xxh3::xxh3_64(&overflow);
    header.dictionary = dictionary_field(dictionary);
    let table = block_table(&mut header, blocks, model, dictionary, &overflow);
    let path = dir.join(file_name(header.sector));
    let fill = |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        std::io::Write::write_all(&mut out, &header.to_bytes())?;
        std::io::Write::write_all(&mut out, &table)?;
        for (b, _, _) in blocks {
            std::io::Write::write_all(&mut out, b)?;
        }
        out.into_inner().map_err(|e| e.into_error())
    };
    write_atomically_checked(&path, fill, before_rename)?;
    Ok(path)
}

/// The compressed blocks, with each its wins and losses, of a file of
/// `count` blocks whose codes `codes_of` gives: a block of equal bytes as
/// that byte, else by `compress` or, given one, with the dictionary at its
/// level.
fn compress_blocks(
    raw: &SectorFile,
    encoding: Encoding,
    (count, codes_of): (
        usize,
        &(impl Fn(usize) -> Result<BlockCodes, FileError> + Sync),
    ),
    dictionary: Option<(&[u8], i32)>,
    compress: &(impl Fn(&[u8]) -> Result<Vec<u8>, FileError> + Sync),
) -> Result<Vec<(Vec<u8>, Wins, u64)>, FileError> {
    let prepared = dictionary.map(|(d, level)| zstd::dict::EncoderDictionary::copy(d, level));
    let failed = |e: std::io::Error| FileError::write(raw.path())(e);
    (0..count)
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
                let packed = pack_codes(&codes.codes, encoding.codes_per_byte());
                let compressed = match (uniform(&packed), with_dictionary) {
                    (Some(byte), _) => vec![byte],
                    (None, Ok(Some(c))) => c.compress(&packed).map_err(failed)?,
                    (None, Ok(None)) => compress(&codes.codes)?,
                    (None, Err(e)) => return Err(failed(std::io::Error::other(e.to_string()))),
                };
                Ok((compressed, codes.wins, codes.lost))
            },
        )
        .collect()
}

/// A zstd dictionary for the `blocks` blocks that `codes_of` gives, if one
/// trains and makes them smaller, its own bytes counted: trained on evenly
/// spaced blocks, judged on the blocks between them, each compressed as the
/// file's blocks are ([`compress_blocks`]) with it and without.
fn trained_dictionary(
    raw: &SectorFile,
    encoding: Encoding,
    (blocks, codes_of): (
        usize,
        &(impl Fn(usize) -> Result<BlockCodes, FileError> + Sync),
    ),
    level: i32,
    compress: &(impl Fn(&[u8]) -> Result<Vec<u8>, FileError> + Sync),
) -> Result<Option<Vec<u8>>, FileError> {
    let sampled = (blocks / 2).min(DICTIONARY_SAMPLES);
    if sampled < DICTIONARY_SAMPLES / 4 {
        return Ok(None); // too small a file to pay for one
    }
    // Sample k: block 2k of 2 * sampled evenly spaced, judged k: block 2k + 1.
    let spaced = |i: usize| i * blocks / (2 * sampled);
    let samples: Vec<Vec<u8>> = (0..sampled)
        .into_par_iter()
        .map(|k| {
            let codes = codes_of(spaced(2 * k))?;
            Ok(pack_codes(&codes.codes, encoding.codes_per_byte()).into_owned())
        })
        .collect::<Result<_, FileError>>()?;
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let Ok(dictionary) = zstd::dict::from_continuous(&samples.concat(), &sizes, DICTIONARY_BYTES)
    else {
        return Ok(None);
    };
    let judged = |d: Option<(&[u8], i32)>| -> Result<usize, FileError> {
        let judged_codes = |k: usize| codes_of(spaced(2 * k + 1));
        let compressed = compress_blocks(raw, encoding, (sampled, &judged_codes), d, compress)?;
        Ok(compressed.iter().map(|b| b.0.len()).sum())
    };
    let (plain, with) = (judged(None)?, judged(Some((&dictionary, level)))?);
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
    encoding: Encoding,
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
            let codes = BlockCodes::of(raw, encoding, start as u64, block)?.codes;
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
    header.packed_bytes = at;
    let mut table = Vec::with_capacity(16 * blocks.len() + 8);
    for o in &offsets {
        table.extend_from_slice(&o.to_le_bytes());
    }
    for (i, (b, _, _)) in blocks.iter().enumerate() {
        let sum = block_checksum(i, offsets[i], offsets[i + 1], b);
        table.extend_from_slice(&sum.to_le_bytes());
    }
    if header.encoding.losses_only() {
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

/// The codes a packed block holds, one per value (before encoding several
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
        encoding: Encoding,
        start: u64,
        block: &[u8],
    ) -> Result<BlockCodes, FileError> {
        let mut wins = Wins::default();
        if encoding.keeps_value_bytes() {
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
            codes.push(match encoding {
                Encoding::PackedWdl => Wdl::of(value).code(),
                // An escaped loss stays escaped: its plies are in the table.
                Encoding::PackedLosses if lost => byte,
                Encoding::PackedLosses => NOT_LOST,
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
fn overflow_kept(raw: &SectorFile, encoding: Encoding) -> Vec<u8> {
    let table = raw.overflow_table();
    match encoding {
        _ if encoding.keeps_value_bytes() => table.to_vec(),
        Encoding::PackedLosses => table
            .chunks_exact(OVERFLOW_ENTRY_LEN)
            .filter(|e| overflow_entry(e, 0).1.is_multiple_of(2))
            .flatten()
            .copied()
            .collect(),
        _ => Vec::new(),
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

/// Checks that a packed file holds exactly what its encoding keeps of the
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
    let encoding = packed.header.encoding;
    let same = packed.header.positions == raw.header.positions
        && packed.overflow_table() == overflow_kept(raw, encoding);
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
            let mut codes = BlockCodes::of(raw, encoding, at as u64, from_raw)?;
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
    let wins_kept = !encoding.losses_only() || packed.wins()? == Some(wins);
    let losses_kept = predictor.is_none_or(|(count, _)| count == losses);
    if wins_kept && losses_kept {
        Ok(())
    } else {
        Err(differ())
    }
}
