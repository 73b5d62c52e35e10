//! How much cheap features of a position say of its value: the entropy of a
//! sector's values with no context, and given each position's cell of
//! features. It bounds what a coder that guesses from the features (one
//! table of codes per cell) could take, against the coders without a model
//! that the packings use. A measurement for docs/PERFORMANCE.md ("A model
//! of the plies"), not part of the format:
//!
//!     cargo bench --bench ply_model -- ../dbs/standard-14 6-8 10
//!
//! Two kinds of cell: the loss predictor's (`predictor::cell`: mobility
//! capped at 10 and "can close a mill", both sides: 484 cells) and a finer
//! one (mobility uncapped, the mills a side can close and the mills it
//! holds two men of with the third point empty, both sides). Two kinds of
//! symbol: the full value (what a folder read without a search must code),
//! and the default packing's (the loss with its plies, or "not lost").
//! The cost of a table per cell is printed apart: the (cell, symbol) pairs
//! seen in the whole sector, at 2 bytes each.

use std::collections::HashMap;

use morris::db::Value;
use morris::db::internals::predictor::cell;
use morris::rules::{Bitboard, Position, Variant};
use rayon::prelude::*;

#[path = "sampled_sector.rs"]
mod sampled_sector;
use sampled_sector::SampledSector;

/// Positions per sampled block.
const PER_BLOCK: u64 = 131_072;

/// A finer cell than the predictor's: per side, its mobility (uncapped; 31
/// when it places or flies), the mills it can close now (up to 3) and its
/// "open" mills, two men with the third point empty (up to 7).
fn fine_cell(variant: &Variant, pos: &Position) -> u32 {
    let side = |men: Bitboard, hand: u8, other: Bitboard| -> u32 {
        let board = variant.board;
        let empty = board.all() & !(men | other);
        let free = hand > 0 || variant.flies(men.count(), hand);
        let mobility = if free {
            31
        } else {
            men.iter()
                .map(|p| (board.links(p) & empty).count())
                .sum::<u32>()
                .min(30)
        };
        let (mut open, mut closable) = (0u32, 0u32);
        for &mill in board.mills() {
            let gap = mill & empty;
            if (mill & men).count() == 2 && gap.count() == 1 {
                open += 1;
                let point = gap.first_point().expect("one point");
                if free || !(board.links(point) & men & !mill).is_empty() {
                    closable += 1;
                }
            }
        }
        mobility * 32 + closable.min(3) * 8 + open.min(7)
    };
    let us = side(pos.us(), pos.us_hand(), pos.them());
    let them = side(pos.them(), pos.them_hand(), pos.us());
    us * 1024 + them
}

/// A value as a symbol: wins, losses and draws apart.
fn full_symbol(value: Value) -> u32 {
    match value {
        Value::Win(n) => n as u32,
        Value::Loss(n) => 1000 + n as u32,
        Value::Draw => 2000,
    }
}

/// What the default packing keeps: a loss with its plies, or "not lost".
fn loss_symbol(value: Value) -> u32 {
    match value {
        Value::Loss(n) => 1 + n as u32,
        _ => 0,
    }
}

/// Counts of (context, symbol) and the entropy they give, in bits.
#[derive(Default)]
struct Counts(HashMap<(u32, u32), u64>);

impl Counts {
    fn add(&mut self, context: u32, symbol: u32) {
        *self.0.entry((context, symbol)).or_default() += 1;
    }

    /// Bits per position: the conditional entropy of the symbol given the
    /// context.
    fn bits(&self) -> f64 {
        let mut per_context: HashMap<u32, u64> = HashMap::new();
        for (&(c, _), &n) in &self.0 {
            *per_context.entry(c).or_default() += n;
        }
        let total: u64 = per_context.values().sum();
        let sum: f64 = self
            .0
            .iter()
            .map(|(&(c, _), &n)| n as f64 * (per_context[&c] as f64 / n as f64).log2())
            .sum();
        sum / total as f64
    }

    fn pairs(&self) -> usize {
        self.0.len()
    }
}

fn main() {
    let variant = Variant::standard();
    let sampled = SampledSector::from_args("ply_model");
    let (key, file, index) = (sampled.key, &sampled.file, &sampled.index);
    // Per sampled block: each position's value and both cells.
    let samples: Vec<(Value, u32, u32)> = sampled
        .blocks(PER_BLOCK)
        .into_par_iter()
        .flat_map_iter(|range| {
            range.map(move |i| {
                let value = file.value(i).expect("a value");
                let pos = index.position(i, key.us_hand, key.them_hand);
                (value, cell(variant, &pos) as u32, fine_cell(variant, &pos))
            })
        })
        .collect();
    let mut table = [(); 10].map(|_| Counts::default());
    let mut previous = [u32::MAX; 2];
    for (i, &(value, coarse, fine)) in samples.iter().enumerate() {
        if (i as u64).is_multiple_of(PER_BLOCK) {
            previous = [u32::MAX; 2];
        }
        for ((symbol, counts), previous) in [full_symbol(value), loss_symbol(value)]
            .into_iter()
            .zip(table.chunks_mut(5))
            .zip(&mut previous)
        {
            counts[0].add(0, symbol);
            counts[1].add(coarse, symbol);
            counts[2].add(fine, symbol);
            counts[3].add(*previous, symbol);
            counts[4].add(coarse << 12 | *previous & 0xfff, symbol);
            *previous = symbol;
        }
    }
    let size = index.size();
    let scale = size as f64 / samples.len() as f64;
    println!(
        "{key}: {} of {size} positions sampled (every {}th block of {PER_BLOCK})",
        samples.len(),
        sampled.every
    );
    for (name, counts) in ["full values", "the default's losses"]
        .into_iter()
        .zip(table.chunks(5))
    {
        let table_bits = |c: &Counts| (c.pairs() * 16) as f64 / (samples.len() as f64 * scale);
        println!("  {name}:");
        for (context, c) in [
            "no context",
            "the predictor's cell",
            "the finer cell",
            "the previous position's symbol",
            "the predictor's cell and the previous symbol",
        ]
        .iter()
        .zip(counts)
        {
            println!(
                "    {context}: {:.3} bits (+{:.3} for its table)",
                c.bits(),
                table_bits(c)
            );
        }
    }
}
