//! Line patterns: the shape one colour would have on one line through a cell, and the
//! line tables that give it for every neighbourhood under a rule, derived from the rule by
//! a memoised recursion over a fixed 11-cell window (the rule only enters through the five
//! test).
//!
//! This file needs nothing but `std`: the build script includes it to compute the tables
//! once, at build time, so that no game pays for them (see `build.rs`).

/// Cells read on each side of the centre.
pub const HALF: usize = 5;
/// Number of distinct line keys (4^10).
pub const NUM_KEYS: usize = 1 << (4 * HALF);

/// Cell codes inside a key.
pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;
pub const WALL: u8 = 3;

/// The shape one side gets on one line by playing the centre cell, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five can ever pass through the cell on this line.
    Dead = 0,
    /// Playing here makes an overline or (renju black) a double four on this line: no win.
    Overline,
    /// One stone that can still grow into a sleeping two.
    B1,
    /// One stone that can grow into an open two.
    F1,
    /// Sleeping two.
    B2,
    /// Open two with few ways to an open three.
    F2,
    /// Open two with three ways to an open three.
    F2A,
    /// Open two with four or more ways to an open three.
    F2B,
    /// Sleeping three: one move from a rush four.
    B3,
    /// Open three with one open-four point.
    F3,
    /// Open three with two open-four points.
    F3S,
    /// Rush four: one five point.
    B4,
    /// Open four (or a double four on one line): two five points.
    F4,
    /// Five.
    F5,
}

impl Pattern {
    /// Number of pattern values.
    pub const COUNT: usize = 14;
    const ALL: [Pattern; 14] = [
        Pattern::Dead,
        Pattern::Overline,
        Pattern::B1,
        Pattern::F1,
        Pattern::B2,
        Pattern::F2,
        Pattern::F2A,
        Pattern::F2B,
        Pattern::B3,
        Pattern::F3,
        Pattern::F3S,
        Pattern::B4,
        Pattern::F4,
        Pattern::F5,
    ];
    /// The pattern with the given discriminant.
    #[inline]
    pub fn from_u8(v: u8) -> Pattern {
        Self::ALL[v as usize]
    }
    /// Open two of any kind.
    #[inline]
    pub fn is_open_two(self) -> bool {
        matches!(self, Pattern::F2 | Pattern::F2A | Pattern::F2B)
    }
    /// Open three of either kind.
    #[inline]
    pub fn is_open_three(self) -> bool {
        matches!(self, Pattern::F3 | Pattern::F3S)
    }
    /// Rush or open four.
    #[inline]
    pub fn is_four(self) -> bool {
        matches!(self, Pattern::B4 | Pattern::F4)
    }
}

/// How a line decides a five, per rule and colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRule {
    /// Five or more wins.
    Free,
    /// Exactly five wins.
    Exact,
    /// Exactly five wins; two five points on one line closer than 5 cells are a double four.
    RenjuBlack,
    /// Five or more wins, but an exact five with opponent stones at both ends does not.
    CaroFree,
    /// Exactly five wins unless opponent stones block both ends.
    CaroExact,
}

impl LineRule {
    /// The line rule of one colour under the rule with table index `rule` (the order of
    /// `Rule::ALL`: freestyle, exact five, renju, caro, caro with exact five).
    pub fn of(rule: usize, black: bool) -> LineRule {
        match (rule, black) {
            (RENJU, true) => LineRule::RenjuBlack,
            (0, _) | (RENJU, false) => LineRule::Free,
            (1, _) => LineRule::Exact,
            (3, _) => LineRule::CaroFree,
            (4, _) => LineRule::CaroExact,
            _ => panic!("no rule has table index {rule}"),
        }
    }
}

/// Table index of renju, the one rule where black and white read lines differently.
pub const RENJU: usize = 2;
/// Number of rules.
pub const RULES: usize = 5;

// Window cells, seen from the side whose pattern is computed.
const W_EMPTY: u8 = 0;
const W_OWN: u8 = 1;
const W_OPP: u8 = 2;
const WIN: usize = 2 * HALF + 1;
const CENTRE: usize = HALF;

#[derive(PartialEq, Eq)]
enum FiveTest {
    Five,
    Overline,
    No,
}

/// Does the run of own stones through the centre win under `lr`?
fn five_test(w: &[u8; WIN], lr: LineRule) -> FiveTest {
    let mut l = 0;
    while l < HALF && w[CENTRE - 1 - l] == W_OWN {
        l += 1;
    }
    let mut r = 0;
    while r < HALF && w[CENTRE + 1 + r] == W_OWN {
        r += 1;
    }
    let len = l + r + 1;
    if len < 5 {
        return FiveTest::No;
    }
    let caro_blocked = || len == 5 && w[CENTRE - 1 - l] == W_OPP && w[CENTRE + 1 + r] == W_OPP;
    match lr {
        LineRule::Free => FiveTest::Five,
        LineRule::Exact | LineRule::RenjuBlack => {
            if len == 5 {
                FiveTest::Five
            } else {
                FiveTest::Overline
            }
        }
        LineRule::CaroFree => {
            if caro_blocked() {
                FiveTest::No
            } else {
                FiveTest::Five
            }
        }
        LineRule::CaroExact => {
            if len > 5 {
                FiveTest::Overline
            } else if caro_blocked() {
                FiveTest::No
            } else {
                FiveTest::Five
            }
        }
    }
}

/// Key of a window (centre excluded), 2 bits per cell, nearest-left cell lowest... see `slot`.
fn window_key(w: &[u8; WIN]) -> usize {
    let mut k = 0usize;
    for (i, &cell) in w.iter().enumerate() {
        if i != CENTRE {
            k |= (cell as usize) << (2 * slot_of_window_index(i));
        }
    }
    k
}

/// Slot (0..10) of window index `i` (0..11, centre excluded).
fn slot_of_window_index(i: usize) -> usize {
    if i < CENTRE {
        i
    } else {
        i - 1
    }
}

/// Slot of the neighbour at signed offset `off` (−5..=5, not 0) in a key.
#[inline]
pub fn slot(off: i32) -> u32 {
    debug_assert!(off != 0 && off.abs() <= HALF as i32);
    if off < 0 {
        (off + HALF as i32) as u32
    } else {
        (off + HALF as i32 - 1) as u32
    }
}

const UNKNOWN: u8 = 0xFF;

fn classify(w: &mut [u8; WIN], lr: LineRule, memo: &mut [u8]) -> Pattern {
    let key = window_key(w);
    if memo[key] != UNKNOWN {
        return Pattern::from_u8(memo[key]);
    }
    let p = classify_uncached(w, lr, memo);
    memo[key] = p as u8;
    p
}

fn classify_uncached(w: &mut [u8; WIN], lr: LineRule, memo: &mut [u8]) -> Pattern {
    match five_test(w, lr) {
        FiveTest::Five => return Pattern::F5,
        FiveTest::Overline => return Pattern::Overline,
        FiveTest::No => {}
    }
    // Five points: empty cells that complete a five through the centre.
    let mut fives = [0usize; WIN];
    let mut nf = 0;
    for i in 0..WIN {
        if w[i] == W_EMPTY {
            w[i] = W_OWN;
            if five_test(w, lr) == FiveTest::Five {
                fives[nf] = i;
                nf += 1;
            }
            w[i] = W_EMPTY;
        }
    }
    if nf >= 2 {
        if lr == LineRule::RenjuBlack && fives[nf - 1] - fives[0] < 5 {
            return Pattern::Overline;
        }
        return Pattern::F4;
    }
    if nf == 1 {
        return Pattern::B4;
    }
    let mut counts = [0u8; Pattern::COUNT];
    for i in 0..WIN {
        if w[i] == W_EMPTY {
            w[i] = W_OWN;
            let p = classify(w, lr, memo);
            w[i] = W_EMPTY;
            counts[p as usize] += 1;
        }
    }
    let c = |p: Pattern| counts[p as usize];
    let flex3 = c(Pattern::F3) + c(Pattern::F3S);
    let flex2 = c(Pattern::F2) + c(Pattern::F2A) + c(Pattern::F2B);
    if c(Pattern::F4) >= 2 {
        Pattern::F3S
    } else if c(Pattern::F4) == 1 {
        Pattern::F3
    } else if c(Pattern::B4) > 0 {
        Pattern::B3
    } else if flex3 >= 4 {
        Pattern::F2B
    } else if flex3 == 3 {
        Pattern::F2A
    } else if flex3 > 0 {
        Pattern::F2
    } else if c(Pattern::B3) > 0 {
        Pattern::B2
    } else if flex2 > 0 {
        Pattern::F1
    } else if c(Pattern::B2) > 0 {
        Pattern::B1
    } else {
        Pattern::Dead
    }
}

/// Line pattern of the owner for every key, keys read with `own` as the owner's code.
pub fn generate_line_table(lr: LineRule) -> Vec<u8> {
    let mut memo = vec![UNKNOWN; NUM_KEYS];
    let mut w = [0u8; WIN];
    for key in 0..NUM_KEYS {
        if memo[key] != UNKNOWN {
            continue;
        }
        for (i, cell) in w.iter_mut().enumerate() {
            if i != CENTRE {
                *cell = ((key >> (2 * slot_of_window_index(i))) & 3) as u8;
            }
        }
        w[CENTRE] = W_OWN;
        classify(&mut w, lr, &mut memo);
    }
    memo
}

/// Swap black and white codes in a board key (so that white reads as the owner).
fn swap_colors(key: usize) -> usize {
    let mut out = 0;
    for s in 0..(2 * HALF) {
        let c = ((key >> (2 * s)) & 3) as u8;
        let c2 = match c {
            BLACK => WHITE,
            WHITE => BLACK,
            other => other,
        };
        out |= (c2 as usize) << (2 * s);
    }
    out
}

/// The line table and the key's shift and mask for it: cut to the inner eight cells when
/// the outermost two never change a pattern.
fn compact_if_short(line: Vec<u8>) -> (Vec<u8>, u32, u32) {
    // The two outermost cells hold the lowest and the highest slot of a key, so the inner
    // eight are the key shifted down one slot and masked.
    let (lowest, highest) = (slot(-(HALF as i32)), slot(HALF as i32));
    debug_assert!(lowest == 0 && highest == 2 * HALF as u32 - 1);
    let outer = (3 << (2 * lowest)) | (3 << (2 * highest));
    let full = (0, (NUM_KEYS - 1) as u32);
    if (0..NUM_KEYS).any(|k| line[k] != line[k & !outer]) {
        return (line, full.0, full.1);
    }
    let inner = (0..NUM_KEYS / 16).map(|i| line[i << 2]).collect();
    (inner, 2, (NUM_KEYS / 16 - 1) as u32)
}

/// The line table of the rule with table index `rule`, both colours in one byte per key
/// (black's pattern in the low nibble, white's in the high one), with the key's shift and
/// mask for it.
pub fn line_table(rule: usize) -> (Vec<u8>, u32, u32) {
    let black = generate_line_table(LineRule::of(rule, true));
    let white_own = (LineRule::of(rule, false) != LineRule::of(rule, true))
        .then(|| generate_line_table(LineRule::of(rule, false)));
    let white = white_own.as_ref().unwrap_or(&black);
    let line = (0..NUM_KEYS)
        .map(|key| black[key] | (white[swap_colors(key)] << 4))
        .collect();
    compact_if_short(line)
}
