//! Threat-space search: can the side to move win by a sequence of fours and threes (a VCT)?
//! The attacker plays only moves that make a four or an open three; the defender answers a
//! four with its block and a three with every move that removes the attacker's open-four
//! and four-three points (own fours included). Anything the defender does that the
//! attacker cannot answer with a new threat counts as a successful defence, so a "yes" is
//! a proof within the rules the board knows, and "no" may just mean "not found".

use crate::board::Board;
use crate::movegen::{self, MoveList, ScoredMove};
use crate::pattern::Pattern4;
use crate::rules;
use crate::types::Pos;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Poll the stop flag and the clock every this many nodes.
const POLL_NODES: u64 = 64;

/// A node-limited VCT solver.
pub struct Vct<'a> {
    nodes: u64,
    budget: u64,
    /// When set, the solver gives up at its next poll.
    stop: Option<&'a AtomicBool>,
    /// The solver gives up at its first poll after this.
    deadline: Option<Instant>,
}

impl Vct<'_> {
    /// A solver that gives up (answers "not found") after `budget` nodes.
    pub fn new(budget: u64) -> Vct<'static> {
        Vct {
            nodes: 0,
            budget,
            stop: None,
            deadline: None,
        }
    }

    /// A solver that also gives up as soon as it sees `stop` set or `deadline` passed.
    pub fn stoppable(budget: u64, stop: &AtomicBool, deadline: Option<Instant>) -> Vct<'_> {
        Vct {
            nodes: 0,
            budget,
            stop: Some(stop),
            deadline,
        }
    }

    /// Count a node; a stop request or the deadline seen here spends the rest of the
    /// budget.
    fn visit(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_NODES)
            && (self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
                || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.budget = 0;
        }
    }

    /// Nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// A win for the side to move by at most `depth` threats, if found: its first move and
    /// the number of plies to the five against the defences tried.
    pub fn find_win(&mut self, board: &mut Board, depth: i32) -> Option<(Pos, i32)> {
        let us = board.side_to_move();
        if let Some(p) = find_cell(board, us, Pattern4::AFive) {
            return Some((p, 1));
        }
        if board.p4_count(us.opp(), Pattern4::AFive) > 0 {
            return None;
        }
        if let Some(p) = find_cell(board, us, Pattern4::BFlex4) {
            return Some((p, 3));
        }
        self.first_winning_threat(board, depth)
    }

    /// The first threat move after which every defence loses, and the plies to the five.
    fn first_winning_threat(&mut self, board: &mut Board, depth: i32) -> Option<(Pos, i32)> {
        for m in threats(board) {
            board.make_move(m.pos);
            let won = self.defend(board, depth - 1);
            board.undo();
            if let Some(plies) = won {
                return Some((m.pos, plies + 1));
            }
            if self.exhausted() {
                break;
            }
        }
        None
    }

    /// True if the side to move wins by threats within `depth` own moves.
    pub fn attacker_wins(&mut self, board: &mut Board, depth: i32) -> bool {
        self.attack(board, depth).is_some()
    }

    fn exhausted(&self) -> bool {
        self.nodes >= self.budget
    }

    /// Plies to the attacker's five (the side to move attacks), if it wins.
    fn attack(&mut self, board: &mut Board, depth: i32) -> Option<i32> {
        self.visit();
        if self.exhausted() {
            return None;
        }
        let us = board.side_to_move();
        let them = us.opp();
        if board.p4_count(us, Pattern4::AFive) > 0 {
            return Some(1);
        }
        match board.p4_count(them, Pattern4::AFive) {
            0 => {}
            1 => {
                // The defender's four must be blocked; the attack goes on only if the
                // block is itself a threat.
                let p = find_cell(board, them, Pattern4::AFive)?;
                let k = board.p4(p, us);
                if depth == 0 || !is_threat(k) || !rules::is_legal(board, p, us) {
                    return None;
                }
                board.make_move(p);
                let won = self.defend(board, depth - 1);
                board.undo();
                return won.map(|n| n + 1);
            }
            _ => return None,
        }
        if board.p4_count(us, Pattern4::BFlex4) > 0 {
            return Some(3);
        }
        if depth == 0 {
            return None;
        }
        self.first_winning_threat(board, depth)
            .map(|(_, plies)| plies)
    }

    /// The defender is to move after a threat: plies to the attacker's five if every
    /// answer still loses (the longest of them).
    fn defend(&mut self, board: &mut Board, depth: i32) -> Option<i32> {
        self.visit();
        if self.exhausted() {
            return None;
        }
        let d = board.side_to_move();
        let a = d.opp();
        if board.p4_count(d, Pattern4::AFive) > 0 {
            return None;
        }
        match board.p4_count(a, Pattern4::AFive) {
            0 => {}
            1 => {
                let p = find_cell(board, a, Pattern4::AFive)?;
                if !rules::is_legal(board, p, d) {
                    return Some(2);
                }
                board.make_move(p);
                let won = self.attack(board, depth);
                board.undo();
                return won.map(|n| n + 1);
            }
            _ => return Some(2),
        }
        let threat = movegen::threat(board);
        if !threat.needs_defence() {
            return None;
        }
        let mut replies = movegen::defences(board);
        movegen::sort(board, &mut replies);
        if replies.is_empty() {
            // No answer at all: any move, then open four (or four-three), block(s), five.
            return Some(if threat == movegen::Threat::FourThree {
                6
            } else {
                4
            });
        }
        let mut longest = 0;
        for m in replies {
            board.make_move(m.pos);
            let won = self.attack(board, depth);
            board.undo();
            longest = longest.max(won? + 1);
        }
        (!self.exhausted()).then_some(longest)
    }
}

/// Classes of a move that makes a four or an open three.
fn is_threat(k: Pattern4) -> bool {
    k.makes_four()
        || matches!(
            k,
            Pattern4::FFlex3x2 | Pattern4::GFlex3Plus | Pattern4::HFlex3
        )
}

/// The side to move's legal threat moves, strongest class first, then by cell.
fn threats(board: &mut Board) -> MoveList {
    let us = board.side_to_move();
    let mut list = MoveList::new();
    let cells: SmallVec<[Pos; 32]> = board
        .candidates()
        .filter(|&p| is_threat(board.p4(p, us)))
        .collect();
    for p in cells {
        if rules::is_legal(board, p, us) {
            list.push(ScoredMove {
                pos: p,
                score: board.p4(p, us) as i32,
            });
        }
    }
    list.sort_by(|a, b| b.score.cmp(&a.score).then(a.pos.cmp(&b.pos)));
    list
}

fn find_cell(board: &Board, c: crate::types::Color, k: Pattern4) -> Option<Pos> {
    board.candidates().find(|&p| board.p4(p, c) == k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Color, Rule};

    #[test]
    fn finds_a_win_by_threes() {
        // Black: two crossing open twos that turn into a double three after one more
        // three: (7,7) makes threes on row 7 and column 7 at once.
        let b = "
            ...............
            ...............
            ...............
            ...............
            ...............
            .......X.......
            .......X.......
            .....XX........
            .........O.....
            ..O........O...
            ...............
            ....O..........";
        let mut board = Board::from_diagram(b, Rule::Freestyle, Color::Black).unwrap();
        let mut v = Vct::new(100_000);
        let (p, plies) = v.find_win(&mut board, 3).expect("a win");
        assert_eq!(p, Pos::new(7, 7));
        // Double three, a defence, open four, a block, five.
        assert_eq!(plies, 5);
        // White to move here has no threats at all.
        board.set_side_to_move(Color::White);
        assert!(!Vct::new(100_000).attacker_wins(&mut board, 4));
    }

    #[test]
    fn scattered_stones_have_no_vct() {
        let b = "
            ...............
            ...............
            ..X.........O..
            ...............
            ...............
            ...............
            ......O........
            ...............
            ...............
            ...............
            ..X.......X....
            ...............
            ............O..";
        let mut board = Board::from_diagram(b, Rule::Freestyle, Color::Black).unwrap();
        let mut v = Vct::new(100_000);
        assert_eq!(v.find_win(&mut board, 4), None);
        assert!(v.nodes() < 100_000, "decided, not out of budget");
    }
}
