//! Speed figures: make/undo throughput, evaluation, move generation and search speed on the
//! bench positions. Run with `cargo bench`; each figure is printed with the work it counted.

use std::hint::black_box;
use std::time::Instant;
use wuzi::bench;
use wuzi::eval;
use wuzi::movegen;
use wuzi::search::{Limits, Searcher, Silent};

fn per_second(count: u64, start: Instant) -> u64 {
    (count as f64 / start.elapsed().as_secs_f64()) as u64
}

fn main() -> anyhow::Result<()> {
    let mut boards = bench::boards()?;

    // Make/undo: every candidate of every position, many rounds.
    let mut count = 0u64;
    let start = Instant::now();
    for _ in 0..200 {
        for b in &boards {
            let mut b = b.clone();
            let cells: Vec<_> = b
                .cells()
                .filter(|&p| b.is_empty(p) && b.is_near(p))
                .collect();
            for p in cells {
                b.make_move(p);
                b.undo();
                count += 1;
            }
            black_box(b.hash());
        }
    }
    println!(
        "make+undo: {} pairs/s ({count} pairs)",
        per_second(count, start)
    );

    // Evaluation.
    let start = Instant::now();
    let mut sum = 0i64;
    let rounds = 200_000u64;
    let n = boards.len();
    for i in 0..rounds {
        sum += eval::evaluate(black_box(&mut boards[i as usize % n])) as i64;
    }
    println!(
        "evaluate: {} calls/s (checksum {sum})",
        per_second(rounds, start)
    );

    // Move generation (with scoring and sorting).
    let start = Instant::now();
    let mut moves = 0u64;
    let rounds = 20_000u64;
    for i in 0..rounds {
        let mut b = boards[i as usize % boards.len()].clone();
        moves += movegen::generate(black_box(&mut b)).len() as u64;
    }
    println!(
        "generate: {} lists/s ({moves} moves)",
        per_second(rounds, start)
    );

    // Search speed on the bench positions at the default bench depth.
    let start = Instant::now();
    let mut nodes = 0u64;
    for b in &boards {
        let mut b = b.clone();
        let mut s = Searcher::new(16 << 20);
        let r = s.search(
            &mut b,
            Limits {
                max_depth: Some(bench::DEFAULT_DEPTH),
                ..Limits::default()
            },
            &mut Silent,
        );
        nodes += r.nodes;
    }
    assert!(nodes > 0, "search visited no nodes");
    println!(
        "search: {} nodes/s ({nodes} nodes)",
        per_second(nodes, start)
    );
    Ok(())
}
