//! Candidate moves in a deterministic order: forced replies first, then cells near stones
//! ordered by the threat they make or stop, centre distance and cell index as tie-breaks.

use crate::board::{in_line_reach, Board};
use crate::eval;
use crate::pattern::Pattern4;
use crate::rules;
use crate::types::{Color, Pos, Rule, Score};
use smallvec::SmallVec;

/// A move with its ordering score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: Score,
}

/// A move list.
pub type MoveList = SmallVec<[ScoredMove; 64]>;

/// What the side to move is facing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threat {
    /// Nothing forcing.
    None,
    /// The opponent threatens an open four or double four next move (an open three).
    OpenThree,
    /// The opponent can make a four-three next move.
    FourThree,
    /// The opponent has a four: the single cell that blocks it.
    Four(Pos),
    /// The opponent has two or more five points: lost.
    DoubleFour,
}

/// The threat the side to move faces (assuming it has no five of its own to play).
pub fn threat(board: &Board) -> Threat {
    let them = board.side_to_move().opp();
    match board.p4_count(them, Pattern4::AFive) {
        0 => {}
        1 => {
            let p = board
                .candidates()
                .find(|&p| board.p4(p, them) == Pattern4::AFive);
            return p.map_or(Threat::None, Threat::Four);
        }
        _ => return Threat::DoubleFour,
    }
    if board.p4_count(them, Pattern4::BFlex4) > 0 {
        Threat::OpenThree
    } else if board.p4_count(them, Pattern4::CBlock4Flex3) > 0
        && !(board.rule() == Rule::Renju && them == Color::Black)
    {
        // (A renju black four-three may hide a forbidden open-four point, so it is not
        // taken as certain there.)
        Threat::FourThree
    } else {
        Threat::None
    }
}

impl Threat {
    /// The opponent threatens to win with threes: only defences and own fours make sense.
    pub fn needs_defence(self) -> bool {
        matches!(self, Threat::OpenThree | Threat::FourThree)
    }
}

/// Every legal candidate (empty cells near stones; the centre on an empty board; any empty
/// cell if nothing else), scored, in board order: `sort` puts them best first.
pub fn generate(board: &mut Board) -> MoveList {
    let us = board.side_to_move();
    let mut list = MoveList::new();
    if board.stone_count() == 0 {
        let (w, h) = (board.width(), board.height());
        list.push(ScoredMove {
            pos: Pos::new(w / 2, h / 2),
            score: 0,
        });
        return list;
    }
    let cells: SmallVec<[Pos; 256]> = board.candidates().collect();
    for p in cells {
        if rules::is_legal(board, p, us) {
            list.push(ScoredMove {
                pos: p,
                score: eval::move_score(board, p),
            });
        }
    }
    if list.is_empty() {
        // No legal cell near a stone: take any legal cell, then any empty cell at all
        // (a renju black with only fouls left must still answer something).
        let cells: Vec<Pos> = board.cells().filter(|&p| board.is_empty(p)).collect();
        for &p in &cells {
            if rules::is_legal(board, p, us) {
                list.push(ScoredMove { pos: p, score: 0 });
            }
        }
        if list.is_empty() {
            list.extend(cells.into_iter().map(|pos| ScoredMove { pos, score: 0 }));
        }
    }
    list
}

/// Only the moves that answer an open three or a four-three threat: own fours and cells
/// after which the opponent has no open-four point and no four-three point left; scored,
/// in board order, like `generate`.
pub fn defences(board: &mut Board) -> MoveList {
    let us = board.side_to_move();
    let them = us.opp();
    let renju_black = board.rule() == Rule::Renju && them == Color::Black;
    // The opponent's threat cells. A stone changes the patterns only of cells on its four
    // lines within `HALF` cells, so a defence must be within that reach of every one.
    let threats: SmallVec<[Pos; 16]> = board
        .candidates()
        .filter(|&p| match board.p4(p, them) {
            Pattern4::BFlex4 => true,
            Pattern4::CBlock4Flex3 => !renju_black,
            _ => false,
        })
        .collect();
    // Each cell with whether it makes our own four (a defence by itself).
    let cells: SmallVec<[(Pos, bool); 64]> = board
        .candidates()
        .map(|p| (p, board.p4(p, us).makes_four()))
        .filter(|&(p, four)| four || threats.iter().all(|&t| in_line_reach(p, t)))
        .collect();
    let mut out = MoveList::new();
    for (p, four) in cells {
        let defends = four
            || if renju_black {
                // A white stone can turn a black foul point into a real threat, so try it.
                board.make_move(p);
                let none_left = board.p4_count(them, Pattern4::BFlex4) == 0;
                board.undo();
                none_left
            } else {
                // Our stone only ever weakens the opponent's lines, so the threat cells we
                // know are the only ones that can remain: ask each what it would become.
                threats.iter().all(|&t| {
                    t == p
                        || !matches!(
                            board.p4_with_stone(t, p, us, them),
                            Pattern4::BFlex4 | Pattern4::CBlock4Flex3
                        )
                })
            };
        if defends && rules::is_legal(board, p, us) {
            out.push(ScoredMove {
                pos: p,
                score: eval::move_score(board, p),
            });
        }
    }
    out
}

/// Moves paired with their ordering keys.
type Keyed = SmallVec<[(i64, ScoredMove); 64]>;

/// Each move with one packed key, lowest first: score, then closer to the centre, then
/// lower cell index. The tie-breaks make every key distinct, so any sort of the keys gives
/// the same order.
fn keyed(board: &Board, list: &MoveList) -> Keyed {
    list.iter()
        .map(|&m| {
            let key = ((-(m.score as i64)) << 32)
                | ((eval::centre_distance(board, m.pos) as i64) << 16)
                | m.pos.0 as i64;
            (key, m)
        })
        .collect()
}

/// Sort best first: score, then closer to the centre, then lower cell index.
pub fn sort(board: &Board, list: &mut MoveList) {
    let mut keyed = keyed(board, list);
    keyed.sort_unstable_by_key(|k| k.0);
    for (slot, (_, m)) in list.iter_mut().zip(keyed) {
        *slot = m;
    }
}

/// The moves of a list in `sort`'s order, each picked out only when asked for: a node
/// that cuts off after its first move or two does not pay for sorting the rest.
pub struct Picker {
    keyed: Keyed,
    taken: usize,
}

impl Picker {
    pub fn new(board: &Board, list: &MoveList) -> Picker {
        Picker {
            keyed: keyed(board, list),
            taken: 0,
        }
    }
}

impl Iterator for Picker {
    type Item = ScoredMove;

    fn next(&mut self) -> Option<ScoredMove> {
        let rest = &mut self.keyed[self.taken..];
        let (best, _) = rest.iter().enumerate().min_by_key(|(_, k)| k.0)?;
        rest.swap(0, best);
        self.taken += 1;
        Some(rest[0].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Color, Rule};

    #[test]
    fn picker_hands_out_the_sorted_order() {
        let mut b = Board::from_diagram(
            "..........\n..........\n...XO.....\n....XO....\n...OX.....\n..........",
            Rule::Freestyle,
            Color::Black,
        )
        .unwrap();
        let mut list = generate(&mut b);
        // Equal scores, so the tie-breaks decide part of the order too.
        list.iter_mut().step_by(3).for_each(|m| m.score = 7);
        let picked: Vec<ScoredMove> = Picker::new(&b, &list).collect();
        sort(&b, &mut list);
        assert!(list.len() > 10);
        assert_eq!(picked, list.to_vec());
    }

    #[test]
    fn empty_board_opens_in_centre() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        assert_eq!(generate(&mut b)[0].pos, Pos::new(7, 7));
        let mut r = Board::new(20, 12, Rule::Freestyle).unwrap();
        assert_eq!(generate(&mut r)[0].pos, Pos::new(10, 6));
    }

    #[test]
    fn four_is_reported_and_full_board_still_has_a_move() {
        let b = Board::from_diagram(
            "..........\n.XXXX.....\n..........\n.OOO......\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        assert_eq!(threat(&b), Threat::DoubleFour);
        let b2 = Board::from_diagram(
            "..........\nOXXXX.....\n..........\n.OO.......\n..........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        assert_eq!(threat(&b2), Threat::Four(Pos::new(5, 1)));
        // One empty cell left far from nothing: still generated.
        let mut full = Board::from_diagram(
            "XOXOX\nOXOXO\nOXOXO\nXOXOX\nXOXO.",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        let moves = generate(&mut full);
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].pos, Pos::new(4, 4));
    }

    #[test]
    fn defences_of_an_open_three() {
        let mut b = Board::from_diagram(
            "...........\n...........\n...........\n...XXX.....\n...........\n.....O.....\n....O......\n...........",
            Rule::Freestyle,
            Color::White,
        )
        .unwrap();
        assert_eq!(threat(&b), Threat::OpenThree);
        let d: Vec<Pos> = defences(&mut b).iter().map(|m| m.pos).collect();
        assert!(d.contains(&Pos::new(2, 3)) && d.contains(&Pos::new(6, 3)));
        assert!(!d.contains(&Pos::new(5, 5)));
    }

    #[test]
    fn four_three_threat_and_its_defences() {
        // Black threatens (8,5): a rush four on row 5 plus an open three on column 8.
        let diagram = "...............\n...............\n...............\n.....O.........\n...............\n....OXXX.......\n......O.X......\n........XO.....\n...............\n...............";
        let mut b = Board::from_diagram(diagram, Rule::Freestyle, Color::White).unwrap();
        assert_eq!(threat(&b), Threat::FourThree);
        let d: Vec<Pos> = defences(&mut b).iter().map(|m| m.pos).collect();
        for p in [
            Pos::new(8, 5),
            Pos::new(9, 5),
            Pos::new(8, 4),
            Pos::new(8, 8),
        ] {
            assert!(d.contains(&p), "{p} defends");
        }
        assert!(!d.contains(&Pos::new(2, 2)));
        // Under renju a black four-three is not taken as certain.
        let r = Board::from_diagram(diagram, Rule::Renju, Color::White).unwrap();
        assert_eq!(threat(&r), Threat::None);
    }
}
