//! Fitting the evaluation's weights to training positions: logistic regression of the
//! target win probability on the pattern-code counts, by full-batch Adam (so a run is
//! repeatable to the bit).
//!
//! Every code's value is its threat class's value plus a residual of its own. Classes
//! learn from all their codes; a residual learns only for codes seen often enough, and is
//! held near zero by an L2 penalty, so rare codes keep their class's value. The threat
//! term's values (one per threat mask) learn the same way as residuals, from the starting
//! file's values (zero where it lists none).
//!
//! With a ranking weight (`Settings::rank`), pairs of positions one move off the same
//! position are fitted too: the difference of their evaluations to the difference of
//! their targets (see `sibling_pairs`).

use super::samples::{param, threat_param, win_probability, Samples, THREAT_PARAM0};
use crate::pattern::weights::{SideWeights, Weights, THREAT_MASKS};
use crate::pattern::{combine, Pattern, Pattern4, NUM_PCODES, PATTERNS_OF_PCODE};
use crate::types::Rule;
use std::collections::BTreeMap;

/// The weights as training sees them.
#[derive(Clone, Debug)]
pub struct Model {
    sides: usize,
    /// Per parameter (`samples::param`): its class value's index in `class`, or `None` for
    /// a frozen code, which keeps `base`.
    class_of: Vec<Option<usize>>,
    base: Vec<f64>,
    pub class: Vec<f64>,
    pub residual: Vec<f64>,
    /// The threat term, per side (as `param`'s) and threat mask.
    pub threat: Vec<f64>,
    pub tempo: f64,
}

/// How to fit.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub iterations: usize,
    /// Adam's step size at the start, in evaluation units; it falls linearly to a tenth.
    pub rate: f64,
    /// L2 penalty on the residuals.
    pub l2: f64,
    /// Fewest training positions a code must appear in to get a residual of its own.
    pub min_count: usize,
    /// Leave the class values and the tempo as they are; learn only the residuals.
    pub keep_classes: bool,
    /// Evaluation units per logistic unit.
    pub scale: f64,
    /// Weight of the ranking loss on sibling pairs (see `sibling_pairs`); 0 for none.
    pub rank: f64,
}

/// The pairs of positions one move off the same position (same `Samples::parent`) among
/// `samples`' training (`held` false) or held-out ones, each pair once.
pub fn sibling_pairs(samples: &Samples, held: bool) -> Vec<(usize, usize)> {
    let mut by_parent: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for i in samples.spans.of(held) {
        if let Some(key) = samples.parent[i] {
            by_parent.entry(key).or_default().push(i);
        }
    }
    let mut pairs = Vec::new();
    for group in by_parent.values() {
        for (k, &i) in group.iter().enumerate() {
            pairs.extend(group[k + 1..].iter().map(|&j| (i, j)));
        }
    }
    pairs
}

/// A win probability's logistic units.
fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// The codes training leaves as they are: cells with no stone of their colour near
/// enough to matter (every pattern empty-line or dead). They cover most of the board, so
/// a value learned for them would mostly count the empty cells.
fn is_empty_code(code: u16) -> bool {
    PATTERNS_OF_PCODE[code as usize]
        .iter()
        .all(|p| matches!(p, Pattern::Dead | Pattern::B1 | Pattern::F1))
}

/// The loss of predicting `p` for the target `t`, both win probabilities.
fn cross_entropy(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

fn class_index(side: usize, class: Pattern4, role: usize) -> usize {
    (side * Pattern4::COUNT + class as usize) * 2 + role
}

impl Model {
    /// The model of `w` under `rule`.
    pub fn new(w: &Weights, rule: Rule) -> Model {
        let sides = w.sides.len();
        let n = sides * NUM_PCODES * 2;
        let mut m = Model {
            sides,
            class_of: vec![None; n],
            base: vec![0.0; n],
            class: vec![0.0; sides * Pattern4::COUNT * 2],
            residual: vec![0.0; n],
            threat: vec![0.0; 2 * THREAT_MASKS],
            tempo: w.tempo as f64,
        };
        for (s, side) in w.sides.iter().enumerate() {
            for (&mask, &v) in &side.threat {
                m.threat[threat_param(s, mask as usize) - THREAT_PARAM0] = v as f64;
            }
            let renju_black = rule == Rule::Renju && s == 0;
            for (k, v) in side.class.iter().enumerate() {
                for (role, &x) in v.iter().enumerate() {
                    m.class[class_index(s, Pattern4::from_u8(k as u8), role)] = x as f64;
                }
            }
            for code in 0..NUM_PCODES as u16 {
                let class = combine(PATTERNS_OF_PCODE[code as usize], renju_black);
                let v = side.value(code, class);
                for (role, &x) in v.iter().enumerate() {
                    let p = param(s, code, role);
                    m.base[p] = x as f64;
                    if !is_empty_code(code) {
                        let c = class_index(s, class, role);
                        m.class_of[p] = Some(c);
                        m.residual[p] = x as f64 - m.class[c];
                    }
                }
            }
        }
        m
    }

    /// Every parameter's value, the threat term's from `THREAT_PARAM0` on (codes of a
    /// colour the rule does not have between them are 0).
    pub fn values(&self) -> Vec<f64> {
        let mut v: Vec<f64> = (0..self.base.len())
            .map(|p| match self.class_of[p] {
                Some(c) => self.class[c] + self.residual[p],
                None => self.base[p],
            })
            .collect();
        v.resize(THREAT_PARAM0, 0.0);
        v.extend(&self.threat);
        v
    }

    /// The weights, rounded to whole units.
    pub fn weights(&self) -> Weights {
        let values = self.values();
        let sides = (0..self.sides)
            .map(|s| {
                let mut class = [[0i32; 2]; Pattern4::COUNT];
                for (k, pair) in class.iter_mut().enumerate() {
                    for (role, v) in pair.iter_mut().enumerate() {
                        *v = self.class[class_index(s, Pattern4::from_u8(k as u8), role)].round()
                            as i32;
                    }
                }
                let mut codes = BTreeMap::new();
                for code in 0..NUM_PCODES as u16 {
                    let v = [0, 1].map(|role| values[param(s, code, role)].round() as i32);
                    let k = match self.class_of[param(s, code, 0)] {
                        Some(c) => c / 2 % Pattern4::COUNT,
                        None => Pattern4::None as usize,
                    };
                    if v != class[k] {
                        codes.insert(code, v);
                    }
                }
                let threat = (0..THREAT_MASKS)
                    .map(|mask| (mask as u16, values[threat_param(s, mask)].round() as i32))
                    .filter(|&(_, v)| v != 0)
                    .collect();
                SideWeights {
                    class,
                    codes,
                    threat,
                }
            })
            .collect();
        Weights {
            tempo: self.tempo.round() as i32,
            sides,
        }
    }

    /// Mean cross-entropy over the training (`held` false) or held-out samples.
    pub fn loss(&self, samples: &Samples, held: bool, scale: f64) -> f64 {
        let values = self.values();
        let (mut sum, mut n) = (0.0, 0usize);
        for i in samples.spans.of(held) {
            let p = win_probability(self.eval(samples, i, &values), scale);
            sum += cross_entropy(p, samples.target[i] as f64);
            n += 1;
        }
        sum / n.max(1) as f64
    }

    /// Of the sibling pairs (`sibling_pairs`) whose targets differ, the share the model
    /// orders as the targets do; `None` without such pairs.
    pub fn pair_agreement(&self, samples: &Samples, held: bool) -> Option<f64> {
        let values = self.values();
        let (mut agree, mut n) = (0usize, 0usize);
        for (i, j) in sibling_pairs(samples, held) {
            let dt = samples.target[i] - samples.target[j];
            if dt != 0.0 {
                let de = self.eval(samples, i, &values) - self.eval(samples, j, &values);
                agree += (de * dt as f64 > 0.0) as usize;
                n += 1;
            }
        }
        (n > 0).then(|| agree as f64 / n as f64)
    }

    fn eval(&self, samples: &Samples, i: usize, values: &[f64]) -> f64 {
        self.tempo + samples.features(i).map(|(p, n)| n * values[p]).sum::<f64>()
    }

    /// Fit to the training samples; `progress` hears the training loss now and then.
    pub fn fit(&mut self, samples: &Samples, s: &Settings, progress: &mut dyn FnMut(usize, f64)) {
        // Codes seen too rarely keep their residual.
        let mut seen = vec![0usize; THREAT_PARAM0 + self.threat.len()];
        let train: Vec<usize> = samples.spans.of(false).collect();
        for &i in &train {
            for (p, _) in samples.features(i) {
                seen[p] += 1;
            }
        }
        let learns: Vec<bool> = seen.iter().map(|&n| n >= s.min_count).collect();
        let mut adam_class = Adam::new(self.class.len());
        let mut adam_residual = Adam::new(self.residual.len());
        let mut adam_threat = Adam::new(self.threat.len());
        let mut adam_tempo = Adam::new(1);
        let n = train.len().max(1) as f64;
        // The ranking loss: each pair's difference of evaluations, as a win probability,
        // fitted to the difference of its targets in logistic units. What the two
        // positions share (all but the cells near the two moves) cancels out, so this
        // teaches what the search needs from the evaluation to choose between moves.
        let pairs = if s.rank > 0.0 {
            sibling_pairs(samples, false)
        } else {
            Vec::new()
        };
        let pair_targets: Vec<f64> = pairs
            .iter()
            .map(|&(i, j)| {
                let t = |k: usize| logit(samples.target[k] as f64);
                win_probability(t(i) - t(j), 1.0)
            })
            .collect();
        let np = pairs.len().max(1) as f64;
        let mut evals = vec![0.0; samples.len()];
        for it in 0..s.iterations {
            let values = self.values();
            let mut grad = vec![0.0; values.len()];
            let (mut grad_tempo, mut loss) = (0.0, 0.0);
            for &i in &train {
                evals[i] = self.eval(samples, i, &values);
            }
            for (&(i, j), &t) in pairs.iter().zip(&pair_targets) {
                let p = win_probability(evals[i] - evals[j], s.scale);
                let g = s.rank * (p - t) / s.scale / np;
                for (k, c) in samples.features(i) {
                    grad[k] += g * c;
                }
                for (k, c) in samples.features(j) {
                    grad[k] -= g * c;
                }
            }
            for &i in &train {
                let p = win_probability(evals[i], s.scale);
                let t = samples.target[i] as f64;
                loss += cross_entropy(p, t);
                let g = (p - t) / s.scale / n;
                grad_tempo += g;
                for (k, c) in samples.features(i) {
                    grad[k] += g * c;
                }
            }
            if it % 50 == 0 || it + 1 == s.iterations {
                progress(it, loss / n);
            }
            let mut grad_class = vec![0.0; self.class.len()];
            let mut grad_residual = vec![0.0; self.residual.len()];
            for (k, &g) in grad[..self.base.len()].iter().enumerate() {
                if let Some(c) = self.class_of[k] {
                    grad_class[c] += g;
                    if learns[k] {
                        grad_residual[k] = g + s.l2 * self.residual[k];
                    }
                }
            }
            let mut grad_threat = vec![0.0; self.threat.len()];
            for (j, gt) in grad_threat.iter_mut().enumerate() {
                if learns[THREAT_PARAM0 + j] {
                    *gt = grad[THREAT_PARAM0 + j] + s.l2 * self.threat[j];
                }
            }
            let rate = s.rate * (1.0 - 0.9 * it as f64 / s.iterations as f64);
            adam_residual.step(&mut self.residual, &grad_residual, rate);
            adam_threat.step(&mut self.threat, &grad_threat, rate);
            if !s.keep_classes {
                adam_class.step(&mut self.class, &grad_class, rate);
                let mut tempo = [self.tempo];
                adam_tempo.step(&mut tempo, &[grad_tempo], rate);
                self.tempo = tempo[0];
            }
        }
    }
}

/// Adam's moment estimates for one parameter vector.
struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    fn step(&mut self, x: &mut [f64], g: &[f64], rate: f64) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        for i in 0..x.len() {
            if g[i] == 0.0 && self.m[i] == 0.0 {
                continue;
            }
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            x[i] -= rate * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-15);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{pcode, Pattern};
    use crate::types::Color;

    /// The test positions' codes: an open three (twice, alone and with a sleeping two),
    /// a four and an open two.
    fn fixture_codes() -> [u16; 4] {
        [
            [Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead],
            [Pattern::F3, Pattern::B2, Pattern::Dead, Pattern::Dead],
            [Pattern::B4, Pattern::Dead, Pattern::Dead, Pattern::Dead],
            [Pattern::F2, Pattern::Dead, Pattern::Dead, Pattern::Dead],
        ]
        .map(pcode)
    }

    /// The teacher's evaluation of features `feats`, its parameters at `values`.
    fn teacher_eval(teacher: &Model, values: &[f64], feats: &[(u32, i16)]) -> f64 {
        teacher.tempo
            + feats
                .iter()
                .map(|&(p, c)| c as f64 * values[p as usize])
                .sum::<f64>()
    }

    /// Samples over a few open-three and four codes, with targets from a teacher whose
    /// class values differ from the student's.
    fn taught(teacher: &Model, n: usize) -> Samples {
        let codes = fixture_codes();
        let mut s = Samples::default();
        let mut rng = 12345u64;
        let values = teacher.values();
        for i in 0..n {
            let mut feats = Vec::new();
            for (j, &code) in codes.iter().enumerate() {
                for role in 0..2 {
                    rng = rng
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let count = (rng >> 60) as i16 % 3;
                    if count > 0 && (j + role) % 2 == i % 2 {
                        let sign = if role == 0 { 1 } else { -1 };
                        feats.push((param(0, code, role) as u32, sign * count));
                    }
                }
            }
            let e = teacher_eval(teacher, &values, &feats);
            s.push_features(feats, win_probability(e, 200.0), i % 10 == 0, None);
        }
        s
    }

    fn settings(iterations: usize, l2: f64, min_count: usize, keep_classes: bool) -> Settings {
        Settings {
            iterations,
            rate: 4.0,
            l2,
            min_count,
            keep_classes,
            scale: 200.0,
            rank: 0.0,
        }
    }

    #[test]
    fn fitting_recovers_the_teachers_class_values() {
        let student_w =
            Weights::parse("tempo 0\nclass HFlex3 40 25\nclass EBlock4 57 63\n").unwrap();
        let teacher_w = Weights::parse(
            "tempo 50\nclass HFlex3 150 90\nclass EBlock4 20 100\nclass LFlex2 30 10\n",
        )
        .unwrap();
        let teacher = Model::new(&teacher_w, Rule::Freestyle);
        let samples = taught(&teacher, 4000);
        let mut student = Model::new(&student_w, Rule::Freestyle);
        let before = student.loss(&samples, true, 200.0);
        let settings = settings(600, 1e-6, 1_000_000, false);
        let mut losses = Vec::new();
        student.fit(&samples, &settings, &mut |_, l| losses.push(l));
        let after = student.loss(&samples, true, 200.0);
        // The teacher's own loss is the least there is (the targets' entropy).
        let floor = teacher.loss(&samples, true, 200.0);
        assert!(
            before - floor > 0.01,
            "the student starts wrong: {before} vs {floor}"
        );
        assert!(
            after - floor < 0.001,
            "held-out loss {before} -> {after}, floor {floor}"
        );
        assert!(losses.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{losses:?}");
        let w = student.weights();
        let got = w.side(Color::Black).class;
        let want = teacher_w.side(Color::Black).class;
        for k in [Pattern4::HFlex3, Pattern4::EBlock4, Pattern4::LFlex2] {
            for role in 0..2 {
                let (g, t) = (got[k as usize][role], want[k as usize][role]);
                assert!(
                    (g - t).abs() <= 8,
                    "{k:?} role {role}: learned {g}, taught {t}"
                );
            }
        }
        assert!((w.tempo - 50).abs() <= 8, "tempo {}", w.tempo);
        // Without data of their own, the codes keep their classes' values: none is listed.
        assert!(
            w.side(Color::Black).codes.is_empty(),
            "{:?}",
            w.side(Color::Black).codes
        );
    }

    /// Sibling groups of three positions over `taught`'s codes (but the open three with a
    /// sleeping two): each group's targets are the teacher's values plus an offset of the
    /// group's that no feature explains (as a search sees tactics the cells cannot say).
    /// Every tenth group is held out.
    fn taught_siblings(teacher: &Model, groups: usize) -> Samples {
        let all = fixture_codes();
        let codes = [all[0], all[2], all[3]];
        let mut s = Samples::default();
        let mut rng = 777u64;
        let mut next = |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        let values = teacher.values();
        for g in 0..groups {
            let offset = next(601) as f64 - 300.0;
            for _ in 0..3 {
                let mut feats = Vec::new();
                for &code in &codes {
                    for role in 0..2 {
                        let count = next(3) as i16;
                        if count > 0 {
                            let sign = if role == 0 { 1 } else { -1 };
                            feats.push((param(0, code, role) as u32, sign * count));
                        }
                    }
                }
                let e = offset + teacher_eval(teacher, &values, &feats);
                let target = win_probability(e, 200.0);
                s.push_features(feats, target, g % 10 == 0, Some(g as u64));
            }
        }
        s
    }

    #[test]
    fn the_ranking_loss_pairs_siblings_and_sees_past_what_they_share() {
        let teacher_w =
            Weights::parse("tempo 0\nclass HFlex3 150 90\nclass EBlock4 20 100\n").unwrap();
        let teacher = Model::new(&teacher_w, Rule::Freestyle);
        let samples = taught_siblings(&teacher, 1500);
        // Pairs: the three siblings of each group, within the training or held-out ones.
        let pairs = sibling_pairs(&samples, false);
        assert_eq!(pairs.len(), 1350 * 3);
        assert!(pairs
            .iter()
            .all(|&(i, j)| i < j && samples.parent[i] == samples.parent[j]));
        assert_eq!(sibling_pairs(&samples, true).len(), 150 * 3);
        // A sample with no parent is never paired.
        let mut lone = Samples::default();
        for _ in 0..3 {
            lone.push_features(vec![(0, 1)], 0.5, false, None);
        }
        assert!(sibling_pairs(&lone, false).is_empty());
        // The groups' offsets blur the fit to each target; the pairs cancel them out.
        let error = |rank: f64| {
            let start =
                Weights::parse("tempo 0\nclass HFlex3 40 25\nclass EBlock4 57 63\n").unwrap();
            let mut student = Model::new(&start, Rule::Freestyle);
            let settings = Settings {
                rank,
                ..settings(300, 1e-6, 1_000_000, false)
            };
            let before = student.pair_agreement(&samples, true).unwrap();
            student.fit(&samples, &settings, &mut |_, _| {});
            let after = student.pair_agreement(&samples, true).unwrap();
            let got = student.weights().side(Color::Black).class;
            let want = teacher_w.side(Color::Black).class;
            let err: i32 = [Pattern4::HFlex3, Pattern4::EBlock4]
                .iter()
                .flat_map(|&k| {
                    (0..2).map(move |r| (got[k as usize][r] - want[k as usize][r]).abs())
                })
                .sum();
            (err, before, after)
        };
        let (plain, _, plain_after) = error(0.0);
        let (ranked, before, ranked_after) = error(4.0);
        assert!(
            ranked < plain,
            "error {ranked} with the ranking loss, {plain} without"
        );
        assert!(ranked_after > before && ranked_after >= plain_after);
    }

    #[test]
    fn the_threat_term_learns_what_the_cells_cannot_say() {
        // Positions with none to two open-three cells and one of three threat masks; the
        // teacher's values depend on the mask, which no cell value can follow.
        let open3 = pcode([Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let masks = [0usize, 0b10000, 0b10000 << 5];
        let taught = [0.0, 120.0, -90.0];
        let mut samples = Samples::default();
        let mut rng = 99u64;
        for i in 0..3000 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = (rng >> 33) as usize % 3;
            let n = (rng >> 40) as i16 % 3;
            let e = 40.0 * n as f64 + taught[j];
            let feats = vec![
                (param(0, open3, 0) as u32, n),
                (threat_param(0, masks[j]) as u32, 1),
            ];
            samples.push_features(feats, win_probability(e, 200.0), i % 10 == 0, None);
        }
        let w = Weights::parse("tempo 0\nclass HFlex3 40 25\n").unwrap();
        let mut student = Model::new(&w, Rule::Freestyle);
        let before = student.loss(&samples, true, 200.0);
        student.fit(&samples, &settings(600, 1e-9, 10, true), &mut |_, _| {});
        assert!(student.loss(&samples, true, 200.0) < before);
        let learned = student.weights();
        let t = learned.threat_table(Color::Black);
        for (&mask, &want) in masks.iter().zip(&taught) {
            assert!(
                (t[mask] as f64 - want).abs() <= 8.0,
                "mask {mask:#b}: learned {}, taught {want}",
                t[mask]
            );
        }
        // The classes were kept, and the file says what was learned.
        assert_eq!(learned.sides[0].class, w.sides[0].class);
        assert_eq!(Weights::parse(&learned.to_text("")).unwrap(), learned);
    }

    #[test]
    fn kept_classes_stay_and_the_codes_learn_instead() {
        let student_w =
            Weights::parse("tempo 0\nclass HFlex3 40 25\nclass EBlock4 57 63\n").unwrap();
        let teacher_w =
            Weights::parse("tempo 0\nclass HFlex3 150 90\nclass EBlock4 20 100\n").unwrap();
        let samples = taught(&Model::new(&teacher_w, Rule::Freestyle), 2000);
        let mut student = Model::new(&student_w, Rule::Freestyle);
        let before = student.loss(&samples, true, 200.0);
        let settings = settings(300, 1e-9, 10, true);
        student.fit(&samples, &settings, &mut |_, _| {});
        assert!(student.loss(&samples, true, 200.0) < before);
        let w = student.weights();
        assert_eq!(w.sides[0].class, student_w.sides[0].class);
        assert_eq!(w.tempo, 0);
        let open3 = pcode([Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let learned = w.sides[0].codes[&open3];
        assert!(learned[0] > 100, "{learned:?}");
    }
}
