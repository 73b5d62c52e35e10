//! Where an error becomes what the user reads: its exit code, decided here
//! only, and the command that mends it, where there is one.

use std::path::Path;

use morris::index::SectorKey;
use morris::{
    ErrorKind, FileError, PositionError, ProbeError, RuleError, SolveError,
    rules::PositionParseError,
};

use super::{check, probe};

/// The kind of an error, from the first of its causes that has one
/// (`None`: an error of the command line's own, bad input).
pub(super) fn kind_of(err: &anyhow::Error) -> Option<ErrorKind> {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<ProbeError>() {
            return Some(e.kind());
        }
        if let Some(e) = cause.downcast_ref::<SolveError>() {
            return Some(e.kind());
        }
        if let Some(e) = cause.downcast_ref::<FileError>() {
            return Some(e.kind());
        }
        if cause.is::<check::Mismatches>() || cause.is::<check::Unreadable>() {
            return Some(ErrorKind::DamagedData);
        }
        if cause.is::<check::MissingSectors>() {
            return Some(ErrorKind::MissingData);
        }
        if cause.is::<RuleError>() || cause.is::<Conflict>() {
            return Some(ErrorKind::Usage);
        }
        if cause.is::<PositionError>() {
            return Some(ErrorKind::BadInput);
        }
    }
    None
}

/// The exit code of an error, decided here only, from its kind: 1 bad input
/// (a position, a counter, a sector that does not exist), 2 usage (options
/// that contradict each other; clap's own errors too), 3 a database problem
/// (no folder, another variant's or kind's, a missing sector, a damaged or
/// unwritable file, mismatches found).
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if let Some(f) = err.downcast_ref::<probe::Failures>() {
        return f.exit_code();
    }
    match kind_of(err) {
        None | Some(ErrorKind::BadInput) => 1,
        Some(ErrorKind::Usage) => 2,
        Some(ErrorKind::MissingData | ErrorKind::DamagedData) => 3,
    }
}

/// Options that contradict each other or are out of range, said in the
/// binary's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Conflict(pub String);

/// How to mend a check that could not read some sectors: what to build
/// again, and from which folder.
fn unreadable_hint(err: &anyhow::Error) -> Option<String> {
    let unreadable = err.downcast_ref::<check::Unreadable>()?;
    if unreadable.rebuild.is_empty() {
        return None;
    }
    let sectors: Vec<String> = unreadable.rebuild.iter().map(|s| s.to_string()).collect();
    let (dir, sectors) = (unreadable.dir.display(), sectors.join(","));
    // A packed folder is rebuilt from its raw one; `pack` keeps a file
    // that opens, damaged inside or not. Where nothing is damaged, the
    // folder only lacks sectors: a `solve --pack` may still be filling it.
    let packed = morris::db::folder_storage(&unreadable.dir).is_packed();
    Some(match (packed, unreadable.damaged) {
        (true, true) => format!(
            "delete each damaged file, solve its sector into the raw folder this one was packed from if that lacks it, then pack that again with this folder's flags: `morris solve --db RAW --sectors {sectors}` and `morris pack --db RAW --out {dir} [FLAGS]`"
        ),
        (true, false) => format!(
            "nothing read was damaged; the missing sectors are packed into this folder by the `solve --pack` that fills it once no unit it still has to solve reads them (check again when it ends), or by solving them into the raw folder this one was packed from and packing that again: `morris solve --db RAW --sectors {sectors}` and `morris pack --db RAW --out {dir} [FLAGS]`"
        ),
        (false, true) => format!(
            "delete each damaged file, then build again: `morris solve --db {dir} --sectors {sectors}`"
        ),
        (false, false) => format!(
            "nothing read was damaged; build the missing sectors: `morris solve --db {dir} --sectors {sectors}`"
        ),
    })
}

/// How to mend a packed file of `solve --pack` found damaged, or a unit to
/// solve again that reads sectors only packed: a packing that decodes back
/// into raw files lets the solve do it; one under the move-count rule does not.
fn packed_only_hint(err: &anyhow::Error) -> Option<String> {
    let names = |sectors: &[SectorKey]| {
        let names: Vec<String> = sectors.iter().map(|s| s.to_string()).collect();
        names.join(",")
    };
    let elsewhere = |n: Option<u8>, sectors: &[SectorKey]| {
        let rule = n.map(|n| format!(" --n-move {n}")).unwrap_or_default();
        format!(
            "`morris --variant VARIANT{rule} solve --db NEW --sectors {}` (what they read is solved too)",
            names(sectors)
        )
    };
    Some(
        match err.chain().find_map(|c| c.downcast_ref::<SolveError>())? {
            SolveError::DamagedPacked {
                files,
                n_move: None,
                ..
            } => format!(
                "delete {} and run this solve again: it solves their units again, the sectors those read decoded from the packed folder back into raw files until they are packed again",
                files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            SolveError::DamagedPacked {
                sectors,
                n_move: Some(n),
                ..
            } => format!(
                "values under the move-count rule do not decode back into raw files, so the solve cannot redo these units from its packed folder: solve them into a new folder, {}, pack it (`morris pack --db NEW --out NEW-packed`) and copy their files from NEW-packed over the damaged ones",
                elsewhere(Some(*n), sectors)
            ),
            SolveError::PackedOnly {
                sectors, n_move, ..
            } => format!(
                "solve them into a new folder, {}, copy {} into this solve's raw folder (--db), and run this solve again",
                elsewhere(*n_move, sectors),
                (sectors
                    .iter()
                    .map(|s| format!("NEW/{}", morris::db::file_name(*s))))
                .collect::<Vec<_>>()
                .join(" ")
            ),
            _ => return None,
        },
    )
}

/// The command that mends an error, where there is one: the library says
/// what is wrong and missing, the binary how to run what builds it.
pub fn hint(err: &anyhow::Error) -> Option<String> {
    let probe = err.chain().find_map(|c| {
        c.downcast_ref::<ProbeError>()
            .or_else(|| match c.downcast_ref::<SolveError>() {
                Some(SolveError::Probe(e) | SolveError::MissingDependency { source: e, .. }) => {
                    Some(e)
                }
                _ => None,
            })
    });
    if let Some(PositionParseError::FieldCount { found: 5 }) = err
        .chain()
        .find_map(|c| c.downcast_ref::<PositionParseError>())
    {
        return Some(
            "a fifth field (the counter) is read under the move-count rule: give --n-move, or a --db folder solved under it".into(),
        );
    }
    if let Some(hint) = unreadable_hint(err) {
        return Some(hint);
    }
    if let Some(hint) = packed_only_hint(err) {
        return Some(hint);
    }
    if let Some(hint) = scratch_hint(err) {
        return Some(hint);
    }
    if let Some(SolveError::UnreachableSector { variant, .. }) =
        err.chain().find_map(|c| c.downcast_ref::<SolveError>())
    {
        return Some(format!(
            "`morris --variant {variant} sectors` lists the sectors of the game"
        ));
    }
    Some(match probe? {
        ProbeError::UnreachableSector { variant, .. } => format!(
            "`morris --variant {} sectors --all` lists the sectors a game reaches",
            variant.name
        ),
        ProbeError::MissingSector {
            sector,
            dir,
            packed: true,
            ..
        } => format!(
            "solve it into the raw folder this one was packed from, then pack that again: `morris solve --db RAW --sectors {sector}` and `morris pack --db RAW --out {}`",
            dir.display()
        ),
        ProbeError::MissingSector { sector, dir, .. } => format!(
            "build it with `morris solve --db {} --sectors {sector}`",
            dir.display()
        ),
        ProbeError::Damaged { sector, source, .. } => {
            let path = source.path();
            let dir = path.parent().unwrap_or(Path::new(".")).display();
            if path.extension().is_some_and(|e| e == "idx") {
                format!(
                    "delete {} and run `morris solve --db {dir}` over the folder to write it again (probes build the index in memory meanwhile)",
                    path.display()
                )
            } else {
                format!(
                    "delete {} and run `morris solve --db {dir} --sectors {sector}` to build it again",
                    path.display()
                )
            }
        }
        ProbeError::WrongVariant {
            same_game,
            wanted_rule,
            ..
        } => {
            if *same_game && wanted_rule.is_some() {
                "leave out --n-move: the folder holds values without the move-count rule".into()
            } else if *same_game {
                "give the folder's --n-move, or leave out --variant and --n-move: a folder's manifest names its rules".into()
            } else {
                "leave out --variant (and --n-move): a folder's manifest names its rules; or give another --db folder".into()
            }
        }
        ProbeError::NotADatabase { dir } if !dir.exists() => format!(
            "give the --db folder a solve wrote, or build one: `morris solve --db {}`",
            dir.display()
        ),
        ProbeError::NotADatabase { dir } => format!(
            "a folder is made by `morris solve --db {}` (or `morris pack`)",
            dir.display()
        ),
        ProbeError::RuleMismatch {
            has_rule: false, ..
        } => "leave out --n-move: the folder holds values without the move-count rule".into(),
        ProbeError::WdlOnly { .. } => {
            "probe a folder packed in full (`morris pack` without --wdl) or the raw one".into()
        }
        ProbeError::NoUltra { dir } => {
            format!("write it with `morris ultra --db {}`", dir.display())
        }
        _ => return None,
    })
}

/// Where the error is a file of the system's temporary folder that cannot
/// be written (the scratch folder of a packed folder's decoding): where to
/// decode instead.
fn scratch_hint(err: &anyhow::Error) -> Option<String> {
    let scratch = std::env::temp_dir();
    err.chain().find_map(|cause| {
        // Transparent wrappers hide the file error from the chain.
        fn of_probe(e: &ProbeError) -> Option<&FileError> {
            match e {
                ProbeError::File(f) | ProbeError::Damaged { source: f, .. } => Some(f),
                _ => None,
            }
        }
        let file = cause.downcast_ref::<FileError>().or_else(|| {
            match (cause.downcast_ref(), cause.downcast_ref::<SolveError>()) {
                (Some(probe), _) | (_, Some(SolveError::Probe(probe))) => of_probe(probe),
                (_, Some(SolveError::File(f))) => Some(f),
                _ => None,
            }
        });
        match file {
            Some(FileError::Write { path, .. }) if is_scratch(path, &scratch) => Some(format!(
                "a packed folder is decoded a sector at a time into the system's temporary folder ({}): point TMPDIR at a folder on a disk with room, e.g. `TMPDIR=/var/tmp morris ...`",
                scratch.display()
            )),
            _ => None,
        }
    })
}

/// Whether `path` is the temporary folder itself (too small: refused before
/// decoding) or in a scratch folder of the decoding there.
fn is_scratch(path: &Path, temp: &Path) -> bool {
    path == temp
        || path.strip_prefix(temp).is_ok_and(|rest| {
            rest.components().next().is_some_and(|first| {
                first
                    .as_os_str()
                    .to_string_lossy()
                    .starts_with("morris-verify-")
            })
        })
}
