//! Under the move-count rule, with the same variant's folder without the
//! rule beside the solve: each fresh draw of a solved sector that is a win
//! or a loss without the rule is written as a cursed win or a blessed loss
//! (`CURSED_WIN_BYTE`, `BLESSED_LOSS_BYTE`), so that the folder alone tells
//! them from true draws at every counter.

use std::path::Path;

use rayon::prelude::*;

use super::cells::SolvedSector;
use super::error::SolveError;
use crate::db::{
    DRAW_BYTE, ProbeError, Tablebase, Wdl, folder_marks_draws, marked_draw_byte, sector_files,
};
use crate::index::SectorIndex;
use crate::rules::Variant;

/// The folder a solve writes, created when missing, with the folder without
/// the rule beside it where its draws are marked.
///
/// # Errors
/// A mix of marked and unmarked sectors (a folder is marked whole or not
/// at all), a folder without the rule that cannot be opened or is of
/// other rules, or a folder of other rules.
pub(super) fn create_folder(
    db: &Path,
    variant: &'static Variant,
    without_rule: Option<&Path>,
) -> Result<Tablebase, SolveError> {
    if without_rule.is_some() && variant.n_move.is_none() {
        // Refused before a folder is made.
        return Err(SolveError::MarksWithoutRule {
            variant: variant.label(),
        });
    }
    let without_rule = folder_without_rule(db, without_rule)?;
    let tablebase = Tablebase::create(db, variant)?;
    Ok(match without_rule {
        Some(plain) => tablebase.with_folder_without_rule(plain)?.mark_draws()?,
        None => tablebase,
    })
}

/// The folder without the rule a solve reads to mark its draws, if any. A
/// folder is marked whole or not at all: a marked one is only solved on
/// with that folder, and one with unmarked sectors is not marked.
///
/// # Errors
/// A mix of marked and unmarked sectors, or a folder without the rule that
/// cannot be opened.
fn folder_without_rule(
    db: &Path,
    without_rule: Option<&Path>,
) -> Result<Option<Tablebase>, SolveError> {
    let marked = folder_marks_draws(db);
    let mismatch = |marked| SolveError::MarksMismatch {
        dir: db.to_path_buf(),
        marked,
    };
    match without_rule {
        None if marked => Err(mismatch(true)),
        None => Ok(None),
        // A folder not made yet lists no sectors.
        Some(_) if !marked && !sector_files(db).unwrap_or_default().is_empty() => {
            Err(mismatch(false))
        }
        Some(dir) => Ok(Some(Tablebase::open_folder(dir)?)),
    }
}

/// The marks of a solved sector under the rule: the index and byte of each
/// fresh draw that is a win or a loss without the rule, in index order.
/// `tablebase` reads the folder without the rule.
pub(super) fn marks(
    tablebase: &Tablebase,
    sector: &SolvedSector,
) -> Result<Vec<(u64, u8)>, ProbeError> {
    let key = sector.sector;
    let board = tablebase.variant().board;
    let index = SectorIndex::of_sector(board, key);
    (0..sector.len())
        .into_par_iter()
        .filter(|&i| sector.clock_byte(i) == DRAW_BYTE)
        .map(|i| {
            let pos = index.position(i, key.us_hand, key.them_hand);
            let plain = tablebase.plain_wdl(&pos)?.unwrap_or(Wdl::Draw);
            Ok((i, marked_draw_byte(plain)))
        })
        .filter(|found| !matches!(found, Ok((_, DRAW_BYTE))))
        .collect()
}

/// Removes a folder this solve made and wrote nothing but its manifest
/// into: a refused solve leaves nothing behind. Anything else in it (a
/// second solve's files) keeps it.
pub(super) fn remove_empty_folder(dir: &Path) {
    let only_the_manifest = std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .all(|e| e.file_name() == crate::db::MANIFEST)
    });
    if only_the_manifest {
        let _ = std::fs::remove_file(dir.join(crate::db::MANIFEST));
        let _ = std::fs::remove_dir(dir);
    }
}
