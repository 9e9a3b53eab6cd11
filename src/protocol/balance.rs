//! YXBALANCEONE and YXBALANCETWO: balanced openings. Of a search's root lines, the move
//! after which the side to move's value is closest to a bias; for two moves, that move and
//! then, from a second search, the reply that leaves the position closest to the bias.

use crate::search::RootLine;
use crate::types::{Pos, Value};

/// The root move whose value is closest to `bias` (the better one on a tie), if any.
pub fn closest(lines: &[RootLine], bias: Value) -> Option<Pos> {
    lines
        .iter()
        .min_by_key(|l| (l.value - bias).abs())
        .and_then(|l| l.pv.first().copied())
}

/// The bias for the reply: the replier's values are the negation of ours.
pub fn reply_bias(bias: Value) -> Value {
    -bias
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_nearest_the_bias_wins() {
        let line = |v: Value, x: usize| RootLine {
            value: v,
            pv: vec![Pos::new(x, 0)],
        };
        let lines = [line(300, 1), line(40, 2), line(-10, 3), line(-500, 4)];
        assert_eq!(closest(&lines, 0), Some(Pos::new(3, 0)));
        assert_eq!(closest(&lines, 100), Some(Pos::new(2, 0)));
        assert_eq!(closest(&lines, -1000), Some(Pos::new(4, 0)));
        // Equally near: the first listed (the better) move.
        assert_eq!(
            closest(&[line(10, 5), line(-10, 6)], 0),
            Some(Pos::new(5, 0))
        );
        assert_eq!(closest(&[], 0), None);
        assert_eq!(reply_bias(30), -30);
    }
}
