//! The evaluation's weights: per rule, what each empty cell is worth to each colour by its
//! pattern code. They are text files in `src/pattern/weights/`, one per rule, compiled into
//! the binary; `pbrain-wuzi train` writes them.
//!
//! A file holds:
//!
//! ```text
//! tempo 144                  the side to move's bonus
//! side black                 (renju only) the lines below are black's; `side white` follows
//! class HFlex3 40 25         every code of this threat class: own value, their value
//! code F3 B3 F1 Dead 52 31   one pattern code (its four line patterns): own, their
//! threat CH E -40            the threat term: which threats each side has, and its value
//! ```
//!
//! "Own" is what the cell is worth to the side to move, "their" what it is worth to the
//! side that has just moved. A code not listed takes its class's values. Lines starting
//! with `#` are comments. Without `side` lines, both colours share the values.
//!
//! The threat term adds one value for the whole position, by which kinds of threat point
//! each side has somewhere on the board (see `THREAT_GROUPS`): the side to move's letters
//! first, then the other side's (`-` for none). Under renju a `side` section's threat
//! lines are for that colour to move. A combination not listed adds nothing. Cell values
//! add up cell by cell; this term is what they cannot say, that two threats together
//! (or a threat met by a threat) are worth more or less than each alone.

use super::{combine, Pattern, Pattern4, PATTERNS_OF_PCODE};
use crate::types::{Color, Rule};
use anyhow::{anyhow, bail, Context};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Own and their value of one code or class.
pub type Pair = [i32; 2];

/// Where a `Pair` (and the board's sums) keeps the value to the side to move.
pub const OWN: usize = 0;
/// Where it keeps the value to the side that has just moved.
pub const THEIR: usize = 1;

/// One colour's weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideWeights {
    /// Per `Pattern4` class.
    pub class: [Pair; Pattern4::COUNT],
    /// Codes whose values differ from their class's.
    pub codes: BTreeMap<u16, Pair>,
    /// The threat term's non-zero values, by threat mask (see `THREAT_GROUPS`).
    pub threat: BTreeMap<u16, i32>,
}

/// The threat term's kinds of threat point, with their letters in a file: a colour's
/// threat mask has bit `i` set when it has an empty cell of a class in group `i`.
pub const THREAT_GROUPS: [(char, &[Pattern4]); 5] = [
    // An open four: the other side has an open three to answer.
    ('B', &[Pattern4::BFlex4]),
    // A four with a three or more behind it.
    ('C', &[Pattern4::CBlock4Flex3, Pattern4::DBlock4Plus]),
    // A four alone.
    ('E', &[Pattern4::EBlock4]),
    // Two threes, or a three and more.
    ('F', &[Pattern4::FFlex3x2, Pattern4::GFlex3Plus]),
    // An open three.
    ('H', &[Pattern4::HFlex3]),
];
/// Bits of one colour's part of a threat mask.
pub const THREAT_BITS: usize = THREAT_GROUPS.len();
/// Threat masks: the side to move's bits, then the other side's above them.
pub const THREAT_MASKS: usize = 1 << (2 * THREAT_BITS);
// A file's masks are kept as `u16`.
const _: () = assert!(THREAT_MASKS <= 1 << 16);

/// One colour's threat letters (`-` for none) as its bits of a mask.
fn threat_bits(word: &str) -> anyhow::Result<usize> {
    if word == "-" {
        return Ok(0);
    }
    let mut bits = 0;
    for ch in word.chars() {
        let i = THREAT_GROUPS
            .iter()
            .position(|&(c, _)| c == ch)
            .ok_or_else(|| anyhow!("unknown threat letter {ch} (B, C, E, F, H or -)"))?;
        if bits & 1 << i != 0 {
            bail!("threat letter {ch} twice");
        }
        bits |= 1 << i;
    }
    Ok(bits)
}

/// One colour's bits of a mask as letters, `-` for none.
fn threat_letters(bits: usize) -> String {
    let s: String = THREAT_GROUPS
        .iter()
        .enumerate()
        .filter(|&(i, _)| bits & 1 << i != 0)
        .map(|(_, &(c, _))| c)
        .collect();
    if s.is_empty() {
        "-".to_string()
    } else {
        s
    }
}

/// One rule's weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub tempo: i32,
    /// One entry for both colours, or black's then white's.
    pub sides: Vec<SideWeights>,
}

/// The compiled-in text of each rule's file, in `Rule::ALL` order. Exact five plays with
/// the freestyle file: values learned from freestyle games beat exact five's own class
/// values in exact-five self-play, and a fit to exact-five games did not (see the README's
/// "Exact five").
const FILES: [&str; 5] = [
    include_str!("weights/freestyle.txt"),
    include_str!("weights/freestyle.txt"),
    include_str!("weights/renju.txt"),
    include_str!("weights/caro.txt"),
    include_str!("weights/caro-exact.txt"),
];

/// How many value sets a rule's files hold: renju has one for black and one for white
/// (black's fouls change what its shapes are worth); every other rule, one for both.
pub fn sides(rule: Rule) -> usize {
    if rule == Rule::Renju {
        2
    } else {
        1
    }
}

/// A weights file for `rule`, checked: it parses and holds the rule's number of sides.
pub fn read(path: &std::path::Path, rule: Rule) -> anyhow::Result<Weights> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    let w = Weights::parse(&text).map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
    anyhow::ensure!(
        w.sides.len() == sides(rule),
        "{}: the values of {} colour(s), where {} takes {}",
        path.display(),
        w.sides.len(),
        rule.name(),
        sides(rule)
    );
    Ok(w)
}

/// The compiled-in weights of `rule`.
pub fn builtin(rule: Rule) -> Weights {
    // The files are part of the source and every one is parsed by the tests.
    Weights::parse(FILES[rule.idx()]).expect("the compiled-in weights parse")
}

fn pattern_named(s: &str) -> Option<Pattern> {
    (0..Pattern::COUNT as u8)
        .map(Pattern::from_u8)
        .find(|p| format!("{p:?}") == s)
}

pub(crate) fn class_named(s: &str) -> Option<Pattern4> {
    (0..Pattern4::COUNT as u8)
        .map(Pattern4::from_u8)
        .find(|p| format!("{p:?}") == s)
}

fn number(s: &str) -> anyhow::Result<i32> {
    s.parse::<i32>().map_err(|_| anyhow!("not a number: {s}"))
}

/// Two values, own and their.
fn pair(w: &[&str]) -> anyhow::Result<Pair> {
    match w {
        [a, b] => Ok([number(a)?, number(b)?]),
        _ => bail!("expected two values, own and their"),
    }
}

/// The words after `code` on a line of a weights or policy file: four line patterns and
/// two values. Returns the pattern code and the values.
pub fn code_line(words: &[&str]) -> anyhow::Result<(u16, Pair)> {
    if words.len() != 6 {
        bail!("expected four patterns and two values");
    }
    let mut p = [Pattern::Dead; 4];
    for (q, w) in p.iter_mut().zip(&words[..4]) {
        *q = pattern_named(w).ok_or_else(|| anyhow!("unknown pattern {w}"))?;
    }
    Ok((super::pcode(p), pair(&words[4..])?))
}

/// Write the `code` line of pattern code `code` with its values `v`.
pub fn write_code_line(s: &mut String, code: u16, v: Pair) {
    let p = PATTERNS_OF_PCODE[code as usize];
    let _ = writeln!(
        s,
        "code {:?} {:?} {:?} {:?} {} {}",
        p[0], p[1], p[2], p[3], v[0], v[1]
    );
}

impl SideWeights {
    /// Every code at its class's values from `class`.
    pub fn classes(class: [Pair; Pattern4::COUNT]) -> SideWeights {
        SideWeights {
            class,
            codes: BTreeMap::new(),
            threat: BTreeMap::new(),
        }
    }

    /// The values of `code`, whose class is `class`.
    pub fn value(&self, code: u16, class: Pattern4) -> Pair {
        self.codes
            .get(&code)
            .copied()
            .unwrap_or(self.class[class as usize])
    }
}

impl Weights {
    /// Read a weights file's text.
    pub fn parse(text: &str) -> anyhow::Result<Weights> {
        let mut tempo = None;
        let mut sides: Vec<SideWeights> = Vec::new();
        let mut named_sides = 0;
        let empty = || SideWeights::classes([[0; 2]; Pattern4::COUNT]);
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = || format!("line {}: {line}", n + 1);
            (|| -> anyhow::Result<()> {
                match words[0] {
                    "tempo" => match words[1..] {
                        [v] => tempo = Some(number(v)?),
                        _ => bail!("expected one value"),
                    },
                    "side" => {
                        let want = ["black", "white"].get(named_sides).copied();
                        if words[1..] != [want.unwrap_or("")] || sides.len() != named_sides {
                            bail!("expected `side black` first, then `side white`");
                        }
                        named_sides += 1;
                        sides.push(empty());
                    }
                    "class" => {
                        let k = words
                            .get(1)
                            .and_then(|s| class_named(s))
                            .ok_or_else(|| anyhow!("unknown class"))?;
                        if sides.is_empty() {
                            sides.push(empty());
                        }
                        let side = sides.last_mut().expect("a side");
                        side.class[k as usize] = pair(&words[2..])?;
                    }
                    "code" => {
                        let (code, values) = code_line(&words[1..])?;
                        if sides.is_empty() {
                            sides.push(empty());
                        }
                        sides.last_mut().expect("a side").codes.insert(code, values);
                    }
                    "threat" => {
                        let [own, their, v] = words[1..] else {
                            bail!("expected the two sides' threat letters and a value");
                        };
                        let mask = threat_bits(own)? | threat_bits(their)? << THREAT_BITS;
                        if sides.is_empty() {
                            sides.push(empty());
                        }
                        let side = sides.last_mut().expect("a side");
                        match number(v)? {
                            0 => side.threat.remove(&(mask as u16)),
                            v => side.threat.insert(mask as u16, v),
                        };
                    }
                    w => bail!("unknown entry {w}"),
                }
                Ok(())
            })()
            .with_context(at)?;
        }
        let tempo = tempo.ok_or_else(|| anyhow!("no tempo line"))?;
        if sides.is_empty() || named_sides == 1 {
            bail!("expected class values for both colours, or `side black` and `side white`");
        }
        Ok(Weights { tempo, sides })
    }

    /// The file's text, with `header` as its opening comment.
    pub fn to_text(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        let _ = writeln!(s, "tempo {}", self.tempo);
        for (i, side) in self.sides.iter().enumerate() {
            if self.sides.len() == 2 {
                let _ = writeln!(s, "side {}", ["black", "white"][i]);
            }
            for (k, v) in side.class.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "class {:?} {} {}",
                    Pattern4::from_u8(k as u8),
                    v[0],
                    v[1]
                );
            }
            for (&code, &v) in &side.codes {
                write_code_line(&mut s, code, v);
            }
            for (&mask, &v) in &side.threat {
                let own = threat_letters(mask as usize & ((1 << THREAT_BITS) - 1));
                let their = threat_letters(mask as usize >> THREAT_BITS);
                let _ = writeln!(s, "threat {own} {their} {v}");
            }
        }
        s
    }

    /// The weights of colour `c`.
    pub fn side(&self, c: Color) -> &SideWeights {
        &self.sides[c.idx().min(self.sides.len() - 1)]
    }

    /// The threat term for colour `c` to move, by threat mask.
    pub fn threat_table(&self, c: Color) -> [i32; THREAT_MASKS] {
        let mut t = [0; THREAT_MASKS];
        for (&mask, &v) in &self.side(c).threat {
            t[mask as usize] = v;
        }
        t
    }

    /// Per pattern code, colour `c`'s values under `rule`, saturated to 16 bits.
    pub fn table(&self, rule: Rule, c: Color) -> Vec<[i16; 2]> {
        let side = self.side(c);
        let renju_black = rule == Rule::Renju && c == Color::Black;
        PATTERNS_OF_PCODE
            .iter()
            .enumerate()
            .map(|(code, &p)| {
                let v = side.value(code as u16, combine(p, renju_black));
                v.map(|x| x.clamp(i16::MIN as i32, i16::MAX as i32) as i16)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compiled_in_file_parses_and_writes_back_the_same() {
        for rule in Rule::ALL {
            let w = Weights::parse(FILES[rule.idx()])
                .unwrap_or_else(|e| panic!("{}: {e:#}", rule.name()));
            assert_eq!(w.sides.len(), sides(rule));
            assert_eq!(Weights::parse(&w.to_text("again")).unwrap(), w);
        }
    }

    #[test]
    fn codes_override_their_class() {
        let w = Weights::parse(
            "tempo 10\nclass HFlex3 40 25\n# a comment\ncode F3 Dead Dead Dead 50 30\n",
        )
        .unwrap();
        let t = w.table(Rule::Freestyle, Color::White);
        let open3 = super::super::pcode([Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead]);
        let open3_two =
            super::super::pcode([Pattern::F3, Pattern::B1, Pattern::Dead, Pattern::Dead]);
        assert_eq!(t[open3 as usize], [50, 30]);
        assert_eq!(t[open3_two as usize], [40, 25]);
        assert_eq!(t[0], [0, 0]);
        assert_eq!(w.tempo, 10);
    }

    #[test]
    fn threat_lines_set_their_masks_and_write_back() {
        let w = Weights::parse("tempo 0\nthreat CH E -40\nthreat - FH 25\nthreat E - 0\n").unwrap();
        let t = w.threat_table(Color::Black);
        // B is bit 0, C bit 1, E bit 2, F bit 3, H bit 4; the other side's are 5 higher.
        assert_eq!(t[0b10010 | 0b00100 << 5], -40);
        assert_eq!(t[0b11000 << 5], 25);
        assert_eq!(t.iter().filter(|&&v| v != 0).count(), 2);
        let text = w.to_text("");
        assert!(text.contains("threat CH E -40\n"), "{text}");
        assert!(text.contains("threat - FH 25\n"), "{text}");
        assert_eq!(Weights::parse(&text).unwrap(), w);
    }

    #[test]
    fn broken_files_say_which_line() {
        for (text, want) in [
            ("class HFlex3 40 25\n", "no tempo"),
            ("tempo 1\nclass Nonsense 1 2\n", "line 2"),
            ("tempo 1\nclass HFlex3 1\n", "two values"),
            ("tempo x\n", "not a number"),
            ("tempo 1\ncode F3 F3 Dead 1 2\n", "four patterns"),
            ("tempo 1\ncode F3 F3 Dead Q 1 2\n", "unknown pattern Q"),
            ("tempo 1\nside white\n", "side black"),
            ("tempo 1\nside black\nclass HFlex3 1 2\n", "both colours"),
            ("tempo 1\nbanana\n", "unknown entry"),
            ("tempo 1\nthreat C 5\n", "threat letters and a value"),
            ("tempo 1\nthreat CX - 5\n", "unknown threat letter X"),
            ("tempo 1\nthreat CC - 5\n", "letter C twice"),
            ("tempo 1\nthreat C - five\n", "not a number"),
        ] {
            let e = format!("{:#}", Weights::parse(text).unwrap_err());
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
