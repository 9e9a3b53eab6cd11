//! One search thread: iterative deepening over principal variation search, with forced-move
//! pruning, static mate checks and a four-based (VCF) quiescence search. The main thread
//! reports and answers; helpers search the same position beside it and share what they
//! find through the transposition table.

use super::busy::Busy;
use super::history::History;
use super::tt::{Bound, Tt, TtHit};
use super::vct::Vct;
use super::{
    time, IterationReport, Limits, Observer, RootEvent, RootLine, SearchResult, Silent, MAX_DEPTH,
};
use crate::board::Board;
use crate::eval;
use crate::movegen::{self, MoveList, ScoredMove, Threat};
use crate::pattern::Pattern4;
use crate::rules;
use crate::types::{
    mate_in, mated_in, Color, Depth, Pos, Rule, Value, NUM_CELLS, VALUE_DRAW, VALUE_INFINITE,
    VALUE_MATE_BOUND,
};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Deepest ply the search goes to.
const MAX_PLY: i32 = 120;
/// Plies of four-making moves the quiescence search may chain.
const QS_MAX_FOURS: i32 = 12;
/// Poll the clock and the stop flag every this many nodes (a power of two): a fraction of
/// a millisecond.
/// Under a clock with part of the table still fresh memory (`Tt::touch` ran out of time)
/// a node can take a page fault of a millisecond or more, and the search polls at every
/// node instead.
const POLL_NODES: u64 = 64;
const _: () = assert!(POLL_NODES.is_power_of_two());
/// Reverse futility pruning: deepest depth and margin per ply (a ply less when the static
/// value is better than two plies before: an improving side is less likely to fall back
/// below beta).
const RFP_MAX_DEPTH: Depth = 6;
/// The margin was 40 a ply; at 55 the engine scored about 5 points more against Rapfi's
/// classical evaluator at 100000 nodes a move, compared game for game on each half of
/// `benches/openings-even-15.txt` (the README's "Measuring strength" gives the method).
const RFP_MARGIN: Value = 55;
/// Razoring (far below alpha: drop into the quiescence search): deepest depth and margin
/// per ply.
const RAZOR_MAX_DEPTH: Depth = 4;
const RAZOR_MARGIN: Value = 40;
/// Move-count pruning: moves searched at a node from the second ply on, by [quiet node]
/// and depth: 5·√d − 2 (at most 8) where either side has a threat in play, 15·√d − 12
/// (at most 32) elsewhere.
static LMP: once_cell::sync::Lazy<[[usize; 64]; 2]> = once_cell::sync::Lazy::new(|| {
    let count = |d: usize, a: f64, b: f64, most: usize| {
        ((a * (d as f64).sqrt() - b).round().max(1.0) as usize).min(most)
    };
    [
        std::array::from_fn(|d| count(d, 5.0, 2.0, 8)),
        std::array::from_fn(|d| count(d, 15.0, 12.0, 32)),
    ]
});
/// Likely fail high: a non-PV node whose estimate is at least this far above beta (per
/// ply of depth, and `FAIL_HIGH_THREAT_MARGIN` more where a threat must be answered)
/// searches its moves a ply shallower, all but those that make a four.
const FAIL_HIGH_MARGIN: Value = 10;
const FAIL_HIGH_THREAT_MARGIN: Value = 60;
/// Moves that make no shape for either side (not even an open two or a sleeping three)
/// are not searched below this depth once the node has a first move in hand.
const TRIVIAL_PRUNE_DEPTH: Depth = 4;
/// Internal iterative reduction: a node this deep with no TT move (so no tried best move
/// to search first) is searched one ply shallower.
const IIR_MIN_DEPTH: Depth = 4;
/// A PV node whose TT entry is shallower is searched a ply shallower for every
/// `PV_GAP_PLIES` plies of the difference, at most `PV_GAP_MAX`.
const PV_GAP_PLIES: Depth = 3;
const PV_GAP_MAX: Depth = 3;
/// Horizon extension: a non-PV node with no depth left where the opponent threatens to win
/// with threes (an open three, a four-three) is searched a ply deep instead of by the
/// quiescence search, which sees fours only; at most this many times on a line. Not on the
/// principal variation: extended there too, the search proved fewer of the forced wins
/// of `benches/forced-wins-15.txt` at the same node count. Not under renju either, where
/// it lost a win the search proves (`a_win_found_by_a_fail_high_ends_the_search`).
const HORIZON_EXTENSIONS: u8 = 2;
/// Ordering bonus for the move that last refuted the opponent's previous move.
const COUNTER_MOVE_BONUS: i32 = 40;
/// With several threads, a late move at a node this deep that another thread is
/// searching is put off until the node's other moves are searched (see `busy`).
const DEFER_MIN_DEPTH: Depth = 3;
/// Root threat check: attacker moves searched, and node budgets for our own win and for
/// each of the first `VCT_REFUTE_MOVES` root moves.
const VCT_DEPTH: i32 = 5;
const VCT_OWN_BUDGET: u64 = 20_000;
const VCT_REFUTE_MOVES: usize = 12;
/// Threat-check nodes allowed per millisecond of the hard limit (about 15% of the time).
const VCT_NODES_PER_MS: u64 = 20;
/// Under a node limit, the threat check's share of it: a twentieth (under a clock, the
/// check's 20 nodes a millisecond are 2% to 4% of the nodes the search visits).
const VCT_NODE_SHARE: u64 = 20;
/// Aspiration window half-width at the root, from depth `ASPIRATION_DEPTH`. Each failure
/// widens the margin by half; past `ASPIRATION_FULL` (a won position's value) the window
/// opens fully.
const ASPIRATION_DELTA: Value = 60;
const ASPIRATION_DEPTH: Depth = 5;
const ASPIRATION_FULL: Value = 5000;

/// See `research_depth`.
const RESEARCH_DEEPER_MARGIN: Value = 35;
const RESEARCH_DEEPER_PER_PLY: Value = 10;

/// Late-move reductions by depth and move number (from 1): 0.65·ln(d)·ln(m), rounded.
static LMR: once_cell::sync::Lazy<[[Depth; 64]; 64]> = once_cell::sync::Lazy::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = ((d as f64).ln() * (m as f64).ln() * 0.65).round() as Depth;
        }
    }
    t
});

/// Reduction of the late move number `i` (from 0) at a node of `depth` with `new_depth`
/// plies left for its children. Nodes that are or were on the principal variation (the
/// TT entry keeps the mark) reduce a ply less, and so does a refuter (one of
/// this ply's killers or the counter move), which failed high in a sibling position and is
/// likely to again. A move that is reduced at all is then reduced `history` plies less
/// (its history's `reduction_change`; negative: more), and if still reduced, a ply more
/// where the node is `worsening`: off the principal variation, with a static value no
/// better than two plies up.
fn late_move_reduction(
    depth: Depth,
    new_depth: Depth,
    i: usize,
    pv: bool,
    refuter: bool,
    history: Depth,
    worsening: bool,
) -> Depth {
    if depth < 3 {
        return 0;
    }
    let r = LMR[(depth as usize).min(63)][(i + 1).min(63)] - pv as Depth - refuter as Depth;
    let r = match r.clamp(0, new_depth - 1) {
        0 => 0,
        r => (r - history).clamp(0, new_depth - 1),
    };
    if r > 0 && worsening {
        (r + 1).min(new_depth - 1)
    } else {
        r
    }
}

/// The depth to search a late move again at when its search reduced by `r` plies (to
/// `new_depth - r`) returned `v` above `alpha`: a ply deeper than unreduced if `v` is far
/// above alpha (`RESEARCH_DEEPER_MARGIN`, and `RESEARCH_DEEPER_PER_PLY` more for each ply
/// it was reduced), a ply shallower if it barely beats the node's best so far (by less
/// than a unit a ply), unreduced otherwise. The caller searches again only if this is
/// deeper than the reduced search.
fn research_depth(v: Value, alpha: Value, best: Value, new_depth: Depth, r: Depth) -> Depth {
    let deeper = v > alpha + RESEARCH_DEEPER_MARGIN + RESEARCH_DEEPER_PER_PLY * r;
    let shallower = v < best + new_depth;
    new_depth + deeper as Depth - shallower as Depth
}

/// True if a non-PV node with estimate `eval` and `depth` plies to go is far enough above
/// `beta` to search its moves a ply shallower (`FAIL_HIGH_MARGIN`); `quiet` if it has no
/// threat to answer. Never against a mate bound.
fn likely_fail_high(eval: Value, beta: Value, depth: Depth, quiet: bool) -> bool {
    let threat_margin = if quiet { 0 } else { FAIL_HIGH_THREAT_MARGIN };
    beta.abs() < VALUE_MATE_BOUND && eval >= beta + FAIL_HIGH_MARGIN * depth + threat_margin
}

/// True if a stone at `p` would make no shape for either colour: not even an open two or
/// a sleeping three of its own, none of the opponent's stopped.
fn trivial(board: &Board, p: Pos) -> bool {
    board.p4(p, Color::Black) == Pattern4::None && board.p4(p, Color::White) == Pattern4::None
}

/// True if the main thread, holding `best`, takes a helper's finished iteration (depth,
/// move, value) as its own: not against a result it has proven, nor a proven loss (the
/// main thread's own move is then searched for the longest defence), nor a move its root
/// does not search (one its threat check dropped).
fn adoptable(best: &SearchResult, root: &[ScoredMove], f: &Finished) -> bool {
    best.value.abs() < VALUE_MATE_BOUND
        && f.value > -VALUE_MATE_BOUND
        && root.iter().any(|m| Some(&m.pos) == f.pv.first())
}

/// Quiet moves that refuted a sibling position: this ply's killers, and the move that last
/// refuted the opponent's previous move (the counter move). They are ordered early and
/// reduced less.
struct Refuters {
    killers: [Option<Pos>; 2],
    counter: Option<Pos>,
}

impl Refuters {
    fn contains(&self, p: Pos) -> bool {
        self.killers.contains(&Some(p)) || self.counter == Some(p)
    }
}

/// A thread's move-ordering knowledge, kept from one search to the next.
pub(super) struct Tables {
    history: History,
    killers: Vec<[Option<Pos>; 2]>,
    /// By the cell of the last move and the side to move: the quiet move that last
    /// refuted it.
    counter_moves: Vec<[Option<Pos>; 2]>,
}

impl Tables {
    pub(super) fn new() -> Tables {
        Tables {
            history: History::new(),
            killers: vec![[None; 2]; MAX_PLY as usize + 2],
            counter_moves: vec![[None; 2]; NUM_CELLS],
        }
    }

    /// Forget everything (new game).
    pub(super) fn clear(&mut self) {
        self.history.clear();
        self.new_search();
        self.counter_moves.iter_mut().for_each(|k| *k = [None; 2]);
    }

    /// Killers belong to one search's plies; the history fades.
    pub(super) fn new_search(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.age();
    }
}

/// What the threads of one search share besides the table.
pub(super) struct Shared<'a> {
    /// Set from outside to stop every thread at once.
    pub stop: &'a AtomicBool,
    /// Set by the main thread when it has its answer: the helpers stop.
    pub done: AtomicBool,
    /// Nodes the helpers have searched.
    pub helper_nodes: AtomicU64,
    /// The main thread's nodes, as of its last poll (for the helpers' node limit).
    pub main_nodes: AtomicU64,
    /// The deepest iteration a helper has finished.
    pub deepest: std::sync::Mutex<Option<Finished>>,
    /// The root moves the main thread's threat check kept, once it has run.
    pub root_kept: std::sync::OnceLock<Vec<Pos>>,
    /// The depth of `deepest` (0 for none), to read without the lock.
    pub deepest_depth: AtomicI32,
    /// The depth of the main thread's current iteration.
    pub main_depth: AtomicI32,
    /// The moves being searched, when there is more than one thread.
    pub busy: Option<&'a Busy>,
    /// The number of threads searching.
    pub threads: usize,
}

impl Shared<'_> {
    pub(super) fn new<'a>(
        stop: &'a AtomicBool,
        busy: Option<&'a Busy>,
        threads: usize,
    ) -> Shared<'a> {
        Shared {
            stop,
            done: AtomicBool::new(false),
            helper_nodes: AtomicU64::new(0),
            main_nodes: AtomicU64::new(0),
            deepest: std::sync::Mutex::new(None),
            root_kept: std::sync::OnceLock::new(),
            deepest_depth: AtomicI32::new(0),
            main_depth: AtomicI32::new(0),
            busy,
            threads: threads.max(1),
        }
    }
}

/// A helper's finished iteration: its depth, value and line (best move first).
#[derive(Clone, Debug)]
pub(super) struct Finished {
    pub depth: Depth,
    pub value: Value,
    pub pv: Vec<Pos>,
}

/// How a node starts (see `Worker::enter`).
enum Entry {
    /// The node's value is known.
    Done(Value),
    /// The opponent's four leaves one reply.
    Forced(Pos),
    /// Search on, facing this threat.
    Open(Threat),
}

/// One thread's search. Thread 0 is the main thread: it owns the clock, the node limit,
/// the reports and the answer. Helpers (1 and up) stop when it is done.
pub(super) struct Worker<'a> {
    id: usize,
    tt: &'a Tt,
    tables: &'a mut Tables,
    shared: &'a Shared<'a>,
    limits: &'a Limits,
    start: Instant,
    /// The search polls the clock and the stop flag when `nodes & poll_mask` is 0 (a
    /// mask rather than a count: no division at every node).
    poll_mask: u64,
    /// Nodes this thread searched.
    nodes: u64,
    /// Of those, the nodes already added to `Shared::helper_nodes`.
    flushed: u64,
    /// The deepest ply reached in this iteration.
    seldepth: i32,
    aborted: bool,
    /// Main thread: a helper's finished iteration at least this deep ends the current
    /// iteration at the next poll (none: nothing does). Helper: the main thread's
    /// iteration this deep does. And whether one did (`superseded`, with `aborted`).
    supersede_at: Option<Depth>,
    superseded: bool,
    /// By ply: the best line found from the PV node searched last at that ply (empty for
    /// other nodes). The table cannot be relied on for it: other positions, from this
    /// thread or another, may take its entries.
    pv: Vec<Vec<Pos>>,
    /// The line of the last root move that raised alpha, that move first.
    root_pv: Vec<Pos>,
    /// By ply: the static value of the node searched last at that ply, from its side to
    /// move's view (`None` where the node took none: a forced reply, a static result).
    evals: Vec<Option<Value>>,
    /// By ply: horizon extensions on the line down to that node, itself included.
    horizon: Vec<u8>,
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        id: usize,
        tt: &'a Tt,
        tables: &'a mut Tables,
        shared: &'a Shared<'a>,
        limits: &'a Limits,
        start: Instant,
    ) -> Worker<'a> {
        Worker {
            id,
            tt,
            tables,
            shared,
            limits,
            start,
            poll_mask: if limits.hard.is_some() && !tt.touched() {
                0
            } else {
                POLL_NODES - 1
            },
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            aborted: false,
            supersede_at: None,
            superseded: false,
            pv: vec![Vec::new(); MAX_PLY as usize + 2],
            root_pv: Vec::new(),
            evals: vec![None; MAX_PLY as usize + 2],
            horizon: vec![0; MAX_PLY as usize + 2],
        }
    }

    /// The main thread's search: the root threat check, then iterative deepening with
    /// reports to `observer`, within the limits. Its answer is the search's.
    pub(super) fn main_search(
        &mut self,
        board: &mut Board,
        observer: &mut dyn Observer,
    ) -> SearchResult {
        let mut root = root_moves(board, &self.limits.excluded);
        let multipv = self.limits.multipv.clamp(1, root.len());
        let us = board.side_to_move();
        let quick = if board.p4(root[0].pos, us) == Pattern4::AFive {
            // `root_moves` gives a winning move alone.
            Some((root[0].pos, 1))
        } else if root.len() > 1 && multipv == 1 {
            // With several lines wanted, every root move gets searched instead.
            let win = self.threat_check(board, &mut root);
            // Helpers drop the moves the check dropped from their next iteration on.
            let _ = self
                .shared
                .root_kept
                .set(root.iter().map(|m| m.pos).collect());
            win
        } else {
            None
        };
        if let Some((p, plies)) = quick {
            let report = IterationReport {
                depth: 0,
                seldepth: plies,
                value: mate_in(plies),
                nodes: self.total_nodes(),
                elapsed: self.start.elapsed(),
                pv: vec![p],
                lines: vec![RootLine {
                    value: mate_in(plies),
                    pv: vec![p],
                }],
            };
            observer.iteration(&report);
            return SearchResult {
                best: p,
                value: report.value,
                depth: 0,
                nodes: self.total_nodes(),
                elapsed: report.elapsed,
                pv: report.pv,
                lines: report.lines,
            };
        }
        let mut best = SearchResult {
            best: root[0].pos,
            value: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: vec![root[0].pos],
            lines: Vec::new(),
        };
        // Each line's value in the last iteration, for its aspiration window.
        let mut previous: Vec<Value> = vec![0; multipv];
        // A won or forced position needs no search beyond the first iteration.
        let max_depth = self
            .limits
            .max_depth
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH);
        let mut unchanged = 0;
        // With one line wanted, a helper's finished iteration at least as deep as this
        // thread's current one replaces it (`supersede_at`); `refused` is the deepest
        // helper result this thread would not take.
        let mut refused = 0;
        let mut depth = 0;
        while depth < max_depth {
            depth += 1;
            // The last finished iteration's move and value.
            let (previous_best, previous_value) = (best.best, best.value);
            // Not against a result this thread has proven.
            let open = multipv == 1 && best.value.abs() < VALUE_MATE_BOUND;
            let helper = self.deepest_helper(depth.max(refused + 1)).filter(|_| open);
            match helper {
                Some(f) if adoptable(&best, &root, &f) => {
                    depth = f.depth;
                    previous[0] = f.value;
                    self.adopt(board, &mut root, &mut best, f);
                    self.report(&best, depth, observer);
                }
                _ => {
                    if let Some(f) = helper {
                        refused = f.depth;
                    }
                    self.supersede_at = Some(depth.max(refused + 1)).filter(|_| open);
                    if !self.iterate(board, &mut root, depth, &mut previous, &mut best, observer) {
                        if !self.superseded || best.value >= VALUE_MATE_BOUND {
                            // Stopped (a win the unfinished iteration proved stands).
                            break;
                        }
                        // A helper finished this depth first: take its result instead.
                        (best.best, best.value) = (previous_best, previous_value);
                        self.aborted = false;
                        self.superseded = false;
                        depth -= 1;
                        continue;
                    }
                }
            }
            unchanged = if depth > 1 && best.best != previous_best {
                0
            } else {
                unchanged + 1
            };
            if self.iteration_ends_search(best.value, depth, root.len(), unchanged) {
                break;
            }
        }
        // A helper that finished a deeper iteration than this thread knows better.
        if let Some(f) = self.deepest_helper(best.depth + 1) {
            if multipv == 1 && adoptable(&best, &root, &f) {
                self.adopt(board, &mut root, &mut best, f);
            }
        }
        best.nodes = self.total_nodes();
        best.elapsed = self.start.elapsed();
        best
    }

    /// One iteration of the main thread: each wanted line in turn, each in an aspiration
    /// window around its value in `previous`. Returns false if it was cut short (by a
    /// stop, a limit, or a helper that finished it first); the best move found so far is
    /// then in `best` all the same.
    fn iterate(
        &mut self,
        board: &mut Board,
        root: &mut [ScoredMove],
        depth: Depth,
        previous: &mut [Value],
        best: &mut SearchResult,
        observer: &mut dyn Observer,
    ) -> bool {
        self.shared.main_depth.store(depth, Ordering::Relaxed);
        self.seldepth = 0;
        let mut lines = Vec::with_capacity(previous.len());
        // Line k is the best of the root moves from k on; the search moves it to k.
        for k in 0..previous.len() {
            let (value, iter_best) =
                self.aspirated(board, &mut root[k..], depth, previous[k], observer);
            if k == 0 {
                if let Some((pos, v)) = iter_best {
                    best.best = pos;
                    best.value = v;
                }
            }
            if self.aborted {
                return false;
            }
            previous[k] = value;
            lines.push(RootLine {
                value,
                pv: self.extract_pv(board, root[k].pos),
            });
        }
        lines.sort_by_key(|l| std::cmp::Reverse(l.value));
        best.value = lines[0].value;
        best.best = lines[0].pv[0];
        best.depth = depth;
        best.pv = lines[0].pv.clone();
        best.nodes = self.total_nodes();
        best.lines = lines;
        self.report(best, self.seldepth, observer);
        true
    }

    /// Report `best` as the latest finished iteration.
    fn report(&self, best: &SearchResult, seldepth: i32, observer: &mut dyn Observer) {
        observer.iteration(&IterationReport {
            depth: best.depth,
            seldepth,
            value: best.value,
            nodes: self.total_nodes(),
            elapsed: self.start.elapsed(),
            pv: best.pv.clone(),
            lines: best.lines.clone(),
        });
    }

    /// The deepest iteration a helper has finished, if it is at least `depth` deep.
    fn deepest_helper(&self, depth: Depth) -> Option<Finished> {
        if self.shared.deepest_depth.load(Ordering::Relaxed) < depth {
            return None;
        }
        let deepest = self
            .shared
            .deepest
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        deepest.clone().filter(|f| f.depth >= depth)
    }

    /// Take a helper's finished iteration as this thread's latest: its move goes first
    /// in `root` for the next iteration, and its line becomes this thread's.
    fn adopt(
        &mut self,
        board: &mut Board,
        root: &mut [ScoredMove],
        best: &mut SearchResult,
        f: Finished,
    ) {
        let p = f.pv[0];
        if let Some(i) = root.iter().position(|m| m.pos == p) {
            root[..=i].rotate_right(1);
        }
        self.root_pv = f.pv;
        best.best = p;
        best.value = f.value;
        best.depth = f.depth;
        best.pv = self.extract_pv(board, p);
        best.nodes = self.total_nodes();
        best.lines = vec![RootLine {
            value: f.value,
            pv: best.pv.clone(),
        }];
    }

    /// After an iteration of `depth` that found `value`: true if the search is over. A
    /// proven win needs no more iterations (a proven loss keeps searching for the longest
    /// defence while time lasts), a single legal move none at all (unless its value is
    /// wanted: `Limits::exact_value`); the clock decides the
    /// rest, given the iterations in a row the best move has not changed.
    fn iteration_ends_search(
        &self,
        value: Value,
        depth: Depth,
        root_moves: usize,
        unchanged: u32,
    ) -> bool {
        if value >= VALUE_MATE_BOUND && depth >= 2 || root_moves == 1 && !self.limits.exact_value {
            return true;
        }
        match self.limits.soft {
            Some(soft) => {
                let hard = self.limits.hard.unwrap_or(Duration::MAX);
                let target = time::iteration_target(soft, hard, unchanged, self.limits.match_bound);
                self.start.elapsed() >= target
            }
            None => false,
        }
    }

    /// A helper's search: iterative deepening over every root move until the main thread
    /// is done, its results going to the shared table, and the best move of its deepest
    /// finished iteration to the main thread. A helper searches the main thread's current
    /// iteration (or its own next one, if it is ahead), and the threads split each node's
    /// late moves between them through `Shared::busy` rather than walk the same tree in
    /// step; whichever thread finishes the iteration first ends it for the others.
    pub(super) fn helper_search(&mut self, board: &mut Board) {
        let mut root = root_moves(board, &self.limits.excluded);
        let max_depth = self
            .limits
            .max_depth
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH);
        let (mut depth, mut previous) = (0, 0);
        loop {
            depth = (depth + 1).max(self.shared.main_depth.load(Ordering::Relaxed));
            if depth > max_depth {
                break;
            }
            if let Some(kept) = self.shared.root_kept.get() {
                if kept.len() < root.len() {
                    root.retain(|m| kept.contains(&m.pos));
                }
            }
            self.seldepth = 0;
            // The main thread past this depth ends this iteration: it is known.
            self.supersede_at = Some(depth + 1);
            let (value, found) = self.aspirated(board, &mut root, depth, previous, &mut Silent);
            if self.superseded {
                self.aborted = false;
                self.superseded = false;
                continue;
            }
            if self.aborted {
                break;
            }
            previous = value;
            // A helper's proven loss is not passed on: the main thread keeps its own
            // move, searched for the longest defence.
            if let Some((p, v)) = found.filter(|&(_, v)| v > -VALUE_MATE_BOUND) {
                let mut deepest = self
                    .shared
                    .deepest
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if deepest.as_ref().is_none_or(|f| depth > f.depth) {
                    // `root_pv` is the line of the move that last raised alpha: `p`.
                    let pv = if self.root_pv.first() == Some(&p) {
                        self.root_pv.clone()
                    } else {
                        vec![p]
                    };
                    *deepest = Some(Finished {
                        depth,
                        value: v,
                        pv,
                    });
                    self.shared.deepest_depth.store(depth, Ordering::Relaxed);
                }
            }
        }
        self.flush_nodes();
    }

    /// Before the main search: our own win by threats (its move and length) if one is
    /// found; otherwise drop root moves after which the opponent wins by threats (unless
    /// that drops them all).
    fn threat_check(&mut self, board: &mut Board, root: &mut MoveList) -> Option<(Pos, i32)> {
        // The full budgets, cut to a share of the time under a clock (about
        // `VCT_NODES_PER_MS` nodes per millisecond of the hard limit) and to a share of the
        // nodes under a node limit (which counts the check's nodes too; the main search
        // needs the rest).
        let by_clock = self
            .limits
            .hard
            .map(|h| h.as_millis() as u64 * VCT_NODES_PER_MS);
        let by_nodes = self.limits.max_nodes.map(|n| n / VCT_NODE_SHARE);
        let total = [by_clock, by_nodes]
            .into_iter()
            .flatten()
            .fold(VCT_OWN_BUDGET * 3, u64::min);
        let own_budget = total / 3;
        let deadline = self.limits.hard.map(|h| self.start + h);
        let refute_budget = (total - own_budget) / VCT_REFUTE_MOVES as u64;
        let mut v = Vct::stoppable(own_budget, self.shared.stop, deadline);
        let win = v.find_win(board, VCT_DEPTH);
        self.nodes += v.nodes();
        if let Some((p, plies)) = win {
            if root.iter().any(|m| m.pos == p) {
                return Some((p, plies));
            }
        }
        let mut keep = MoveList::new();
        for (i, &m) in root.iter().enumerate() {
            if i < VCT_REFUTE_MOVES {
                board.make_move(m.pos);
                let mut v = Vct::stoppable(refute_budget, self.shared.stop, deadline);
                let refuted = v.attacker_wins(board, VCT_DEPTH);
                self.nodes += v.nodes();
                board.undo();
                if refuted {
                    continue;
                }
            }
            keep.push(m);
        }
        if !keep.is_empty() {
            *root = keep;
        }
        None
    }

    /// One root iteration inside (alpha, beta). Returns the best value found (at most
    /// alpha on a fail low, at least beta on a fail high) and the move that raised alpha.
    fn root_search(
        &mut self,
        board: &mut Board,
        root: &mut [ScoredMove],
        depth: Depth,
        mut alpha: Value,
        beta: Value,
        observer: &mut dyn Observer,
    ) -> (Value, Option<(Pos, Value)>) {
        let alpha_orig = alpha;
        let mut best: Option<(Pos, Value)> = None;
        let mut best_value = -VALUE_INFINITE;
        for i in 0..root.len() {
            let m = root[i].pos;
            observer.root_event(RootEvent::Enter(m, depth));
            self.make(board, m);
            let v = if i == 0 {
                -self.search_node(board, -beta, -alpha, depth - 1, 1, true)
            } else {
                let mut v = -self.search_node(board, -alpha - 1, -alpha, depth - 1, 1, false);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.search_node(board, -beta, -alpha, depth - 1, 1, true);
                }
                v
            };
            board.undo();
            observer.root_event(RootEvent::Leave(m));
            if self.aborted {
                break;
            }
            // A fail-low value is an upper bound, so this low it is a proof.
            if v <= -VALUE_MATE_BOUND {
                observer.root_event(RootEvent::Lost(m));
            }
            best_value = best_value.max(v);
            if v > alpha {
                alpha = v;
                best = Some((m, v));
                self.root_pv.clear();
                self.root_pv.push(m);
                self.root_pv.extend_from_slice(&self.pv[1]);
                observer.root_event(RootEvent::Best(m));
                // Move the new best to the front for the next iteration.
                root[..=i].rotate_right(1);
                if v >= beta {
                    break;
                }
            }
        }
        if let Some((m, v)) = best {
            if v > alpha_orig && v < beta {
                self.tt
                    .store(board.hash(), 0, v, depth, Bound::Exact, Some(m), true);
            }
        }
        (best_value, best)
    }

    /// One iteration with an aspiration window around the previous value, widened on
    /// failure until the value is inside it. A fail high widens upwards from the value
    /// found and searches again a ply shallower (each fail high in a row one ply more): a
    /// position that keeps getting better is usually won, and the full-depth search of
    /// a won position's exact value can take a hundred times an iteration's nodes. A fail
    /// high on a proven win ends the iteration: the move wins, how fast does not matter.
    fn aspirated(
        &mut self,
        board: &mut Board,
        root: &mut [ScoredMove],
        depth: Depth,
        prev: Value,
        observer: &mut dyn Observer,
    ) -> (Value, Option<(Pos, Value)>) {
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_DEPTH && prev.abs() < VALUE_MATE_BOUND {
            (prev - delta, prev + delta)
        } else {
            (-VALUE_INFINITE, VALUE_INFINITE)
        };
        let mut found = None;
        let mut fail_highs = 0;
        loop {
            let d = (depth - fail_highs).max(1);
            let (v, best) = self.root_search(board, root, d, alpha, beta, observer);
            if best.is_some() {
                found = best;
            }
            if self.aborted {
                return (v, found);
            }
            if v <= alpha && alpha > -VALUE_INFINITE {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-VALUE_INFINITE);
                fail_highs = 0;
            } else if v >= beta && beta < VALUE_INFINITE && v < VALUE_MATE_BOUND {
                beta = (v + delta).min(VALUE_INFINITE);
                fail_highs += 1;
            } else {
                return (v, found);
            }
            delta += delta / 2;
            if delta > ASPIRATION_FULL {
                alpha = -VALUE_INFINITE;
                beta = VALUE_INFINITE;
            }
        }
    }

    /// Nodes searched so far by every thread (exact for the main thread's own nodes; the
    /// helpers' are added at each poll).
    fn total_nodes(&self) -> u64 {
        self.nodes + self.shared.helper_nodes.load(Ordering::Relaxed)
    }

    /// Add this helper's nodes since the last call to the shared count.
    fn flush_nodes(&mut self) {
        self.shared
            .helper_nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// True once the search must end: the stop flag, the main thread's limits, or (for a
    /// helper) the main thread's end.
    fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        let main = self.id == 0;
        if let Some(n) = self.limits.max_nodes.filter(|_| main) {
            if self.total_nodes() >= n {
                self.aborted = true;
            }
        }
        if self.nodes & self.poll_mask == 0 {
            if self.shared.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if main {
                if let Some(hard) = self.limits.hard {
                    if self.start.elapsed() >= hard {
                        self.aborted = true;
                    }
                }
                if self.limits.max_nodes.is_some() {
                    self.shared.main_nodes.store(self.nodes, Ordering::Relaxed);
                }
                let finished = self.shared.deepest_depth.load(Ordering::Relaxed);
                if !self.aborted && self.supersede_at.is_some_and(|d| finished >= d) {
                    self.aborted = true;
                    self.superseded = true;
                }
            } else {
                if self.shared.done.load(Ordering::Relaxed) {
                    self.aborted = true;
                }
                let main_depth = self.shared.main_depth.load(Ordering::Relaxed);
                if !self.aborted && self.supersede_at.is_some_and(|d| main_depth >= d) {
                    self.aborted = true;
                    self.superseded = true;
                }
                self.flush_nodes();
                // Helpers keep to the node limit too, so that they do not run past it
                // while the main thread is busy in its root threat check, and each to its
                // share of it: a main thread that the system runs less than the helpers
                // still searches at least its share, and the answer is its own (a helper
                // does not pass on a proven loss).
                if let Some(n) = self.limits.max_nodes {
                    let total = self.shared.helper_nodes.load(Ordering::Relaxed)
                        + self.shared.main_nodes.load(Ordering::Relaxed);
                    if total >= n || self.nodes >= n / self.shared.threads as u64 {
                        self.aborted = true;
                    }
                }
            }
        }
        self.aborted
    }

    /// Static outcomes every node checks first: own five, the opponent's double four, own
    /// open four. `Err(v)` ends the node with value `v`; `Ok(threat)` says what we face.
    fn mate_check(board: &mut Board, ply: i32) -> Result<Threat, Value> {
        let us = board.side_to_move();
        if board.p4_count(us, Pattern4::AFive) > 0 {
            return Err(mate_in(ply + 1));
        }
        if board.empty_count() == 0 {
            return Err(VALUE_DRAW);
        }
        let threat = movegen::threat(board);
        match threat {
            Threat::DoubleFour => return Err(mated_in(ply + 2)),
            Threat::Four(p) => {
                if !rules::is_legal(board, p, us) {
                    return Err(mated_in(ply + 2));
                }
            }
            _ => {
                if board.p4_count(us, Pattern4::BFlex4) > 0 {
                    return Err(mate_in(ply + 3));
                }
                // A four-three against a side that cannot make any four: the four forces the
                // block, then the three becomes an open four. Renju black's follow-up open
                // four might be forbidden, so that case is left to the search.
                let them = us.opp();
                if board.p4_count(us, Pattern4::CBlock4Flex3) > 0
                    && !(board.rule() == Rule::Renju && us == Color::Black)
                    && (Pattern4::EBlock4 as u8..=Pattern4::AFive as u8)
                        .all(|k| board.p4_count(them, Pattern4::from_u8(k)) == 0)
                {
                    return Err(mate_in(ply + 5));
                }
            }
        }
        Ok(threat)
    }

    /// What every node does first: count itself, check the budget and the static
    /// outcomes, and find a single forced reply.
    fn enter(&mut self, board: &mut Board, ply: i32) -> Entry {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.out_of_budget() {
            return Entry::Done(0);
        }
        let threat = match Self::mate_check(board, ply) {
            Ok(t) => t,
            Err(v) => return Entry::Done(v),
        };
        if ply >= MAX_PLY {
            return Entry::Done(eval::evaluate(board));
        }
        match threat {
            Threat::Four(p) => Entry::Forced(p),
            t => Entry::Open(t),
        }
    }

    fn search_node(
        &mut self,
        board: &mut Board,
        mut alpha: Value,
        mut beta: Value,
        depth: Depth,
        ply: i32,
        pv: bool,
    ) -> Value {
        self.pv[ply as usize].clear();
        self.evals[ply as usize] = None;
        let horizon_before = if ply > 0 {
            self.horizon[ply as usize - 1]
        } else {
            0
        };
        self.horizon[ply as usize] = horizon_before;
        if depth <= 0 && (horizon_before >= HORIZON_EXTENSIONS || pv || board.rule() == Rule::Renju)
        {
            return self.qsearch(board, alpha, beta, ply, 0);
        }
        let threat = match self.enter(board, ply) {
            Entry::Done(v) => return v,
            Entry::Forced(p) => {
                // A single forced reply: play it without spending depth.
                self.make(board, p);
                let v = -self.search_node(board, -beta, -alpha, depth, ply + 1, pv);
                board.undo();
                if pv {
                    self.set_pv(ply, p);
                }
                return v;
            }
            Entry::Open(t) => t,
        };
        if depth <= 0 && !threat.needs_defence() {
            return self.qsearch_open(board, alpha, beta, ply, 0);
        }
        let depth = if depth <= 0 {
            self.horizon[ply as usize] += 1;
            1
        } else {
            depth
        };
        // Mate distance pruning.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        let key = board.hash();
        let hit = self.tt.probe(key, ply);
        if let Some(h) = hit {
            if !pv && h.depth >= depth && h.cuts(alpha, beta) {
                return h.value;
            }
        }
        // A node on the principal variation now or before: its late moves are reduced less.
        let was_pv = pv || hit.is_some_and(|h| h.pv);
        let depth = match hit {
            // Internal iterative reduction.
            Some(TtHit { best: None, .. }) | None if depth >= IIR_MIN_DEPTH => depth - 1,
            // A PV node the table knows only from a much shallower search (the line has
            // just become principal) is searched shallower (see `PV_GAP_PLIES`).
            Some(h) if pv && ply > 0 && depth > 1 && h.best.is_some() => {
                depth - ((depth - h.depth) / PV_GAP_PLIES).clamp(0, PV_GAP_MAX)
            }
            _ => depth,
        };
        let us = board.side_to_move();
        let them = us.opp();
        // Quiet node: no threat to answer (see `movegen::threat`); an opponent's
        // double-three point alone does not make a node unquiet. Quiet nodes get reverse
        // futility and the wide move count.
        let quiet_node = threat == Threat::None;
        let static_eval = eval::evaluate(board);
        self.evals[ply as usize] = Some(static_eval);
        let improving = self.improving(ply);
        // The pruning below starts from the static value, or from the TT's value where that
        // is the better estimate (a mate value excepted).
        let eval = match hit {
            Some(h) if h.value.abs() < VALUE_MATE_BOUND && h.improves_on(static_eval) => h.value,
            _ => static_eval,
        };
        // Reverse futility: far above beta with nothing to fear, trust the estimate.
        if !pv
            && quiet_node
            && depth <= RFP_MAX_DEPTH
            && beta.abs() < VALUE_MATE_BOUND
            && eval - RFP_MARGIN * (depth - improving as Depth) >= beta
        {
            return eval;
        }
        // Razoring: far below alpha with nothing to answer, only fours can save the node.
        if !pv
            && threat == Threat::None
            && depth <= RAZOR_MAX_DEPTH
            && eval + RAZOR_MARGIN * depth <= alpha
            && alpha.abs() < VALUE_MATE_BOUND
        {
            return self.qsearch_open(board, alpha, beta, ply, 0);
        }
        let mut moves = if threat.needs_defence() {
            let d = movegen::defences(board);
            if d.is_empty() {
                // Open three: open four, then five. Four-three: four, block, open four, five.
                return mated_in(ply + if threat == Threat::FourThree { 6 } else { 4 });
            }
            d
        } else {
            movegen::generate(board)
        };
        let fail_high_expected = !pv && likely_fail_high(eval, beta, depth, quiet_node);
        let worsening = !pv && !improving;
        let refuters = self.refuters(board, ply);
        self.score_moves(board, &mut moves, hit.and_then(|h| h.best), &refuters);

        let alpha_orig = alpha;
        let mut best_value = -VALUE_INFINITE;
        let mut best_move = None;
        let move_limit = if ply < 2 {
            usize::MAX
        } else {
            LMP[quiet_node as usize][(depth as usize).min(63)]
        };
        let busy = self.shared.busy.filter(|_| depth >= DEFER_MIN_DEPTH);
        let mut picker = movegen::Picker::new(board, &moves).enumerate();
        // Moves put off because another thread was searching them, with their number in
        // the order; `picking` until the picker is done, then these.
        let mut deferred: SmallVec<[(usize, Pos); 8]> = SmallVec::new();
        // The quiet moves searched so far (the first 32), which a cutoff's move beat.
        let mut quiets_tried: SmallVec<[Pos; 32]> = SmallVec::new();
        let (mut picking, mut next_deferred) = (true, 0);
        loop {
            let (i, p) = if picking {
                match picker.next() {
                    // Move-count pruning: once a move that does not lose is in hand, the
                    // late moves are not searched (below the root's children, PV nodes
                    // included).
                    Some((i, m)) if i < move_limit || best_value <= -VALUE_MATE_BOUND => (i, m.pos),
                    _ => {
                        picking = false;
                        continue;
                    }
                }
            } else if let Some(&d) = deferred.get(next_deferred) {
                next_deferred += 1;
                d
            } else {
                break;
            };
            // A move that makes nothing and stops nothing, late and near the leaves.
            if i > 0
                && depth < TRIVIAL_PRUNE_DEPTH
                && best_value > -VALUE_MATE_BOUND
                && trivial(board, p)
            {
                continue;
            }
            // With one thread there is no table, and no key to work out.
            let child = busy.map(|busy| (busy, board.hash_after(p)));
            if let Some((busy, key)) = child {
                if picking && i > 0 && busy.contains(key) {
                    deferred.push((i, p));
                    continue;
                }
                busy.mark(key);
            }
            // Answers to an open three cost no depth (fours excepted, which would chain
            // for free): the attacker pays one ply per threat, so threat sequences are
            // seen twice as deep.
            let makes_four = board.p4(p, us).makes_four();
            let new_depth = if threat.needs_defence() && !makes_four {
                depth
            } else {
                depth - 1
            } - (fail_high_expected && !makes_four) as Depth;
            self.make(board, p);
            let mut v;
            if i == 0 {
                v = -self.search_node(board, -beta, -alpha, new_depth, ply + 1, pv);
            } else {
                // Late moves are searched shallower first.
                let r = late_move_reduction(
                    depth,
                    new_depth,
                    i,
                    was_pv,
                    refuters.contains(p),
                    self.tables.history.reduction_change(p, us),
                    worsening,
                );
                v = -self.search_node(board, -alpha - 1, -alpha, new_depth - r, ply + 1, false);
                if v > alpha && r > 0 && !self.aborted {
                    let d = research_depth(v, alpha, best_value, new_depth, r);
                    if d > new_depth - r {
                        v = -self.search_node(board, -alpha - 1, -alpha, d, ply + 1, false);
                    }
                }
                if v > alpha && v < beta && pv && !self.aborted {
                    v = -self.search_node(board, -beta, -alpha, new_depth, ply + 1, true);
                }
            }
            board.undo();
            if let Some((busy, key)) = child {
                busy.unmark(key);
            }
            if self.aborted {
                return 0;
            }
            // Quiet: no three or four made or stopped (the board is back as before `p`).
            let quiet_move =
                board.p4(p, us) < Pattern4::HFlex3 && board.p4(p, them) < Pattern4::EBlock4;
            if v > best_value {
                best_value = v;
                best_move = Some(p);
                if v > alpha {
                    alpha = v;
                    if pv {
                        self.set_pv(ply, p);
                    }
                    if v >= beta {
                        // Only quiet moves teach the history and killers.
                        if quiet_move {
                            self.reward(board, p, depth, ply, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if quiet_move && quiets_tried.len() < quiets_tried.inline_size() {
                quiets_tried.push(p);
            }
        }
        let bound = Bound::of(best_value, alpha_orig, beta);
        self.tt
            .store(key, ply, best_value, depth, bound, best_move, was_pv);
        best_value
    }

    /// Whether the static value at `ply` (already in `evals`) is better than at the same
    /// side's previous node on the line, two plies up.
    fn improving(&self, ply: i32) -> bool {
        match &self.evals[..=ply as usize] {
            [.., Some(before), _, Some(now)] => now > before,
            _ => false,
        }
    }

    /// Quiescence: stand pat on the static value, or extend with own fours (VCF).
    fn qsearch(
        &mut self,
        board: &mut Board,
        alpha: Value,
        beta: Value,
        ply: i32,
        fours: i32,
    ) -> Value {
        self.pv[ply as usize].clear();
        match self.enter(board, ply) {
            Entry::Done(v) => v,
            Entry::Forced(p) => {
                self.make(board, p);
                let v = -self.qsearch(board, -beta, -alpha, ply + 1, fours);
                board.undo();
                v
            }
            Entry::Open(_) => self.qsearch_open(board, alpha, beta, ply, fours),
        }
    }

    /// The quiescence search of a node already entered (nothing forced, no static result).
    /// Its results go to the TT at depth 0: four sequences transpose a lot.
    fn qsearch_open(
        &mut self,
        board: &mut Board,
        mut alpha: Value,
        beta: Value,
        ply: i32,
        fours: i32,
    ) -> Value {
        let key = board.hash();
        if let Some(h) = self.tt.probe(key, ply) {
            if h.depth >= 0 && h.cuts(alpha, beta) {
                return h.value;
            }
        }
        let alpha_orig = alpha;
        let stand = eval::evaluate(board);
        if stand >= beta || fours >= QS_MAX_FOURS {
            return stand;
        }
        alpha = alpha.max(stand);
        let us = board.side_to_move();
        // Attacks: four-threes and fours with a follow-up; plain fours on the first ply only.
        let wanted = |k: Pattern4| {
            k == Pattern4::CBlock4Flex3
                || k == Pattern4::DBlock4Plus
                || (k == Pattern4::EBlock4 && fours == 0)
        };
        let none = [
            Pattern4::CBlock4Flex3,
            Pattern4::DBlock4Plus,
            Pattern4::EBlock4,
        ]
        .into_iter()
        .all(|k| !wanted(k) || board.p4_count(us, k) == 0);
        if none {
            return stand;
        }
        let mut list = MoveList::new();
        for p in board.candidates() {
            let k = board.p4(p, us);
            if wanted(k) {
                list.push(movegen::ScoredMove {
                    pos: p,
                    score: k as i32 * 1000 + eval::move_score(board, p),
                });
            }
        }
        movegen::sort(board, &mut list);
        let mut best = stand;
        let mut best_move = None;
        for m in list {
            self.make(board, m.pos);
            let v = -self.qsearch(board, -beta, -alpha, ply + 1, fours + 1);
            board.undo();
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(m.pos);
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::of(best, alpha_orig, beta);
        self.tt.store(key, ply, best, 0, bound, best_move, false);
        best
    }

    /// Play `p`, asking the cache for the new position's TT entry first so that its
    /// probe finds it there.
    #[inline]
    fn make(&self, board: &mut Board, p: Pos) {
        self.tt.prefetch(board.hash_after(p));
        board.make_move(p);
    }

    /// Add the search's ordering knowledge to the moves' scores: the TT move first, then
    /// the node's refuters and history.
    fn score_moves(
        &self,
        board: &Board,
        moves: &mut MoveList,
        tt_move: Option<Pos>,
        refuters: &Refuters,
    ) {
        let us = board.side_to_move();
        for m in moves.iter_mut() {
            if Some(m.pos) == tt_move {
                m.score = i32::MAX;
            } else {
                if refuters.killers.contains(&Some(m.pos)) {
                    m.score += 60;
                }
                if refuters.counter == Some(m.pos) {
                    m.score += COUNTER_MOVE_BONUS;
                }
                m.score += self.tables.history.order_bonus(m.pos, us);
            }
        }
    }

    /// The killers of `ply` and the counter move stored for the opponent's last move.
    fn refuters(&self, board: &Board, ply: i32) -> Refuters {
        let counter = board.history().last().and_then(|&(last, _)| {
            self.tables.counter_moves[last.idx()][board.side_to_move().idx()]
        });
        Refuters {
            killers: self.tables.killers[ply as usize],
            counter,
        }
    }

    /// The quiet move `p` refuted the node at `ply`, after the quiet moves `tried`.
    fn reward(&mut self, board: &Board, p: Pos, depth: Depth, ply: i32, tried: &[Pos]) {
        let us = board.side_to_move();
        let c = us.idx();
        self.tables.history.cutoff(p, tried, us, depth);
        if let Some(&(last, _)) = board.history().last() {
            self.tables.counter_moves[last.idx()][c] = Some(p);
        }
        let k = &mut self.tables.killers[ply as usize];
        if k[0] != Some(p) {
            k[1] = k[0];
            k[0] = Some(p);
        }
    }

    /// The line at `ply`: `p`, then the line found at the next ply.
    fn set_pv(&mut self, ply: i32, p: Pos) {
        let (line, rest) = self.pv[ply as usize..]
            .split_first_mut()
            .expect("a ply in range");
        line.clear();
        line.push(p);
        line.extend_from_slice(&rest[0]);
    }

    /// The expected line after the root move `first` (at most 32 moves): the line the
    /// search found for it when it was last the best, then as far as the table's best
    /// moves lead.
    fn extract_pv(&self, board: &mut Board, first: Pos) -> Vec<Pos> {
        let found: &[Pos] = match self.root_pv.split_first() {
            Some((&p, rest)) if p == first => rest,
            _ => &[],
        };
        let mut pv = vec![first];
        board.make_move(first);
        while pv.len() < 32 && !rules::last_move_won(board) && board.empty_count() > 0 {
            // The search's own line first, then the table's best moves.
            let next = found
                .get(pv.len() - 1)
                .copied()
                .or_else(|| self.tt.probe(board.hash(), 0).and_then(|h| h.best));
            match next {
                Some(m) if board.on_board(m) && board.is_empty(m) => {
                    pv.push(m);
                    board.make_move(m);
                }
                _ => break,
            }
        }
        for _ in 0..pv.len() {
            board.undo();
        }
        pv
    }
}

/// Root moves: the winning move alone if there is one, the forced block alone, the
/// defences of an open three (all moves if none defends), else every candidate. Moves in
/// `excluded` are left out as long as any other candidate remains.
fn root_moves(board: &mut Board, excluded: &[Pos]) -> MoveList {
    let us = board.side_to_move();
    let mut all = movegen::generate(board);
    movegen::sort(board, &mut all);
    if all.iter().any(|m| !excluded.contains(&m.pos)) {
        all.retain(|m| !excluded.contains(&m.pos));
    }
    if let Some(m) = all.iter().find(|m| board.p4(m.pos, us) == Pattern4::AFive) {
        return std::iter::once(*m).collect();
    }
    match movegen::threat(board) {
        Threat::Four(p) => {
            if let Some(m) = all.iter().find(|m| m.pos == p) {
                return std::iter::once(*m).collect();
            }
        }
        Threat::OpenThree | Threat::FourThree => {
            let mut d = movegen::defences(board);
            d.retain(|m| !excluded.contains(&m.pos));
            if !d.is_empty() && board.p4_count(us, Pattern4::BFlex4) == 0 {
                movegen::sort(board, &mut d);
                return d;
            }
        }
        _ => {}
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::ScoredMove;

    fn unscored(cells: &[(usize, usize)]) -> MoveList {
        cells
            .iter()
            .map(|&(x, y)| ScoredMove {
                pos: Pos::new(x, y),
                score: 0,
            })
            .collect()
    }

    /// The main thread's answer to a quiet middlegame at depth 2, after a helper reported
    /// finishing `deepest`, and under `rule`.
    fn answer_with(deepest: Option<(Depth, Pos, Value)>, moves: &str) -> SearchResult {
        let deepest = deepest.map(|(depth, p, value)| Finished {
            depth,
            value,
            pv: vec![p],
        });
        let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, moves).unwrap();
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let shared = Shared::new(&stop, None, 1);
        let depth = deepest.as_ref().map_or(0, |f| f.depth);
        *shared.deepest.lock().unwrap() = deepest;
        shared.deepest_depth.store(depth, Ordering::Relaxed);
        let limits = Limits {
            max_depth: Some(2),
            ..Limits::default()
        };
        Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now())
            .main_search(&mut b, &mut Silent)
    }

    #[test]
    fn a_helpers_deeper_iteration_gives_the_answer() {
        let quiet = "7,7 8,8 8,6";
        let own = answer_with(None, quiet);
        assert_eq!(own.depth, 2);
        // A root move other than the main thread's choice, found best one ply deeper.
        let other = [Pos::new(6, 8), Pos::new(9, 7)]
            .into_iter()
            .find(|&p| p != own.best)
            .unwrap();
        for d in [2, 3] {
            // As deep as the main thread goes, it saves the main thread that iteration.
            let r = answer_with(Some((d, other, 40)), quiet);
            assert_eq!((r.best, r.value, r.depth), (other, 40, d));
            assert_eq!(r.pv[0], other);
        }
        // Not when it is proven lost, nor a cell the root does not search.
        for deepest in [(3, other, -VALUE_MATE_BOUND), (3, Pos::new(0, 0), 40)] {
            let r = answer_with(Some(deepest), quiet);
            assert_eq!((r.best, r.depth), (own.best, 2), "{deepest:?}");
        }
        // Nor against a proven result of the main thread's: black's open four wins.
        let won = "7,7 0,0 8,7 0,2 9,7 0,4";
        let r = answer_with(Some((9, Pos::new(5, 5), 40)), won);
        assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
    }

    #[test]
    fn a_helper_searches_only_the_root_moves_the_threat_check_kept() {
        let helper_choice = |kept: Option<Pos>| {
            let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, "7,7 8,8 8,6").unwrap();
            let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
            let shared = Shared::new(&stop, None, 1);
            let limits = Limits {
                max_depth: Some(3),
                ..Limits::default()
            };
            if let Some(p) = kept {
                shared.root_kept.set(vec![p]).unwrap();
            }
            Worker::new(1, &tt, &mut tables, &shared, &limits, Instant::now())
                .helper_search(&mut b);
            let deepest = shared.deepest.lock().unwrap().clone();
            deepest.expect("a finished iteration").pv[0]
        };
        let free = helper_choice(None);
        // Another root move, kept alone: the helper's answer though it is not the best.
        let other = [Pos::new(6, 8), Pos::new(9, 7)]
            .into_iter()
            .find(|&p| p != free)
            .unwrap();
        assert_eq!(helper_choice(Some(other)), other);
    }

    #[test]
    fn a_helper_finishing_the_current_iteration_ends_it_at_the_next_poll() {
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let (shared, limits) = (Shared::new(&stop, None, 1), Limits::default());
        let mut w = Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now());
        w.supersede_at = Some(4);
        shared.deepest_depth.store(3, Ordering::Relaxed);
        assert!(!w.out_of_budget());
        shared.deepest_depth.store(4, Ordering::Relaxed);
        assert!(w.out_of_budget() && w.superseded);
        // A stop is a stop, not a helper's iteration to take.
        let mut w = Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now());
        w.supersede_at = Some(4);
        stop.store(true, Ordering::Relaxed);
        assert!(w.out_of_budget() && !w.superseded);
    }

    #[test]
    fn a_helper_stops_at_its_share_of_a_node_limit() {
        // The main thread of a two-thread search has not run yet (as when the system runs
        // the helper first): the helper stops at half the limit, leaving the other half
        // to the main thread, not at the whole limit.
        const LIMIT: u64 = 40_000;
        let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, "7,7 8,8 8,6").unwrap();
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let shared = Shared::new(&stop, None, 2);
        let limits = Limits {
            max_nodes: Some(LIMIT),
            ..Limits::default()
        };
        Worker::new(1, &tt, &mut tables, &shared, &limits, Instant::now()).helper_search(&mut b);
        let helper = shared.helper_nodes.load(Ordering::Relaxed);
        // It looks at the limit every `POLL_NODES` nodes.
        assert!(
            (LIMIT / 2..LIMIT / 2 + POLL_NODES).contains(&helper),
            "{helper}"
        );
    }

    #[test]
    fn a_helper_behind_the_main_thread_drops_its_iteration() {
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let (shared, limits) = (Shared::new(&stop, None, 1), Limits::default());
        let mut w = Worker::new(1, &tt, &mut tables, &shared, &limits, Instant::now());
        // The helper is in iteration 3.
        w.supersede_at = Some(4);
        shared.main_depth.store(3, Ordering::Relaxed);
        assert!(!w.out_of_budget());
        shared.main_depth.store(4, Ordering::Relaxed);
        assert!(w.out_of_budget() && w.superseded);
    }

    #[test]
    fn a_move_another_thread_is_searching_is_searched_last_not_dropped() {
        // Black to move wins at (7,7) alone: two open threes at once.
        let moves = "5,7 0,0 6,7 0,14 7,5 14,0 7,6 14,14";
        let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, moves).unwrap();
        let win = Pos::new(7, 7);
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let busy = Busy::new();
        // Another thread is in every move, and the table puts another move first: the
        // winning move is put off behind all the others.
        let candidates = movegen::generate(&mut b);
        candidates
            .iter()
            .for_each(|m| busy.mark(b.hash_after(m.pos)));
        let first = candidates
            .iter()
            .map(|m| m.pos)
            .find(|&p| p != win)
            .unwrap();
        tt.store(b.hash(), 0, 0, 1, Bound::Exact, Some(first), false);
        let shared = Shared::new(&stop, Some(&busy), 2);
        let limits = Limits::default();
        let mut w = Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now());
        let depth = DEFER_MIN_DEPTH + 1;
        let v = w.search_node(&mut b, -VALUE_INFINITE, VALUE_INFINITE, depth, 0, true);
        assert!(v >= VALUE_MATE_BOUND, "{v}");
        assert_eq!(w.pv[0].first(), Some(&win));
    }

    #[test]
    fn a_refutation_is_tried_early_after_the_same_move_only() {
        let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, "7,7 8,8 6,6").unwrap();
        let (tt, mut tables, stop) = (Tt::new(1 << 16), Tables::new(), AtomicBool::new(false));
        let (shared, limits) = (Shared::new(&stop, None, 1), Limits::default());
        let mut s = Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now());
        // White refutes black's (6,6) with (5,5) at ply 2. The moves are scored at ply 4,
        // whose killers are empty.
        s.reward(&b, Pos::new(5, 5), 3, 2, &[]);
        let mut moves = unscored(&[(5, 5), (9, 9)]);
        s.score_moves(&b, &mut moves, None, &s.refuters(&b, 4));
        assert_eq!(moves[0].score - moves[1].score, COUNTER_MOVE_BONUS);
        // After another black move (5,5) is nothing special.
        b.undo();
        b.make_move(Pos::new(6, 8));
        let mut moves = unscored(&[(5, 5), (9, 9)]);
        s.score_moves(&b, &mut moves, None, &s.refuters(&b, 4));
        assert_eq!(moves[0].score, moves[1].score);
    }

    #[test]
    fn a_move_is_trivial_only_if_it_makes_and_stops_nothing() {
        let b = Board::from_diagram(
            "..........\n.OO.......\n..........\n..........\n....X.....\n..........\n..........",
            Rule::Freestyle,
            Color::Black,
        )
        .unwrap();
        // A knight's move from the black stone, on no line with any stone.
        assert!(trivial(&b, Pos::new(6, 5)));
        // Next to it: black's two.
        assert!(!trivial(&b, Pos::new(5, 4)));
        // Nothing for black there, but white would make a three.
        assert!(!trivial(&b, Pos::new(3, 1)));
    }

    /// The value of a node at ply 1 of the position after `moves` (on the principal
    /// variation if `pv`), searched `depth` deep (`None`: by the quiescence search) with a
    /// fresh table.
    fn node_value(moves: &str, pv: bool, depth: Option<Depth>) -> Value {
        let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, moves).unwrap();
        let (tt, mut tables, stop) = (Tt::new(1 << 20), Tables::new(), AtomicBool::new(false));
        let (shared, limits) = (Shared::new(&stop, None, 1), Limits::default());
        let mut w = Worker::new(0, &tt, &mut tables, &shared, &limits, Instant::now());
        let (alpha, beta) = (-VALUE_INFINITE, VALUE_INFINITE);
        match depth {
            Some(d) => w.search_node(&mut b, alpha, beta, d, 1, pv),
            None => w.qsearch(&mut b, alpha, beta, 1, 0),
        }
    }

    #[test]
    fn a_node_out_of_depth_facing_an_open_three_is_searched_a_ply_deep() {
        // White to move against black's open three (7,7 to 7,9): the quiescence search
        // sees fours only; off the principal variation, the node is searched as one a ply
        // deep.
        let three = "7,7 8,8 7,8 9,9 7,9";
        assert_eq!(
            node_value(three, false, Some(0)),
            node_value(three, false, Some(1))
        );
        assert_ne!(
            node_value(three, false, Some(0)),
            node_value(three, false, None)
        );
        // On it, or with nothing to answer: the quiescence search, as before.
        assert_eq!(
            node_value(three, true, Some(0)),
            node_value(three, true, None)
        );
        let quiet = "7,7 8,8 7,8 9,9 5,5";
        assert_eq!(
            node_value(quiet, false, Some(0)),
            node_value(quiet, false, None)
        );
    }

    #[test]
    fn a_node_likely_fails_high_only_far_above_beta() {
        // Depth 4: ten a ply above beta when quiet, sixty more facing a threat.
        assert!(likely_fail_high(140, 100, 4, true));
        assert!(!likely_fail_high(139, 100, 4, true));
        assert!(!likely_fail_high(199, 100, 4, false));
        assert!(likely_fail_high(200, 100, 4, false));
        // Never against a mate bound.
        assert!(!likely_fail_high(VALUE_INFINITE, VALUE_MATE_BOUND, 1, true));
    }

    #[test]
    fn a_refuter_is_reduced_a_ply_less_and_never_to_nothing() {
        // The 20th move at depth 8: 0.65 · ln 8 · ln 20 rounds to 4 plies.
        assert_eq!(late_move_reduction(8, 7, 19, false, false, 0, false), 4);
        assert_eq!(late_move_reduction(8, 7, 19, false, true, 0, false), 3);
        assert_eq!(late_move_reduction(8, 7, 19, true, true, 0, false), 2);
        // Shallow nodes are not reduced; a reduction leaves the child at least one ply.
        assert_eq!(late_move_reduction(2, 1, 40, false, false, 0, false), 0);
        assert_eq!(late_move_reduction(40, 2, 60, false, false, 0, false), 1);
        assert_eq!(late_move_reduction(40, 2, 60, false, true, 0, false), 1);
        // The move's history: two plies less, two more (within the same bounds), and a
        // move not reduced at all stays unreduced however bad its history.
        assert_eq!(late_move_reduction(8, 7, 19, false, false, 2, false), 2);
        assert_eq!(late_move_reduction(8, 7, 19, false, false, -2, false), 6);
        assert_eq!(late_move_reduction(8, 7, 19, false, false, -4, false), 6);
        assert_eq!(late_move_reduction(8, 7, 1, true, true, -2, false), 0);
        // A worsening node: a ply more, within the same bounds, and only for a move
        // reduced at all.
        assert_eq!(late_move_reduction(8, 7, 19, false, false, 0, true), 5);
        assert_eq!(late_move_reduction(8, 7, 19, false, false, -2, true), 6);
        assert_eq!(late_move_reduction(8, 7, 19, false, false, 4, true), 0);
        assert_eq!(late_move_reduction(8, 7, 1, true, true, 0, true), 0);
        assert_eq!(late_move_reduction(40, 2, 60, false, false, 0, true), 1);
    }

    #[test]
    fn a_reduced_move_that_fails_high_far_above_alpha_is_searched_deeper() {
        // Reduced by 2 to depth 3 of 5; alpha 100, best so far 100.
        let d = |v| research_depth(v, 100, 100, 5, 2);
        // Up to 35 + 2 · 10 above alpha: unreduced; beyond it, a ply deeper.
        assert_eq!(d(130), 5);
        assert_eq!(d(155), 5);
        assert_eq!(d(156), 6);
        // Above alpha by less than a unit a ply of depth left: a ply shallower.
        assert_eq!(d(101), 4);
        assert_eq!(d(105), 5);
        // The margin grows with the reduction.
        assert_eq!(research_depth(156, 100, 100, 5, 3), 5);
    }
}
