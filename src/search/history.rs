//! The history heuristic: by cell and side to move, how often a quiet move there has
//! refuted the position before it, as a score that orders quiet moves and changes how
//! much a late one is reduced.
//!
//! A cutoff by a quiet move adds a bonus of depth² to its cell and takes as much from the
//! quiet moves searched before it at the same node, which failed to refute it. Each update
//! is damped by the score already there ("gravity"): a score near the bound moves little
//! towards it and much away from it, so scores stay within ±`MAX` and keep telling the
//! moves apart however long the game runs. Each new search halves every score, so what the
//! last searches found counts most.

use crate::types::{Color, Depth, Pos, NUM_CELLS};

/// Scores stay within ±`MAX`.
const MAX: i32 = 1 << 14;
/// A cutoff's bonus: depth², at most this.
const MAX_BONUS: i32 = 1200;
/// Move-ordering weight: the score divided by this (so at most ±256, against killers'
/// 60 and pattern scores from a few to several thousand).
const ORDER_DIVISOR: i32 = 64;
/// Late-move reductions change by a ply for every this much score: a move that
/// often refutes is reduced up to two plies less, one that often fails up to two more.
const REDUCTION_DIVISOR: i32 = 8192;

/// By cell, then side to move.
pub(super) struct History {
    scores: Vec<[i32; 2]>,
}

impl History {
    pub(super) fn new() -> History {
        History {
            scores: vec![[0; 2]; NUM_CELLS],
        }
    }

    /// Forget everything (new game).
    pub(super) fn clear(&mut self) {
        self.scores.iter_mut().for_each(|s| *s = [0; 2]);
    }

    /// Halve every score (a new search).
    pub(super) fn age(&mut self) {
        self.scores.iter_mut().flatten().for_each(|s| *s /= 2);
    }

    pub(super) fn score(&self, p: Pos, c: Color) -> i32 {
        self.scores[p.idx()][c.idx()]
    }

    /// What the history adds to the ordering score of `p` for `c`.
    pub(super) fn order_bonus(&self, p: Pos, c: Color) -> i32 {
        self.score(p, c) / ORDER_DIVISOR
    }

    /// Plies less (negative: more) to reduce the late move `p` of `c` by.
    pub(super) fn reduction_change(&self, p: Pos, c: Color) -> Depth {
        self.score(p, c) / REDUCTION_DIVISOR
    }

    /// The quiet move `best` of `c` refuted its position at `depth`, after the quiet moves
    /// `tried` failed to.
    pub(super) fn cutoff(&mut self, best: Pos, tried: &[Pos], c: Color, depth: Depth) {
        let bonus = (depth * depth).min(MAX_BONUS);
        gravity(&mut self.scores[best.idx()][c.idx()], bonus);
        for q in tried {
            gravity(&mut self.scores[q.idx()][c.idx()], -bonus);
        }
    }
}

/// Add `bonus` to `score`, damped by how far `score` already is towards the bonus's side.
fn gravity(score: &mut i32, bonus: i32) {
    *score += bonus - *score * bonus.abs() / MAX;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cutoff_raises_its_move_and_lowers_the_moves_tried_before_it() {
        let mut h = History::new();
        let (best, tried, other) = (
            Pos::new(7, 7),
            [Pos::new(3, 3), Pos::new(4, 4)],
            Pos::new(9, 9),
        );
        h.cutoff(best, &tried, Color::Black, 6);
        assert_eq!(h.score(best, Color::Black), 36);
        assert_eq!(h.score(tried[0], Color::Black), -36);
        assert_eq!(h.score(tried[1], Color::Black), -36);
        // Neither the other colour nor an untouched cell learns anything.
        assert_eq!(h.score(best, Color::White), 0);
        assert_eq!(h.score(other, Color::Black), 0);
        h.age();
        assert_eq!(h.score(best, Color::Black), 18);
        assert_eq!(h.score(tried[0], Color::Black), -18);
        h.clear();
        assert_eq!(h.score(best, Color::Black), 0);
    }

    #[test]
    fn scores_stay_within_the_bound_and_still_move() {
        let mut h = History::new();
        let (a, b) = (Pos::new(1, 1), Pos::new(2, 2));
        for _ in 0..10_000 {
            h.cutoff(a, &[b], Color::White, 40);
        }
        assert_eq!(h.score(a, Color::White), MAX);
        assert_eq!(h.score(b, Color::White), -MAX);
        // The extremes reduce a move two plies less, or two more.
        assert_eq!(h.reduction_change(a, Color::White), 2);
        assert_eq!(h.reduction_change(b, Color::White), -2);
        assert_eq!(h.order_bonus(a, Color::White), MAX / ORDER_DIVISOR);
        // At the bound a malus moves a score twice as far as a bonus from nothing would.
        h.cutoff(b, &[a], Color::White, 40);
        assert_eq!(h.score(a, Color::White), MAX - 2 * MAX_BONUS);
        assert_eq!(h.score(b, Color::White), -MAX + 2 * MAX_BONUS);
    }
}
