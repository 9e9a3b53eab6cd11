//! The search: iterative-deepening principal variation search (`worker`) on one or more
//! threads sharing one transposition table (`tt`), with a threat-space search (`vct`) at
//! the root and a clock (`time`).
//!
//! Threads follow the "lazy" scheme: every thread searches the same root position, and
//! what one learns reaches the others through the shared table. They search the same
//! iteration, and split the work of each node between them: a late move that another
//! thread is searching right now waits until the node's other moves are searched (`busy`).
//! The main thread owns the clock and the answer: a helper's finished iteration at least
//! as deep as the main thread's current one ends that iteration and becomes the main
//! thread's own, and the main thread starting an iteration ends a helper's shallower one,
//! so the answer comes from the deepest iteration any thread finished. When the main
//! thread stops, every helper stops.

mod busy;
mod history;
#[cfg(test)]
mod tactics;
pub mod time;
pub mod tt;
pub mod vct;
mod worker;

use crate::board::Board;
use crate::types::{Depth, Pos, Value};
use busy::Busy;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tt::Tt;
use worker::{Shared, Tables, Worker};

/// Deepest nominal depth of iterative deepening.
pub const MAX_DEPTH: Depth = 60;
/// Bytes of the table of positions in progress that a searcher on several threads keeps.
pub const BUSY_TABLE_BYTES: usize = busy::BYTES;

/// Most search threads a searcher runs.
pub const MAX_THREADS: usize = 256;
/// The threads this machine runs at once (its logical cores, as far as this process may
/// use them), at most `MAX_THREADS`: the most threads worth searching on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
}

/// Stack of a search thread: deep forced lines recurse far. Only the pages a search
/// touches become resident.
pub const STACK_BYTES: usize = 256 << 20;

/// When a search must end.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop starting new iterations after this much time.
    pub soft: Option<Duration>,
    /// Abort the search at this much time.
    pub hard: Option<Duration>,
    /// `soft` comes from the match clock: stop sooner once the best move is stable.
    pub match_bound: bool,
    /// Deepest iteration.
    pub max_depth: Option<Depth>,
    /// Abort after this many nodes.
    pub max_nodes: Option<u64>,
    /// Root moves to find the best of, each with its value and line (0 or 1: just the
    /// best move; more: YXNBEST, YXSEARCHDEFEND).
    pub multipv: usize,
    /// Root moves not to play (YXBLOCK), as long as another move is left.
    pub excluded: Vec<Pos>,
    /// Search a position with a single sensible move (a forced block) like any other, for
    /// its value: what people read (analysis, reviews, hints) needs it. Otherwise that
    /// move is played after one iteration, with the time kept for later.
    pub exact_value: bool,
}

/// One root move's value and line, from a finished iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct RootLine {
    pub value: Value,
    /// The move first, then the expected replies.
    pub pv: Vec<Pos>,
}

/// What one finished iteration found.
#[derive(Clone, Debug)]
pub struct IterationReport {
    pub depth: Depth,
    /// The deepest ply any node of this iteration reached.
    pub seldepth: i32,
    pub value: Value,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Pos>,
    /// With `Limits::multipv` above 1, the best root moves, best first; else the best.
    pub lines: Vec<RootLine>,
}

/// What happens to a root move during an iteration (for live displays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootEvent {
    /// The search of this root move starts, in an iteration of this depth.
    Enter(Pos, Depth),
    /// The search of this root move is over for this iteration.
    Leave(Pos),
    /// This root move is proven lost.
    Lost(Pos),
    /// This root move is the new best.
    Best(Pos),
}

/// Receives progress reports (the protocol turns them into MESSAGE lines).
pub trait Observer {
    fn iteration(&mut self, report: &IterationReport);
    /// A root move's progress; most observers need not know.
    fn root_event(&mut self, _event: RootEvent) {}
}

/// An observer that ignores everything (bench, tests).
pub struct Silent;
impl Observer for Silent {
    fn iteration(&mut self, _: &IterationReport) {}
}

/// The final answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Pos,
    pub value: Value,
    pub depth: Depth,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Pos>,
    /// The root lines of the last finished iteration, best first (see `IterationReport`).
    pub lines: Vec<RootLine>,
}

/// Search state that lives across moves: the shared table, each thread's ordering tables,
/// the thread count and the stop flag.
pub struct Searcher {
    tt: Tt,
    /// One per thread, the main thread's first; grown as threads are added.
    tables: Vec<Tables>,
    threads: usize,
    /// The moves the threads are searching, made when a second thread is first used.
    busy: Option<Busy>,
    stop: Arc<AtomicBool>,
}

impl Searcher {
    /// A single-threaded searcher with a TT of about `tt_bytes` bytes.
    pub fn new(tt_bytes: usize) -> Searcher {
        Searcher {
            tt: Tt::new(tt_bytes),
            tables: vec![Tables::new()],
            threads: 1,
            busy: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Replace the TT with one of about `tt_bytes` bytes (if the size changes).
    pub fn resize_tt(&mut self, tt_bytes: usize) {
        if Tt::size_for(tt_bytes) != self.tt.bytes() {
            // Free the old table before allocating the new one.
            self.tt = Tt::new(0);
            self.tt = Tt::new(tt_bytes);
        }
    }

    /// Search on `n` threads from the next search on (1 to `MAX_THREADS`).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, MAX_THREADS);
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forget everything learned (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.tables.iter_mut().for_each(Tables::clear);
    }

    /// The flag that aborts a running search when set.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Find a move for the side to move. The board must have an empty cell. With more
    /// than one thread, the helpers run while the main thread searches, and all have
    /// stopped when this returns.
    pub fn search(
        &mut self,
        board: &mut Board,
        limits: Limits,
        observer: &mut dyn Observer,
    ) -> SearchResult {
        let start = Instant::now();
        if let Some(hard) = limits.hard {
            // Back a fresh table's memory before the search, in up to half the time, so
            // that the search does not meet the page faults between its looks at the clock.
            self.tt.touch(start + hard / 2);
        }
        self.tt.new_search();
        while self.tables.len() < self.threads {
            self.tables.push(Tables::new());
        }
        self.tables.iter_mut().for_each(Tables::new_search);
        let busy = if self.threads > 1 {
            let busy = self.busy.get_or_insert_with(Busy::new);
            busy.clear();
            Some(&*busy)
        } else {
            None
        };
        let shared = Shared::new(&self.stop, busy, self.threads);
        let (tt, limits, shared) = (&self.tt, &limits, &shared);
        let (main_tables, helper_tables) = self.tables.split_first_mut().expect("one table");
        std::thread::scope(|scope| {
            for (i, tables) in helper_tables[..self.threads - 1].iter_mut().enumerate() {
                let mut board = board.clone();
                // A helper that cannot be started leaves the search to the others.
                let _ = std::thread::Builder::new()
                    .name(format!("search {}", i + 1))
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        Worker::new(i + 1, tt, tables, shared, limits, start)
                            .helper_search(&mut board);
                    });
            }
            let result =
                Worker::new(0, tt, main_tables, shared, limits, start).main_search(board, observer);
            shared.done.store(true, Ordering::Relaxed);
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Rule, VALUE_MATE_BOUND};

    fn middlegame() -> Board {
        crate::bench::setup(Rule::Freestyle, 15, 15, "7,7 8,8 8,6 6,8 9,7 6,6").unwrap()
    }

    #[test]
    fn a_node_limit_counts_every_threads_nodes() {
        const LIMIT: u64 = 100_000;
        for threads in [1, 2, 3] {
            let mut s = Searcher::new(1 << 20);
            s.set_threads(threads);
            let limits = Limits {
                max_nodes: Some(LIMIT),
                ..Limits::default()
            };
            let r = s.search(&mut middlegame(), limits, &mut Silent);
            // The main thread checks the limit at every node of its tree search, helpers
            // every 64 nodes; the root threat check counts its nodes when it is over. A
            // limit on the main thread's nodes alone would let the total reach `threads`
            // times it.
            let slack = 64 * threads as u64 + LIMIT / 50;
            assert!(
                (LIMIT..=LIMIT + slack).contains(&r.nodes),
                "{threads} threads: {r:?}"
            );
        }
    }

    #[test]
    fn a_small_node_limit_leaves_the_main_search_its_nodes() {
        // Black to move with many threats on both sides: the root threat check alone used
        // to spend 20000 nodes here, so that under a limit of 1000 or 5000 the search
        // ended past the limit without a single iteration, and played an unsearched move.
        let moves = "6,6 8,5 7,5 7,4 4,8 8,4 8,6 6,4 9,4 5,6 6,3 8,2 9,2 7,3 5,7 3,9 9,1 \
                     9,3 10,4 9,5 6,2 4,7 6,5 3,8 3,7 2,9 1,10";
        for limit in [1_000, 5_000, 60_000] {
            let mut board = crate::bench::setup(Rule::Freestyle, 15, 15, moves).unwrap();
            let mut s = Searcher::new(1 << 20);
            let limits = Limits {
                max_nodes: Some(limit),
                ..Limits::default()
            };
            let r = s.search(&mut board, limits, &mut Silent);
            assert!(r.nodes <= limit + limit / 50, "limit {limit}: {r:?}");
            assert!(r.depth >= 1, "limit {limit}: {r:?}");
        }
    }

    #[test]
    fn a_raised_stop_flag_ends_every_thread() {
        let mut s = Searcher::new(1 << 20);
        s.set_threads(4);
        s.stop_flag().store(true, Ordering::Relaxed);
        // No limit at all: only the flag can end this search, and it returns only when
        // every helper has ended.
        let r = s.search(&mut middlegame(), Limits::default(), &mut Silent);
        assert!(r.nodes < 1_000, "{r:?}");
    }

    #[test]
    fn threads_are_clamped_and_a_threaded_search_keeps_its_tables() {
        let mut s = Searcher::new(1 << 20);
        s.set_threads(0);
        assert_eq!(s.threads(), 1);
        s.set_threads(MAX_THREADS + 1);
        assert_eq!(s.threads(), MAX_THREADS);
        s.set_threads(2);
        let limits = Limits {
            max_depth: Some(4),
            ..Limits::default()
        };
        let r = s.search(&mut middlegame(), limits, &mut Silent);
        assert_eq!(r.depth, 4);
        assert!(r.value.abs() < VALUE_MATE_BOUND, "{r:?}");
        assert_eq!(s.tables.len(), 2);
    }

    #[test]
    fn a_win_found_by_a_fail_high_ends_the_search() {
        // Renju, black to move with a win in a dozen moves that the search first sees as
        // an ever higher value. Its root fails high again and again; widening the window
        // by the old margin each time, towards the exact length of the win, took 20
        // million nodes to finish depth 16. A fail high on a proven win now ends the
        // iteration, and each fail high in a row searches a ply shallower.
        let mut board = crate::bench::setup(
            Rule::Renju,
            15,
            15,
            "7,7 8,6 8,8 6,6 9,9 10,10 7,9 7,8 6,9 8,9 6,10 5,11",
        )
        .unwrap();
        let mut s = Searcher::new(16 << 20);
        let limits = Limits {
            max_depth: Some(16),
            max_nodes: Some(1_000_000),
            ..Limits::default()
        };
        let r = s.search(&mut board, limits, &mut Silent);
        assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
        assert!(r.nodes < 1_000_000, "{r:?}");
    }

    #[test]
    fn the_line_survives_a_table_too_small_to_hold_it() {
        // 1024 entries, overwritten many times over by a search of this size: the line
        // comes from the search itself, each move legal in turn.
        for threads in [1, 2] {
            let mut s = Searcher::new(0);
            s.set_threads(threads);
            let limits = Limits {
                max_depth: Some(9),
                ..Limits::default()
            };
            let mut board = middlegame();
            let r = s.search(&mut board, limits, &mut Silent);
            assert!(r.pv.len() >= 8, "{threads} threads: {r:?}");
            for &p in &r.pv {
                assert!(board.is_empty(p), "{r:?}");
                board.make_move(p);
            }
        }
    }
}
