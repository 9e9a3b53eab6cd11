//! Transposition table: one allocation, sized once, entries replaced by depth and age.
//!
//! Every search thread reads and writes the same table without locks. An entry is two
//! 64-bit words, its data and its key XOR-ed with that data; each word is written and read
//! whole (atomically). A reader that meets an entry half written by another thread (one
//! word new, one old) finds that the words no longer decode to its key, and takes it as a
//! miss: no thread ever acts on a torn entry.

use crate::types::{Depth, Pos, Value, VALUE_MATE_BOUND};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

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

/// One slot: `check` is the key XOR `data`; `data` packs the value (bits 0-15), best move
/// (16-31), depth (32-39), bound (40-47), generation (48-55) and the PV mark (56).
#[derive(Default)]
#[repr(C)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// The fields of an entry's data word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Data {
    value: i16,
    best: u16,
    depth: i8,
    bound: u8,
    generation: u8,
    pv: bool,
}

impl Data {
    fn pack(self) -> u64 {
        self.value as u16 as u64
            | (self.best as u64) << 16
            | (self.depth as u8 as u64) << 32
            | (self.bound as u64) << 40
            | (self.generation as u64) << 48
            | (self.pv as u64) << 56
    }

    fn unpack(w: u64) -> Data {
        Data {
            value: w as u16 as i16,
            best: (w >> 16) as u16,
            depth: (w >> 32) as u8 as i8,
            bound: (w >> 40) as u8,
            generation: (w >> 48) as u8,
            pv: (w >> 56) & 1 == 1,
        }
    }
}

impl Entry {
    /// The entry's data if it holds `key` (and was not torn by a concurrent write).
    #[inline]
    fn read(&self, key: u64) -> Option<Data> {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (check ^ data == key).then(|| Data::unpack(data))
    }

    #[inline]
    fn write(&self, key: u64, data: Data) {
        let w = data.pack();
        self.check.store(key ^ w, Ordering::Relaxed);
        self.data.store(w, Ordering::Relaxed);
    }
}

/// `n` empty entries from zeroed memory. The system hands out zeroed pages untouched, so
/// taking a large table is quick; the pages are backed when first written, by the search
/// or ahead of it by `Tt::touch`.
fn zeroed_entries(n: usize) -> Vec<Entry> {
    if n == 0 {
        return Vec::new();
    }
    let layout = std::alloc::Layout::array::<Entry>(n).expect("a table size that fits memory");
    // SAFETY: the layout is non-empty; `Entry` is `repr(C)` atomic integers, for which
    // all-zero bytes are a valid value (its `Default`); the pointer comes from the global
    // allocator with the layout of `n` entries, as `Vec::from_raw_parts` requires. The test
    // `a_new_table_is_empty_everywhere` reads every entry of a fresh table.
    let entries = unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Entry>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(ptr, n, n)
    };
    advise_huge_pages(&entries);
    entries
}

/// Ask Linux to back the table with 2 MiB pages where it can ("transparent huge pages" in
/// `madvise` mode): the first touch of each 2 MiB costs one page fault instead of 512,
/// which matters most when several threads fill a fresh table at once, and the searches'
/// random probes miss the address cache less. Only a hint: where it is refused, the table
/// works the same on small pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(entries: &[Entry]) {
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 4096;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = entries.as_ptr() as usize;
    let end = start + std::mem::size_of_val(entries);
    // madvise wants a page-aligned start; the pages it covers lie inside the table.
    let first = start.next_multiple_of(PAGE);
    if end > first + (2 << 20) {
        let len = (end - first) / PAGE * PAGE;
        // SAFETY: the range is whole pages inside the table's own allocation, and
        // MADV_HUGEPAGE changes neither the contents nor the validity of any memory there
        // (only how the kernel backs it); the return value is ignored because failure
        // leaves everything as it was. The test `a_large_table_reads_empty_and_keeps_what_it_stores`
        // reads and writes a table so advised.
        unsafe {
            madvise(first as *mut std::ffi::c_void, len, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &[Entry]) {}

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
    /// The node is or has been on the principal variation (the search carries the mark
    /// over when it stores the node again).
    pub pv: bool,
}

impl TtHit {
    /// True if the stored value is a better estimate than `guess`: an exact value, a lower
    /// bound above `guess` or an upper bound below it.
    pub fn improves_on(&self, guess: Value) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.value > guess,
            Bound::Upper => self.value < guess,
            Bound::None => false,
        }
    }

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
    /// Entries before this one lie in memory the system has already backed (`touch`).
    untouched: usize,
}

/// Entries in a 4 KiB page of memory.
const ENTRIES_PER_PAGE: usize = 4096 / std::mem::size_of::<Entry>();
/// Pages `touch` backs between two looks at the clock (about 0.1 ms of work).
const PAGES_PER_CLOCK_CHECK: usize = 64;

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
            untouched: 0,
        }
    }

    /// Have the system back the table's memory now, a page after another, until `until`
    /// (or until it is all backed). A fresh table is zeroed memory the system hands out
    /// only when first written, a page fault each time; a search that meets them takes
    /// them one by one between its looks at the clock, and backing a 2 MiB page can take
    /// a millisecond, so a search on a fresh table could overrun its time. Writes change
    /// nothing in the table, so this can resume at any later search.
    pub fn touch(&mut self, until: Instant) {
        while self.untouched < self.entries.len() && Instant::now() < until {
            let end =
                (self.untouched + PAGES_PER_CLOCK_CHECK * ENTRIES_PER_PAGE).min(self.entries.len());
            for e in self.entries[self.untouched..end]
                .iter_mut()
                .step_by(ENTRIES_PER_PAGE)
            {
                // A write that keeps the value: the page gets backed, the entry stays.
                // (`black_box` keeps the compiler from dropping a store of what is there;
                // an atomic `fetch_or(0)` would not do, x86 turns it into a plain read.)
                let data = e.data.get_mut();
                *data = std::hint::black_box(*data);
            }
            self.untouched = end;
        }
    }

    /// True once `touch` has backed the whole table.
    pub fn touched(&self) -> bool {
        self.untouched == self.entries.len()
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
        self.untouched = 0;
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
        let e = self.entries[self.slot(key)].read(key)?;
        let bound = match e.bound {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtHit {
            value: value_from_tt(e.value as Value, ply),
            depth: e.depth as Depth,
            bound,
            best: (e.best != NO_MOVE).then_some(Pos(e.best)),
            pv: e.pv,
        })
    }

    /// Store a result; mate values are made relative to the node, and `pv` is the mark
    /// `TtHit::pv` reads back. Other threads may store into the same slot at the same
    /// time: one of the writes wins, or the slot is left torn, which reads as empty.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        ply: i32,
        value: Value,
        depth: Depth,
        bound: Bound,
        best: Option<Pos>,
        pv: bool,
    ) {
        let generation = self.generation;
        let slot = &self.entries[self.slot(key)];
        let old = slot.read(key);
        if let Some(old) = old {
            let replace = old.generation != generation
                || depth >= old.depth as Depth
                || bound == Bound::Exact;
            if !replace {
                return;
            }
        }
        let best = match (best, old) {
            (None, Some(old)) => old.best,
            (p, _) => p.map_or(NO_MOVE, |p| p.0),
        };
        slot.write(
            key,
            Data {
                value: value_to_tt(value, ply) as i16,
                best,
                depth: depth.clamp(-100, 100) as i8,
                bound: bound as u8,
                generation,
                pv,
            },
        );
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
        tt.new_search();
        tt.store(42, 3, mate_in(7), 5, Bound::Exact, Some(Pos(17)), true);
        let hit = tt.probe(42, 5).unwrap();
        assert_eq!(hit.value, mate_in(9));
        assert_eq!(hit.best, Some(Pos(17)));
        assert!(hit.pv);
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
                pv: false,
            };
            assert!(hit(bound).cuts(alpha, beta), "{value}");
            assert!(!hit(Bound::None).cuts(alpha, beta));
        }
        let lower = TtHit {
            value: 15,
            depth: 1,
            bound: Bound::Lower,
            best: None,
            pv: false,
        };
        assert!(!lower.cuts(alpha, beta));
        assert!(lower.cuts(0, 15));
        // As an estimate: a lower bound beats a guess below it only.
        assert!(lower.improves_on(14) && !lower.improves_on(15) && !lower.improves_on(20));
        let upper = TtHit {
            bound: Bound::Upper,
            ..lower
        };
        assert!(!upper.cuts(alpha, beta));
        assert!(upper.cuts(15, 30));
        assert!(upper.improves_on(16) && !upper.improves_on(15) && !upper.improves_on(10));
        let exact = TtHit {
            bound: Bound::Exact,
            ..lower
        };
        assert!(exact.improves_on(0) && exact.improves_on(30));
    }

    #[test]
    fn a_new_table_is_empty_everywhere() {
        let tt = Tt::new(1 << 20);
        let n = tt.entries.len() as u64;
        // Key 0 is what a zeroed slot decodes to: it must still read as empty.
        for key in (0..n).chain([0, n << 20, u64::MAX]) {
            assert!(tt.probe(key, 0).is_none(), "{key}");
        }
    }

    #[test]
    fn a_large_table_reads_empty_and_keeps_what_it_stores() {
        // 16 MiB: large enough to be given huge pages.
        let mut tt = Tt::new(16 << 20);
        tt.new_search();
        let n = tt.entries.len() as u64;
        for key in (0..n).step_by(4099) {
            assert!(tt.probe(key, 0).is_none());
            tt.store(key, 0, (key % 1000) as Value, 3, Bound::Lower, None, false);
        }
        for key in (0..n).step_by(4099) {
            let hit = tt.probe(key, 0).unwrap();
            assert_eq!(
                (hit.value, hit.depth, hit.pv),
                ((key % 1000) as Value, 3, false)
            );
        }
    }

    #[test]
    fn touching_the_table_keeps_what_it_holds() {
        let mut tt = Tt::new(4 << 20);
        tt.new_search();
        let n = tt.entries.len() as u64;
        let keys = || (0..n).step_by(997);
        for key in keys() {
            tt.store(key, 0, (key % 1000) as Value, 5, Bound::Exact, None, false);
        }
        // A time already past: nothing is done.
        tt.touch(Instant::now());
        assert_eq!(tt.untouched, 0);
        tt.touch(Instant::now() + std::time::Duration::from_secs(3600));
        assert!(tt.touched());
        for key in keys() {
            let hit = tt.probe(key, 0).unwrap();
            assert_eq!((hit.value, hit.depth), ((key % 1000) as Value, 5), "{key}");
        }
        assert!(tt.probe(n + 1, 0).is_none());
        // Cleared, the table is fresh memory again.
        tt.clear();
        assert!(!tt.touched());
    }

    #[test]
    fn data_words_round_trip() {
        for d in [
            Data {
                value: -30000,
                best: NO_MOVE,
                depth: -100,
                bound: 1,
                generation: 255,
                pv: false,
            },
            Data {
                value: 12345,
                best: 1023,
                depth: 100,
                bound: 3,
                generation: 0,
                pv: true,
            },
        ] {
            assert_eq!(Data::unpack(d.pack()), d);
        }
    }

    /// Threads writing the same slots at once: a reader sees each entry whole, the data
    /// one writer stored with that key, never one writer's key with another's data.
    #[test]
    fn concurrent_writers_never_leave_a_torn_entry_that_reads_as_a_hit() {
        // A tiny table, so that the writers collide all the time.
        let mut tt = Tt::new(0);
        tt.new_search();
        let tt = &tt;
        // Each key's own value and move, recognisable from the key.
        let value_of = |key: u64| (key % 20_000) as Value;
        let move_of = |key: u64| Pos((key % 1000) as u16);
        let keys = |seed: u64| {
            let mut x = seed;
            std::iter::repeat_with(move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
        };
        let checked = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let checked = &checked;
                s.spawn(move || {
                    for key in keys(t * 7919 + 1).take(200_000) {
                        tt.store(
                            key,
                            0,
                            value_of(key),
                            1,
                            Bound::Exact,
                            Some(move_of(key)),
                            false,
                        );
                        // Read back a slot another thread is likely writing.
                        let other = key.rotate_left(17);
                        tt.store(
                            other,
                            0,
                            value_of(other),
                            1,
                            Bound::Exact,
                            Some(move_of(other)),
                            false,
                        );
                        if let Some(hit) = tt.probe(key, 0) {
                            assert_eq!(hit.value, value_of(key));
                            assert_eq!(hit.best, Some(move_of(key)));
                            checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        // The check ran on many hits (a table that always missed would prove nothing).
        assert!(checked.into_inner() > 10_000);
    }
}
