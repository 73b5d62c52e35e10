//! Where a position lives: its sector and its index inside the sector.

mod indexer;
mod sector;
mod stored;

pub use indexer::{SectorIndex, SetClasses, UsBlock, UsClass, binomial, for_each_subset};
pub use sector::{SectorGraph, SectorKey, SectorParseError};
pub use stored::{
    StoredIndex, first_checksum_at, index_file_name, is_current_index, write_stored_index,
};
