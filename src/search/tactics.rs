//! Tactical positions: the move (or the set of acceptable moves) and the value the search
//! must find under a depth and node limit. Rules that change the answer are included.
//! Each test runs on one thread, and all run again on two (`every_tactic_on_two_threads`).

use super::{Limits, SearchResult, Searcher, Silent};
use crate::board::Board;
use crate::rules;
use crate::types::{Color, Depth, Pos, Rule, VALUE_MATE_BOUND};

thread_local! {
    /// The search threads of this test thread's searches.
    static THREADS: std::cell::Cell<usize> = const { std::cell::Cell::new(1) };
}

fn searcher(tt_bytes: usize) -> Searcher {
    let mut s = Searcher::new(tt_bytes);
    s.set_threads(THREADS.get());
    s
}

fn search(diagram: &str, rule: Rule, to_move: Color, depth: Depth) -> (Board, SearchResult) {
    let mut b = Board::from_diagram(diagram, rule, to_move).unwrap();
    let r = searcher(1 << 20).search(&mut b, depth_limits(depth), &mut Silent);
    (b, r)
}

/// A node budget for each search thread (the limit counts every thread's nodes).
fn nodes(per_thread: u64) -> Option<u64> {
    Some(per_thread * THREADS.get() as u64)
}

/// A depth limit, with a node limit that a correct search stays well inside.
fn depth_limits(depth: Depth) -> Limits {
    Limits {
        max_depth: Some(depth),
        max_nodes: nodes(300_000),
        ..Limits::default()
    }
}

/// Search the freestyle 15×15 position reached by `moves` (from black, as `x,y`).
fn search_moves(moves: &str, tt_bytes: usize, limits: Limits) -> SearchResult {
    let mut b = crate::bench::setup(Rule::Freestyle, 15, 15, moves).unwrap();
    searcher(tt_bytes).search(&mut b, limits, &mut Silent)
}

fn p(x: usize, y: usize) -> Pos {
    Pos::new(x, y)
}

/// White's four (column 7) ends on (7,7), a double-three point for black: black cannot
/// block, so white wins by making that four. Under freestyle black simply blocks.
const FOUL_BLOCK: &str = "
    O..............
    ...............
    .......X.......
    .......O.......
    .......O.......
    .....X.O.......
    ......X........
    .....XX........
    ...............
    ...............
    ...............
    ...............
    ...............
    ...............
    ..............O";

#[test]
fn white_wins_through_blacks_forbidden_block() {
    let (mut b, r) = search(FOUL_BLOCK, Rule::Renju, Color::White, 3);
    assert!(
        rules::is_forbidden(&mut b, p(7, 7)),
        "premise: (7,7) is a black foul"
    );
    assert_eq!(r.best, p(7, 6), "{r:?}");
    assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
    let (_, free) = search(FOUL_BLOCK, Rule::Freestyle, Color::White, 3);
    assert!(free.value < VALUE_MATE_BOUND, "{free:?}");
}

/// Black's double three at (7,7) wins in freestyle and is forbidden in renju.
const DOUBLE_THREE: &str = "
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
    ....O..........
    ...............
    ...............
    ...............";

#[test]
fn renju_black_never_plays_a_foul() {
    let (_, free) = search(DOUBLE_THREE, Rule::Freestyle, Color::Black, 4);
    assert_eq!(free.best, p(7, 7), "{free:?}");
    assert!(free.value >= VALUE_MATE_BOUND, "{free:?}");
    let (mut b, r) = search(DOUBLE_THREE, Rule::Renju, Color::Black, 4);
    assert!(rules::is_forbidden(&mut b, p(7, 7)));
    assert_ne!(r.best, p(7, 7));
    assert!(rules::is_legal(&mut b, r.best, Color::Black), "{r:?}");
}

/// Exact five: six in a row is no win, so black must stop white's open three instead of
/// playing into an overline (it may first make a four, which white must block).
const OVERLINE_OR_DEFEND: &str = "
    ...............
    ...............
    ..XXX.XX.......
    ...............
    ...............
    ...............
    ....OOO........
    ...............
    ...............
    ...............
    .............X.
    ...............
    ...............
    ...............
    ..............O";

#[test]
fn standard_defends_rather_than_overline() {
    let (mut b, r) = search(OVERLINE_OR_DEFEND, Rule::Standard, Color::Black, 4);
    assert_ne!(r.best, p(5, 2));
    assert!(r.value > -VALUE_MATE_BOUND, "{r:?}");
    // Black's first move on the line that is not a four stops the three.
    let mut line = r.pv.iter();
    let defence = loop {
        let m = *line.next().expect("a move that is not a four");
        if !b.p4(m, Color::Black).makes_four() {
            break m;
        }
        b.make_move(m);
        b.make_move(*line.next().expect("white's block"));
    };
    assert!(
        [p(3, 6), p(7, 6), p(2, 6), p(8, 6)].contains(&defence),
        "{r:?}"
    );
    // In freestyle the same cell is a five.
    let (_, f) = search(OVERLINE_OR_DEFEND, Rule::Freestyle, Color::Black, 2);
    assert_eq!(f.best, p(5, 2));
    assert!(f.value >= VALUE_MATE_BOUND);
}

/// Caro: a five blocked at both ends does not win, so black defends instead.
const BLOCKED_FIVE: &str = "
    ...............
    ...............
    .OXXXX.O.......
    ...............
    ...............
    ...............
    ....OOO........
    ...............
    ...............
    ...............
    .............X.
    ...............
    ...............
    ...............
    ...............";

#[test]
fn caro_defends_rather_than_blocked_five() {
    let (_, r) = search(BLOCKED_FIVE, Rule::Caro, Color::Black, 4);
    assert_ne!(r.best, p(6, 2));
    assert!(
        [p(3, 6), p(7, 6), p(2, 6), p(8, 6)].contains(&r.best),
        "{r:?}"
    );
}

/// A win by continuous fours (VCF): black's rush four at (8,5) forces (9,5), and (8,5)
/// also makes an open three on column 8 — a four-three.
const FOUR_THREE: &str = "
    ...............
    ...............
    ...............
    ...............
    ...............
    ....OXXX.......
    ........X......
    ........X......
    ...............
    .........O.....
    ...O...........
    ...............
    ...............
    ...............
    ...............";

#[test]
fn finds_the_four_three() {
    let (_, r) = search(FOUR_THREE, Rule::Freestyle, Color::Black, 3);
    assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
    assert_eq!(r.best, p(8, 5));
}

/// Black threatens the four-three at (8,5); white, with enough stones around, holds by
/// taking away the four or the three.
const FOUR_THREE_DEFENCE: &str = "
    ...............
    ...............
    ...............
    .....O.........
    ...............
    ....OXXX.......
    ......O.X......
    ........XO.....
    ...............
    ...............
    ...............";

#[test]
fn stops_the_opponents_four_three() {
    let (_, r) = search(FOUR_THREE_DEFENCE, Rule::Freestyle, Color::White, 5);
    let defences = [p(8, 5), p(9, 5), p(8, 4), p(8, 8), p(8, 3), p(8, 9)];
    assert!(defences.contains(&r.best), "{r:?}");
    assert!(r.value > -VALUE_MATE_BOUND, "white holds: {r:?}");
}

#[test]
fn plays_own_five_and_blocks_the_opponents() {
    let own_four = "
        ...............
        ...............
        ...............
        ....XXXX.......
        ...............
        ...OOO.........
        ...............";
    let (_, r) = search(own_four, Rule::Freestyle, Color::Black, 3);
    assert!(r.best == p(3, 3) || r.best == p(8, 3));
    assert!(r.value >= VALUE_MATE_BOUND);
    let blocker = "
        ...............
        ...............
        ...OXXXX.......
        ...............
        ...OO.O........
        ...............";
    let (_, r) = search(blocker, Rule::Freestyle, Color::White, 3);
    assert_eq!(r.best, p(8, 2));
}

#[test]
fn makes_an_open_four_and_answers_an_open_three() {
    let attack = "
        ...............
        ...............
        ....XXX........
        ...............
        ......O........
        .....O.........
        ...............";
    let (_, r) = search(attack, Rule::Freestyle, Color::Black, 3);
    assert!(r.best == p(3, 2) || r.best == p(7, 2), "{r:?}");
    assert!(r.value >= VALUE_MATE_BOUND);
    let (_, r) = search(attack, Rule::Freestyle, Color::White, 4);
    assert!(
        [p(3, 2), p(7, 2), p(2, 2), p(8, 2)].contains(&r.best),
        "{r:?}"
    );
}

#[test]
fn an_open_three_is_a_win_at_depth_two() {
    // Black's open three on column 6 becomes an open four: the mate checks see it at once.
    let three = "
        ...............
        ...............
        ...............
        ......X........
        ......X........
        ......X........
        ...XX..........
        ...............
        .OO.O..........
        ...............
        ...............";
    let (_, r) = search(three, Rule::Freestyle, Color::Black, 2);
    assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
}

#[test]
fn a_threat_rich_middlegame_is_seen_lost_without_exploding() {
    // From a game against PentaZen (black to move, white won): both sides have many fours,
    // so four sequences at the leaves transpose heavily. Without the quiescence results
    // in the TT, depth 8 alone took millions of nodes and the loss stayed hidden.
    let moves = "7,8 5,9 9,11 6,7 6,9 5,8 5,10 8,7 4,9 4,8 3,8 6,11 4,10 6,10 3,7 4,11 \
                 7,11 7,7 5,7 8,8 2,7 1,6 1,7 4,7 7,9 8,6";
    let limits = Limits {
        max_nodes: nodes(400_000),
        ..Limits::default()
    };
    let r = search_moves(moves, 16 << 20, limits);
    assert!(r.depth >= 9, "{r:?}");
    assert!(r.value <= -VALUE_MATE_BOUND, "{r:?}");
}

#[test]
fn a_counter_four_answers_a_four_three() {
    // From a game against PentaZen (white to move). Black's split three on the diagonal
    // must be stopped; white's (8,8) does it and wins, although black answers with (7,7):
    // an open three on row 7 plus a four-three point at (7,5). White blocks the three at
    // (8,7), and the four-three is no threat any more, since white's forced block at
    // (7,6) would make a four of its own. A search that demanded every four-three point be
    // broken saw no defence for white there and judged the whole position lost.
    let moves = "7,8 9,8 6,4 9,9 7,9 7,10 9,7 8,10 10,7 9,10 6,10";
    let r = search_moves(moves, 1 << 20, depth_limits(6));
    assert_eq!(r.best, p(8, 8), "{r:?}");
    assert!(r.value >= VALUE_MATE_BOUND, "{r:?}");
}

#[test]
fn an_own_five_is_a_win_in_one() {
    // Black's diagonal four 5,3..8,6 is blocked at 9,7 by white: 4,2 makes five, and is
    // reported as the win it is, not as an evaluation.
    let moves = "7,7 6,6 7,5 7,6 8,6 6,7 6,4 8,7 5,3 9,7";
    let r = search_moves(moves, 1 << 20, depth_limits(8));
    assert_eq!(r.best, p(4, 2), "{r:?}");
    assert_eq!(r.value, crate::types::VALUE_MATE - 1, "{r:?}");
}

#[test]
fn every_tactic_on_two_threads() {
    THREADS.set(2);
    for test in [
        white_wins_through_blacks_forbidden_block,
        renju_black_never_plays_a_foul,
        standard_defends_rather_than_overline,
        caro_defends_rather_than_blocked_five,
        finds_the_four_three,
        stops_the_opponents_four_three,
        plays_own_five_and_blocks_the_opponents,
        makes_an_open_four_and_answers_an_open_three,
        an_open_three_is_a_win_at_depth_two,
        a_threat_rich_middlegame_is_seen_lost_without_exploding,
        a_counter_four_answers_a_four_three,
        an_own_five_is_a_win_in_one,
    ] {
        test();
    }
}
