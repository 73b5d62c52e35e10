//! A folder under the move-count rule and what its draws are without the
//! rule: read from the same variant's folder without it, given beside, or
//! from the folder's own marked draws (a folder solved with that folder
//! beside it), so that answers tell cursed wins and blessed losses from
//! true draws at every counter.

use super::tablebase::{Located, Tablebase};
use crate::db::error::ProbeError;
use crate::db::files::folder::mark_draws_in_manifest;
use crate::db::value::Wdl;
use crate::rules::{Outcome, Position, Variant};

impl Tablebase {
    /// Reads, beside this folder under the move-count rule, `plain`: a
    /// folder of the same variant without the rule (full or win/draw/loss
    /// only), so that answers tell a position the rule draws but that is a
    /// win or loss without it (`cursed-win`, `blessed-loss`) from a true
    /// draw at every counter, a fresh one included.
    ///
    /// # Errors
    /// This folder has no rule, or `plain` is of another variant or has one.
    pub fn with_folder_without_rule(mut self, plain: Tablebase) -> Result<Tablebase, ProbeError> {
        if self.variant().n_move.is_none() {
            return Err(ProbeError::RuleMismatch {
                dir: self.dir().to_path_buf(),
                has_rule: false,
            });
        }
        if plain.variant().n_move.is_some() || plain.variant().name != self.variant().name {
            let without_rule = Variant::by_name(self.variant().name).unwrap_or(self.variant());
            return Err(ProbeError::wrong_variant(
                plain.dir(),
                plain.variant(),
                without_rule,
            ));
        }
        self.without_rule = Some(Box::new(plain));
        Ok(self)
    }

    /// The value without the move-count rule of a position that is a draw
    /// with a fresh counter: read from the folder without the rule where
    /// one was given ([`Tablebase::with_folder_without_rule`]), else from
    /// the folder's marked draws; `None` where neither tells.
    pub(crate) fn plain_wdl(&self, pos: &Position) -> Result<Option<Wdl>, ProbeError> {
        if let Some(plain) = &self.without_rule {
            return plain.wdl_of_checked(pos).map(Some);
        }
        if !self.marked_draws {
            return Ok(None);
        }
        self.with_located(pos, |located| match located {
            Located::Over(Outcome::Drawn) => Ok(Some(Wdl::Draw)),
            Located::Over(_) => Ok(None),
            Located::At(sector, file, index) => file
                .marked_plain(index)
                .map_err(|source| self.damaged(sector, Some(pos), source)),
        })
    }

    /// Whether the folder's fresh draws say what they are without the rule
    /// (a folder solved with the folder without the rule beside it, and its
    /// packed copies): it tells cursed wins and blessed losses alone.
    pub fn marks_draws(&self) -> bool {
        self.marked_draws
    }

    /// Marks this new folder's draws as `source`'s are (a packed copy of a
    /// marked folder is marked).
    ///
    /// # Errors
    /// The manifest cannot be written.
    pub fn marking_draws_like(self, source: &Tablebase) -> Result<Tablebase, ProbeError> {
        match source.marked_draws {
            true => self.mark_draws(),
            false => Ok(self),
        }
    }

    /// Marks the folder's draws in its manifest (a solve that writes them).
    pub(crate) fn mark_draws(mut self) -> Result<Tablebase, ProbeError> {
        if !self.marked_draws {
            mark_draws_in_manifest(self.dir())?;
            self.marked_draws = true;
        }
        Ok(self)
    }
}
