//! Database files and the answers read from them: the value encoding, the
//! file formats (sector files, stored index files, both read through one
//! checked map), the folder and its manifest, the errors of this layer, and
//! the probing API over a folder.

mod clock_probe;
mod clock_value;
mod error;
mod file;
mod folder;
mod format;
mod index_file;
mod mapped;
mod pack_write;
mod packed;
pub mod predictor;
mod probe;
mod stats;
mod tablebase;
mod thread_sectors;
mod value;
mod wdl_probe;

pub use clock_probe::{ClockAnswer, ClockMove};
pub use clock_value::ClockValue;
pub use error::{FileError, FileKind, JobSize, ProbeError};
pub use file::{SectorFile, file_name, write_sector};
pub(crate) use folder::remove_stale_temp_files;
pub use folder::{MANIFEST, Storage, folder_storage, folder_variant, sector_files};
pub use format::{HEADER_LEN, Header};
pub use index_file::{StoredIndex, index_file_name, is_current_index, write_stored_index};
pub use pack_write::{same_values, write_packed, write_packed_choosing, write_packed_in_blocks};
pub use packed::{PACKED_BLOCK_BYTES_BITS, Packing, SMALLEST_BLOCK_BYTES_BITS, Wins};
pub use probe::{Answer, Line, LineEnd, MoveValue};
pub use stats::SectorStats;
pub use tablebase::Tablebase;
pub use value::{DRAW_BYTE, ESCAPE_BYTE, Fold, LossMark, Value, Wdl};
pub use wdl_probe::{WdlAnswer, WdlMove};
