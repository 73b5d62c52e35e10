//! `match`: many games between two players, the first player's results
//! with a 95% confidence interval of its score.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use morris::SectorKey;
use morris::players::{MatchOptions, Player, play_match};
use morris::{Tablebase, Variant};

use super::{Conflict, Rules, open};

/// The arguments of `morris match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The first player (its results are printed).
    pub first: Player,
    /// The second player.
    pub second: Player,
    /// Database folder, for the players that read one.
    #[arg(long)]
    pub db: Option<std::path::PathBuf>,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Seed: the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start each game from a random position of this sector (the
    /// first player moves first in even games) instead of the start.
    #[arg(long, value_name = "SECTOR")]
    pub from: Option<SectorKey>,
    /// A game this long is a draw.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: u32,
    /// Worker threads, 1 to 1024 (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// One JSON object: games, wins, draws, losses, score, interval_95.
    #[arg(long)]
    pub json: bool,
}

/// `morris match`: the folder opened if a player reads one, the sector to
/// start from checked, the games played and the first player's results.
pub fn run_match(out: &mut dyn Write, args: &MatchArgs, rules: Rules) -> Result<()> {
    super::set_threads(args.threads)?;
    let options = MatchOptions {
        games: args.games,
        seed: args.seed,
        from: args.from,
        max_plies: args.max_plies,
    };
    let players = [args.first, args.second];
    let db: Option<&Path> = args.db.as_deref();
    let reader = players.iter().find(|p| p.needs_folder());
    let tablebase = match (db, reader) {
        (Some(dir), _) => Some(open(dir, rules)?),
        (None, Some(player)) => {
            return Err(Conflict(format!("{player} reads a database folder: give --db")).into());
        }
        (None, None) => None,
    };
    let variant = match &tablebase {
        Some(t) => t.variant(),
        None => rules.without_folder()?,
    };
    if let Some(sector) = options.from
        && !sector.is_valid(variant)
    {
        return Err(Conflict(format!(
            "--from {sector}: not a sector of {}",
            variant.label()
        ))
        .into());
    }
    play(
        out,
        variant,
        tablebase.as_ref(),
        players,
        &options,
        args.json,
    )
}

fn play(
    out: &mut dyn Write,
    variant: &'static Variant,
    tablebase: Option<&Tablebase>,
    players: [Player; 2],
    options: &MatchOptions,
    json: bool,
) -> Result<()> {
    let bar = ProgressBar::new(options.games).with_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} games, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{} against {}", players[0], players[1]));
    let result = play_match(variant, tablebase, players, options, &|| bar.inc(1));
    bar.finish_and_clear();
    let result = result?;
    if json {
        writeln!(out, "{}", serde_json::to_string(&result)?)?;
        return Ok(());
    }
    let from = options.from.map_or("the start".to_string(), |s| {
        format!("random positions of {s}")
    });
    writeln!(
        out,
        "{} against {}: {} games of {} from {from}, colours alternating (seed {})",
        result.first,
        result.second,
        result.games,
        variant.label(),
        result.seed
    )?;
    writeln!(
        out,
        "{}: {} wins, {} draws, {} losses; score {:.3} (95% interval {:.3} to {:.3})",
        result.first,
        result.wins,
        result.draws,
        result.losses,
        result.score,
        result.interval_95[0],
        result.interval_95[1]
    )?;
    Ok(())
}

/// `morris ultra`: Malom's ultra-strong ranking of a whole folder, written
/// to its `ultra/`, with the sector scores printed.
pub fn run_ultra(out: &mut dyn Write, tablebase: &Tablebase) -> Result<()> {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("ultra-strong keys [{bar:30}] {pos}/{len} units, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let ultra = tablebase.write_ultra(&|done, units| {
        bar.set_length(units as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let ultra = ultra?;
    writeln!(out, "sector\tscore\tmaterial\trank")?;
    for s in ultra.scores() {
        writeln!(
            out,
            "{}\t{:.4}\t{:.4}\t{}",
            s.sector, s.score, s.material, s.rank
        )?;
    }
    writeln!(
        out,
        "{} sectors in {} ranks; keys of every drawn position written to {} in {:.1}s",
        ultra.scores().len(),
        ultra.levels(),
        tablebase.dir().join(morris::db::ULTRA_DIR).display(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}
