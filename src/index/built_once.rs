//! A cache of values each built once, whoever asks: one cell per key, so
//! that two threads asking at once wait for one build instead of making two
//! (an index of the largest sectors takes seconds and hundreds of MB).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::ThreadId;

/// Values by key, each built once.
pub(crate) struct BuiltOnce<K, V> {
    cells: Mutex<HashMap<K, Arc<Cell<V>>>>,
}

impl<K, V> Default for BuiltOnce<K, V> {
    fn default() -> Self {
        BuiltOnce {
            cells: Mutex::new(HashMap::new()),
        }
    }
}

/// One value, and the thread building it.
struct Cell<V> {
    value: OnceLock<Arc<V>>,
    builder: Mutex<Option<ThreadId>>,
    /// Times it was built (more than once only by a builder meeting itself).
    builds: AtomicUsize,
}

impl<V> Default for Cell<V> {
    fn default() -> Self {
        Cell {
            value: OnceLock::new(),
            builder: Mutex::new(None),
            builds: AtomicUsize::new(0),
        }
    }
}

impl<K: Eq + Hash, V> BuiltOnce<K, V> {
    /// The value of `key`, built by `build` if no thread has built it;
    /// a thread that asks while another builds it waits for that build.
    pub(crate) fn get_or_build(&self, key: K, build: impl FnOnce() -> V) -> Arc<V> {
        let cell = self.lock().entry(key).or_default().clone();
        if let Some(value) = cell.value.get() {
            return value.clone();
        }
        let me = std::thread::current().id();
        if *cell.builder.lock().unwrap_or_else(|e| e.into_inner()) == Some(me) {
            // This thread builds it already: it took a job asking for it
            // while its build waited for its own parallel parts (rayon). A
            // copy, rather than waiting for itself.
            cell.builds.fetch_add(1, Ordering::Relaxed);
            return Arc::new(build());
        }
        cell.value
            .get_or_init(|| {
                *cell.builder.lock().unwrap_or_else(|e| e.into_inner()) = Some(me);
                cell.builds.fetch_add(1, Ordering::Relaxed);
                Arc::new(build())
            })
            .clone()
    }

    /// Times the value of `key` was built since the cache last let it go
    /// (what the tests read).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn builds(&self, key: &K) -> usize {
        self.lock()
            .get(key)
            .map_or(0, |c| c.builds.load(Ordering::Relaxed))
    }

    /// Lets every value go (those still in use live on).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Arc<Cell<V>>>> {
        self.cells.lock().unwrap_or_else(|e| e.into_inner())
    }
}
