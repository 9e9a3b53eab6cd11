//! Fitting the move-ordering scores to self-play data: in every searched position the
//! search orders (no five to make or stop, no open four of its own, not a proven loss),
//! the candidate moves it would generate compete in a softmax of their scores (or, with
//! the pairwise loss, each against the chosen move), and the fit raises the move the
//! search chose. A candidate's score is its cell's own score for the side to move plus its
//! their score for the opponent (`pattern::policy`).
//!
//! The scores stay in the engine's units: a fixed temperature turns them into logits (by
//! default the one under which the starting scores fit the data best), so the history
//! and killer bonuses the search adds keep their weight. Every code starts from the
//! compiled-in file's score (its prior unless listed) and learns only if it is seen often
//! enough (and, unless asked, is no threat code), held near its start by an L2 penalty.
//! Full-batch Adam: a run is repeatable to the bit.

use super::samples::{replay, Spans, Tally};
use crate::board::Board;
use crate::movegen::{self, Threat};
use crate::pattern::policy::Policy;
use crate::pattern::weights::{sides, OWN, THEIR};
use crate::pattern::{combine, Pattern4, NUM_PCODES, PATTERNS_OF_PCODE};
use crate::selfplay::data::Game;
use crate::types::{Color, Rule, VALUE_MATE_BOUND};
use std::collections::BTreeMap;

/// The positions, stored flat: position `i` has the candidates `spans.range(i)`, the
/// chosen one first.
#[derive(Default)]
pub struct Choices {
    /// Per candidate: the index of its own and of its their score in `Model::score`.
    own: Vec<u32>,
    their: Vec<u32>,
    spans: Spans,
}

/// Where a score sits in `Model::score`: own scores (per side, per code), then their
/// scores. `sides` is 2 under renju (black's, then white's), 1 elsewhere.
fn score_index(sides: usize, c: Color, code: u16, role: usize) -> usize {
    (role * sides + c.idx().min(sides - 1)) * NUM_PCODES + code as usize
}

impl Choices {
    /// Add the ordered positions of `games` under `rule`; every `hold_out`-th game (if not
    /// 0) is held out.
    pub fn add(
        &mut self,
        games: &[Game],
        rule: Rule,
        hold_out: usize,
        tally: &mut Tally,
    ) -> anyhow::Result<()> {
        let sides = sides(rule);
        let index = |c: Color, code: u16, role: usize| score_index(sides, c, code, role) as u32;
        replay(
            games,
            rule,
            hold_out,
            tally,
            &mut |board, _, label, held| {
                // In a proven loss every move loses: the choice teaches nothing.
                let moves = if label.value <= -VALUE_MATE_BOUND {
                    Vec::new()
                } else {
                    ordered_moves(board)
                };
                let Some(k) = moves.iter().position(|&p| p == label.best) else {
                    return false;
                };
                let (us, them) = (board.side_to_move(), board.side_to_move().opp());
                // The chosen move first, then the others in board order.
                let others = moves.iter().copied().filter(|&p| p != moves[k]);
                for p in std::iter::once(moves[k]).chain(others) {
                    self.own.push(index(us, board.pcode(p, us), OWN));
                    self.their.push(index(them, board.pcode(p, them), THEIR));
                }
                self.spans.close(self.own.len(), held);
                true
            },
        )
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn candidates(&self, i: usize) -> std::ops::Range<usize> {
        self.spans.range(i)
    }
}

/// The moves the search orders by their scores in `board`, or none where it does not:
/// a five to make or to stop, an own open four (those moves are forced), or a lost
/// position.
fn ordered_moves(board: &mut Board) -> Vec<crate::types::Pos> {
    let us = board.side_to_move();
    if board.p4_count(us, Pattern4::AFive) > 0 || board.p4_count(us, Pattern4::BFlex4) > 0 {
        return Vec::new();
    }
    let list = match movegen::threat(board) {
        Threat::None => movegen::generate(board),
        t if t.needs_defence() => movegen::defences(board),
        _ => return Vec::new(),
    };
    list.iter().map(|m| m.pos).collect()
}

/// The scores as training sees them.
pub struct Model {
    sides: usize,
    /// Own scores (per side, per code), then their scores.
    pub score: Vec<f64>,
    start: Vec<f64>,
    /// Scores per logit.
    pub temperature: f64,
}

/// How to fit.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub iterations: usize,
    /// Adam's step size at the start, in score units; it falls linearly to a tenth.
    pub rate: f64,
    /// L2 penalty on the distance from the starting scores, per position.
    pub l2: f64,
    /// Fewest positions a code must be a candidate in to learn.
    pub min_count: usize,
    /// Learn the scores of threat codes too (own: an open three or more; their: a four or
    /// more); otherwise they keep their starting scores and only quiet codes learn.
    pub threats: bool,
    /// Pairwise loss (each other move against the chosen one) instead of the softmax's.
    pub pairwise: bool,
}

/// How well the scores rank the chosen moves of one set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fit {
    /// The softmax's cross-entropy (whichever loss the fit used).
    pub loss: f64,
    /// How often the chosen move scores above every other.
    pub accuracy: f64,
    /// How often fewer than five others score as high as the chosen move.
    pub top5: f64,
}

/// A softmax over one position's logits, the chosen move's first.
struct Softmax {
    top: f64,
    sum: f64,
}

impl Softmax {
    fn of(logits: &[f64]) -> Softmax {
        let top = logits.iter().cloned().fold(f64::MIN, f64::max);
        let sum = logits.iter().map(|x| (x - top).exp()).sum();
        Softmax { top, sum }
    }

    /// The probability of the move whose logit is `x`.
    fn probability(&self, x: f64) -> f64 {
        (x - self.top).exp() / self.sum
    }

    /// The cross-entropy of the chosen move.
    fn loss(&self, logits: &[f64]) -> f64 {
        self.top + self.sum.ln() - logits[0]
    }
}

impl Model {
    /// The model of `policy`'s scores for `rule`, at temperature 1.
    pub fn new(policy: &Policy, rule: Rule) -> Model {
        let sides = sides(rule);
        let mut score = vec![0.0; 2 * sides * NUM_PCODES];
        for role in [OWN, THEIR] {
            for side in 0..sides {
                let c = [Color::Black, Color::White][side];
                let table = policy.table(rule, c);
                for (code, v) in table.iter().enumerate() {
                    score[score_index(sides, c, code as u16, role)] = v[role] as f64;
                }
            }
        }
        Model {
            sides,
            start: score.clone(),
            score,
            temperature: 1.0,
        }
    }

    /// Loss and accuracy over the held-out positions (`held`) or the others.
    pub fn fit_of(&self, set: &Choices, held: bool) -> Fit {
        let (mut loss, mut hits, mut top5, mut n) = (0.0, 0, 0, 0);
        for i in set.spans.of(held) {
            let r = set.candidates(i);
            let s: Vec<f64> = r.clone().map(|k| self.logit(set, k)).collect();
            loss += Softmax::of(&s).loss(&s);
            // A tie with the chosen move counts against it.
            let above = s[1..].iter().filter(|&&x| x >= s[0]).count();
            hits += (above == 0) as usize;
            top5 += (above < 5) as usize;
            n += 1;
        }
        let n = n.max(1) as f64;
        Fit {
            loss: loss / n,
            accuracy: hits as f64 / n,
            top5: top5 as f64 / n,
        }
    }

    fn logit(&self, set: &Choices, k: usize) -> f64 {
        (self.score[set.own[k] as usize] + self.score[set.their[k] as usize]) / self.temperature
    }

    /// Set the temperature to the one, among a geometric ladder from 1 to 10⁴, under
    /// which the current scores fit the training positions best.
    pub fn choose_temperature(&mut self, set: &Choices) {
        let mut best = (f64::MAX, 1.0);
        let mut t = 1.0;
        while t <= 10_000.0 {
            self.temperature = t;
            let loss = self.fit_of(set, false).loss;
            if loss < best.0 {
                best = (loss, t);
            }
            t *= 1.25;
        }
        self.temperature = best.1;
    }

    /// Fit the scores to the training positions; `progress` hears every 50th iteration's
    /// loss.
    pub fn fit(&mut self, set: &Choices, s: &Settings, progress: &mut dyn FnMut(usize, f64)) {
        let mut seen = vec![0usize; self.score.len()];
        let train: Vec<usize> = set.spans.of(false).collect();
        for &i in &train {
            for k in set.candidates(i) {
                seen[set.own[k] as usize] += 1;
                seen[set.their[k] as usize] += 1;
            }
        }
        let free: Vec<bool> = (0..seen.len())
            .map(|p| seen[p] >= s.min_count && (s.threats || !self.is_threat(p)))
            .collect();
        let n = train.len().max(1) as f64;
        let (mut m, mut v) = (vec![0.0; self.score.len()], vec![0.0; self.score.len()]);
        let (b1, b2, eps) = (0.9, 0.999, 1e-8);
        let mut grad = vec![0.0; self.score.len()];
        for it in 1..=s.iterations {
            grad.iter_mut().for_each(|g| *g = 0.0);
            let mut loss = 0.0;
            let (mut logits, mut dl) = (Vec::new(), Vec::new());
            for &i in &train {
                let r = set.candidates(i);
                logits.clear();
                logits.extend(r.clone().map(|k| self.logit(set, k)));
                // The loss's derivative by each logit.
                dl.clear();
                if s.pairwise {
                    // Each other move against the chosen one: softplus of its lead.
                    dl.resize(logits.len(), 0.0);
                    for j in 1..logits.len() {
                        let x = logits[j] - logits[0];
                        loss += if x > 30.0 { x } else { x.exp().ln_1p() };
                        let sig = 1.0 / (1.0 + (-x).exp());
                        dl[j] += sig;
                        dl[0] -= sig;
                    }
                } else {
                    let soft = Softmax::of(&logits);
                    loss += soft.loss(&logits);
                    dl.extend(
                        logits
                            .iter()
                            .enumerate()
                            .map(|(j, &x)| soft.probability(x) - (j == 0) as u8 as f64),
                    );
                }
                for (j, k) in r.enumerate() {
                    let g = dl[j] / (self.temperature * n);
                    grad[set.own[k] as usize] += g;
                    grad[set.their[k] as usize] += g;
                }
            }
            let rate = s.rate * (1.0 - 0.9 * (it - 1) as f64 / s.iterations as f64);
            for p in (0..self.score.len()).filter(|&p| free[p]) {
                let g = grad[p] + s.l2 * (self.score[p] - self.start[p]);
                m[p] = b1 * m[p] + (1.0 - b1) * g;
                v[p] = b2 * v[p] + (1.0 - b2) * g * g;
                let mh = m[p] / (1.0 - f64::powi(b1, it as i32));
                let vh = v[p] / (1.0 - f64::powi(b2, it as i32));
                self.score[p] -= rate * mh / (vh.sqrt() + eps);
            }
            if it % 50 == 0 || it == 1 {
                progress(it, loss / n);
            }
        }
    }

    /// Whether score `p` is a threat code's: an own open three or more, or a their four or
    /// more (the moves the search does not count as quiet).
    fn is_threat(&self, p: usize) -> bool {
        let (role, side, code) = (
            p / (self.sides * NUM_PCODES),
            p / NUM_PCODES % self.sides,
            p % NUM_PCODES,
        );
        let renju_black = self.sides == 2 && side == 0;
        let class = combine(PATTERNS_OF_PCODE[code], renju_black);
        // (A renju black's forbidden point ranks above both.)
        let least = if role == OWN {
            Pattern4::HFlex3
        } else {
            Pattern4::EBlock4
        };
        class >= least
    }

    /// The learned scores, rounded: every code whose score differs from its prior.
    pub fn policy(&self, rule: Rule) -> Policy {
        let prior = Policy::default();
        let sides = (0..self.sides)
            .map(|side| {
                let c = [Color::Black, Color::White][side];
                let base = prior.table(rule, c);
                let mut codes = BTreeMap::new();
                for (code, b) in base.iter().enumerate() {
                    let at = |role: usize| {
                        self.score[score_index(self.sides, c, code as u16, role)].round() as i32
                    };
                    let v = [at(OWN), at(THEIR)];
                    if v != *b {
                        codes.insert(code as u16, v);
                    }
                }
                codes
            })
            .collect();
        Policy { sides }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{pcode, Pattern};
    use crate::selfplay::data::{Label, Outcome};
    use crate::types::Pos;

    #[test]
    fn positions_list_the_generated_moves_with_the_chosen_one_first() {
        // Black's open two on row 7, white far away; the labels' choices, in order: a
        // generated cell, a cell far from every stone (not generated: left out), and a
        // proven loss (left out).
        let moves: Vec<Pos> = [(7, 7), (0, 0), (8, 7), (0, 14)]
            .iter()
            .map(|&(x, y)| Pos::new(x, y))
            .collect();
        let labels = vec![
            Label {
                value: 0,
                best: Pos::new(9, 7),
            },
            Label {
                value: 0,
                best: Pos::new(14, 14),
            },
            Label {
                value: -VALUE_MATE_BOUND,
                best: Pos::new(9, 7),
            },
        ];
        let game = Game {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            outcome: Outcome::Draw,
            moves,
            opening: 1,
            labels,
        };
        let (mut set, mut tally) = (Choices::default(), Tally::default());
        set.add(&[game], Rule::Freestyle, 0, &mut tally).unwrap();
        let want = Tally {
            games: 1,
            other_rule: 0,
            positions: 3,
            left_out: 2,
        };
        assert_eq!(tally, want);
        assert_eq!(set.len(), 1);
        // White to move after black (7,7): every cell the search would generate.
        let mut board = Board::new(15, 15, Rule::Freestyle).unwrap();
        board.make_move(Pos::new(7, 7));
        let generated = movegen::generate(&mut board);
        assert_eq!(set.candidates(0).len(), generated.len());
        let first = set.candidates(0).start;
        let white_code = board.pcode(Pos::new(9, 7), Color::White);
        let black_code = board.pcode(Pos::new(9, 7), Color::Black);
        assert_eq!(set.own[first] as usize, white_code as usize);
        assert_eq!(set.their[first] as usize, NUM_PCODES + black_code as usize);
    }

    /// 40 freestyle positions of two moves each, which make the own codes `chosen` (the
    /// search's choice) and `other` and stop nothing; position `i` is held out if `held(i)`.
    fn two_moves(chosen: u16, other: u16, held: impl Fn(usize) -> bool) -> Choices {
        let mut set = Choices::default();
        let index = |code, role| score_index(1, Color::Black, code, role) as u32;
        for i in 0..40 {
            for code in [chosen, other] {
                set.own.push(index(code, OWN));
                set.their.push(index(0, THEIR));
            }
            set.spans.close(set.own.len(), held(i));
        }
        set
    }

    #[test]
    fn fitting_ranks_the_chosen_code_first() {
        // Every position offers a cell that makes an open two and one that makes a
        // sleeping two; the prior ranks the open two first, the "search" always chose the
        // sleeping two.
        let open2 = pcode([Pattern::F2, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let sleeping2 = pcode([Pattern::B2, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let set = two_moves(sleeping2, open2, |i| i % 4 == 0);
        for pairwise in [false, true] {
            let mut model = Model::new(&Policy::default(), Rule::Freestyle);
            model.choose_temperature(&set);
            let before = model.fit_of(&set, true);
            assert_eq!(before.accuracy, 0.0);
            let settings = Settings {
                iterations: 200,
                rate: 2.0,
                l2: 0.0,
                min_count: 10,
                threats: true,
                pairwise,
            };
            model.fit(&set, &settings, &mut |_, _| {});
            let learned = model.policy(Rule::Freestyle);
            let table = learned.table(Rule::Freestyle, Color::Black);
            assert!(
                table[sleeping2 as usize][OWN] > table[open2 as usize][OWN],
                "{table:?}"
            );
            let mut rounded = Model::new(&learned, Rule::Freestyle);
            rounded.temperature = model.temperature;
            let after = rounded.fit_of(&set, true);
            assert_eq!(after.accuracy, 1.0, "pairwise {pairwise}");
            assert!(after.loss < before.loss);
            // Codes never offered keep their prior and are not written.
            assert!(learned.sides[0]
                .keys()
                .all(|&c| c == open2 || c == sleeping2 || c == 0));
        }
    }

    #[test]
    fn threat_codes_keep_their_scores_unless_asked() {
        // The chosen move blocks nothing; the other makes an open three.
        let quiet = pcode([Pattern::F1, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let three = pcode([Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let set = two_moves(quiet, three, |_| false);
        let prior = Policy::default().table(Rule::Freestyle, Color::Black);
        for threats in [false, true] {
            let mut model = Model::new(&Policy::default(), Rule::Freestyle);
            model.temperature = 60.0;
            let settings = Settings {
                iterations: 100,
                rate: 2.0,
                l2: 0.0,
                min_count: 10,
                threats,
                pairwise: false,
            };
            model.fit(&set, &settings, &mut |_, _| {});
            let table = model
                .policy(Rule::Freestyle)
                .table(Rule::Freestyle, Color::Black);
            assert!(table[quiet as usize][OWN] > prior[quiet as usize][OWN]);
            let moved = table[three as usize][OWN] != prior[three as usize][OWN];
            assert_eq!(moved, threats);
        }
    }
}
