//! Where a position lives: its sector and its index inside the sector.

mod indexer;
mod sector;
mod stored;

pub use indexer::{SectorIndex, SetClasses, UsBlock, UsClass, binomial, for_each_subset};
pub use sector::{SectorGraph, SectorKey, SectorParseError};
pub use stored::{StoredIndex, index_file_name, write_stored_index};
