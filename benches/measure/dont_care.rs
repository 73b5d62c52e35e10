//! What win/draw/loss would cost with "don't care" where a mill settles the
//! value (as Syzygy's chess tables do for captures): a probe first values
//! the position's mill-closing moves (a search over those moves only), and
//! takes the better of that and the stored value; so where the best
//! mill-closing move is as good as the position, the stored value may be
//! anything no better, chosen to code small (here: the previous position's,
//! where allowed).
//!
//! On every `EVERY`-th block of 65,536 positions of each sector of a raw
//! folder (whose smaller sectors hold the mills' children), pair-coded as
//! `pack` codes, in memory:
//! - the two-bit codes (`pack --plain --wdl`): free where a mill wins (any
//!   code) or a mill draws a drawn position (loss or draw);
//! - the loss bits (`pack --wdl`, a one-ply search finds wins and draws):
//!   free where a mill wins or draws (the probe then finds that the
//!   position is not lost among the mills before it trusts a stored loss).
//!
//! It also counts the mill-closing moves a probe would value. A
//! measurement for docs/PERFORMANCE.md, not part of the format:
//!
//!     cargo bench --bench dont_care -- ../dbs/bench/std12 8 6-6 5-7

use std::path::Path;

use morris::db::internals::{MAX_BLOCK_LEN, PairCode};
use morris::index::{SectorIndex, SectorKey};
use morris::rules::Outcome;
use morris::{Tablebase, Wdl};

fn pair_bits(codes: &[u8]) -> f64 {
    PairCode::new(codes, MAX_BLOCK_LEN, 4096).stored_bytes() as f64 * 8.0 / codes.len() as f64
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let [_, dir, every, sectors @ ..] = &args[..] else {
        eprintln!("usage: dont_care DIR EVERY SECTOR... (a raw folder)");
        std::process::exit(2);
    };
    let tb = Tablebase::open_folder(Path::new(dir)).expect("a raw folder");
    let every: usize = every.parse().expect("a block stride");
    let variant = tb.variant();
    let board = variant.board;
    println!(
        "sector\tsampled\tmill wins\tmill draws a draw\tmills a position\ttwo-bit\ttwo-bit, don't care as the previous\ttwo-bit, don't care as the commonest\tloss bits\tloss bits, don't care"
    );
    // Bits of each column times the positions sampled, over every sector.
    let (mut sampled, mut totals) = (0.0, [0.0f64; 5]);
    for sector in sectors {
        let key: SectorKey = sector.parse().expect("a sector such as 6-6");
        let index = SectorIndex::of_sector(board, key);
        let block = MAX_BLOCK_LEN as u64;
        let (mut two_bit, mut two_bit_free, mut loss_bits, mut loss_bits_free) =
            (vec![], vec![], vec![], vec![]);
        let (mut mill_wins, mut mill_draws, mut mills) = (0u64, 0u64, 0u64);
        // How free each position's code is: 0 not, 1 loss or draw, 2 any.
        let mut frees: Vec<u8> = vec![];
        for first in (0..index.size()).step_by(MAX_BLOCK_LEN * every) {
            for i in first..(first + block).min(index.size()) {
                let pos = index.position(i, key.us_hand, key.them_hand);
                let wdl = Wdl::of(tb.value(&pos).expect("a value"));
                // The best of the mill-closing moves, for the side to move.
                let mut best_mill: Option<Wdl> = None;
                variant.for_each_move(&pos, |play, child| {
                    if !board.closes_mill(child.them(), play.to) {
                        return;
                    }
                    mills += 1;
                    let value = match variant.outcome(&child) {
                        Some(Outcome::Lost) => Wdl::Win,
                        Some(Outcome::Drawn) => Wdl::Draw,
                        Some(Outcome::Won) => Wdl::Loss,
                        None => Wdl::of(tb.value(&child).expect("a child's value")).from_parent(),
                    };
                    best_mill = best_mill.max(Some(value));
                });
                let code = wdl.code();
                let previous = |codes: &Vec<u8>| codes.last().copied().unwrap_or(code);
                let free_code = match best_mill {
                    Some(Wdl::Win) => {
                        mill_wins += 1;
                        previous(&two_bit_free)
                    }
                    Some(Wdl::Draw) if wdl == Wdl::Draw => {
                        mill_draws += 1;
                        // A loss or a draw.
                        previous(&two_bit_free).min(code)
                    }
                    _ => code,
                };
                // A mill that does not lose shows the position is not lost
                // (its search then tells a win from a draw), whatever the bit.
                let free_bit = match best_mill {
                    Some(Wdl::Win | Wdl::Draw) => previous(&loss_bits_free),
                    _ => u8::from(wdl == Wdl::Loss),
                };
                frees.push(match best_mill {
                    Some(Wdl::Win) => 2,
                    Some(Wdl::Draw) if wdl == Wdl::Draw => 1,
                    _ => 0,
                });
                two_bit.push(code);
                two_bit_free.push(free_code);
                loss_bits.push(u8::from(wdl == Wdl::Loss));
                loss_bits_free.push(free_bit);
            }
        }
        // The other fill: the sector's commonest code where it is allowed.
        let mut counts = [0u64; 3];
        for &c in &two_bit {
            counts[c as usize] += 1;
        }
        let commonest = (0..3u8).max_by_key(|&c| counts[c as usize]).unwrap();
        let two_bit_commonest: Vec<u8> = two_bit
            .iter()
            .zip(&frees)
            .map(|(&code, &free)| match free {
                2 => commonest,
                1 if commonest == 0 => 0,
                _ => code,
            })
            .collect();
        let n = two_bit.len() as f64;
        let bits = [
            pair_bits(&two_bit),
            pair_bits(&two_bit_free),
            pair_bits(&two_bit_commonest),
            pair_bits(&loss_bits),
            pair_bits(&loss_bits_free),
        ];
        sampled += n;
        for (total, b) in totals.iter_mut().zip(bits) {
            *total += b * n;
        }
        println!(
            "{sector}\t{}\t{:.1}%\t{:.1}%\t{:.2}\t{:.3}\t{:.3}\t{:.3}\t{:.3}\t{:.3}",
            two_bit.len(),
            100.0 * mill_wins as f64 / n,
            100.0 * mill_draws as f64 / n,
            mills as f64 / n,
            bits[0],
            bits[1],
            bits[2],
            bits[3],
            bits[4],
        );
    }
    let [a, b, c, d, e] = totals.map(|t| t / sampled);
    println!("all\t{sampled}\t\t\t\t{a:.3}\t{b:.3}\t{c:.3}\t{d:.3}\t{e:.3}");
}
