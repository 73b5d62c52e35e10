//! The file formats of a database folder: the manifest, the sector file
//! header, raw and packed sector files (and the packed files' writer and
//! predictor), the stored index files, and the checked map every file is
//! read through. Documented for other programs in `docs/FORMAT.md`.

pub(crate) mod encoding;
pub(crate) mod folder;
pub(crate) mod header;
mod huffman;
pub(crate) mod index_file;
pub(crate) mod mapped;
pub(crate) mod pack_write;
pub(crate) mod packed;
mod pair_chunks;
pub(crate) mod pair_code;
mod pair_rules;
pub mod predictor;
pub(crate) mod sector_file;
