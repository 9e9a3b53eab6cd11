//! Static evaluation from the board's incremental pattern-code values, and the per-cell
//! move scores used by move ordering.

use crate::board::Board;
use crate::pattern::weights::{OWN, THEIR, THREAT_BITS, THREAT_GROUPS};
use crate::types::{Color, Pos, Value};

/// Evaluation of the position for the side to move (positive = good for it): every empty
/// cell's value by its pattern codes, the side to move's own values less the other side's
/// their values, plus the tempo bonus, the threat term of the position's threat mask and
/// the network's correction (`pattern::net`, where the rule has one). The weights are the
/// rule's files in `src/pattern/weights/`, and the board keeps the sums up to date move
/// by move.
pub fn evaluate(board: &mut Board) -> Value {
    let us = board.side_to_move();
    board.value_sum(us, OWN) - board.value_sum(us.opp(), THEIR)
        + board.tempo()
        + board.threat_value(threat_mask(board))
        + board.net_value()
}

/// Which kinds of threat point (`weights::THREAT_GROUPS`) each side has: the side to
/// move's bits, then the other side's `THREAT_BITS` higher.
pub fn threat_mask(board: &Board) -> usize {
    let bits = |c: Color| {
        THREAT_GROUPS
            .iter()
            .enumerate()
            .filter(|(_, (_, classes))| classes.iter().any(|&k| board.p4_count(c, k) > 0))
            .fold(0, |m, (i, _)| m | 1 << i)
    };
    let us = board.side_to_move();
    bits(us) | bits(us.opp()) << THREAT_BITS
}

/// Move-ordering score of `p` for the side to move: what it makes (the side to move's own
/// score of the cell) plus what it stops (the opponent's their score), from the rule's
/// file in `src/pattern/policy/`.
pub fn move_score(board: &Board, p: Pos) -> i32 {
    let us = board.side_to_move();
    board.order_scores(p, us)[OWN] + board.order_scores(p, us.opp())[THEIR]
}

/// Distance of `p` from the board's centre (Chebyshev, doubled to stay integral).
pub fn centre_distance(board: &Board, p: Pos) -> i32 {
    let dx = (2 * p.x() as i32 - (board.width() as i32 - 1)).abs();
    let dy = (2 * p.y() as i32 - (board.height() as i32 - 1)).abs();
    dx.max(dy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Color, Rule};

    #[test]
    fn open_three_outweighs_sleeping_three() {
        let mut open = Board::from_diagram(
            "..........\n..........\n...XXX....\n..........\n....O.O...\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        let mut sleeping = Board::from_diagram(
            "..........\n..........\n..OXXX....\n..........\n......O...\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        assert!(evaluate(&mut open) < evaluate(&mut sleeping));
    }

    #[test]
    fn the_threat_mask_names_each_sides_threat_points() {
        // Black (to move) has an open two: open-three points. White has a sleeping three
        // against the edge: four points.
        let b = Board::from_diagram(
            "..........\n..........\n...XX.....\n..........\nOOO.......\n..........\n",
            Rule::Freestyle,
            Color::Black,
        )
        .unwrap();
        // B is bit 0, C bit 1, E bit 2, F bit 3, H bit 4; white's are THREAT_BITS higher.
        assert_eq!(threat_mask(&b), 0b10000 | 0b00100 << THREAT_BITS);
        let mut w = b.clone();
        w.make_move(crate::types::Pos::new(9, 0));
        // White to move: its bits come first.
        assert_eq!(threat_mask(&w), 0b00100 | 0b10000 << THREAT_BITS);
    }

    #[test]
    fn the_threat_term_adds_the_value_of_the_positions_mask() {
        use crate::pattern::weights::{self, Weights};
        use crate::pattern::RuleTables;
        use std::sync::Arc;
        let rule = Rule::Freestyle;
        let mut w = weights::builtin(rule);
        for side in w.sides.iter_mut() {
            side.threat.clear();
        }
        let plain = RuleTables::with_weights(rule, &w);
        // Both sides have an open-three point and nothing stronger.
        w = Weights::parse(&format!("{}threat H H 77\n", w.to_text(""))).unwrap();
        let with_term = RuleTables::with_weights(rule, &w);
        // Black's two on the third row, white's split two on the fifth, black to move.
        let eval_with = |tables: RuleTables| {
            let mut b = Board::with_tables(10, 6, rule, Arc::new(tables)).unwrap();
            for (x, y) in [(3, 2), (2, 4), (4, 2), (4, 4)] {
                b.make_move(Pos::new(x, y));
            }
            (evaluate(&mut b), threat_mask(&b))
        };
        let (before, mask) = eval_with(plain);
        assert_eq!(mask, 0b10000 | 0b10000 << THREAT_BITS);
        let (after, _) = eval_with(with_term);
        assert_eq!(after - before, 77);
    }

    #[test]
    fn centre_is_closest() {
        let b = Board::new(15, 15, Rule::Freestyle).unwrap();
        assert_eq!(centre_distance(&b, Pos::new(7, 7)), 0);
        assert!(centre_distance(&b, Pos::new(7, 8)) < centre_distance(&b, Pos::new(0, 0)));
    }
}
