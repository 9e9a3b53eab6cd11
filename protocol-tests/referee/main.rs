//! The referee test target: Wuzi plays itself through the real pbrain protocol, as a
//! tournament manager runs it, and an independent referee (its own rules code, not the
//! `wuzi` crate) judges every move. Plain `std`, no test harness: `main` runs the rules
//! self-test, then the games (or the start-up measurements), prints the report and exits
//! non-zero on any forfeit or fault.
//!
//! Environment (defaults suit CI):
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `WUZI_REFEREE_MODE` | `games` or `startup` | `games` |
//! | `WUZI_REFEREE_ENGINE` | engine binary | the crate's `pbrain-wuzi` |
//! | `WUZI_REFEREE_GAMES` | games played | 12 |
//! | `WUZI_REFEREE_TURN_MS` | per-move limit `N`, or `A..B` drawn per game | `100..200` |
//! | `WUZI_REFEREE_LATE_MS` | how far past `timeout_turn` an answer may come before it is a time fault | 50 |
//! | `WUZI_REFEREE_MATCH_MS` | match clock per engine and game, 0 = none | 0 |
//! | `WUZI_REFEREE_RULES` | comma list of `INFO rule` values | `0,1,4,8,9` |
//! | `WUZI_REFEREE_SIZES` | comma list like `15,20,20x15` | `15,20,20x15` |
//! | `WUZI_REFEREE_MEMORY` | `INFO max_memory` bytes, 0 = not limited | 0 |
//! | `WUZI_REFEREE_THREADS` | `INFO thread_num` (each engine) | 1 |
//! | `WUZI_REFEREE_SEED` | seed of openings and limits | fixed |
//! | `WUZI_REFEREE_JOBS` | games at once | 1 |
//! | `WUZI_REFEREE_RUNS` | start-up mode: runs | 20 |
//!
//! Arguments: `--self-test` runs only the rules self-test; `--list` lists the target; a
//! name filter that does not match `referee` skips the run (so `cargo test some_test`
//! does not play games).

mod config;
mod game;
mod load;
mod memory;
mod process;
mod record;
mod report;
#[path = "../rng.rs"]
mod rng;
mod rules;
mod schedule;
mod self_test;
mod startup;

use std::collections::VecDeque;
use std::process::exit;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use config::{Config, Mode};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        println!("referee: test");
        return;
    }
    if let Some(filter) = args.iter().find(|a| !a.starts_with('-')) {
        if !"referee".contains(filter.as_str()) {
            println!("referee: skipped (filter {filter:?})");
            return;
        }
    }
    match self_test::run() {
        Ok(n) => println!("referee self-test: {n} rule checks passed"),
        Err(failures) => {
            for f in &failures {
                println!("referee self-test FAILED: {f}");
            }
            println!("referee: 0 passed, 1 failed");
            exit(1);
        }
    }
    if args.iter().any(|a| a == "--self-test") {
        return;
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("referee: bad configuration: {e}");
            exit(2);
        }
    };
    let ok = match config.mode {
        Mode::Games => run_games(&config),
        Mode::Startup => startup::run(&config),
    };
    if !ok {
        exit(1);
    }
}

/// Plays the scheduled games, `jobs` at a time, and prints the report.
fn run_games(config: &Config) -> bool {
    let started = Instant::now();
    let load_before = load::sample();
    let specs = schedule::games(config);
    let total = specs.len();
    let queue = Arc::new(Mutex::new(specs.into_iter().collect::<VecDeque<_>>()));
    let reports = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..config.jobs.min(total))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let reports = Arc::clone(&reports);
            let engine = config.engine.clone();
            thread::spawn(move || loop {
                let next = queue.lock().unwrap().pop_front();
                let Some(spec) = next else { break };
                let report = game::play(&spec, &engine);
                let mut reports = reports.lock().unwrap();
                reports.push(report);
                eprintln!(
                    "referee: game {} done ({}/{total})",
                    spec.number,
                    reports.len()
                );
            })
        })
        .collect();
    for w in workers {
        w.join().expect("game worker");
    }
    let mut reports = std::mem::take(&mut *reports.lock().unwrap());
    reports.sort_by_key(|r| r.spec.number);
    let load = load_before
        .zip(load::sample())
        .and_then(|(a, b)| load::shares(&a, &b));
    let summary = report::games(config, &reports, started.elapsed(), load);
    print!("{}", summary.text);
    summary.failed == 0 && summary.passed == total
}
