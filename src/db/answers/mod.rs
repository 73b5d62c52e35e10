//! Answers from a database folder: the [`Tablebase`](tablebase::Tablebase)
//! that maps sector files on demand, the per-thread cache of mapped sectors,
//! a position's value with every move (with and without the move-count
//! rule, from full or win/draw/loss-only folders), lines of perfect play,
//! and per-sector statistics.

pub(crate) mod answer;
pub(crate) mod chances;
pub(crate) mod probe;
pub(crate) mod stats;
pub(crate) mod tablebase;
pub(crate) mod thread_sectors;
