//! A lock per unit, so that two solvers on one folder never write the same
//! files: the second waits for the unit the first is solving, then finds it
//! done and goes on. The lock is the system's advisory lock on a file
//! (`flock`), which the kernel releases when its process ends however it
//! ends, so a killed solver never blocks the next one.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::SolveError;

/// A held unit lock; released (and its file removed) when dropped.
pub struct UnitLock {
    path: PathBuf,
    _file: File,
}

impl UnitLock {
    /// Takes the lock named `name` in `dir`, calling `on_wait` once if
    /// another process holds it and waiting until it is released.
    ///
    /// # Errors
    /// A lock file that cannot be created or locked.
    pub fn acquire(dir: &Path, name: &str, on_wait: impl FnOnce()) -> Result<UnitLock, SolveError> {
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
