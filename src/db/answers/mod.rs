//! Answers from a database folder: the [`Tablebase`](tablebase::Tablebase)
//! that maps sector files on demand, the per-thread cache of mapped sectors,
//! a position's value with every move (with and without the move-count
//! rule, from full or win/draw/loss-only folders), lines of perfect play,
//! per-sector statistics, and Malom's ultra-strong ranking of drawing moves.

pub(crate) mod answer;
pub(crate) mod chances;
pub(crate) mod losses;
pub(crate) mod probe;
pub(crate) mod stats;
pub(crate) mod tablebase;
pub(crate) mod thread_sectors;
pub(crate) mod ultra;
pub(crate) mod ultra_keys;
pub(crate) mod without_rule;
