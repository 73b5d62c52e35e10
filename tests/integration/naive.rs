//! An independent, deliberately plain implementation of the rules and a
//! solver, sharing nothing with the library but the board's points, links
//! and mills and the variant's switches. Cells are an array; no bitboards,
//! no symmetry, no unmoves.

use morris::{RemovalRule, Variant};
use rayon::prelude::*;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// 0 empty, 1 the side to move, 2 the other side.
    pub cells: Vec<u8>,
    pub hand: [u8; 2],
}

pub struct Naive {
    pub variant: &'static Variant,
    adjacent: Vec<Vec<usize>>,
    mills: Vec<[usize; 3]>,
}

impl Naive {
    pub fn new(variant: &'static Variant) -> Naive {
        let board = variant.board;
        let n = board.len();
        let adjacent = (0..n)
            .map(|p| {
                (0..n)
                    .filter(|&q| board.links(p as u8).contains(q as u8))
                    .collect()
            })
            .collect();
        let mills = board
            .mills()
            .iter()
            .map(|m| {
                let v: Vec<usize> = (0..n).filter(|&p| m.contains(p as u8)).collect();
                [v[0], v[1], v[2]]
            })
            .collect();
        Naive {
            variant,
            adjacent,
            mills,
        }
    }

    fn count(&self, s: &State, side: u8) -> usize {
        s.cells.iter().filter(|&&c| c == side).count() + s.hand[(side - 1) as usize] as usize
    }

    fn in_mill(&self, cells: &[u8], p: usize) -> bool {
        let side = cells[p];
        self.mills
            .iter()
            .any(|m| m.contains(&p) && m.iter().all(|&q| cells[q] == side))
    }

    /// Every child position, with the side to move swapped back to 1.
    pub fn children(&self, s: &State) -> Vec<State> {
        let v = self.variant;
        let n = s.cells.len();
        if self.count(s, 1) < 3 || self.count(s, 2) < 3 {
            return vec![];
        }
        if v.full_board_draw && s.hand == [0, 0] && s.cells.iter().all(|&c| c != 0) {
            return vec![];
        }
        let mut raw: Vec<(Vec<u8>, u8, usize)> = Vec::new(); // cells after, hand after, target
        if s.hand[0] > 0 {
            for to in 0..n {
                if s.cells[to] == 0 {
                    let mut c = s.cells.clone();
                    c[to] = 1;
                    raw.push((c, s.hand[0] - 1, to));
                }
            }
        }
        if s.hand[0] == 0 || v.move_while_holding {
            let flying = v.flying && self.count(s, 1) == 3;
            for from in 0..n {
                if s.cells[from] != 1 {
                    continue;
                }
                for to in 0..n {
                    if s.cells[to] == 0 && (flying || self.adjacent[from].contains(&to)) {
                        let mut c = s.cells.clone();
                        c[from] = 0;
                        c[to] = 1;
                        raw.push((c, s.hand[0], to));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (cells, hand, to) in raw {
            let mut variants = vec![cells.clone()];
            if self.in_mill(&cells, to) {
                let theirs: Vec<usize> = (0..n).filter(|&p| cells[p] == 2).collect();
                let free: Vec<usize> = theirs
                    .iter()
                    .copied()
                    .filter(|&p| !self.in_mill(&cells, p))
                    .collect();
                let takeable = match v.removal {
                    RemovalRule::MillsLast if free.is_empty() => theirs,
                    _ => free,
                };
                if !takeable.is_empty() {
                    variants = takeable
                        .iter()
                        .map(|&r| {
                            let mut c = cells.clone();
                            c[r] = 0;
                            c
                        })
                        .collect();
                }
            }
            for c in variants {
                out.push(State {
                    cells: c.iter().map(|&x| [0, 2, 1][x as usize]).collect(),
                    hand: [s.hand[1], hand],
                });
            }
        }
        out
    }

    pub fn perft(&self, s: &State, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.children(s)
            .iter()
            .map(|c| self.perft(c, depth - 1))
            .sum()
    }

    /// A position of the library as a naive state (side to move = 1).
    pub fn state(&self, pos: &morris::Position) -> State {
        let n = self.variant.board.len();
        State {
            cells: (0..n as u8)
                .map(|p| {
                    if pos.us().contains(p) {
                        1
                    } else if pos.them().contains(p) {
                        2
                    } else {
                        0
                    }
                })
                .collect(),
            hand: [pos.us_hand(), pos.them_hand()],
        }
    }
}

/// Value as (kind, plies): kind 1 win, -1 loss, 0 draw.
pub type NaiveValue = (i8, u16);

/// Values of every position of the given board counts (no men in hand) by
/// plain iteration: round k settles exactly the positions decided in k plies.
/// Children outside the set must be terminal (fewer than three men).
pub fn solve_movement(
    naive: &Naive,
    sectors: &[(usize, usize)],
) -> std::collections::HashMap<State, NaiveValue> {
    let n = naive.variant.board.len();
    let mut states = Vec::new();
    for &(a, b) in sectors {
        for us in subsets(n, a, 0) {
            for them in subsets(n, b, us) {
                let cells = (0..n)
                    .map(|p| (us >> p & 1) as u8 + 2 * (them >> p & 1) as u8)
                    .collect();
                states.push(State {
                    cells,
                    hand: [0, 0],
                });
            }
        }
    }
    let position: std::collections::HashMap<u64, u32> = states
        .iter()
        .enumerate()
        .map(|(i, s)| (key(s), i as u32))
        .collect();
    const TERMINAL: u32 = u32::MAX;
    let children: Vec<Vec<u32>> = states
        .par_iter()
        .map(|s| {
            naive
                .children(s)
                .iter()
                .map(|c| {
                    if naive.count(c, 1) < 3 {
                        TERMINAL // the child's mover has lost: a loss in 0 for it
                    } else {
                        *position.get(&key(c)).expect("child inside the solved set")
                    }
                })
                .collect()
        })
        .collect();
    let mut value: Vec<Option<NaiveValue>> = vec![None; states.len()];
    let mut round: u16 = 0;
    loop {
        let next: Vec<Option<NaiveValue>> = (0..states.len())
            .into_par_iter()
            .map(|i| {
                if value[i].is_some() {
                    return value[i];
                }
                let kids = &children[i];
                if kids.is_empty() {
                    return (round == 0).then_some((-1, 0));
                }
                let child = |&k: &u32| {
                    if k == TERMINAL {
                        Some((-1i8, 0u16))
                    } else {
                        value[k as usize]
                    }
                };
                // A win in `round`: some child lost in round - 1.
                if kids
                    .iter()
                    .any(|k| child(k) == Some((-1, round.wrapping_sub(1))))
                {
                    return Some((1, round));
                }
                // A loss in `round`: every child won, the longest in round - 1.
                if round > 0
                    && kids.iter().all(|k| matches!(child(k), Some((1, _))))
                    && kids.iter().any(|k| child(k) == Some((1, round - 1)))
                {
                    return Some((-1, round));
                }
                None
            })
            .collect();
        let changed = next != value;
        value = next;
        if !changed && round > 2 && value.iter().all(|v| v.is_none_or(|(_, p)| p < round)) {
            break;
        }
        round += 1;
    }
    states
        .into_iter()
        .zip(value)
        .map(|(s, v)| (s, v.unwrap_or((0, 0))))
        .collect()
}

/// The men of a state as one number (no men in hand).
fn key(s: &State) -> u64 {
    let mut k = 0u64;
    for (p, &c) in s.cells.iter().enumerate() {
        if c == 1 {
            k |= 1 << p;
        } else if c == 2 {
            k |= 1 << (p + 32);
        }
    }
    k
}

fn subsets(n: usize, k: usize, taken: u32) -> Vec<u32> {
    let mut out = Vec::new();
    fn go(p: usize, n: usize, k: usize, taken: u32, cur: u32, out: &mut Vec<u32>) {
        if k == 0 {
            out.push(cur);
            return;
        }
        if p == n {
            return;
        }
        if taken >> p & 1 == 0 {
            go(p + 1, n, k - 1, taken, cur | 1 << p, out);
        }
        go(p + 1, n, k, taken, cur, out);
    }
    go(0, n, k, taken, 0, &mut out);
    out
}
