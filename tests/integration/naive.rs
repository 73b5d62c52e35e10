//! An independent, deliberately plain implementation of the rules and a
//! solver, sharing nothing with the library but the board's points, links
//! and mills and the variant's switches. Cells are an array; no bitboards,
//! no symmetry, no unmoves.

use morris::{RemovalRule, Variant};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use rayon::prelude::*;

/// A state's key to its number. The keys are distinct 64-bit numbers: a
/// multiply mixes them enough, at a fraction of the default hasher's cost
/// (which took most of the naive solver's time).
type Positions = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = (key ^ (key >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// Points of the largest board.
const POINTS: usize = 24;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// 0 empty, 1 the side to move, 2 the other side; points past the
    /// board's last stay 0.
    pub cells: [u8; POINTS],
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

    /// Morabaraba's full board after placing: drawn, no moves.
    pub fn full_board_draw(&self, s: &State) -> bool {
        self.variant.full_board_draw
            && s.hand == [0, 0]
            && s.cells[..self.variant.board.len()].iter().all(|&c| c != 0)
    }

    pub fn count(&self, s: &State, side: u8) -> usize {
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
        self.children_with_mills(s)
            .into_iter()
            .map(|(c, _)| c)
            .collect()
    }

    /// [`Naive::children`], each with whether its move closed a mill.
    pub fn children_with_mills(&self, s: &State) -> Vec<(State, bool)> {
        let v = self.variant;
        let n = v.board.len();
        if self.count(s, 1) < 3 || self.count(s, 2) < 3 {
            return vec![];
        }
        if self.full_board_draw(s) {
            return vec![];
        }
        let mut raw: Vec<([u8; POINTS], u8, usize)> = Vec::new(); // cells after, hand after, target
        if s.hand[0] > 0 {
            for to in 0..n {
                if s.cells[to] == 0 {
                    let mut c = s.cells;
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
                        let mut c = s.cells;
                        c[from] = 0;
                        c[to] = 1;
                        raw.push((c, s.hand[0], to));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (cells, hand, to) in raw {
            let mut variants = vec![cells];
            let mill = self.in_mill(&cells, to);
            if mill {
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
                            let mut c = cells;
                            c[r] = 0;
                            c
                        })
                        .collect();
                }
            }
            for c in variants {
                let child = State {
                    cells: c.map(|x| [0, 2, 1][x as usize]),
                    hand: [s.hand[1], hand],
                };
                out.push((child, mill));
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

    /// A naive state as a position of the library.
    pub fn position(&self, s: &State) -> morris::Position {
        let side = |c: u8| {
            (0..self.variant.board.len())
                .filter(|&p| s.cells[p] == c)
                .fold(morris::Bitboard::EMPTY, |b, p| b.with(p as u8))
        };
        morris::Position::from_sides(side(1), s.hand[0], side(2), s.hand[1])
    }

    /// A position of the library as a naive state (side to move = 1).
    pub fn state(&self, pos: &morris::Position) -> State {
        let mut cells = [0; POINTS];
        for (p, cell) in cells.iter_mut().enumerate().take(self.variant.board.len()) {
            let p = p as u8;
            *cell = if pos.us().contains(p) {
                1
            } else if pos.them().contains(p) {
                2
            } else {
                0
            };
        }
        State {
            cells,
            hand: [pos.us_hand(), pos.them_hand()],
        }
    }
}

/// Value as (kind, plies): kind 1 win, -1 loss, 0 draw.
pub type NaiveValue = (i8, u16);

/// Men on board and in hand: (us, us in hand, them, them in hand).
pub type Sector = (usize, u8, usize, u8);

/// The naive solver's values of a set of positions.
pub struct Solution {
    pub states: Vec<State>,
    pub values: Vec<NaiveValue>,
    position: Positions,
}

impl Solution {
    pub fn get(&self, s: &State) -> NaiveValue {
        self.values[self.position[&key(s)] as usize]
    }
}

/// Values of every position of the given sectors by plain iteration: round
/// k settles exactly the positions decided in k plies, looking only at the
/// parents of positions settled in round k - 1 (no other can change).
/// Children outside the set must be terminal (a side below three men).
pub fn solve_sectors(naive: &Naive, sectors: &[Sector]) -> Solution {
    solve_sectors_with_boundary(naive, sectors, None)
}

/// A position's value given from outside the solved set.
pub type Boundary<'a> = &'a (dyn Fn(&State) -> NaiveValue + Sync);

/// As [`solve_sectors`], with the values of children outside the set given
/// by `boundary` (without one, such children must be terminal). They join
/// the set with their values fixed, each settled in the round of its plies.
pub fn solve_sectors_with_boundary(
    naive: &Naive,
    sectors: &[Sector],
    boundary: Option<Boundary>,
) -> Solution {
    let mut states = states_of(naive, sectors);
    let mut position: Positions = states
        .iter()
        .enumerate()
        .map(|(i, s)| (key(s), i as u32))
        .collect();
    let inside = states.len();
    let mut fixed: Vec<NaiveValue> = Vec::new();
    if let Some(boundary) = boundary {
        let outside: Vec<State> = states
            .par_iter()
            .flat_map_iter(|s| naive.children(s))
            .filter(|c| naive.count(c, 1) >= 3 && !position.contains_key(&key(c)))
            .collect();
        for c in outside {
            if let std::collections::hash_map::Entry::Vacant(e) = position.entry(key(&c)) {
                e.insert(states.len() as u32);
                fixed.push(boundary(&c));
                states.push(c);
            }
        }
    }
    const TERMINAL: u32 = u32::MAX;
    let children: Vec<Vec<u32>> = states[..inside]
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
    let mut parents: Vec<Vec<u32>> = vec![Vec::new(); states.len()];
    for (i, kids) in children.iter().enumerate() {
        for &k in kids {
            if k != TERMINAL {
                parents[k as usize].push(i as u32);
            }
        }
    }
    let mut value: Vec<Option<NaiveValue>> = states
        .iter()
        .map(|s| naive.full_board_draw(s).then_some((0, 0)))
        .collect();
    // Rounds 0 and 1 look at every position (a terminal child is a loss in
    // 0 without being a state); later rounds at the parents of the last.
    let everything: Vec<u32> = (0..states.len() as u32).collect();
    let mut candidates = everything.clone();
    let mut round: u16 = 0;
    let last_fixed = fixed.iter().map(|&(_, plies)| plies).max();
    while !candidates.is_empty() || last_fixed.is_some_and(|last| round <= last) {
        let mut settled: Vec<(u32, NaiveValue)> = candidates
            .par_iter()
            .filter_map(|&i| {
                let i = i as usize;
                if i >= inside || value[i].is_some() {
                    return None;
                }
                let kids = &children[i];
                let child = |&k: &u32| {
                    if k == TERMINAL {
                        Some((-1i8, 0u16))
                    } else {
                        value[k as usize]
                    }
                };
                let decided = if kids.is_empty() {
                    (round == 0).then_some((-1, 0))
                } else if kids
                    .iter()
                    .any(|k| child(k) == Some((-1, round.wrapping_sub(1))))
                {
                    // A win in `round`: some child lost in round - 1.
                    Some((1, round))
                } else if round > 0
                    && kids.iter().all(|k| matches!(child(k), Some((1, _))))
                    && kids.iter().any(|k| child(k) == Some((1, round - 1)))
                {
                    // A loss in `round`: every child won, the longest in round - 1.
                    Some((-1, round))
                } else {
                    None
                };
                decided.map(|v| (i as u32, v))
            })
            .collect();
        // Fixed wins and losses settle in the round of their plies; fixed
        // draws never do, as draws.
        settled.extend(
            (fixed.iter().enumerate())
                .filter(|(_, v)| v.0 != 0 && v.1 == round)
                .map(|(k, &v)| ((inside + k) as u32, v)),
        );
        for &(i, v) in &settled {
            value[i as usize] = Some(v);
        }
        let mut next: Vec<u32> = settled
            .iter()
            .flat_map(|&(i, _)| parents[i as usize].iter().copied())
            .collect();
        next.sort_unstable();
        next.dedup();
        candidates = if round == 0 { everything.clone() } else { next };
        round += 1;
    }
    Solution {
        states,
        values: value.into_iter().map(|v| v.unwrap_or((0, 0))).collect(),
        position,
    }
}

/// The value of a position from its children's values, as RULES.md defines
/// it: the fastest win, else a draw, else the slowest loss; no move loses.
pub fn best_of(children: impl IntoIterator<Item = NaiveValue>) -> NaiveValue {
    let (mut win, mut draw, mut loss): (Option<u16>, bool, Option<u16>) = (None, false, None);
    for (kind, plies) in children {
        match kind {
            -1 => win = Some(win.map_or(plies + 1, |w| w.min(plies + 1))),
            0 => draw = true,
            _ => loss = Some(loss.map_or(plies + 1, |l| l.max(plies + 1))),
        }
    }
    match (win, draw, loss) {
        (Some(w), _, _) => (1, w),
        (None, true, _) => (0, 0),
        (None, false, Some(l)) => (-1, l),
        (None, false, None) => (-1, 0),
    }
}

/// The men and hands of a state as one number.
fn key(s: &State) -> u64 {
    let mut k = (s.hand[0] as u64) << 24 | (s.hand[1] as u64) << 56;
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

/// Every state of the given sectors.
fn states_of(naive: &Naive, sectors: &[Sector]) -> Vec<State> {
    let n = naive.variant.board.len();
    let mut states = Vec::new();
    for &(a, ha, b, hb) in sectors {
        for us in subsets(n, a, 0) {
            for them in subsets(n, b, us) {
                let mut cells = [0; POINTS];
                for (p, cell) in cells.iter_mut().enumerate().take(n) {
                    *cell = (us >> p & 1) as u8 + 2 * (them >> p & 1) as u8;
                }
                states.push(State {
                    cells,
                    hand: [ha, hb],
                });
            }
        }
    }
    states
}

/// Values under the move-count rule of `n` plies for every (state, counter)
/// pair of the given sectors, counter 0..=n: kind 1 win, -1 loss, 0 draw,
/// straight from the rule. At counter `n` the game is drawn, unless the
/// side to move has no move (the block on the n-th ply ended the game
/// first); before it, a move that closes a mill leads to its child at
/// counter 0, any other to its child at counter + 1. Children outside the
/// set must be terminal (a side below three men).
pub struct ClockSolution {
    /// `values[state * (n + 1) + counter]`.
    values: Vec<i8>,
    n: usize,
    position: Positions,
}

impl ClockSolution {
    pub fn get(&self, s: &State, counter: usize) -> i8 {
        self.values[self.position[&key(s)] as usize * (self.n + 1) + counter]
    }
}

/// See [`ClockSolution`]. A mill lowers the men in all or the men in hand,
/// a quiet move keeps both or lowers the men in hand: states ordered by
/// (men in all, men in hand) find every child at counter 0 solved before
/// them, and, counter by counter downwards, every child at counter + 1.
pub fn solve_sectors_under_rule(naive: &Naive, sectors: &[Sector], n: usize) -> ClockSolution {
    const TERMINAL: u32 = (1 << 31) - 1;
    let states = states_of(naive, sectors);
    let position: Positions = states
        .iter()
        .enumerate()
        .map(|(i, s)| (key(s), i as u32))
        .collect();
    let potential = |s: &State| (naive.count(s, 1) + naive.count(s, 2), s.hand[0] + s.hand[1]);
    // Children in one flat list (3-4 has 27 million states, 34 children
    // each): a child's state, with MILL set when its move closed a mill.
    const MILL: u32 = 1 << 31;
    let mut offsets = vec![0usize];
    let mut children: Vec<u32> = Vec::new();
    for part in states.chunks(1 << 20) {
        let lists: Vec<Vec<u32>> = part
            .par_iter()
            .map(|s| {
                naive
                    .children_with_mills(s)
                    .iter()
                    .map(|(c, mill)| {
                        let flag = if *mill { MILL } else { 0 };
                        if naive.count(c, 1) < 3 {
                            return TERMINAL | flag;
                        }
                        let k = *position.get(&key(c)).expect("child inside the solved set");
                        let lower = potential(c) < potential(s);
                        assert!(lower || !*mill, "a mill that keeps the men and hands");
                        k | flag
                    })
                    .collect()
            })
            .collect();
        for list in lists {
            children.extend_from_slice(&list);
            offsets.push(children.len());
        }
    }
    let mut order: Vec<u32> = (0..states.len() as u32).collect();
    order.sort_by_key(|&i| potential(&states[i as usize]));
    let width = n + 1;
    let mut values = vec![0i8; states.len() * width];
    for group in
        order.chunk_by(|&a, &b| potential(&states[a as usize]) == potential(&states[b as usize]))
    {
        for counter in (0..=n).rev() {
            let layer: Vec<i8> = group
                .par_iter()
                .map(|&i| {
                    let i = i as usize;
                    let kids = &children[offsets[i]..offsets[i + 1]];
                    if naive.full_board_draw(&states[i]) {
                        0
                    } else if kids.is_empty() {
                        -1 // blocked
                    } else if counter == n {
                        0 // n plies without a mill
                    } else {
                        kids.iter()
                            .map(|&k| {
                                let at = if k & MILL != 0 { 0 } else { counter + 1 };
                                let child = match k & !MILL {
                                    TERMINAL => -1,
                                    k => values[k as usize * width + at],
                                };
                                -child
                            })
                            .max()
                            .unwrap()
                    }
                })
                .collect();
            for (&i, v) in group.iter().zip(layer) {
                values[i as usize * width + counter] = v;
            }
        }
    }
    ClockSolution {
        values,
        n,
        position,
    }
}

/// Six's sectors with 3 or 4 men a side in all, on the board or in hand: a
/// set closed under moves, with its naive solver.
pub struct SixSmall {
    pub naive: Naive,
    pub sectors: Vec<Sector>,
    pub solution: Solution,
}

/// [`SixSmall`] solved once per process: four tests compare with it, and
/// `cargo test` runs them all in one process.
pub fn six_small_sectors() -> &'static SixSmall {
    static SOLVED: OnceLock<SixSmall> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let six = Variant::by_name("six").unwrap();
        let naive = Naive::new(six);
        let mut sectors = crate::solver::sectors_with_men_in_all(six, 4);
        sectors.sort_unstable();
        let solution = solve_sectors(&naive, &sectors);
        SixSmall {
            naive,
            sectors,
            solution,
        }
    })
}

/// The rule of the (position, counter) solution that two tests share.
pub const SIX_SMALL_RULE: u8 = 10;

/// [`SixSmall`]'s sectors under the rule of [`SIX_SMALL_RULE`] plies, solved
/// once per process.
pub fn six_small_sectors_under_rule() -> &'static ClockSolution {
    static SOLVED: OnceLock<ClockSolution> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let small = six_small_sectors();
        solve_sectors_under_rule(&small.naive, &small.sectors, SIX_SMALL_RULE as usize)
    })
}
