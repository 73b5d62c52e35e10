//! `probe` on a folder solved under the move-count rule: the position string
//! may carry the counter (plies since the last mill) after the men in hand;
//! answers give the value at that counter, its category, the value with a
//! fresh counter and the plies to the next mill.

use std::io::Write;

use anyhow::{Context, Result};
use serde_json::{Value as Json, json};

use super::echo;
use super::probe::{LINE_LIMIT, MoveRow, ProbeOptions, line_text, moves_text, write_moves};
use morris::db::{ClockAnswer, ClockValue};
use morris::{Line, Position, Tablebase, Variant};

/// A position string with an optional counter, checked against the rule.
pub fn parse_with_counter(variant: &Variant, text: &str) -> Result<(Position, u8)> {
    if text.trim() == "start" {
        return Ok((Position::start(variant), 0));
    }
    let (pos, counter) = variant
        .parse_position_with_counter(text)
        .with_context(|| format!("cannot read the position '{}'", echo(text)))?;
    Ok((pos, counter.unwrap_or(0)))
}

/// The answer for one position string, with its line if asked for.
pub fn answer(
    tablebase: &Tablebase,
    text: &str,
    options: &ProbeOptions,
) -> Result<(ClockAnswer, Option<Line>)> {
    let (pos, counter) = parse_with_counter(tablebase.variant(), text)?;
    let answer = tablebase.clock_probe(&pos, counter)?;
    let line = if options.line {
        Some(tablebase.clock_line(&pos, counter, LINE_LIMIT)?)
    } else {
        None
    };
    Ok((answer, line))
}

fn plies(value: ClockValue) -> Json {
    json!(value.plies())
}

/// `position` is how the answer names the position.
pub fn answer_json(
    variant: &Variant,
    answer: &ClockAnswer,
    line: Option<&Line>,
    position: &str,
    with_moves: bool,
) -> Json {
    let (c, n) = (answer.counter, answer.n);
    let mut object = json!({
        "position": position,
        "n_move": n,
        "counter": c,
        "wdl": answer.value().wdl(),
        "category": answer.fresh.category(c, n),
        "mill_plies": plies(answer.value()),
        // Plies to the end are not what the rule's database holds.
        "plies": null,
        "plies_null_because": "move-count rule: values give the plies to the next mill",
        "fresh": {
            "wdl": answer.fresh.wdl(),
            "mill_plies": plies(answer.fresh),
            "holds_to_counter": answer.fresh.survives_to(n),
        },
    });
    if with_moves {
        let moves: Vec<Json> = answer
            .moves
            .iter()
            .map(|m| {
                let now = m.value.at_counter(c, n);
                json!({
                    "move": m.play.notation(variant.board),
                    "position": m.position.notation(variant.board),
                    "mill": m.mill,
                    "wdl": now.wdl(),
                    "category": m.value.category(c, n),
                    "mill_plies": plies(now),
                    "fresh": {"wdl": m.value.wdl(), "mill_plies": plies(m.value)},
                })
            })
            .collect();
        object["moves"] = json!(moves);
    }
    if let Some(line) = line {
        super::probe::add_line_json(variant, &mut object, line);
    }
    object
}

/// The value at the counter in words, with what a fresh counter gives when
/// the counter changed it.
fn value_text(fresh: ClockValue, c: u8, n: u8) -> String {
    match (fresh.category(c, n), fresh.survives_to(n)) {
        ("cursed-win" | "blessed-loss", Some(last)) => format!(
            "draw ({}: {fresh} with a fresh counter, up to counter {last})",
            fresh.category(c, n)
        ),
        (_, Some(last)) => format!("{fresh} (holds up to counter {last})"),
        _ => fresh.to_string(),
    }
}

/// One tab-separated line of a batch.
pub fn batch_text(
    variant: &Variant,
    text: &str,
    answer: &ClockAnswer,
    line: Option<&Line>,
    moves: bool,
) -> String {
    let (c, n) = (answer.counter, answer.n);
    let mut s = format!("{text}\t{}", value_text(answer.fresh, c, n));
    if moves {
        s.push('\t');
        s.push_str(&moves_text(
            variant,
            answer
                .moves
                .iter()
                .map(|m| (m.play, m.value.at_counter(c, n).to_string())),
        ));
    }
    if let Some(line) = line {
        s.push('\t');
        s.push_str(&line_text(variant, line));
    }
    s
}

pub fn write_answer(
    out: &mut dyn Write,
    variant: &Variant,
    answer: &ClockAnswer,
    line: Option<&Line>,
) -> Result<()> {
    let pos = &answer.position;
    let (c, n) = (answer.counter, answer.n);
    write!(out, "{}", pos.picture(variant.board))?;
    writeln!(
        out,
        "{}, {c} plies since the last mill (drawn at {n})",
        pos.notation(variant.board)
    )?;
    writeln!(
        out,
        "{} to move: {}",
        pos.to_move.name(),
        value_text(answer.fresh, c, n)
    )?;
    let rows: Vec<MoveRow> = answer
        .moves
        .iter()
        .map(|m| {
            let after = if m.mill {
                "mill: counter 0"
            } else {
                "counter +1"
            };
            let value = m.value.at_counter(c, n).to_string();
            (
                m.play,
                m.position,
                vec![(value, 34), (after.to_string(), 15)],
            )
        })
        .collect();
    write_moves(out, variant, &rows)?;
    if let Some(line) = line {
        writeln!(out, "line: {}", line_text(variant, line))?;
    }
    writeln!(out)?;
    Ok(())
}
