//! `probe`: perfect-play answers from a database, for people (text) and
//! programs (JSON), for positions given as arguments or a batch of lines.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::mpsc;

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::{echo, exit_code, note, parse_position_at};
use morris::db::{LineAnswer, NoPlies};
use morris::{Answer, Category, LineEnd, Move, Outcome, Position, Stored, Tablebase, Variant};

/// Longest line of perfect play printed (a draw repeats long before).
pub(crate) const LINE_LIMIT: usize = 1000;
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
        let with_moves = ProbeOptions {
            moves: true,
            ..*options
        };
        match answer(tablebase, text, &with_moves) {
            Ok(answer) if options.json => writeln!(out, "{}", serde_json::to_string(&answer)?)?,
            Ok(answer) => write_answer(out, variant, &answer)?,
            Err(e) if positions.len() == 1 => return Err(e),
            Err(e) => failed(out, &mut failures, options, text, e)?,
        }
    }
    failures.result(positions.len() as u64)
}

/// The answer for one position string (with the counter under the rule),
/// with its moves and line as asked.
fn answer(tablebase: &Tablebase, text: &str, options: &ProbeOptions) -> Result<Answer> {
    let (pos, counter) = parse_position_at(tablebase.variant(), text)?;
    let mut answer = if options.moves {
        tablebase.answer(&pos, counter)?
    } else {
        tablebase.answer_value(&pos, counter)?
    };
    if options.line {
        tablebase.add_line(&mut answer, LINE_LIMIT)?;
    }
    Ok(answer)
}

/// A position that could not be probed, as a line of JSON (docs/ANSWER.md,
/// "Errors").
#[derive(serde::Serialize)]
struct FailedLine<'a> {
    position: &'a str,
    error: String,
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
            serde_json::to_string(&FailedLine {
                position: &echo(text),
                error: format!("{e:#}"),
            })?
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
                    .and_then(|text| batch_line(&tablebase, text, options));
                match answered {
                    Ok(line) => (line, None),
                    Err(e) => {
                        let text = String::from_utf8_lossy(bytes);
                        let text = echo(text.trim());
                        let line = if options.json {
                            serde_json::to_string(&FailedLine {
                                position: &text,
                                error: format!("{e:#}"),
                            })
                            .expect("a struct of strings serialises")
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

fn batch_line(tablebase: &Tablebase, text: &str, options: &ProbeOptions) -> Result<String> {
    // The position is echoed as given: the answer lines up with the input.
    let echoed = echo(text.trim());
    if !(options.json || options.moves || options.line) {
        // The value alone, a large batch's usual question: no answer is
        // built (its notation would cost a third of the probe).
        let (pos, counter) = parse_position_at(tablebase.variant(), text)?;
        let words = batch_words(tablebase.stored_value(&pos, counter)?);
        return Ok(format!("{echoed}\t{words}"));
    }
    let mut answer = answer(tablebase, text, options)?;
    if options.json {
        answer.notation = echoed.into_owned();
        return Ok(serde_json::to_string(&answer)?);
    }
    let words = batch_words(answer.value.stored);
    let mut s = format!("{echoed}\t{words}");
    if let Some(moves) = &answer.moves {
        let moves: Vec<String> = moves
            .iter()
            .map(|m| format!("{} {}", m.notation, move_words(m.value.stored)))
            .collect();
        s.push('\t');
        s.push_str(&moves.join(", "));
    }
    if let Some(line) = &answer.line {
        s.push('\t');
        s.push_str(&line_text(line));
    } else if let Some(why) = answer.line_null_because {
        s.push_str(&format!("\tno line: {why}"));
    }
    Ok(s)
}

/// A position's value in a batch line: as [`value_words`], a win/draw/loss
/// alone without the reason for no plies.
fn batch_words(value: Stored) -> String {
    match value {
        Stored::Wdl(w) => w.to_string(),
        stored => value_words(stored),
    }
}

/// A position's value in words, with what the move-count rule makes of it.
pub(super) fn value_words(value: Stored) -> String {
    let category = value.category();
    match value {
        Stored::Distance(v) => v.to_string(),
        Stored::Wdl(w) => format!("{w} (no plies: {})", NoPlies::WinDrawLoss.as_str()),
        Stored::Clock {
            fresh, n, plain, ..
        } => match (category, fresh.survives_to(n)) {
            (Category::CursedWin | Category::BlessedLoss, Some(last)) => format!(
                "draw ({}: {fresh} with a fresh counter, up to counter {last})",
                category.as_str()
            ),
            (Category::CursedWin | Category::BlessedLoss, None) => format!(
                "draw ({}: a {} without the move-count rule)",
                category.as_str(),
                plain.map_or("decided game", |w| w.as_str())
            ),
            (_, Some(last)) => format!("{fresh} (holds up to counter {last})"),
            _ => fresh.to_string(),
        },
    }
}

/// A move's value in words, at the counter.
pub(super) fn move_words(value: Stored) -> String {
    match value {
        Stored::Distance(v) => v.to_string(),
        Stored::Wdl(w) => w.to_string(),
        Stored::Clock {
            fresh, counter, n, ..
        } => match value.category() {
            Category::CursedWin | Category::BlessedLoss => {
                format!("draw ({})", value.category().as_str())
            }
            _ => fresh.at_counter(counter, n).to_string(),
        },
    }
}

pub(super) fn line_text(line: &LineAnswer) -> String {
    let mut moves = line.moves.clone();
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

fn write_answer(out: &mut dyn Write, variant: &Variant, answer: &Answer) -> Result<()> {
    let pos = &answer.position;
    write!(out, "{}", pos.picture(variant.board))?;
    match (answer.counter, answer.n) {
        (Some(c), Some(n)) => writeln!(
            out,
            "{}, {c} plies since the last mill (drawn at {n})",
            answer.notation
        )?,
        _ => writeln!(out, "{}", answer.notation)?,
    }
    writeln!(
        out,
        "{} to move: {}",
        pos.to_move.name(),
        value_words(answer.value.stored)
    )?;
    let under_rule = answer.n.is_some();
    let moves = answer.moves.as_deref().unwrap_or_default();
    let words: Vec<String> = moves.iter().map(|m| move_words(m.value.stored)).collect();
    let width = words.iter().map(String::len).max().unwrap_or(0);
    let rows: Vec<MoveRow> = moves
        .iter()
        .zip(words)
        .map(|(m, words)| {
            let mut columns = vec![(words, width)];
            if under_rule {
                let after = if m.mill {
                    "mill: counter 0"
                } else {
                    "counter +1"
                };
                columns.push((after.to_string(), 15));
            }
            if let (Some(replies), Some(errors)) = (m.replies, m.errors) {
                // The opponent's replies after the move that are errors.
                columns.push((format!("errors {errors}/{replies}"), 13));
            }
            (m.play, m.position, columns)
        })
        .collect();
    write_moves(out, variant, &rows)?;
    if let Some(line) = &answer.line {
        writeln!(out, "line: {}", line_text(line))?;
    } else if let Some(why) = answer.line_null_because {
        writeln!(out, "line: none: {why}")?;
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
