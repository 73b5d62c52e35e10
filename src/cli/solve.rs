//! `sectors` and `solve`: planning and building databases, with the solve's
//! progress drawn as bars on a terminal and as plain lines in a log.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::note;
use morris::db::{Coder, JobSize, disk_size, estimated_time, raw_file_len};
use morris::index::{SectorGraph, SectorIndex, SectorKey, binomial};
use morris::solve::{SolveEvent, UnitEvent};
use morris::{Position, Selection, SolveOptions, Tablebase, Variant};

pub fn sectors(
    out: &mut dyn Write,
    variant: &'static Variant,
    selection: &Selection,
) -> Result<()> {
    let graph = SectorGraph::reachable(variant);
    let shown = selection.sectors_to_solve(variant)?;
    writeln!(
        out,
        "{:<10} {:>15} {:>13} {:>7} {:>13}  successors",
        "sector", "positions", "index", "ratio", "file bytes"
    )?;
    let (mut raw_total, mut index_total, mut bytes_total) = (0u64, 0u64, 0u64);
    let symmetries = variant.board.symmetries().len() as f64;
    for s in &shown {
        let (a, b) = (s.us_board as usize, s.them_board as usize);
        let n = variant.board.len();
        let raw = binomial(n, a) * binomial(n - a, b);
        let size = SectorIndex::count(variant.board, a, b);
        let bytes = raw_file_len(variant, *s, size);
        let successors: Vec<String> = graph.successors(*s).iter().map(|t| t.to_string()).collect();
        writeln!(
            out,
            "{:<10} {raw:>15} {size:>13} {:>7.4} {bytes:>13}  {}",
            s.to_string(),
            size as f64 * symmetries / raw as f64,
            successors.join(" ")
        )?;
        raw_total += raw;
        index_total += size;
        bytes_total += bytes;
    }
    writeln!(
        out,
        "{} {} ({} movement), {raw_total} positions, {index_total} up to symmetry, {bytes_total} bytes of files",
        shown.len(),
        if shown.len() == 1 {
            "sector"
        } else {
            "sectors"
        },
        shown.iter().filter(|s| s.is_movement()).count()
    )?;
    let job = JobSize {
        sectors: shown.len(),
        positions: index_total,
        bytes: bytes_total,
    };
    writeln!(out, "a solve of them from nothing: {job}")?;
    writeln!(
        out,
        "ratio: index size times {} symmetries over raw positions (1 = no waste; symmetric positions make it lower)",
        symmetries
    )?;
    Ok(())
}

/// Draws a solve's events: bars on a terminal, plain lines otherwise.
struct Reporter {
    quiet: bool,
    terminal: bool,
    total: ProgressBar,
    unit: Mutex<Option<ProgressBar>>,
    /// When the first unit began: the rate left out the check of the files
    /// solved before.
    solving_since: OnceLock<Instant>,
    /// Where the unit being solved spends its time, said when it is done.
    phases: Mutex<UnitPhases>,
}

/// The two phases of a unit with moves inside it: its children counted and
/// the moves leaving it valued, then the levels.
#[derive(Default)]
struct UnitPhases {
    started: Option<Instant>,
    counted: Option<std::time::Duration>,
    levels: u32,
}

impl Reporter {
    fn new(quiet: bool) -> Reporter {
        let terminal = std::io::stderr().is_terminal();
        let total = if quiet || !terminal {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(0)
        };
        total.set_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, {eta} left",
            )
            .unwrap()
            .progress_chars("=> "),
        );
        total.set_prefix("total");
        Reporter {
            quiet,
            terminal,
            total,
            unit: Mutex::new(None),
            solving_since: OnceLock::new(),
            phases: Mutex::default(),
        }
    }

    fn event(&self, event: SolveEvent) {
        match event {
            SolveEvent::Planned {
                units,
                done,
                positions,
                to_solve,
                disk,
            } => {
                self.total.set_length(to_solve);
                let mut told = String::new();
                for (i, need) in disk.disks.iter().enumerate() {
                    let free = match need.free {
                        Some(free) => format!(", {} free", disk_size(free)),
                        None => String::new(),
                    };
                    let short = if need.short() {
                        ": it may not fit (packed files estimated)"
                    } else {
                        ""
                    };
                    let size = disk_size(need.needed);
                    told += &match i {
                        0 => format!("up to {size} more disk{free}{short}"),
                        _ => format!(
                            "; up to {size} in {} (another disk){free}{short}",
                            need.dir.display()
                        ),
                    };
                }
                let planned = format!(
                    "{units} units ({done} already solved), {positions} positions; {to_solve} to solve; {told}"
                );
                if disk.short() {
                    // A warning: said under --quiet too (a workflow's jobs).
                    self.total.suspend(|| note(&planned));
                } else {
                    self.line(planned);
                }
            }
            SolveEvent::UnitStarted { sectors, positions } => {
                self.solving_since.get_or_init(Instant::now);
                *self.phases.lock().unwrap() = UnitPhases {
                    started: Some(Instant::now()),
                    ..UnitPhases::default()
                };
                if self.terminal && !self.quiet {
                    let sectors = names(sectors);
                    self.spin(format!("{sectors}: {positions} positions, counting children"));
                } else if !self.terminal {
                    // A log shows what a long unit is doing.
                    self.line(format!("solving {}: {positions} positions", names(sectors)));
                }
            }
            SolveEvent::Unit(UnitEvent::Initialised { .. }) => {
                let mut phases = self.phases.lock().unwrap();
                phases.counted = phases.started.map(|t| t.elapsed());
            }
            SolveEvent::Unit(UnitEvent::Level { plies, resolved }) => {
                self.phases.lock().unwrap().levels += 1;
                if let Some(bar) = &*self.unit.lock().unwrap() {
                    bar.set_message(format!("level {plies}: {resolved} positions resolved"));
                }
            }
            SolveEvent::UnitDone {
                sectors,
                positions,
                elapsed,
                memory,
                peak_disk,
            } => self.unit_done(sectors, positions, elapsed, (memory, peak_disk)),
            SolveEvent::Skipped { .. } => {}
            SolveEvent::Checking { units } => self.checking(units),
            SolveEvent::Checked { units, elapsed } => self.checked(units, elapsed),
            SolveEvent::Packed { sectors, elapsed } => self.line(format!(
                "packed {} in {elapsed:.2?} (no unsolved unit reads it any more): raw file removed",
                names(&sectors)
            )),
            SolveEvent::Restored { sectors, elapsed } => self.line(format!(
                "{} read by the next unit, packed only, decoded back into raw files in {elapsed:.2?}",
                names(&sectors)
            )),
            SolveEvent::CatchingUp { sectors, positions } => self.line(format!(
                "decoding the win/draw/loss of {sectors} sectors ({positions} positions) packed before --pack-wdl was given, from the packed folder"
            )),
            SolveEvent::CaughtUpSector {
                sector,
                positions,
                elapsed,
            } => self.line(format!(
                "win/draw/loss of {sector} decoded: {positions} positions in {elapsed:.2?}"
            )),
            SolveEvent::CaughtUp { sectors, elapsed } => self.line(format!(
                "win/draw/loss of {} sectors packed before --pack-wdl was given, decoded from the packed folder, in {elapsed:.2?}",
                sectors.len()
            )),
            // Said even under --quiet: a wait on a lock whose holder died on
            // another machine lasts until someone deletes its file.
            SolveEvent::Waiting { sectors } => self.total.suspend(|| note(&format!(
                "waiting for another solver, which holds the lock of {} (a {}.lock file, or {}.held without flock: delete a .held file whose solver died on another machine)",
                names(sectors),
                sectors[0],
                sectors[0]
            ))),
            SolveEvent::IndexRewritten { sector } => self.line(format!(
                "the stored index of {sector} was damaged or of an older version: written again"
            )),
        }
    }

    /// A unit's line: its rate and memory; in a log, how far the whole
    /// solve has got too.
    fn unit_done(
        &self,
        sectors: &[SectorKey],
        positions: u64,
        elapsed: std::time::Duration,
        (memory, peak_disk): (Option<u64>, Option<u64>),
    ) {
        if let Some(bar) = self.unit.lock().unwrap().take() {
            bar.finish_and_clear();
        }
        self.total.inc(positions);
        let rate = positions as f64 / elapsed.as_secs_f64().max(1e-9);
        let memory = memory.map_or(String::new(), |m| {
            format!(
                ", {:.0} MiB in use, {:.2} bytes/position",
                m as f64 / 1048576.0,
                m as f64 / positions.max(1) as f64
            )
        });
        let phases = std::mem::take(&mut *self.phases.lock().unwrap());
        // No levels (a placement unit, valued in one pass, or one that
        // counting its children left nothing to resolve): nothing to tell apart.
        let phases = match phases.counted {
            Some(counted) if phases.levels > 0 => format!(
                "; children counted in {counted:.2?}, then {} levels",
                phases.levels
            ),
            _ => String::new(),
        };
        let msg = format!(
            "solved {}: {positions} positions in {elapsed:.2?} ({rate:.0} positions/s{memory}{phases})",
            names(sectors),
        );
        if self.terminal {
            if !self.quiet {
                self.total.println(msg);
            }
        } else {
            // A log has no bar: how far the whole solve has got.
            let held = peak_disk.map_or(String::new(), |bytes| {
                format!("; the folders held at most {} so far", disk_size(bytes))
            });
            self.line(format!("{msg}; {}{held}", self.so_far()));
        }
    }

    /// The check of the units solved before begins: minutes on a resumed
    /// whole game, shown as it goes.
    fn checking(&self, units: usize) {
        let msg = format!("checking the files of the {units} units solved before");
        if self.terminal && !self.quiet {
            self.spin(msg);
        } else {
            self.line(msg);
        }
    }

    /// A spinner under the total's bar, saying what runs now.
    fn spin(&self, msg: String) {
        let bar = ProgressBar::new_spinner();
        bar.set_message(msg);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        *self.unit.lock().unwrap() = Some(bar);
    }

    fn checked(&self, units: usize, elapsed: std::time::Duration) {
        if let Some(bar) = self.unit.lock().unwrap().take() {
            bar.finish_and_clear();
        }
        // The bar's rate is the solve's, not the check's.
        self.total.reset_elapsed();
        self.total.reset_eta();
        self.line(format!(
            "checked the files of the {units} units solved before in {elapsed:.2?}: whole"
        ));
    }

    /// The share of this run's positions done, and the time left at its
    /// rate so far (packing included). A resumed run counts only the units
    /// it has left, so its total is smaller than the whole game's.
    fn so_far(&self) -> String {
        let (done, all) = (self.total.position(), self.total.length().unwrap_or(0));
        let since = self.solving_since.get();
        let seconds = since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let left = all.saturating_sub(done) as f64 * seconds / done.max(1) as f64;
        format!(
            "done: {:.1}% of this run's {all} positions, {} left at its rate",
            100.0 * done as f64 / all.max(1) as f64,
            estimated_time(left)
        )
    }

    fn line(&self, msg: String) {
        if !self.quiet {
            // A closed standard error (`2>&1 | head -1`) must not stop the solve.
            self.total.suspend(|| note(&msg));
        }
    }
}

pub fn names(sectors: &[SectorKey]) -> String {
    sectors
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The folders a solve writes besides its own.
pub struct Folders<'a> {
    /// `--pack`, and how its blocks are coded (`--zstd`).
    pub pack: Option<&'a Path>,
    pub coder: Coder,
    /// `--pack-wdl`.
    pub pack_wdl: Option<&'a Path>,
    /// `--without-rule`.
    pub without_rule: Option<&'a Path>,
}

pub fn solve(
    out: &mut dyn Write,
    variant: &'static Variant,
    db: &Path,
    selection: Selection,
    folders: &Folders,
    quiet: bool,
) -> Result<()> {
    let reporter = Reporter::new(quiet);
    let pack = folders.pack;
    let options = SolveOptions {
        db: db.to_path_buf(),
        variant,
        selection: selection.clone(),
        pack: pack.map(Path::to_path_buf),
        pack_coder: folders.coder,
        pack_wdl: folders.pack_wdl.map(Path::to_path_buf),
        without_rule: folders.without_rule.map(Path::to_path_buf),
    };
    let summary = morris::solve(&options, &|e| reporter.event(e))?;
    reporter.total.finish_and_clear();
    // The solve is done: a reader that went away does not make it fail.
    let _ = writeln!(
        out,
        "solved {} units, {} positions in {:.2?}; database in {}",
        summary.units_solved,
        summary.positions_solved,
        summary.elapsed,
        db.display()
    );
    if let (Some(peak), Some(dir)) = (summary.peak_disk, pack) {
        let _ = writeln!(
            out,
            "packed into {}{} (packing took {:.2?} of it); the folders held at most {} together",
            dir.display(),
            folders
                .pack_wdl
                .map_or_else(String::new, |w| format!(" and {}", w.display())),
            summary.packing,
            disk_size(peak)
        );
    }
    if matches!(selection, Selection::All) {
        // Packing as it went, the solve left every sector in the packed folder.
        let tb = Tablebase::open(pack.unwrap_or(db), variant)?;
        let start = Position::start(variant);
        let value = super::probe::value_words(tb.stored_value(&start, 0)?);
        let _ = writeln!(out, "the starting position is a {value}");
    }
    let _ = out.flush();
    Ok(())
}
