//! The moves other threads are searching right now, so that a thread can put them off.
//!
//! Threads that share a table but nothing else walk the same tree side by side: both
//! enter a node's second move at once, neither finds the other's result in the table,
//! and the work is done twice. Before a late move at a node deep enough to matter, a
//! thread looks here for the position the move leads to; if another thread is in it, the
//! move waits until the node's other moves are searched, by which time its value is
//! usually in the table. The threads then split a node's moves between them instead of
//! repeating each other (the "simplified ABDADA" scheme).
//!
//! The table is a hint, not a lock: a lost mark (a full set, or two threads writing one
//! slot) only costs some work done twice, and a stale one only a move searched later.

use std::sync::atomic::{AtomicU64, Ordering};

/// Slots per set: positions whose keys share a set.
const WAYS: usize = 4;
/// Sets in the table (a power of two): far more than the nodes deep enough to be marked
/// that the threads can be inside at once.
const SETS: usize = 1 << 13;

/// The table's size in bytes.
pub const BYTES: usize = SETS * WAYS * std::mem::size_of::<u64>();

/// The keys of the positions some thread is searching.
pub(super) struct Busy {
    slots: Vec<AtomicU64>,
}

impl Busy {
    pub(super) fn new() -> Busy {
        Busy {
            slots: (0..SETS * WAYS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn set(&self, key: u64) -> &[AtomicU64] {
        let s = (key as usize & (SETS - 1)) * WAYS;
        &self.slots[s..s + WAYS]
    }

    /// True if some thread marked `key` and has not unmarked it.
    pub(super) fn contains(&self, key: u64) -> bool {
        key != 0
            && self
                .set(key)
                .iter()
                .any(|s| s.load(Ordering::Relaxed) == key)
    }

    /// Mark `key` as searched (an empty slot of its set, or else the set's first).
    pub(super) fn mark(&self, key: u64) {
        if key == 0 {
            return;
        }
        let set = self.set(key);
        for s in set {
            let k = s.load(Ordering::Relaxed);
            if k == key {
                return;
            }
            if k == 0
                && s.compare_exchange(0, key, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
        }
        set[0].store(key, Ordering::Relaxed);
    }

    /// Unmark `key` (if another thread still searches it too, that thread's mark goes
    /// with it: a hint lost, nothing more).
    pub(super) fn unmark(&self, key: u64) {
        for s in self.set(key) {
            let _ = s.compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Forget every mark (a search that was stopped may leave some behind).
    pub(super) fn clear(&self) {
        self.slots
            .iter()
            .for_each(|s| s.store(0, Ordering::Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_seen_until_unmarked() {
        let b = Busy::new();
        let (k1, k2) = (0x1234_5678_9abc_def1, 0x0fed_cba9_8765_4321);
        assert!(!b.contains(k1));
        b.mark(k1);
        assert!(b.contains(k1) && !b.contains(k2));
        b.mark(k2);
        b.unmark(k1);
        assert!(!b.contains(k1) && b.contains(k2));
        b.clear();
        assert!(!b.contains(k2));
    }

    #[test]
    fn a_full_set_keeps_the_newest_mark() {
        let b = Busy::new();
        // Keys that share set 5.
        let keys: Vec<u64> = (1..=WAYS as u64 + 1).map(|i| (i << 40) | 5).collect();
        keys.iter().for_each(|&k| b.mark(k));
        assert!(b.contains(keys[WAYS]));
        assert!(keys[1..WAYS].iter().all(|&k| b.contains(k)));
        assert!(!b.contains(keys[0]), "the set's first slot was taken over");
    }
}
