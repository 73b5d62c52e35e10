//! A database folder as a whole: the manifest naming its variant, the
//! sector files it holds, and the temporary files writers leave behind.

use std::fs;
use std::path::Path;

use super::encoding::Storage;
use super::sector_file::{is_temp_name, write_atomically};
use crate::db::error::{FileError, ProbeError};
use crate::index::SectorKey;
use crate::rules::Variant;
use crate::system::{UNKNOWN_HOST, host_name};

/// Name of the file that records which variant a folder holds.
pub const MANIFEST: &str = "morris-db.txt";

/// The variant a folder's manifest names; `None` when the folder has no
/// manifest.
///
/// # Errors
/// An unreadable manifest, or one that is empty, names no known variant, or
/// gives a fingerprint other than its variant's (the rules changed under a
/// kept name, or the file was edited).
pub fn folder_variant(dir: &Path) -> Result<Option<&'static Variant>, ProbeError> {
    let path = dir.join(MANIFEST);
    let text = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(FileError::Read { path, source }.into()),
    };
    let problem = |problem: String| ProbeError::Manifest {
        path: path.clone(),
        problem,
    };
    let text = String::from_utf8(text).map_err(|_| problem("it is not UTF-8 text".into()))?;
    if text.trim().is_empty() {
        return Err(problem(
            "it is empty (it should name the variant and its fingerprint)".into(),
        ));
    }
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
    };
    let name = field("variant ").ok_or_else(|| problem("it names no variant".into()))?;
    let fingerprint =
        field("fingerprint ").ok_or_else(|| problem("it gives no fingerprint".into()))?;
    let mut variant = Variant::by_name(&name)
        .ok_or_else(|| problem(format!("it names an unknown variant '{name}'")))?;
    if let Some(n) = field("n-move ") {
        let n: u8 = n
            .parse()
            .map_err(|_| problem(format!("its n-move '{n}' is not a number of plies")))?;
        variant = variant.with_n_move(n).map_err(|e| problem(e.to_string()))?;
    }
    let expected = format!("{:016x}", variant.fingerprint());
    if fingerprint != expected {
        return Err(problem(format!(
            "it names {}, whose rules have fingerprint {expected}, but gives {fingerprint}: \
             its files were built for other rules",
            variant.label()
        )));
    }
    Ok(Some(variant))
}

/// The kind of files a folder's manifest says it holds (raw without one).
pub fn folder_storage(dir: &Path) -> Storage {
    let text = fs::read_to_string(dir.join(MANIFEST)).unwrap_or_default();
    [Storage::Packed, Storage::PackedWdl]
        .into_iter()
        .find(|s| text.lines().any(|l| Some(l.trim()) == s.manifest_line()))
        .unwrap_or(Storage::Raw)
}

/// The manifest line of a folder under the move-count rule whose fresh
/// draws say what they are without the rule (`CURSED_WIN_BYTE`,
/// `BLESSED_LOSS_BYTE`): solved with the folder without the rule beside it.
const MARKED_DRAWS_LINE: &str = "draws marked";

/// Whether the folder's manifest says its draws are marked.
pub fn folder_marks_draws(dir: &Path) -> bool {
    fs::read_to_string(dir.join(MANIFEST))
        .unwrap_or_default()
        .lines()
        .any(|l| l.trim() == MARKED_DRAWS_LINE)
}

/// Adds the marked draws' line to the folder's manifest.
pub(crate) fn mark_draws_in_manifest(dir: &Path) -> Result<(), FileError> {
    if folder_marks_draws(dir) {
        return Ok(());
    }
    let path = dir.join(MANIFEST);
    let mut text = fs::read_to_string(&path).map_err(FileError::read(&path))?;
    text.push_str(MARKED_DRAWS_LINE);
    text.push('\n');
    write_manifest_text(dir, &text)
}

/// Writes the manifest of a new folder for `variant`, of files of the kind
/// `storage` says.
pub(crate) fn write_manifest(
    dir: &Path,
    variant: &Variant,
    storage: Storage,
) -> Result<(), FileError> {
    let mut text = format!("variant {}\n", variant.name);
    if let Some(n) = variant.n_move {
        text.push_str(&format!("n-move {n}\n"));
    }
    text.push_str(&format!("fingerprint {:016x}\n", variant.fingerprint()));
    if let Some(line) = storage.manifest_line() {
        text.push_str(line);
        text.push('\n');
    }
    write_manifest_text(dir, &text)
}

/// Writes the manifest's text whole, under a temporary name first.
fn write_manifest_text(dir: &Path, text: &str) -> Result<(), FileError> {
    write_atomically(&dir.join(MANIFEST), |mut file| {
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        Ok(file)
    })
}

/// The sectors whose files a folder holds, in order.
///
/// # Errors
/// An unreadable folder.
pub fn sector_files(dir: &Path) -> Result<Vec<SectorKey>, FileError> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(FileError::read(dir))? {
        let name = entry.map_err(FileError::read(dir))?.file_name();
        if let Some(key) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".mdb"))
            .and_then(|stem| stem.parse::<SectorKey>().ok())
        {
            found.push(key);
        }
    }
    found.sort();
    Ok(found)
}

/// Removes the temporary files that no writer will finish: those of a
/// process that has ended (their names carry its id), and the unit's own
/// (`stems`: its sector files), whose lock the caller holds.
pub(crate) fn remove_stale_temp_files(dir: &Path, stems: &[String]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !is_temp_name(&name) {
            continue;
        }
        let ours = stems.iter().any(|s| name.starts_with(&format!("{s}.tmp")));
        let writer_gone = temp_writer(&name).is_some_and(|(host, pid)| {
            // A writer on another machine sharing the folder is not judged.
            let here = host.is_none_or(|h| h != UNKNOWN_HOST && h == host_name());
            here && pid != std::process::id()
                && cfg!(target_os = "linux")
                && !Path::new(&format!("/proc/{pid}")).exists()
        });
        if ours || writer_gone {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The writer a temporary name records: `NAME.tmp.HOST.PID`, or
/// `NAME.tmp.PID` as earlier versions wrote (no host: this machine).
fn temp_writer(name: &str) -> Option<(Option<&str>, u32)> {
    let (_, writer) = name.rsplit_once(".tmp.")?;
    match writer.rsplit_once('.') {
        Some((host, pid)) => Some((Some(host), pid.parse().ok()?)),
        None => Some((None, writer.parse().ok()?)),
    }
}

/// Whether a folder holds any sector file.
pub(crate) fn has_sector_files(dir: &Path) -> bool {
    sector_files(dir).is_ok_and(|s| !s.is_empty())
}
