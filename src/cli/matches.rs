//! `match`: many games between two players, the first player's results
//! with a 95% confidence interval of its score.

use std::io::Write;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use morris::players::{MatchOptions, Player, play_match};
use morris::{Tablebase, Variant};

pub fn run_match(
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
