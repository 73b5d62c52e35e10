//! What the solver and the benchmarks ask of the system (Linux, where it
//! answers): memory in use, the processor's name, returning freed memory,
//! the processor's prefetch, and a disk's free space.

use std::path::Path;

/// Resident anonymous memory of this process (Linux: `RssAnon`), which
/// leaves out the mapped database files.
pub fn anonymous_memory() -> Option<u64> {
    status_kib("RssAnon:").map(|kb| kb * 1024)
}

/// Peak resident memory of this process (Linux: `VmHWM`).
pub fn peak_resident_memory() -> Option<u64> {
    status_kib("VmHWM:").map(|kb| kb * 1024)
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The processor's model name, for benchmark reports.
pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into())
}

/// Gives the heap's free memory back to the system. The C allocator keeps
/// what a long solve freed (indices built while skipping finished units,
/// the last unit's tables) and reported it as ours: about 300 MiB after a
/// few hundred units.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            // glibc: returns free memory at the top of the heap and in its
            // free lists to the system; no other effect.
            safe fn malloc_trim(pad: usize) -> i32;
        }
        malloc_trim(0);
    }
}

/// Asks the processor to start loading `items[at]` (nothing past the end).
#[inline]
pub(crate) fn prefetch<T>(items: &[T], at: u64) {
    if let Some(item) = items.get(at as usize) {
        prefetch_item(item);
    }
}

/// Asks the processor to start loading `item`.
#[inline]
pub(crate) fn prefetch_item<T>(item: &T) {
    // SAFETY: a prefetch has no effect on memory; the address is a reference's.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            item as *const T as *const i8,
        )
    };
}

/// Asks the processor to bring `bytes[range]` into its cache (level 2): a
/// block of a file that the next positions read all over.
pub(crate) fn prefetch_range(bytes: &[u8], range: std::ops::Range<u64>) {
    #[cfg(target_arch = "x86_64")]
    {
        let end = (range.end as usize).min(bytes.len());
        let mut at = range.start as usize;
        while at < end {
            // SAFETY: a prefetch has no effect on memory; the address is in the slice.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(
                    bytes.as_ptr().add(at) as *const i8,
                )
            };
            at += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, range);
}

/// This machine's name (Linux: /proc/sys/kernel/hostname), or
/// [`UNKNOWN_HOST`]: what files shared by several machines record of their
/// writer.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| UNKNOWN_HOST.to_string())
}

/// The host name recorded where none can be read: never judged to be
/// this machine's.
pub const UNKNOWN_HOST: &str = "unknown-host";

/// The bytes free to this program on the file system that holds `dir`
/// (its nearest existing ancestor), or `None` where the system does not
/// say.
pub fn free_disk_bytes(dir: &Path) -> Option<u64> {
    free_bytes_of(nearest_existing(dir)?)
}

/// `dir`, or its nearest ancestor that exists ("." for a relative path
/// none of whose ancestors does).
fn nearest_existing(dir: &Path) -> Option<&Path> {
    dir.ancestors()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .find(|d| d.exists())
}

/// Whether two folders (or their nearest existing ancestors) are on one
/// file system; `true` where the system does not say.
#[cfg(unix)]
pub fn same_disk(one: &Path, other: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let device = |dir: &Path| {
        nearest_existing(dir)
            .and_then(|d| std::fs::metadata(d).ok())
            .map(|m| m.dev())
    };
    match (device(one), device(other)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

#[cfg(not(unix))]
pub fn same_disk(_one: &Path, _other: &Path) -> bool {
    true
}

#[cfg(unix)]
fn free_bytes_of(dir: &Path) -> Option<u64> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stats` a buffer of the
    // struct `statvfs` fills; it is read only when the call succeeded.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    Some((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

#[cfg(not(unix))]
fn free_bytes_of(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder still to make is measured at its nearest existing
    /// ancestor; a relative one none of whose ancestors exists, at ".".
    #[test]
    fn a_folder_not_made_yet_is_measured_where_it_will_be() {
        assert_eq!(
            nearest_existing(Path::new("no-such-db")),
            Some(Path::new("."))
        );
        assert!(free_disk_bytes(Path::new("no-such-db/sub")).is_some());
    }
}
