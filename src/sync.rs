//! Locking that outlives a panic.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, poisoned or not: the data behind the crate's locks stays
/// whole when a holder panics (each holder writes a field at a time), so a
/// panicking caller takes no later call down with it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
