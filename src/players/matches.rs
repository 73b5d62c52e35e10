//! A match: many games between two players, colours alternating, from the
//! start or from random positions of a sector, each game reproducible from
//! the match's seed and its number, played in parallel.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

use super::{Player, Random};
use crate::db::{ProbeError, Tablebase};
use crate::index::{SectorIndex, SectorKey};
use crate::rules::{Outcome, Position, Variant};

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    pub games: u64,
    pub seed: u64,
    /// Start each game from a random position of this sector, else from the
    /// start. Games 2k and 2k + 1 start from the same position, the first
    /// player to move in the even one.
    pub from: Option<SectorKey>,
    /// A game this long is a draw.
    pub max_plies: u32,
}

/// A game's result for the first player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Draw,
    Loss,
}

/// The first player's results, with its score (a win 1, a draw 1/2) and the
/// score's 95% confidence interval (normal approximation).
#[derive(Clone, Debug, Serialize)]
pub struct MatchResult {
    pub first: String,
    pub second: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score: f64,
    pub interval_95: [f64; 2],
    pub seed: u64,
}

/// Plays `options.games` games between `players[0]` and `players[1]`,
/// calling `done` after each.
///
/// # Errors
/// A missing or damaged sector file, or a sector to start from that has no
/// position of play.
pub fn play_match(
    variant: &'static Variant,
    tablebase: Option<&Tablebase>,
    players: [Player; 2],
    options: &MatchOptions,
    done: &(dyn Fn() + Sync),
) -> Result<MatchResult, ProbeError> {
    for player in players {
        player.ready(tablebase)?;
    }
    let results: Vec<GameResult> = (0..options.games)
        .into_par_iter()
        .map(|game| {
            let mut random = Random::new(options.seed ^ game.wrapping_mul(0xa076_1d64_78bd_642f));
            // Games 2k and 2k + 1 start from the same position, colours swapped.
            let mut pair =
                Random::new(!options.seed ^ (game / 2).wrapping_mul(0xe703_7ed1_a0b4_28db));
            let start = match options.from {
                None => (Position::start(variant), 0),
                Some(sector) => (random_position(variant, sector, &mut pair)?, 0),
            };
            // Colours alternate: the first player moves first in even games.
            let seats = if game % 2 == 0 {
                players
            } else {
                [players[1], players[0]]
            };
            let first_moves = game % 2 == 0;
            let result = play_game(
                variant,
                tablebase,
                seats,
                start,
                options.max_plies,
                &mut random,
            )?;
            done();
            Ok(match (result, first_moves) {
                (GameResult::Draw, _) => GameResult::Draw,
                (r, true) => r,
                (GameResult::Win, false) => GameResult::Loss,
                (_, false) => GameResult::Win,
            })
        })
        .collect::<Result<_, ProbeError>>()?;
    let count = |r| results.iter().filter(|&&x| x == r).count() as u64;
    let (wins, draws, losses) = (
        count(GameResult::Win),
        count(GameResult::Draw),
        count(GameResult::Loss),
    );
    let n = options.games.max(1) as f64;
    let score = (wins as f64 + draws as f64 / 2.0) / n;
    let second_moment = (wins as f64 + draws as f64 / 4.0) / n;
    let spread = 1.96 * ((second_moment - score * score).max(0.0) / n).sqrt();
    Ok(MatchResult {
        first: players[0].to_string(),
        second: players[1].to_string(),
        games: options.games,
        wins,
        draws,
        losses,
        score,
        interval_95: [(score - spread).max(0.0), (score + spread).min(1.0)],
        seed: options.seed,
    })
}

/// One game: `seats[0]` moves first from `start`. The result is for it.
fn play_game(
    variant: &'static Variant,
    tablebase: Option<&Tablebase>,
    seats: [Player; 2],
    start: (Position, u8),
    max_plies: u32,
    random: &mut Random,
) -> Result<GameResult, ProbeError> {
    let (mut pos, mut counter) = start;
    let mut seen: HashMap<Position, u8> = HashMap::new();
    for ply in 0..max_plies {
        let mover = (ply % 2) as usize;
        // The result for the side to move, seen from seat 0.
        let for_seat0 = |mover_wins: bool| {
            if mover_wins == (mover == 0) {
                GameResult::Win
            } else {
                GameResult::Loss
            }
        };
        match variant.outcome(&pos) {
            Some(Outcome::Lost) => return Ok(for_seat0(false)),
            Some(Outcome::Won) => return Ok(for_seat0(true)),
            Some(Outcome::Drawn) => return Ok(GameResult::Draw),
            None => {}
        }
        if variant.n_move.is_some_and(|n| counter >= n) {
            return Ok(GameResult::Draw);
        }
        let times = seen.entry(pos).or_insert(0);
        *times += 1;
        if *times >= 3 {
            return Ok(GameResult::Draw);
        }
        let times_seen = |p: &Position| seen.get(p).copied().unwrap_or(0);
        let play = seats[mover].choose(variant, tablebase, &pos, counter, &times_seen, random)?;
        pos = variant
            .moves(&pos)
            .into_iter()
            .find(|&(m, _)| m == play)
            .map(|(_, child)| child)
            .expect("a player chooses a legal move");
        // The mover's men are the child's other side.
        let mill = variant.board.closes_mill(pos.them(), play.to);
        counter = if mill { 0 } else { counter.saturating_add(1) };
    }
    Ok(GameResult::Draw)
}

/// A random position of play of `sector` whose game is not over, its side
/// to move White.
fn random_position(
    variant: &'static Variant,
    sector: SectorKey,
    random: &mut Random,
) -> Result<Position, ProbeError> {
    let index = SectorIndex::of_sector(variant.board, sector);
    for _ in 0..10_000 {
        let i = random.next_u64() % index.size().max(1);
        let pos = index.position(i, sector.us_hand, sector.them_hand);
        if variant.check_position(&pos).is_ok() && variant.outcome(&pos).is_none() {
            return Ok(pos);
        }
    }
    Err(ProbeError::FolderKind {
        dir: std::path::PathBuf::new(),
        problem: "the sector to start from has no position with a move",
    })
}
