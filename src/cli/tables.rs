//! `sectors`, `solve`, `stats`, `verify` and `bench`: building and checking
//! databases.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::db::{Tablebase, Value, file_name};
use crate::index::{SectorGraph, SectorIndex, SectorKey};
use crate::rules::Variant;
use crate::solve::{Selection, SolveEvent, SolveOptions, SolveSummary, UnitEvent, solve};
use crate::verify::verify_sector;

pub fn sectors(out: &mut dyn Write, variant: &'static Variant, max_men: Option<u32>) -> Result<()> {
    let graph = SectorGraph::reachable(variant);
    let shown: Vec<SectorKey> = graph
        .sectors()
        .filter(|s| max_men.is_none_or(|n| s.men_on_board() <= n))
        .collect();
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
        let raw = crate::index::binomial(n, a) * crate::index::binomial(n - a, b);
        let size = SectorIndex::count(variant.board, a, b);
        let bytes = crate::db::Header::new(variant, *s, size)
            .file_len()
            .unwrap_or(u64::MAX);
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
        "{} sectors ({} movement), {raw_total} positions, {index_total} up to symmetry, {bytes_total} bytes of files",
        shown.len(),
        shown.iter().filter(|s| s.is_movement()).count()
    )?;
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
        }
    }

    fn event(&self, event: SolveEvent) {
        match event {
            SolveEvent::Planned {
                units,
                done,
                positions,
                to_solve,
            } => {
                self.total.set_length(to_solve);
                self.line(format!("{units} units ({done} already solved), {positions} positions; {to_solve} to solve"));
            }
            SolveEvent::UnitStarted { sectors, positions } => {
                if self.terminal && !self.quiet {
                    let bar = ProgressBar::new_spinner();
                    bar.set_message(format!(
                        "{}: {positions} positions, counting children",
                        names(sectors)
                    ));
                    bar.enable_steady_tick(std::time::Duration::from_millis(200));
                    *self.unit.lock().unwrap() = Some(bar);
                } else if !self.terminal {
                    // A log shows what a long unit is doing.
                    self.line(format!("solving {}: {positions} positions", names(sectors)));
                }
            }
            SolveEvent::Unit(UnitEvent::Initialised { .. }) => {}
            SolveEvent::Unit(UnitEvent::Level { plies, resolved }) => {
                if let Some(bar) = &*self.unit.lock().unwrap() {
                    bar.set_message(format!("level {plies}: {resolved} positions resolved"));
                }
            }
            SolveEvent::UnitDone {
                sectors,
                positions,
                elapsed,
                memory,
            } => {
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
                let msg = format!(
                    "solved {}: {positions} positions in {:.2?} ({:.0} positions/s{memory})",
                    names(sectors),
                    elapsed,
                    rate
                );
                if self.terminal {
                    if !self.quiet {
                        self.total.println(msg);
                    }
                } else {
                    self.line(msg);
                }
            }
            SolveEvent::Skipped { .. } => {}
        }
    }

    fn line(&self, msg: String) {
        if !self.quiet {
            self.total.suspend(|| eprintln!("{msg}"));
        }
    }
}

fn names(sectors: &[SectorKey]) -> String {
    sectors
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

pub fn solve_command(
    out: &mut dyn Write,
    variant: &'static Variant,
    db: &Path,
    selection: Selection,
    quiet: bool,
) -> Result<SolveSummary> {
    let reporter = Reporter::new(quiet);
    let options = SolveOptions {
        db: db.to_path_buf(),
        variant,
        selection: selection.clone(),
    };
    let summary = solve(&options, &|e| reporter.event(e))?;
    reporter.total.finish_and_clear();
    writeln!(
        out,
        "solved {} units, {} positions in {:.2?}; database in {}",
        summary.units_solved,
        summary.positions_solved,
        summary.elapsed,
        db.display()
    )?;
    if matches!(selection, Selection::All) {
        let tb = Tablebase::open(db, variant)?;
        let start = crate::rules::Position::start(variant);
        writeln!(out, "the starting position is a {}", tb.value(&start)?)?;
    }
    Ok(summary)
}

/// The sector files in a folder, sorted.
/// The sectors whose files a folder holds, in order.
fn sector_files(db: &Path) -> Result<Vec<SectorKey>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(db).with_context(|| format!("cannot read {}", db.display()))? {
        let name = entry?.file_name().to_string_lossy().to_string();
        if let Some(key) = name
            .strip_suffix(".mdb")
            .and_then(|stem| stem.parse::<SectorKey>().ok())
        {
            found.push(key);
        }
    }
    found.sort();
    Ok(found)
}

pub fn stats(out: &mut dyn Write, variant: &'static Variant, db: &Path) -> Result<()> {
    let tb = Tablebase::open(db, variant)?.reading_whole_files();
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13} {:>11} {:>11} {:>13}",
        "sector", "wins", "losses", "draws", "longest win", "longest loss", "file bytes"
    )?;
    let mut totals = [0u64; 3];
    for sector in sector_files(db)? {
        let file = tb.sector(sector)?;
        let (mut w, mut l, mut d, mut lw, mut ll) = (0u64, 0u64, 0u64, 0u16, 0u16);
        for i in 0..file.header.positions {
            match file.value(i)? {
                Value::Win(n) => {
                    w += 1;
                    lw = lw.max(n);
                }
                Value::Loss(n) => {
                    l += 1;
                    ll = ll.max(n);
                }
                Value::Draw => d += 1,
            }
        }
        let bytes = std::fs::metadata(tb.path(sector))?.len();
        writeln!(
            out,
            "{:<10} {w:>13} {l:>13} {d:>13} {lw:>11} {ll:>11} {bytes:>13}",
            sector.to_string()
        )?;
        totals[0] += w;
        totals[1] += l;
        totals[2] += d;
    }
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13}",
        "total", totals[0], totals[1], totals[2]
    )?;
    Ok(())
}

/// Verifies the sectors `only` names, or every sector file of the folder.
pub fn verify(
    out: &mut dyn Write,
    variant: &'static Variant,
    db: &Path,
    only: &[SectorKey],
) -> Result<()> {
    let tb = Tablebase::open(db, variant)?.reading_whole_files();
    let mut bad = 0u64;
    let sectors = if only.is_empty() {
        sector_files(db)?
    } else {
        only.to_vec()
    };
    for sector in sectors {
        let started = Instant::now();
        let (mismatches, total) = verify_sector(&tb, sector, 5)?;
        writeln!(
            out,
            "{sector}: {} in {:.2?}",
            if total == 0 {
                "ok".to_string()
            } else {
                format!("{total} MISMATCHES")
            },
            started.elapsed()
        )?;
        for m in mismatches {
            writeln!(
                out,
                "  index {}: {} stored {}, its children give {}",
                m.index,
                m.position.notation(variant.board),
                m.stored,
                m.recomputed
            )?;
        }
        bad += total;
    }
    if bad > 0 {
        bail!("{bad} stored values do not follow from their children");
    }
    Ok(())
}

pub fn bench(
    out: &mut dyn Write,
    variant: &'static Variant,
    max_men: u32,
    threads: usize,
) -> Result<()> {
    index_speed(out, variant)?;
    let dir = tempfile_dir()?;
    let started = Instant::now();
    let summary = solve(
        &SolveOptions {
            db: dir.clone(),
            variant,
            selection: Selection::MaxMen(max_men),
        },
        &|_| {},
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    writeln!(out, "machine: {} threads used, {}", threads, cpu_name())?;
    writeln!(
        out,
        "{:<12} {:>12} {:>10} {:>14}",
        "unit", "positions", "seconds", "positions/s"
    )?;
    for (unit, n, t) in &summary.units {
        writeln!(
            out,
            "{:<12} {n:>12} {:>10.3} {:>14.0}",
            names(unit),
            t.as_secs_f64(),
            *n as f64 / t.as_secs_f64().max(1e-9)
        )?;
    }
    let rate = summary.positions_solved as f64 / elapsed;
    let peak = peak_rss_bytes();
    let largest = summary
        .sectors
        .iter()
        .map(|(_, n, _)| *n)
        .max()
        .unwrap_or(0);
    writeln!(
        out,
        "total: {} positions in {elapsed:.2} s: {rate:.0} positions/s, {:.0} per thread",
        summary.positions_solved,
        rate / threads as f64
    )?;
    if let Some(peak) = peak {
        writeln!(
            out,
            "peak resident memory: {:.1} MiB, {:.2} bytes per position of the largest sector ({largest})",
            peak as f64 / 1048576.0,
            peak as f64 / largest.max(1) as f64
        )?;
    }
    if let Some((memory, positions)) = summary.peak_memory {
        writeln!(
            out,
            "anonymous memory at the end of the heaviest unit (mapped files left out): {:.1} MiB, {:.2} bytes per position of that unit ({positions})",
            memory as f64 / 1048576.0,
            memory as f64 / positions.max(1) as f64
        )?;
    }
    let disk: u64 = summary
        .sectors
        .iter()
        .map(|(s, _, _)| {
            std::fs::metadata(dir.join(file_name(*s)))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .sum();
    writeln!(
        out,
        "files: {disk} bytes, {:.3} bytes per position",
        disk as f64 / summary.positions_solved.max(1) as f64
    )?;
    writeln!(
        out,
        "at this rate the {} movement phase ({} positions) takes {:.1} hours",
        variant.name,
        movement_positions(variant),
        movement_positions(variant) as f64 / rate / 3600.0
    )?;
    // The placement sectors of the last man in hand, whose successors are
    // the movement sectors just solved: the one-pass placement solver.
    let placement: Vec<SectorKey> = SectorGraph::reachable(variant)
        .sectors()
        .filter(|s| s.us_hand == 1 && s.them_hand == 0 && s.men_on_board() < max_men)
        .collect();
    if !placement.is_empty() {
        let started = Instant::now();
        let summary = solve(
            &SolveOptions {
                db: dir.clone(),
                variant,
                selection: Selection::Sectors(placement.clone()),
            },
            &|_| {},
        )?;
        let elapsed = started.elapsed().as_secs_f64();
        writeln!(
            out,
            "placement: {} sectors with one man in hand ({} to {}), {} positions in {elapsed:.2} s: {:.0} positions/s",
            placement.len(),
            placement[0],
            placement[placement.len() - 1],
            summary.positions_solved,
            summary.positions_solved as f64 / elapsed
        )?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Nanoseconds per `index` call on the largest movement sector, over the
/// canonical positions of a spread of indices and their symmetric images.
fn index_speed(out: &mut dyn Write, variant: &'static Variant) -> Result<()> {
    let (a, b) = (variant.men as usize - 1, variant.men as usize - 1);
    let index = SectorIndex::of(variant.board, a, b);
    let step = (index.size() / 100_000).max(1);
    let mut samples = Vec::new();
    let mut i = 0;
    while i < index.size() {
        let (us, them) = index.men(i);
        for s in variant.board.symmetries() {
            samples.push((s.apply(us), s.apply(them)));
        }
        i += step;
    }
    let started = Instant::now();
    let mut checksum = 0u64;
    for &(us, them) in &samples {
        checksum = checksum.wrapping_add(index.index(us, them));
    }
    let ns = started.elapsed().as_nanos() as f64 / samples.len() as f64;
    writeln!(
        out,
        "index: {ns:.1} ns per position on sector {a}-{b} ({} calls, one thread; checksum {checksum})",
        samples.len()
    )?;
    Ok(())
}

fn movement_positions(variant: &'static Variant) -> u64 {
    SectorGraph::reachable(variant)
        .sectors()
        .filter(|s| s.is_movement())
        .map(|s| SectorIndex::count(variant.board, s.us_board as usize, s.them_board as usize))
        .sum()
}

fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("morris-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into())
}

/// Peak resident memory of this process (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Probe throughput on an existing database: values of positions sampled from
/// its sector files (each in a random symmetric image), on one thread and on
/// all, files warm; and the first probe of each sector in a fresh process
/// state (mapping the file and building its index).
pub fn bench_probe(out: &mut dyn Write, variant: &'static Variant, db: &Path) -> Result<()> {
    let sectors = sector_files(db)?;
    if sectors.is_empty() {
        bail!("{} holds no sector files", db.display());
    }
    let tablebase = Tablebase::open(db, variant)?;
    let mut first_probe = Vec::new();
    let many = Tablebase::open(db, variant)?.with_built_indices();
    let mut samples = Vec::new();
    let per_sector = (2_000_000 / sectors.len()).max(1000);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let symmetries = variant.board.symmetries();
    for &s in &sectors {
        // A position of the sector drawn without its index, which the first
        // probe builds.
        let mut points: Vec<u8> = variant.board.all().iter().collect();
        for i in (1..points.len()).rev() {
            points.swap(i, (random() % (i as u64 + 1)) as usize);
        }
        let (a, b) = (s.us_board as usize, s.them_board as usize);
        let set = |ps: &[u8]| ps.iter().fold(crate::Bitboard::EMPTY, |m, &p| m.with(p));
        let pos = crate::Position::from_sides(
            set(&points[..a]),
            s.us_hand,
            set(&points[a..a + b]),
            s.them_hand,
        );
        let started = Instant::now();
        tablebase.value(&pos)?;
        first_probe.push(started.elapsed());
        let index = SectorIndex::of(variant.board, a, b);
        for _ in 0..per_sector {
            let p = index.position(random() % index.size(), s.us_hand, s.them_hand);
            let sym = &symmetries[(random() % symmetries.len() as u64) as usize];
            let us = sym.apply(p.us());
            let them = sym.apply(p.them());
            samples.push(crate::Position::from_sides(
                us,
                s.us_hand,
                them,
                s.them_hand,
            ));
        }
    }
    // Shuffle so consecutive probes hit different sectors and pages.
    for i in (1..samples.len()).rev() {
        samples.swap(i, (random() % (i as u64 + 1)) as usize);
    }
    first_probe.sort();
    writeln!(
        out,
        "machine: {} threads, {}",
        rayon::current_num_threads(),
        cpu_name()
    )?;
    writeln!(
        out,
        "probe: {} positions from {} sectors of {}, files warm",
        samples.len(),
        sectors.len(),
        db.display()
    )?;
    writeln!(
        out,
        "  first probe of a sector (map its file and its stored index, or build the index): median {:.2?}, max {:.2?}",
        first_probe[first_probe.len() / 2],
        first_probe[first_probe.len() - 1]
    )?;
    let mut answers = Vec::new();
    for (label, tb) in [
        ("stored indices (probe)", &tablebase),
        ("built indices (probe --batch)", &many),
    ] {
        let sum = |parallel: bool| -> (u64, f64) {
            let started = Instant::now();
            let value = |p: &crate::Position| tb.value(p).map_or(0, |v| v.rank() as u64);
            let total = if parallel {
                samples.par_iter().map(value).sum()
            } else {
                samples.iter().map(value).sum()
            };
            (
                total,
                samples.len() as f64 / started.elapsed().as_secs_f64(),
            )
        };
        answers.push(sum(true).0); // warm-up: maps and indices
        let (one, one_rate) = sum(false);
        let (all, all_rate) = sum(true);
        answers.extend([one, all]);
        writeln!(
            out,
            "  {label}: {one_rate:.0} probes/s on one thread, {all_rate:.0} on {}",
            rayon::current_num_threads()
        )?;
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "probes agree");
    Ok(())
}
