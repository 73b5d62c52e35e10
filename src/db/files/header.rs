//! The database file format: a fixed little-endian header, one byte per
//! position, a table of the few values too long for a byte, and a checksum
//! per block of values so a probe checks what it reads without hashing the
//! whole file.
//!
//! ```text
//! offset size  field
//!      0    8  magic "MORRISDB"
//!      8    4  format version (2 raw, 3 packed, 4 packed and pair-coded)
//!     12    4  header length in bytes (128)
//!     16    8  variant fingerprint (Variant::fingerprint)
//!     24    4  sector: us on board, us in hand, them on board, them in hand
//!     28    4  value encoding (`Encoding::code` in encoding.rs: 1 raw plies, 3 raw
//!              plies to the next mill under the move-count rule; packed: 2, 4, 5, 6,
//!              7, 8)
//!     32    8  positions N (index size)
//!     40    8  overflow entries E
//!     48    8  xxh3-64 of everything after the header
//!     56   32  variant name, UTF-8, zero padded
//!     88    4  log2 K of the block size, 12 to 24 (written: 12, 4 KiB)
//!     92    4  zero
//!     96    8  xxh3-64 of the overflow entries
//!    104    8  xxh3-64 of header bytes 0..104
//!    112   16  zero (packed files, see packed.rs: the compressed bytes, and
//!              the length and check of a zstd dictionary or pair grammar)
//!    128    N  one value byte per index
//!  128+N 12*E  overflow entries: index u64, plies u32, ascending by index
//!     ..  8*B  xxh3-64 of each block of value bytes, B = ceil(N / 2^K)
//! ```

use std::path::Path;

use super::encoding::{Encoding, PACKED_VERSION, PAIRS_VERSION, VERSIONS_READ};
use super::mapped::{u32_le, u64_le};
use super::pair_code::MAX_BLOCK_LEN;
use super::predictor::MODEL_LEN;
use crate::db::error::{FileError, FileKind};
use crate::index::SectorKey;
use crate::rules::Variant;

pub(crate) const MAGIC: &[u8; 8] = b"MORRISDB";
/// Values per checksummed block, as a power of two, in the files this
/// program writes: a page, so that a cold probe reads one page of values.
/// Files of 64 KiB blocks (the first version-2 files) are read as well.
pub(crate) const BLOCK_BITS: u32 = 12;
const BLOCK_BITS_READ: std::ops::RangeInclusive<u32> = 12..=24;
/// Positions per compressed block of a packed file, as a power of two: from
/// 256 bytes of bits (2,048 positions) up.
const PACKED_BLOCK_BITS_READ: std::ops::RangeInclusive<u32> = 8..=24;
pub use super::mapped::BLOCK_CHECKSUM_LEN;
pub const HEADER_LEN: usize = 128;
pub(crate) const OVERFLOW_ENTRY_LEN: usize = 12;
/// Bytes of a losses file's record of its wins (see `packed.rs`).
pub(crate) const WINS_RECORD_LEN: usize = 16;
/// Bytes of a predicted loss-bits file's record of its losses and model.
pub(crate) const PREDICTOR_RECORD_LEN: usize = 8 + MODEL_LEN;

/// The header of a sector file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub(crate) fingerprint: u64,
    pub(crate) sector: SectorKey,
    pub(crate) positions: u64,
    pub(crate) overflow_entries: u64,
    pub(crate) checksum: u64,
    pub(crate) overflow_checksum: u64,
    pub(crate) variant: String,
    /// log2 of the values per checksummed block (raw) or per compressed
    /// block (packed).
    pub(crate) block_bits: u32,
    /// How the values are kept: raw or packed, and what of them.
    pub(crate) encoding: Encoding,
    /// For a packed file: the bytes of its compressed blocks (0 for a raw
    /// file).
    pub(crate) packed_bytes: u64,
    /// A packed file whose blocks are compressed with a zstd dictionary it
    /// stores, or pair-coded with a grammar it stores: its length in bytes
    /// (0: none) and the low 32 bits of its xxh3-64, checked when the file
    /// is opened.
    pub(crate) dictionary: (u32, u32),
    /// A packed file whose blocks are pair-coded (format version 4).
    pub(crate) pairs: bool,
}

impl Header {
    pub(crate) fn new(variant: &Variant, sector: SectorKey, positions: u64) -> Header {
        Header {
            fingerprint: variant.fingerprint(),
            sector,
            positions,
            overflow_entries: 0,
            checksum: 0,
            overflow_checksum: 0,
            variant: variant.name.to_string(),
            block_bits: BLOCK_BITS,
            encoding: Encoding::raw(variant),
            packed_bytes: 0,
            dictionary: (0, 0),
            pairs: false,
        }
    }

    pub(crate) fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(MAGIC);
        let version = if self.pairs {
            PAIRS_VERSION
        } else {
            self.encoding.version()
        };
        b[8..12].copy_from_slice(&version.to_le_bytes());
        b[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.fingerprint.to_le_bytes());
        let s = self.sector;
        b[24..28].copy_from_slice(&[s.us_board, s.us_hand, s.them_board, s.them_hand]);
        b[28..32].copy_from_slice(&self.encoding.code().to_le_bytes());
        b[32..40].copy_from_slice(&self.positions.to_le_bytes());
        b[40..48].copy_from_slice(&self.overflow_entries.to_le_bytes());
        b[48..56].copy_from_slice(&self.checksum.to_le_bytes());
        let name = self.variant.as_bytes();
        let n = name.len().min(32);
        b[56..56 + n].copy_from_slice(&name[..n]);
        b[88..92].copy_from_slice(&self.block_bits.to_le_bytes());
        b[96..104].copy_from_slice(&self.overflow_checksum.to_le_bytes());
        if self.encoding.is_packed() {
            b[112..120].copy_from_slice(&self.packed_bytes.to_le_bytes());
            b[120..124].copy_from_slice(&self.dictionary.0.to_le_bytes());
            b[124..128].copy_from_slice(&self.dictionary.1.to_le_bytes());
        }
        let own = header_checksum(&b);
        b[104..112].copy_from_slice(&own.to_le_bytes());
        b
    }

    /// Reads and checks the header of the file at `path` (for messages);
    /// `file_len` is the length of the whole file.
    ///
    /// # Errors
    /// Bad magic, version, header checksum, reserved bytes, encoding, or a
    /// length that does not match.
    pub(crate) fn parse(bytes: &[u8], file_len: u64, path: &Path) -> Result<Header, FileError> {
        let corrupted = |what: &str| FileError::corrupted(path, format!("its header {what}"));
        if bytes.len() >= 8 && &bytes[0..8] != MAGIC {
            return Err(FileError::Magic {
                path: path.to_path_buf(),
                kind: FileKind::Sector,
            });
        }
        if bytes.len() < HEADER_LEN {
            return Err(FileError::Truncated {
                path: path.to_path_buf(),
                found: file_len,
                expected: HEADER_LEN as u64,
            });
        }
        let u32_at = |o: usize| u32_le(bytes, o).expect("inside the header");
        let u64_at = |o: usize| u64_le(bytes, o).expect("inside the header");
        let version = u32_at(8);
        if !VERSIONS_READ.contains(&version) {
            return Err(FileError::Version {
                path: path.to_path_buf(),
                kind: FileKind::Sector,
                found: version,
                supported: VERSIONS_READ,
            });
        }
        let pairs = version == PAIRS_VERSION;
        let packed = version == PACKED_VERSION || pairs;
        if u64_at(104) != header_checksum(bytes) {
            return Err(corrupted("fails its checksum"));
        }
        let reserved = if packed { HEADER_LEN } else { 112 };
        if bytes[92..96]
            .iter()
            .chain(&bytes[reserved..HEADER_LEN])
            .any(|&b| b != 0)
        {
            return Err(corrupted("has reserved bytes that are not zero"));
        }
        if u32_at(12) as usize != HEADER_LEN {
            return Err(corrupted("gives another header length"));
        }
        let block_bits_read = if packed {
            PACKED_BLOCK_BITS_READ
        } else {
            BLOCK_BITS_READ
        };
        if !block_bits_read.contains(&u32_at(88)) || (pairs && 1usize << u32_at(88) > MAX_BLOCK_LEN)
        {
            return Err(corrupted("gives an unknown block size"));
        }
        let dictionary = if packed {
            (u32_at(120), u32_at(124))
        } else {
            (0, 0)
        };
        if dictionary.0 == 0 && dictionary.1 != 0 {
            return Err(corrupted("checks a dictionary it does not have"));
        }
        if pairs && dictionary.0 == 0 {
            return Err(corrupted("has pair-coded blocks but no grammar"));
        }
        // A pair-coded file keeps the values a version-3 file would.
        let layout = if pairs { PACKED_VERSION } else { version };
        let encoding = Encoding::from_header(layout, u32_at(28))
            .ok_or_else(|| corrupted("gives an unknown value encoding"))?;
        let name_bytes = &bytes[56..88];
        let end = name_bytes.iter().position(|&c| c == 0).unwrap_or(32);
        let variant = std::str::from_utf8(&name_bytes[..end])
            .map_err(|_| corrupted("has a variant name that is not UTF-8"))?
            .to_string();
        let header = Header {
            fingerprint: u64_at(16),
            sector: SectorKey::new(bytes[24], bytes[25], bytes[26], bytes[27]),
            positions: u64_at(32),
            overflow_entries: u64_at(40),
            checksum: u64_at(48),
            overflow_checksum: u64_at(96),
            variant,
            block_bits: u32_at(88),
            encoding,
            packed_bytes: if packed { u64_at(112) } else { 0 },
            dictionary,
            pairs,
        };
        let expected = header
            .file_len()
            .ok_or_else(|| corrupted("gives sizes that overflow"))?;
        if expected != file_len || usize::try_from(file_len).is_err() {
            return Err(FileError::Truncated {
                path: path.to_path_buf(),
                found: file_len,
                expected,
            });
        }
        Ok(header)
    }

    /// The sector whose values the file holds.
    pub fn sector(&self) -> SectorKey {
        self.sector
    }

    /// Its positions: the size of the sector's index.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// How the values are kept.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The name of the variant the file was solved for.
    pub fn variant_name(&self) -> &str {
        &self.variant
    }

    /// log2 of the values per checksummed block (raw) or per compressed
    /// block (packed).
    pub fn block_bits(&self) -> u32 {
        self.block_bits
    }

    /// Values too long for their byte, kept in the overflow table.
    pub fn overflow_entries(&self) -> u64 {
        self.overflow_entries
    }

    /// The xxh3-64 of everything after the header.
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// A packed file's compressed bytes (0 for a raw file).
    pub fn packed_bytes(&self) -> u64 {
        self.packed_bytes
    }

    /// A packed file's zstd dictionary or pair grammar: its bytes (0:
    /// none).
    pub fn dictionary_len(&self) -> u32 {
        self.dictionary.0
    }

    /// Whether a packed file's blocks are pair-coded (format version 4).
    pub fn is_pair_coded(&self) -> bool {
        self.pairs
    }

    /// Number of checksummed blocks of values.
    pub(crate) fn blocks(&self) -> u64 {
        self.positions.div_ceil(1 << self.block_bits)
    }

    /// Length of the whole file this header describes.
    pub(crate) fn file_len(&self) -> Option<u64> {
        let overflow = self
            .overflow_entries
            .checked_mul(OVERFLOW_ENTRY_LEN as u64)?;
        let body = match self.encoding.is_packed() {
            // Raw: the value bytes, then a checksum per block.
            false => self
                .positions
                .checked_add(self.blocks() * BLOCK_CHECKSUM_LEN as u64)?,
            // Packed: the block offsets (one more than the blocks), a
            // checksum per block, then the compressed blocks.
            true => (2 * self.blocks() + 1)
                .checked_mul(8)?
                .checked_add(self.packed_bytes)?
                .checked_add(if self.encoding.losses_only() {
                    WINS_RECORD_LEN as u64
                } else {
                    0
                })?
                .checked_add(if self.encoding.predicted() {
                    PREDICTOR_RECORD_LEN as u64
                } else {
                    0
                })?
                .checked_add(self.dictionary.0.into())?,
        };
        (HEADER_LEN as u64).checked_add(body)?.checked_add(overflow)
    }
}

/// The header's own checksum: of every byte but its own field (104..112);
/// in a raw file's header the bytes after it are zero.
fn header_checksum(b: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&b[..104]);
    if b[8..12] == PACKED_VERSION.to_le_bytes() || b[8..12] == PAIRS_VERSION.to_le_bytes() {
        hasher.update(&b[112..HEADER_LEN]);
    }
    hasher.digest()
}

/// Reads the overflow entry `i` of a table (which holds it).
pub(crate) fn overflow_entry(table: &[u8], i: usize) -> (u64, u32) {
    let at = i * OVERFLOW_ENTRY_LEN;
    (
        u64_le(table, at).expect("entry in the table"),
        u32_le(table, at + 8).expect("entry in the table"),
    )
}
