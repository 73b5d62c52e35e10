//! Where a position lives: its sector and its index inside the sector.

mod built_once;
mod combinatorics;
mod indexer;
mod sector;

pub(crate) use combinatorics::colex_rank;
pub use combinatorics::{binomial, for_each_subset};
pub(crate) use indexer::{RepresentativeClasses, UsBlock, UsClass};
pub use indexer::{SectorIndex, SetClasses};
pub use sector::{SectorGraph, SectorKey, SectorParseError};
