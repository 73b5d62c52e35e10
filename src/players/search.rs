//! `search:D`, a fallible player that reads no folder: a D-ply alpha-beta
//! search over a simple evaluation (men, mobility, mills one man short),
//! random among the moves of the best score.

use super::Random;
use crate::rules::{Move, Outcome, Position, Variant};

/// A won or lost game, beyond any evaluation.
const DECIDED: i32 = 1_000_000;

/// The position's worth for the side to move: men (on the board and in
/// hand) count 100 each, a mill one man short with its point empty 20,
/// each legal move 1.
pub fn evaluate(variant: &Variant, pos: &Position) -> i32 {
    let board = variant.board;
    let (us, them) = (pos.us(), pos.them());
    let men = |on_board: u32, hand: u8| 100 * (on_board as i32 + i32::from(hand));
    let empty = board.all() & !pos.occupied();
    let almost = |side: crate::rules::Bitboard| {
        board
            .mills()
            .iter()
            .filter(|&&mill| (mill & side).count() == 2 && (mill & empty).count() == 1)
            .count() as i32
    };
    let mobility = |p: &Position| {
        let mut n = 0;
        variant.for_each_move(p, |_, _| n += 1);
        n
    };
    let their_turn = Position::from_sides(them, pos.them_hand(), us, pos.us_hand());
    men(us.count(), pos.us_hand()) - men(them.count(), pos.them_hand())
        + 20 * (almost(us) - almost(them))
        + mobility(pos)
        - mobility(&their_turn)
}

/// Negamax with alpha-beta: the score for the side to move, `depth` plies deep.
fn negamax(variant: &Variant, pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    match variant.outcome(pos) {
        // A sooner loss is worse: more depth left means sooner.
        Some(Outcome::Lost) => return -DECIDED - depth as i32,
        Some(Outcome::Won) => return DECIDED + depth as i32,
        Some(Outcome::Drawn) => return 0,
        None => {}
    }
    if depth == 0 {
        return evaluate(variant, pos);
    }
    let mut best = i32::MIN + 1;
    for (_, child) in variant.moves(pos) {
        let score = -negamax(variant, &child, depth - 1, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The move a `depth`-ply search plays at `pos` (a position with a move),
/// random among the moves of the best score.
pub fn search_move(variant: &Variant, pos: &Position, depth: u32, random: &mut Random) -> Move {
    let scored: Vec<(Move, i32)> = variant
        .moves(pos)
        .into_iter()
        .map(|(play, child)| {
            (
                play,
                -negamax(variant, &child, depth - 1, -DECIDED * 2, DECIDED * 2),
            )
        })
        .collect();
    let top = scored.iter().map(|&(_, s)| s).max().unwrap_or(0);
    let best: Vec<Move> = scored
        .iter()
        .filter(|&&(_, s)| s == top)
        .map(|&(m, _)| m)
        .collect();
    best[random.below(best.len())]
}
