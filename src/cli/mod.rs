//! The `morris` command line, part of the binary and not of the library:
//! argument types, one module per group of subcommands, and the one place
//! where an error becomes an exit code. Each subcommand parses its
//! arguments, calls the library and prints.

mod bench;
mod check;
mod errors;
mod folders;
mod game;
mod matches;
mod pack;
mod plan;
mod play;
mod probe;
mod serve;
mod solve;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::{Parser, Subcommand};

pub use errors::{Conflict, exit_code, hint};

use folders::{Rules, open, open_answering, open_whole};
use morris::db::folder_variant;
use morris::{Position, SectorKey, Variant};

const NOTATION_HELP: &str = "\
Notation (see docs/RULES.md):
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
    /// Default: standard, or, for a command that reads a folder (--db),
    /// the variant it holds. Given before and after the command, the two
    /// must agree.
    #[arg(long, global = true, value_parser = variant_names())]
    pub variant: Option<String>,
    /// The move-count rule: the game is drawn once N plies in a row pass
    /// without a mill (100 for "50 moves each"), for the variant given
    /// (default standard); N from 1 to 126. A folder records it; its probes
    /// take the counter as a fifth field of the position string.
    #[arg(long, global = true, value_name = "N",
          value_parser = clap::value_parser!(u8).range(1..=i64::from(morris::rules::MAX_N_MOVE)))]
    pub n_move: Option<u8>,
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
    /// List the sectors a solve with the same selection takes, what it
    /// names and what that depends on, in the order a solve builds them:
    /// positions, index size, successors and file bytes, with totals.
    Sectors {
        #[command(flatten)]
        selection: SelectionArgs,
    },
    /// The units a solve takes, as jobs for a workflow engine: each with its
    /// sectors, the units it reads and that read it, its stage, positions,
    /// memory, files and estimated time; then the critical path (the least
    /// time any number of machines takes), the peak memory of a job and the
    /// units per stage. `--json` is what workflow/Snakefile reads (fields
    /// in docs/WORKFLOW.md).
    Plan {
        #[command(flatten)]
        selection: SelectionArgs,
        /// One JSON object, versioned (`version`), for programs.
        #[arg(long)]
        json: bool,
        /// Estimate the times at this machine's rate, measured first by
        /// solving the standard movement sectors up to 8 men (a few
        /// seconds), instead of the development machine's two cores.
        #[arg(long)]
        measure: bool,
    },
    /// Solve sectors into a database folder, dependencies first. Resumable:
    /// finished sectors are kept, an interrupted unit is solved again; two
    /// solves may share a folder (each unit is solved once, under a lock).
    /// Without a selection, the standard movement sectors with at most 10 men
    /// (156 M positions: 20 to 50 s on two idle cores, 2 minutes on a busy
    /// machine). `--all` is the whole game: 26.8e9 positions, 1.5 to 2.5
    /// hours on two cores, 26 GB of disk.
    Solve {
        #[command(flatten)]
        db: DbArg,
        #[command(flatten)]
        selection: SelectionArgs,
        /// Solve only the unit that holds this sector, as one job of a
        /// workflow (`morris plan --json` lists the units): every unit it
        /// reads must be complete in the folder, or it fails at once
        /// naming the missing sectors; with --pack, packs what no unit
        /// still to run reads.
        #[arg(long, value_name = "SECTOR", conflicts_with_all = ["sectors", "max_men", "all"])]
        unit: Option<SectorKey>,
        /// Worker threads, 1 to 1024 (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress output.
        #[arg(long, short)]
        quiet: bool,
        /// Pack as the solve goes: each sector that no unsolved unit reads
        /// any more is packed into DIR (as `morris pack` does), checked
        /// against its raw file, and the raw file removed. The peak disk use
        /// is reported; resumable like the solve.
        #[arg(long, value_name = "DIR")]
        pack: Option<PathBuf>,
        /// With --pack: zstd blocks, as `pack --zstd` writes, instead of
        /// pair-coded ones (see `pack --help`).
        #[arg(long, requires = "pack")]
        zstd: bool,
        /// With --pack: also pack each sector win/draw/loss only into DIR
        /// (as `pack --wdl` does: loss bits, zstd-coded with --zstd),
        /// checked the same way. At the end of the solve (of each --unit
        /// job too), the sectors --pack packed before this was given are
        /// decoded from its folder into DIR, those whose successors are all
        /// packed (the others at a later solve).
        #[arg(long, value_name = "DIR", requires = "pack")]
        pack_wdl: Option<PathBuf>,
        /// Under the move-count rule (--n-move): the same variant's folder
        /// solved without the rule. Each draw with a fresh counter that is
        /// a win or a loss there is stored as a cursed win or a blessed
        /// loss, so the folder alone tells them from true draws at every
        /// counter (probe needs no --without-rule). A folder is marked
        /// whole or not at all.
        #[arg(long, value_name = "DIR")]
        without_rule: Option<PathBuf>,
    },
    /// Per sector: wins, losses and draws (positions up to symmetry), the
    /// longest win and loss, the file size; and totals. Checks every file
    /// read, and reports sectors that the others need but the folder lacks.
    Stats {
        #[command(flatten)]
        db: DbArg,
        /// Tab-separated values with a header line, for programs.
        #[arg(long)]
        tsv: bool,
    },
    /// Compute Malom's ultra-strong ranking of drawing moves for a whole
    /// folder and store it in the folder's ultra/: every sector's score
    /// (wins + draws/2 over its positions, averaged with the mirrored
    /// sector's) ranked, then for every drawn position the best rank its
    /// side can steer the draw into. `play --rank ultra` and the 'ultra'
    /// player of `match` read it. Holds a unit's drawn positions and their
    /// moves in memory: for small games (six, small sectors of the others).
    Ultra {
        #[command(flatten)]
        db: DbArg,
    },
    /// Check every sector file's and stored index file's checksums, then
    /// recompute every stored value from its children's stored values; exits
    /// non-zero on any mismatch.
    Verify {
        #[command(flatten)]
        db: DbArg,
        /// Only these sectors, e.g. 8-7,7-8 (their children are read, not checked).
        #[arg(long, value_delimiter = ',')]
        sectors: Vec<SectorKey>,
        /// Check N positions per sector drawn at random (after the checksums),
        /// for a look at a large database in minutes.
        #[arg(long, value_name = "N", conflicts_with = "oracle")]
        sample: Option<u64>,
        /// Seed of --sample: the same seed checks the same positions.
        #[arg(long, default_value_t = 1, requires = "sample")]
        seed: u64,
        /// Recompute through the simple checker, the oracle the fast one is
        /// tested against: several times slower (figures in
        /// docs/PERFORMANCE.md).
        #[arg(long)]
        oracle: bool,
        /// Skip the sectors a full check already passed, as recorded in the
        /// folder's morris-verified.txt with their files' checksums, and
        /// record each sector that passes: an interrupted check of a large
        /// database goes on where it stopped.
        #[arg(long, conflicts_with_all = ["sample", "oracle"])]
        resume: bool,
    },
    /// Write a packed copy of a solved folder (format 4: blocks of codes
    /// in a pair grammar with Huffman codes, a value read from one 64-byte
    /// chunk; format 3 with --zstd: blocks compressed with zstd): every
    /// command reads it like the original. It keeps the lost positions
    /// (with their plies): a win or draw is found when probed by a one-ply
    /// search over the children, so probes are about five times slower
    /// than with --plain, for files about a third of the size (the
    /// standard game up to 7-7: 0.95 bits per position). Each file is
    /// checked against its raw one as it is written. Resumable. A whole
    /// folder packed this way packs again into any other packing, each
    /// sector decoded in turn in the system's temporary folder: the same
    /// files as from the raw folder; one of loss bits (--wdl) into two-bit
    /// codes (--plain --wdl).
    Pack {
        #[command(flatten)]
        db: DbArg,
        /// The folder to write the packed copy into.
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        #[command(flatten)]
        how: PackHow,
    },
    /// The value of positions from a database, and every legal move with the
    /// value it leads to, best first (fastest wins, draws, longest losses).
    /// A move's value is for the side that plays it. Exit code 1 for a bad
    /// position, 3 for a database problem (missing sector, other variant,
    /// damaged file).
    #[command(after_help = NOTATION_HELP)]
    Probe {
        #[command(flatten)]
        dbs: AnswerDbs,
        /// Position strings or Sanmill FEN, or 'start'.
        #[arg(required_unless_present = "batch", conflicts_with = "batch")]
        positions: Vec<String>,
        /// Read positions from FILE, one per line ('-': standard input), and
        /// write one line per position in the same order; blank lines are
        /// skipped. From a pipe or a terminal each line is answered as soon as
        /// it is read.
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
    /// From a win/draw/loss-only folder the program keeps the value but, with
    /// no plies, may not convert a win (among equal moves it closes a mill).
    #[command(after_help = NOTATION_HELP)]
    Play {
        #[command(flatten)]
        dbs: AnswerDbs,
        /// The side you play; 'none' watches perfect play against itself.
        #[arg(long, value_enum, default_value = "white")]
        human: play::Seat,
        /// Start from this position (a position string, a Sanmill FEN or
        /// 'start'); its sector and those play reaches from it must be in the
        /// folder.
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
        /// How the program orders moves of equal value: 'chances' prefers
        /// the move whose opponent's replies are most often errors (the
        /// default; see the README), 'best' picks any at random, 'ultra'
        /// prefers among drawing moves Malom's ultra-strong key (written
        /// by `morris ultra`).
        #[arg(long, value_enum, default_value = "chances")]
        rank: play::RankArg,
    },
    /// Play many games between two players and print the first player's
    /// wins, draws and losses with a 95% confidence interval of its score
    /// (a win 1, a draw 1/2). Players: 'perfect' (random among the best
    /// moves), 'ranked' (the best by the chances they leave, as `play`
    /// and `probe` order them) and 'ultra' (Malom's ultra-strong ranking,
    /// written by `morris ultra`) read --db; 'noisy:P' (a random legal move
    /// with probability P, else a perfect one) reads it too; 'search:D' (a
    /// D-ply alpha-beta search of men, mobility and open mills) reads
    /// none. Colours alternate; a threefold repetition, the folder's
    /// move-count rule or --max-plies draws a game.
    Match(matches::MatchArgs),
    /// Serve folders over HTTP: a JSON API (the answers of `probe --json`,
    /// lines, statistics) and a page to explore positions and play, at
    /// http://127.0.0.1:8080/ by default. The API is described in the README.
    Serve(serve::ServeArgs),
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
        /// Worker threads, 1 to 1024 (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Also verify every solved unit and print its verify rate beside
        /// its solve rate.
        #[arg(long, conflicts_with = "probe")]
        verify: bool,
    },
}

/// Which sectors `solve` builds and `sectors` lists: the same flags, the
/// same meaning.
#[derive(clap::Args, Debug)]
pub struct SelectionArgs {
    /// These sectors, e.g. 3-3,4-3 (and what they depend on).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["max_men", "all"])]
    pub sectors: Vec<SectorKey>,
    /// The movement sectors with at most this many men on the board, both
    /// sides (and what they depend on); 10 when no selection is given.
    #[arg(long, conflicts_with = "all")]
    pub max_men: Option<u32>,
    /// Every reachable sector: the whole game.
    #[arg(long)]
    pub all: bool,
}

impl SelectionArgs {
    fn selection(&self) -> morris::Selection {
        if self.all {
            morris::Selection::All
        } else if !self.sectors.is_empty() {
            morris::Selection::Sectors(self.sectors.clone())
        } else {
            morris::Selection::MaxMen(self.max_men.unwrap_or(10))
        }
    }
}

/// The database folder argument.
#[derive(clap::Args, Debug)]
pub struct DbArg {
    /// Database folder.
    #[arg(long, default_value = "db")]
    pub db: std::path::PathBuf,
}

/// The folders an answer reads.
#[derive(clap::Args, Debug)]
pub struct AnswerDbs {
    #[command(flatten)]
    pub db: DbArg,
    /// With a --db folder under the move-count rule: the same variant's
    /// folder without the rule (full or win/draw/loss only), read for the
    /// positions the rule draws, so that a cursed win or blessed loss is
    /// told from a true draw at every counter, a fresh one included.
    #[arg(long, value_name = "DIR")]
    pub without_rule: Option<PathBuf>,
}

/// What `pack` keeps and in what blocks.
#[derive(clap::Args, Debug)]
pub struct PackHow {
    /// Keep win, draw or loss only, without the plies: one bit per
    /// position, "lost" (with --zstd XOR a guess from cheap features where
    /// that packs smaller: the whole standard game in 0.9 GB). Probes then
    /// give no plies and no lines of play; not for a folder under the
    /// move-count rule, whose values need their plies.
    #[arg(long)]
    pub wdl: bool,
    /// Keep every value as it is (or its win/draw/loss with --wdl): no
    /// search when probed, two to three times the size. A folder under
    /// the move-count rule is always packed plain.
    #[arg(long)]
    pub plain: bool,
    /// Compress blocks of 16 KiB of codes with zstd (format 3) instead of
    /// pair-coding them: a probe decodes a whole block, so probes are two
    /// to ten times slower, for files 4% smaller (the losses), a fifth
    /// smaller (the loss bits) or a sixth smaller (--plain).
    #[arg(long)]
    pub zstd: bool,
    /// With zstd (implies --zstd): bytes of codes a block decodes to, a
    /// power of two from 256 to 16384 (the default). With --plain --wdl
    /// and 512, one value is read in about a microsecond, for files about
    /// 1.5 to 2 times larger; blocks under 16384 are compressed with a
    /// dictionary the file stores, where that pays.
    #[arg(long, value_name = "BYTES", value_parser = block_bytes)]
    pub block_bytes: Option<u32>,
}

impl PackHow {
    /// How the blocks are coded: pair-coded unless zstd is asked for.
    pub fn coder(&self) -> morris::db::Coder {
        match (self.zstd, self.block_bytes) {
            (false, None) => morris::db::Coder::DEFAULT,
            (_, bytes) => morris::db::Coder::Zstd {
                block_bytes_bits: bytes
                    .map_or(morris::db::PACKED_BLOCK_BYTES_BITS, u32::trailing_zeros),
            },
        }
    }
}

/// The names `--variant` takes.
fn variant_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Variant::all().map(|v| v.name))
}

/// Refuses a global option given twice with different values (before and
/// after the command: clap keeps one of them silently).
///
/// # Errors
/// The option and its two values.
pub fn check_repeated_options(args: &[String]) -> Result<(), Conflict> {
    for name in ["--variant", "--n-move"] {
        let mut values = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            if arg == name {
                values.extend(args.get(i + 1).map(String::as_str));
            } else if let Some(v) = arg.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                values.push(v);
            }
        }
        if let Some(other) = values.iter().find(|v| **v != values[0]) {
            return Err(Conflict(format!(
                "{name} is given twice, as {} and as {other}: give it once",
                values[0]
            )));
        }
    }
    Ok(())
}

/// A `pack --block-bytes` value: a power of two from 256 to 16384.
fn block_bytes(text: &str) -> Result<u32, String> {
    let n: u32 = text.parse().map_err(|e| format!("{e}"))?;
    let bits = morris::db::SMALLEST_BLOCK_BYTES_BITS..=morris::db::PACKED_BLOCK_BYTES_BITS;
    if n.is_power_of_two() && bits.contains(&n.trailing_zeros()) {
        Ok(n)
    } else {
        Err(format!(
            "{n} is not a power of two from {} to {}",
            1 << bits.start(),
            1 << bits.end()
        ))
    }
}

/// The most worker threads `--threads` takes: more than any machine's cores
/// only costs memory (a stack each) and time.
const MAX_THREADS: usize = 1024;

fn set_threads(threads: Option<usize>) -> Result<usize> {
    if let Some(n) = threads {
        if n == 0 || n > MAX_THREADS {
            return Err(Conflict(format!(
                "--threads {n}: give 1 to {MAX_THREADS} worker threads, or leave it out for one per core ({})",
                std::thread::available_parallelism().map_or(1, |n| n.get())
            ))
            .into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()?;
    }
    Ok(rayon::current_num_threads())
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let out = &mut std::io::BufWriter::new(stdout.lock());
    let explicit = Rules {
        variant: cli.variant.as_deref().map(variant).transpose()?,
        n_move: cli.n_move,
    };
    let plain = explicit.without_folder()?;
    let result = match cli.command {
        Command::Show { position } => game::show(out, plain, parse_position_at(plain, &position)?),
        Command::Moves { position } => {
            game::moves(out, plain, parse_position_at(plain, &position)?)
        }
        Command::Perft {
            position,
            depth,
            divide,
        } => game::perft(
            out,
            plain,
            parse_position_at(plain, &position)?,
            depth,
            divide,
        ),
        Command::Sectors { selection } => solve::sectors(out, plain, &selection.selection()),
        Command::Match(args) => matches::run_match(out, &args, explicit),
        Command::Serve(args) => serve::serve_folders(out, &args, explicit),
        Command::Plan {
            selection,
            json,
            measure,
        } => plan::write_plan(out, plain, &selection.selection(), measure, json),
        Command::Solve {
            db,
            selection,
            unit,
            threads,
            quiet,
            pack,
            zstd,
            pack_wdl,
            without_rule,
        } => {
            set_threads(threads)?;
            let selection = unit.map_or_else(|| selection.selection(), morris::Selection::Unit);
            let folders = solve::Folders {
                pack: pack.as_deref(),
                coder: pack_coder(zstd),
                pack_wdl: pack_wdl.as_deref(),
                without_rule: without_rule.as_deref(),
            };
            run_solve(out, &db.db, selection, &folders, quiet, explicit)
        }
        Command::Probe {
            dbs,
            positions,
            batch,
            json,
            line,
            moves,
        } => {
            let options = probe::ProbeOptions { json, line, moves };
            let tablebase = open_answering(&dbs, explicit)?;
            match batch {
                Some(input) => probe::batch(out, tablebase, &input, &options),
                None => probe::probe(out, &tablebase, &positions, &options),
            }
        }
        Command::Play {
            dbs,
            human,
            from,
            values,
            seed,
            max_plies,
            rank,
        } => {
            let tablebase = open_answering(&dbs, explicit)?;
            let start = play::start(&tablebase, &from)?;
            let options = play::PlayOptions::new(human, rank, values, seed, max_plies);
            let stdin = std::io::stdin();
            play::play(out, &mut stdin.lock(), &tablebase, start, &options)
        }
        Command::Pack {
            db,
            out: target,
            how,
        } => pack::pack(out, &open_whole(&db.db, explicit)?, &target, &how),
        Command::Ultra { db } => matches::run_ultra(out, &open_whole(&db.db, explicit)?),
        Command::Stats { db, tsv } => check::stats(out, &open_whole(&db.db, explicit)?, tsv),
        Command::Verify {
            db,
            sectors,
            sample,
            seed,
            oracle,
            resume,
        } => {
            let how = check::check_of(sample, seed, oracle);
            check::verify(out, open_whole(&db.db, explicit)?, &sectors, how, resume)
        }
        Command::Bench {
            max_men,
            probe,
            threads,
            verify,
        } => {
            let threads = set_threads(threads)?;
            match probe {
                Some(db) => bench::bench_probe(out, &open(&db, explicit)?),
                None => bench::bench(out, plain, max_men, threads, verify),
            }
        }
    };
    result
        .and_then(|()| Ok(out.flush()?))
        .or_else(ignore_broken_pipe)
}

/// How `solve --pack` codes its blocks: zstd with `--zstd`.
fn pack_coder(zstd: bool) -> morris::db::Coder {
    if zstd {
        morris::db::Coder::ZSTD
    } else {
        morris::db::Coder::DEFAULT
    }
}

/// `solve`, once its threads are set: the folder's variant unless one is
/// asked for, and never a packed copy into the folder itself.
fn run_solve(
    out: &mut dyn Write,
    db: &Path,
    selection: morris::Selection,
    folders: &solve::Folders,
    quiet: bool,
    explicit: Rules,
) -> Result<()> {
    let packed = [("--pack", folders.pack), ("--pack-wdl", folders.pack_wdl)];
    for (flag, target) in packed {
        if let Some(target) = target.filter(|p| same_folder(p, db)) {
            return Err(Conflict(format!(
                "{flag} {} is the --db folder: the packed copy goes into a folder of its own",
                target.display()
            ))
            .into());
        }
    }
    if let (Some(pack), Some(wdl)) = (folders.pack, folders.pack_wdl)
        && same_folder(pack, wdl)
    {
        return Err(Conflict(format!(
            "--pack-wdl {} is the --pack folder: each packing goes into a folder of its own",
            wdl.display()
        ))
        .into());
    }
    let variant = match explicit.for_folder(db)? {
        Some(v) => v,
        None => folder_variant(db)?.unwrap_or(explicit.without_folder()?),
    };
    solve::solve(out, variant, db, selection, folders, quiet)
}

/// Whether two paths name one folder: the same path once `.` parts are
/// dropped, or the same folder on disk.
fn same_folder(a: &Path, b: &Path) -> bool {
    let plain = |p: &Path| -> PathBuf {
        p.components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect()
    };
    plain(a) == plain(b) || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Writes a line to standard error, ignoring a closed stream: a reader that
/// went away must not stop a solve or a batch.
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// An error with its causes, each once: `a: b: c`.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
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

/// Longest piece of an input echoed in a message: a 10 MB line is not
/// answered with 20 MB.
const ECHO_LIMIT: usize = 120;

/// `text`, cut to [`ECHO_LIMIT`] characters with a note of the rest.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHO_LIMIT) {
        None => text.into(),
        Some((end, _)) => format!("{}... ({} bytes in all)", &text[..end], text.len()).into(),
    }
}

/// A position argument: a position string, a Sanmill FEN, or `start`.
pub fn parse_position(variant: &Variant, text: &str) -> Result<Position> {
    if text.trim() == "start" {
        return Ok(Position::start(variant));
    }
    variant
        .parse_position(text)
        .with_context(|| format!("cannot read the position '{}'", echo(text)))
}

/// A position argument with its counter (plies since the last mill) under
/// the variant's move-count rule, 0 without one: a position string with an
/// optional fifth field, a Sanmill FEN (its `rule50` field), or `start`.
pub fn parse_position_at(variant: &Variant, text: &str) -> Result<(Position, u8)> {
    if variant.n_move.is_none() || text.trim() == "start" {
        return Ok((parse_position(variant, text)?, 0));
    }
    let (pos, counter) = variant
        .parse_position_with_counter(text)
        .with_context(|| format!("cannot read the position '{}'", echo(text)))?;
    Ok((pos, counter.unwrap_or(0)))
}
