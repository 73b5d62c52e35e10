//! Sectors: positions grouped by the men on board and in hand of each side,
//! the graph of moves between them, and the order in which to solve them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::str::FromStr;

use crate::rules::{Position, Variant};

/// The men on board and in hand of the side to move (`us`) and of the other
/// side (`them`). Values are from the side to move, so colour is not part of it.
///
/// Written `8-7` when no man is in hand (us on board, them on board) and
/// `4+5-3+4` otherwise (us on board + in hand, them on board + in hand); the
/// same text names the sector's database file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct SectorKey {
    pub us_board: u8,
    pub us_hand: u8,
    pub them_board: u8,
    pub them_hand: u8,
}

impl SectorKey {
    pub const fn new(us_board: u8, us_hand: u8, them_board: u8, them_hand: u8) -> SectorKey {
        SectorKey {
            us_board,
            us_hand,
            them_board,
            them_hand,
        }
    }

    /// A movement sector: no man in hand.
    pub const fn movement(us_board: u8, them_board: u8) -> SectorKey {
        SectorKey::new(us_board, 0, them_board, 0)
    }

    /// The sector of a position.
    pub fn of(pos: &Position) -> SectorKey {
        SectorKey::new(
            pos.us().count() as u8,
            pos.us_hand(),
            pos.them().count() as u8,
            pos.them_hand(),
        )
    }

    /// The start of a game of `variant`.
    pub fn start(variant: &Variant) -> SectorKey {
        SectorKey::new(0, variant.men, 0, variant.men)
    }

    /// The same men with the other side to move.
    pub fn mirror(self) -> SectorKey {
        SectorKey::new(self.them_board, self.them_hand, self.us_board, self.us_hand)
    }

    pub fn is_movement(self) -> bool {
        self.us_hand == 0 && self.them_hand == 0
    }

    /// Men on the board, both sides.
    pub fn men_on_board(self) -> u32 {
        self.us_board as u32 + self.them_board as u32
    }

    // Saturating: a sector read from text may hold any counts (4+255-3).
    fn us_total(self) -> u8 {
        self.us_board.saturating_add(self.us_hand)
    }

    fn them_total(self) -> u8 {
        self.them_board.saturating_add(self.them_hand)
    }

    /// True when positions of this sector can occur in a game of `variant`:
    /// both sides have 3 men or more and they fit their number and the board.
    pub fn is_valid(self, variant: &Variant) -> bool {
        self.us_total() >= 3
            && self.them_total() >= 3
            && self.us_total() <= variant.men
            && self.them_total() <= variant.men
            && self.men_on_board() as usize <= variant.board.len()
    }

    /// The sectors that one move can lead to (games that end on the move lead
    /// to no sector). The first is the one reached by a move that removes nothing.
    pub fn successors(self, variant: &Variant) -> Vec<SectorKey> {
        let mut out = BTreeSet::new();
        let points = variant.board.len() as u8;
        let mut add = |us_board: u8, us_hand: u8| {
            // Quiet move: needs an empty point.
            if self.us_board + self.them_board < points {
                out.insert(SectorKey::new(
                    self.them_board,
                    self.them_hand,
                    us_board,
                    us_hand,
                ));
            }
            // A removal needs a man to take. Like Malom's sector graph this does
            // not ask for the three men a mill needs, so a few sectors with
            // fewer than three men on board are listed that play never reaches.
            if self.them_board >= 1 {
                out.insert(SectorKey::new(
                    self.them_board - 1,
                    self.them_hand,
                    us_board,
                    us_hand,
                ));
            }
        };
        if self.us_hand > 0 {
            add(self.us_board + 1, self.us_hand - 1);
        }
        if variant.may_slide(self.us_hand) && self.us_board > 0 {
            add(self.us_board, self.us_hand);
        }
        out.into_iter().filter(|s| s.is_valid(variant)).collect()
    }
}

impl fmt::Display for SectorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_movement() {
            write!(f, "{}-{}", self.us_board, self.them_board)
        } else {
            write!(
                f,
                "{}+{}-{}+{}",
                self.us_board, self.us_hand, self.them_board, self.them_hand
            )
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a sector: write US-THEM for men on board (8-7) or US+HAND-THEM+HAND with men in hand (4+5-3+4)"
)]
pub struct SectorParseError(String);

impl FromStr for SectorKey {
    type Err = SectorParseError;

    fn from_str(s: &str) -> Result<SectorKey, SectorParseError> {
        let err = || SectorParseError(s.to_string());
        let side = |t: &str| -> Result<(u8, u8), SectorParseError> {
            match t.split_once('+') {
                Some((b, h)) => Ok((b.parse().map_err(|_| err())?, h.parse().map_err(|_| err())?)),
                None => Ok((t.parse().map_err(|_| err())?, 0)),
            }
        };
        let (us, them) = s.split_once('-').ok_or_else(err)?;
        let ((ub, uh), (tb, th)) = (side(us)?, side(them)?);
        Ok(SectorKey::new(ub, uh, tb, th))
    }
}

/// The sectors of a variant reachable from its start and how they depend on
/// each other.
#[derive(Debug, Clone)]
pub struct SectorGraph {
    successors: BTreeMap<SectorKey, Vec<SectorKey>>,
}

impl SectorGraph {
    /// Every sector reachable from the start of `variant`.
    pub fn reachable(variant: &Variant) -> SectorGraph {
        let mut successors = BTreeMap::new();
        let start = SectorKey::start(variant);
        let mut queue = VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            if successors.contains_key(&s) {
                continue;
            }
            let next = s.successors(variant);
            queue.extend(next.iter().copied());
            successors.insert(s, next);
        }
        SectorGraph { successors }
    }

    pub fn sectors(&self) -> impl Iterator<Item = SectorKey> + '_ {
        self.successors.keys().copied()
    }

    pub fn len(&self) -> usize {
        self.successors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.successors.is_empty()
    }

    pub fn contains(&self, sector: SectorKey) -> bool {
        self.successors.contains_key(&sector)
    }

    pub fn successors(&self, sector: SectorKey) -> &[SectorKey] {
        self.successors.get(&sector).map_or(&[], Vec::as_slice)
    }

    /// The units to solve, dependencies first: each unit is a set of sectors
    /// that depend on each other (8-7 with 7-8) or a single sector.
    pub fn units(&self) -> Vec<Vec<SectorKey>> {
        // Tarjan's algorithm yields strongly connected components with every
        // component after all the components it reaches: a solve order.
        struct State<'a> {
            graph: &'a SectorGraph,
            index: BTreeMap<SectorKey, usize>,
            low: BTreeMap<SectorKey, usize>,
            stack: Vec<SectorKey>,
            on_stack: BTreeSet<SectorKey>,
            units: Vec<Vec<SectorKey>>,
        }
        fn visit(st: &mut State, v: SectorKey) {
            let n = st.index.len();
            st.index.insert(v, n);
            st.low.insert(v, n);
            st.stack.push(v);
            st.on_stack.insert(v);
            for &w in st.graph.successors(v) {
                if !st.index.contains_key(&w) {
                    visit(st, w);
                    let lw = st.low[&w];
                    let lv = st.low.get_mut(&v).unwrap();
                    *lv = (*lv).min(lw);
                } else if st.on_stack.contains(&w) {
                    let iw = st.index[&w];
                    let lv = st.low.get_mut(&v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if st.low[&v] == st.index[&v] {
                let mut unit = Vec::new();
                while let Some(w) = st.stack.pop() {
                    st.on_stack.remove(&w);
                    unit.push(w);
                    if w == v {
                        break;
                    }
                }
                unit.sort();
                st.units.push(unit);
            }
        }
        let mut st = State {
            graph: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            units: Vec::new(),
        };
        for s in self.sectors() {
            if !st.index.contains_key(&s) {
                visit(&mut st, s);
            }
        }
        st.units
    }

    /// The sectors that `targets` need, themselves included.
    pub fn needed_by(&self, targets: &[SectorKey]) -> BTreeSet<SectorKey> {
        let mut needed = BTreeSet::new();
        let mut todo: Vec<SectorKey> = targets.to_vec();
        while let Some(s) = todo.pop() {
            if needed.insert(s) {
                todo.extend_from_slice(self.successors(s));
            }
        }
        needed
    }

    /// The sectors that `targets` need, themselves included, in solve order
    /// as units.
    pub fn units_for(&self, targets: &[SectorKey]) -> Vec<Vec<SectorKey>> {
        let needed = self.needed_by(targets);
        self.units()
            .into_iter()
            .filter(|unit| unit.iter().any(|s| needed.contains(s)))
            .collect()
    }
}
