//! The stored ultra-strong ranking of a folder (`ultra/`, beside its
//! sector files): the sector scores and every drawn position's key, their
//! files, and the key of a move. `ultra.rs` beside it computes them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::db::error::{FileError, ProbeError};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Position, Variant};

/// The companion folder's name, inside the database folder.
pub const ULTRA_DIR: &str = "ultra";
/// The key of a position that is not drawn.
pub const NOT_DRAWN: u16 = u16::MAX;
/// Scores are compared on this grid, so that `s` and `1 - s` mirror exactly.
const GRID: i64 = 1 << 40;
const MAGIC: &[u8; 8] = b"MORULTRA";
const FILE_HEADER: usize = 24;

/// One sector's score (step 1).
#[derive(Clone, Debug, PartialEq)]
pub struct SectorScore {
    pub sector: SectorKey,
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// (wins + draws/2) / positions, for the side to move.
    pub score: f64,
    /// The score averaged with one minus the mirrored sector's, where
    /// there is one; else the score.
    pub material: f64,
    /// Its rank among every `material` and one minus it: 0 the worst.
    pub rank: u16,
}

/// The ranking of a folder: sector scores and every drawn position's key.
pub struct Ultra {
    levels: u16,
    scores: Vec<SectorScore>,
    rank_of: HashMap<SectorKey, u16>,
    pub(super) keys: HashMap<SectorKey, Vec<u16>>,
    pub(super) indices: HashMap<SectorKey, Arc<SectorIndex>>,
}

impl Ultra {
    /// How many ranks there are (0 to `levels - 1`).
    pub fn levels(&self) -> u16 {
        self.levels
    }

    pub fn scores(&self) -> &[SectorScore] {
        &self.scores
    }

    /// A rank or key seen from the other side.
    pub fn flip(&self, rank: u16) -> u16 {
        self.levels - 1 - rank
    }

    /// A sector's rank for its side to move; a sector the folder lacks
    /// (a full board, drawn on the spot) ranks in the middle.
    pub fn sector_rank(&self, sector: SectorKey) -> u16 {
        self.rank_of
            .get(&sector)
            .copied()
            .unwrap_or((self.levels - 1) / 2)
    }

    /// The key of a drawn position for its side to move; `None` for one
    /// that is not drawn or not in the folder.
    pub fn key(&self, pos: &Position) -> Option<u16> {
        let sector = SectorKey::of(pos);
        let index = self.indices.get(&sector)?.index_of(pos);
        let key = *self.keys.get(&sector)?.get(index as usize)?;
        (key != NOT_DRAWN).then_some(key)
    }

    /// A drawing move's key for the side that plays it, from the position
    /// it leads to (`None` where that is not a drawn position).
    pub fn move_key(&self, variant: &Variant, child: &Position) -> Option<u16> {
        if variant.outcome(child).is_some() {
            return Some(self.flip(self.sector_rank(SectorKey::of(child))));
        }
        self.key(child).map(|k| self.flip(k))
    }

    /// Reads the ranking stored in `dir`'s `ultra/` folder.
    ///
    /// # Errors
    /// No ranking there ([`ProbeError::NoUltra`]), or a damaged file.
    pub fn open(dir: &Path, variant: &'static Variant) -> Result<Ultra, ProbeError> {
        let ultra_dir = dir.join(ULTRA_DIR);
        let scores_path = ultra_dir.join("scores.tsv");
        if !scores_path.exists() {
            return Err(ProbeError::NoUltra {
                dir: dir.to_path_buf(),
            });
        }
        let text = std::fs::read_to_string(&scores_path).map_err(FileError::read(&scores_path))?;
        let scores = parse_scores(&text).map_err(|what| FileError::Corrupted {
            path: scores_path.clone(),
            what,
        })?;
        let mut keys = HashMap::new();
        for s in &scores {
            let path = ultra_dir.join(key_file_name(s.sector));
            keys.insert(s.sector, read_keys(&path)?);
        }
        Ok(Ultra::new(variant, scores, keys))
    }

    pub(super) fn new(
        variant: &'static Variant,
        scores: Vec<SectorScore>,
        keys: HashMap<SectorKey, Vec<u16>>,
    ) -> Ultra {
        let materials: Vec<f64> = scores.iter().map(|s| s.material).collect();
        let levels = ranks(&materials).0;
        let board = variant.board;
        Ultra {
            levels,
            rank_of: scores.iter().map(|s| (s.sector, s.rank)).collect(),
            indices: scores
                .iter()
                .map(|s| {
                    let index = SectorIndex::of_sector(board, s.sector);
                    (s.sector, index)
                })
                .collect(),
            scores,
            keys,
        }
    }
}

/// The ranks of `materials` in the symmetric set of every material and one
/// minus it: `(levels, rank of each)`.
pub(super) fn ranks(materials: &[f64]) -> (u16, Vec<u16>) {
    let grid = |v: f64| (v * GRID as f64).round() as i64;
    let mut points: Vec<i64> = materials
        .iter()
        .flat_map(|&m| [grid(m), GRID - grid(m)])
        .chain([GRID / 2])
        .collect();
    points.sort_unstable();
    points.dedup();
    let rank = |v: f64| points.binary_search(&grid(v)).unwrap_or(0) as u16;
    (
        points.len() as u16,
        materials.iter().map(|&m| rank(m)).collect(),
    )
}

pub(super) fn key_file_name(sector: SectorKey) -> String {
    format!("{sector}.ultra")
}

/// A key file: `MORULTRA`, the positions and the xxh3 of the keys (u64
/// each, little-endian), then one u16 key per position.
pub(super) fn write_keys(path: &Path, keys: &[u16]) -> Result<(), ProbeError> {
    let payload: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    let mut bytes = Vec::with_capacity(FILE_HEADER + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    write_atomically(path, &bytes)
}

fn read_keys(path: &Path) -> Result<Vec<u16>, ProbeError> {
    let bytes = std::fs::read(path).map_err(FileError::read(path))?;
    let corrupted = |what: &str| FileError::Corrupted {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    if bytes.len() < FILE_HEADER || &bytes[..8] != MAGIC {
        return Err(corrupted("not a key file of the ultra-strong ranking").into());
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    let payload = &bytes[FILE_HEADER..];
    if payload.len() as u64 != word(8).saturating_mul(2) {
        return Err(corrupted("its length is not that of its positions").into());
    }
    if xxhash_rust::xxh3::xxh3_64(payload) != word(16) {
        return Err(corrupted("its checksum does not match").into());
    }
    Ok(payload
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect())
}

pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ProbeError> {
    let temp = PathBuf::from(format!("{}.tmp", path.display()));
    std::fs::write(&temp, bytes).map_err(FileError::write(&temp))?;
    std::fs::rename(&temp, path).map_err(FileError::write(path))?;
    Ok(())
}

const SCORES_HEADER: &str = "sector\tpositions\twins\tdraws\tlosses\tscore\tmaterial\trank";

pub(super) fn format_scores(scores: &[SectorScore]) -> String {
    let mut text = format!("{SCORES_HEADER}\n");
    for s in scores {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            s.sector, s.positions, s.wins, s.draws, s.losses, s.score, s.material, s.rank
        ));
    }
    text
}

fn parse_scores(text: &str) -> Result<Vec<SectorScore>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(SCORES_HEADER) {
        return Err("its first line is not the scores' header".into());
    }
    lines
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let bad = || format!("bad line '{line}'");
            if f.len() != 8 {
                return Err(bad());
            }
            let n = |i: usize| f[i].parse::<u64>().map_err(|_| bad());
            let x = |i: usize| f[i].parse::<f64>().map_err(|_| bad());
            Ok(SectorScore {
                sector: f[0].parse().map_err(|_| bad())?,
                positions: n(1)?,
                wins: n(2)?,
                draws: n(3)?,
                losses: n(4)?,
                score: x(5)?,
                material: x(6)?,
                rank: f[7].parse().map_err(|_| bad())?,
            })
        })
        .collect()
}
