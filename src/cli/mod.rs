//! The `morris` command line: argument types and one module per subcommand.
//! Each subcommand parses its arguments, calls the library and prints.

mod game;
mod probe;
mod tables;

pub use probe::exit_code;

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
    /// List the sectors reachable from the start: positions, index size,
    /// successors and file bytes, with totals, to plan a solve.
    Sectors {
        /// Only sectors with at most this many men on the board (both sides).
        #[arg(long)]
        max_men: Option<u32>,
    },
    /// Solve sectors into a database folder, dependencies first. Resumable:
    /// finished sectors are kept, an interrupted unit is solved again.
    /// Without a selection, the movement sectors with at most 9 men (about a
    /// minute on two cores).
    Solve {
        #[command(flatten)]
        db: DbArg,
        /// Sectors to solve, e.g. 3-3,4-3 (and what they depend on).
        #[arg(long, value_delimiter = ',', conflicts_with_all = ["max_men", "all"])]
        sectors: Vec<crate::index::SectorKey>,
        /// Movement sectors with at most this many men on the board (10 when
        /// no selection is given: under a minute on two cores).
        #[arg(long, conflicts_with = "all")]
        max_men: Option<u32>,
        /// Every reachable sector: the whole game.
        #[arg(long)]
        all: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress output.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Per sector: wins, losses and draws (positions up to symmetry), the
    /// longest win and loss, the file size; and totals.
    Stats {
        #[command(flatten)]
        db: DbArg,
    },
    /// Check every file's checksum, then recompute every stored value from its
    /// children's stored values; exits non-zero on any mismatch.
    Verify {
        #[command(flatten)]
        db: DbArg,
        /// Only these sectors, e.g. 8-7,7-8 (their children are read, not checked).
        #[arg(long, value_delimiter = ',')]
        sectors: Vec<crate::index::SectorKey>,
    },
    /// The value of positions from a database, and every legal move with the
    /// value it leads to, best first (fastest wins, draws, longest losses).
    /// A move's value is for the side that plays it. Exit code 1 for a bad
    /// position, 3 for a database problem (missing sector, other variant,
    /// damaged file).
    #[command(after_help = NOTATION_HELP)]
    Probe {
        #[command(flatten)]
        db: DbArg,
        /// Position strings or Sanmill FEN, or 'start'.
        #[arg(required_unless_present = "batch", conflicts_with = "batch")]
        positions: Vec<String>,
        /// Read positions from FILE, one per line ('-': standard input), and
        /// write one line per position in the same order; blank lines are skipped.
        #[arg(long, value_name = "FILE")]
        batch: Option<std::path::PathBuf>,
        /// One JSON object per position (JSON Lines).
        #[arg(long)]
        json: bool,
        /// Add the line of perfect play, to the end of the game or until it repeats.
        #[arg(long)]
        line: bool,
        /// In batch mode, list the moves too (always listed otherwise).
        #[arg(long)]
        moves: bool,
    },
    /// Play in the terminal against perfect play, or watch it play itself.
    #[command(after_help = NOTATION_HELP)]
    Play {
        #[command(flatten)]
        db: DbArg,
        /// The side you play; 'none' watches perfect play against itself.
        #[arg(long, value_enum, default_value = "white")]
        human: probe::Seat,
        /// Start from this position instead of the start.
        #[arg(long, default_value = "start")]
        from: String,
        /// Show the value of each position (or type 'value' when asked for a move).
        #[arg(long)]
        values: bool,
        /// Seed for choosing among equally good moves (default: the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Stop after this many plies.
        #[arg(long, default_value_t = 500)]
        max_plies: usize,
    },
    /// Solve the movement sectors up to --max-men in a temporary folder and
    /// print throughput, peak memory and bytes per position; or, with
    /// --probe DIR, time probes on an existing database.
    Bench {
        /// Movement sectors with at most this many men on the board.
        #[arg(long, default_value_t = 8)]
        max_men: u32,
        /// Time value probes on this database instead of solving.
        #[arg(long, value_name = "DIR")]
        probe: Option<std::path::PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
}

/// The database folder argument.
#[derive(clap::Args, Debug)]
pub struct DbArg {
    /// Database folder.
    #[arg(long, default_value = "db")]
    pub db: std::path::PathBuf,
}

fn set_threads(threads: Option<usize>) -> Result<usize> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()?;
    }
    Ok(rayon::current_num_threads())
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let variant = variant(&cli.variant)?;
    let stdout = std::io::stdout();
    let out = &mut std::io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Show { position } => {
            game::show(out, variant, &parse_position(variant, &position)?)
        }
        Command::Moves { position } => {
            game::moves(out, variant, &parse_position(variant, &position)?)
        }
        Command::Perft {
            position,
            depth,
            divide,
        } => game::perft(
            out,
            variant,
            &parse_position(variant, &position)?,
            depth,
            divide,
        ),
        Command::Sectors { max_men } => tables::sectors(out, variant, max_men),
        Command::Solve {
            db,
            sectors,
            max_men,
            all,
            threads,
            quiet,
        } => {
            set_threads(threads)?;
            let selection = if all {
                crate::solve::Selection::All
            } else if !sectors.is_empty() {
                crate::solve::Selection::Sectors(sectors)
            } else {
                crate::solve::Selection::MaxMen(max_men.unwrap_or(10))
            };
            tables::solve_command(out, variant, &db.db, selection, quiet).map(|_| ())
        }
        Command::Probe {
            db,
            positions,
            batch,
            json,
            line,
            moves,
        } => {
            let options = probe::ProbeOptions { json, line, moves };
            match batch {
                Some(input) => probe::batch(out, variant, &db.db, &input, &options),
                None => probe::probe(out, variant, &db.db, &positions, &options),
            }
        }
        Command::Play {
            db,
            human,
            from,
            values,
            seed,
            max_plies,
        } => {
            let start = parse_position(variant, &from)?;
            let options = probe::PlayOptions {
                seat: human,
                show_values: values,
                seed: seed.unwrap_or_else(probe::time_seed),
                max_plies,
            };
            let stdin = std::io::stdin();
            probe::play(out, &mut stdin.lock(), variant, &db.db, start, &options)
        }
        Command::Stats { db } => tables::stats(out, variant, &db.db),
        Command::Verify { db, sectors } => tables::verify(out, variant, &db.db, &sectors),
        Command::Bench {
            max_men,
            probe,
            threads,
        } => {
            let threads = set_threads(threads)?;
            match probe {
                Some(db) => tables::bench_probe(out, variant, &db),
                None => tables::bench(out, variant, max_men, threads),
            }
        }
    };
    result
        .and_then(|()| Ok(out.flush()?))
        .or_else(ignore_broken_pipe)
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
        anyhow!(
            "unknown variant '{name}'; the variants are: {}",
            names.join(", ")
        )
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
