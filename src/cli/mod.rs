//! The `morris` command line: argument types and one module per subcommand.
//! Each subcommand parses its arguments, calls the library and prints.

mod game;

use std::io::Write;

use anyhow::{Context, Result, anyhow};
use clap::{Parser, Subcommand};

use crate::rules::{Position, Variant};

const NOTATION_HELP: &str = "\
Notation (see RULES.md):
  A position lists the board rank by rank from the top (rank 7) down, points left
  to right, W white, B black, . empty, ranks separated by '/'; then the side to
  move (w or b) and the men White and Black hold in hand:
    '.../.../.../....../.../.../... w 9 9'   the standard start ('start' also works)
    'WBW/.../.../W...../.../.../BB. w 0 0'   3 against 3, White to move
  Sanmill FEN is read too: '********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1'.
  Moves: d2 (place), d2xg7 (place, remove g7), a1-a4 (slide or fly), a1-a4xd7.
  Quote a position: it contains spaces.";

#[derive(Parser, Debug)]
#[command(
    name = "morris",
    version,
    about = "Strong solutions of Nine Men's Morris and its variants: rules, tablebases, perfect play",
    after_help = NOTATION_HELP
)]
pub struct Cli {
    /// Rule set: standard, strict-mills, no-flying, lasker, morabaraba or six.
    #[arg(long, global = true, default_value = "standard")]
    pub variant: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Draw a position's board.
    #[command(after_help = NOTATION_HELP)]
    Show {
        /// Position string or Sanmill FEN, or 'start'.
        position: String,
    },
    /// List the legal moves of a position and the positions they lead to.
    #[command(after_help = NOTATION_HELP)]
    Moves {
        /// Position string or Sanmill FEN, or 'start'.
        position: String,
    },
    /// Count the move paths of DEPTH plies from a position (a move with its
    /// removal is one ply; a finished game has no moves).
    #[command(after_help = NOTATION_HELP)]
    Perft {
        /// Position string or Sanmill FEN, or 'start'.
        position: String,
        /// Plies to count.
        depth: u32,
        /// Also print the count below each move.
        #[arg(long)]
        divide: bool,
    },
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let variant = variant(&cli.variant)?;
    let stdout = std::io::stdout();
    let out = &mut std::io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Show { position } => game::show(out, variant, &parse_position(variant, &position)?),
        Command::Moves { position } => {
            game::moves(out, variant, &parse_position(variant, &position)?)
        }
        Command::Perft { position, depth, divide } => {
            game::perft(out, variant, &parse_position(variant, &position)?, depth, divide)
        }
    };
    result.and_then(|()| Ok(out.flush()?)).or_else(ignore_broken_pipe)
}

/// A reader that stops early (`| head`) is not an error.
fn ignore_broken_pipe(err: anyhow::Error) -> Result<()> {
    match err.downcast_ref::<std::io::Error>() {
        Some(io) if io.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        _ => Err(err),
    }
}

/// A built-in variant by name, or an error listing them.
pub fn variant(name: &str) -> Result<&'static Variant> {
    Variant::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = Variant::all().map(|v| v.name).collect();
        anyhow!("unknown variant '{name}'; the variants are: {}", names.join(", "))
    })
}

/// A position argument: a position string, a Sanmill FEN, or `start`.
pub fn parse_position(variant: &Variant, text: &str) -> Result<Position> {
    if text.trim() == "start" {
        return Ok(Position::start(variant));
    }
    variant
        .parse_position(text)
        .with_context(|| format!("cannot read the position '{text}'"))
}
