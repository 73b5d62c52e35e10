//! A lock per unit, so that two solvers on one folder never write the same
//! files: the second waits for the unit the first is solving, then finds it
//! done and goes on. The lock is the system's advisory lock on a file
//! (`flock`), which the kernel releases when its process ends however it
//! ends, so a killed solver never blocks the next one.
//!
//! Where the file system has no `flock` (some network file systems), or
//! `MORRIS_LOCK=exclusive-file` asks for it, the lock is a file created only
//! if none exists (`NAME.held`, naming its host and process): a holder that
//! died on this host is seen and its file removed; one that died on
//! another host leaves a file to delete by hand, which the wait names.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::SolveError;
use crate::system::{UNKNOWN_HOST, host_name};

/// A held unit lock; released (and its file removed) when dropped.
pub struct UnitLock {
    path: PathBuf,
    _file: File,
}

/// The environment variable that chooses the exclusive-file lock.
pub const LOCK_VARIABLE: &str = "MORRIS_LOCK";

impl UnitLock {
    /// Takes the lock named `name` in `dir`, calling `on_wait` once if
    /// another process holds it and waiting until it is released.
    ///
    /// # Errors
    /// A lock file that cannot be created or locked.
    pub fn acquire(dir: &Path, name: &str, on_wait: impl FnOnce()) -> Result<UnitLock, SolveError> {
        if std::env::var(LOCK_VARIABLE).is_ok_and(|v| v == "exclusive-file") {
            return Self::acquire_exclusive_file(dir, name, Some(on_wait));
        }
        let path = dir.join(format!("{name}.lock"));
        let failed = |source| SolveError::Lock {
            path: path.clone(),
            source,
        };
        let mut on_wait = Some(on_wait);
        loop {
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(failed)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    if let Some(tell) = on_wait.take() {
                        tell();
                    }
                    file.lock().map_err(failed)?;
                }
                Err(TryLockError::Error(e)) if no_flock(&e) => {
                    // The .lock file stays: another process may hold it
                    // where flock works.
                    return Self::acquire_exclusive_file(dir, name, on_wait);
                }
                Err(TryLockError::Error(e)) => return Err(failed(e)),
            }
            // The holder before us removes the file when it is done: a lock
            // on a file no longer under this name protects nothing.
            if same_file(&path, &file) {
                let _ = file.set_len(0);
                let _ = writeln!(file, "{}", std::process::id());
                return Ok(UnitLock { path, _file: file });
            }
        }
    }
}

impl UnitLock {
    /// The lock without `flock`: `NAME.held`, created only if absent.
    fn acquire_exclusive_file(
        dir: &Path,
        name: &str,
        mut on_wait: Option<impl FnOnce()>,
    ) -> Result<UnitLock, SolveError> {
        let path = dir.join(format!("{name}.held"));
        let failed = |source| SolveError::Lock {
            path: path.clone(),
            source,
        };
        loop {
            match create_with_holder(&path) {
                Ok(file) => return Ok(UnitLock { path, _file: file }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path).unwrap_or_default();
                    if died_here(&holder) && take_over(&path, &holder) {
                        continue;
                    }
                    if let Some(tell) = on_wait.take() {
                        tell();
                    }
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                Err(e) => return Err(failed(e)),
            }
        }
    }
}

/// Creates `path` holding `HOST PID` if no file has that name, never
/// leaving it without its contents: written aside, then hard-linked into
/// place, which fails if the name exists.
fn create_with_holder(path: &Path) -> std::io::Result<File> {
    let me = format!("{} {}", host_name(), std::process::id());
    let aside = path.with_extension(format!("held.{}.{}", host_name(), std::process::id()));
    let mut file = File::create(&aside)?;
    let written = writeln!(file, "{me}")
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::hard_link(&aside, path));
    let _ = fs::remove_file(&aside);
    written.map(|()| file)
}

/// Removes a held file whose holder died, unless another process does so
/// first: the removal runs under `PATH.steal`, created only if absent, and
/// only if the file still names the same holder. True when the caller may
/// try again at once.
fn take_over(path: &Path, holder: &str) -> bool {
    let guard = path.with_extension("held.steal");
    match create_with_holder(&guard) {
        Ok(_) => {
            if fs::read_to_string(path).is_ok_and(|now| now == holder) {
                let _ = fs::remove_file(path);
            }
            let _ = fs::remove_file(&guard);
            true
        }
        Err(_) => {
            // A guard left by a stealer that died here goes too.
            let stealer = fs::read_to_string(&guard).unwrap_or_default();
            if died_here(&stealer) {
                let _ = fs::remove_file(&guard);
            }
            false
        }
    }
}

/// Whether a failed `flock` means the file system has none.
fn no_flock(e: &std::io::Error) -> bool {
    // ENOLCK, EOPNOTSUPP, ENOSYS on Linux.
    e.kind() == std::io::ErrorKind::Unsupported || matches!(e.raw_os_error(), Some(37 | 95 | 38))
}

/// Whether a held file's `HOST PID` names a process of this host that no
/// longer runs: known only on Linux (its /proc) and with a host name.
fn died_here(holder: &str) -> bool {
    let mut fields = holder.split_whitespace();
    match (
        fields.next(),
        fields.next().and_then(|p| p.parse::<u32>().ok()),
    ) {
        (Some(host), Some(pid))
            if cfg!(target_os = "linux") && host != UNKNOWN_HOST && host == host_name() =>
        {
            !Path::new(&format!("/proc/{pid}")).exists()
        }
        _ => false,
    }
}

impl Drop for UnitLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock goes with the file's closing.
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(unix)]
fn same_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(path: &Path, _file: &File) -> bool {
    path.exists()
}
