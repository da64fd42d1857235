//! The preview server's body cache: file bodies read once and kept, within a budget.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Bytes of file bodies kept in memory; the busiest pages are small and read again and again.
pub const CACHE_BYTES: u64 = 128 * 1024 * 1024;

/// A bounded, fill-once cache of file bodies: files are immutable while served, so an entry
/// never goes stale; once the budget is spent, further files are read from disk each time.
#[derive(Debug, Default)]
pub(super) struct BodyCache {
    entries: RwLock<HashMap<String, Arc<[u8]>>>,
    used: AtomicU64,
}

impl BodyCache {
    /// The body of `key` (the file at `path()`), from memory when it was read before. The path
    /// is made only on a miss: a hit allocates nothing.
    pub(super) fn get_or_read(
        &self,
        key: &str,
        path: impl FnOnce() -> PathBuf,
    ) -> std::io::Result<Arc<[u8]>> {
        if let Some(hit) = self
            .entries
            .read()
            .ok()
            .and_then(|map| map.get(key).cloned())
        {
            return Ok(hit);
        }
        let bytes: Arc<[u8]> = std::fs::read(path())?.into();
        let size = bytes.len() as u64;
        let used = self.used.fetch_add(size, Ordering::Relaxed);
        if used + size <= CACHE_BYTES {
            if let Ok(mut map) = self.entries.write() {
                map.insert(key.to_string(), Arc::clone(&bytes));
            }
        } else {
            self.used.fetch_sub(size, Ordering::Relaxed);
        }
        Ok(bytes)
    }
}
