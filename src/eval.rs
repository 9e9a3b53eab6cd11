//! Static evaluation from the board's incremental pattern-code values, and the per-cell
//! move scores used by move ordering.

use crate::board::Board;
use crate::pattern::weights::{OWN, THEIR};
use crate::types::{Pos, Value};

/// Evaluation of the position for the side to move (positive = good for it): every empty
/// cell's value by its pattern codes, the side to move's own values less the other side's
/// their values, plus the tempo bonus. The weights are the rule's file in
/// `src/pattern/weights/`, and the board keeps the sums up to date move by move.
pub fn evaluate(board: &Board) -> Value {
    let us = board.side_to_move();
    board.value_sum(us, OWN) - board.value_sum(us.opp(), THEIR) + board.tempo()
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
        let open = Board::from_diagram(
            "..........\n..........\n...XXX....\n..........\n....O.O...\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        let sleeping = Board::from_diagram(
            "..........\n..........\n..OXXX....\n..........\n......O...\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        assert!(evaluate(&open) < evaluate(&sleeping));
    }

    #[test]
    fn centre_is_closest() {
        let b = Board::new(15, 15, Rule::Freestyle).unwrap();
        assert_eq!(centre_distance(&b, Pos::new(7, 7)), 0);
        assert!(centre_distance(&b, Pos::new(7, 8)) < centre_distance(&b, Pos::new(0, 0)));
    }
}
