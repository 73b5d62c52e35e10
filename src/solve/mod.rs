//! The solver: units of sectors in the order of the sector graph, each
//! solved into database files: placement sectors in one pass over their
//! finished successors, units with moves inside them by retrograde analysis;
//! under the move-count rule, movement units by `mill_clock`'s analysis of
//! the plies to the next mill.

mod cells;
mod disk;
mod error;
mod events;
mod exits;
mod initial;
mod lock;
mod marks;
mod mill_clock;
mod pack_along;
mod placement;
mod plan;
mod retrograde;
mod run;
mod wake;

pub use cells::SolvedSector;
pub use disk::{DiskForecast, DiskNeed, PACKED_FRACTION, WDL_PACKED_FRACTION};
pub use error::SolveError;
pub use events::{SolveEvent, SolveSummary};
pub use plan::{
    CriticalPath, MOVES_WHILE_HOLDING_SLOWDOWN, PACK_BASE_BYTES, PACK_BYTES_PER_POSITION,
    PLAN_VERSION, Plan, PlanRate, PlannedUnit, SOLVE_BASE_BYTES, SOLVE_BYTES_PER_POSITION, plan,
};
pub use retrograde::{UnitEvent, solve_unit};
pub use run::{Selection, SolveOptions, solve};
