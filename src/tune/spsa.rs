//! Simultaneous perturbation stochastic approximation over the evaluation's weights.
//!
//! Each iteration nudges every tuned value at once, by a random sign times a step `c`,
//! one way for one player (θ+) and the other way for its opponent (θ−); the two play each
//! other, and every value moves towards the side that won, in proportion to how much it
//! won by. Over many iterations the values drift to where they win games; no gradient is
//! ever computed, and the games are the only judge. The schedule is the usual one: the
//! step `c` shrinks as k^-0.101 and the rate `a` as (A + k)^-0.602, with A a tenth of
//! the run, each fixed by the values they reach at the last iteration (`c_end`, and
//! `r_end` = a / c² there).

use crate::pattern::weights::{Weights, OWN, THEIR};
use crate::pattern::Pattern4;

/// Classes whose values are not tuned: `None` and `Forbid` are worth nothing, and a
/// cell that makes five is never evaluated (the side to move wins, or must block it).
const FIXED: [Pattern4; 3] = [Pattern4::None, Pattern4::Forbid, Pattern4::AFive];
/// The schedule's exponents and the share of the run in A.
const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;
const A_SHARE: f64 = 0.1;

/// Where one tuned number lives in a `Weights`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Tempo,
    /// Side index, class, own or their.
    Class(usize, Pattern4, usize),
}

/// The tuned numbers of a weights file, in a fixed order.
pub struct Params {
    base: Weights,
    slots: Vec<Slot>,
    /// The values (real numbers: a value moves by less than one per iteration).
    pub theta: Vec<f64>,
    /// Per value: its step at the last iteration.
    c_end: Vec<f64>,
}

impl Params {
    /// Every class value (both colours' under renju) but the fixed ones, and the tempo,
    /// from `w`; each value's last step is `c_end` of its size, at least 2.
    pub fn new(w: &Weights, c_end: f64) -> Params {
        let mut slots = vec![Slot::Tempo];
        for s in 0..w.sides.len() {
            for k in 0..Pattern4::COUNT as u8 {
                let class = Pattern4::from_u8(k);
                if !FIXED.contains(&class) {
                    slots.extend([OWN, THEIR].map(|i| Slot::Class(s, class, i)));
                }
            }
        }
        let theta: Vec<f64> = slots.iter().map(|&s| get(w, s) as f64).collect();
        let c_end = theta.iter().map(|v| (v.abs() * c_end).max(2.0)).collect();
        Params {
            base: w.clone(),
            slots,
            theta,
            c_end,
        }
    }

    /// The number of tuned values.
    pub fn count(&self) -> usize {
        self.slots.len()
    }

    /// Each value's name, as the weights file names it.
    pub fn names(&self) -> Vec<String> {
        let sides = self.base.sides.len();
        self.slots
            .iter()
            .map(|&s| match s {
                Slot::Tempo => "tempo".to_string(),
                Slot::Class(side, class, i) => {
                    let colour = if sides == 2 {
                        ["black ", "white "][side]
                    } else {
                        ""
                    };
                    let which = if i == OWN { "own" } else { "their" };
                    format!("{colour}{class:?} {which}")
                }
            })
            .collect()
    }

    /// The weights with `values` in place of the tuned ones (rounded).
    pub fn weights(&self, values: &[f64]) -> Weights {
        let mut w = self.base.clone();
        for (&s, &v) in self.slots.iter().zip(values) {
            set(&mut w, s, v.round() as i32);
        }
        w
    }

    /// Iteration `k` (from 1) of `n`: the step of each value, and the rate (a / c) that
    /// turns a result into a move.
    fn schedule(&self, k: u64, n: u64, r_end: f64) -> (Vec<f64>, Vec<f64>) {
        let (k, n) = (k as f64, n.max(1) as f64);
        let a0 = A_SHARE * n;
        let c: Vec<f64> = self
            .c_end
            .iter()
            .map(|&ce| ce * (n / k).powf(GAMMA))
            .collect();
        let rate = self
            .c_end
            .iter()
            .zip(&c)
            .map(|(&ce, &ck)| r_end * ce * ce * ((a0 + n) / (a0 + k)).powf(ALPHA) / ck)
            .collect();
        (c, rate)
    }

    /// The two players of iteration `k` of `n` with signs `flip` (each +1 or -1): θ + c·flip
    /// and θ − c·flip.
    pub fn perturbed(&self, k: u64, n: u64, flip: &[f64]) -> [Vec<f64>; 2] {
        let (c, _) = self.schedule(k, n, 0.0);
        [1.0, -1.0].map(|sign| {
            self.theta
                .iter()
                .zip(&c)
                .zip(flip)
                .map(|((t, c), f)| t + sign * c * f)
                .collect()
        })
    }

    /// Move the values after iteration `k` of `n`, in which θ+ (signs `flip`) scored
    /// `result` more wins than θ− over the iteration's games.
    pub fn update(&mut self, k: u64, n: u64, r_end: f64, flip: &[f64], result: f64) {
        let (_, rate) = self.schedule(k, n, r_end);
        for ((t, r), f) in self.theta.iter_mut().zip(&rate).zip(flip) {
            *t += r * result * f;
        }
    }
}

fn get(w: &Weights, s: Slot) -> i32 {
    match s {
        Slot::Tempo => w.tempo,
        Slot::Class(side, class, i) => w.sides[side].class[class as usize][i],
    }
}

fn set(w: &mut Weights, s: Slot, v: i32) {
    match s {
        Slot::Tempo => w.tempo = v,
        Slot::Class(side, class, i) => w.sides[side].class[class as usize][i] = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::weights::builtin;
    use crate::types::Rule;

    #[test]
    fn the_tuned_values_round_trip_and_leave_the_fixed_ones_alone() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let w = builtin(rule);
            let p = Params::new(&w, 0.1);
            // The tempo and 11 classes' own and their values, per side.
            assert_eq!(p.count(), 1 + 22 * w.sides.len());
            assert_eq!(p.weights(&p.theta), w);
            let moved: Vec<f64> = p.theta.iter().map(|v| v + 10.4).collect();
            let m = p.weights(&moved);
            assert_eq!(m.tempo, w.tempo + 10);
            assert_eq!(
                m.sides[0].class[Pattern4::AFive as usize],
                w.sides[0].class[Pattern4::AFive as usize]
            );
            let open3 = Pattern4::HFlex3 as usize;
            assert_eq!(
                m.sides[0].class[open3][THEIR],
                w.sides[0].class[open3][THEIR] + 10
            );
        }
        let names = Params::new(&builtin(Rule::Renju), 0.1).names();
        assert!(names.contains(&"white HFlex3 own".to_string()), "{names:?}");
    }

    #[test]
    fn values_move_towards_the_winner_by_a_shrinking_step() {
        let mut p = Params::new(&builtin(Rule::Freestyle), 0.1);
        let flip: Vec<f64> = (0..p.count())
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let [plus, minus] = p.perturbed(1, 100, &flip);
        for i in 0..p.count() {
            assert!((plus[i] - p.theta[i]) * flip[i] > 0.0);
            assert!((plus[i] - p.theta[i] + minus[i] - p.theta[i]).abs() < 1e-9);
        }
        // The step at the last iteration is c_end: a tenth of the value, at least 2.
        let [last, _] = p.perturbed(100, 100, &flip);
        assert!((last[0] - p.theta[0] - 14.4).abs() < 1e-9, "{}", last[0]);
        assert!(plus[0] - p.theta[0] > last[0] - p.theta[0]);
        // θ+ won: every value moves its way; a draw moves nothing.
        let before = p.theta.clone();
        p.update(1, 100, 0.002, &flip, 0.0);
        assert_eq!(p.theta, before);
        p.update(1, 100, 0.002, &flip, 3.0);
        for i in 0..p.count() {
            assert!((p.theta[i] - before[i]) * flip[i] > 0.0, "{i}");
        }
        // θ− won: the other way.
        let mut q = Params::new(&builtin(Rule::Freestyle), 0.1);
        q.update(1, 100, 0.002, &flip, -3.0);
        assert!((q.theta[0] - before[0]) * flip[0] < 0.0);
    }
}
