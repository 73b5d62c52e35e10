//! `probe` and `play`: perfect-play answers from a database, for people
//! (text) and programs (JSON), one position, a batch, or a game.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde_json::{Value as Json, json};

use super::parse_position;
use crate::db::{ProbeError, Tablebase, Value};
use crate::probe::{Answer, Line, LineEnd, MoveValue};
use crate::rules::{Move, Outcome, Position, Variant};

/// Longest line of perfect play printed (a draw repeats long before).
const LINE_LIMIT: usize = 1000;
/// Positions probed together in batch mode (in parallel, output in order).
const BATCH_CHUNK: usize = 1 << 16;

pub struct ProbeOptions {
    pub json: bool,
    pub line: bool,
    pub moves: bool,
}

/// Probes the positions given on the command line.
pub fn probe(
    out: &mut dyn Write,
    variant: &'static Variant,
    db: &Path,
    positions: &[String],
    options: &ProbeOptions,
) -> Result<()> {
    let tablebase = open(db, variant)?;
    let mut failures = Failures::default();
    for text in positions {
        let result = parse_position(variant, text).and_then(|pos| {
            let answer = tablebase.probe(&pos)?;
            let line = if options.line {
                Some(tablebase.line(&pos, LINE_LIMIT)?)
            } else {
                None
            };
            Ok((answer, line))
        });
        match result {
            Ok((answer, line)) if options.json => {
                let name = answer.position.notation(variant.board);
                let mut object = answer_json(variant, &answer, &name, true);
                if let Some(line) = &line {
                    add_line_json(variant, &mut object, line);
                }
                writeln!(out, "{object}")?;
            }
            Ok((answer, line)) => write_answer(out, variant, &answer, line.as_ref())?,
            Err(e) if positions.len() == 1 => return Err(e),
            Err(e) => {
                out.flush()?;
                eprintln!("error: {e:#}");
                if options.json {
                    writeln!(
                        out,
                        "{}",
                        json!({"position": text, "error": format!("{e:#}")})
                    )?;
                }
                failures.add(&e);
            }
        }
    }
    failures.result(positions.len() as u64)
}

/// Positions that could not be probed, reported once at the end.
#[derive(Debug, Default, thiserror::Error)]
#[error("{failed} of {total} positions could not be probed (see above)")]
pub struct Failures {
    failed: u64,
    total: u64,
    database: bool,
}

impl Failures {
    fn add(&mut self, e: &anyhow::Error) {
        self.failed += 1;
        self.database |= exit_code(e) == 3;
    }

    fn result(mut self, total: u64) -> Result<()> {
        self.total = total;
        if self.failed == 0 {
            Ok(())
        } else {
            Err(self.into())
        }
    }
}

/// Probes one position per line of `input` (`-` for standard input), one
/// output line each, in input order.
pub fn batch(
    out: &mut dyn Write,
    variant: &'static Variant,
    db: &Path,
    input: &Path,
    options: &ProbeOptions,
) -> Result<()> {
    // Many probes: indices built in memory answer faster than stored ones.
    let tablebase = open(db, variant)?.with_built_indices();
    let reader: Box<dyn BufRead> = if input == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(input)
                .with_context(|| format!("cannot read {}", input.display()))?,
        ))
    };
    let mut lines = reader.lines();
    let mut failures = Failures::default();
    let mut total = 0;
    loop {
        let chunk: Vec<String> = lines
            .by_ref()
            .take(BATCH_CHUNK)
            .collect::<std::io::Result<_>>()
            .context("cannot read the batch input")?;
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<(String, Option<anyhow::Error>)> = chunk
            .par_iter()
            .filter(|l| !l.trim().is_empty())
            .map(
                |text| match batch_line(&tablebase, variant, text, options) {
                    Ok(line) => (line, None),
                    Err(e) => {
                        let line = if options.json {
                            json!({"position": text, "error": format!("{e:#}")}).to_string()
                        } else {
                            format!("{text}\terror: {e:#}")
                        };
                        (line, Some(e))
                    }
                },
            )
            .collect();
        for (line, error) in answers {
            writeln!(out, "{line}")?;
            total += 1u64;
            if let Some(e) = error {
                failures.add(&e);
            }
        }
    }
    failures.result(total)
}

fn batch_line(
    tablebase: &Tablebase,
    variant: &'static Variant,
    text: &str,
    options: &ProbeOptions,
) -> Result<String> {
    let pos = parse_position(variant, text)?;
    let answer = if options.moves {
        tablebase.probe(&pos)?
    } else {
        Answer {
            position: pos,
            value: tablebase.value(&pos)?,
            moves: Vec::new(),
        }
    };
    let line = if options.line {
        Some(tablebase.line(&pos, LINE_LIMIT)?)
    } else {
        None
    };
    // The position is echoed as given: the answer lines up with the input.
    let text = text.trim();
    if options.json {
        let mut object = answer_json(variant, &answer, text, options.moves);
        if let Some(line) = &line {
            add_line_json(variant, &mut object, line);
        }
        return Ok(object.to_string());
    }
    let mut s = format!("{text}\t{}", answer.value);
    if options.moves {
        let moves: Vec<String> = answer
            .moves
            .iter()
            .map(|m| format!("{} {}", m.play.notation(variant.board), m.value))
            .collect();
        s.push('\t');
        s.push_str(&moves.join(", "));
    }
    if let Some(line) = &line {
        s.push('\t');
        s.push_str(&line_text(variant, line));
    }
    Ok(s)
}

fn open(db: &Path, variant: &'static Variant) -> Result<Tablebase> {
    Ok(Tablebase::open(db, variant)?)
}

fn value_json(value: Value) -> (Json, Json) {
    (json!(value.wdl()), json!(value.plies()))
}

/// `position` is how the answer names the position.
fn answer_json(variant: &Variant, answer: &Answer, position: &str, with_moves: bool) -> Json {
    let (wdl, plies) = value_json(answer.value);
    let mut object = json!({
        "position": position,
        "wdl": wdl,
        "plies": plies,
    });
    if with_moves {
        let moves: Vec<Json> = answer
            .moves
            .iter()
            .map(|m| {
                let (wdl, plies) = value_json(m.value);
                json!({
                    "move": m.play.notation(variant.board),
                    "position": m.position.notation(variant.board),
                    "wdl": wdl,
                    "plies": plies,
                })
            })
            .collect();
        object["moves"] = json!(moves);
    }
    object
}

fn add_line_json(variant: &Variant, object: &mut Json, line: &Line) {
    let moves: Vec<String> = line
        .moves
        .iter()
        .map(|m| m.notation(variant.board))
        .collect();
    object["line"] = json!(moves);
    object["line_end"] = json!(match line.end {
        LineEnd::GameOver(_) => "game over",
        LineEnd::Repeats => "repeats",
        LineEnd::Limit => "limit",
    });
}

fn line_text(variant: &Variant, line: &Line) -> String {
    let mut moves: Vec<String> = line
        .moves
        .iter()
        .map(|m| m.notation(variant.board))
        .collect();
    moves.push(
        match line.end {
            LineEnd::GameOver(Outcome::Drawn) => "(full board: draw)",
            LineEnd::GameOver(_) => "(game over)",
            LineEnd::Repeats => "(repeats: draw)",
            LineEnd::Limit => "(...)",
        }
        .to_string(),
    );
    moves.join(" ")
}

fn write_answer(
    out: &mut dyn Write,
    variant: &Variant,
    answer: &Answer,
    line: Option<&Line>,
) -> Result<()> {
    let pos = &answer.position;
    write!(out, "{}", pos.picture(variant.board))?;
    writeln!(out, "{}", pos.notation(variant.board))?;
    writeln!(out, "{} to move: {}", pos.to_move.name(), answer.value)?;
    if answer.moves.is_empty() {
        writeln!(out, "no legal moves: the game is over")?;
    }
    let width = answer
        .moves
        .iter()
        .map(|m| m.play.notation(variant.board).len())
        .max()
        .unwrap_or(0);
    for m in &answer.moves {
        writeln!(
            out,
            "  {:width$}  {:12}  {}",
            m.play.notation(variant.board),
            m.value.to_string(),
            m.position.notation(variant.board)
        )?;
    }
    if let Some(line) = line {
        writeln!(out, "line: {}", line_text(variant, line))?;
    }
    writeln!(out)?;
    Ok(())
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
    pub show_values: bool,
    pub seed: u64,
    pub max_plies: usize,
}

/// A game in the terminal: a person against perfect play, or perfect play
/// against itself. Among equally good moves the program picks at random.
pub fn play(
    out: &mut dyn Write,
    input: &mut dyn BufRead,
    variant: &'static Variant,
    db: &Path,
    start: Position,
    options: &PlayOptions,
) -> Result<()> {
    let tablebase = open(db, variant)?;
    let mut random = XorShift(options.seed | 1);
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
        if plies >= options.max_plies {
            writeln!(out, "stopped after {plies} plies")?;
            return Ok(());
        }
        let moves = tablebase.move_values(&pos)?;
        if options.show_values {
            writeln!(
                out,
                "{} to move: {}",
                pos.to_move.name(),
                tablebase.value(&pos)?
            )?;
        }
        let human = match options.seat {
            Seat::White => pos.to_move == crate::Color::White,
            Seat::Black => pos.to_move == crate::Color::Black,
            Seat::None => false,
        };
        let chosen = if human {
            match read_move(out, input, variant, &pos, &moves)? {
                Some(m) => m,
                None => return Ok(()),
            }
        } else {
            let best: Vec<&MoveValue> =
                moves.iter().filter(|m| m.value == moves[0].value).collect();
            let m = *best[random.below(best.len())];
            writeln!(
                out,
                "{} plays {}",
                pos.to_move.name(),
                m.play.notation(variant.board)
            )?;
            m
        };
        pos = chosen.position;
        plies += 1;
    }
}

/// Reads the person's move; `None` when they quit or the input ends.
fn read_move(
    out: &mut dyn Write,
    input: &mut dyn BufRead,
    variant: &Variant,
    pos: &Position,
    moves: &[MoveValue],
) -> Result<Option<MoveValue>> {
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
                writeln!(out, "{}", moves_value(moves))?;
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
                Some(m) => return Ok(Some(*m)),
                None => writeln!(out, "{text} is not a legal move here (hint lists them)")?,
            },
            Err(e) => writeln!(out, "{e}")?,
        }
    }
}

/// The value of a position from its moves: the best move's.
fn moves_value(moves: &[MoveValue]) -> String {
    moves
        .first()
        .map_or("no legal moves".to_string(), |m| m.value.to_string())
}

/// A small generator for picking among equally good moves.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A default seed that differs from game to game.
pub fn time_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// The exit code of an error: 3 for a database problem, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if let Some(f) = err.downcast_ref::<Failures>() {
        return if f.database { 3 } else { 1 };
    }
    match err.downcast_ref::<ProbeError>() {
        Some(ProbeError::IllegalPosition(_)) | None => 1,
        Some(_) => 3,
    }
}
