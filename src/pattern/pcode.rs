//! The pattern code of a cell for one colour: which four line patterns it has, in any
//! order. Direction does not matter to the threat a cell makes, so the 14⁴ ordered
//! combinations fold into the 2380 multisets of four patterns, numbered densely. The
//! learned evaluation keeps one value per pattern code.

use super::{Pattern, NUM_COMBOS};
use once_cell::sync::Lazy;

/// Number of pattern codes: multisets of four of the 14 patterns, C(17, 4).
pub const NUM_PCODES: usize = 2380;

/// Binomial coefficients C(n, k) for n < 17, k ≤ 4.
const fn binomial(n: usize, k: usize) -> usize {
    let mut r = 1;
    let mut i = 0;
    while i < k {
        if n < k {
            return 0;
        }
        r = r * (n - i) / (i + 1);
        i += 1;
    }
    r
}

/// The code of four patterns in any order: their rank among the multisets, sorted
/// ascending, in the combinatorial number system.
pub fn pcode(p: [Pattern; 4]) -> u16 {
    let mut s = p.map(|q| q as usize);
    s.sort_unstable();
    // Shift the sorted values apart so they strictly increase, then rank the subset.
    (binomial(s[0], 1) + binomial(s[1] + 1, 2) + binomial(s[2] + 2, 3) + binomial(s[3] + 3, 4))
        as u16
}

/// Per combination index (`combo_index`): the pattern code; 0 for indices with a nibble
/// that is not a pattern (never read).
pub static PCODE_OF_COMBO: Lazy<Vec<u16>> = Lazy::new(|| {
    let mut t = vec![0u16; NUM_COMBOS];
    for (idx, code) in t.iter_mut().enumerate() {
        let nibbles = [0, 1, 2, 3].map(|d| (idx >> (4 * d)) & 15);
        if nibbles.iter().all(|&n| n < Pattern::COUNT) {
            *code = pcode(nibbles.map(|n| Pattern::from_u8(n as u8)));
        }
    }
    t
});

/// Per pattern code: its four patterns, ascending.
pub static PATTERNS_OF_PCODE: Lazy<Vec<[Pattern; 4]>> = Lazy::new(|| {
    let mut t = vec![[Pattern::Dead; 4]; NUM_PCODES];
    for a in 0..Pattern::COUNT {
        for b in a..Pattern::COUNT {
            for c in b..Pattern::COUNT {
                for d in c..Pattern::COUNT {
                    let p = [a, b, c, d].map(|n| Pattern::from_u8(n as u8));
                    t[pcode(p) as usize] = p;
                }
            }
        }
    }
    t
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::combo_index;
    use std::collections::HashSet;

    #[test]
    fn codes_are_dense_and_ignore_direction() {
        let mut seen = HashSet::new();
        for p in PATTERNS_OF_PCODE.iter() {
            assert!(p.windows(2).all(|w| w[0] <= w[1]), "{p:?} sorted");
            assert!(seen.insert(*p), "{p:?} listed once");
        }
        assert_eq!(seen.len(), NUM_PCODES);
        let p = [Pattern::F3, Pattern::Dead, Pattern::B4, Pattern::F1];
        let code = pcode(p);
        assert_eq!(
            PATTERNS_OF_PCODE[code as usize],
            [Pattern::Dead, Pattern::F1, Pattern::F3, Pattern::B4]
        );
        for perm in [[1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1]] {
            let q = perm.map(|i| p[i]);
            assert_eq!(pcode(q), code);
            assert_eq!(PCODE_OF_COMBO[combo_index(q)], code);
        }
        assert_eq!(pcode([Pattern::Dead; 4]), 0);
        assert_eq!(pcode([Pattern::F5; 4]) as usize, NUM_PCODES - 1);
    }
}
