//! The protocol fuzzer: many short sessions against the `pbrain-wuzi` binary with random
//! and mutated command streams (garbage, control and non-UTF-8 bytes, NUL, lines of
//! 100 000 characters, huge and negative numbers, off-board and occupied cells, rejected
//! and truncated blocks, commands inside blocks, LF/CRLF mixes, writes split anywhere,
//! END and end of input mid-search). Each session checks that the engine never panics or
//! hangs, prints only clean protocol lines, answers every think command with exactly one
//! legal move, and keeps the game it was playing (see `session.rs`).
//!
//! `cargo test --test fuzz` runs a short run. Environment: `WUZI_FUZZ_SESSIONS` (default
//! 60), `WUZI_FUZZ_SEED` (default 1), `WUZI_FUZZ_FIRST` (index of the first session,
//! default 0), `WUZI_FUZZ_JOBS` (sessions at once, default 2). A failure names the
//! settings that replay its session alone.

#[allow(dead_code)]
#[path = "../engine.rs"]
mod engine;
mod lines;
// Shared with the transcript runner; its unit tests run there (this target has no test
// harness, so their imports would stand unused here).
#[allow(unused_imports)]
#[path = "../output_rules.rs"]
mod output_rules;
#[allow(dead_code)]
#[path = "../pattern.rs"]
mod pattern;
#[path = "../rng.rs"]
mod rng;
mod session;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use session::{Kind, Outcome};

/// I/O lines shown before a failure (used by `engine.rs`).
const CONTEXT_LINES: usize = 40;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, got {v:?}")),
        Err(_) => default,
    }
}

/// Session `index`'s kind and seed: the kinds take turns, the seed mixes in the index.
fn session_plan(base: u64, index: u64) -> (Kind, u64) {
    let kind = Kind::ALL[(index % Kind::ALL.len() as u64) as usize];
    let seed = rng::Rng::new(base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64();
    (kind, seed)
}

fn main() {
    lines::self_check();
    let sessions = env_u64("WUZI_FUZZ_SESSIONS", 60);
    let base = env_u64("WUZI_FUZZ_SEED", 1);
    let first = env_u64("WUZI_FUZZ_FIRST", 0);
    let jobs = env_u64("WUZI_FUZZ_JOBS", 2).max(1);
    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(first));
    let results: Arc<Mutex<Vec<(u64, Outcome)>>> = Arc::default();
    let workers: Vec<_> = (0..jobs)
        .map(|job| {
            let next = Arc::clone(&next);
            let results = Arc::clone(&results);
            thread::spawn(move || {
                let dir =
                    std::env::temp_dir().join(format!("wuzi-fuzz-{}-{job}", std::process::id()));
                let _ = std::fs::create_dir_all(&dir);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= first + sessions {
                        break;
                    }
                    let (kind, seed) = session_plan(base, index);
                    let outcome = session::run(kind, seed, &dir);
                    results.lock().unwrap().push((index, outcome));
                }
                let _ = std::fs::remove_dir_all(&dir);
            })
        })
        .collect();
    for w in workers {
        w.join().expect("fuzz worker");
    }
    let mut results = std::mem::take(&mut *results.lock().unwrap());
    results.sort_by_key(|(i, _)| *i);
    let (mut lines, mut bytes, mut failed) = (0, 0, 0);
    for (index, o) in &results {
        lines += o.lines;
        bytes += o.bytes;
        if let Some(why) = &o.failure {
            failed += 1;
            println!(
                "FAIL session {index} ({}; replay: WUZI_FUZZ_SEED={base} WUZI_FUZZ_FIRST={index} WUZI_FUZZ_SESSIONS=1):\n    {why}",
                o.kind.name()
            );
        }
    }
    let per_kind: Vec<String> = Kind::ALL
        .iter()
        .map(|k| {
            let n = results.iter().filter(|(_, o)| o.kind == *k).count();
            format!("{n} {}", k.name())
        })
        .collect();
    println!(
        "fuzz: {} sessions ({}), seed {base}, {lines} lines, {:.1} MB sent, {:.1} s",
        results.len(),
        per_kind.join(", "),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    println!("fuzz: {} passed, {failed} failed", results.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
