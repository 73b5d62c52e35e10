//! `plan`: a solve as jobs for a workflow engine, in JSON for the engine
//! (`workflow/Snakefile`) or as a table with the figures of scale.

use std::io::Write;

use anyhow::Result;

use morris::db::estimated_time;
use morris::solve::{MOVES_WHILE_HOLDING_SLOWDOWN, Plan, PlanRate, PlannedUnit, plan};
use morris::{Selection, Variant};

pub fn write_plan(
    out: &mut dyn Write,
    variant: &'static Variant,
    selection: &Selection,
    measure: bool,
    json: bool,
) -> Result<()> {
    let rate = if measure {
        PlanRate::Measured(super::bench::measure_rate()?)
    } else {
        PlanRate::Assumed
    };
    let plan = plan(variant, selection, rate)?;
    if json {
        serde_json::to_writer(&mut *out, &plan)?;
        writeln!(out)?;
        return Ok(());
    }
    write_table(out, &plan)
}

fn write_table(out: &mut dyn Write, plan: &Plan) -> Result<()> {
    writeln!(
        out,
        "{:<12} {:>5} {:>14} {:>10} {:>10} {:>6}  reads",
        "unit", "stage", "positions", "memory MB", "seconds", "read by"
    )?;
    for u in &plan.units {
        writeln!(
            out,
            "{:<12} {:>5} {:>14} {:>10.0} {:>10.1} {:>6}  {}",
            u.sectors.join("+"),
            u.stage,
            u.positions,
            u.memory_bytes as f64 / 1e6,
            u.seconds,
            u.read_by.len(),
            u.reads.join(" ")
        )?;
    }
    let total_seconds: f64 = plan.units.iter().map(|u| u.seconds).sum();
    // A unit planned longer than its positions at the rate is one the plan
    // slows down (the only such factor).
    let slowed = |u: &PlannedUnit| u.seconds * plan.rate > u.positions as f64 * 1.01;
    let slower = if plan.units.iter().any(slowed) {
        format!(
            ", {MOVES_WHILE_HOLDING_SLOWDOWN} times as long for a unit where a side holding men may move"
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} units, {} positions, {:.1} GB of raw files; at {:.2} M positions/s ({}){slower}: {} on one machine",
        plan.units.len(),
        plan.positions,
        plan.raw_bytes as f64 / 1e9,
        plan.rate / 1e6,
        plan.rate_source,
        estimated_time(total_seconds)
    )?;
    writeln!(
        out,
        "disk, solved in this order packing as it goes (--pack): at most {:.1} GB of sector files, raw and packed, after unit {} ({:.1} GB of raw files at most)",
        plan.peak_pack_disk_bytes as f64 / 1e9,
        plan.peak_pack_disk_after,
        plan.peak_pack_raw_bytes as f64 / 1e9,
    )?;
    let path = &plan.critical_path;
    writeln!(
        out,
        "critical path: {} units, {} positions, {}: the least time with any number of machines",
        path.units.len(),
        path.positions,
        estimated_time(path.seconds)
    )?;
    writeln!(
        out,
        "peak memory of a job: {:.2} GB ({:.2} GB packing as it goes); units per stage (can run at once): {}",
        plan.peak_memory_bytes as f64 / 1e9,
        plan.peak_pack_memory_bytes as f64 / 1e9,
        plan.units_per_stage
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    Ok(())
}
