//! The solver: units of sectors in the order of the sector graph, each
//! solved by retrograde analysis into database files.

mod cells;
mod placement;
mod retrograde;
mod run;

pub use retrograde::{SolvedSector, UnitEvent, solve_unit};
pub use run::{Selection, SolveEvent, SolveOptions, SolveSummary, solve};
