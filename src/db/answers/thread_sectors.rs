//! The sectors each thread has probed, kept apart from the folder's shared
//! map: a probe that finds its sector there touches no lock or reference
//! count another thread also writes (with two threads the shared ones took
//! 38% of a probe's time on raw files, 16% on files of small blocks).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::index::SectorKey;

/// Slots of sectors a tablebase keeps, one per thread while there are no
/// more threads than slots (then two threads share one, each still right:
/// a thread that finds its slot locked takes the shared map).
pub(crate) const THREAD_SECTORS: usize = 64;

/// Threads that have asked for a slot so far.
static THREADS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SLOT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The calling thread's slot: given on its first probe, in turn, to any
/// thread (a pool's or not), and kept for the thread's life.
pub fn thread_slot() -> usize {
    SLOT.with(|slot| {
        *slot.get().get_or_insert_with(|| {
            let slot_of = THREADS.fetch_add(1, Ordering::Relaxed) % THREAD_SECTORS;
            slot.set(Some(slot_of));
            slot_of
        })
    })
}

/// One thread's sectors (`T`: a sector's mapped file and index): on a
/// cache line of its own.
#[repr(align(128))]
pub(crate) struct ThreadSectors<T>(Mutex<HashMap<SectorKey, T, KeyHash>>);

impl<T> Default for ThreadSectors<T> {
    fn default() -> Self {
        ThreadSectors(Mutex::new(HashMap::with_hasher(KeyHash)))
    }
}

impl<T> std::ops::Deref for ThreadSectors<T> {
    type Target = Mutex<HashMap<SectorKey, T, KeyHash>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// Hashes a sector key (four small numbers) by one multiplication.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHash;

impl std::hash::BuildHasher for KeyHash {
    type Hasher = KeyHasher;
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

/// See [`KeyHash`].
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}
