//! The evaluation's network: a small correction, learned from self-play, on top of the
//! cell values of `weights`.
//!
//! Cell values add up cell by cell, so they cannot say that two open threes are worth more
//! than twice one, or that a cell where both sides have a three matters more than either
//! three alone. The network reads the whole board at once: every empty cell adds a row of
//! `HIDDEN` numbers chosen by its pair of threat classes (the side to move's, the other
//! side's), the sums go through a rectifier, and a weighted sum of those is the
//! correction, in evaluation units. The board keeps the row sums (one with black as the
//! side to move, one with white), bringing them up to date from each move's changed cells
//! when an evaluation or the next move asks, so an evaluation costs `HIDDEN`
//! multiplications.
//!
//! A file holds:
//!
//! ```text
//! hidden 32                    the number of hidden units, first
//! row HFlex3 None 0.12 ...     a cell's row for a pair of classes (own, their); HIDDEN values
//! bias 0.5 ...                 each hidden unit's bias
//! out 3.1 ...                  each hidden unit's weight in the correction (evaluation units)
//! offset -4                    the correction's constant
//! ```
//!
//! A pair not listed adds nothing (a cell where neither side has anything always adds
//! nothing). `pbrain-wuzi train --net` writes these files; lines starting with `#` are
//! comments.

use super::Pattern4;
use crate::types::Rule;
use anyhow::{anyhow, bail, ensure};
use std::fmt::Write;

/// Hidden units. Files must have exactly this many: the board keeps its sums in arrays
/// of this size.
pub const HIDDEN: usize = 32;
/// Pairs of threat classes, own times their.
pub const PAIRS: usize = Pattern4::COUNT * Pattern4::COUNT;

/// The pair index of a cell: own class, their class.
#[inline]
pub fn pair(own: Pattern4, their: Pattern4) -> usize {
    own as usize * Pattern4::COUNT + their as usize
}

/// The board's integer units per unit of a row value or bias.
const ACC_ONE: f64 = 1024.0;
/// The correction's fixed-point shift: `out` values are kept in units of 2^-SHIFT of an
/// evaluation unit per `ACC_ONE`.
const OUT_SHIFT: u32 = 16;

/// A network as a file writes it (floating point).
#[derive(Clone, Debug, PartialEq)]
pub struct NetFile {
    pub rows: Vec<[f32; HIDDEN]>,
    pub bias: [f32; HIDDEN],
    pub out: [f32; HIDDEN],
    pub offset: f32,
}

/// A network as the board uses it (fixed point, so that sums kept move by move are exact
/// and an evaluation does not depend on the order the stones came in).
#[derive(Clone, Debug)]
pub struct Net {
    rows: Vec<[i32; HIDDEN]>,
    bias: [i32; HIDDEN],
    out: [i64; HIDDEN],
    offset: i32,
}

/// The compiled-in text of each rule's file, in `Rule::ALL` order; `None` plays with the
/// cell values alone. Exact five plays with freestyle's network, as it plays with
/// freestyle's cell values: against the engine without it, it won both in self-play and
/// against another engine (see the README's "Exact five").
const FILES: [Option<&str>; 5] = [
    Some(include_str!("weights/freestyle-net.txt")),
    Some(include_str!("weights/freestyle-net.txt")),
    None,
    None,
    None,
];

/// The compiled-in network of `rule`, if it has one.
pub fn builtin(rule: Rule) -> Option<NetFile> {
    FILES[rule.idx()].map(|t| NetFile::parse(t).expect("the compiled-in network parses"))
}

/// A number of a network file.
pub(super) fn number(w: &str) -> anyhow::Result<f32> {
    w.parse::<f32>()
        .ok()
        .filter(|x| x.is_finite() && x.abs() < 1e6)
        .ok_or_else(|| anyhow!("not a number: {w}"))
}

/// Exactly `N` numbers of a network file.
pub(super) fn values<const N: usize>(words: &[&str]) -> anyhow::Result<[f32; N]> {
    ensure!(
        words.len() == N,
        "expected {N} values, found {}",
        words.len()
    );
    let mut v = [0.0; N];
    for (x, w) in v.iter_mut().zip(words) {
        *x = number(w)?;
    }
    Ok(v)
}

impl NetFile {
    /// All zero: no correction.
    pub fn zero() -> NetFile {
        NetFile {
            rows: vec![[0.0; HIDDEN]; PAIRS],
            bias: [0.0; HIDDEN],
            out: [0.0; HIDDEN],
            offset: 0.0,
        }
    }

    /// Read a file's text.
    pub fn parse(text: &str) -> anyhow::Result<NetFile> {
        let mut net = NetFile::zero();
        let mut hidden = false;
        let (mut bias, mut out, mut offset) = (false, false, false);
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            (|| -> anyhow::Result<()> {
                if !hidden {
                    ensure!(
                        words == ["hidden", HIDDEN.to_string().as_str()],
                        "expected `hidden {HIDDEN}` first"
                    );
                    hidden = true;
                    return Ok(());
                }
                let once = |seen: &mut bool| -> anyhow::Result<()> {
                    ensure!(!*seen, "given twice");
                    *seen = true;
                    Ok(())
                };
                match words[0] {
                    "row" => {
                        let class = |i: usize| {
                            words
                                .get(i)
                                .and_then(|s| super::weights::class_named(s))
                                .ok_or_else(|| anyhow!("expected two threat classes"))
                        };
                        let p = pair(class(1)?, class(2)?);
                        ensure!(p != 0, "the row of two empty classes is always zero");
                        net.rows[p] = values(&words[3..])?;
                    }
                    "bias" => {
                        once(&mut bias)?;
                        net.bias = values(&words[1..])?;
                    }
                    "out" => {
                        once(&mut out)?;
                        net.out = values(&words[1..])?;
                    }
                    "offset" => {
                        once(&mut offset)?;
                        net.offset = match words[1..] {
                            [v] => number(v)?,
                            _ => bail!("expected one value"),
                        };
                    }
                    w => bail!("unknown line {w}"),
                }
                Ok(())
            })()
            .map_err(|e| anyhow!("line {}: {line}: {e:#}", n + 1))?;
        }
        ensure!(hidden, "no `hidden` line: not a network file");
        ensure!(
            bias && out && offset,
            "needs a `bias`, an `out` and an `offset` line"
        );
        Ok(net)
    }

    /// The file's text, after `header`'s lines as comments.
    pub fn to_text(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let list = |v: &[f32; HIDDEN]| {
            v.iter()
                .map(|x| format!("{x:.4}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(s, "hidden {HIDDEN}");
        for own in Pattern4::ALL {
            for their in Pattern4::ALL {
                let r = &self.rows[pair(own, their)];
                if pair(own, their) != 0 && r.iter().any(|&x| x != 0.0) {
                    let _ = writeln!(s, "row {own:?} {their:?} {}", list(r));
                }
            }
        }
        let _ = writeln!(s, "bias {}", list(&self.bias));
        let _ = writeln!(s, "out {}", list(&self.out));
        let _ = writeln!(s, "offset {:.4}", self.offset);
        s
    }

    /// The network in the board's fixed point.
    pub fn quantize(&self) -> Net {
        let q = |x: f32| (x as f64 * ACC_ONE).round() as i32;
        let mut rows: Vec<[i32; HIDDEN]> = self.rows.iter().map(|r| r.map(q)).collect();
        rows[0] = [0; HIDDEN];
        Net {
            rows,
            bias: self.bias.map(q),
            out: self
                .out
                .map(|x| (x as f64 * (1u64 << OUT_SHIFT) as f64 / ACC_ONE).round() as i64),
            offset: self.offset.round() as i32,
        }
    }

    /// The correction for a board whose cells' rows add up to `sums`, in floating point:
    /// what the fixed-point network computes, up to rounding.
    pub fn correction(&self, sums: &[f32; HIDDEN]) -> f32 {
        let hidden = sums.iter().zip(&self.bias).map(|(s, b)| (s + b).max(0.0));
        self.offset + hidden.zip(&self.out).map(|(h, o)| h * o).sum::<f32>()
    }
}

impl Net {
    /// A cell's row for its pair of classes.
    #[inline]
    pub fn row(&self, pair: usize) -> &[i32; HIDDEN] {
        &self.rows[pair]
    }

    /// The correction for the side to move whose row sums are `sums`.
    #[inline]
    pub fn correction(&self, sums: &[i32; HIDDEN]) -> i32 {
        let hidden = sums
            .iter()
            .zip(&self.bias)
            .map(|(s, b)| (s + b).max(0) as i64);
        let s: i64 = hidden.zip(&self.out).map(|(h, o)| h * o).sum();
        (s >> OUT_SHIFT) as i32 + self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_networks_parse_and_write_back() {
        for rule in Rule::ALL {
            if let Some(net) = builtin(rule) {
                let again = NetFile::parse(&net.to_text("again")).unwrap();
                assert_eq!(again.to_text(""), net.to_text(""));
            }
        }
        assert!(builtin(Rule::Freestyle).is_some());
        assert!(builtin(Rule::Standard).is_some());
    }

    #[test]
    fn broken_files_say_where() {
        let good = NetFile::zero().to_text("");
        assert!(NetFile::parse(&good).is_ok());
        let e = |t: &str| NetFile::parse(t).unwrap_err().to_string();
        assert!(e("bias 1\n").contains("expected `hidden 32` first"));
        assert!(e("hidden 8\n").contains("line 1"));
        assert!(e("hidden 32\nbias 1 2\n").contains("expected 32 values, found 2"));
        let twice = good.replace(
            "offset",
            "bias 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\noffset",
        );
        assert!(e(&twice).contains("given twice"), "{}", e(&twice));
        assert!(e("hidden 32\nrow HFlex3 Nothing 1\n").contains("two threat classes"));
        assert!(e("hidden 32\n").contains("needs a `bias`"));
        let nan = good.replace("offset 0.0000", "offset NaN");
        assert!(e(&nan).contains("not a number"));
    }

    #[test]
    fn fixed_point_follows_floating_point() {
        let mut net = NetFile::zero();
        for (k, b) in net.bias.iter_mut().enumerate() {
            *b = k as f32 / 16.0 - 1.0;
            net.out[k] = 40.0 - 3.0 * k as f32;
        }
        net.offset = 7.0;
        let r = pair(Pattern4::HFlex3, Pattern4::None);
        for k in 0..HIDDEN {
            net.rows[r][k] = (k as f32 - 10.0) / 8.0;
        }
        let q = net.quantize();
        // Three cells of that pair.
        let mut sums = [0i32; HIDDEN];
        let mut fsums = [0f32; HIDDEN];
        for _ in 0..3 {
            for k in 0..HIDDEN {
                sums[k] += q.row(r)[k];
                fsums[k] += net.rows[r][k];
            }
        }
        let (fixed, float) = (q.correction(&sums), net.correction(&fsums));
        assert!((fixed as f32 - float).abs() <= 1.0, "{fixed} {float}");
        assert!(
            float.abs() > 100.0,
            "the test network says something: {float}"
        );
    }
}
