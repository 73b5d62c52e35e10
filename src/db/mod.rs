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
pub use answers::stats::SectorStats;
pub use answers::tablebase::Tablebase;
pub use answers::thread_sectors::thread_slot;
pub use clock_value::ClockValue;
pub use error::{ErrorKind, FileError, FileKind, JobSize, ProbeError, SOLVE_RATE_TWO_CORES};
pub(crate) use files::folder::remove_stale_temp_files;
pub use files::folder::{MANIFEST, Storage, folder_storage, folder_variant, sector_files};
pub use files::header::{HEADER_LEN, Header};
pub use files::index_file::{StoredIndex, index_file_name, is_current_index, write_stored_index};
pub use files::pack_write::{
    same_values, write_packed, write_packed_choosing, write_packed_in_blocks,
};
pub use files::packed::{PACKED_BLOCK_BYTES_BITS, Packing, SMALLEST_BLOCK_BYTES_BITS, Wins};
pub use files::predictor;
pub use files::sector_file::{SectorFile, file_name, write_sector};
pub use value::{DRAW_BYTE, ESCAPE_BYTE, Fold, LossMark, Value, Wdl};
