//! Where a position lives: its sector and its index inside the sector.

mod indexer;
mod sector;

pub use indexer::{SectorIndex, SetClasses, UsClass, binomial};
pub use sector::{SectorGraph, SectorKey, SectorParseError};
