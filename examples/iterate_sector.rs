//! Read every position of one sector of a solved folder, in index order:
//! the index's position at each index and the value stored there. Counts
//! the wins, draws and losses and prints the longest win.
//!
//!     cargo run --release --example iterate_sector -- DIR SECTOR
//!
//! SECTOR is as `morris sectors` names it, say 3-3 (men of the side to move
//! and of the other side, on the board, none in hand).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use morris::db::Value;
use morris::index::SectorIndex;
use morris::{SectorKey, Tablebase};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: iterate_sector DIR SECTOR";
    let dir = PathBuf::from(args.next().context(usage)?);
    let sector: SectorKey = args.next().context(usage)?.parse()?;
    if !sector.is_movement() {
        bail!("this example reads movement sectors (none in hand)");
    }
    let tablebase = Tablebase::open_folder(&dir)?;
    let variant = tablebase.variant();
    let index = SectorIndex::of(
        variant.board,
        sector.us_board.into(),
        sector.them_board.into(),
    );
    let (mut wins, mut draws, mut losses, mut longest) = (0u64, 0u64, 0u64, None);
    for i in 0..index.size() {
        let position = index.position(i, 0, 0);
        match tablebase.value(&position)? {
            Value::Win(n) => {
                wins += 1;
                if longest.is_none_or(|(plies, _)| n > plies) {
                    longest = Some((n, position));
                }
            }
            Value::Draw => draws += 1,
            Value::Loss(_) => losses += 1,
        }
    }
    println!("{sector}: {wins} wins, {draws} draws, {losses} losses");
    if let Some((plies, position)) = longest {
        println!(
            "longest win: {plies} plies, {}",
            position.notation(variant.board)
        );
    }
    Ok(())
}
