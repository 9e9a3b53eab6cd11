//! Training positions from self-play games: each quiet searched position as the counts of
//! its pattern codes and its threat mask, with the value it should evaluate to.

use crate::board::Board;
use crate::eval::threat_mask;
use crate::pattern::weights::{sides, OWN, THEIR, THREAT_MASKS};
use crate::pattern::{tables, Pattern4, RuleTables, NUM_PCODES};
use crate::selfplay::data::{Game, Label, Outcome};
use crate::types::{Color, Rule};
use std::sync::Arc;

/// What a parameter of the evaluation is: a pattern code's own or their value, for one
/// colour's weights (`side` 0, or renju's 0 black and 1 white).
pub fn param(side: usize, code: u16, role: usize) -> usize {
    (side * NUM_PCODES + code as usize) * 2 + role
}

/// The first threat-term parameter, past both colours' code parameters.
pub const THREAT_PARAM0: usize = 2 * NUM_PCODES * 2;

/// The parameter of the threat term's value for threat mask `mask` with `side`'s colour
/// to move (see `param`).
pub fn threat_param(side: usize, mask: usize) -> usize {
    THREAT_PARAM0 + side * THREAT_MASKS + mask
}

/// Where each position's entries sit in a fit's flat per-entry arrays (position `i` has
/// the entries `start[i]..start[i + 1]`), and which positions come from held-out games.
#[derive(Debug)]
pub struct Spans {
    start: Vec<u32>,
    held_out: Vec<bool>,
}

impl Default for Spans {
    fn default() -> Spans {
        Spans {
            start: vec![0],
            held_out: Vec::new(),
        }
    }
}

impl Spans {
    /// End the position being added at entry `end`.
    pub fn close(&mut self, end: usize, held: bool) {
        self.start.push(end as u32);
        self.held_out.push(held);
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.held_out.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.held_out.is_empty()
    }

    /// The entries of position `i`.
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }

    /// The positions from held-out games (`held`), or the others.
    pub fn of(&self, held: bool) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(move |&i| self.held_out[i] == held)
    }
}

/// The positions, stored flat: sample `i` has the features `spans.range(i)`.
#[derive(Default)]
pub struct Samples {
    /// Per feature: the parameter and how many times it counts (negative for the side
    /// that just moved, whose values are subtracted).
    pub param: Vec<u32>,
    pub count: Vec<i16>,
    /// Per sample: the win probability it should evaluate to, for the side to move.
    pub target: Vec<f32>,
    /// Per sample: the key of the position before its last move (none before the first),
    /// so that positions one move off the same position (as `siblings` writes them) can be
    /// fitted in pairs.
    pub parent: Vec<Option<u64>>,
    pub spans: Spans,
}

/// What a fit read, for the report.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games of the rule, and of other rules (skipped).
    pub games: usize,
    pub other_rule: usize,
    /// Searched positions in those games.
    pub positions: usize,
    /// Of those, the ones the fit cannot use. The evaluation's fit leaves out a five to
    /// make or stop and an own open four; the move ordering's, also a lost position and a
    /// chosen move the search's ordering does not generate.
    pub left_out: usize,
}

impl Tally {
    /// Say what the data held (`used` names the positions a fit uses: "quiet", ...), and
    /// refuse data with none of them (`none`).
    pub fn report(
        &self,
        progress: &mut dyn std::io::Write,
        used: &str,
        none: bool,
    ) -> anyhow::Result<()> {
        writeln!(
            progress,
            "{} games of this rule ({} of others skipped), {} positions, {} of them {used}",
            self.games,
            self.other_rule,
            self.positions,
            self.positions - self.left_out
        )?;
        anyhow::ensure!(!none, "no {used} position of this rule to train on");
        Ok(())
    }
}

/// The probability that the side to move wins, as a value's logistic curve.
pub fn win_probability(v: f64, scale: f64) -> f64 {
    1.0 / (1.0 + (-v / scale).exp())
}

impl Samples {
    /// Add the quiet positions of `games` under `rule`. The target mixes the game's
    /// result (weight `lambda`) with the search's value, both as win probabilities on
    /// the curve of `scale`. Every `hold_out`-th game (if not 0) is held out.
    pub fn add(
        &mut self,
        games: &[Game],
        rule: Rule,
        lambda: f64,
        scale: f64,
        hold_out: usize,
        tally: &mut Tally,
    ) -> anyhow::Result<()> {
        let sides = sides(rule);
        let side_of = |c: Color| c.idx().min(sides - 1);
        let mut visit = |board: &mut Board, target: f64, held: bool| {
            let us = board.side_to_move();
            let sides = [side_of(us), side_of(us.opp())];
            let parent = parent_key(board);
            self.push(board, sides, target, held, parent);
        };
        let targets = (lambda, scale, hold_out);
        replay_quiet(games, rule, tables(rule), targets, tally, &mut visit)
    }

    fn push(
        &mut self,
        board: &Board,
        sides: [usize; 2],
        target: f64,
        held: bool,
        parent: Option<u64>,
    ) {
        let us = board.side_to_move();
        let mut features = Vec::with_capacity(64);
        for p in board.cells().filter(|&p| board.is_empty(p)) {
            for (c, role, sign) in [(us, OWN, 1), (us.opp(), THEIR, -1)] {
                features.push((param(sides[role], board.pcode(p, c), role) as u32, sign));
            }
        }
        features.push((threat_param(sides[OWN], threat_mask(board)) as u32, 1));
        self.push_features(features, target, held, parent);
    }

    /// Add one sample: its features as (parameter, count) in any order, repeats allowed,
    /// and the key of the position it is one move off (see `parent`).
    pub fn push_features(
        &mut self,
        mut features: Vec<(u32, i16)>,
        target: f64,
        held: bool,
        parent: Option<u64>,
    ) {
        features.sort_unstable_by_key(|&(p, _)| p);
        let mut last = u32::MAX;
        for (p, n) in features {
            if p == last {
                *self.count.last_mut().expect("a feature") += n;
            } else {
                self.param.push(p);
                self.count.push(n);
                last = p;
            }
        }
        self.spans.close(self.param.len(), held);
        self.target.push(target as f32);
        self.parent.push(parent);
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.target.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// The features of sample `i`.
    pub fn features(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.spans.range(i);
        self.param[r.clone()]
            .iter()
            .zip(&self.count[r])
            .map(|(&p, &n)| (p as usize, n as f64))
    }
}

/// The win probability a position of `game` with `us` to move should evaluate to: the
/// game's result (weight `lambda`) mixed with the search's value `label`, both on the
/// logistic curve of `scale`.
fn target(game: &Game, us: Color, label: &Label, lambda: f64, scale: f64) -> f64 {
    let result = match (game.outcome, us) {
        (Outcome::Draw, _) => 0.5,
        (Outcome::BlackWon, Color::Black) | (Outcome::WhiteWon, Color::White) => 1.0,
        _ => 0.0,
    };
    // A proven value counts as all but sure: MATE_UNITS on the curve.
    let sure = MATE_UNITS * scale;
    let value = (label.value as f64).clamp(-sure, sure);
    lambda * result + (1.0 - lambda) * win_probability(value, scale)
}

/// Replay the games of `rule` and show `visit` every searched position: the board before
/// the move, the game, the search's label and whether the game is held out (every
/// `hold_out`-th game of the rule, if not 0). `visit` returns whether the fit uses the
/// position; `tally` counts the games, those of other rules, the positions and the ones
/// left out. A move onto a stone or off the board is an error.
pub fn replay(
    games: &[Game],
    rule: Rule,
    hold_out: usize,
    tally: &mut Tally,
    visit: &mut dyn FnMut(&mut Board, &Game, &Label, bool) -> bool,
) -> anyhow::Result<()> {
    replay_on(games, rule, tables(rule), hold_out, tally, visit)
}

/// `replay_on` for the evaluation's fits: `visit` sees the quiet positions only, each
/// with the target of `lambda` and `scale` (see `target`) and whether it is held out
/// (every `hold_out`-th game).
pub fn replay_quiet(
    games: &[Game],
    rule: Rule,
    tables: &Arc<RuleTables>,
    (lambda, scale, hold_out): (f64, f64, usize),
    tally: &mut Tally,
    visit: &mut dyn FnMut(&mut Board, f64, bool),
) -> anyhow::Result<()> {
    replay_on(
        games,
        rule,
        tables,
        hold_out,
        tally,
        &mut |board, game, label, held| {
            if !quiet(board) {
                return false;
            }
            visit(
                board,
                target(game, board.side_to_move(), label, lambda, scale),
                held,
            );
            true
        },
    )
}

/// `replay` on boards that evaluate with `tables` (made for `rule`).
pub fn replay_on(
    games: &[Game],
    rule: Rule,
    tables: &Arc<RuleTables>,
    hold_out: usize,
    tally: &mut Tally,
    visit: &mut dyn FnMut(&mut Board, &Game, &Label, bool) -> bool,
) -> anyhow::Result<()> {
    for (g, game) in games.iter().enumerate() {
        if game.rule != rule {
            tally.other_rule += 1;
            continue;
        }
        tally.games += 1;
        let held = hold_out > 0 && tally.games.is_multiple_of(hold_out);
        let mut board = Board::with_tables(game.width, game.height, rule, tables.clone())?;
        for (i, &m) in game.moves.iter().enumerate() {
            if let Some(label) = i.checked_sub(game.opening).and_then(|k| game.labels.get(k)) {
                tally.positions += 1;
                if !visit(&mut board, game, label, held) {
                    tally.left_out += 1;
                }
            }
            anyhow::ensure!(
                board.on_board(m) && board.is_empty(m),
                "game {}: move {} ({m}) is not on an empty cell",
                g + 1,
                i + 1
            );
            board.make_move(m);
        }
    }
    Ok(())
}

/// What a proven win (or loss) counts as in the target, in logistic units: a value whose
/// win probability is all but sure (0.9975). Proven positions stay in the data: leaving
/// them out would keep only the threats that failed, and teach the evaluation that
/// threats are worth little.
const MATE_UNITS: f64 = 6.0;

/// The key of the position before `board`'s last move, if there is one.
fn parent_key(board: &mut Board) -> Option<u64> {
    let &(p, c) = board.history().last()?;
    board.undo();
    let key = board.hash();
    board.make(p, c);
    Some(key)
}

/// A position the static evaluation is meant for: no five to make or to stop, and no open
/// four for the side to move (the search settles those before it evaluates).
pub(crate) fn quiet(board: &Board) -> bool {
    let us = board.side_to_move();
    board.p4_count(us, Pattern4::AFive) == 0
        && board.p4_count(us, Pattern4::BFlex4) == 0
        && board.p4_count(us.opp(), Pattern4::AFive) == 0
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::selfplay::data::Label;
    use crate::types::{Pos, Value, VALUE_MATE};

    /// A freestyle game on 15x15 of `moves` with the searches' `values`, no opening.
    pub(crate) fn game(moves: &[(usize, usize)], values: &[Value], outcome: Outcome) -> Game {
        let moves: Vec<Pos> = moves.iter().map(|&(x, y)| Pos::new(x, y)).collect();
        Game {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            outcome,
            labels: values
                .iter()
                .zip(&moves)
                .map(|(&value, &best)| Label { value, best })
                .collect(),
            opening: 0,
            moves,
        }
    }

    #[test]
    fn quiet_positions_become_code_counts_with_their_targets() {
        // Black builds an open three on row 7; white plays far away.
        let moves = [(7, 7), (0, 0), (8, 7), (0, 14), (9, 7), (14, 0), (10, 7)];
        let values = [0, 0, 100, 0, 400, -VALUE_MATE + 3, VALUE_MATE - 1];
        let g = game(&moves, &values, Outcome::BlackWon);
        let mut s = Samples::default();
        let mut tally = Tally::default();
        s.add(&[g.clone(), g], Rule::Freestyle, 0.5, 200.0, 2, &mut tally)
            .unwrap();
        // Per game: the last position (black to move with an open four) is left out.
        let want = Tally {
            games: 2,
            other_rule: 0,
            positions: 14,
            left_out: 2,
        };
        assert_eq!(tally, want);
        assert_eq!(s.len(), 12);
        let held = s.spans.of(true).count();
        assert_eq!(held, 6, "the second game");
        // White's proven loss counts as a sure one, at the curve's value for MATE_UNITS.
        let want = 0.5 * win_probability(-MATE_UNITS * 200.0, 200.0);
        assert!((s.target[5] as f64 - want).abs() < 1e-6, "{}", s.target[5]);
        assert!(s.target[5] < 0.01);
        // The third position (black to move, value 100): black won, so the target is
        // the mean of 1 and the value's win probability.
        let want = 0.5 + 0.5 * win_probability(100.0, 200.0);
        assert!((s.target[2] as f64 - want).abs() < 1e-6);
        // White to move after black's second stone: the result counts against it.
        let want = 0.5 * win_probability(0.0, 200.0);
        assert!((s.target[3] as f64 - want).abs() < 1e-6);
        // Its features are the board's codes, white's as own and black's as their.
        let mut board = Board::new(15, 15, Rule::Freestyle).unwrap();
        for &(x, y) in &moves[..3] {
            board.make_move(Pos::new(x, y));
        }
        let mut want = std::collections::BTreeMap::new();
        for p in board.cells().filter(|&p| board.is_empty(p)) {
            for (c, role, sign) in [(Color::White, 0, 1), (Color::Black, 1, -1)] {
                *want.entry(param(0, board.pcode(p, c), role)).or_insert(0.0) += sign as f64;
            }
        }
        // And the threat term's entry for its threat mask, with white to move.
        want.insert(threat_param(0, threat_mask(&board)), 1.0);
        let got: std::collections::BTreeMap<usize, f64> = s.features(3).collect();
        assert_eq!(got, want);
        assert!(got.values().any(|&n| n < 0.0) && got.values().any(|&n| n > 0.0));
    }

    #[test]
    fn a_move_on_a_stone_is_an_error_and_other_rules_are_skipped() {
        let bad = game(&[(7, 7), (7, 7)], &[0, 0], Outcome::Draw);
        let mut other = bad.clone();
        other.rule = Rule::Renju;
        let (mut s, mut tally) = (Samples::default(), Tally::default());
        let e = s
            .add(&[bad], Rule::Freestyle, 0.5, 200.0, 0, &mut tally)
            .unwrap_err();
        assert!(e.to_string().contains("game 1: move 2"), "{e}");
        let mut tally = Tally::default();
        s.add(&[other], Rule::Freestyle, 0.5, 200.0, 0, &mut tally)
            .unwrap();
        assert_eq!(tally.other_rule, 1);
    }
}
