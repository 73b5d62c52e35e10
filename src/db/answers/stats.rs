//! Per-sector statistics of a folder: how many wins, losses and draws, the
//! longest of each, the file's size. Each sector file is read whole, several
//! at a time.

use rayon::prelude::*;

use super::tablebase::Tablebase;
use crate::db::clock_value::ClockValue;
use crate::db::error::{FileError, ProbeError};
use crate::db::files::header::{OVERFLOW_ENTRY_LEN, overflow_entry};
use crate::db::files::packed::NOT_LOST;
use crate::db::files::sector_file::SectorFile;
use crate::db::value::{ESCAPE_BYTE, Value, Wdl};
use crate::index::SectorKey;

/// One sector's statistics (positions up to symmetry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorStats {
    pub sector: SectorKey,
    pub positions: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// The longest win and loss in plies (0 when there is none): to the end
    /// of the game, or under the move-count rule to the next mill; 0 in a
    /// win/draw/loss-only folder.
    pub longest_win: u16,
    pub longest_loss: u16,
    /// The file's size in bytes.
    pub file_bytes: u64,
}

impl SectorStats {
    /// Counts `times` positions of `value`.
    fn add(&mut self, value: Value, times: u64) {
        match value {
            Value::Win(n) => {
                self.wins += times;
                self.longest_win = self.longest_win.max(n);
            }
            Value::Loss(n) => {
                self.losses += times;
                self.longest_loss = self.longest_loss.max(n);
            }
            Value::Draw => self.draws += times,
        }
    }
}

impl Tablebase {
    /// The statistics of one sector, its file checked whole first.
    ///
    /// # Errors
    /// A missing or damaged file.
    pub fn sector_stats(&self, sector: SectorKey) -> Result<SectorStats, ProbeError> {
        let file = self.sector(sector)?;
        let mut stats = SectorStats {
            sector,
            positions: file.header.positions,
            file_bytes: std::fs::metadata(file.path())
                .map_err(crate::db::FileError::read(file.path()))?
                .len(),
            wins: 0,
            losses: 0,
            draws: 0,
            longest_win: 0,
            longest_loss: 0,
        };
        // Tallied per byte value, block by block (each checked, or decoded).
        let mut counts = [0u64; 256];
        file.for_each_block(|block| {
            for &b in block {
                counts[b as usize] += 1;
            }
        })
        .map_err(|source| self.damaged(sector, None, source))?;
        if file.header.encoding.losses_only() {
            return self.losses_stats(stats, &file, &counts);
        }
        if file.header.encoding.wdl_only() {
            // Codes, no plies: the longest stay 0.
            if counts[3..].iter().any(|&n| n > 0) {
                let problem = "it holds a code that is no value".to_string();
                return Err(self.damaged(sector, None, FileError::corrupted(file.path(), problem)));
            }
            stats.losses = counts[Wdl::Loss.code() as usize];
            stats.draws = counts[Wdl::Draw.code() as usize];
            stats.wins = counts[Wdl::Win.code() as usize];
            return Ok(stats);
        }
        if let Some(rule) = self.variant().n_move {
            for (byte, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
                let value = ClockValue::from_byte(byte as u8, rule).ok_or_else(|| {
                    let problem =
                        format!("it holds the byte {byte}, no value under a rule of {rule} plies");
                    self.damaged(sector, None, FileError::corrupted(file.path(), problem))
                })?;
                stats.add(
                    match value {
                        ClockValue::Win(d) => Value::Win(d.into()),
                        ClockValue::Loss(d) => Value::Loss(d.into()),
                        ClockValue::Draw => Value::Draw,
                    },
                    n,
                );
            }
            return Ok(stats);
        }
        for (byte, &n) in counts.iter().enumerate() {
            if n == 0 || byte as u8 == ESCAPE_BYTE {
                continue;
            }
            stats.add(
                Value::from_byte(byte as u8).expect("not the escape byte"),
                n,
            );
        }
        if counts[ESCAPE_BYTE as usize] > 0 {
            // The escaped values, from the overflow table.
            for i in 0..file.header.positions {
                if let Value::Win(n) | Value::Loss(n) = file
                    .value(i)
                    .map_err(|source| self.damaged(sector, None, source))?
                    && n > 253
                {
                    stats.add(Value::from_plies(n), 1);
                }
            }
        }
        Ok(stats)
    }

    /// [`Tablebase::sector_stats`] of a losses file (see `packed.rs`), from
    /// the tally of its codes: the losses counted, the wins as its record
    /// gives them, the rest draws.
    fn losses_stats(
        &self,
        mut stats: SectorStats,
        file: &SectorFile,
        counts: &[u64; 256],
    ) -> Result<SectorStats, ProbeError> {
        let sector = stats.sector;
        let damaged = |problem: &str| {
            self.damaged(
                sector,
                None,
                FileError::corrupted(file.path(), problem.to_string()),
            )
        };
        let wins = file
            .wins()
            .map_err(|source| self.damaged(sector, None, source))?
            .ok_or_else(|| damaged("it has no record of its wins"))?;
        if file.header.encoding.wdl_only() {
            if counts[2..].iter().any(|&n| n > 0) {
                return Err(damaged("it holds a code that is no loss mark"));
            }
            // A predicted file's bits are XOR a guess: its record counts.
            stats.losses = file.predictor().map_or(counts[1], |(losses, _)| losses);
        } else {
            for (byte, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
                match byte as u8 {
                    NOT_LOST => {}
                    ESCAPE_BYTE => stats.losses += n,
                    b if b % 2 == 0 => stats.add(Value::Loss(b.into()), n),
                    _ => return Err(damaged("it holds a byte that is no loss mark")),
                }
            }
            // Escaped losses are the longest: their plies are in the table.
            let table = file.overflow_table();
            for e in table.chunks_exact(OVERFLOW_ENTRY_LEN) {
                let plies = overflow_entry(e, 0).1;
                stats.longest_loss = stats.longest_loss.max(plies.min(u16::MAX.into()) as u16);
            }
            stats.longest_win = u16::try_from(wins.longest)
                .map_err(|_| damaged("its record of its wins is out of range"))?;
        }
        stats.wins = wins.count;
        stats.draws = (stats.wins.checked_add(stats.losses))
            .and_then(|decided| stats.positions.checked_sub(decided))
            .ok_or_else(|| damaged("its record of its wins is out of range"))?;
        Ok(stats)
    }

    /// The statistics of several sectors, read in parallel, in their order.
    ///
    /// # Errors
    /// The first missing or damaged file.
    pub fn stats(&self, sectors: &[SectorKey]) -> Result<Vec<SectorStats>, ProbeError> {
        sectors.par_iter().map(|&s| self.sector_stats(s)).collect()
    }
}
