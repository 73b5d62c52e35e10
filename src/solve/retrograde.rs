//! Solving one unit: a set of sectors that depend on each other (8-7 with
//! 7-8), or a single sector. Moves that leave the unit are valued from the
//! finished sectors' files; moves inside it are resolved by retrograde
//! analysis, level by level of distance, in parallel.
//!
//! Each position has one 12-bit cell while solving (1.6 bytes per position,
//! see [`Cells`]):
//! - resolved: bit 11 set, bits 0..11 the distance in plies (`DRAW` for draws);
//! - a win through a move leaving the unit: bit 10 set, bits 0..10 its
//!   distance. The position resolves at that level at the latest, sooner if a
//!   child inside the unit turns out lost; it can never lose, so how many
//!   children are left does not matter;
//! - otherwise, bits 4..10 the number of children inside the unit not yet
//!   known to be wins for their mover (plus one that never goes if a move
//!   leaving the unit draws), and bits 0..4 half the longest loss the moves
//!   leaving the unit give (15: too long to fit, found again from those moves
//!   when needed). When the last child turns out won the position is lost,
//!   and its distance is known at once: the later of this level and that loss.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};

use rayon::prelude::*;

use super::cells::{CELLS_PER_WORD, Cells, LOW_BITS, has_zero_cell};
use super::placement::{is_placement_unit, solve_placement};
use crate::db::{ProbeError, SectorFile, Tablebase, Value};
use crate::index::{SectorIndex, SectorKey, UsClass};
use crate::rules::{Bitboard, Position, Variant};

pub(super) const RESOLVED: u16 = 0x800;
/// The distance of a resolved cell.
const DISTANCE: u16 = 0x7ff;
pub(super) const DRAW: u16 = DISTANCE;
/// An unresolved cell that wins through a move leaving the unit.
const WIN_BOUND: u16 = 0x400;
const MAX_WIN_BOUND: u16 = WIN_BOUND - 1;
const COUNT_SHIFT: u16 = 4;
const MAX_COUNT: u16 = 0x3f;
/// Half the longest loss through moves leaving the unit, or `LONG_LOSS`.
const LOSS_CODE: u16 = 0xf;
const LONG_LOSS: u16 = LOSS_CODE;
/// Cells per [`Wake`] entry, a whole number of cell words: 0.01 bytes per position.
const WAKE_RUN: u64 = 819 * CELLS_PER_WORD;
/// Cells per parallel work item, a whole number of wake runs.
const CHUNK: u64 = 4 * WAKE_RUN;

/// When the cells of one run may act, so that a level skips the runs where
/// nothing happens: most levels resolve few positions, and looking at every
/// cell at every level cost more than the work itself.
#[derive(Default)]
struct Wake {
    /// Levels below 256 at which a cell of the run may act: its win through
    /// a move leaving the unit, or the level after its resolution (at
    /// initialisation, or ahead of time when its last child turned out won).
    levels: [AtomicU64; 4],
    /// Some level past 255 is due (a long distance from a finished sector).
    always: AtomicBool,
    /// A cell of the run was resolved during a level of this parity: it
    /// passes its result on at the next level.
    resolved: [AtomicBool; 2],
}

impl Wake {
    /// Notes that a cell of the run acts at `level`.
    fn add(&self, level: u16) {
        if level < 256 {
            self.levels[level as usize / 64].fetch_or(1 << (level % 64), Ordering::Relaxed);
        } else {
            self.always.store(true, Ordering::Relaxed);
        }
    }

    fn may_act(&self, level: u16) -> bool {
        self.always.load(Ordering::Relaxed)
            || (level < 256
                && self.levels[level as usize / 64].load(Ordering::Relaxed) >> (level % 64) & 1
                    == 1)
            || (level > 0 && self.resolved[(level as usize - 1) % 2].load(Ordering::Relaxed))
    }
}

/// The wake levels of one run, gathered during initialisation.
#[derive(Default)]
struct WakeLevels {
    run: u64,
    levels: [u64; 4],
    always: bool,
}

impl WakeLevels {
    fn add(&mut self, wake: &[Wake], index: u64, level: u16) {
        let run = index / WAKE_RUN;
        if run != self.run {
            self.flush(wake);
            self.run = run;
        }
        if level < 256 {
            self.levels[level as usize / 64] |= 1 << (level % 64);
        } else {
            self.always = true;
        }
    }

    fn flush(&mut self, wake: &[Wake]) {
        let entry = &wake[self.run as usize];
        for (word, bits) in entry.levels.iter().zip(&mut self.levels) {
            word.fetch_or(std::mem::take(bits), Ordering::Relaxed);
        }
        if std::mem::take(&mut self.always) {
            entry.always.store(true, Ordering::Relaxed);
        }
    }
}

/// One solved sector: its values, one per index.
pub struct SolvedSector {
    pub sector: SectorKey,
    cells: Cells,
}

impl SolvedSector {
    /// A sector's resolved cells (`RESOLVED` with a distance or `DRAW`).
    pub(super) fn new(sector: SectorKey, cells: Cells) -> SolvedSector {
        SolvedSector { sector, cells }
    }

    pub fn len(&self) -> u64 {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The value at `index`.
    pub fn value(&self, index: u64) -> Value {
        decode(self.cells.get(index))
    }
}

fn decode(cell: u16) -> Value {
    debug_assert!(cell & RESOLVED != 0);
    match cell & !RESOLVED {
        DRAW => Value::Draw,
        n => Value::from_plies(n),
    }
}

/// What a unit's solve reports as it goes.
pub enum UnitEvent {
    /// Children counted and moves leaving the unit valued.
    Initialised { positions: u64 },
    /// The positions at one distance are final.
    Level { plies: u16, resolved: u64 },
}

struct Part<'a> {
    sector: SectorKey,
    index: Arc<SectorIndex>,
    cells: &'a Cells,
    wake: Vec<Wake>,
}

impl Part<'_> {
    /// Marks the cell at `index` resolved during `level` at `distance` (see
    /// [`Wake`]): it passes its result on at the level after `distance`.
    #[inline]
    fn resolved(&self, index: u64, level: u16, distance: u16) {
        let wake = &self.wake[(index / WAKE_RUN) as usize];
        if distance == level {
            wake.resolved[level as usize % 2].store(true, Ordering::Relaxed);
        } else {
            wake.add(distance + 1);
        }
    }

    /// The sector's indices in chunks, as parallel work items.
    fn chunks(&self) -> impl ParallelIterator<Item = std::ops::Range<u64>> + '_ {
        let size = self.index.size();
        (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
    }
}

/// The finished sectors that moves leaving a unit lead to, mapped once with
/// their indices, so the inner loop takes no lock.
struct Exits<'a> {
    tablebase: &'a Tablebase,
    sectors: Vec<(SectorKey, Arc<SectorIndex>, Arc<SectorFile>)>,
}

impl<'a> Exits<'a> {
    fn new(
        variant: &'static Variant,
        unit: &[SectorKey],
        tablebase: &'a Tablebase,
    ) -> Result<Exits<'a>, ProbeError> {
        let mut keys: Vec<SectorKey> = unit
            .iter()
            .flat_map(|s| s.successors(variant))
            .filter(|s| !unit.contains(s) && tablebase.has_sector(*s))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let sectors = keys
            .into_iter()
            .map(|s| {
                let index =
                    SectorIndex::of(variant.board, s.us_board as usize, s.them_board as usize);
                Ok((s, index, tablebase.sector(s)?))
            })
            .collect::<Result<_, ProbeError>>()?;
        Ok(Exits { tablebase, sectors })
    }

    /// Where a child's value is: known already (a game end, or answered by
    /// the tablebase), or at an index of one of the mapped sectors, whose
    /// byte is prefetched so that a position's children load in parallel.
    #[inline]
    fn locate(&self, child: &Position, last: &mut LastClass) -> Result<Exit, ProbeError> {
        if child.total(child.to_move) < 3 {
            return Ok(Exit::Known(Value::Loss(0)));
        }
        let key = SectorKey::of(child);
        let Some(entry) = self.sectors.iter().position(|(s, _, _)| *s == key) else {
            // Missing files and game ends: the tablebase explains or answers.
            return self.tablebase.value(child).map(Exit::Known);
        };
        let (_, index, file) = &self.sectors[entry];
        let at = last.index(entry, index, child.us(), child.them());
        prefetch(file.bytes(), at);
        Ok(Exit::At(entry, at))
    }

    fn read(&self, entry: usize, index: u64) -> Result<Value, ProbeError> {
        let (key, _, file) = &self.sectors[entry];
        file.value(index).map_err(|source| ProbeError::Corrupted {
            path: self.tablebase.path(*key),
            source,
        })
    }
}

/// The last class lookup and the index (by position in a list) it was made
/// in: a position's children keep the mover's men except after a removal,
/// so most of them share it.
#[derive(Default)]
struct LastClass(Option<(usize, UsClass)>);

impl LastClass {
    #[inline]
    fn index(&mut self, which: usize, index: &SectorIndex, us: Bitboard, them: Bitboard) -> u64 {
        let class = match self.0 {
            Some((w, c)) if w == which && c.us == us => c,
            _ => {
                let c = index.us_class(us);
                self.0 = Some((which, c));
                c
            }
        };
        index.index_in(&class, them)
    }
}

/// A child outside the unit, see [`Exits::locate`].
enum Exit {
    Known(Value),
    At(usize, u64),
}

/// Asks the processor to start loading `items[at]`.
#[inline]
fn prefetch<T>(items: &[T], at: u64) {
    if let Some(item) = items.get(at as usize) {
        prefetch_item(item);
    }
}

/// Asks the processor to start loading `item`.
#[inline]
fn prefetch_item<T>(item: &T) {
    // SAFETY: a prefetch has no effect on memory; the address is a reference's.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            item as *const T as *const i8,
        )
    };
}

/// Solves the sectors of `unit`, reading every other sector from `tablebase`.
///
/// # Errors
/// A missing or damaged successor file, or a position with more children
/// inside the unit than a cell can count.
pub fn solve_unit(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
) -> Result<Vec<SolvedSector>, ProbeError> {
    solve_unit_storing_losses_below(variant, unit, tablebase, on_event, LONG_LOSS)
}

/// [`solve_unit`], with the longest half-loss a cell stores lowered to test
/// the positions whose exit losses do not fit.
fn solve_unit_storing_losses_below(
    variant: &'static Variant,
    unit: &[SectorKey],
    tablebase: &Tablebase,
    on_event: &(dyn Fn(UnitEvent) + Sync),
    stored_below: u16,
) -> Result<Vec<SolvedSector>, ProbeError> {
    if let [sector] = unit
        && is_placement_unit(variant, unit)
    {
        return Ok(vec![solve_placement(
            variant, *sector, tablebase, on_event,
        )?]);
    }
    let solved: Vec<SolvedSector> = unit
        .iter()
        .map(|&sector| {
            let index = SectorIndex::of(
                variant.board,
                sector.us_board as usize,
                sector.them_board as usize,
            );
            let cells = Cells::zeroed(index.size())
                .map_err(|e| ProbeError::Io(format!("no memory for the cells of {sector}: {e}")))?;
            Ok(SolvedSector { sector, cells })
        })
        .collect::<Result<_, ProbeError>>()?;
    let parts: Vec<Part> = solved
        .iter()
        .map(|s| Part {
            sector: s.sector,
            index: SectorIndex::of(
                variant.board,
                s.sector.us_board as usize,
                s.sector.them_board as usize,
            ),
            cells: &s.cells,
            wake: (0..s.len().div_ceil(WAKE_RUN))
                .map(|_| Wake::default())
                .collect(),
        })
        .collect();
    let unit = Unit {
        variant,
        exits: Exits::new(variant, unit, tablebase)?,
        parts,
        latest: AtomicU16::new(0),
        stored_below,
    };
    let parts = &unit.parts;

    // Initialisation: count children inside the unit, value those outside.
    let unresolved = AtomicU64::new(0);
    for part in parts {
        let shortcuts = MovementShortcuts::new(part.sector, &|s| unit.part_of(s), &unit.exits);
        part.chunks().try_for_each_init(
            Default::default,
            |(inside, pending, quiet, captured), chunk| {
                let mut result = Ok(());
                let mut wake = WakeLevels {
                    run: chunk.start / WAKE_RUN,
                    ..Default::default()
                };
                // Counted per chunk: one shared atomic per position would
                // make the threads contend.
                let (mut open, mut latest) = (0u64, 0u16);
                part.index.for_each_in(chunk, |i, us, them| {
                    if result.is_err() {
                        return;
                    }
                    let pos =
                        Position::from_sides(us, part.sector.us_hand, them, part.sector.them_hand);
                    let cell = match &shortcuts {
                        Some(shortcuts) => {
                            initial_movement_cell(&unit, &pos, shortcuts, quiet, pending, captured)
                        }
                        None => initial_cell(&unit, &pos, inside, pending),
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
                unit.latest.fetch_max(latest, Ordering::Relaxed);
                result
            },
        )?;
    }
    on_event(UnitEvent::Initialised {
        positions: parts.iter().map(|p| p.index.size()).sum(),
    });

    // Levels: at level L, positions resolved at L - 1 pass their result to
    // their predecessors, and positions that win in L through a move leaving
    // the unit settle. A unit without moves inside it (a placement sector) is
    // complete already.
    let mut level: u16 = 0;
    while unresolved.load(Ordering::Relaxed) > 0 {
        let resolved_now = AtomicU64::new(0);
        for part in parts {
            part.chunks().try_for_each_init(Vec::new, |preds, chunk| {
                let mut count = 0;
                let mut result = Ok(());
                let mut visit = |i: u64, cell: u16| {
                    if cell & RESOLVED != 0 {
                        if level > 0 && cell & DISTANCE == level - 1 && result.is_ok() {
                            result = unit.propagate(part, i, level, preds, &mut count);
                        }
                    } else if cell & WIN_BOUND != 0
                        && cell & MAX_WIN_BOUND == level
                        && settle(part.cells, i, level)
                    {
                        part.resolved(i, level, level);
                        count += 1;
                    }
                };
                let words = part.cells.words();
                for run in chunk.start / WAKE_RUN..chunk.end.div_ceil(WAKE_RUN) {
                    let wake = &part.wake[run as usize];
                    if !wake.may_act(level) {
                        continue;
                    }
                    // Only this level looked at this flag, and others set the other one.
                    if level > 0 {
                        wake.resolved[(level as usize - 1) % 2].store(false, Ordering::Relaxed);
                    }
                    let (start, end) = (run * WAKE_RUN, ((run + 1) * WAKE_RUN).min(chunk.end));
                    // Most cells still have nothing to do: a word's five are
                    // tested at once and skipped together.
                    for w in start / CELLS_PER_WORD..end.div_ceil(CELLS_PER_WORD) {
                        let word = words[w as usize].load(Ordering::Relaxed);
                        if !level_may_act(word, level) {
                            continue;
                        }
                        let first = w * CELLS_PER_WORD;
                        for lane in 0..CELLS_PER_WORD.min(end - first) {
                            // Read again: a cell before it may have changed it.
                            visit(first + lane, part.cells.get(first + lane));
                        }
                    }
                }
                resolved_now.fetch_add(count, Ordering::Relaxed);
                result
            })?;
        }
        let resolved = resolved_now.into_inner();
        unresolved.fetch_sub(resolved, Ordering::Relaxed);
        on_event(UnitEvent::Level {
            plies: level,
            resolved,
        });
        if resolved == 0 && level > unit.latest.load(Ordering::Relaxed) {
            break;
        }
        level += 1;
        if level >= DRAW - 1 {
            return Err(ProbeError::Io("distance beyond the cell's range".into()));
        }
    }

    // What never resolved is a draw.
    for part in parts {
        part.cells
            .replace_all(|c| (c & RESOLVED == 0).then_some(RESOLVED | DRAW));
    }
    drop(unit); // it borrows the cells
    Ok(solved)
}

/// A unit being solved: its parts, and the finished sectors its moves lead to.
struct Unit<'a> {
    variant: &'static Variant,
    parts: Vec<Part<'a>>,
    exits: Exits<'a>,
    /// The last level at which a cell is known to act; the levels stop past
    /// it once one resolves nothing.
    latest: AtomicU16,
    /// Half-losses from this one on are stored as `LONG_LOSS` and found
    /// again when needed (tests lower it to use that path more).
    stored_below: u16,
}

impl Unit<'_> {
    /// The part holding `sector`, if it is in the unit.
    fn part_of(&self, sector: SectorKey) -> Option<usize> {
        self.parts.iter().position(|p| p.sector == sector)
    }

    /// Passes the result of a position resolved at `level - 1` to its
    /// predecessors inside the unit.
    fn propagate(
        &self,
        part: &Part,
        index: u64,
        level: u16,
        preds: &mut Vec<(usize, u64)>,
        resolved: &mut u64,
    ) -> Result<(), ProbeError> {
        let pos = part
            .index
            .position(index, part.sector.us_hand, part.sector.them_hand);
        preds.clear();
        // A quiet unmove keeps every count: the predecessors are in the mirrored sector.
        let s = part.sector;
        let Some(k) = self.part_of(SectorKey::new(
            s.them_board,
            s.them_hand,
            s.us_board,
            s.us_hand,
        )) else {
            return Ok(());
        };
        let pred_part = &self.parts[k];
        self.variant.for_each_quiet_unslide(&pos, |p| {
            let i = pred_part.index.index(p.us(), p.them());
            prefetch_item(pred_part.cells.word_of(i));
            preds.push((k, i));
        });
        // Every predecessor keeps our men; when no symmetry fixes them, different
        // unmoves give different predecessors.
        if part.index.us_is_symmetric(pos.us()) {
            preds.sort_unstable();
            preds.dedup();
        }
        let child_lost = (level - 1).is_multiple_of(2);
        for &(k, i) in preds.iter() {
            let pred = &self.parts[k];
            if child_lost {
                if settle(pred.cells, i, level) {
                    pred.resolved(i, level, level);
                    *resolved += 1;
                }
                continue;
            }
            // The last child inside the unit turned out won: the position is
            // lost, in this many plies or in its longest loss through moves
            // leaving the unit if that is later.
            // Other threads only take children away meanwhile (all
            // children passed on at one level have the same result).
            let mut found_exit_loss = None;
            let settled = loop {
                let cell = pred.cells.get(i);
                if cell & (RESOLVED | WIN_BOUND) != 0 {
                    break None;
                }
                if cell >> COUNT_SHIFT > 1 {
                    let taken = pred.cells.update(i, |c| {
                        (c & (RESOLVED | WIN_BOUND) == 0 && c >> COUNT_SHIFT > 1)
                            .then(|| c - (1 << COUNT_SHIFT))
                    });
                    match taken {
                        Ok(_) => break None,
                        Err(_) => continue, // down to its last child meanwhile
                    }
                }
                let exit_loss = match cell & LOSS_CODE {
                    LONG_LOSS => match found_exit_loss {
                        Some(n) => n,
                        None => *found_exit_loss.insert(self.longest_exit_loss(pred, i)?),
                    },
                    half => 2 * half,
                };
                let distance = level.max(exit_loss);
                let done = pred
                    .cells
                    .update(i, |c| (c == cell).then_some(RESOLVED | distance));
                if done.is_ok() {
                    break Some(distance);
                }
            };
            if let Some(distance) = settled {
                pred.resolved(i, level, distance);
                if distance > level {
                    self.latest.fetch_max(distance + 1, Ordering::Relaxed);
                }
                *resolved += 1;
            }
        }
        Ok(())
    }

    /// The longest loss through the moves of a position that leave the unit,
    /// all of them losses: too long for its cell, found again.
    #[cold]
    fn longest_exit_loss(&self, part: &Part, index: u64) -> Result<u16, ProbeError> {
        let pos = part
            .index
            .position(index, part.sector.us_hand, part.sector.them_hand);
        let (mut longest, mut error) = (0, None);
        let mut last = LastClass::default();
        self.variant.for_each_move(&pos, |_, child| {
            if error.is_some() || self.part_of(SectorKey::of(&child)).is_some() {
                return;
            }
            let value = match self.exits.locate(&child, &mut last) {
                Ok(Exit::Known(v)) => Ok(v),
                Ok(Exit::At(entry, at)) => self.exits.read(entry, at),
                Err(e) => Err(e),
            };
            match value.map(Value::from_parent) {
                Ok(Value::Loss(n)) => longest = longest.max(n),
                Ok(_) => {
                    error = Some(ProbeError::Io(format!(
                        "position {}: a move leaving the unit no longer loses",
                        pos.notation(self.variant.board)
                    )))
                }
                Err(e) => error = Some(e),
            }
        });
        error.map_or(Ok(longest), Err)
    }
}

/// What lets a movement sector's initialisation skip most index lookups:
/// every slide leads to the mirrored sector, inside the unit, and every
/// capture to one sector outside it.
struct MovementShortcuts {
    /// The part holding the children of slides.
    mirror: usize,
    /// The exit entry holding the children of captures, when mapped.
    captures: Option<usize>,
}

impl MovementShortcuts {
    fn new(
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

/// [`initial_cell`] for a movement position. A slide's child has the men
/// `them` to move; when no symmetry fixes them, different slides give
/// different children, so they are counted without computing their indices.
fn initial_movement_cell(
    unit: &Unit,
    pos: &Position,
    shortcuts: &MovementShortcuts,
    quiet: &mut Vec<u64>,
    pending: &mut Vec<(usize, u64)>,
    captured: &mut Vec<(Bitboard, UsClass)>,
) -> Result<u16, ProbeError> {
    let (variant, exits, parts) = (unit.variant, &unit.exits, &unit.parts);
    if variant.static_outcome(pos).is_some() {
        return Ok(RESOLVED | DRAW); // see `initial_cell`
    }
    let board = variant.board;
    let (us, them) = (pos.us(), pos.them());
    let mirror = &parts[shortcuts.mirror].index;
    let symmetric = mirror.us_is_symmetric(them);
    let removable = variant.removable(them);
    let empty = board.all() & !(us | them);
    let flying = variant.flies(us.count(), 0);
    // A capture leaving fewer than three men wins at once.
    let capture_wins = them.count() - 1 < 3;
    quiet.clear();
    pending.clear();
    let mut children = Children {
        any_move: false,
        inside: 0,
        best_win: None,
        longest_loss: 0,
        draw_outside: false,
    };
    let known = |value: Value, children: &mut Children| match value.from_parent() {
        Value::Win(n) => children.best_win = Some(children.best_win.map_or(n, |b| b.min(n))),
        Value::Loss(n) => children.longest_loss = children.longest_loss.max(n),
        Value::Draw => children.draw_outside = true,
    };
    // The capture children's class per set of men left, looked up once.
    captured.clear();
    let mut last = LastClass::default();
    for from in us {
        for to in board.moves_from(from, empty, flying) {
            children.any_move = true;
            let after = us.without(from).with(to);
            if removable.is_empty() || !board.closes_mill(after, to) {
                if symmetric {
                    quiet.push(mirror.index(them, after));
                } else {
                    children.inside += 1;
                }
                continue;
            }
            if capture_wins {
                children.best_win = Some(1);
                continue;
            }
            for r in removable {
                let rest = them.without(r);
                match shortcuts.captures {
                    Some(entry) => {
                        let (_, index, file) = &exits.sectors[entry];
                        let class = match captured.iter().find(|(men, _)| *men == rest) {
                            Some(&(_, class)) => class,
                            None => {
                                let class = index.us_class(rest);
                                captured.push((rest, class));
                                class
                            }
                        };
                        let at = index.index_in(&class, after);
                        prefetch(file.bytes(), at);
                        pending.push((entry, at));
                    }
                    None => {
                        let child = Position::from_sides(rest, 0, after, 0);
                        match exits.locate(&child, &mut last)? {
                            Exit::Known(v) => known(v, &mut children),
                            Exit::At(entry, at) => pending.push((entry, at)),
                        }
                    }
                }
            }
        }
    }
    for &(entry, at) in pending.iter() {
        known(exits.read(entry, at)?, &mut children);
    }
    if symmetric {
        quiet.sort_unstable();
        quiet.dedup();
        children.inside = quiet.len() as u16;
    }
    children.cell(unit, pos)
}

/// The cell of a position before the levels run.
fn initial_cell(
    unit: &Unit,
    pos: &Position,
    inside: &mut Vec<(usize, u64)>,
    pending: &mut Vec<(usize, u64)>,
) -> Result<u16, ProbeError> {
    let (variant, exits, parts) = (unit.variant, &unit.exits, &unit.parts);
    if variant.static_outcome(pos).is_some() {
        // Only Morabaraba's full board: sectors hold no side below three men.
        return Ok(RESOLVED | DRAW);
    }
    inside.clear();
    pending.clear();
    let mut best_win: Option<u16> = None;
    let mut longest_loss: u16 = 0;
    let mut draw_outside = false;
    let mut any_move = false;
    let mut error = None;
    let (mut last, mut last_exit) = (LastClass::default(), LastClass::default());
    variant.for_each_move(pos, |_, child| {
        any_move = true;
        let sector = SectorKey::of(&child);
        if let Some(k) = unit.part_of(sector) {
            inside.push((k, last.index(k, &parts[k].index, child.us(), child.them())));
            return;
        }
        let value = match exits.locate(&child, &mut last_exit) {
            Ok(Exit::Known(v)) => v,
            Ok(Exit::At(entry, index)) => {
                pending.push((entry, index));
                return;
            }
            Err(e) => {
                error = Some(e);
                return;
            }
        };
        match value.from_parent() {
            Value::Win(n) => best_win = Some(best_win.map_or(n, |b| b.min(n))),
            Value::Loss(n) => longest_loss = longest_loss.max(n),
            Value::Draw => draw_outside = true,
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    // The prefetched children, read now that their loads are under way.
    for &(entry, index) in pending.iter() {
        match exits.read(entry, index)?.from_parent() {
            Value::Win(n) => best_win = Some(best_win.map_or(n, |b| b.min(n))),
            Value::Loss(n) => longest_loss = longest_loss.max(n),
            Value::Draw => draw_outside = true,
        }
    }
    inside.sort_unstable();
    inside.dedup();
    let children = Children {
        any_move,
        inside: inside.len() as u16,
        best_win,
        longest_loss,
        draw_outside,
    };
    children.cell(unit, pos)
}

/// What initialisation learns of a position's moves.
struct Children {
    any_move: bool,
    /// Distinct children inside the unit.
    inside: u16,
    /// Shortest win and longest loss through moves leaving the unit (for
    /// the mover), and whether one of them draws.
    best_win: Option<u16>,
    longest_loss: u16,
    draw_outside: bool,
}

impl Children {
    /// The position's cell before the levels run.
    fn cell(self, unit: &Unit, pos: &Position) -> Result<u16, ProbeError> {
        let Children {
            any_move,
            inside: count,
            best_win,
            longest_loss,
            draw_outside,
        } = self;
        if !any_move {
            return Ok(RESOLVED); // blocked: lost in 0
        }
        let too_much = |what: String| {
            ProbeError::Io(format!(
                "position {} exceeds the solver's cell ({what})",
                pos.notation(unit.variant.board)
            ))
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

/// Whether any cell of a word may act at `level`: resolved at `level - 1`
/// (it passes its result on), or winning in `level` through a move leaving
/// the unit (it settles). No false negatives; false positives are checked
/// cell by cell.
#[inline]
fn level_may_act(word: u64, level: u16) -> bool {
    let cells_equal = |cell: u16| has_zero_cell(word ^ (LOW_BITS * u64::from(cell)));
    (level > 0 && cells_equal(RESOLVED | (level - 1)))
        || (level <= MAX_WIN_BOUND && cells_equal(WIN_BOUND | level))
}

/// Marks an unresolved cell resolved at `level`; false if it already was.
fn settle(cells: &Cells, index: u64, level: u16) -> bool {
    cells
        .update(index, |c| (c & RESOLVED == 0).then_some(RESOLVED | level))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::{Selection, SolveOptions, solve};

    /// Positions whose longest loss through exits does not fit their cell
    /// find it again from those moves: storing none of them gives the same
    /// values as storing them all.
    #[test]
    fn losses_too_long_for_a_cell_are_found_again() {
        let variant = Variant::standard();
        let dir = tempfile::tempdir().unwrap();
        let key = |us, them| SectorKey::new(us, 0, them, 0);
        let options = SolveOptions {
            db: dir.path().to_path_buf(),
            variant,
            selection: Selection::Sectors(vec![key(3, 4), key(4, 3)]),
        };
        solve(&options, &|_| {}).unwrap();
        let tablebase = Tablebase::open(dir.path(), variant).unwrap();
        for unit in [vec![key(3, 4), key(4, 3)], vec![key(4, 4)]] {
            let stored = solve_unit(variant, &unit, &tablebase, &|_| {}).unwrap();
            for stored_below in [0, 1] {
                let found = solve_unit_storing_losses_below(
                    variant,
                    &unit,
                    &tablebase,
                    &|_| {},
                    stored_below,
                )
                .unwrap();
                for (a, b) in stored.iter().zip(&found) {
                    assert_eq!(a.sector, b.sector);
                    for i in 0..a.len() {
                        assert_eq!(a.value(i), b.value(i), "{} index {i}", a.sector);
                    }
                }
            }
        }
    }
}
