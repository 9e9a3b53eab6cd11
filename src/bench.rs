//! `bench`: fixed positions searched to a fixed depth with cleared tables, one line each,
//! then the total node count and a signature of every result. The same in every build.
//! With `--threads N` it measures speed instead: the same positions searched for a fixed
//! time on 1 to N threads, and the nodes per second of each thread count; or, with
//! `--to-depth D`, the time each thread count takes to finish depth D.

use crate::board::Board;
use crate::rules;
use crate::search::{Limits, SearchResult, Searcher, Silent};
use crate::types::{Depth, Pos, Rule};
use std::io::Write;
use std::time::{Duration, Instant};

/// Depth used when none is given.
pub const DEFAULT_DEPTH: Depth = 6;

/// TT size for bench (fixed so that results do not depend on options).
const BENCH_TT_BYTES: usize = 16 << 20;

/// (rule, width, height, moves from black, alternating).
const POSITIONS: &[(Rule, usize, usize, &str)] = &[
    (Rule::Freestyle, 15, 15, "7,7 8,8 8,6"),
    (
        Rule::Freestyle,
        15,
        15,
        "7,7 8,7 8,8 6,6 9,9 10,10 7,9 6,8 7,8 7,10 6,9 5,10",
    ),
    (
        Rule::Freestyle,
        15,
        15,
        "7,7 7,8 8,7 6,7 8,8 9,9 6,6 8,6 5,5 4,4 9,7 10,7 7,9",
    ),
    (
        Rule::Standard,
        15,
        15,
        "7,7 8,8 6,8 8,6 8,7 6,7 9,8 5,6 7,9 7,6 9,6 6,5",
    ),
    (
        Rule::Renju,
        15,
        15,
        "7,7 8,6 8,8 6,6 9,9 10,10 7,9 7,8 6,9 8,9 6,10 5,11",
    ),
    (
        Rule::Renju,
        15,
        15,
        "7,7 7,6 8,8 9,9 6,8 8,7 6,6 5,5 6,7 6,9 5,8 4,8",
    ),
    (
        Rule::Caro,
        15,
        15,
        "7,7 6,6 8,8 9,9 8,6 7,6 6,8 9,6 8,7 8,9 9,8",
    ),
    (
        Rule::CaroExact,
        15,
        15,
        "7,7 8,7 7,8 7,6 8,9 6,7 9,10 10,11 6,8",
    ),
    (
        Rule::Freestyle,
        20,
        20,
        "10,10 11,11 11,9 9,11 12,10 10,9 12,8 13,7 12,11",
    ),
    (
        Rule::Standard,
        20,
        20,
        "10,10 10,11 11,10 9,10 12,11 11,11 12,9 12,10 13,8 14,7",
    ),
];

/// The board after `moves` (from black, alternating), checked to be legal and undecided.
pub fn setup(rule: Rule, w: usize, h: usize, moves: &str) -> anyhow::Result<Board> {
    let mut b = Board::new(w, h, rule)?;
    for m in moves.split_whitespace() {
        let bad = || anyhow::anyhow!("bad move '{m}' (moves are x,y)");
        let (x, y) = m.split_once(',').ok_or_else(bad)?;
        let p = b.pos_at(x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?)?;
        anyhow::ensure!(b.is_empty(p), "move {m} is on a stone");
        b.make_move(p);
        anyhow::ensure!(
            !rules::last_move_won(&mut b),
            "the game is already won at {m}"
        );
    }
    Ok(b)
}

/// The boards of every bench position, with their rules.
pub fn boards() -> anyhow::Result<Vec<Board>> {
    POSITIONS
        .iter()
        .map(|&(rule, w, h, moves)| setup(rule, w, h, moves))
        .collect()
}

/// Result figures of a bench run.
pub struct BenchTotals {
    pub nodes: u64,
    pub signature: u64,
}

/// Search every position to `depth`; per-position lines and the totals go to `out`.
pub fn run(depth: Depth, out: &mut dyn Write) -> anyhow::Result<BenchTotals> {
    let mut nodes = 0u64;
    let mut sig: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| {
        for byte in v.to_le_bytes() {
            sig ^= byte as u64;
            sig = sig.wrapping_mul(0x100_0000_01b3);
        }
    };
    let start = Instant::now();
    for (i, &(rule, w, h, moves)) in POSITIONS.iter().enumerate() {
        let mut b = setup(rule, w, h, moves)?;
        let mut s = Searcher::new(BENCH_TT_BYTES);
        let r = s.search(
            &mut b,
            Limits {
                max_depth: Some(depth),
                ..Limits::default()
            },
            &mut Silent,
        );
        nodes += r.nodes;
        mix(r.nodes);
        mix(r.value as i64 as u64);
        mix(Pos::idx(r.best) as u64);
        writeln!(
            out,
            "position {:2} {:10} {}x{} best {} value {} nodes {}",
            i + 1,
            rule.name(),
            w,
            h,
            r.best,
            r.value,
            r.nodes
        )?;
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    writeln!(out, "Total time (ms): {ms}")?;
    writeln!(out, "Nodes/second: {}", nodes * 1000 / ms)?;
    writeln!(out, "Bench: {nodes}")?;
    writeln!(out, "Signature: {sig:016x}")?;
    Ok(BenchTotals {
        nodes,
        signature: sig,
    })
}

/// Nodes per second of each thread count, from 1 to `max_threads`: every position is
/// searched for `per_position` on a fresh table by each thread count in turn (so that a
/// busy spell of the machine touches every count alike). One line per thread count goes
/// to `out`, with its speed relative to one thread. Returns the speeds, one thread's first.
pub fn run_threads(
    max_threads: usize,
    per_position: Duration,
    out: &mut dyn Write,
) -> anyhow::Result<Vec<f64>> {
    let counts = max_threads.max(1);
    let mut nodes = vec![0u64; counts];
    let mut time = vec![Duration::ZERO; counts];
    for &(rule, w, h, moves) in POSITIONS {
        let board = setup(rule, w, h, moves)?;
        for t in 0..counts {
            let limits = Limits {
                soft: Some(per_position),
                hard: Some(per_position),
                ..Limits::default()
            };
            let r = fresh_search(&board, t + 1, limits);
            nodes[t] += r.nodes;
            time[t] += r.elapsed;
        }
    }
    let nps: Vec<f64> = (0..counts)
        .map(|t| nodes[t] as f64 / time[t].as_secs_f64().max(1e-3))
        .collect();
    for t in 0..counts {
        writeln!(
            out,
            "threads {:3}  nodes {:11}  time (ms) {:7}  nodes/second {:9.0}  ratio {:.2}",
            t + 1,
            nodes[t],
            time[t].as_millis(),
            nps[t],
            nps[t] / nps[0].max(1.0)
        )?;
    }
    Ok(nps)
}

/// Search `board` on `threads` threads with fresh tables.
fn fresh_search(board: &Board, threads: usize, limits: Limits) -> SearchResult {
    let mut s = Searcher::new(BENCH_TT_BYTES);
    s.set_threads(threads);
    s.search(&mut board.clone(), limits, &mut Silent)
}

/// Search every position to `depth` on 1 to `max_threads` threads and report the time
/// each thread count takes: the total, and the median over positions of its ratio to one
/// thread's time (returned per thread count; below 1 is faster). Positions one thread
/// finishes in under a millisecond are left out of the ratios.
pub fn time_to_depth(
    max_threads: usize,
    depth: Depth,
    out: &mut dyn Write,
) -> anyhow::Result<Vec<f64>> {
    let counts = max_threads.max(1);
    let mut times = vec![Vec::new(); counts];
    for &(rule, w, h, moves) in POSITIONS {
        let board = setup(rule, w, h, moves)?;
        for (t, list) in times.iter_mut().enumerate() {
            let limits = Limits {
                max_depth: Some(depth),
                ..Limits::default()
            };
            list.push(fresh_search(&board, t + 1, limits).elapsed);
        }
    }
    let mut medians = Vec::with_capacity(counts);
    for (t, list) in times.iter().enumerate() {
        let mut ratios: Vec<f64> = list
            .iter()
            .zip(&times[0])
            .filter(|(_, one)| one.as_secs_f64() >= 1e-3)
            .map(|(d, one)| d.as_secs_f64() / one.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let median = ratios.get(ratios.len() / 2).copied().unwrap_or(1.0);
        medians.push(median);
        writeln!(
            out,
            "threads {:3}  depth {depth}  time (ms) {:7}  median time ratio to 1 thread {:.2}",
            t + 1,
            list.iter().sum::<Duration>().as_millis(),
            median
        )?;
    }
    Ok(medians)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_legal_and_bench_is_repeatable() {
        for &(rule, w, h, moves) in POSITIONS {
            setup(rule, w, h, moves).unwrap();
        }
        let a = run(2, &mut Vec::new()).unwrap();
        let b = run(2, &mut Vec::new()).unwrap();
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.signature, b.signature);
        assert!(a.nodes > 0);
    }

    #[test]
    fn the_threaded_bench_reports_every_thread_count() {
        let mut out = Vec::new();
        let nps = run_threads(2, Duration::from_millis(20), &mut out).unwrap();
        assert_eq!(nps.len(), 2);
        assert!(nps.iter().all(|&n| n > 0.0));
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("threads   1 "), "{text}");
        assert!(text.contains("\nthreads   2 "), "{text}");
    }

    #[test]
    fn time_to_depth_reports_every_thread_count() {
        let mut out = Vec::new();
        let ratios = time_to_depth(2, 3, &mut out).unwrap();
        assert_eq!(ratios.len(), 2);
        assert_eq!(ratios[0], 1.0);
        assert!(ratios[1] > 0.0);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("threads   1  depth 3 "), "{text}");
        assert!(text.contains("\nthreads   2  depth 3 "), "{text}");
    }
}
