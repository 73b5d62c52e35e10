//! The solver's cells: one 16-bit atomic per position of the unit, in
//! anonymous memory that asks the system for huge pages. The solver's
//! accesses are random over hundreds of megabytes; with 4 KiB pages nearly
//! every one of them also missed the address translation cache.

use std::ops::Deref;
use std::sync::atomic::AtomicU16;

use memmap2::{MmapMut, MmapOptions};

pub struct Cells {
    map: MmapMut,
    len: usize,
}

impl Cells {
    /// `len` cells, all zero.
    ///
    /// # Errors
    /// When the system refuses the memory.
    pub fn zeroed(len: u64) -> std::io::Result<Cells> {
        let len = usize::try_from(len).map_err(std::io::Error::other)?;
        // An anonymous map is zeroed, and a zero `AtomicU16` is zero bytes.
        let map = MmapOptions::new()
            .len((len * size_of::<AtomicU16>()).max(1))
            .map_anon()?;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without huge pages the solver is slower, not wrong.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Cells { map, len })
    }
}

impl Deref for Cells {
    type Target = [AtomicU16];

    fn deref(&self) -> &[AtomicU16] {
        // SAFETY: the map is page-aligned, holds `len` cells, lives as long as
        // `self`, and is only accessed through these atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU16>(), self.len) }
    }
}
