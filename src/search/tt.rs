//! Transposition table: one allocation, sized once, entries replaced by depth and age.

use crate::types::{Depth, Pos, Value, VALUE_MATE_BOUND};

/// What a stored value says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    None = 0,
    /// The true value is at most this (fail low).
    Upper = 1,
    /// The true value is at least this (fail high).
    Lower = 2,
    Exact = 3,
}

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    value: i16,
    best: u16,
    depth: i8,
    bound: u8,
    generation: u8,
    _pad: u8,
}

/// `n` empty entries from zeroed memory. The system hands out zeroed pages untouched, so the
/// table costs resident memory only as the search fills it, and taking a large one is
/// quick even inside a short first move.
fn zeroed_entries(n: usize) -> Vec<Entry> {
    if n == 0 {
        return Vec::new();
    }
    let layout = std::alloc::Layout::array::<Entry>(n).expect("a table size that fits memory");
    // SAFETY: the layout is non-empty; `Entry` is `repr(C)` integers, so all-zero bytes are
    // a valid value (its `Default`); the pointer comes from the global allocator with the
    // layout of `n` entries, as `Vec::from_raw_parts` requires.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Entry>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(ptr, n, n)
    }
}

impl Bound {
    /// The bound a search result `value` proves in the window (`alpha`, `beta`).
    pub fn of(value: Value, alpha: Value, beta: Value) -> Bound {
        if value >= beta {
            Bound::Lower
        } else if value > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// A hit from the table.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub value: Value,
    pub depth: Depth,
    pub bound: Bound,
    pub best: Option<Pos>,
}

impl TtHit {
    /// True if the stored value settles a search in the window (`alpha`, `beta`).
    pub fn cuts(&self, alpha: Value, beta: Value) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.value >= beta,
            Bound::Upper => self.value <= alpha,
            Bound::None => false,
        }
    }
}

/// The transposition table.
pub struct Tt {
    entries: Vec<Entry>,
    mask: usize,
    generation: u8,
}

const NO_MOVE: u16 = u16::MAX;

impl Tt {
    /// Bytes a table asked for `bytes` really takes: the largest power-of-two number of
    /// entries that fits (at least 1024 entries).
    pub fn size_for(bytes: usize) -> usize {
        let want = (bytes / std::mem::size_of::<Entry>()).max(1024);
        let n = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        n * std::mem::size_of::<Entry>()
    }

    /// A table of at most `bytes` bytes (at least 1024 entries), zeroed.
    pub fn new(bytes: usize) -> Tt {
        let n = Self::size_for(bytes) / std::mem::size_of::<Entry>();
        Tt {
            entries: zeroed_entries(n),
            mask: n - 1,
            generation: 0,
        }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    /// Forget everything. The table is given back and taken anew rather than written
    /// over, so memory it no longer needs leaves the process at once.
    pub fn clear(&mut self) {
        let n = self.entries.len();
        self.entries = Vec::new();
        self.entries = zeroed_entries(n);
        self.generation = 0;
    }

    /// Start a new search (older entries become preferred victims).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// The entry `key` lives in.
    #[inline]
    fn slot(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    /// Ask the cache for `key`'s entry ahead of its `probe` (a hint: no effect on results).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let e: *const Entry = &self.entries[self.slot(key)];
            // SAFETY: a prefetch is only a hint to the cache; it reads nothing and cannot
            // fault, and `e` points into the table anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(e as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Look up `key`; mate values come back relative to `ply`.
    pub fn probe(&self, key: u64, ply: i32) -> Option<TtHit> {
        let e = &self.entries[self.slot(key)];
        if e.key != key || e.bound == Bound::None as u8 {
            return None;
        }
        let bound = match e.bound {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(TtHit {
            value: value_from_tt(e.value as Value, ply),
            depth: e.depth as Depth,
            bound,
            best: (e.best != NO_MOVE).then_some(Pos(e.best)),
        })
    }

    /// Store a result; mate values are made relative to the node.
    pub fn store(
        &mut self,
        key: u64,
        ply: i32,
        value: Value,
        depth: Depth,
        bound: Bound,
        best: Option<Pos>,
    ) {
        let gen = self.generation;
        let i = self.slot(key);
        let e = &mut self.entries[i];
        let replace = e.key != key
            || e.generation != gen
            || depth >= e.depth as Depth
            || bound == Bound::Exact;
        if !replace {
            return;
        }
        let keep_move = e.key == key && best.is_none();
        e.best = if keep_move {
            e.best
        } else {
            best.map_or(NO_MOVE, |p| p.0)
        };
        e.key = key;
        e.value = value_to_tt(value, ply) as i16;
        e.depth = depth.clamp(-100, 100) as i8;
        e.bound = bound as u8;
        e.generation = gen;
    }
}

fn value_to_tt(v: Value, ply: i32) -> Value {
    if v >= VALUE_MATE_BOUND {
        v + ply
    } else if v <= -VALUE_MATE_BOUND {
        v - ply
    } else {
        v
    }
}

fn value_from_tt(v: Value, ply: i32) -> Value {
    if v >= VALUE_MATE_BOUND {
        v - ply
    } else if v <= -VALUE_MATE_BOUND {
        v + ply
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::mate_in;

    #[test]
    fn store_probe_and_mate_adjust() {
        let mut tt = Tt::new(1 << 16);
        tt.store(42, 3, mate_in(7), 5, Bound::Exact, Some(Pos(17)));
        let hit = tt.probe(42, 5).unwrap();
        assert_eq!(hit.value, mate_in(9));
        assert_eq!(hit.best, Some(Pos(17)));
        assert!(tt.probe(43, 0).is_none());
        tt.clear();
        assert!(tt.probe(42, 5).is_none());
    }

    #[test]
    fn a_stored_bound_cuts_only_the_windows_it_settles() {
        let (alpha, beta) = (10, 20);
        for (value, bound) in [
            (25, Bound::Lower),
            (15, Bound::Exact),
            (5, Bound::Upper),
            (10, Bound::Upper),
        ] {
            assert_eq!(Bound::of(value, alpha, beta), bound, "{value}");
            let hit = |bound| TtHit {
                value,
                depth: 1,
                bound,
                best: None,
            };
            assert!(hit(bound).cuts(alpha, beta), "{value}");
            assert!(!hit(Bound::None).cuts(alpha, beta));
        }
        let lower = TtHit {
            value: 15,
            depth: 1,
            bound: Bound::Lower,
            best: None,
        };
        assert!(!lower.cuts(alpha, beta));
        assert!(lower.cuts(0, 15));
        let upper = TtHit {
            bound: Bound::Upper,
            ..lower
        };
        assert!(!upper.cuts(alpha, beta));
        assert!(upper.cuts(15, 30));
    }
}
