//! Database files and the answers read from them: the value encoding, the
//! file formats (sector files, stored index files, both read through one
//! checked map), the folder and its manifest, the errors of this layer, and
//! the probing API over a folder.

mod answers;
mod clock_value;
mod error;
mod files;
mod value;

pub use answers::answer::{
    Answer, Category, FolderValues, Fresh, Line, LineAnswer, LineEnd, MoveAnswer, NoPlies,
    RuleFields, Stored, Verdict,
};
pub use answers::chances::{Ranking, chances_order, is_error, rank};
pub use answers::stats::SectorStats;
pub use answers::tablebase::Tablebase;
pub use answers::ultra_keys::{NOT_DRAWN, SectorScore, ULTRA_DIR, Ultra};
pub(crate) use clock_value::marked_draw_byte;
pub use clock_value::{BLESSED_LOSS_BYTE, CURSED_WIN_BYTE, ClockValue};
pub use error::{
    ErrorKind, FileError, FileKind, JobSize, ProbeError, SOLVE_RATE_TWO_CORES, disk_size,
    estimated_time,
};
pub use files::encoding::Storage;
pub use files::encoding::{Coder, Encoding, PAIR_BLOCK_BITS};
pub(crate) use files::folder::remove_stale_temp_files;
pub use files::folder::{
    MANIFEST, folder_marks_draws, folder_storage, folder_variant, sector_files,
};
pub use files::header::Header;
pub use files::index_file::{
    StoredIndex, copy_stored_index, index_file_name, is_current_index, write_stored_index,
};
pub use files::pack_write::{
    same_values, write_packed, write_packed_checked, write_packed_in_blocks,
};
pub(crate) use files::packed::NOT_LOST;
pub use files::packed::{
    KeptBlocks, PACKED_BLOCK_BYTES_BITS, PAIR_BLOCKS_KEPT_DECODED, SMALLEST_BLOCK_BYTES_BITS, Wins,
};
pub(crate) use files::sector_file::write_sector;
pub use files::sector_file::{SectorFile, file_name, raw_file_len};
pub(crate) use value::{DRAW_BYTE, ESCAPE_BYTE};
pub use value::{Fold, LossMark, Value, Wdl};

/// What the tests and the measurement programs use to write files by hand
/// (planted faults, files of other block sizes) and to read their bytes:
/// not part of the library's API, built only with the `internals` feature
/// (which the crate's own tests and benches turn on).
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use super::answers::thread_sectors::thread_slot;
    pub use super::files::header::{HEADER_LEN, Header};
    pub use super::files::pack_write::write_packed_choosing;
    pub use super::files::pair_code::{Grammar, MAX_BLOCK_LEN, PairCode};
    pub use super::files::predictor;
    pub use super::files::sector_file::write_sector;
    pub use super::value::{DRAW_BYTE, ESCAPE_BYTE};
    use crate::index::SectorKey;
    use crate::rules::Variant;

    /// The header of a new raw file of `positions` values of `sector`.
    pub fn header(variant: &Variant, sector: SectorKey, positions: u64) -> Header {
        Header::new(variant, sector, positions)
    }

    /// `header` with another block size (log2 of the values per block).
    pub fn with_block_bits(mut header: Header, block_bits: u32) -> Header {
        header.block_bits = block_bits;
        header
    }
}
