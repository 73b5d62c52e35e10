//! `bench`: the solver's throughput on a temporary folder, or probe
//! throughput on an existing one, printed as figures a user can reproduce.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::solve::names;
use super::{Conflict, note};
use morris::db::{JobSize, file_name, sector_files};
use morris::index::{SectorGraph, SectorIndex, SectorKey};
use morris::system::{cpu_name, peak_resident_memory};
use morris::verify::{Check, verify_sector};
use morris::{Bitboard, Position, Ranking, Selection, SolveOptions, Tablebase, Variant, solve};

pub fn bench(
    out: &mut dyn Write,
    variant: &'static Variant,
    max_men: u32,
    threads: usize,
    verify: bool,
) -> Result<()> {
    let selection = Selection::MaxMen(max_men);
    let job = job_size(variant, &selection)?;
    if job.positions > BENCH_LIMIT {
        return Err(Conflict(format!(
            "bench --max-men {max_men} would solve {job} in a temporary folder; a bench goes up to {BENCH_LIMIT:.1e} positions (--max-men 12 in the standard game): time a larger solve with `morris solve`"
        ))
        .into());
    }
    writeln!(out, "machine: {} threads used, {}", threads, cpu_name())?;
    writeln!(out, "solving {job}")?;
    out.flush()?;
    index_speed(out, variant)?;
    out.flush()?;
    let folder = BenchFolder::new()?;
    let dir = folder.dir.clone();
    let started = Instant::now();
    let summary = solve(&SolveOptions::new(dir.clone(), variant, selection), &|_| {})?;
    let elapsed = started.elapsed().as_secs_f64();
    let mut solved_units = summary.units.clone();
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
    let peak = peak_resident_memory();
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
            "anonymous memory of the heaviest unit (mapped files left out; the larger of the figures when its children were counted and after it): {:.1} MiB, {:.2} bytes per position of that unit ({positions})",
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
    solved_units.extend(bench_placement(out, variant, max_men, &dir)?);
    if verify {
        verify_beside_solve(
            out,
            &Tablebase::open(&dir, variant)?.reading_whole_files(),
            &solved_units,
        )?;
    }
    drop(folder);
    Ok(())
}

/// This machine's solve rate on all its threads, in positions a second: the
/// standard movement sectors up to 8 men (1e7 positions, a few seconds)
/// solved in a temporary folder.
pub fn measure_rate() -> Result<f64> {
    let folder = BenchFolder::new()?;
    let started = Instant::now();
    let summary = solve(
        &SolveOptions::new(
            folder.dir.clone(),
            Variant::standard(),
            Selection::MaxMen(8),
        ),
        &|_| {},
    )?;
    Ok(summary.positions_solved as f64 / started.elapsed().as_secs_f64())
}

/// The most positions a solver bench takes: a minute or two on two
/// cores, a gigabyte of temporary files.
const BENCH_LIMIT: u64 = 1_200_000_000;

/// The sectors, positions and disk a solve of `selection` from nothing takes.
fn job_size(variant: &'static Variant, selection: &Selection) -> Result<JobSize> {
    let plan = morris::solve::plan(variant, selection, morris::solve::PlanRate::Assumed)?;
    Ok(JobSize {
        sectors: plan.units.iter().map(|u| u.sectors.len()).sum(),
        positions: plan.positions,
        bytes: plan.raw_bytes,
    })
}

/// The placement sectors of the last man in hand, whose successors are the
/// movement sectors just solved in `dir`: the one-pass placement solver's
/// rate. Returns the units it solved.
fn bench_placement(
    out: &mut dyn Write,
    variant: &'static Variant,
    max_men: u32,
    dir: &std::path::Path,
) -> Result<Vec<(Vec<SectorKey>, u64, std::time::Duration)>> {
    let placement: Vec<SectorKey> = SectorGraph::reachable(variant)
        .sectors()
        .filter(|s| s.us_hand == 1 && s.them_hand == 0 && s.men_on_board() < max_men)
        .collect();
    if placement.is_empty() {
        return Ok(Vec::new());
    }
    let started = Instant::now();
    let summary = solve(
        &SolveOptions::new(
            dir.to_path_buf(),
            variant,
            Selection::Sectors(placement.clone()),
        ),
        &|_| {},
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "placement: {} {} with one man in hand ({} to {}), {} positions in {elapsed:.2} s: {:.0} positions/s",
        placement.len(),
        if placement.len() == 1 {
            "sector"
        } else {
            "sectors"
        },
        placement[0],
        placement[placement.len() - 1],
        summary.positions_solved,
        summary.positions_solved as f64 / elapsed
    )?;
    Ok(summary.units)
}

/// `bench --verify`: each solved unit checked again with `verify` (checksums
/// and every value from its children), its rate beside the solver's.
fn verify_beside_solve(
    out: &mut dyn Write,
    tablebase: &Tablebase,
    units: &[(Vec<SectorKey>, u64, std::time::Duration)],
) -> Result<()> {
    writeln!(
        out,
        "{:<12} {:>12} {:>10} {:>12} {:>10} {:>12}",
        "unit", "positions", "solve s", "solve M/s", "verify s", "verify M/s"
    )?;
    let (mut solve_total, mut verify_total, mut positions) = (0.0, 0.0, 0u64);
    for (unit, n, solve_time) in units {
        let started = Instant::now();
        for &sector in unit {
            let checked = verify_sector(tablebase, sector, Check::All, 1)?;
            if checked.total_mismatches > 0 {
                bail!(
                    "{sector}: {} values do not follow from their children",
                    checked.total_mismatches
                );
            }
        }
        let (solve_s, verify_s) = (solve_time.as_secs_f64(), started.elapsed().as_secs_f64());
        writeln!(
            out,
            "{:<12} {n:>12} {solve_s:>10.3} {:>12.2} {verify_s:>10.3} {:>12.2}",
            names(unit),
            *n as f64 / solve_s.max(1e-9) / 1e6,
            *n as f64 / verify_s.max(1e-9) / 1e6,
        )?;
        solve_total += solve_s;
        verify_total += verify_s;
        positions += n;
    }
    writeln!(
        out,
        "all: {positions} positions, solve {solve_total:.2} s ({:.2} M/s), verify {verify_total:.2} s ({:.2} M/s)",
        positions as f64 / solve_total.max(1e-9) / 1e6,
        positions as f64 / verify_total.max(1e-9) / 1e6,
    )?;
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
        .map(|s| SectorIndex::count_of(variant.board, s))
        .sum()
}

/// The bench's temporary folder, removed when the bench ends or fails, and
/// when Ctrl-C or SIGTERM stops it: a stopped bench leaves nothing in /tmp.
struct BenchFolder {
    dir: PathBuf,
}

impl BenchFolder {
    fn new() -> Result<BenchFolder> {
        let dir = std::env::temp_dir().join(format!("morris-bench-{}", std::process::id()));
        // The handler first: a signal before the folder exists leaves none.
        let removed = dir.clone();
        ctrlc::set_handler(move || {
            let mut done = lock_removal();
            if !*done {
                let placeholder = remove_while_written(&removed);
                note(&format!(
                    "stopped: the bench's temporary folder {} is removed",
                    removed.display()
                ));
                if placeholder {
                    let _ = std::fs::remove_file(&removed);
                }
                *done = true;
            }
            // 128 + SIGINT, as a shell reports a stopped command. The lock
            // is held to the end: a bench failing because its folder went
            // away waits in `drop` instead of exiting first.
            std::process::exit(130);
        })?;
        std::fs::create_dir_all(&dir)?;
        Ok(BenchFolder { dir })
    }
}

/// Whether the bench's folder is removed: taken for the whole removal by
/// the handler of Ctrl-C or SIGTERM or by `drop`, so that never both.
static FOLDER_REMOVED: Mutex<bool> = Mutex::new(false);

fn lock_removal() -> MutexGuard<'static, bool> {
    FOLDER_REMOVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes `dir` while the bench may still be writing into it, or about to
/// create it (the solve creates its folder when it starts). The folder is
/// renamed away and a file put in its place, so that neither new files in it
/// nor the folder itself can be made again; the renamed folder is removed
/// (retried: a thread may add a file between its listing and its last
/// `rmdir`). Returns whether the placeholder is there: the caller removes
/// it last, just before the process exits.
fn remove_while_written(dir: &Path) -> bool {
    let doomed = dir.with_extension("removing");
    let _ = std::fs::rename(dir, &doomed);
    let mut placeholder = false;
    for _ in 0..10 {
        match std::fs::File::create_new(dir) {
            Ok(_) => {
                placeholder = true;
                break;
            }
            // Made again between the rename and now: removed, then the
            // placeholder tried again.
            Err(_) if dir.is_dir() => remove_retrying(dir),
            Err(_) => break,
        }
    }
    remove_retrying(&doomed);
    placeholder
}

fn remove_retrying(dir: &Path) {
    for _ in 0..50 {
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

impl Drop for BenchFolder {
    fn drop(&mut self) {
        let mut done = lock_removal();
        if !*done {
            let _ = std::fs::remove_dir_all(&self.dir);
            *done = true;
        }
    }
}

/// How long one timed pass of `bench --probe` is meant to take.
const SECONDS_PER_PASS: f64 = 3.0;

/// A probe's answer as a number: the value's order (with a fresh counter
/// under the folder's move-count rule).
fn probe_rank(tablebase: &Tablebase, pos: &Position) -> Result<i32, morris::ProbeError> {
    Ok(tablebase.stored_value(pos, 0)?.order_key().0)
}

/// The folder's size: its sector files' bytes (their lengths: nothing is
/// read) and positions, in bits per position.
fn write_folder_size(
    out: &mut dyn Write,
    tablebase: &Tablebase,
    sectors: &[SectorKey],
) -> Result<()> {
    let (mut bytes, mut positions) = (0, 0);
    for &s in sectors {
        bytes += std::fs::metadata(tablebase.dir().join(file_name(s)))?.len();
        let (us, them) = (s.us_board as usize, s.them_board as usize);
        positions += SectorIndex::count(tablebase.variant().board, us, them);
    }
    writeln!(
        out,
        "  {bytes} bytes of sector files for {positions} positions: {:.3} bits per position",
        bytes as f64 * 8.0 / positions.max(1) as f64
    )?;
    Ok(())
}

/// Probe throughput on an existing database: values of positions sampled from
/// its sector files (each in a random symmetric image), on one thread and on
/// all, files warm; and the first probe of each sector in a fresh process
/// state (mapping the file and building its index).
pub fn bench_probe(out: &mut dyn Write, tablebase: &Tablebase) -> Result<()> {
    let (db, variant) = (tablebase.dir(), tablebase.variant());
    let sectors = sector_files(db)?;
    if sectors.is_empty() {
        bail!("{} holds no sector files", db.display());
    }
    // The machine first: what follows can take minutes on a slow folder.
    writeln!(
        out,
        "machine: {} threads, {}",
        rayon::current_num_threads(),
        cpu_name()
    )?;
    writeln!(
        out,
        "probe: the first probe of each of {} sectors of {}, then positions drawn from them",
        sectors.len(),
        db.display()
    )?;
    out.flush()?;
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
        let set = |ps: &[u8]| ps.iter().fold(Bitboard::EMPTY, |m, &p| m.with(p));
        let pos = Position::from_sides(
            set(&points[..a]),
            s.us_hand,
            set(&points[a..a + b]),
            s.them_hand,
        );
        let started = Instant::now();
        probe_rank(tablebase, &pos)?;
        first_probe.push(started.elapsed());
        let index = SectorIndex::of(variant.board, a, b);
        for _ in 0..per_sector {
            let p = index.position(random() % index.size(), s.us_hand, s.them_hand);
            let sym = &symmetries[(random() % symmetries.len() as u64) as usize];
            let us = sym.apply(p.us());
            let them = sym.apply(p.them());
            samples.push(Position::from_sides(us, s.us_hand, them, s.them_hand));
        }
    }
    // Shuffle so consecutive probes hit different sectors and pages.
    for i in (1..samples.len()).rev() {
        samples.swap(i, (random() % (i as u64 + 1)) as usize);
    }
    first_probe.sort();
    writeln!(
        out,
        "  first probe of a sector (map its file and its stored index, or build the index): median {:.2?}, max {:.2?}",
        first_probe[first_probe.len() / 2],
        first_probe[first_probe.len() - 1]
    )?;
    write_folder_size(out, tablebase, &sectors)?;
    // A pass takes a few seconds whatever the folder: a first look at the
    // rate sizes the passes (a folder probed by a search is slower).
    let started = Instant::now();
    let calibration = &samples[..samples.len().min(20_000)];
    calibration.par_iter().for_each(|p| {
        let _ = probe_rank(tablebase, p);
    });
    let rate = calibration.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let per_pass = ((rate * SECONDS_PER_PASS) as usize).clamp(calibration.len(), samples.len());
    samples.truncate(per_pass);
    writeln!(
        out,
        "  {} positions per pass, files warm (about {SECONDS_PER_PASS} s each at the first rate seen)",
        samples.len()
    )?;
    out.flush()?;
    let mut answers = Vec::new();
    for (label, tb) in [
        ("stored indices (probe)", tablebase),
        ("built indices (probe --batch)", &many),
    ] {
        let sum = |parallel: bool| -> (u64, f64) {
            let started = Instant::now();
            let value = |p: &Position| probe_rank(tb, p).map_or(0, |r| r as u64);
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
        out.flush()?;
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "probes agree");
    write_answer_times(out, tablebase, &samples)
}

/// How many answers with their moves `bench --probe` times at most.
const ANSWERS_TIMED: usize = 2000;

/// The time of an answer, one thread, files warm, over the first of
/// `samples` for [`SECONDS_PER_PASS`] at most each: every move with its value
/// (a probe of a position with its moves), then with the opponent's replies
/// and errors after each too (what `probe` prints for a position, the page
/// shows).
fn write_answer_times(
    out: &mut dyn Write,
    tablebase: &Tablebase,
    samples: &[Position],
) -> Result<()> {
    let moves_only = |p: &Position| tablebase.ranked_moves(p, 0, Ranking::Best).map(drop);
    let whole = |p: &Position| tablebase.answer(p, 0).map(drop);
    for (label, answer) in [
        (
            "every move and its value",
            &moves_only as &dyn Fn(&Position) -> _,
        ),
        ("every move, its value, replies and errors (probe)", &whole),
    ] {
        let times = answer_times(samples, answer)?;
        let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
        let at = |q: f64| {
            times
                .get((q * times.len() as f64) as usize)
                .copied()
                .unwrap_or(0.0)
        };
        writeln!(
            out,
            "  answer with {label}: {mean:.3} ms a position on one thread (median {:.3}, 99% under {:.3}; {} positions)",
            at(0.5),
            at(0.99),
            times.len()
        )?;
    }
    Ok(())
}

/// The milliseconds of `answer` for each of the first [`ANSWERS_TIMED`] of
/// `samples` (fewer when [`SECONDS_PER_PASS`] runs out), sorted.
fn answer_times(
    samples: &[Position],
    answer: &dyn Fn(&Position) -> Result<(), morris::ProbeError>,
) -> Result<Vec<f64>> {
    let mut times = Vec::new();
    let started = Instant::now();
    for p in samples.iter().take(ANSWERS_TIMED) {
        let one = Instant::now();
        answer(p)?;
        times.push(one.elapsed().as_secs_f64() * 1e3);
        if started.elapsed().as_secs_f64() > SECONDS_PER_PASS {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}
