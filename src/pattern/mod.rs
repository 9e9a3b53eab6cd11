//! Line patterns (the shape one colour would have on one line through a cell), the per-cell
//! combination `Pattern4`, and the per-rule lookup tables derived from the winning rule.
//!
//! A cell's line is read as a *key*: the 10 neighbours at distance 1..=5 on both sides, two
//! bits each (empty, black, white, wall). Five cells each side is enough to tell exact fives,
//! overlines and caro's blocked fives apart, because every shape we classify is required to
//! pass through the centre cell. `lines` derives the line tables from the rule; the build
//! script runs it, so the tables come compiled into the binary.

// The generator itself runs in the build script; in the library only the tests run it.
pub mod codebook;
#[cfg_attr(not(test), allow(dead_code))]
mod lines;
pub mod net;
mod pcode;
pub mod policy;
pub mod weights;

pub use lines::{slot, Pattern, BLACK, EMPTY, HALF, NUM_KEYS, WALL, WHITE};
pub use pcode::{pcode, NUM_PCODES, PATTERNS_OF_PCODE};

use crate::types::{Color, Rule};
use once_cell::sync::Lazy;
use std::sync::Arc;

// `LINE_TABLES`: per rule, in `Rule::ALL` order, the line table bytes with the key's shift
// and mask, written by the build script from `lines::line_table`.
include!(concat!(env!("OUT_DIR"), "/line_tables.rs"));

/// The threat class of an empty cell for one side: the combination of its four line patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern4 {
    None = 0,
    /// Open two.
    LFlex2,
    /// Sleeping three.
    KBlock3,
    /// Two open twos.
    JFlex2x2,
    /// Sleeping three plus a two or another sleeping three.
    IBlock3Plus,
    /// Open three.
    HFlex3,
    /// Open three plus a sleeping three or an open two.
    GFlex3Plus,
    /// Double open three.
    FFlex3x2,
    /// Rush four alone.
    EBlock4,
    /// Rush four plus a sleeping three or an open two.
    DBlock4Plus,
    /// Four-three.
    CBlock4Flex3,
    /// Open four or double four: wins next move.
    BFlex4,
    /// Renju black: an overline, double four or double three candidate (confirmed in `rules`).
    Forbid,
    /// Makes five.
    AFive,
}

impl Pattern4 {
    /// Number of classes.
    pub const COUNT: usize = 14;
    /// Every class, in the order of their values.
    pub const ALL: [Pattern4; 14] = [
        Pattern4::None,
        Pattern4::LFlex2,
        Pattern4::KBlock3,
        Pattern4::JFlex2x2,
        Pattern4::IBlock3Plus,
        Pattern4::HFlex3,
        Pattern4::GFlex3Plus,
        Pattern4::FFlex3x2,
        Pattern4::EBlock4,
        Pattern4::DBlock4Plus,
        Pattern4::CBlock4Flex3,
        Pattern4::BFlex4,
        Pattern4::Forbid,
        Pattern4::AFive,
    ];
    /// The class with the given discriminant.
    #[inline]
    pub fn from_u8(v: u8) -> Pattern4 {
        Self::ALL[v as usize]
    }
    /// Playing here makes a four (rush or open) or better, forbidden candidates excluded.
    #[inline]
    pub fn makes_four(self) -> bool {
        matches!(
            self,
            Pattern4::EBlock4
                | Pattern4::DBlock4Plus
                | Pattern4::CBlock4Flex3
                | Pattern4::BFlex4
                | Pattern4::AFive
        )
    }
}

/// Index of a 4-direction pattern combination: one nibble per direction.
#[inline]
pub fn combo_index(p: [Pattern; 4]) -> usize {
    p[0] as usize | (p[1] as usize) << 4 | (p[2] as usize) << 8 | (p[3] as usize) << 12
}

/// The combination index of one colour from a cell's four pattern bytes (black in the low
/// nibbles, white in the high ones): the same value as `combo_index`.
#[inline]
pub fn combo_index_packed(pats: [u8; 4], c: Color) -> usize {
    let w = u32::from_le_bytes(pats) >> (4 * c.idx() as u32);
    let x = w & 0x0F0F_0F0F;
    let x = (x | (x >> 4)) & 0x00FF_00FF;
    ((x | (x >> 8)) & 0xFFFF) as usize
}

/// Number of combination indices (some unused: a nibble above the last pattern).
pub const NUM_COMBOS: usize = 1 << 16;

/// The threat class of four line patterns for one side.
pub fn combine(p: [Pattern; 4], renju_black: bool) -> Pattern4 {
    let mut n = [0u8; Pattern::COUNT];
    for q in p {
        n[q as usize] += 1;
    }
    let c = |q: Pattern| n[q as usize];
    let flex3 = c(Pattern::F3) + c(Pattern::F3S);
    let flex2 = c(Pattern::F2) + c(Pattern::F2A) + c(Pattern::F2B);
    let fours = c(Pattern::F4) + c(Pattern::B4);
    if c(Pattern::F5) > 0 {
        return Pattern4::AFive;
    }
    if renju_black && (c(Pattern::Overline) > 0 || fours >= 2 || flex3 >= 2) {
        return Pattern4::Forbid;
    }
    if c(Pattern::F4) > 0 || c(Pattern::B4) >= 2 {
        Pattern4::BFlex4
    } else if c(Pattern::B4) == 1 && flex3 > 0 {
        Pattern4::CBlock4Flex3
    } else if c(Pattern::B4) == 1 && (c(Pattern::B3) > 0 || flex2 > 0) {
        Pattern4::DBlock4Plus
    } else if c(Pattern::B4) == 1 {
        Pattern4::EBlock4
    } else if flex3 >= 2 {
        Pattern4::FFlex3x2
    } else if flex3 == 1 && (c(Pattern::B3) > 0 || flex2 > 0) {
        Pattern4::GFlex3Plus
    } else if flex3 == 1 {
        Pattern4::HFlex3
    } else if c(Pattern::B3) >= 2 || (c(Pattern::B3) == 1 && flex2 > 0) {
        Pattern4::IBlock3Plus
    } else if flex2 >= 2 {
        Pattern4::JFlex2x2
    } else if c(Pattern::B3) == 1 {
        Pattern4::KBlock3
    } else if flex2 == 1 {
        Pattern4::LFlex2
    } else {
        Pattern4::None
    }
}

/// Where the class sits in a packed code: pattern codes need 12 bits, classes 4.
pub const CLASS_SHIFT: u32 = 12;

/// A pattern code and its threat class in one `u16`, as the board keeps them per cell.
#[inline]
pub fn packed_code(code: u16, class: Pattern4) -> u16 {
    (class as u16) << CLASS_SHIFT | code
}

/// The pattern code of a packed code.
#[inline]
pub fn code_of_packed(packed: u16) -> u16 {
    packed & ((1 << CLASS_SHIFT) - 1)
}

/// The threat class of a packed code.
#[inline]
pub fn class_of_packed(packed: u16) -> Pattern4 {
    Pattern4::from_u8((packed >> CLASS_SHIFT) as u8)
}

/// Every table one rule needs.
pub struct RuleTables {
    /// Per board key (shifted and masked, see `line_of`): black's pattern in the low
    /// nibble, white's in the high nibble.
    line: &'static [u8],
    /// The key bits the line table needs: all of them, or (when no pattern depends on the
    /// cells five away, as in freestyle) the inner eight cells only, so the table is
    /// 64 KiB instead of 1 MiB and stays in the cache.
    shift: u32,
    mask: u32,
    /// Per combination index: the pattern code with its `Pattern4` class (`packed_code`),
    /// black's; white's follow at `white_offset` (0 when the classes do not depend on
    /// the colour, so one table serves both and stays in the cache).
    packed: Vec<u16>,
    white_offset: usize,
    /// Per colour and pattern code: the evaluation's own and their values (see `weights`).
    value: [Vec<[i16; 2]>; 2],
    /// The evaluation's bonus for the side to move.
    tempo: i32,
    /// Per colour to move and threat mask: the evaluation's threat term (see `weights`).
    threat: [[i32; weights::THREAT_MASKS]; 2],
    /// Per colour and pattern code: the move-ordering scores, own and their (see `policy`).
    order: [Vec<[i32; 2]>; 2],
    /// The evaluation's network, if the rule has one (see `net`).
    net: Option<net::Net>,
    /// The evaluation's codebook network, if the rule has one (see `codebook`).
    codebook: Option<codebook::Codebook>,
}

impl RuleTables {
    /// The tables of `rule` with its compiled-in weights.
    fn build(rule: Rule) -> RuleTables {
        RuleTables::with_weights(rule, &weights::builtin(rule))
    }

    /// The tables of `rule` with evaluation weights `w` (which must hold the rule's number
    /// of sides, see `weights::sides`).
    pub fn with_weights(rule: Rule, w: &weights::Weights) -> RuleTables {
        let mut t = RuleTables::with_weights_and_net(rule, w, net::builtin(rule).as_ref());
        t.codebook = codebook::builtin(rule)
            .as_ref()
            .map(codebook::CodebookFile::quantize);
        t
    }

    /// These tables with the codebook network `cb` (none: without one).
    pub fn with_codebook(mut self, cb: Option<&codebook::CodebookFile>) -> RuleTables {
        self.codebook = cb.map(codebook::CodebookFile::quantize);
        self
    }

    /// The tables of `rule` with evaluation weights `w` and network `net` (none: the cell
    /// values alone).
    pub fn with_weights_and_net(
        rule: Rule,
        w: &weights::Weights,
        net: Option<&net::NetFile>,
    ) -> RuleTables {
        let (line, shift, mask) = LINE_TABLES[rule.idx()];
        let colours: &[bool] = if rule == Rule::Renju {
            &[true, false]
        } else {
            &[false]
        };
        let mut packed = Vec::with_capacity(colours.len() * NUM_COMBOS);
        for &renju_black in colours {
            let by_code: Vec<u16> = PATTERNS_OF_PCODE
                .iter()
                .enumerate()
                .map(|(code, &p)| packed_code(code as u16, combine(p, renju_black)))
                .collect();
            // An index with a nibble that is no pattern is never read; its code is 0.
            packed.extend(
                pcode::PCODE_OF_COMBO
                    .iter()
                    .map(|&code| by_code[code as usize]),
            );
        }
        let order = policy::builtin(rule);
        RuleTables {
            line,
            shift,
            mask,
            white_offset: packed.len() - NUM_COMBOS,
            packed,
            value: [Color::Black, Color::White].map(|c| w.table(rule, c)),
            tempo: w.tempo,
            threat: [Color::Black, Color::White].map(|c| w.threat_table(c)),
            order: [Color::Black, Color::White].map(|c| order.table(rule, c)),
            net: net.map(net::NetFile::quantize),
            codebook: None,
        }
    }

    /// How far along a line a stone can change a cell's pattern: `HALF`, or one less when
    /// the table reads only the inner eight cells.
    pub fn reach(&self) -> usize {
        if self.shift == 0 {
            HALF
        } else {
            HALF - 1
        }
    }

    /// The bits of a key that the line table reads.
    pub fn used_bits(&self, key: u32) -> u32 {
        (key >> self.shift) & self.mask
    }

    /// Both colours' patterns (black low nibble, white high) for a board key.
    #[inline]
    pub fn line_of(&self, key: u32) -> u8 {
        self.line[self.used_bits(key) as usize]
    }

    /// The pattern code of `color` with its class (`packed_code`) for a cell's four
    /// line-pattern bytes.
    #[inline]
    pub fn packed_of(&self, pats: [u8; 4], color: Color) -> u16 {
        let offset = if color == Color::White {
            self.white_offset
        } else {
            0
        };
        self.packed[offset + combo_index_packed(pats, color)]
    }

    /// The evaluation's own and their values of pattern code `code` for `color`.
    #[inline]
    pub fn value_of(&self, code: u16, color: Color) -> [i16; 2] {
        self.value[color.idx()][code as usize]
    }

    /// The move-ordering scores, own and their, of pattern code `code` for `color`.
    #[inline]
    pub fn order_of(&self, code: u16, color: Color) -> [i32; 2] {
        self.order[color.idx()][code as usize]
    }

    /// The evaluation's network, if the rule has one.
    #[inline]
    pub fn net(&self) -> Option<&net::Net> {
        self.net.as_ref()
    }

    /// The evaluation's codebook network, if the rule has one.
    #[inline]
    pub fn codebook(&self) -> Option<&codebook::Codebook> {
        self.codebook.as_ref()
    }

    /// Whether the board keeps sums for a network (see `Board::net_value`).
    #[inline]
    pub fn has_networks(&self) -> bool {
        self.net.is_some() || self.codebook.is_some()
    }

    /// The evaluation's bonus for the side to move.
    pub fn tempo(&self) -> i32 {
        self.tempo
    }

    /// The evaluation's threat term for `color` to move with threat mask `mask`.
    #[inline]
    pub fn threat_of(&self, color: Color, mask: usize) -> i32 {
        self.threat[color.idx()][mask]
    }

    /// Pattern of `color` for a board key.
    #[inline]
    pub fn pattern(&self, key: u32, color: Color) -> Pattern {
        let b = self.line_of(key);
        Pattern::from_u8(if color == Color::Black {
            b & 15
        } else {
            b >> 4
        })
    }
}

static TABLES: [Lazy<Arc<RuleTables>>; 5] = [
    Lazy::new(|| Arc::new(RuleTables::build(Rule::Freestyle))),
    Lazy::new(|| Arc::new(RuleTables::build(Rule::Standard))),
    Lazy::new(|| Arc::new(RuleTables::build(Rule::Renju))),
    Lazy::new(|| Arc::new(RuleTables::build(Rule::Caro))),
    Lazy::new(|| Arc::new(RuleTables::build(Rule::CaroExact))),
];

/// The tables of `rule` with its compiled-in weights, built on first use (call at START
/// so no timed search pays for it).
pub fn tables(rule: Rule) -> &'static Arc<RuleTables> {
    &TABLES[rule.idx()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pattern for black at the centre of a line written as text: `X` black, `O` white,
    /// `|` wall, `.` empty, `*` the centre (empty, black plays it). Missing cells are walls.
    pub(crate) fn line_pattern(rule: Rule, color: Color, s: &str) -> Pattern {
        let chars: Vec<char> = s.chars().collect();
        let c = chars.iter().position(|&ch| ch == '*').expect("centre");
        let mut key = 0u32;
        for off in -(HALF as i32)..=(HALF as i32) {
            if off == 0 {
                continue;
            }
            let i = c as i32 + off;
            let code = if i < 0 || i >= chars.len() as i32 {
                WALL
            } else {
                match chars[i as usize] {
                    'X' => BLACK,
                    'O' => WHITE,
                    '.' => EMPTY,
                    _ => WALL,
                }
            };
            key |= (code as u32) << (2 * slot(off));
        }
        tables(rule).pattern(key, color)
    }

    #[test]
    fn cut_line_tables_read_like_full_ones() {
        // Freestyle never looks five cells away, so its table is cut to the inner eight
        // cells; every key still reads black's pattern the full table gives it.
        let t = tables(Rule::Freestyle);
        assert_eq!(t.line.len(), NUM_KEYS / 16);
        let full = lines::generate_line_table(lines::LineRule::of(0, true));
        for (key, &want) in full.iter().enumerate() {
            assert_eq!(
                t.pattern(key as u32, Color::Black) as u8,
                want,
                "key {key:#x}"
            );
        }
        // Exact five must see an overline one cell further, so its table stays whole.
        assert_eq!(tables(Rule::Standard).line.len(), NUM_KEYS);
    }

    #[test]
    fn built_tables_are_the_generators() {
        // The tables the build script compiled in are what the generator gives now, for
        // every rule, and the rules' table order is `Rule::ALL`'s.
        for (i, rule) in Rule::ALL.into_iter().enumerate() {
            assert_eq!(rule.idx(), i);
            let (line, shift, mask) = lines::line_table(i);
            let built = LINE_TABLES[i];
            assert!(
                built.0 == &line[..] && (built.1, built.2) == (shift, mask),
                "{rule:?}"
            );
        }
        assert_eq!(Rule::ALL[lines::RENJU], Rule::Renju);
        assert_eq!(Rule::ALL.len(), lines::RULES);
    }

    #[test]
    fn freestyle_shapes() {
        use Pattern::*;
        let cases: &[(&str, Pattern)] = &[
            ("...XX*XX...", F5),
            ("..XXX*XX...", F5),
            ("....X*XX...", F4),
            ("...OX*XX...", B4),
            ("...X.*XX...", B4),
            ("....X*X....", F3S),
            (".....*XX...", F3S),
            ("...OX*X....", B3),
            ("....O*X....", B2),
            (".....*.X...", F2A),
            (".....*.....", F1),
            ("O....*O....", B1),
            ("O...*O....", Dead),
            ("|...X*X.O..", F3),
        ];
        let cases: Vec<_> = cases
            .iter()
            .map(|&(s, want)| (Rule::Freestyle, Color::Black, s, want))
            .collect();
        check(&cases);
    }

    /// Checks a table of (rule, colour, line, expected pattern).
    fn check(cases: &[(Rule, Color, &str, Pattern)]) {
        for &(rule, color, line, want) in cases {
            assert_eq!(
                line_pattern(rule, color, line),
                want,
                "{rule:?} {color:?} {line}"
            );
        }
    }

    #[test]
    fn exact_five_overlines() {
        use Color::{Black, White};
        use Pattern::*;
        use Rule::{Freestyle, Standard};
        check(&[
            (Standard, Black, "..XXX*XX...", Overline),
            (Standard, White, "..OOO*OO...", Overline),
            (Standard, Black, "..X.X*XX...", B4),
            // A four that can only complete to six is no four.
            (Standard, Black, "X.XXX*O", Dead),
            (Freestyle, Black, "X.XXX*O", B4),
            (Standard, Black, "..XX.*XX...", B3),
        ]);
    }

    #[test]
    fn renju_line_rules() {
        use Color::{Black, White};
        use Pattern::*;
        use Rule::Renju;
        check(&[
            // Black: overline and same-line double fours are forbidden on the line.
            (Renju, Black, "..XXX*XX...", Overline),
            (Renju, Black, "X.X*X.X", Overline),
            (Renju, Black, "XX.X*.XX", Overline),
            (Renju, Black, "XXX.*.XXX", Overline),
            (Renju, Black, "....X*XX....", F4),
            // White: five or more wins.
            (Renju, White, "..OOO*OO...", F5),
        ]);
    }

    #[test]
    fn caro_blocked_fives() {
        use Color::{Black, White};
        use Pattern::*;
        use Rule::{Caro, CaroExact};
        check(&[
            (Caro, Black, "..OXX*XXO..", Dead),
            (Caro, Black, "..OXX*XX...", F5),
            // The edge does not block.
            (Caro, Black, "|XX*XXO", F5),
            (Caro, Black, "OXXX*XXO", F5),
            (CaroExact, Black, "OXXX*XXO", Overline),
            (CaroExact, Black, "..OXX*XXO..", Dead),
            // A four whose five would be blocked at both ends is no four.
            (Caro, Black, "..OX*XX.O..", Dead),
            (Caro, Black, "..OX*XX..O.", B4),
            (Caro, White, "..XOO*OOX..", Dead),
        ]);
    }

    #[test]
    fn combinations() {
        use Pattern::*;
        assert_eq!(combine([B4, F3, Dead, Dead], false), Pattern4::CBlock4Flex3);
        assert_eq!(combine([B4, B4, Dead, Dead], false), Pattern4::BFlex4);
        assert_eq!(combine([B4, B4, Dead, Dead], true), Pattern4::Forbid);
        assert_eq!(combine([F5, Overline, Dead, Dead], true), Pattern4::AFive);
        assert_eq!(combine([F3, F3S, F1, Dead], false), Pattern4::FFlex3x2);
        assert_eq!(combine([F2, F2A, Dead, Dead], false), Pattern4::JFlex2x2);
    }
}
