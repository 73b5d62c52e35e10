//! What the solver and the benchmarks ask of the system (Linux, where it
//! answers): memory in use, the processor's name, returning freed memory,
//! and the processor's prefetch.

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
