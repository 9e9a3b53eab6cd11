//! The run's configuration from `WUZI_REFEREE_*` environment variables, with defaults
//! that suit CI.

use std::path::PathBuf;

use crate::rules::Rule;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Engine-against-engine games judged by the referee.
    Games,
    /// Start-up and exit latencies.
    Startup,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub mode: Mode,
    /// The engine binary (`WUZI_REFEREE_ENGINE`, else the crate's `pbrain-wuzi`).
    pub engine: PathBuf,
    pub games: usize,
    /// Per-move limit range in ms; each game draws one uniformly from `lo..=hi`.
    pub turn_ms: (u64, u64),
    /// How far past the per-move limit an answer may arrive before it is a time fault:
    /// room for the test machine's own stalls. Managers allow far more (Piskvork and
    /// GomocupJudge 1000 ms by default); answers past the limit but within this are
    /// reported as late, and the closest margin is always measured to the limit itself.
    pub late_ms: u64,
    /// Match clock per engine and game in ms; 0 = none.
    pub match_ms: u64,
    pub rules: Vec<Rule>,
    /// Board sizes as (width, height).
    pub sizes: Vec<(usize, usize)>,
    /// Sent as `INFO max_memory`; 0 = not limited.
    pub memory: u64,
    /// Sent as `INFO thread_num`.
    pub threads: u64,
    pub seed: u64,
    /// Games played at once.
    pub jobs: usize,
    /// Start-up mode: processes measured.
    pub runs: usize,
}

pub const DEFAULT_SEED: u64 = 0x5EED_2026;

impl Config {
    pub fn from_env() -> Result<Config, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mode = match var("WUZI_REFEREE_MODE").as_deref().map(str::trim) {
            None | Some("games") => Mode::Games,
            Some("startup") => Mode::Startup,
            Some(other) => {
                return Err(format!(
                    "WUZI_REFEREE_MODE={other:?}: expected games or startup"
                ))
            }
        };
        let engine = var("WUZI_REFEREE_ENGINE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_pbrain-wuzi")));
        let number = |name: &str, default: u64| -> Result<u64, String> {
            var(name).map_or(Ok(default), |v| {
                parse_u64(&v).ok_or(format!("{name}={v:?}: expected a number"))
            })
        };
        let games = number("WUZI_REFEREE_GAMES", 12)? as usize;
        let turn_ms = match var("WUZI_REFEREE_TURN_MS") {
            // The default run is part of `cargo test` and CI, on a debug build that shares
            // a small machine: limits a little longer than the long runs' 50..100 ms.
            None => (100, 200),
            Some(v) => {
                parse_range(&v).ok_or(format!("WUZI_REFEREE_TURN_MS={v:?}: expected N or A..B"))?
            }
        };
        if turn_ms.0 == 0 || turn_ms.0 > turn_ms.1 {
            return Err(format!(
                "WUZI_REFEREE_TURN_MS: {}..{} is not a range of at least 1 ms",
                turn_ms.0, turn_ms.1
            ));
        }
        let late_ms = number("WUZI_REFEREE_LATE_MS", 50)?;
        let match_ms = number("WUZI_REFEREE_MATCH_MS", 0)?;
        let rules = match var("WUZI_REFEREE_RULES") {
            None => Rule::ALL.to_vec(),
            Some(v) => list(&v, |s| s.parse().ok().and_then(Rule::from_code)).ok_or(format!(
                "WUZI_REFEREE_RULES={v:?}: expected a comma list of 0, 1, 4, 8, 9"
            ))?,
        };
        let sizes = match var("WUZI_REFEREE_SIZES") {
            None => vec![(15, 15), (20, 20), (20, 15)],
            Some(v) => list(&v, parse_size).ok_or(format!(
                "WUZI_REFEREE_SIZES={v:?}: expected a comma list like 15,20,20x15 (5 to 32)"
            ))?,
        };
        let config = Config {
            mode,
            engine,
            games,
            turn_ms,
            late_ms,
            match_ms,
            rules,
            sizes,
            memory: number("WUZI_REFEREE_MEMORY", 0)?,
            threads: number("WUZI_REFEREE_THREADS", 1)?.max(1),
            seed: number("WUZI_REFEREE_SEED", DEFAULT_SEED)?,
            // One game at a time by default: a spare core keeps the timing honest.
            jobs: number("WUZI_REFEREE_JOBS", 1)?.max(1) as usize,
            runs: number("WUZI_REFEREE_RUNS", 20)?.max(1) as usize,
        };
        Ok(config)
    }
}

/// A decimal or `0x` hexadecimal number.
fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `N` or `A..B`.
fn parse_range(s: &str) -> Option<(u64, u64)> {
    match s.split_once("..") {
        Some((a, b)) => Some((parse_u64(a)?, parse_u64(b)?)),
        None => parse_u64(s).map(|n| (n, n)),
    }
}

/// `15` (square) or `20x15` (width x height), each side 5 to 32.
fn parse_size(s: &str) -> Option<(usize, usize)> {
    let (w, h) = match s.split_once(['x', 'X']) {
        Some((w, h)) => (w.trim().parse().ok()?, h.trim().parse().ok()?),
        None => {
            let n = s.parse().ok()?;
            (n, n)
        }
    };
    let ok = |n: usize| (5..=32).contains(&n);
    (ok(w) && ok(h)).then_some((w, h))
}

fn list<T>(s: &str, item: impl Fn(&str) -> Option<T>) -> Option<Vec<T>> {
    let items: Option<Vec<T>> = s.split(',').map(|p| item(p.trim())).collect();
    items.filter(|v| !v.is_empty())
}
