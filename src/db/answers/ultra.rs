//! Malom's "ultra-strong" ranking of drawing moves (Gévay and Danner),
//! computed from a folder and stored beside it in `ultra/`.
//!
//! Two steps, as Malom defines them:
//! 1. Every sector gets a *score* from its statistics: (wins + draws/2) /
//!    positions for the side to move (positions up to symmetry, as the
//!    folder counts them), averaged with one minus the score of the mirrored
//!    sector (the same men, the other side to move) where the game has one.
//!    The scores are ranked into small integers, symmetrically: a score `s`
//!    and `1 - s` get ranks `r` and `levels - 1 - r`, so a rank seen from the
//!    other side is [`Ultra::flip`] of it.
//! 2. A second retrograde pass, unit by unit in solve order, gives every
//!    drawn position a *key*: the best rank the side to move can force while
//!    both sides play only drawing moves. A drawing move into another unit
//!    is worth the key of the position it reaches (seen from the mover), a
//!    game that stays in the unit forever is worth the unit's own rank, and
//!    a game drawn on the board the rank of its sector.
//!
//! The `ultra` player picks at random among the drawing moves of the best
//! key. The pass holds a unit's drawn positions and their moves in memory:
//! it is meant for small games (six, or the standard game's small
//! sectors), not for a whole standard game.

use std::collections::HashMap;

use rayon::prelude::*;

use super::tablebase::Tablebase;
use super::ultra_keys::{
    NOT_DRAWN, SectorScore, ULTRA_DIR, Ultra, format_scores, key_file_name, ranks,
    write_atomically, write_keys,
};
use crate::db::error::{FileError, ProbeError};
use crate::db::files::folder::sector_files;
use crate::db::value::Wdl;
use crate::index::{SectorGraph, SectorKey};
use crate::rules::Position;

/// Step 1 from the folder's statistics.
fn sector_scores(
    tablebase: &Tablebase,
    sectors: &[SectorKey],
) -> Result<Vec<SectorScore>, ProbeError> {
    let stats = tablebase.stats(sectors)?;
    let score_of: HashMap<SectorKey, f64> = stats
        .iter()
        .map(|s| {
            let score = (s.wins as f64 + s.draws as f64 / 2.0) / s.positions.max(1) as f64;
            (s.sector, score)
        })
        .collect();
    let materials: Vec<f64> = stats
        .iter()
        .map(|s| {
            let own = score_of[&s.sector];
            score_of
                .get(&s.sector.mirror())
                .map_or(own, |mirrored| (own + 1.0 - mirrored) / 2.0)
        })
        .collect();
    let (levels, mut rank) = ranks(&materials);
    // A sector and its mirror rank exactly opposite, whatever the rounding
    // of their two materials: a game that never leaves their unit is worth
    // the same to both sides.
    let slot: HashMap<SectorKey, usize> = stats
        .iter()
        .enumerate()
        .map(|(i, s)| (s.sector, i))
        .collect();
    for (i, s) in stats.iter().enumerate() {
        if let Some(&m) = slot.get(&s.sector.mirror())
            && s.sector < s.sector.mirror()
        {
            rank[m] = levels - 1 - rank[i];
        }
    }
    Ok(stats
        .iter()
        .zip(materials.iter().zip(rank))
        .map(|(s, (&material, rank))| SectorScore {
            sector: s.sector,
            positions: s.positions,
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            score: score_of[&s.sector],
            material,
            rank,
        })
        .collect())
}

impl Tablebase {
    /// Computes the ultra-strong ranking of every sector in the folder (which
    /// holds each sector's successors) and writes it to `ultra/`; `progress`
    /// is told each unit done, with the count.
    ///
    /// # Errors
    /// A folder under the move-count rule (its draws depend on the counter),
    /// a missing or damaged sector file, or a file that cannot be written.
    pub fn write_ultra(
        &self,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ultra, ProbeError> {
        if self.variant().n_move.is_some() {
            return Err(ProbeError::RuleMismatch {
                dir: self.dir().to_path_buf(),
                has_rule: true,
            });
        }
        let sectors = sector_files(self.dir())?;
        let scores = sector_scores(self, &sectors)?;
        let mut ultra = Ultra::new(self.variant(), scores, HashMap::new());
        let units = SectorGraph::reachable(self.variant()).units_for(&sectors);
        for (done, unit) in units.iter().enumerate() {
            let keys = unit_keys(self, &ultra, unit)?;
            ultra.keys.extend(keys);
            progress(done + 1, units.len());
        }
        let out = self.dir().join(ULTRA_DIR);
        std::fs::create_dir_all(&out).map_err(FileError::write(&out))?;
        for (sector, keys) in &ultra.keys {
            write_keys(&out.join(key_file_name(*sector)), keys)?;
        }
        let scores_path = out.join("scores.tsv");
        write_atomically(&scores_path, format_scores(ultra.scores()).as_bytes())?;
        Ok(ultra)
    }

    /// The folder's stored ranking, read once.
    ///
    /// # Errors
    /// As [`Ultra::open`].
    pub fn ultra(&self) -> Result<&Ultra, ProbeError> {
        if let Some(ultra) = self.ultra.get() {
            return Ok(ultra);
        }
        let ultra = Ultra::open(self.dir(), self.variant())?;
        Ok(self.ultra.get_or_init(|| ultra))
    }
}

/// A drawn position's choices while both sides keep the draw.
#[derive(Default)]
struct Choices {
    drawn: bool,
    /// Moves that leave the unit (or end the game): their keys for the mover.
    exits: Vec<u16>,
    /// Moves to drawn positions of the same unit: their node numbers.
    inside: Vec<u32>,
}

/// Step 2 for one unit, whose successors' keys `ultra` holds.
fn unit_keys(
    tablebase: &Tablebase,
    ultra: &Ultra,
    unit: &[SectorKey],
) -> Result<Vec<(SectorKey, Vec<u16>)>, ProbeError> {
    let variant = tablebase.variant();
    let mut offsets = Vec::with_capacity(unit.len());
    let mut nodes = 0u64;
    for &sector in unit {
        offsets.push(nodes);
        nodes += ultra.indices[&sector].size();
    }
    let nodes = u32::try_from(nodes).map_err(|_| ProbeError::FolderKind {
        dir: tablebase.dir().to_path_buf(),
        problem: "a unit of more than 4e9 positions is too large for the ultra-strong pass",
    })?;
    let locate = |node: u32| {
        let slot = offsets.partition_point(|&o| o <= u64::from(node)) - 1;
        (slot, u64::from(node) - offsets[slot])
    };
    let node_of = |pos: &Position| {
        let sector = SectorKey::of(pos);
        let slot = unit.iter().position(|&s| s == sector)?;
        Some(offsets[slot] as u32 + ultra.indices[&sector].index_of(pos) as u32)
    };
    let choices: Vec<Choices> = (0..nodes)
        .into_par_iter()
        .map(|node| {
            let (slot, index) = locate(node);
            let sector = unit[slot];
            let pos = ultra.indices[&sector].position(index, sector.us_hand, sector.them_hand);
            if tablebase.wdl_of_checked(&pos)? != Wdl::Draw {
                return Ok(Choices::default());
            }
            let mut choices = Choices {
                drawn: true,
                ..Choices::default()
            };
            if variant.outcome(&pos).is_some() {
                choices.exits.push(ultra.sector_rank(sector));
                return Ok(choices);
            }
            let mut failed = None;
            variant.for_each_move(&pos, |_, child| {
                if failed.is_some() {
                    return;
                }
                match tablebase.wdl_of_checked(&child) {
                    Ok(Wdl::Draw) => {}
                    Ok(_) => return,
                    Err(e) => {
                        failed = Some(e);
                        return;
                    }
                }
                match node_of(&child).filter(|_| variant.outcome(&child).is_none()) {
                    Some(inside) => choices.inside.push(inside),
                    None => match ultra.move_key(variant, &child) {
                        Some(key) => choices.exits.push(key),
                        None => failed = Some(inconsistent(tablebase, &child)),
                    },
                }
            });
            failed.map_or(Ok(choices), Err)
        })
        .collect::<Result<_, ProbeError>>()?;
    let stay: Vec<u16> = unit.iter().map(|&s| ultra.sector_rank(s)).collect();
    let stay_of = |node: u32| stay[locate(node).0];
    let values = solve_keys(&choices, stay_of, ultra.levels());
    Ok(unit
        .iter()
        .enumerate()
        .map(|(slot, &sector)| {
            let start = offsets[slot] as usize;
            let end = start + ultra.indices[&sector].size() as usize;
            let keys = (start..end)
                .map(|n| {
                    if choices[n].drawn {
                        values[2 * n]
                    } else {
                        NOT_DRAWN
                    }
                })
                .collect();
            (sector, keys)
        })
        .collect())
}

fn inconsistent(tablebase: &Tablebase, child: &Position) -> ProbeError {
    ProbeError::File(FileError::Corrupted {
        path: tablebase.dir().join(ULTRA_DIR),
        what: format!(
            "{} is drawn in the folder but has no key in the ranking",
            child.notation(tablebase.variant().board)
        ),
    })
}

/// Solves the keys of a unit's game, in which both sides keep the draw,
/// the first (of every node's two copies: `2n` the side to move is the
/// first, `2n + 1` the second) maximises and the second minimises the
/// rank seen from the first, a move out of the unit ends the game with its
/// key and a game that never leaves is worth `stay`. For each threshold
/// `t` in rising order, the nodes where the first can force at least `t`
/// get `t`: where staying is worth `t` or more, those from which the second
/// cannot force an exit below `t`; else those from which the first can
/// force an exit of `t` or more (attractors, counted down as in the solve).
/// Returns every copy's value seen from the first.
fn solve_keys(choices: &[Choices], stay_of: impl Fn(u32) -> u16, levels: u16) -> Vec<u16> {
    let flip = |v: u16| levels - 1 - v;
    let copies = 2 * choices.len();
    // As the first sees it: copy 0 is the first to move, copy 1 the second.
    let seen = |copy: usize, v: u16| if copy == 0 { v } else { flip(v) };
    // Who reaches each node: predecessors of the inside moves.
    // Offsets in `usize`: a unit's moves may outnumber its positions past u32.
    let mut starts = vec![0usize; choices.len() + 1];
    for c in choices {
        for &to in &c.inside {
            starts[to as usize + 1] += 1;
        }
    }
    for n in 0..choices.len() {
        starts[n + 1] += starts[n];
    }
    let mut fill = starts.clone();
    let mut from = vec![0u32; starts[choices.len()]];
    for (n, c) in choices.iter().enumerate() {
        for &to in &c.inside {
            from[fill[to as usize]] = n as u32;
            fill[to as usize] += 1;
        }
    }
    // Every value a node can end with, seen from either copy, rising.
    let mut present = vec![false; usize::from(levels)];
    for (n, c) in choices.iter().enumerate() {
        for &v in c.exits.iter().chain([&stay_of(n as u32)]) {
            present[usize::from(v)] = true;
            present[usize::from(flip(v))] = true;
        }
    }
    let thresholds: Vec<u16> = (0..levels).filter(|&v| present[usize::from(v)]).collect();
    let mut values = vec![thresholds.first().copied().unwrap_or(0); copies];
    let mut waiting = vec![0u32; copies];
    let mut queue = Vec::new();
    for &t in thresholds.iter().skip(1) {
        queue.clear();
        for (n, c) in choices.iter().enumerate().filter(|(_, c)| c.drawn) {
            for copy in 0..2 {
                let node = 2 * n + copy;
                // The attractor's player: the second where staying is
                // worth `t`, aiming below it; else the first, aiming at it.
                let second_attracts = seen(copy, stay_of(n as u32)) >= t;
                let target = |v: u16| (seen(copy, v) >= t) != second_attracts;
                let controls = (copy == 1) == second_attracts;
                let hits = c.exits.iter().any(|&v| target(v));
                let misses = c.exits.iter().any(|&v| !target(v));
                waiting[node] = match (controls, hits, misses) {
                    (true, true, _) => 0,
                    (true, false, _) => 1,
                    (false, _, true) => u32::MAX,
                    (false, _, false) => c.inside.len() as u32,
                };
                if waiting[node] == 0 {
                    queue.push(node);
                }
            }
        }
        let mut attracted = vec![false; copies];
        for &node in &queue {
            attracted[node] = true;
        }
        while let Some(node) = queue.pop() {
            let (n, copy) = (node / 2, node % 2);
            for &p in &from[starts[n]..starts[n + 1]] {
                let pred = 2 * p as usize + (1 - copy);
                if attracted[pred] || waiting[pred] == u32::MAX {
                    continue;
                }
                waiting[pred] -= 1;
                if waiting[pred] == 0 {
                    attracted[pred] = true;
                    queue.push(pred);
                }
            }
        }
        for (n, _) in choices.iter().enumerate().filter(|(_, c)| c.drawn) {
            for copy in 0..2 {
                let node = 2 * n + copy;
                let second_attracts = seen(copy, stay_of(n as u32)) >= t;
                if attracted[node] != second_attracts {
                    values[node] = t;
                }
            }
        }
    }
    values
}
