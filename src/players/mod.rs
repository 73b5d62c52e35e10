//! Players that choose moves, and matches between them (`morris match`):
//! perfect play from a folder (`perfect`, random among the best moves;
//! `ranked`, the best by the chances they leave the opponent; `ultra`,
//! Malom's ultra-strong ranking of drawing moves), and two
//! fallible models of a person that read no folder (`noisy:P`, a random
//! legal move with probability P and else a perfect one; `search:D`, a
//! D-ply alpha-beta search over a simple evaluation).

mod matches;
mod search;

use std::fmt;
use std::str::FromStr;

pub use matches::{GameResult, MatchOptions, MatchResult, play_match};
pub use search::{evaluate, search_move};

use crate::db::{MoveAnswer, ProbeError, Ranking, Tablebase, chances_order};
use crate::rules::{Move, Position, Variant};

/// One player of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Player {
    /// A random move among the best by value.
    Perfect,
    /// The first move of the default ranking: the best by value, then by
    /// the share of the opponent's replies that are errors (random among
    /// moves equal in both).
    Ranked,
    /// A random move among the best by value and, among drawing moves, by
    /// Malom's ultra-strong key ([`crate::db::Ultra`], stored beside the folder).
    Ultra,
    /// A random legal move with probability `p`, else a [`Player::Perfect`] move.
    Noisy(f64),
    /// An alpha-beta search of this many plies, no folder.
    Search(u32),
}

impl Player {
    /// Whether it reads a folder.
    pub fn needs_folder(self) -> bool {
        !matches!(self, Player::Search(_))
    }

    /// Checks up front what it reads: the ranking of an `ultra` player,
    /// which a game may need only late (or, from a won sector, never).
    ///
    /// # Errors
    /// [`ProbeError::NoUltra`] or a damaged ranking.
    pub fn ready(self, tablebase: Option<&Tablebase>) -> Result<(), ProbeError> {
        match (self, tablebase) {
            (Player::Ultra, Some(tablebase)) => tablebase.ultra().map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Its move at `pos` (a position of play with a move), with the
    /// counter of plies since the last mill under the rule.
    ///
    /// # Errors
    /// A missing or damaged sector file, or no folder for a player that
    /// needs one.
    pub fn choose(
        self,
        variant: &Variant,
        tablebase: Option<&Tablebase>,
        pos: &Position,
        counter: u8,
        seen: &dyn Fn(&Position) -> u8,
        random: &mut Random,
    ) -> Result<Move, ProbeError> {
        let folder = || {
            tablebase.ok_or(ProbeError::FolderKind {
                dir: std::path::PathBuf::new(),
                problem: "this player reads a database folder, and none was given",
            })
        };
        match self {
            Player::Perfect => {
                let moves = folder()?.ranked_moves(pos, counter, Ranking::Best)?;
                Ok(pick_equal(&moves, |m| m.order_key(), random))
            }
            Player::Ranked => {
                let moves = folder()?.ranked_moves(pos, counter, Ranking::Chances)?;
                // Within the best value, a position met less often in this
                // game (repeating one ends a drawn game sooner), then the
                // best share of errors, at random among equals.
                let top = moves[0].order_key();
                let fewest = moves
                    .iter()
                    .filter(|m| m.order_key() == top)
                    .map(|m| seen(&m.position))
                    .min();
                let fresh: Vec<&MoveAnswer> = moves
                    .iter()
                    .filter(|m| m.order_key() == top && Some(seen(&m.position)) == fewest)
                    .collect();
                let sharpest = fresh
                    .iter()
                    .copied()
                    .max_by(|a, b| chances_order(a, b))
                    .unwrap_or(&moves[0]);
                let equal: Vec<&MoveAnswer> = fresh
                    .into_iter()
                    .filter(|m| chances_order(m, sharpest) == std::cmp::Ordering::Equal)
                    .collect();
                Ok(equal[random.below(equal.len())].play)
            }
            Player::Ultra => {
                let tablebase = folder()?;
                let moves = tablebase.ranked_moves(pos, counter, Ranking::Best)?;
                if moves[0].value.wdl != crate::db::Wdl::Draw {
                    return Ok(pick_equal(&moves, |m| m.order_key(), random));
                }
                let ultra = tablebase.ultra()?;
                let key = |m: &MoveAnswer| (m.order_key(), ultra.move_key(variant, &m.position));
                let best = moves.iter().map(key).max().unwrap_or_default();
                let equal: Vec<&MoveAnswer> = moves.iter().filter(|m| key(m) == best).collect();
                Ok(equal[random.below(equal.len())].play)
            }
            Player::Noisy(p) => {
                if random.unit() < p {
                    let moves = variant.moves(pos);
                    Ok(moves[random.below(moves.len())].0)
                } else {
                    Player::Perfect.choose(variant, tablebase, pos, counter, seen, random)
                }
            }
            Player::Search(depth) => Ok(search_move(variant, pos, depth, random)),
        }
    }
}

/// A random move among those whose `key` equals the first's.
fn pick_equal<K: PartialEq>(
    moves: &[MoveAnswer],
    key: impl Fn(&MoveAnswer) -> K,
    random: &mut Random,
) -> Move {
    let first = key(&moves[0]);
    let equal: Vec<&MoveAnswer> = moves.iter().filter(|m| key(m) == first).collect();
    equal[random.below(equal.len())].play
}

/// A player's name that names none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a player: perfect, ranked, ultra, noisy:P (P from 0 to 1) or search:D (D from 1 to 8)"
)]
pub struct NotAPlayer(pub String);

impl FromStr for Player {
    type Err = NotAPlayer;

    fn from_str(text: &str) -> Result<Player, NotAPlayer> {
        let number = |s: &str| s.parse::<f64>().ok();
        match text.split_once(':') {
            None if text == "perfect" => Ok(Player::Perfect),
            None if text == "ranked" => Ok(Player::Ranked),
            None if text == "ultra" => Ok(Player::Ultra),
            Some(("noisy", p)) if number(p).is_some_and(|p| (0.0..=1.0).contains(&p)) => {
                Ok(Player::Noisy(number(p).unwrap_or(0.0)))
            }
            Some(("search", d)) if d.parse::<u32>().is_ok_and(|d| (1..=8).contains(&d)) => {
                Ok(Player::Search(d.parse().unwrap_or(1)))
            }
            _ => Err(NotAPlayer(text.to_string())),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Perfect => f.write_str("perfect"),
            Player::Ranked => f.write_str("ranked"),
            Player::Ultra => f.write_str("ultra"),
            Player::Noisy(p) => write!(f, "noisy:{p}"),
            Player::Search(d) => write!(f, "search:{d}"),
        }
    }
}

/// A small, fast generator (xorshift64*), reproducible from its seed.
#[derive(Clone, Debug)]
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        // Spread nearby seeds (game numbers) apart; never zero.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Random((z ^ (z >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
