//! The pattern-codebook network: a learned correction of the evaluation that reads every
//! empty cell's four lines.
//!
//! Each empty cell looks up, for each of its four lines, a learned vector of `DIM` numbers
//! by the line's pair of patterns (black's and white's, as the board keeps them: see
//! `lines::Pattern`); the four vectors and a bias add up to the cell's features, which are
//! clipped to 0..1 (so a cell can say "four-three here" where each line alone says less).
//! The clipped features of all empty cells add up to the board's `DIM` sums; a small head
//! per side to move (`HIDDEN` rectified units and a weighted sum) turns them into the
//! correction, in evaluation units. The board keeps the sums up to date: a move changes
//! the features of the cells whose line patterns it changed, and only those.
//!
//! Everything the board computes is integer (features in 1/512, sums exact, the head in
//! fixed point), so a position evaluates the same in any order of moves and on any CPU.
//!
//! A file (written by `scripts/train-codebook.py`) holds:
//!
//! ```text
//! codebook 16 32                 DIM and HIDDEN, first
//! line F3 B1 0.12 ...            the vector of a line whose patterns are (black F3, white B1)
//! cell 0.5 ...                   the cell's bias
//! side black                     the head used with black to move, then `side white`
//! unit 0.3 12.5 0.1 ...          per hidden unit: its bias, its weight in the correction
//!                                (evaluation units), then DIM input weights
//! offset -4                      the correction's constant, closing the side
//! ```
//!
//! A pattern pair not listed adds nothing. Lines starting with `#` are comments.

use super::net::{number, values as vector};
use super::Pattern;
use crate::types::Color;
use anyhow::{anyhow, bail, ensure};
use std::fmt::Write;

/// Features per cell.
pub const DIM: usize = 16;
/// Hidden units of each head.
pub const HIDDEN: usize = 32;
/// Line-pattern pairs, indexed by the board's byte (black's pattern in the low nibble,
/// white's in the high one).
pub const PAIRS: usize = 256;

/// A feature's integer units per 1.0: a clipped feature is 0..=ONE.
const ONE: i32 = 512;
/// The head reads the sums divided by this many cells' worth (so that its inputs stay
/// near 1 on a full board).
pub const POOL_CELLS: f32 = 16.0;
/// Fixed point of the head's input weights, and the largest weight kept (so that a
/// hidden unit's sum stays within `i32` on the largest board).
const W_ONE: f64 = 512.0;
const MAX_W: f32 = 8.0;
/// The head reads the sums shifted down this many bits (a cell's 1.0 is then 16), so
/// that they fit in `i16` on the largest board and the products in `i32`.
const X_SHIFT: u32 = 5;
/// Fixed point of the head's output weights.
const OUT_ONE: f64 = 256.0;
/// Largest vector entry kept (in units of 1.0): five of them still add up within `i16`.
const MAX_ENTRY: f32 = 12.0;

/// One hidden unit of a head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub bias: f32,
    pub out: f32,
    pub w: [f32; DIM],
}

/// A head: what the sums are worth with one side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    pub units: [Unit; HIDDEN],
    pub offset: f32,
}

/// A codebook network as a file writes it (floating point).
#[derive(Clone, Debug, PartialEq)]
pub struct CodebookFile {
    pub lines: Vec<[f32; DIM]>,
    pub cell: [f32; DIM],
    /// Black to move, white to move.
    pub heads: [Head; 2],
}

/// A codebook network as the board uses it (integer).
#[derive(Clone, Debug)]
pub struct Codebook {
    lines: Vec<[i16; DIM]>,
    cell: [i16; DIM],
    heads: [QHead; 2],
}

#[derive(Clone, Debug)]
struct QHead {
    w: [[i16; DIM]; HIDDEN],
    bias: [i32; HIDDEN],
    out: [i64; HIDDEN],
    offset: i64,
}

/// The features of a cell: clipped, in 1/`ONE`.
pub type Features = [i16; DIM];
/// The board's sums of features.
pub type Sums = [i32; DIM];

/// The compiled-in text of each rule's file, in `Rule::ALL` order (`None`: the rule plays
/// without one).
const FILES: [Option<&str>; 5] = [
    Some(include_str!("weights/freestyle-codebook.txt")),
    None,
    None,
    None,
    None,
];

/// The compiled-in codebook of `rule`, if it has one.
pub fn builtin(rule: crate::types::Rule) -> Option<CodebookFile> {
    FILES[rule.idx()].map(|t| CodebookFile::parse(t).expect("the compiled-in codebook parses"))
}

/// Read and parse the codebook file `path`.
pub fn read(path: &std::path::Path) -> anyhow::Result<CodebookFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    CodebookFile::parse(&text).map_err(|e| anyhow!("{}: {e:#}", path.display()))
}

fn pattern_named(name: &str) -> Option<Pattern> {
    (0..Pattern::COUNT as u8)
        .map(Pattern::from_u8)
        .find(|p| format!("{p:?}") == name)
}

impl Head {
    fn zero() -> Head {
        Head {
            units: [Unit {
                bias: 0.0,
                out: 0.0,
                w: [0.0; DIM],
            }; HIDDEN],
            offset: 0.0,
        }
    }
}

impl CodebookFile {
    /// All zero: no correction.
    pub fn zero() -> CodebookFile {
        CodebookFile {
            lines: vec![[0.0; DIM]; PAIRS],
            cell: [0.0; DIM],
            heads: [Head::zero(), Head::zero()],
        }
    }

    /// Read a file's text.
    pub fn parse(text: &str) -> anyhow::Result<CodebookFile> {
        let mut cb = CodebookFile::zero();
        let mut started = false;
        let mut cell = false;
        // The side whose head is being read, and how many of its units so far.
        let mut side: Option<usize> = None;
        let mut units = 0;
        let mut done = [false; 2];
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            (|| -> anyhow::Result<()> {
                if !started {
                    let want = format!("codebook {DIM} {HIDDEN}");
                    ensure!(words.join(" ") == want, "expected `{want}` first");
                    started = true;
                    return Ok(());
                }
                match (words[0], side) {
                    ("line", None) => {
                        let pat = |i: usize| {
                            words
                                .get(i)
                                .and_then(|s| pattern_named(s))
                                .ok_or_else(|| anyhow!("expected two line patterns"))
                        };
                        let pair = pat(1)? as usize | (pat(2)? as usize) << 4;
                        cb.lines[pair] = vector(&words[3..])?;
                    }
                    ("cell", None) => {
                        ensure!(!cell, "given twice");
                        cell = true;
                        cb.cell = vector(&words[1..])?;
                    }
                    ("side", None) => {
                        let s = match words[1..] {
                            ["black"] => 0,
                            ["white"] => 1,
                            _ => bail!("expected `side black` or `side white`"),
                        };
                        ensure!(!done[s], "that side is given twice");
                        side = Some(s);
                        units = 0;
                    }
                    ("unit", Some(s)) => {
                        ensure!(units < HIDDEN, "more than {HIDDEN} units");
                        let v: [f32; DIM] = vector(words.get(3..).unwrap_or(&[]))?;
                        cb.heads[s].units[units] = Unit {
                            bias: number(words[1])?,
                            out: number(words[2])?,
                            w: v,
                        };
                        units += 1;
                    }
                    ("offset", Some(s)) => {
                        ensure!(units == HIDDEN, "expected {HIDDEN} units, found {units}");
                        cb.heads[s].offset = match words[1..] {
                            [v] => number(v)?,
                            _ => bail!("expected one value"),
                        };
                        done[s] = true;
                        side = None;
                    }
                    (w, _) => bail!("unexpected line {w}"),
                }
                Ok(())
            })()
            .map_err(|e| anyhow!("line {}: {line}: {e:#}", n + 1))?;
        }
        ensure!(started, "no `codebook` line: not a codebook file");
        ensure!(cell, "needs a `cell` line");
        ensure!(
            done == [true, true],
            "needs both sides' heads, each ending in `offset`"
        );
        Ok(cb)
    }

    /// The file's text, after `header`'s lines as comments.
    pub fn to_text(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let list = |v: &[f32]| {
            v.iter()
                .map(|x| format!("{x:.5}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(s, "codebook {DIM} {HIDDEN}");
        for (pair, v) in self.lines.iter().enumerate() {
            let (b, w) = (pair & 15, pair >> 4);
            if b < Pattern::COUNT && w < Pattern::COUNT && v.iter().any(|&x| x != 0.0) {
                let name = |i: usize| format!("{:?}", Pattern::from_u8(i as u8));
                let _ = writeln!(s, "line {} {} {}", name(b), name(w), list(v));
            }
        }
        let _ = writeln!(s, "cell {}", list(&self.cell));
        for (head, name) in self.heads.iter().zip(["black", "white"]) {
            let _ = writeln!(s, "side {name}");
            for u in &head.units {
                let _ = writeln!(s, "unit {:.5} {:.5} {}", u.bias, u.out, list(&u.w));
            }
            let _ = writeln!(s, "offset {:.5}", head.offset);
        }
        s
    }

    /// The network in the board's integers.
    pub fn quantize(&self) -> Codebook {
        let entry = |x: f32| (x.clamp(-MAX_ENTRY, MAX_ENTRY) * ONE as f32).round() as i16;
        let pre_one = pre_one();
        let head = |h: &Head| QHead {
            w: h.units.map(|u| {
                u.w.map(|x| (x.clamp(-MAX_W, MAX_W) as f64 * W_ONE).round() as i16)
            }),
            bias: h.units.map(|u| (u.bias as f64 * pre_one).round() as i32),
            out: h.units.map(|u| (u.out as f64 * OUT_ONE).round() as i64),
            offset: (h.offset as f64 * OUT_ONE * pre_one).round() as i64,
        };
        Codebook {
            lines: self.lines.iter().map(|v| v.map(entry)).collect(),
            cell: self.cell.map(entry),
            heads: [head(&self.heads[0]), head(&self.heads[1])],
        }
    }

    /// The correction for `to_move` with a board's cells' four line-pattern bytes `cells`
    /// (the empty cells'), in floating point: what the integer network computes, up to
    /// rounding.
    pub fn correction(&self, cells: &[[u8; 4]], to_move: Color) -> f32 {
        let mut sums = [0f32; DIM];
        for pats in cells {
            let mut f = self.cell;
            for &p in pats {
                for (x, v) in f.iter_mut().zip(&self.lines[p as usize]) {
                    *x += v;
                }
            }
            for (s, x) in sums.iter_mut().zip(f) {
                *s += x.clamp(0.0, 1.0);
            }
        }
        let head = &self.heads[to_move.idx()];
        let units = head.units.iter().map(|u| {
            let pre: f32 = u.w.iter().zip(&sums).map(|(w, s)| w * s / POOL_CELLS).sum();
            u.out * (pre + u.bias).max(0.0)
        });
        head.offset + units.sum::<f32>()
    }
}

/// A hidden unit's sum in units of this much per 1.0.
fn pre_one() -> f64 {
    W_ONE * (ONE >> X_SHIFT) as f64 * POOL_CELLS as f64
}

impl Codebook {
    /// The features of an empty cell with line-pattern bytes `pats`, not yet clipped.
    #[inline]
    pub fn raw_features(&self, pats: [u8; 4]) -> Features {
        let mut f = self.cell;
        for p in pats {
            let v = &self.lines[p as usize];
            for (x, y) in f.iter_mut().zip(v) {
                *x += y;
            }
        }
        f
    }

    /// Clip raw features to 0..=1.
    #[inline]
    pub fn clip(f: Features) -> Features {
        f.map(|x| x.clamp(0, ONE as i16))
    }

    /// The clipped features of an empty cell with line-pattern bytes `pats`.
    #[inline]
    pub fn features(&self, pats: [u8; 4]) -> Features {
        Self::clip(self.raw_features(pats))
    }

    /// The raw features of a cell whose line pattern `was` (one of `pats`'s bytes) is
    /// now `now`: `f` with the one line's vector traded.
    #[inline]
    pub fn traded(&self, f: &Features, was: u8, now: u8) -> Features {
        let (a, b) = (&self.lines[was as usize], &self.lines[now as usize]);
        std::array::from_fn(|i| f[i] - b[i] + a[i])
    }

    /// Add `sign` (1 or -1) times the features `f` to the sums.
    #[inline]
    pub fn add(sums: &mut Sums, f: &Features, sign: i32) {
        for (s, &x) in sums.iter_mut().zip(f) {
            *s += sign * x as i32;
        }
    }

    /// Replace a cell's features in the sums: `old`'s out, `new`'s in.
    #[inline]
    pub fn replace(sums: &mut Sums, old: &Features, new: &Features) {
        for ((s, &a), &b) in sums.iter_mut().zip(old).zip(new) {
            *s += b as i32 - a as i32;
        }
    }

    /// The correction for `to_move` with sums `sums`, in evaluation units (rounded down).
    pub fn correction(&self, sums: &Sums, to_move: Color) -> i32 {
        let h = &self.heads[to_move.idx()];
        let x: [i16; DIM] = sums.map(|s| (s >> X_SHIFT) as i16);
        let mut total = h.offset;
        for ((w, &b), &o) in h.w.iter().zip(&h.bias).zip(&h.out) {
            let pre: i32 = w.iter().zip(&x).map(|(&w, &x)| w as i32 * x as i32).sum();
            total += o * (pre + b).max(0) as i64;
        }
        let one = (OUT_ONE * pre_one()) as i64;
        total.div_euclid(one).clamp(-20000, 20000) as i32
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A codebook with every number drawn from a fixed sequence.
    pub(crate) fn scrambled() -> CodebookFile {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let mut cb = CodebookFile::zero();
        for (pair, v) in cb.lines.iter_mut().enumerate() {
            if (pair & 15) < Pattern::COUNT && (pair >> 4) < Pattern::COUNT {
                *v = std::array::from_fn(|_| next());
            }
        }
        cb.cell = std::array::from_fn(|_| next() + 0.3);
        for h in cb.heads.iter_mut() {
            for u in h.units.iter_mut() {
                u.bias = next();
                u.out = 100.0 * next();
                u.w = std::array::from_fn(|_| next());
            }
            h.offset = 10.0 * next();
        }
        cb
    }

    #[test]
    fn a_file_reads_back_as_written() {
        let cb = scrambled();
        let text = cb.to_text("a test");
        let again = CodebookFile::parse(&text).unwrap();
        assert_eq!(again.to_text("a test"), text);
        for (a, b) in cb.lines.iter().zip(&again.lines) {
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn broken_files_say_where() {
        let text = scrambled().to_text("");
        let cases = [
            (
                text.replacen("codebook 16 32", "codebook 8 32", 1),
                "line 1",
            ),
            (
                text.replacen("line F1 F1", "line F1 G7", 1),
                "expected two line patterns",
            ),
            (
                text.replacen("side white", "side green", 1),
                "expected `side black`",
            ),
            (
                text.replacen("cell ", "cell 1 ", 1),
                "expected 16 values, found 17",
            ),
        ];
        for (broken, words) in cases {
            let err = format!("{:#}", CodebookFile::parse(&broken).unwrap_err());
            assert!(err.contains(words), "{err}");
        }
        let cut: String = text
            .lines()
            .take(text.lines().count() - 1)
            .collect::<Vec<_>>()
            .join("\n");
        let err = format!("{:#}", CodebookFile::parse(&cut).unwrap_err());
        assert!(err.contains("both sides"), "{err}");
    }

    #[test]
    fn integers_follow_floating_point() {
        let cb = scrambled();
        let q = cb.quantize();
        // Cells with assorted pattern pairs: empty, and lines with twos and threes.
        let pair = |b: Pattern, w: Pattern| b as u8 | (w as u8) << 4;
        let kinds = [
            [pair(Pattern::F1, Pattern::F1); 4],
            [
                pair(Pattern::F3, Pattern::B1),
                pair(Pattern::F2, Pattern::Dead),
                pair(Pattern::F1, Pattern::F2A),
                pair(Pattern::B4, Pattern::F1),
            ],
            [
                pair(Pattern::Dead, Pattern::F3S),
                pair(Pattern::B2, Pattern::B3),
                pair(Pattern::F1, Pattern::F1),
                pair(Pattern::B1, Pattern::F2B),
            ],
        ];
        let cells: Vec<[u8; 4]> = (0..150).map(|i| kinds[i % 3]).collect();
        for side in [Color::Black, Color::White] {
            let mut sums = [0; DIM];
            for &c in &cells {
                Codebook::add(&mut sums, &q.features(c), 1);
            }
            let exact = cb.correction(&cells, side);
            let int = q.correction(&sums, side);
            assert!(
                (exact - int as f32).abs() <= 1.0 + exact.abs() * 0.02,
                "{exact} against {int}"
            );
        }
    }
}
