//! Checking a database: its files' checksums, then every stored value
//! recomputed from its children's stored values by forward move generation.
//! Together with the game's end rules this proves every value and distance:
//! a win in n has a child lost in n − 1 and none lost sooner, a loss in n
//! only children won, the slowest in n − 1, and a draw no child lost and one
//! drawn; the distances make wins and losses well-founded, and a false draw
//! would need a child falsely valued too. Nothing here shares code with the
//! solver but the rules, the index, the files and the value fold.
//!
//! A win/draw/loss-only folder is checked the same way, win from a lost
//! child, loss from won children only, draw otherwise: that shows its values
//! consistent, not proven (without distances a ring of wins and losses
//! could hold itself up). Its proof is the full folder's, checked before
//! packing; `pack` compares every packed value with the raw file's.
//!
//! A folder packed as losses (see `db/packed.rs`) holds no wins or draws:
//! each value is found by the probe's one-ply search. Every sector is
//! decoded once that way into a scratch raw folder and checked by the fast
//! check ([`decoded`]; loss bits without plies as wins, draws and losses);
//! a sample, `--oracle`, and predicted loss bits (whose children's bits
//! need their positions) are checked against children's values found the
//! same way ([`oracle::check_losses`]).
//!
//! [`forward`] is the fast check (positions grouped so that their children
//! lie together in their files); [`oracle`] the simple one it is tested
//! against.

mod blocks;
pub mod clock;
pub mod decoded;
pub mod forward;
mod move_rank;
pub mod oracle;

use std::fmt;

use crate::db::{ClockValue, FolderValues, ProbeError, Tablebase, Value, Wdl};
use crate::index::SectorKey;
use crate::rules::Position;

/// A value that does not follow from its children.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub sector: SectorKey,
    pub index: u64,
    pub position: Position,
    pub stored: Found,
    pub recomputed: Found,
}

/// A value as a check found it: a distance to the end, under the
/// move-count rule the plies to the next mill, or in a win/draw/loss-only
/// folder the kind alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    Distance(Value),
    Clock(ClockValue),
    Wdl(Wdl),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Distance(v) => v.fmt(f),
            Found::Clock(v) => v.fmt(f),
            Found::Wdl(v) => v.fmt(f),
        }
    }
}

/// What checking a sector found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Positions checked.
    pub positions: u64,
    /// The first mismatches found (at most the limit asked for).
    pub mismatches: Vec<Mismatch>,
    /// All mismatches found.
    pub total_mismatches: u64,
}

impl Checked {
    fn add(&mut self, mismatch: Mismatch, limit: usize) {
        self.total_mismatches += 1;
        if self.mismatches.len() < limit {
            self.mismatches.push(mismatch);
        }
    }

    fn merge(mut self, other: Checked, limit: usize) -> Checked {
        self.positions += other.positions;
        self.total_mismatches += other.total_mismatches;
        for m in other.mismatches {
            if self.mismatches.len() < limit {
                self.mismatches.push(m);
            }
        }
        self
    }
}

/// The indices `verify --sample` draws from a sector of `size` positions
/// for `seed`: the `n`-th is `pick(n)`. Each sector draws its own from the
/// seed and its name.
fn sample_indices(sector: SectorKey, seed: u64, size: u64) -> impl Fn(u64) -> u64 + Sync {
    let sector_seed = xxhash_rust::xxh3::xxh3_64_with_seed(sector.to_string().as_bytes(), seed);
    move |n| xxhash_rust::xxh3::xxh3_64_with_seed(&n.to_le_bytes(), sector_seed) % size
}

/// How to check a sector's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Every position, the fast way.
    All,
    /// `count` positions drawn at random (reproducibly from `seed`).
    Sample { count: u64, seed: u64 },
    /// Every position through the simple checker (slow; the oracle).
    Oracle,
}

/// Checks one sector: its file's checksums and its stored index's, then its
/// values as `check` says; at most `limit` mismatches are kept.
///
/// # Errors
/// A damaged file, or a child's sector missing.
pub fn verify_sector(
    tablebase: &Tablebase,
    sector: SectorKey,
    check: Check,
    limit: usize,
) -> Result<Checked, ProbeError> {
    tablebase.verify_index(sector)?;
    let file = tablebase.sector(sector)?;
    // A sample as large as the sector is the sector: every position once,
    // not the same ones drawn again and again.
    let check = match check {
        Check::Sample { count, .. } if count >= file.header.positions() => Check::All,
        other => other,
    };
    if file.header.encoding.losses_only() {
        // Values found by a search: checked the simple way, one ply deeper.
        // A sample decodes only the chunks it reads.
        let sample = match check {
            Check::Sample { count, seed } => Some((count, seed)),
            Check::All | Check::Oracle => None,
        };
        match sample {
            Some(_) => tablebase.verify_checksums_only(sector)?,
            None => tablebase.verify_checksum(sector)?,
        }
        return oracle::check_losses(tablebase, sector, limit, sample);
    }
    match check {
        // The fast check checks every file it reads whole first.
        Check::All => forward::Forward::new(tablebase, sector)?.check_all(limit),
        Check::Sample { count, seed } => {
            forward::Forward::new(tablebase, sector)?.check_sample(count, seed, limit)
        }
        Check::Oracle => {
            tablebase.verify_checksum(sector)?;
            match tablebase.values() {
                FolderValues::WinDrawLoss => oracle::check_sector_wdl(tablebase, sector, limit),
                FolderValues::MoveCountRule { .. } => clock::check_sector(tablebase, sector, limit),
                FolderValues::Distances => oracle::check_sector(tablebase, sector, limit),
            }
        }
    }
}
