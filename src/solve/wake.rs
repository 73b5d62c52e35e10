//! Which runs of cells can act at a level, so that a level skips the rest.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::cells::CELLS_PER_WORD;

/// Cells per [`Wake`] entry, a whole number of cell words: 0.01 bytes per position.
pub(super) const WAKE_RUN: u64 = 819 * CELLS_PER_WORD;

/// When the cells of one run may act, so that a level skips the runs where
/// nothing happens: most levels resolve few positions, and looking at every
/// cell at every level cost more than the work itself.
#[derive(Default)]
pub(super) struct Wake {
    /// Levels below 256 at which a cell of the run may act: its win through
    /// a move leaving the unit, or the level after its resolution (at
    /// initialisation, or ahead of time when its last child turned out won).
    pub(super) levels: [AtomicU64; 4],
    /// Some level past 255 is due (a long distance from a finished sector).
    pub(super) always: AtomicBool,
    /// A cell of the run was resolved during a level of this parity: it
    /// passes its result on at the next level.
    pub(super) resolved: [AtomicBool; 2],
}

impl Wake {
    /// Notes that a cell of the run acts at `level`.
    pub(super) fn add(&self, level: u16) {
        if level < 256 {
            self.levels[level as usize / 64].fetch_or(1 << (level % 64), Ordering::Relaxed);
        } else {
            self.always.store(true, Ordering::Relaxed);
        }
    }

    pub(super) fn may_act(&self, level: u16) -> bool {
        self.always.load(Ordering::Relaxed)
            || (level < 256
                && self.levels[level as usize / 64].load(Ordering::Relaxed) >> (level % 64) & 1
                    == 1)
            || (level > 0 && self.resolved[(level as usize - 1) % 2].load(Ordering::Relaxed))
    }
}

/// The wake levels of one run, gathered during initialisation.
#[derive(Default)]
pub(super) struct WakeLevels {
    run: u64,
    levels: [u64; 4],
    always: bool,
}

impl WakeLevels {
    /// Levels gathered for the runs from the one holding `index`.
    pub(super) fn starting_at(index: u64) -> WakeLevels {
        WakeLevels {
            run: index / WAKE_RUN,
            ..Default::default()
        }
    }

    pub(super) fn add(&mut self, wake: &[Wake], index: u64, level: u16) {
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

    pub(super) fn flush(&mut self, wake: &[Wake]) {
        let entry = &wake[self.run as usize];
        for (word, bits) in entry.levels.iter().zip(&mut self.levels) {
            word.fetch_or(std::mem::take(bits), Ordering::Relaxed);
        }
        if std::mem::take(&mut self.always) {
            entry.always.store(true, Ordering::Relaxed);
        }
    }
}
