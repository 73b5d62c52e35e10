//! A position's cell before the levels run: its children inside the unit
//! counted, those outside it valued from the finished sectors.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::cells::{
    COUNT_SHIFT, DISTANCE, DRAW, LONG_LOSS, MAX_COUNT, MAX_WIN_BOUND, RESOLVED, WIN_BOUND,
};
use super::error::SolveError;
use super::exits::{Exit, Exits, LastClass};
use super::retrograde::Unit;
use super::wake::WakeLevels;
use crate::db::{Fold, Value};
use crate::index::{SectorIndex, SectorKey, UsClass};
use crate::rules::{Bitboard, Position, Variant};
use crate::system::prefetch;

/// What lets a movement sector's initialisation skip most index lookups:
/// every slide leads to the mirrored sector, inside the unit, and every
/// capture to one sector outside it.
pub(super) struct MovementShortcuts {
    /// The part holding the children of slides.
    pub(super) mirror: usize,
    /// The exit entry holding the children of captures, when mapped.
    captures: Option<usize>,
}

impl MovementShortcuts {
    pub(super) fn new(
        sector: SectorKey,
        part_of: &impl Fn(SectorKey) -> Option<usize>,
        exits: &Exits,
    ) -> Option<MovementShortcuts> {
        if !sector.is_movement() {
            return None;
        }
        let (us, them) = (sector.us_board, sector.them_board);
        let captured = SectorKey::new(them.checked_sub(1)?, 0, us, 0);
        Some(MovementShortcuts {
            mirror: part_of(SectorKey::new(them, 0, us, 0))?,
            captures: exits.sectors.iter().position(|(s, _, _)| *s == captured),
        })
    }
}

/// Scratch space of [`movement_moves`] and [`holding_moves`], kept per thread.
#[derive(Default)]
pub(super) struct MovementScratch {
    /// The children of quiet slides, when a symmetry may merge them: their
    /// other side's men as their index stores them (all share the side to
    /// move's), which tell them apart without their indices.
    quiet: Vec<u32>,
    /// The children outside the unit (of captures, and of quiet placements)
    /// in a mapped sector: exit entry and index, their bytes prefetched.
    pub(super) pending: Vec<(usize, u64)>,
    /// The children outside the unit in a sector without a mapped file.
    pub(super) unmapped: Vec<Position>,
    /// The class of the children of slides closing a mill, per set of men
    /// left, looked up once.
    captured: Vec<(Bitboard, UsClass)>,
    /// The same for placements closing a mill ([`holding_moves`]): their
    /// children lie in another sector.
    captured_by_placing: Vec<(Bitboard, UsClass)>,
}

/// What a position's moves are, for its cell before the levels.
pub(super) struct MovementMoves {
    pub(super) any_move: bool,
    /// Distinct children inside the unit: those of quiet slides.
    pub(super) inside: u16,
    /// Some capture leaves the other side below three men: a win at once.
    pub(super) capture_wins: bool,
}

/// Walks the slides of a movement position `pos` (not a game end): counts
/// its distinct children inside the unit and leaves the captures' children
/// in `scratch` (`pending` when their sector is mapped, else `unmapped`).
/// A slide's child has the men `them` to move; when no symmetry fixes them,
/// different slides give different children, so they are counted without
/// computing their indices. Every capture leads to one sector outside the
/// unit, whose class lookups are shared by the children with the same men.
pub(super) fn movement_moves(
    variant: &Variant,
    mirror: &SectorIndex,
    exits: &Exits,
    pos: &Position,
    shortcuts: &MovementShortcuts,
    scratch: &mut MovementScratch,
) -> MovementMoves {
    let board = variant.board;
    let (us, them) = (pos.us(), pos.them());
    // The children's side to move has the men `them`: its class looked up once.
    let symmetric = mirror.us_is_symmetric(them).then(|| mirror.us_class(them));
    let removable = variant.removable(them);
    let empty = board.all() & !(us | them);
    let flying = variant.flies(us.count(), 0);
    let MovementScratch {
        quiet,
        pending,
        unmapped,
        captured,
        ..
    } = scratch;
    quiet.clear();
    pending.clear();
    unmapped.clear();
    captured.clear();
    let mut moves = MovementMoves {
        any_move: false,
        inside: 0,
        // A capture leaving fewer than three men wins at once.
        capture_wins: false,
    };
    let capture_wins = them.count() - 1 < 3;
    for from in us {
        for to in board.moves_from(from, empty, flying) {
            moves.any_move = true;
            let after = us.without(from).with(to);
            if removable.is_empty() || !board.closes_mill(after, to) {
                if let Some(class) = &symmetric {
                    quiet.push(mirror.stored_them(class, after).0);
                } else {
                    moves.inside += 1;
                }
                continue;
            }
            if capture_wins {
                moves.capture_wins = true;
                continue;
            }
            let children = CaptureChildren {
                entry: shortcuts.captures,
                them: (them, 0),
                after: (after, 0),
            };
            children.leave(exits, removable, captured, pending, unmapped);
        }
    }
    if symmetric.is_some() {
        quiet.sort_unstable();
        quiet.dedup();
        moves.inside = quiet.len() as u16;
    }
    moves
}

/// [`initial_cell`] for a movement position, see [`movement_moves`].
pub(super) fn initial_movement_cell(
    unit: &Unit,
    pos: &Position,
    shortcuts: &MovementShortcuts,
    scratch: &mut MovementScratch,
) -> Result<u16, SolveError> {
    let (variant, exits) = (unit.variant, &unit.exits);
    if variant.static_outcome(pos).is_some() {
        return Ok(RESOLVED | DRAW); // see `initial_cell`
    }
    let mirror = &unit.parts[shortcuts.mirror].index;
    let moves = movement_moves(variant, mirror, exits, pos, shortcuts, scratch);
    cell_of_moves(unit, pos, moves, scratch)
}

/// The cell of a position whose moves [`movement_moves`] or
/// [`holding_moves`] walked, once the children they left are read.
#[inline]
fn cell_of_moves(
    unit: &Unit,
    pos: &Position,
    moves: MovementMoves,
    scratch: &mut MovementScratch,
) -> Result<u16, SolveError> {
    let exits = &unit.exits;
    let mut outside = Fold::new();
    if moves.capture_wins {
        outside.add(Value::Loss(0));
    }
    let mut last = LastClass::default();
    for child in &scratch.unmapped {
        match exits.locate(child, &mut last)? {
            Exit::Known(v) => outside.add(v),
            Exit::At(entry, at) => scratch.pending.push((entry, at)),
        }
    }
    for &(entry, at) in scratch.pending.iter() {
        outside.add(exits.read(entry, at)?);
    }
    let children = Children {
        any_move: moves.any_move,
        inside: moves.inside,
        outside,
    };
    children.cell(unit, pos)
}

/// What lets the initialisation of a sector with men in hand whose side to
/// move may slide (Lasker's, where a side holding men may move; either side
/// may be the one holding them) skip most lookups, as [`MovementShortcuts`]
/// does for movement sectors: its quiet slides lead to the mirrored sector,
/// inside the unit, and its other moves to three sectors outside it, each
/// found once here rather than once a child.
pub(super) struct HoldingShortcuts {
    /// The part holding the children of quiet slides.
    mirror: usize,
    /// The men in hand of the side to move and of the other side.
    hands: (u8, u8),
    /// The exit entry of the children of quiet placements, when mapped.
    placed: Option<usize>,
    /// The same of placements closing a mill.
    placed_captures: Option<usize>,
    /// The same of slides closing a mill.
    slid_captures: Option<usize>,
}

impl HoldingShortcuts {
    pub(super) fn new(
        variant: &Variant,
        sector: SectorKey,
        part_of: &impl Fn(SectorKey) -> Option<usize>,
        exits: &Exits,
    ) -> Option<HoldingShortcuts> {
        let SectorKey {
            us_board,
            us_hand,
            them_board,
            them_hand,
        } = sector;
        if sector.is_movement() || !variant.may_slide(us_hand) {
            return None;
        }
        let entry = |key: Option<SectorKey>| {
            let key = key?;
            exits.sectors.iter().position(|(s, _, _)| *s == key)
        };
        let placed_key = |them_board: Option<u8>| {
            let hand = us_hand.checked_sub(1)?;
            Some(SectorKey::new(them_board?, them_hand, us_board + 1, hand))
        };
        Some(HoldingShortcuts {
            mirror: part_of(sector.mirror())?,
            hands: (us_hand, them_hand),
            placed: entry(placed_key(Some(them_board))),
            placed_captures: entry(placed_key(them_board.checked_sub(1))),
            slid_captures: entry(
                them_board
                    .checked_sub(1)
                    .map(|b| SectorKey::new(b, them_hand, us_board, us_hand)),
            ),
        })
    }
}

/// [`movement_moves`] for a position of a sector with men in hand whose side
/// to move may slide (see [`HoldingShortcuts`]): counts its distinct
/// children inside the unit (its quiet slides) and leaves the others in
/// `scratch`. Its quiet placements' children all have the men `them` to
/// move, so they share one class lookup.
fn holding_moves(
    variant: &Variant,
    mirror: &SectorIndex,
    exits: &Exits,
    pos: &Position,
    shortcuts: &HoldingShortcuts,
    scratch: &mut MovementScratch,
) -> MovementMoves {
    let board = variant.board;
    let (us, them) = (pos.us(), pos.them());
    let (us_hand, them_hand) = shortcuts.hands;
    let removable = variant.removable(them);
    let empty = board.all() & !(us | them);
    let MovementScratch {
        quiet,
        pending,
        unmapped,
        captured,
        captured_by_placing,
    } = scratch;
    quiet.clear();
    pending.clear();
    unmapped.clear();
    captured.clear();
    captured_by_placing.clear();
    // A capture leaving the other side below three men wins at once (the
    // other side may have no man on the board: Lasker's start).
    let capture_wins = them.count() + (them_hand as u32) < 4;
    let mut won_by_capture = false;
    let mut any_move = false;
    let mut inside = 0u16;
    if us_hand > 0 {
        let placed = shortcuts.placed.map(|entry| {
            let index = &exits.sectors[entry].1;
            (entry, index, exits.bytes(entry), index.us_class(them))
        });
        for to in empty {
            any_move = true;
            let after = us.with(to);
            if removable.is_empty() || !board.closes_mill(after, to) {
                match &placed {
                    Some((entry, index, bytes, class)) => {
                        let at = index.index_in(class, after);
                        prefetch(bytes, at);
                        pending.push((*entry, at));
                    }
                    None => {
                        unmapped.push(Position::from_sides(them, them_hand, after, us_hand - 1))
                    }
                }
                continue;
            }
            if capture_wins {
                won_by_capture = true;
                continue;
            }
            let children = CaptureChildren {
                entry: shortcuts.placed_captures,
                them: (them, them_hand),
                after: (after, us_hand - 1),
            };
            children.leave(exits, removable, captured_by_placing, pending, unmapped);
        }
    }
    // The children's side to move has the men `them`: its class looked up once.
    let symmetric = mirror.us_is_symmetric(them).then(|| mirror.us_class(them));
    let flying = variant.flies(us.count(), us_hand);
    for from in us {
        for to in board.moves_from(from, empty, flying) {
            any_move = true;
            let after = us.without(from).with(to);
            if removable.is_empty() || !board.closes_mill(after, to) {
                if let Some(class) = &symmetric {
                    quiet.push(mirror.stored_them(class, after).0);
                } else {
                    inside += 1;
                }
                continue;
            }
            if capture_wins {
                won_by_capture = true;
                continue;
            }
            let children = CaptureChildren {
                entry: shortcuts.slid_captures,
                them: (them, them_hand),
                after: (after, us_hand),
            };
            children.leave(exits, removable, captured, pending, unmapped);
        }
    }
    if symmetric.is_some() {
        quiet.sort_unstable();
        quiet.dedup();
        inside = quiet.len() as u16;
    }
    MovementMoves {
        any_move,
        inside,
        capture_wins: won_by_capture,
    }
}

/// The children of a move closing a mill, one per removable man, in the exit
/// sector at `entry` when it is mapped.
struct CaptureChildren {
    entry: Option<usize>,
    /// The other side's men and men in hand before the removal.
    them: (Bitboard, u8),
    /// The mover's men and men in hand after the move.
    after: (Bitboard, u8),
}

impl CaptureChildren {
    /// Leaves each child in `pending` (its byte prefetched) or `unmapped`;
    /// `found` keeps the class of each set of men left.
    #[inline]
    fn leave(
        &self,
        exits: &Exits,
        removable: Bitboard,
        found: &mut Vec<(Bitboard, UsClass)>,
        pending: &mut Vec<(usize, u64)>,
        unmapped: &mut Vec<Position>,
    ) {
        let ((them, them_hand), (after, hand_after)) = (self.them, self.after);
        for r in removable {
            let rest = them.without(r);
            let Some(entry) = self.entry else {
                unmapped.push(Position::from_sides(rest, them_hand, after, hand_after));
                continue;
            };
            let index = &exits.sectors[entry].1;
            let class = match found.iter().find(|(men, _)| *men == rest) {
                Some(&(_, class)) => class,
                None => {
                    let class = index.us_class(rest);
                    found.push((rest, class));
                    class
                }
            };
            let at = index.index_in(&class, after);
            prefetch(exits.bytes(entry), at);
            pending.push((entry, at));
        }
    }
}

/// [`initial_cell`] for a position of a sector with [`HoldingShortcuts`].
pub(super) fn initial_holding_cell(
    unit: &Unit,
    pos: &Position,
    shortcuts: &HoldingShortcuts,
    scratch: &mut MovementScratch,
) -> Result<u16, SolveError> {
    let variant = unit.variant;
    if variant.static_outcome(pos).is_some() {
        return Ok(RESOLVED | DRAW); // see `initial_cell`
    }
    let mirror = &unit.parts[shortcuts.mirror].index;
    let moves = holding_moves(variant, mirror, &unit.exits, pos, shortcuts, scratch);
    cell_of_moves(unit, pos, moves, scratch)
}

/// The cell of a position before the levels run. `mirror` is the part
/// holding the children of quiet slides (the sector with the sides
/// swapped), when it is in the unit: those children keep the other side's
/// men, so when no symmetry fixes them, different slides give different
/// children, counted without their indices (as [`movement_moves`] does);
/// otherwise they are indexed, and duplicates dropped.
pub(super) fn initial_cell(
    unit: &Unit,
    pos: &Position,
    mirror: Option<usize>,
    inside: &mut Vec<(usize, u64)>,
    pending: &mut Vec<(usize, u64)>,
) -> Result<u16, SolveError> {
    let (variant, exits, parts) = (unit.variant, &unit.exits, &unit.parts);
    if variant.static_outcome(pos).is_some() {
        // Only Morabaraba's full board: sectors hold no side below three men.
        return Ok(RESOLVED | DRAW);
    }
    inside.clear();
    pending.clear();
    let mut outside = Fold::new();
    let mut any_move = false;
    let mut error = None;
    let (mut last, mut last_exit) = (LastClass::default(), LastClass::default());
    let uncounted_mirror = mirror.filter(|&k| !parts[k].index.us_is_symmetric(pos.them()));
    let mut distinct_slides = 0u16;
    variant.for_each_move(pos, |_, child| {
        any_move = true;
        let sector = SectorKey::of(&child);
        if let Some(k) = unit.part_of(sector) {
            if Some(k) == uncounted_mirror {
                distinct_slides += 1;
            } else {
                inside.push((k, last.index(k, &parts[k].index, child.us(), child.them())));
            }
            return;
        }
        match exits.locate(&child, &mut last_exit) {
            Ok(Exit::Known(v)) => outside.add(v),
            Ok(Exit::At(entry, index)) => pending.push((entry, index)),
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    // The prefetched children, read now that their loads are under way.
    for &(entry, index) in pending.iter() {
        outside.add(exits.read(entry, index)?);
    }
    inside.sort_unstable();
    inside.dedup();
    let children = Children {
        any_move,
        inside: distinct_slides + inside.len() as u16,
        outside,
    };
    children.cell(unit, pos)
}

/// What initialisation learns of a position's moves.
struct Children {
    any_move: bool,
    /// Distinct children inside the unit.
    inside: u16,
    /// The values of the moves leaving the unit.
    outside: Fold,
}

impl Children {
    /// The position's cell before the levels run.
    fn cell(self, unit: &Unit, pos: &Position) -> Result<u16, SolveError> {
        let Children {
            any_move,
            inside: count,
            outside,
        } = self;
        let (best_win, longest_loss) = (outside.shortest_win(), outside.longest_loss());
        let draw_outside = outside.has_draw();
        if !any_move {
            return Ok(RESOLVED); // blocked: lost in 0
        }
        let too_much = |what: String| SolveError::CellOverflow {
            position: pos.notation(unit.variant.board),
            what,
        };
        if count == 0 {
            let plies = match (best_win, draw_outside) {
                (Some(w), _) => w,
                (None, true) => return Ok(RESOLVED | DRAW),
                (None, false) => longest_loss,
            };
            if plies >= DRAW {
                return Err(too_much(format!("{plies} plies")));
            }
            return Ok(RESOLVED | plies);
        }
        match best_win {
            Some(1) => Ok(RESOLVED | 1),
            Some(w) if w > MAX_WIN_BOUND => Err(too_much(format!("a win in {w}"))),
            Some(w) => Ok(WIN_BOUND | w),
            None => {
                let count = count + draw_outside as u16;
                if count > MAX_COUNT {
                    return Err(too_much(format!("{count} children")));
                }
                // A loss's distance is even; a draw outside never lets it lose.
                debug_assert!(longest_loss % 2 == 0);
                let loss = match longest_loss / 2 {
                    _ if draw_outside => 0,
                    half if half < unit.stored_below => half,
                    _ => LONG_LOSS,
                };
                Ok(count << COUNT_SHIFT | loss)
            }
        }
    }
}

impl Unit<'_> {
    /// Counts every position's children inside the unit and values those
    /// outside it; returns how many positions are left unresolved.
    pub(super) fn initialise(&self) -> Result<u64, SolveError> {
        let unresolved = AtomicU64::new(0);
        for part in &self.parts {
            let part_of = |s| self.part_of(s);
            let shortcuts = MovementShortcuts::new(part.sector, &part_of, &self.exits);
            let holding = match shortcuts {
                Some(_) => None,
                None => HoldingShortcuts::new(self.variant, part.sector, &part_of, &self.exits),
            };
            let s = part.sector;
            let mirror = self.part_of(s.mirror());
            part.chunks().try_for_each_init(
                Default::default,
                |(inside, pending, scratch), chunk| {
                    let mut result = Ok(());
                    let mut wake = WakeLevels::starting_at(chunk.start);
                    // Counted per chunk: one shared atomic per position would
                    // make the threads contend.
                    let (mut open, mut latest) = (0u64, 0u16);
                    part.index.for_each_in(chunk, |i, us, them| {
                        if result.is_err() {
                            return;
                        }
                        let pos = Position::from_sides(us, s.us_hand, them, s.them_hand);
                        let cell = match (&shortcuts, &holding) {
                            (Some(shortcuts), _) => {
                                initial_movement_cell(self, &pos, shortcuts, scratch)
                            }
                            (None, Some(holding)) => {
                                initial_holding_cell(self, &pos, holding, scratch)
                            }
                            (None, None) => initial_cell(self, &pos, mirror, inside, pending),
                        };
                        match cell {
                            Ok(cell) => {
                                // A resolved cell acts at the next level, a win
                                // through an exit at its distance.
                                let due = if cell & RESOLVED != 0 {
                                    (cell != RESOLVED | DRAW).then_some((cell & DISTANCE) + 1)
                                } else {
                                    open += 1;
                                    (cell & WIN_BOUND != 0).then_some(cell & MAX_WIN_BOUND)
                                };
                                if let Some(due) = due {
                                    latest = latest.max(due);
                                    wake.add(&part.wake, i, due);
                                }
                                part.cells.set_zero_cell(i, cell);
                            }
                            Err(e) => result = Err(e),
                        }
                    });
                    wake.flush(&part.wake);
                    unresolved.fetch_add(open, Ordering::Relaxed);
                    self.latest.fetch_max(latest, Ordering::Relaxed);
                    result
                },
            )?;
        }
        Ok(unresolved.into_inner())
    }
}
