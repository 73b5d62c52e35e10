//! Opening the folders a command names, under the rules the command line
//! asks for (`--variant`, `--n-move`).

use std::path::Path;

use anyhow::Result;
use morris::db::folder_variant;
use morris::{FileError, Tablebase, Variant};

use super::{AnswerDbs, error_chain, note};

/// The rules the command line asks for: `--variant` and `--n-move`.
#[derive(Clone, Copy)]
pub struct Rules {
    pub variant: Option<&'static Variant>,
    pub n_move: Option<u8>,
}

impl Rules {
    /// For a command without a folder: the variant asked for (standard by
    /// default) under the rule asked for.
    pub fn without_folder(self) -> Result<&'static Variant> {
        let base = self.variant.unwrap_or_else(Variant::standard);
        Ok(match self.n_move {
            Some(n) => base.with_n_move(n)?,
            None => base,
        })
    }

    /// For a command on `db`: `None` when nothing is asked (the folder's
    /// rules then hold); `--n-move` alone is the folder's game under it.
    pub fn for_folder(self, db: &Path) -> Result<Option<&'static Variant>> {
        let base = match (self.variant, self.n_move) {
            (None, None) => return Ok(None),
            (Some(v), _) => v,
            (None, Some(_)) => match folder_variant(db).ok().flatten() {
                Some(found) => Variant::by_name(found.name).unwrap_or_else(Variant::standard),
                None => Variant::standard(),
            },
        };
        Ok(Some(match self.n_move {
            Some(n) => base.with_n_move(n)?,
            None => base,
        }))
    }
}

/// Opens a folder for probes: for the variant asked for, or the one the
/// folder holds. A damaged stored index is reported once, then replaced by
/// an index built in memory.
pub fn open(db: &Path, rules: Rules) -> Result<Tablebase> {
    let tablebase = match rules.for_folder(db)? {
        Some(v) => Tablebase::open(db, v)?,
        None => Tablebase::open_folder(db)?,
    };
    let told = std::sync::Mutex::new(std::collections::HashSet::new());
    Ok(tablebase.with_warnings(move |e: &FileError| {
        if told.lock().unwrap_or_else(|p| p.into_inner()).insert(e.path().to_path_buf()) {
            note(&format!(
                "warning: {}; using an index built in memory instead (`morris solve` over the folder rewrites the file)",
                error_chain(e)
            ));
        }
    }))
}

/// [`open`] for the commands that answer (`probe`, `play`), with the
/// folder without the rule beside one under it when given.
pub fn open_answering(dbs: &AnswerDbs, rules: Rules) -> Result<Tablebase> {
    let tablebase = open(&dbs.db.db, rules)?;
    match &dbs.without_rule {
        None => Ok(tablebase),
        Some(dir) => {
            let nothing_asked = Rules {
                variant: None,
                n_move: None,
            };
            let plain = open(dir, nothing_asked)?;
            Ok(tablebase.with_folder_without_rule(plain)?)
        }
    }
}

/// [`open`] for commands that read whole files (`stats`, `verify`).
pub fn open_whole(db: &Path, rules: Rules) -> Result<Tablebase> {
    Ok(open(db, rules)?.reading_whole_files())
}
