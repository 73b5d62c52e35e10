//! `probe`: perfect-play answers from a database, for people (text) and
//! programs (JSON), for positions given as arguments or a batch of lines.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::mpsc;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde_json::{Value as Json, json};

use super::{echo, exit_code, note, parse_position, probe_clock, probe_wdl};
use morris::{Answer, Line, LineEnd, Move, Outcome, Position, Tablebase, Value, Variant};

/// Longest line of perfect play printed (a draw repeats long before).
pub(super) const LINE_LIMIT: usize = 1000;
/// Positions probed together in batch mode (in parallel, output in order).
const BATCH_CHUNK: usize = 1 << 16;

#[derive(Clone, Copy)]
pub struct ProbeOptions {
    pub json: bool,
    pub line: bool,
    pub moves: bool,
}

/// Probes the positions given on the command line.
pub fn probe(
    out: &mut dyn Write,
    tablebase: &Tablebase,
    positions: &[String],
    options: &ProbeOptions,
) -> Result<()> {
    let variant = tablebase.variant();
    let mut failures = Failures::default();
    for text in positions {
        if variant.n_move.is_some() {
            let result = probe_clock::answer(tablebase, text, options);
            match result {
                Ok((answer, line)) if options.json => {
                    let name = answer.position.notation(variant.board);
                    let object =
                        probe_clock::answer_json(variant, &answer, line.as_ref(), &name, true);
                    writeln!(out, "{object}")?;
                }
                Ok((answer, line)) => {
                    probe_clock::write_answer(out, variant, &answer, line.as_ref())?
                }
                Err(e) if positions.len() == 1 => return Err(e),
                Err(e) => failed(out, &mut failures, options, text, e)?,
            }
            continue;
        }
        if tablebase.is_wdl_only() {
            let with_moves = ProbeOptions {
                moves: true,
                ..*options
            };
            match probe_wdl::answer(tablebase, text, &with_moves) {
                Ok(answer) if options.json => {
                    let name = answer.position.notation(variant.board);
                    writeln!(out, "{}", probe_wdl::answer_json(variant, &answer, &name))?;
                }
                Ok(answer) => probe_wdl::write_answer(out, variant, &answer)?,
                Err(e) if positions.len() == 1 => return Err(e),
                Err(e) => failed(out, &mut failures, options, text, e)?,
            }
            continue;
        }
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
            Err(e) => failed(out, &mut failures, options, text, e)?,
        }
    }
    failures.result(positions.len() as u64)
}

/// Reports a position of several that could not be probed, and goes on.
fn failed(
    out: &mut dyn Write,
    failures: &mut Failures,
    options: &ProbeOptions,
    text: &str,
    e: anyhow::Error,
) -> Result<()> {
    out.flush()?;
    note(&format!("error: {e:#}"));
    if options.json {
        writeln!(
            out,
            "{}",
            json!({"position": echo(text), "error": format!("{e:#}")})
        )?;
    }
    failures.add(&e);
    Ok(())
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

    /// 3 when a database problem was among the failures, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.database { 3 } else { 1 }
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
/// output line each, in input order. Lines are answered in parallel in
/// groups of what has arrived: from a pipe or a terminal each answer comes as
/// soon as its line is read; a file is read ahead in large groups.
pub fn batch(
    out: &mut dyn Write,
    tablebase: Tablebase,
    input: &Path,
    options: &ProbeOptions,
) -> Result<()> {
    // Many probes: indices built in memory answer faster than stored ones.
    let tablebase = tablebase.with_built_indices();
    let variant = tablebase.variant();
    let streaming = input == Path::new("-");
    let reader: Box<dyn BufRead + Send> = if streaming {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(input)
                .with_context(|| format!("cannot read {}", input.display()))?,
        ))
    };
    let (lines, arrived) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(BATCH_CHUNK);
    std::thread::spawn(move || read_lines(reader, &lines));
    let mut failures = Failures::default();
    let (mut total, mut line_number) = (0u64, 0u64);
    while let Ok(first) = arrived.recv() {
        let mut chunk = vec![first];
        while chunk.len() < BATCH_CHUNK
            && let Ok(next) = arrived.try_recv()
        {
            chunk.push(next);
        }
        let mut numbered = Vec::with_capacity(chunk.len());
        for line in chunk {
            line_number += 1;
            let line = line.context("cannot read the batch input")?;
            if !line.trim_ascii().is_empty() {
                numbered.push((line_number, line));
            }
        }
        let answers: Vec<(String, Option<anyhow::Error>)> = numbered
            .par_iter()
            .map(|(number, bytes)| {
                let answered = std::str::from_utf8(bytes)
                    .map_err(|_| anyhow::anyhow!("line {number} is not UTF-8 text"))
                    .and_then(|text| batch_line(&tablebase, variant, text, options));
                match answered {
                    Ok(line) => (line, None),
                    Err(e) => {
                        let text = String::from_utf8_lossy(bytes);
                        let text = echo(text.trim());
                        let line = if options.json {
                            json!({"position": text, "error": format!("{e:#}")}).to_string()
                        } else {
                            format!("{text}\terror: {e:#}")
                        };
                        (line, Some(e))
                    }
                }
            })
            .collect();
        for (line, error) in answers {
            writeln!(out, "{line}")?;
            total += 1;
            if let Some(e) = error {
                failures.add(&e);
            }
        }
        if streaming {
            out.flush()?;
        }
    }
    failures.result(total)
}

/// Sends each line of `reader` (without its line end) until the input ends
/// or nobody listens.
fn read_lines(
    mut reader: Box<dyn BufRead + Send>,
    lines: &mpsc::SyncSender<std::io::Result<Vec<u8>>>,
) {
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if lines.send(Ok(line)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = lines.send(Err(e));
                return;
            }
        }
    }
}

fn batch_line(
    tablebase: &Tablebase,
    variant: &'static Variant,
    text: &str,
    options: &ProbeOptions,
) -> Result<String> {
    if variant.n_move.is_some() {
        let (answer, line) = probe_clock::answer(tablebase, text, options)?;
        let text = &*echo(text.trim());
        return Ok(if options.json {
            probe_clock::answer_json(variant, &answer, line.as_ref(), text, options.moves)
                .to_string()
        } else {
            probe_clock::batch_text(variant, text, &answer, line.as_ref(), options.moves)
        });
    }
    if tablebase.is_wdl_only() {
        let answer = probe_wdl::answer(tablebase, text, options)?;
        let text = &*echo(text.trim());
        return Ok(if options.json {
            probe_wdl::answer_json(variant, &answer, text).to_string()
        } else {
            probe_wdl::batch_text(variant, text, &answer)
        });
    }
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
    let text = &*echo(text.trim());
    if options.json {
        let mut object = answer_json(variant, &answer, text, options.moves);
        if let Some(line) = &line {
            add_line_json(variant, &mut object, line);
        }
        return Ok(object.to_string());
    }
    let mut s = format!("{text}\t{}", answer.value);
    if options.moves {
        s.push('\t');
        s.push_str(&moves_text(
            variant,
            answer.moves.iter().map(|m| (m.play, m.value.to_string())),
        ));
    }
    if let Some(line) = &line {
        s.push('\t');
        s.push_str(&line_text(variant, line));
    }
    Ok(s)
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

pub(super) fn add_line_json(variant: &Variant, object: &mut Json, line: &Line) {
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
        LineEnd::MoveCountRule => "move-count rule",
    });
}

pub(super) fn line_text(variant: &Variant, line: &Line) -> String {
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
            LineEnd::MoveCountRule => "(no mill for N plies: draw)",
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
    let rows: Vec<MoveRow> = answer
        .moves
        .iter()
        .map(|m| (m.play, m.position, vec![(m.value.to_string(), 12)]))
        .collect();
    write_moves(out, variant, &rows)?;
    if let Some(line) = line {
        writeln!(out, "line: {}", line_text(variant, line))?;
    }
    writeln!(out)?;
    Ok(())
}

/// A move of a text answer: the move, the columns after it (text and width),
/// and the position it leads to.
pub(super) type MoveRow = (Move, Position, Vec<(String, usize)>);

/// The moves of a text answer, one a line, or that the game is over.
pub(super) fn write_moves(out: &mut dyn Write, variant: &Variant, rows: &[MoveRow]) -> Result<()> {
    if rows.is_empty() {
        writeln!(out, "no legal moves: the game is over")?;
    }
    let width = rows
        .iter()
        .map(|(play, _, _)| play.notation(variant.board).len())
        .max()
        .unwrap_or(0);
    for (play, position, columns) in rows {
        write!(out, "  {:width$}", play.notation(variant.board))?;
        for (text, w) in columns {
            write!(out, "  {text:w$}")?;
        }
        writeln!(out, "  {}", position.notation(variant.board))?;
    }
    Ok(())
}

/// The moves of a batch line: each with its value, comma separated.
pub(super) fn moves_text(variant: &Variant, moves: impl Iterator<Item = (Move, String)>) -> String {
    let moves: Vec<String> = moves
        .map(|(play, value)| format!("{} {value}", play.notation(variant.board)))
        .collect();
    moves.join(", ")
}
