//! Database files: the value encoding, the file format, writing and mapping
//! sector files, and the probing API over a folder of them.

mod file;
mod format;
mod tablebase;
mod value;

pub use file::{OpenError, SectorFile, file_name, write_sector};
pub use format::{FormatError, HEADER_LEN, Header};
pub use tablebase::{MANIFEST, ProbeError, Tablebase};
pub use value::{DRAW_BYTE, ESCAPE_BYTE, Value};
