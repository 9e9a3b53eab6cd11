//! Fitting the evaluation's network (`pattern::net`) to self-play data. Each quiet
//! searched position is the count of its empty cells by pair of threat classes (own,
//! their) and its evaluation by the cell values alone; the network learns the
//! correction that brings that evaluation's win probability to the position's target,
//! the same target as the cell values' fit (see `samples`).
//!
//! Minibatch Adam over shuffled positions with a step that shrinks every pass. The
//! shuffle and the starting values come from a fixed seed and every sum runs in one
//! order, so a run is repeatable to the bit.

use super::samples::{replay_quiet, Spans, Tally};
use crate::board::Board;
use crate::eval;
use crate::pattern::net::{pair, NetFile, HIDDEN, PAIRS};
use crate::pattern::RuleTables;
use crate::selfplay::data::Game;
use crate::types::Rule;
use std::sync::Arc;

/// The positions, stored flat: position `i` has the pair counts `spans.range(i)`.
#[derive(Default)]
pub struct Positions {
    /// Per entry: a pair of classes, and how many empty cells have it.
    pair: Vec<u16>,
    count: Vec<f32>,
    /// Per position: the evaluation by the cell values alone, and the target.
    base: Vec<f32>,
    target: Vec<f32>,
    spans: Spans,
}

/// Inputs are cell counts times this, so that the starting rows' sums stay near one.
const INPUT: f32 = 0.25;
/// Positions per step.
const BATCH: usize = 256;
/// First step size, and its factor after each pass.
const RATE: f32 = 0.01;
const DECAY: f32 = 0.75;
/// The output weights and offset are in evaluation units: their steps are this much
/// larger.
const OUT_RATE: f32 = 100.0;

impl Positions {
    /// Add the quiet positions of `games` under `rule`, evaluated with `tables` (the cell
    /// values the network corrects, with no network of their own); `targets` is
    /// (lambda, scale, hold-out) as `samples::replay_quiet` takes them.
    pub fn add(
        &mut self,
        games: &[Game],
        rule: Rule,
        tables: &Arc<RuleTables>,
        targets: (f64, f64, usize),
        tally: &mut Tally,
    ) -> anyhow::Result<()> {
        let mut counts = [0u16; PAIRS];
        let mut visit = |b: &mut Board, target: f64, held: bool| {
            let us = b.side_to_move();
            counts.fill(0);
            for p in b.cells().filter(|&p| b.is_empty(p)) {
                counts[pair(b.p4(p, us), b.p4(p, us.opp()))] += 1;
            }
            for (i, &n) in counts.iter().enumerate().skip(1) {
                if n > 0 {
                    self.pair.push(i as u16);
                    self.count.push(n as f32 * INPUT);
                }
            }
            self.spans.close(self.pair.len(), held);
            self.base.push(eval::evaluate(b) as f32);
            self.target.push(target as f32);
        };
        replay_quiet(games, rule, tables, targets, tally, &mut visit)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.target.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }
}

/// The network in training: rows per unit of input (a count times `INPUT`).
struct Model {
    rows: Vec<[f32; HIDDEN]>,
    bias: [f32; HIDDEN],
    out: [f32; HIDDEN],
    offset: f32,
}

/// The parameters in one flat order: rows, bias, out, offset.
const PARAMS: usize = PAIRS * HIDDEN + 2 * HIDDEN + 1;

impl Model {
    /// Hidden sums (before the bias) of position `i`, and the correction.
    fn forward(&self, set: &Positions, i: usize, sums: &mut [f32; HIDDEN]) -> f32 {
        *sums = self.bias;
        for e in set.spans.range(i) {
            let (row, x) = (&self.rows[set.pair[e] as usize], set.count[e]);
            for (s, w) in sums.iter_mut().zip(row) {
                *s += w * x;
            }
        }
        let mut v = self.offset;
        for (s, o) in sums.iter().zip(&self.out) {
            v += o * s.max(0.0);
        }
        v
    }

    /// Mean cross-entropy of the positions held out (`held`) or not, on the logistic
    /// curve of `scale`; `None` if there are none.
    fn loss(&self, set: &Positions, held: bool, scale: f32, net: bool) -> Option<f64> {
        let mut sums = [0.0; HIDDEN];
        let (mut total, mut n) = (0.0, 0);
        for i in set.spans.of(held) {
            let v = set.base[i]
                + if net {
                    self.forward(set, i, &mut sums)
                } else {
                    0.0
                };
            total += cross_entropy(v / scale, set.target[i]);
            n += 1;
        }
        (n > 0).then(|| total / n as f64)
    }

    fn file(&self, seen: &[bool]) -> NetFile {
        let mut f = NetFile::zero();
        for (p, r) in self.rows.iter().enumerate() {
            if seen[p] {
                f.rows[p] = r.map(|w| w * INPUT);
            }
        }
        f.bias = self.bias;
        f.out = self.out;
        f.offset = self.offset;
        f
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

fn cross_entropy(logit: f32, target: f32) -> f64 {
    let p = (sigmoid(logit) as f64).clamp(1e-7, 1.0 - 1e-7);
    let t = target as f64;
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// A small deterministic generator (xorshift) for the start and the shuffle.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [-half, half).
    fn uniform(&mut self, half: f32) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 2.0 * half
    }
}

/// What a fit did: the losses before (cell values alone) and after, on the training and
/// the held-out positions, and the network.
pub struct Fitted {
    pub train: (f64, f64),
    pub held: Option<(f64, f64)>,
    pub net: NetFile,
}

/// Fit a network to `set` in `passes` passes; `progress` hears each pass's losses.
pub fn fit(
    set: &Positions,
    passes: usize,
    scale: f64,
    progress: &mut dyn FnMut(usize, f64, Option<f64>),
) -> Fitted {
    let scale = scale as f32;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut m = Model {
        rows: vec![[0.0; HIDDEN]; PAIRS],
        bias: [0.0; HIDDEN],
        out: [0.0; HIDDEN],
        offset: 0.0,
    };
    for r in m.rows.iter_mut() {
        for w in r.iter_mut() {
            *w = rng.uniform(0.1);
        }
    }
    for o in m.out.iter_mut() {
        *o = rng.uniform(1.0);
    }
    let mut seen = vec![false; PAIRS];
    for &p in &set.pair {
        seen[p as usize] = true;
    }
    let before = (
        m.loss(set, false, scale, false).unwrap_or(0.0),
        m.loss(set, true, scale, false),
    );
    let mut order: Vec<usize> = set.spans.of(false).collect();
    let (mut first, mut second) = (vec![0f32; PARAMS], vec![0f32; PARAMS]);
    let mut grad = vec![0f32; PARAMS];
    let mut sums = [0.0; HIDDEN];
    let mut rate = RATE;
    let mut step = 0;
    let (row_end, bias_end, out_end) = (PAIRS * HIDDEN, PAIRS * HIDDEN + HIDDEN, PARAMS - 1);
    for pass in 0..passes {
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        for batch in order.chunks(BATCH) {
            grad.fill(0.0);
            for &i in batch {
                let v = set.base[i] + m.forward(set, i, &mut sums);
                // d loss / d correction.
                let d = (sigmoid(v / scale) - set.target[i]) / scale;
                for k in 0..HIDDEN {
                    let a = sums[k];
                    grad[bias_end + k] += d * a.max(0.0);
                    if a > 0.0 {
                        let da = d * m.out[k];
                        grad[row_end + k] += da;
                        for e in set.spans.range(i) {
                            grad[set.pair[e] as usize * HIDDEN + k] += da * set.count[e];
                        }
                    }
                }
                grad[out_end] += d;
            }
            step += 1;
            let (b1, b2) = (0.9f32, 0.999f32);
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            for j in 0..PARAMS {
                let g = grad[j] / batch.len() as f32;
                first[j] = b1 * first[j] + (1.0 - b1) * g;
                second[j] = b2 * second[j] + (1.0 - b2) * g * g;
                let mut delta = rate * (first[j] / c1) / ((second[j] / c2).sqrt() + 1e-8);
                if j >= bias_end {
                    delta *= OUT_RATE;
                }
                match j {
                    _ if j < row_end => m.rows[j / HIDDEN][j % HIDDEN] -= delta,
                    _ if j < bias_end => m.bias[j - row_end] -= delta,
                    _ if j < out_end => m.out[j - bias_end] -= delta,
                    _ => m.offset -= delta,
                }
            }
        }
        rate *= DECAY;
        progress(
            pass,
            m.loss(set, false, scale, true).unwrap_or(0.0),
            m.loss(set, true, scale, true),
        );
    }
    let net = m.file(&seen);
    // The losses of the network as written, rounded as the file rounds it.
    let written = NetFile::parse(&net.to_text("")).expect("a written network parses");
    let after = Model {
        rows: written.rows.iter().map(|r| r.map(|w| w / INPUT)).collect(),
        bias: written.bias,
        out: written.out,
        offset: written.offset,
    };
    Fitted {
        train: (before.0, after.loss(set, false, scale, true).unwrap_or(0.0)),
        held: before.1.zip(after.loss(set, true, scale, true)),
        net: written,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{weights, Pattern4};
    use crate::selfplay::data::Outcome;
    use crate::train::samples::tests::game;
    use crate::types::Value;

    /// Games where whoever makes an open three first wins, the searches saying so.
    fn games() -> Vec<Game> {
        let mut out = Vec::new();
        for g in 0..400usize {
            let row = 3 + g % 9;
            let far = 13 - g % 5;
            // Black builds three on `row`; white plays along column `far`, away.
            let moves: Vec<(usize, usize)> = (0..6)
                .map(|i| {
                    if i % 2 == 0 {
                        (4 + i / 2, row)
                    } else {
                        (far, 1 + 2 * (i / 2) + g % 3)
                    }
                })
                .collect();
            let values: Vec<Value> = (0..6)
                .map(|i| {
                    if i % 2 == 0 {
                        60 * i as Value
                    } else {
                        -60 * i as Value
                    }
                })
                .collect();
            out.push(game(&moves, &values, Outcome::BlackWon));
        }
        out
    }

    #[test]
    fn the_network_learns_what_the_cell_values_miss() {
        // Cell values that say nothing: every position evaluates to the tempo alone.
        let mut w = weights::builtin(Rule::Freestyle);
        for side in w.sides.iter_mut() {
            *side = weights::SideWeights::classes([[0; 2]; Pattern4::COUNT]);
        }
        w.tempo = 0;
        let tables = Arc::new(RuleTables::with_weights_and_net(Rule::Freestyle, &w, None));
        let mut set = Positions::default();
        let mut tally = Tally::default();
        set.add(
            &games(),
            Rule::Freestyle,
            &tables,
            (0.0, 200.0, 4),
            &mut tally,
        )
        .unwrap();
        assert_eq!(tally.games, 400);
        assert_eq!(set.len(), 400 * 6);
        let mut passes = 0;
        let fitted = fit(&set, 20, 200.0, &mut |_, _, _| passes += 1);
        assert_eq!(passes, 20);
        let (before, after) = fitted.held.expect("held-out games");
        assert!(after < before - 0.05, "{before} -> {after}");
        assert!(fitted.train.1 < fitted.train.0 - 0.05, "{:?}", fitted.train);
        // Repeatable to the bit.
        let again = fit(&set, 20, 200.0, &mut |_, _, _| {});
        assert_eq!(again.net.to_text(""), fitted.net.to_text(""));
        // Pairs no position has keep a zero row.
        let never = pair(Pattern4::AFive, Pattern4::AFive);
        assert_eq!(fitted.net.rows[never], [0.0; HIDDEN]);
    }
}
