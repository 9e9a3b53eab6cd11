//! Move-ordering scores: per rule and colour, what playing an empty cell is worth to the
//! search's move ordering by the cell's pattern codes, the mover's own (what the move
//! makes) and the opponent's (what it stops). They are text files in
//! `src/pattern/policy/`, one per rule, compiled into the binary; `pbrain-wuzi train
//! --policy` writes them.
//!
//! A file holds:
//!
//! ```text
//! side black                 (renju only) the lines below are black's; `side white` follows
//! code F3 B3 F1 Dead 310 95  one pattern code (its four line patterns): own, their score
//! ```
//!
//! A code not listed takes its *prior* (`prior`): a fixed score of its threat class and its
//! line patterns, the ordering the engine used before it learned one. Lines starting with
//! `#` are comments. Without `side` lines, both colours share the scores.

use super::weights::{code_line, write_code_line, Pair};
use super::{combine, Pattern, Pattern4, NUM_PCODES, PATTERNS_OF_PCODE};
use crate::types::{Color, Rule};
use anyhow::bail;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Prior weight of a line pattern for the side that would play it.
const LINE_SCORE: [i32; Pattern::COUNT] = [0, 0, 1, 2, 3, 8, 9, 10, 12, 24, 28, 40, 120, 600];

/// Prior weight of a `Pattern4` class.
const P4_SCORE: [i32; Pattern4::COUNT] =
    [0, 4, 6, 30, 36, 50, 70, 400, 60, 120, 800, 2000, 0, 10000];

/// The prior scores of a code with line patterns `p` and class `class`: its class's weight
/// and its patterns' together, twice over for the mover (own), once for the opponent's
/// cell it blocks (their).
pub fn prior(p: [Pattern; 4], class: Pattern4) -> Pair {
    let s = P4_SCORE[class as usize] + p.iter().map(|&q| LINE_SCORE[q as usize]).sum::<i32>();
    [2 * s, s]
}

/// The compiled-in text of each rule's file, in `Rule::ALL` order.
const FILES: [&str; 5] = [
    include_str!("policy/freestyle.txt"),
    include_str!("policy/standard.txt"),
    include_str!("policy/renju.txt"),
    include_str!("policy/caro.txt"),
    include_str!("policy/caro-exact.txt"),
];

/// One rule's learned scores: the codes that differ from their prior, one map for both
/// colours or black's then white's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub sides: Vec<BTreeMap<u16, Pair>>,
}

/// The compiled-in scores of `rule`.
pub fn builtin(rule: Rule) -> Policy {
    // The files are part of the source and every one is parsed by the tests.
    Policy::parse(FILES[rule.idx()]).expect("the compiled-in policy parses")
}

impl Policy {
    /// Read a policy file's text.
    pub fn parse(text: &str) -> anyhow::Result<Policy> {
        let mut sides: Vec<BTreeMap<u16, Pair>> = Vec::new();
        let mut named_sides = 0;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut entry = || -> anyhow::Result<()> {
                match words[0] {
                    "side" => {
                        let want = ["black", "white"].get(named_sides).copied();
                        if words[1..] != [want.unwrap_or("")] || sides.len() != named_sides {
                            bail!("expected `side black` first, then `side white`");
                        }
                        named_sides += 1;
                        sides.push(BTreeMap::new());
                    }
                    "code" => {
                        let (code, pair) = code_line(&words[1..])?;
                        if sides.is_empty() {
                            sides.push(BTreeMap::new());
                        }
                        sides.last_mut().expect("a side").insert(code, pair);
                    }
                    w => bail!("unknown entry {w}"),
                }
                Ok(())
            };
            entry().map_err(|e| e.context(format!("line {}: {line}", n + 1)))?;
        }
        if named_sides == 1 {
            bail!("expected `side white` after `side black`");
        }
        Ok(Policy { sides })
    }

    /// The file's text, with `header` as its opening comment.
    pub fn to_text(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        for (i, side) in self.sides.iter().enumerate() {
            if self.sides.len() == 2 {
                let _ = writeln!(s, "side {}", ["black", "white"][i]);
            }
            for (&code, &v) in side {
                write_code_line(&mut s, code, v);
            }
        }
        s
    }

    /// Per pattern code, colour `c`'s own and their scores under `rule`.
    pub fn table(&self, rule: Rule, c: Color) -> Vec<Pair> {
        let learned = self.sides.get(c.idx().min(self.sides.len().max(1) - 1));
        let renju_black = rule == Rule::Renju && c == Color::Black;
        (0..NUM_PCODES)
            .map(|code| {
                let p = PATTERNS_OF_PCODE[code];
                learned
                    .and_then(|m| m.get(&(code as u16)).copied())
                    .unwrap_or_else(|| prior(p, combine(p, renju_black)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::pcode;

    #[test]
    fn every_compiled_in_file_parses_and_writes_back_the_same() {
        for rule in Rule::ALL {
            let p = Policy::parse(FILES[rule.idx()])
                .unwrap_or_else(|e| panic!("{}: {e:#}", rule.name()));
            assert!(p.sides.len() <= crate::pattern::weights::sides(rule));
            assert_eq!(Policy::parse(&p.to_text("again")).unwrap(), p);
        }
    }

    #[test]
    fn listed_codes_replace_their_prior() {
        let p = Policy::parse("# a comment\ncode F3 Dead Dead Dead 50 30\n").unwrap();
        let open3 = [Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead];
        let open3_two = [Pattern::F3, Pattern::B1, Pattern::Dead, Pattern::Dead];
        for c in [Color::Black, Color::White] {
            let t = p.table(Rule::Freestyle, c);
            assert_eq!(t[pcode(open3) as usize], [50, 30]);
            let prior_two = prior(open3_two, Pattern4::HFlex3);
            assert_eq!(t[pcode(open3_two) as usize], prior_two);
            // An open three's weight (50) and its patterns' (24 and 1), twice for the mover.
            assert_eq!(prior_two, [2 * 75, 75]);
        }
        // With no file entry at all, every code takes its prior; renju's black takes the
        // class of a forbidden point (weight 0) for a double three, white a double three's.
        let double3 = [Pattern::F3, Pattern::F3, Pattern::Dead, Pattern::Dead];
        let t = Policy::default().table(Rule::Renju, Color::Black);
        assert_eq!(t[pcode(double3) as usize], [2 * 48, 48]);
        let t = Policy::default().table(Rule::Renju, Color::White);
        assert_eq!(t[pcode(double3) as usize], [2 * (400 + 48), 400 + 48]);
    }

    #[test]
    fn broken_files_say_which_line() {
        for (text, want) in [
            ("code F3 F3 Dead 1 2\n", "four patterns"),
            ("code F3 F3 Dead Q 1 2\n", "unknown pattern Q"),
            ("code F3 F3 Dead Dead x 2\n", "not a number"),
            ("side white\n", "side black"),
            ("side black\ncode F3 F3 Dead Dead 1 2\n", "side white"),
            ("\nbanana\n", "line 2"),
        ] {
            let e = format!("{:#}", Policy::parse(text).unwrap_err());
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
