//! Candidate moves in a deterministic order: forced replies first, then cells near stones
//! ordered by the threat they make or stop, centre distance and cell index as tie-breaks.

use crate::board::{in_line_reach, Board};
use crate::eval;
use crate::pattern::{Pattern, Pattern4, HALF};
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
    /// The opponent can make a four-three next move, and our forced block of its four
    /// would not make a four of ours.
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
        && board.candidates().any(|p| {
            board.p4(p, them) == Pattern4::CBlock4Flex3 && !FourThree::new(board, p, them).countered
        })
    {
        // (A renju black four-three may hide a forbidden open-four point, so it is not
        // taken as certain there. A countered one keeps us the tempo: every move answers
        // it, so it asks for no defence.)
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

/// Only the moves that answer an open three or a four-three threat, scored, in board order,
/// like `generate`: own fours, and moves after which the opponent has no open-four point
/// and, for each four-three point left, our block of its four would make a four of ours (a
/// counter that keeps the tempo). Under renju a black four-three is not taken as certain
/// (see `threat`), so against black only open-four points count.
pub fn defences(board: &mut Board) -> MoveList {
    let us = board.side_to_move();
    let them = us.opp();
    let renju_black = board.rule() == Rule::Renju && them == Color::Black;
    let mut open_fours: SmallVec<[Pos; 16]> = SmallVec::new();
    let mut four_threes: SmallVec<[FourThree; 16]> = SmallVec::new();
    for p in board.candidates() {
        match board.p4(p, them) {
            Pattern4::BFlex4 => open_fours.push(p),
            Pattern4::CBlock4Flex3 if !renju_black => {
                four_threes.push(FourThree::new(board, p, them))
            }
            _ => {}
        }
    }
    // A stone changes the patterns only of cells on its four lines within `HALF` cells: a
    // move that is not a four must be within that reach of every open-four point, and of
    // each four-three point not already countered or the cell that would block its four.
    let reaches = |p: Pos| {
        open_fours.iter().all(|&t| in_line_reach(p, t))
            && four_threes.iter().all(|t| t.countered || t.within_reach(p))
    };
    // So the cells to try are our fours, wherever they are, and the cells on the lines of
    // one such point (or pair) that reach all the others: a few dozen, not the board.
    let anchors: SmallVec<[Pos; 2]> = match (
        open_fours.first(),
        four_threes.iter().find(|t| !t.countered),
    ) {
        (Some(&t), _) => SmallVec::from_slice(&[t]),
        (None, Some(t)) => std::iter::once(t.at).chain(t.block).collect(),
        (None, None) => SmallVec::new(),
    };
    let mut cells: SmallVec<[(Pos, bool); 64]> = SmallVec::new();
    if anchors.is_empty() {
        cells.extend(
            board
                .candidates()
                .map(|p| (p, board.p4(p, us).makes_four())),
        );
    } else {
        let has_four = Pattern4::ALL
            .iter()
            .any(|&k| k.makes_four() && board.p4_count(us, k) > 0);
        if has_four {
            cells.extend(
                board
                    .candidates()
                    .filter(|&p| board.p4(p, us).makes_four())
                    .map(|p| (p, true)),
            );
        }
        for &a in &anchors {
            for d in 0..4 {
                for k in -(HALF as i32)..=HALF as i32 {
                    let Some(p) = board.step(a, d, k) else {
                        continue;
                    };
                    if (k != 0 || d == 0)
                        && board.is_empty(p)
                        && board.is_near(p)
                        && !(has_four && board.p4(p, us).makes_four())
                        && reaches(p)
                    {
                        cells.push((p, false));
                    }
                }
            }
        }
        // In board order, each once, as a scan of the board would give them.
        cells.sort_unstable_by_key(|&(p, _)| p.idx());
        cells.dedup_by_key(|&mut (p, _)| p);
    }
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
                answers(board, p, &open_fours, &four_threes)
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

/// A four-three point of `them`.
struct FourThree {
    at: Pos,
    /// Where the other side would block its four.
    block: Option<Pos>,
    /// That block would make a four of the other side's as the board stands.
    countered: bool,
}

impl FourThree {
    fn new(board: &Board, at: Pos, them: Color) -> FourThree {
        let block = four_block(board, at, them);
        FourThree {
            at,
            block,
            countered: block
                .is_some_and(|f| board.p4_with_stone(f, at, them, them.opp()).makes_four()),
        }
    }

    /// Whether a stone at `p` can change this point's patterns or its block's.
    fn within_reach(&self, p: Pos) -> bool {
        in_line_reach(p, self.at) || self.block.is_some_and(|f| in_line_reach(p, f))
    }
}

/// Whether our (non-four) stone at `p` leaves the opponent no open-four point and only
/// four-three points whose four we would block with a four of ours. Our stone only ever
/// weakens the opponent's lines, so the threat cells we know are the only ones that can
/// remain: ask each what it would become.
fn answers(board: &mut Board, p: Pos, open_fours: &[Pos], four_threes: &[FourThree]) -> bool {
    let us = board.side_to_move();
    let them = us.opp();
    // Four-three points left whose counter `p` might change: checked with `p` played.
    let mut recheck: SmallVec<[Pos; 8]> = SmallVec::new();
    for &t in open_fours.iter().filter(|&&t| t != p) {
        match board.p4_with_stone(t, p, us, them) {
            Pattern4::BFlex4 => return false,
            // An open-four point cut down to a four-three point.
            Pattern4::CBlock4Flex3 => recheck.push(t),
            _ => {}
        }
    }
    for t in four_threes {
        if t.at == p || board.p4_with_stone(t.at, p, us, them) != Pattern4::CBlock4Flex3 {
            continue;
        }
        if t.block.is_some_and(|f| in_line_reach(p, f)) {
            recheck.push(t.at);
        } else if !t.countered {
            return false;
        }
    }
    if recheck.is_empty() {
        return true;
    }
    board.make_move(p);
    let ok = recheck
        .iter()
        .all(|&c| FourThree::new(board, c, them).countered);
    board.undo();
    ok
}

/// The cell that would block the four a stone of `c` at the four-three point `at` makes:
/// the one that would then make five. A four-three has one rush-four line, and that
/// line's one five point is the block.
fn four_block(board: &Board, at: Pos, c: Color) -> Option<Pos> {
    let d = (0..4).find(|&d| board.pattern(at, d, c) == Pattern::B4)?;
    (-(HALF as i32)..=HALF as i32)
        .filter_map(|k| board.step(at, d, k))
        .find(|&f| {
            f != at && board.is_empty(f) && board.p4_with_stone(f, at, c, c) == Pattern4::AFive
        })
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
    use crate::board::tests::Rng;
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

    /// White to move. Black has an open three on row 7 (open-four point (8,7)) and a
    /// four-three point at (7,5): a four on column 7 blocked at (7,6), and a three on the
    /// diagonal through (6,4). White's block at (7,6) would make a four on the diagonal
    /// (7,6) (8,7) (9,8) . (11,10) once (8,7) is white.
    const COUNTER_FOUR: &str = "...............\n...............\n...............\n...............\n......X........\n...............\n...............\n.......X.XX....\n.......XOO.....\n.......X.O.....\n......XOOOXO...\n...............\n...............\n...............\n...............";

    /// `diagram` without white's (11,10), the stone that makes the counter-four.
    fn without_counter(diagram: &str) -> String {
        diagram.replace("......XOOOXO...", "......XOOOX....")
    }

    /// The moves that answer the threat, by the definition rather than the shortcuts
    /// `defences` takes: legal candidates that make a four, or after which the opponent has
    /// no open-four point and (unless the opponent is renju's black) only four-three
    /// points whose four we would block with a four of ours. In board order.
    fn answers_by_definition(b: &mut Board) -> Vec<Pos> {
        let us = b.side_to_move();
        let them = us.opp();
        let renju_black = b.rule() == Rule::Renju && them == Color::Black;
        let cells: Vec<Pos> = b.candidates().collect();
        cells
            .into_iter()
            .filter(|&p| {
                if !rules::is_legal(b, p, us) {
                    return false;
                }
                if b.p4(p, us).makes_four() {
                    return true;
                }
                b.make_move(p);
                let left: Vec<Pos> = b.candidates().collect();
                let answered = left.iter().all(|&t| {
                    let k = b.p4(t, them);
                    k != Pattern4::BFlex4
                        && (renju_black
                            || k != Pattern4::CBlock4Flex3
                            || FourThree::new(b, t, them).countered)
                });
                b.undo();
                answered
            })
            .collect()
    }

    #[test]
    fn defences_are_the_answering_moves_in_random_games() {
        let mut checked = 0;
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let mut rng = Rng::new(0xdef0 + i as u64);
            for _ in 0..30 {
                let mut b = Board::new(15, 15, rule).unwrap();
                b.make_move(Pos::new(7, 7));
                for _ in 0..50 {
                    let cells: Vec<Pos> = b.candidates().collect();
                    let p = cells[rng.below(cells.len())];
                    if b.p4(p, b.side_to_move()) == Pattern4::AFive {
                        break;
                    }
                    b.make_move(p);
                    let us = b.side_to_move();
                    let wins = b.p4_count(us, Pattern4::AFive) + b.p4_count(us, Pattern4::BFlex4);
                    if wins > 0 || !threat(&b).needs_defence() {
                        continue;
                    }
                    let got: Vec<Pos> = defences(&mut b).iter().map(|m| m.pos).collect();
                    assert_eq!(
                        got,
                        answers_by_definition(&mut b),
                        "{rule:?}\n{}",
                        b.diagram()
                    );
                    checked += 1;
                }
            }
        }
        // Random games reach enough threats for the comparison to mean something.
        assert!(checked > 200, "only {checked} positions with a threat");
    }

    #[test]
    fn a_counter_four_defends_against_a_four_three() {
        // White's (8,7) stops the open three and leaves the four-three, but then white's
        // forced block at (7,6) makes a four, so the four-three no longer wins.
        let mut b = Board::from_diagram(COUNTER_FOUR, Rule::Freestyle, Color::White).unwrap();
        assert_eq!(threat(&b), Threat::OpenThree);
        assert_eq!(b.p4(Pos::new(7, 5), Color::Black), Pattern4::CBlock4Flex3);
        let d: Vec<Pos> = defences(&mut b).iter().map(|m| m.pos).collect();
        assert!(d.contains(&Pos::new(8, 7)), "{d:?}");
        // White's own fours on column 9 answer anything; (7,5) breaks the four-three but
        // leaves the open three.
        assert!(
            d.contains(&Pos::new(9, 11)) && d.contains(&Pos::new(9, 12)),
            "{d:?}"
        );
        assert!(!d.contains(&Pos::new(7, 5)), "{d:?}");
        // Without the counter: the same position with white's (11,10) gone. Then (7,6)
        // would not make a four, so (8,7) does not answer the four-three.
        let without = without_counter(COUNTER_FOUR);
        let mut b2 = Board::from_diagram(&without, Rule::Freestyle, Color::White).unwrap();
        let d2: Vec<Pos> = defences(&mut b2).iter().map(|m| m.pos).collect();
        assert!(!d2.contains(&Pos::new(8, 7)), "{d2:?}");
    }

    #[test]
    fn a_countered_four_three_is_no_threat() {
        // `COUNTER_FOUR` after white's (8,7), with white to move again: black's four-three
        // point (7,5) is all that is left, and white's forced block at (7,6) would make a
        // four.
        let diagram = COUNTER_FOUR.replace(".......X.XX....", ".......XOXX....");
        let b = Board::from_diagram(&diagram, Rule::Freestyle, Color::White).unwrap();
        assert_eq!(b.p4(Pos::new(7, 5), Color::Black), Pattern4::CBlock4Flex3);
        assert_eq!(threat(&b), Threat::None);
        // Without white's (11,10) the block makes no four: the four-three is a threat.
        let without = without_counter(&diagram);
        let b2 = Board::from_diagram(&without, Rule::Freestyle, Color::White).unwrap();
        assert_eq!(threat(&b2), Threat::FourThree);
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
