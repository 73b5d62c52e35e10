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
                    drop(file);
                    let _ = fs::remove_file(&path);
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
        let me = format!("{} {}", host_name(), std::process::id());
        loop {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    writeln!(file, "{me}").map_err(failed)?;
                    file.sync_all().map_err(failed)?;
                    return Ok(UnitLock { path, _file: file });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path).unwrap_or_default();
                    if died_here(&holder) {
                        // Its process is gone: the lock protects nothing.
                        let _ = fs::remove_file(&path);
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

/// Whether a failed `flock` means the file system has none.
fn no_flock(e: &std::io::Error) -> bool {
    // ENOLCK, EOPNOTSUPP, ENOSYS on Linux.
    e.kind() == std::io::ErrorKind::Unsupported || matches!(e.raw_os_error(), Some(37 | 95 | 38))
}

/// This machine's name, as the exclusive-file lock records it.
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "unknown-host".to_string())
}

/// Whether a held file's `HOST PID` names a process of this host that no
/// longer runs.
fn died_here(holder: &str) -> bool {
    let mut fields = holder.split_whitespace();
    match (
        fields.next(),
        fields.next().and_then(|p| p.parse::<u32>().ok()),
    ) {
        (Some(host), Some(pid)) if host == host_name() => {
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
