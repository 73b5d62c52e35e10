//! `play`: a game in the terminal against perfect play, or perfect play
//! against itself.

use std::io::{BufRead, Write};

use anyhow::Result;

use super::probe::{move_words, value_words};
use morris::players::{Player, Random};
use morris::{Color, Move, Outcome, Position, Ranking, Stored, Tablebase, Variant};

/// `--rank` of `play`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RankArg {
    Chances,
    Best,
    /// Malom's ultra-strong ranking, written by `morris ultra`.
    Ultra,
}

impl RankArg {
    /// The order of the moves shown.
    pub fn ranking(self) -> morris::Ranking {
        match self {
            RankArg::Chances => morris::Ranking::Chances,
            RankArg::Best | RankArg::Ultra => morris::Ranking::Best,
        }
    }

    /// The player of `match` that chooses the program's moves.
    pub fn player(self) -> Player {
        match self {
            RankArg::Chances => Player::Ranked,
            RankArg::Best => Player::Perfect,
            RankArg::Ultra => Player::Ultra,
        }
    }
}

/// Who a person plays in `play`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Seat {
    White,
    Black,
    /// Perfect play against itself.
    None,
}

pub struct PlayOptions {
    pub seat: Seat,
    /// How the moves shown are ordered among equal values.
    pub rank: Ranking,
    /// Who chooses the program's moves.
    pub player: Player,
    pub show_values: bool,
    pub seed: u64,
    pub max_plies: usize,
}

impl PlayOptions {
    /// From `play`'s arguments; no seed: one from the clock.
    pub fn new(
        seat: Seat,
        rank: RankArg,
        show_values: bool,
        seed: Option<u64>,
        max_plies: usize,
    ) -> PlayOptions {
        PlayOptions {
            seat,
            rank: rank.ranking(),
            player: rank.player(),
            show_values,
            seed: seed.unwrap_or_else(time_seed),
            max_plies,
        }
    }
}

/// A legal move as play offers it, with or without the move-count rule.
#[derive(Clone, Debug)]
struct Choice {
    play: Move,
    position: Position,
    /// It closes a mill: the counter starts afresh.
    mill: bool,
    value: String,
}

/// The moves of `pos` at `counter` (under the folder's move-count rule, if
/// any), best first, and the position's value in words.
fn choices(
    tablebase: &Tablebase,
    pos: &Position,
    counter: u8,
    rank: Ranking,
) -> Result<(Vec<Choice>, String)> {
    let mut answer = tablebase.answer_value(pos, counter)?;
    answer.moves = Some(tablebase.ranked_moves(pos, counter, rank)?);
    let moves = answer
        .moves
        .iter()
        .flatten()
        .map(|m| Choice {
            play: m.play,
            position: m.position,
            mill: m.mill,
            value: move_words(m.value.stored),
        })
        .collect();
    // Play shows no counter on the board: the value says where it stands.
    let value = match answer.value.stored {
        Stored::Clock {
            fresh, counter, n, ..
        } => format!(
            "{} ({}; {counter} of {n} plies since the last mill)",
            fresh.at_counter(counter, n),
            answer.value.category.as_str()
        ),
        stored => value_words(stored),
    };
    Ok((moves, value))
}

/// The position `play --from` names, with its counter under the folder's
/// move-count rule (0 without one), once the folder is known to answer it
/// and its moves: a missing sector is reported before any board is drawn.
pub fn start(tablebase: &Tablebase, from: &str) -> Result<(Position, u8)> {
    let (pos, counter) = super::parse_position_at(tablebase.variant(), from)?;
    tablebase.answer(&pos, counter)?;
    Ok((pos, counter))
}

/// A game in the terminal: a person against perfect play, or perfect play
/// against itself. Among moves equal in value and in `options.rank` the
/// program picks at random.
/// Under a folder's move-count rule the counter starts at `counter`.
pub fn play(
    out: &mut dyn Write,
    input: &mut dyn BufRead,
    tablebase: &Tablebase,
    (start, mut counter): (Position, u8),
    options: &PlayOptions,
) -> Result<()> {
    let variant = tablebase.variant();
    options.player.ready(Some(tablebase))?;
    let mut random = Random::new(options.seed);
    let mut pos = start;
    let mut seen = std::collections::HashMap::<Position, u32>::new();
    let mut plies = 0;
    writeln!(
        out,
        "moves read d2, d2xg7, a1-a4, a1-a4xd7; also: value, hint, quit"
    )?;
    loop {
        write!(out, "\n{}", pos.picture(variant.board))?;
        writeln!(out, "{}", pos.notation(variant.board))?;
        if let Some(outcome) = variant.outcome(&pos) {
            let side = pos.to_move.name();
            match outcome {
                Outcome::Drawn => writeln!(out, "the board is full: a draw")?,
                _ => writeln!(out, "{side} has lost")?,
            }
            return Ok(());
        }
        let repeats = seen.entry(pos).or_default();
        *repeats += 1;
        if *repeats >= 3 {
            writeln!(out, "the position occurred three times: a draw")?;
            return Ok(());
        }
        if variant.n_move.is_some_and(|n| counter >= n) {
            writeln!(
                out,
                "{counter} plies without a mill: a draw by the move-count rule"
            )?;
            return Ok(());
        }
        if plies >= options.max_plies {
            writeln!(out, "stopped after {plies} plies")?;
            return Ok(());
        }
        let (moves, value) = choices(tablebase, &pos, counter, options.rank)?;
        if options.show_values {
            writeln!(out, "{} to move: {value}", pos.to_move.name())?;
        }
        let human = match options.seat {
            Seat::White => pos.to_move == Color::White,
            Seat::Black => pos.to_move == Color::Black,
            Seat::None => false,
        };
        let chosen = if human {
            match read_move(out, input, variant, &pos, &moves)? {
                Some(m) => m,
                None => return Ok(()),
            }
        } else {
            // A player of `match`, one rule for both.
            let player = options.player;
            let times = |p: &Position| seen.get(p).map_or(0, |&n| n.min(255) as u8);
            let play =
                player.choose(variant, Some(tablebase), &pos, counter, &times, &mut random)?;
            let m = moves
                .iter()
                .find(|m| m.play == play)
                .cloned()
                .expect("the player chooses one of the legal moves");
            writeln!(
                out,
                "{} plays {}",
                pos.to_move.name(),
                m.play.notation(variant.board)
            )?;
            m
        };
        pos = chosen.position;
        counter = if chosen.mill {
            0
        } else {
            counter.saturating_add(1)
        };
        plies += 1;
    }
}

/// Reads the person's move; `None` when they quit or the input ends.
fn read_move(
    out: &mut dyn Write,
    input: &mut dyn BufRead,
    variant: &Variant,
    pos: &Position,
    moves: &[Choice],
) -> Result<Option<Choice>> {
    loop {
        write!(out, "{} to move> ", pos.to_move.name())?;
        out.flush()?;
        let mut text = String::new();
        if input.read_line(&mut text)? == 0 {
            return Ok(None);
        }
        let text = text.trim();
        match text {
            "" => continue,
            "quit" | "q" => return Ok(None),
            "value" | "v" => {
                let best = moves.first().map_or("no legal moves", |m| &m.value);
                writeln!(out, "{best}")?;
                continue;
            }
            "hint" | "h" => {
                for m in moves {
                    writeln!(out, "  {} {}", m.play.notation(variant.board), m.value)?;
                }
                continue;
            }
            _ => {}
        }
        match Move::parse(variant.board, text) {
            Ok(wanted) => match moves.iter().find(|m| m.play == wanted) {
                Some(m) => return Ok(Some(m.clone())),
                None => writeln!(out, "{text} is not a legal move here (hint lists them)")?,
            },
            Err(e) => writeln!(out, "{e}")?,
        }
    }
}

/// A default seed that differs from game to game.
pub fn time_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}
