//! The kinds of sector file: one enum, mapped to and from the header's
//! version and value-encoding fields here and nowhere else. A new encoding
//! is a variant here, an arm in the reader (`sector_file.rs`, `packed.rs`)
//! and one in the writer (`pack_write.rs`).

use crate::rules::Variant;

/// Format version of raw sector files.
pub(crate) const RAW_VERSION: u32 = 2;
/// Format version of packed sector files (see `packed.rs`).
pub(crate) const PACKED_VERSION: u32 = 3;
/// Format version of packed sector files whose blocks are pair-coded (see
/// `pair_code.rs`); their layout is version 3's.
pub(crate) const PAIRS_VERSION: u32 = 4;
/// Every format version of a sector file this program reads.
pub(crate) const VERSIONS_READ: &[u32] = &[RAW_VERSION, PACKED_VERSION, PAIRS_VERSION];
/// log2 of the positions per block of a pair-coded file: the most its
/// 16-bit chunk starts allow (a block's table entry then costs little).
pub const PAIR_BLOCK_BITS: u32 = 16;

/// How the blocks of a packed file are coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coder {
    /// zstd, each block decoding to `2^block_bytes_bits` bytes of codes
    /// (format 3): a probe decodes a block.
    Zstd { block_bytes_bits: u32 },
    /// A pair grammar with Huffman codes in 64-byte chunks (format 4): a
    /// probe decodes a few dozen codes of one chunk.
    Pairs,
}

impl Coder {
    /// What `pack` and `solve --pack` write unless told otherwise: pair-coded
    /// blocks. On the standard game up to 7-7 they probe five times as
    /// fast as zstd's default blocks for losses 4% larger, and twice as
    /// fast for loss bits 23% larger (docs/PERFORMANCE.md).
    pub const DEFAULT: Coder = Coder::Pairs;
    /// zstd in its default blocks (16 KiB of codes): the smallest files of
    /// loss bits and of plain values, read a block at a time.
    pub const ZSTD: Coder = Coder::Zstd {
        block_bytes_bits: PACKED_BLOCK_BYTES_BITS,
    };
}

/// Bytes a compressed block decodes to by default, as a power of two: a
/// random probe decodes one (about 8 µs here); 4 KiB blocks took 12% more
/// space (28% in a losses file). Smaller blocks (`pack --block-bytes`) are
/// for probes that must not wait for that.
pub const PACKED_BLOCK_BYTES_BITS: u32 = 14;

/// How a sector file keeps its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// A byte per position: plies to the end, odd a win, even a loss, 254
    /// escape to the overflow table, 255 a draw (code 1, what `solve`
    /// writes).
    RawPlies,
    /// Under the move-count rule, a byte per position: 2d - 1 for a win and
    /// 2d for a loss with d plies to the next mill, 255 a draw (code 3).
    RawMillClock,
    /// The bytes of `RawPlies` in packed blocks (code 2).
    PackedPlies,
    /// The bytes of `RawMillClock`, packed as `PackedPlies` is (code 4).
    PackedMillClock,
    /// Win, draw or loss only: two-bit codes (0 loss, 1 draw, 2 win), four
    /// to a byte from the low bits up (code 5).
    PackedWdl,
    /// The plies of each lost position (a byte as in `RawPlies`, 255 for a
    /// position not lost); wins and draws follow from the children's losses
    /// by a one-ply search (code 6).
    PackedLosses,
    /// Which positions are lost, one bit each (1: lost), eight to a byte
    /// from the low bit up; win, draw or loss by a one-ply search (code 7).
    PackedLossBits,
    /// As `PackedLossBits`, each bit XOR the guess of a model the file
    /// stores (code 8, see `predictor.rs`).
    PackedPredictedLossBits,
}

impl Encoding {
    /// Every encoding, in the order of their codes.
    pub const ALL: [Encoding; 8] = [
        Encoding::RawPlies,
        Encoding::PackedPlies,
        Encoding::RawMillClock,
        Encoding::PackedMillClock,
        Encoding::PackedWdl,
        Encoding::PackedLosses,
        Encoding::PackedLossBits,
        Encoding::PackedPredictedLossBits,
    ];

    /// The header's value-encoding field.
    pub(crate) fn code(self) -> u32 {
        match self {
            Encoding::RawPlies => 1,
            Encoding::PackedPlies => 2,
            Encoding::RawMillClock => 3,
            Encoding::PackedMillClock => 4,
            Encoding::PackedWdl => 5,
            Encoding::PackedLosses => 6,
            Encoding::PackedLossBits => 7,
            Encoding::PackedPredictedLossBits => 8,
        }
    }

    /// The header's format version for a file of this encoding.
    pub(crate) fn version(self) -> u32 {
        if self.is_packed() {
            PACKED_VERSION
        } else {
            RAW_VERSION
        }
    }

    /// The encoding a header's version and value-encoding field name, if
    /// they name one.
    pub(crate) fn from_header(version: u32, code: u32) -> Option<Encoding> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.version() == version && e.code() == code)
    }

    /// What `solve` writes for `variant`.
    pub fn raw(variant: &Variant) -> Encoding {
        if variant.n_move.is_some() {
            Encoding::RawMillClock
        } else {
            Encoding::RawPlies
        }
    }

    /// What `morris pack` writes of a folder of `variant`: win/draw/loss
    /// only or not, every value as it is (`plain`) or the losses. Under the
    /// move-count rule a value is not found from its children's losses:
    /// plain it is.
    pub fn packed(variant: &Variant, wdl_only: bool, plain: bool) -> Encoding {
        match (wdl_only, plain || variant.n_move.is_some()) {
            (false, false) => Encoding::PackedLosses,
            (true, false) => Encoding::PackedLossBits,
            (false, true) if variant.n_move.is_some() => Encoding::PackedMillClock,
            (false, true) => Encoding::PackedPlies,
            (true, true) => Encoding::PackedWdl,
        }
    }

    /// What was asked for when a file of this encoding was packed: the
    /// packer predicts loss bits where that makes the file smaller.
    pub fn as_requested(self) -> Encoding {
        match self {
            Encoding::PackedPredictedLossBits => Encoding::PackedLossBits,
            other => other,
        }
    }

    pub fn is_packed(self) -> bool {
        !matches!(self, Encoding::RawPlies | Encoding::RawMillClock)
    }

    /// Values under the move-count rule: plies to the next mill.
    pub fn mill_clock(self) -> bool {
        matches!(self, Encoding::RawMillClock | Encoding::PackedMillClock)
    }

    /// No distances: win, draw or loss only.
    pub fn wdl_only(self) -> bool {
        matches!(
            self,
            Encoding::PackedWdl | Encoding::PackedLossBits | Encoding::PackedPredictedLossBits
        )
    }

    /// The losses only, the rest found by a one-ply search.
    pub fn losses_only(self) -> bool {
        matches!(
            self,
            Encoding::PackedLosses | Encoding::PackedLossBits | Encoding::PackedPredictedLossBits
        )
    }

    /// Bits XOR a model's guess, the model stored in the file.
    pub fn predicted(self) -> bool {
        self == Encoding::PackedPredictedLossBits
    }

    /// Each value byte as a raw file has it (plain packed files too).
    pub(crate) fn keeps_value_bytes(self) -> bool {
        matches!(
            self,
            Encoding::RawPlies
                | Encoding::RawMillClock
                | Encoding::PackedPlies
                | Encoding::PackedMillClock
        )
    }

    /// Values per byte of a decoded block.
    pub(crate) fn codes_per_byte(self) -> usize {
        match self {
            Encoding::PackedWdl => 4,
            Encoding::PackedLossBits | Encoding::PackedPredictedLossBits => 8,
            _ => 1,
        }
    }

    /// log2 of the positions per packed block: as many as decode to 16 KiB.
    pub fn block_bits(self) -> u32 {
        PACKED_BLOCK_BYTES_BITS + self.codes_per_byte().trailing_zeros()
    }

    /// The kind of folder that holds files of this encoding.
    pub fn storage(self) -> Storage {
        match self {
            _ if !self.is_packed() => Storage::Raw,
            _ if self.wdl_only() => Storage::PackedWdl,
            _ => Storage::Packed,
        }
    }
}

/// What kind of sector files a folder holds, as its manifest says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Raw files: a byte per position (`solve` writes them).
    Raw,
    /// Packed files of every value (`morris pack`).
    Packed,
    /// Packed files of win, draw or loss only (`morris pack --wdl`).
    PackedWdl,
}

impl Storage {
    /// Its manifest line; none for raw files.
    pub(crate) fn manifest_line(self) -> Option<&'static str> {
        match self {
            Storage::Raw => None,
            Storage::Packed => Some("format packed"),
            Storage::PackedWdl => Some("format packed-wdl"),
        }
    }

    /// Whether its files are packed.
    pub fn is_packed(self) -> bool {
        self != Storage::Raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_encoding_has_its_own_field_and_reads_back() {
        let mut fields: Vec<_> = Encoding::ALL
            .iter()
            .map(|e| (e.version(), e.code()))
            .collect();
        fields.sort();
        fields.dedup();
        assert_eq!(fields.len(), Encoding::ALL.len());
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_header(e.version(), e.code()), Some(e));
            // The same code under the other version names nothing.
            let other = if e.is_packed() {
                RAW_VERSION
            } else {
                PACKED_VERSION
            };
            assert_eq!(Encoding::from_header(other, e.code()), None);
        }
    }
}
