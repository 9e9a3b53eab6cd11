//! Time management: a soft target and a hard limit for one move from the protocol's limits.

use std::time::Duration;

/// The time-related settings a manager gives (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Per-move limit; `None` when the manager sets none, `Some(0)` to answer at once.
    pub turn_ms: Option<u64>,
    /// Whole-game limit; 0 = unlimited.
    pub match_ms: u64,
    /// Match time left; `None` when unknown or unlimited.
    pub left_ms: Option<i64>,
}

/// Per-move budget: stop starting iterations after `soft`, abort at `hard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
    /// The match clock, not the turn limit, set `soft`: time saved now is time later.
    pub match_bound: bool,
}

/// The soft target after an iteration, from the budget's `soft` and `hard`: half as long
/// again when the best move changed in the last iteration, half as long (match clock only)
/// once it has held for `STABLE_ITERATIONS` iterations, never past `hard`.
pub fn iteration_target(
    soft: Duration,
    hard: Duration,
    iterations_unchanged: u32,
    match_bound: bool,
) -> Duration {
    let target = if iterations_unchanged == 0 {
        soft * 3 / 2
    } else if match_bound && iterations_unchanged >= STABLE_ITERATIONS {
        soft / 2
    } else {
        soft
    };
    target.min(hard)
}

/// Iterations the best move must hold before a match-bound search may stop early.
const STABLE_ITERATIONS: u32 = 3;

/// Yixin-Board's "unlimited" analysis level sends these two limits: think until stopped.
const UNLIMITED_TURN_MS: u64 = 2_000_000;
const UNLIMITED_MATCH_MS: u64 = 100_000_000;

/// Per-move limit assumed when the manager gives no limit at all (the skeleton's default).
pub const DEFAULT_TURN_MS: u64 = 30_000;
/// Time kept back for pipe latency and process scheduling, per move.
const RESERVE_MS: u64 = 60;
/// The share of a per-move limit kept back (an eighth), between `RESERVE_MS` and
/// `MAX_TURN_RESERVE_MS`, and never less than a twentieth or more than a quarter. A manager
/// times a move from its write of the command to its read of the answer: on Windows (and
/// under Wine) the pipes and process scheduling take more of that than on Linux, and
/// the answer must still come within nine tenths of the limit.
const TURN_RESERVE_DIVISOR: u64 = 8;
const MAX_TURN_RESERVE_MS: u64 = 500;
/// The hard limit never exceeds this share of the time left.
const LEFT_HARD_DIVISOR: i64 = 7;
/// Under a match clock, the soft target is at most this percentage of the hard limit.
const SOFT_PERCENT: u64 = 60;
/// The soft target aims at this share of the time left.
const LEFT_SOFT_DIVISOR: i64 = 20;

/// Milliseconds of a per-move limit of `t` ms kept back for the answer's way to the manager.
fn turn_reserve(t: u64) -> u64 {
    (t / TURN_RESERVE_DIVISOR)
        .clamp(RESERVE_MS, MAX_TURN_RESERVE_MS)
        .max(t / 20)
        .min(t / 4)
}

impl TimeControl {
    /// The budget for the next move with `empties` empty cells left.
    pub fn budget(&self, empties: usize) -> Budget {
        let left = self.left_ms.filter(|&l| l < i32::MAX as i64);
        let mut hard = match (self.turn_ms, left) {
            (None, None) => DEFAULT_TURN_MS,
            (Some(t), _) => t.saturating_sub(turn_reserve(t)),
            (None, Some(_)) => u64::MAX,
        };
        let mut soft_left = None;
        if let Some(l) = left {
            let l = l.max(0);
            // Our own moves still to play, at most: half the empty cells.
            let to_go = (empties as i64 / 2).max(1);
            let hard_left = (l / LEFT_HARD_DIVISOR.min(to_go).max(1)) as u64;
            let soft_share = (l / LEFT_SOFT_DIVISOR.min(to_go).max(1)) as u64;
            hard = hard.min(hard_left.saturating_sub(RESERVE_MS));
            soft_left = Some(soft_share.saturating_sub(RESERVE_MS));
        }
        // Without a match clock, time this move does not use is lost: think until the hard
        // limit (a proven result or a single reply still ends the search sooner).
        let soft_turn = if left.is_none() && self.match_ms == 0 {
            hard
        } else {
            hard * SOFT_PERCENT / 100
        };
        let match_bound = soft_left.is_some_and(|s| s < soft_turn);
        let soft = soft_left.map_or(soft_turn, |s| s.min(soft_turn));
        Budget {
            soft: Duration::from_millis(soft),
            hard: Duration::from_millis(hard),
            match_bound,
        }
    }

    /// True when the move must be answered without searching.
    pub fn instant(&self) -> bool {
        self.turn_ms == Some(0)
    }

    /// True for Yixin-Board's analysis sentinels (`timeout_turn 2000000` with
    /// `timeout_match 100000000`): no time limit, the search runs until stopped.
    pub fn unlimited(&self) -> bool {
        self.turn_ms == Some(UNLIMITED_TURN_MS) && self.match_ms == UNLIMITED_MATCH_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(turn: Option<u64>, left: Option<i64>) -> TimeControl {
        TimeControl {
            turn_ms: turn,
            match_ms: 0,
            left_ms: left,
        }
    }

    #[test]
    fn budgets() {
        let b = tc(Some(1000), None).budget(200);
        assert_eq!(b.hard, Duration::from_millis(875));
        // A per-move limit alone: all of it may be used.
        assert_eq!(b.soft, b.hard);
        // A match clock, even one that does not bind yet: stop early when stable.
        let clocked = TimeControl {
            match_ms: 180_000,
            ..tc(Some(1000), None)
        }
        .budget(200);
        assert!(clocked.soft < clocked.hard);
        assert!(tc(Some(1000), Some(180_000)).budget(200).soft < b.hard);
        // Fastgame: 5 s per move, 120 s per game, little time left.
        let b = tc(Some(5000), Some(2000)).budget(300);
        assert!(b.hard <= Duration::from_millis(2000 / 7));
        // Unlimited match time is not a budget.
        let b = tc(Some(3000), Some(i32::MAX as i64)).budget(300);
        assert_eq!(b.hard, Duration::from_millis(3000 - turn_reserve(3000)));
        // Yixin-Board's analysis level is no limit; one of its two values alone is.
        let mut yixin = tc(Some(2_000_000), Some(100_000_000));
        yixin.match_ms = 100_000_000;
        assert!(yixin.unlimited());
        assert!(!tc(Some(2_000_000), None).unlimited());
        // Negative time left: answer quickly rather than never.
        let b = tc(None, Some(-50)).budget(100);
        assert_eq!(b.hard, Duration::ZERO);
        assert_eq!(
            tc(None, None).budget(225).hard,
            Duration::from_millis(30_000)
        );
        assert!(tc(Some(0), None).instant());
        // Per-move limits only: not bound by the match clock.
        assert!(
            !tc(Some(1000), Some(i32::MAX as i64))
                .budget(200)
                .match_bound
        );
        assert!(tc(Some(5000), Some(20_000)).budget(300).match_bound);
    }

    #[test]
    fn turn_reserves() {
        // A quarter of a short limit, an eighth from half a second, at most half a second
        // from 4 s, and a twentieth of a long one.
        for (turn, reserve) in [
            (0, 0),
            (100, 25),
            (200, 50),
            (480, 60),
            (1000, 125),
            (2000, 250),
            (5000, 500),
            (10_000, 500),
            (30_000, 1500),
        ] {
            assert_eq!(turn_reserve(turn), reserve, "turn {turn} ms");
        }
    }

    #[test]
    fn iteration_targets() {
        let ms = Duration::from_millis;
        let (soft, hard) = (ms(600), ms(1000));
        assert_eq!(iteration_target(soft, hard, 0, false), ms(900));
        assert_eq!(iteration_target(ms(800), hard, 0, true), hard);
        assert_eq!(iteration_target(soft, hard, 1, true), soft);
        assert_eq!(iteration_target(soft, hard, STABLE_ITERATIONS, false), soft);
        assert_eq!(
            iteration_target(soft, hard, STABLE_ITERATIONS, true),
            ms(300)
        );
    }
}
