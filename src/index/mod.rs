//! Where a position lives: its sector and its index inside the sector.

mod indexer;
mod sector;

pub(crate) use indexer::colex_rank;
pub use indexer::{SectorIndex, SetClasses, UsBlock, UsClass, binomial, for_each_subset};
pub use sector::{SectorGraph, SectorKey, SectorParseError};
