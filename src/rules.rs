//! Win and foul decisions read from the board: does a move make five, is a black move
//! forbidden under renju (overline, double four, double three with the recursive real-three
//! test of the RIF rules).

use crate::board::Board;
use crate::pattern::{Pattern, Pattern4};
use crate::types::{Color, Pos, Rule};

/// True if `c` playing at empty `p` wins at once.
#[inline]
pub fn makes_five(board: &Board, p: Pos, c: Color) -> bool {
    board.p4(p, c) == Pattern4::AFive
}

/// The kinds of renju foul.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foul {
    Overline,
    DoubleFour,
    DoubleThree,
}

impl Foul {
    pub fn name(self) -> &'static str {
        match self {
            Foul::Overline => "an overline",
            Foul::DoubleFour => "a double four",
            Foul::DoubleThree => "a double three",
        }
    }
}

/// True if black playing at empty `p` is a foul under the board's rule (renju only).
pub fn is_forbidden(board: &mut Board, p: Pos) -> bool {
    foul(board, p).is_some()
}

/// The foul black would commit at empty `p` under the board's rule (renju only).
pub fn foul(board: &mut Board, p: Pos) -> Option<Foul> {
    if board.rule() != Rule::Renju || board.p4(p, Color::Black) != Pattern4::Forbid {
        return None;
    }
    foul_at(board, p, 0)
}

/// Can `c` legally play the empty cell `p`?
pub fn is_legal(board: &mut Board, p: Pos, c: Color) -> bool {
    board.on_board(p) && board.is_empty(p) && !(c == Color::Black && is_forbidden(board, p))
}

/// Full foul test of black at `p` (which is a `Forbid` candidate or deeper in the recursion).
fn foul_at(board: &mut Board, p: Pos, depth: u32) -> Option<Foul> {
    let pats = [0, 1, 2, 3].map(|d| board.pattern(p, d, Color::Black));
    if pats.contains(&Pattern::F5) {
        return None;
    }
    if pats.contains(&Pattern::Overline) {
        // An overline, or a double four on one line (the line table names both so).
        return Some(if overline_run(board, p) {
            Foul::Overline
        } else {
            Foul::DoubleFour
        });
    }
    if pats.iter().filter(|q| q.is_four()).count() >= 2 {
        return Some(Foul::DoubleFour);
    }
    let three_dirs: Vec<usize> = (0..4).filter(|&d| pats[d].is_open_three()).collect();
    if three_dirs.len() < 2 {
        return None;
    }
    board.make(p, Color::Black);
    let mut real = 0;
    for &d in &three_dirs {
        if has_real_four_point(board, p, d, depth) {
            real += 1;
            if real >= 2 {
                break;
            }
        }
    }
    board.undo();
    (real >= 2).then_some(Foul::DoubleThree)
}

/// Would black at `p` make six or more in a row?
fn overline_run(board: &Board, p: Pos) -> bool {
    (0..4).any(|d| {
        let run = |dir: i32| {
            (1..)
                .map_while(|k| board.step(p, d, dir * k))
                .take_while(|&q| board.stone(q) == Some(Color::Black))
                .count()
        };
        run(1) + run(-1) + 1 >= 6
    })
}

/// With black on `p`, is there a point on line `d` that makes a straight four through
/// this three and is itself a legal black move that does not make five?
fn has_real_four_point(board: &mut Board, p: Pos, d: usize, depth: u32) -> bool {
    for k in -4..=4 {
        if k == 0 {
            continue;
        }
        let Some(e) = board.step(p, d, k) else {
            continue;
        };
        if !board.is_empty(e) || board.pattern(e, d, Color::Black) != Pattern::F4 {
            continue;
        }
        if board.p4(e, Color::Black) == Pattern4::AFive {
            continue;
        }
        if board.p4(e, Color::Black) != Pattern4::Forbid || foul_at(board, e, depth + 1).is_none() {
            return true;
        }
    }
    false
}

/// Black's forbidden empty cells (renju), in board order.
pub fn forbidden_points(board: &mut Board) -> Vec<Pos> {
    if board.rule() != Rule::Renju {
        return Vec::new();
    }
    let cells: Vec<Pos> = board.cells().filter(|&p| board.is_empty(p)).collect();
    cells
        .into_iter()
        .filter(|&p| is_forbidden(board, p))
        .collect()
}

/// Did the last move win the game?
pub fn last_move_won(board: &mut Board) -> bool {
    let Some(&(p, c)) = board.history().last() else {
        return false;
    };
    board.undo();
    let won = makes_five(board, p, c);
    board.make(p, c);
    won
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: usize, y: usize) -> Pos {
        Pos::new(x, y)
    }

    const EMPTY_ROW: &str = "...............";

    fn board15(rows: &[(usize, &str)], rule: Rule) -> Board {
        let mut lines = vec![EMPTY_ROW.to_string(); 15];
        for &(y, r) in rows {
            let mut s = r.to_string();
            s.push_str(&EMPTY_ROW[r.len()..]);
            lines[y] = s;
        }
        Board::from_diagram(&lines.join("\n"), rule, Color::Black).unwrap()
    }

    #[test]
    fn double_three_is_forbidden() {
        // Two open twos crossing at (7,7): playing it makes two open threes.
        let mut b = board15(
            &[(5, ".......X"), (6, ".......X"), (7, ".....XX")],
            Rule::Renju,
        );
        assert_eq!(foul(&mut b, at(7, 7)), Some(Foul::DoubleThree));
        assert!(!is_forbidden(&mut b, at(8, 8)));
        assert!(forbidden_points(&mut b).contains(&at(7, 7)));
    }

    #[test]
    fn double_three_with_a_fake_three_is_allowed() {
        // The vertical three's open-four points are blocked by white at both extensions
        // (O at (7,4) and (7,8)); only the horizontal three is real.
        let mut b = board15(
            &[
                (4, ".......O"),
                (5, ".......X"),
                (6, ".......X"),
                (7, ".....XX"),
                (8, ".......O"),
            ],
            Rule::Renju,
        );
        assert!(!is_forbidden(&mut b, at(7, 7)));
    }

    #[test]
    fn three_whose_four_point_is_forbidden_is_fake() {
        // Vertical three (7,5),(7,6),(7,7) with white on (7,3): its only straight-four point
        // is (7,8). Horizontal three (5,7),(6,7),(7,7) is real.
        let rows = [
            (3, ".......O"),
            (5, ".......X"),
            (6, ".......X"),
            (7, ".....XX"),
        ];
        let mut b = board15(&rows, Rule::Renju);
        assert!(
            is_forbidden(&mut b, at(7, 7)),
            "both threes real: double three"
        );
        // Now (7,8) is an overline point (XXX.XX on row 8), so the vertical three is fake.
        let mut rows2 = rows.to_vec();
        rows2.push((8, "....XXX.XX"));
        let mut b2 = board15(&rows2, Rule::Renju);
        assert!(is_forbidden(&mut b2, at(7, 8)));
        assert!(!is_forbidden(&mut b2, at(7, 7)));
    }

    #[test]
    fn double_four_and_overline() {
        // Overline: XXX.XX + the gap makes six.
        let mut o = board15(&[(7, "..XXX.XX")], Rule::Renju);
        assert_eq!(foul(&mut o, at(5, 7)), Some(Foul::Overline));
        // Same-line double four: X.XXX.X with the stone among the middle three.
        let mut d = board15(&[(7, "..X..XX.X")], Rule::Renju);
        assert_eq!(foul(&mut d, at(4, 7)), Some(Foul::DoubleFour));
        // Two fours on crossing lines.
        let mut c = board15(
            &[
                (7, "....XXX"),
                (4, ".......X"),
                (5, ".......X"),
                (6, ".......X"),
            ],
            Rule::Renju,
        );
        assert_eq!(foul(&mut c, at(7, 7)), Some(Foul::DoubleFour));
        // Five beats a foul: exact five that is also a double four elsewhere.
        let mut f = board15(
            &[
                (7, "...XXXX"),
                (4, ".......X"),
                (5, ".......X"),
                (6, ".......X"),
            ],
            Rule::Renju,
        );
        assert!(makes_five(&f, at(7, 7), Color::Black));
        assert!(!is_forbidden(&mut f, at(7, 7)));
    }

    #[test]
    fn white_is_never_forbidden_and_wins_with_overline() {
        let b = Board::from_diagram(
            "..OOO.OO.......\n...............\n...............\n...............\n...............",
            Rule::Renju,
            Color::White,
        )
        .unwrap();
        assert!(makes_five(&b, at(5, 0), Color::White));
        let mut b2 = b.clone();
        assert!(is_legal(&mut b2, at(5, 0), Color::White));
    }

    #[test]
    fn exact_five_rule_overline_does_not_win() {
        let b = board15(&[(7, "..XXX.XX")], Rule::Standard);
        assert!(!makes_five(&b, at(5, 7), Color::Black));
        let f = board15(&[(7, "..XXX.X")], Rule::Standard);
        assert!(makes_five(&f, at(5, 7), Color::Black));
        let fw = Board::from_diagram(
            "OOOO.O\n......\n......\n......\n......",
            Rule::Standard,
            Color::White,
        )
        .unwrap();
        assert!(!makes_five(&fw, at(4, 0), Color::White));
        assert!(makes_five(
            &Board::from_diagram(
                "OOOO..\n......\n......\n......\n......",
                Rule::Standard,
                Color::White
            )
            .unwrap(),
            at(4, 0),
            Color::White
        ));
    }

    #[test]
    fn caro_blocked_five_does_not_win() {
        let b = board15(&[(7, "..OXXXX.O")], Rule::Caro);
        assert!(!makes_five(&b, at(7, 7), Color::Black));
        let open = board15(&[(7, "..OXXXX..")], Rule::Caro);
        assert!(makes_five(&open, at(7, 7), Color::Black));
        // Edge does not block.
        let edge = board15(&[(7, "XXXX.O")], Rule::Caro);
        assert!(makes_five(&edge, at(4, 7), Color::Black));
        // Six wins in rule 8 even when blocked, not in rule 9.
        let six8 = board15(&[(7, "OXXX.XXO")], Rule::Caro);
        assert!(makes_five(&six8, at(4, 7), Color::Black));
        let six9 = board15(&[(7, "OXXX.XXO")], Rule::CaroExact);
        assert!(!makes_five(&six9, at(4, 7), Color::Black));
        // White the same.
        let w = Board::from_diagram(
            "XOOOO.X\n.......\n.......\n.......\n.......",
            Rule::Caro,
            Color::White,
        )
        .unwrap();
        assert!(!makes_five(&w, at(5, 0), Color::White));
    }
}
