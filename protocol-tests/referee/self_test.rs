//! Checks of the referee's rules on drawn positions, run at the start of every run (the
//! target has no test harness, so these are plain assertions collected into a list).

use crate::rules::{Board, Foul, Illegal, Rule, Stone, Verdict};

/// Runs every rule check; `Ok(count)` or the list of failed checks.
pub fn run() -> Result<usize, Vec<String>> {
    let mut t = Checks::default();
    lines(&mut t);
    renju(&mut t);
    caro(&mut t);
    if t.failures.is_empty() {
        Ok(t.count)
    } else {
        Err(t.failures)
    }
}

#[derive(Default)]
struct Checks {
    count: usize,
    failures: Vec<String>,
}

impl Checks {
    /// The move at `*` by `stone` in the drawn position must give `want`. The drawing is
    /// the whole board: `X` black, `O` white, `.` empty, `*` the (empty) move point.
    fn check<S: AsRef<str>>(
        &mut self,
        name: &str,
        rule: Rule,
        stone: Stone,
        rows: &[S],
        want: Verdict,
    ) {
        self.count += 1;
        let (mut board, (x, y)) = drawn(rows);
        let got = board.play(rule, x, y, stone);
        if got != Ok(want) {
            self.failures.push(format!(
                "{name} ({}, {} at {x},{y}): expected {want:?}, got {got:?}",
                rule.name(),
                stone.name()
            ));
        }
    }
}

fn drawn<S: AsRef<str>>(rows: &[S]) -> (Board, (i32, i32)) {
    let width = rows[0].as_ref().len();
    let mut board = Board::new(width, rows.len());
    let mut point = None;
    for (y, row) in rows.iter().enumerate() {
        let row = row.as_ref();
        assert_eq!(row.len(), width, "ragged drawing");
        for (x, c) in row.chars().enumerate() {
            let (x, y) = (x as i32, y as i32);
            match c {
                'X' => board.put(x, y, Stone::Black),
                'O' => board.put(x, y, Stone::White),
                '*' => point = Some((x, y)),
                '.' => {}
                other => panic!("bad drawing character {other:?}"),
            }
        }
    }
    (board, point.expect("the drawing marks the move with *"))
}

const B: Stone = Stone::Black;
const W: Stone = Stone::White;

/// Fives and overlines under freestyle and exact five, full boards, bad moves.
fn lines(t: &mut Checks) {
    use Rule::{ExactFive, Freestyle};
    use Verdict::{Continue, Draw, Win};
    t.check("five", Freestyle, B, &[".XXXX*."], Win);
    t.check("white five", Freestyle, W, &["*OOOO.."], Win);
    t.check("overline", Freestyle, B, &["XXX*XX"], Win);
    t.check("four only", Freestyle, B, &["XXX*..."], Continue);
    t.check("broken five", Freestyle, B, &["XX*X.X"], Continue);
    t.check("blocked five", Freestyle, B, &["OXXXX*O"], Win);
    let anti_diagonal = ["....*", "...X.", "..X..", ".X...", "X...."];
    t.check("anti-diagonal five", Freestyle, B, &anti_diagonal, Win);
    let diagonal = ["X....", ".X...", "..*..", "...X.", "....X"];
    t.check("diagonal five", Freestyle, B, &diagonal, Win);
    let vertical = ["O", "O", "*", "O", "O", "X"];
    t.check("vertical five", Freestyle, W, &vertical, Win);
    t.check("exact five", ExactFive, B, &["XXXX*."], Win);
    t.check("exact blocked five", ExactFive, W, &["XOOOO*X"], Win);
    t.check("exact overline", ExactFive, B, &["XXX*XX."], Continue);
    t.check("exact white overline", ExactFive, W, &["OOOOO*."], Continue);
    t.check("full board", Freestyle, B, &["XO*"], Draw);
    t.check(
        "full board, exact overline",
        ExactFive,
        B,
        &["XXXXX*"],
        Draw,
    );

    t.count += 2;
    let (mut board, _) = drawn(&["X*."]);
    let occupied = board.play(Freestyle, 0, 0, W);
    let off = board.play(Freestyle, 3, 0, W);
    if occupied != Err(Illegal::Occupied) || off != Err(Illegal::OffBoard) {
        t.failures.push(format!(
            "bad moves: expected Occupied and OffBoard, got {occupied:?} and {off:?}"
        ));
    }
}

/// Renju: black's fouls, white's freedom, five before foul, false threes.
fn renju(t: &mut Checks) {
    use Rule::Renju;
    use Verdict::{Continue, Foul as F, Win};
    t.check("black five", Renju, B, &[".XXXX*."], Win);
    t.check("black overline", Renju, B, &["XXX*XX"], F(Foul::Overline));
    t.check("white overline", Renju, W, &["OOO*OO"], Win);
    t.check("straight four", Renju, B, &[".XX*X.."], Continue);
    t.check(
        "four-four in a line",
        Renju,
        B,
        &["X.X*X.X"],
        F(Foul::DoubleFour),
    );
    t.check(
        "four-four in a line 2",
        Renju,
        B,
        &["XX.*X.XX"],
        F(Foul::DoubleFour),
    );
    t.check("white four-four", Renju, W, &["O.O*O.O"], Continue);
    t.check("five beside a four", Renju, B, &["XXXX*.X.X"], Win);

    // Two fours (row and column).
    let double_four = [
        "...........",
        "...........",
        ".....X.....",
        ".....X.....",
        ".....X.....",
        "..XXX*.....",
        "...........",
    ];
    t.check("double four", Renju, B, &double_four, F(Foul::DoubleFour));
    t.check(
        "white double four",
        Renju,
        W,
        &white(&double_four),
        Continue,
    );
    // A four and a three are allowed.
    let four_three = [
        "...........",
        "...........",
        ".....X.....",
        ".....X.....",
        ".....X.....",
        "...XX*.....",
        "...........",
    ];
    t.check("four-three", Renju, B, &four_three, Continue);
    // Two open threes.
    let double_three = [
        "...........",
        "...........",
        "...........",
        ".....X.....",
        ".....X.....",
        "...XX*.....",
        "...........",
        "...........",
    ];
    t.check(
        "double three",
        Renju,
        B,
        &double_three,
        F(Foul::DoubleThree),
    );
    t.check(
        "white double three",
        Renju,
        W,
        &white(&double_three),
        Continue,
    );
    let split_three = [
        "...........",
        "...........",
        "...........",
        ".....X.....",
        ".....X.....",
        "..X.X*.....",
        "...........",
        "...........",
    ];
    t.check(
        "split double three",
        Renju,
        B,
        &split_three,
        F(Foul::DoubleThree),
    );
    // A three blocked on one side cannot become a straight four: not a three.
    let blocked_three = [
        "...........",
        "...........",
        "...........",
        ".....X.....",
        ".....X.....",
        "..OXX*.....",
        "...........",
        "...........",
    ];
    t.check("blocked three", Renju, B, &blocked_three, Continue);
    // The row three's only straight-four point (8,7) is an overline for black (column
    // x = 8), so that three is false and the move makes a single three.
    let false_three = [
        ".............",
        ".............",
        ".............",
        ".............",
        "........X....",
        "........X....",
        ".....X..X....",
        "...O.*XX.....",
        ".....X..X....",
        "........X....",
        ".............",
        ".............",
        ".............",
    ];
    t.check("false three", Renju, B, &false_three, Continue);
    // The same without the column: the four point is legal, so it is a double three.
    let no_column: Vec<String> = false_three
        .iter()
        .enumerate()
        .map(|(y, row)| {
            let mut row = row.to_string();
            if y != 7 {
                row.replace_range(8..9, ".");
            }
            row
        })
        .collect();
    t.check("true three", Renju, B, &no_column, F(Foul::DoubleThree));
    // The row three's only straight-four point (8,7) also makes a five in column x = 8:
    // a legal point (five beats a foul), so the three counts and the move is a double
    // three. (CForbiddenPointFinder, and the engine, do not count such a three; this
    // needs black to hold a four already, where black would simply win.)
    let four_point_five = [
        ".............",
        ".............",
        ".............",
        "........X....",
        "........X....",
        "........X....",
        ".....X..X....",
        "...O.*XX.....",
        ".....X.......",
        ".............",
        ".............",
        ".............",
        ".............",
    ];
    let want = F(Foul::DoubleThree);
    t.check(
        "three whose four point makes five",
        Renju,
        B,
        &four_point_five,
        want,
    );
    // A three whose straight-four point is itself forbidden, recursively: the row three
    // at y = 6 can become a straight four only at (7,6) ((3,6) is blocked by white), and
    // (7,6) would add threes in its column and anti-diagonal to that four: a double
    // three. So the row three is false and the move makes one three (the column x = 5).
    let recursive = [
        ".............",
        ".............",
        ".............",
        ".............",
        ".....X...X...",
        ".....X..X....",
        "..O.X*X......",
        ".......X.....",
        ".......X.....",
        ".............",
        ".............",
        ".............",
        ".............",
    ];
    t.check(
        "three with a forbidden four point",
        Renju,
        B,
        &recursive,
        Continue,
    );
    let mut four_point = recursive.map(String::from);
    four_point[6] = "..O.XXX*.....".into();
    t.check(
        "that four point",
        Renju,
        B,
        &four_point,
        F(Foul::DoubleThree),
    );
    // Without (9,4) the four point makes one three only, is legal, and the row three is
    // real: a double three.
    let mut real = recursive.map(String::from);
    real[4] = ".....X.......".into();
    t.check(
        "three with a legal four point",
        Renju,
        B,
        &real,
        F(Foul::DoubleThree),
    );
    // Five beats a foul: exactly five with a double four besides.
    let five_and_fours = [
        "...........",
        "...........",
        "..X..X.....",
        "...X.X.....",
        "....XX.....",
        ".XXXX*.....",
        "...........",
    ];
    t.check("five beats double four", Renju, B, &five_and_fours, Win);
    let three_fours = [
        "...........",
        "...........",
        "..X..X.....",
        "...X.X.....",
        "....XX.....",
        "..XXX*.....",
        "...........",
    ];
    t.check("triple four", Renju, B, &three_fours, F(Foul::DoubleFour));
    let five_and_overline = [
        ".....X.....",
        ".....X.....",
        ".....X.....",
        ".....X.....",
        ".....X.....",
        ".XXXX*.....",
        "...........",
    ];
    t.check("five beats overline", Renju, B, &five_and_overline, Win);
}

/// Caro: fives blocked at both ends by the opponent do not win; the edge does not block.
fn caro(t: &mut Checks) {
    use Rule::{Caro, CaroExact};
    use Verdict::{Continue, Win};
    t.check("caro open five", Caro, B, &[".XXXX*."], Win);
    t.check("caro five blocked once", Caro, B, &["OXXXX*."], Win);
    t.check("caro five blocked twice", Caro, B, &["OXXXX*O."], Continue);
    t.check("caro white blocked twice", Caro, W, &["XOO*OOX."], Continue);
    t.check("caro five at the edge", Caro, B, &["XXXX*O"], Win);
    t.check("caro five between edges", Caro, B, &["XX*XX"], Win);
    t.check("caro overline blocked", Caro, B, &["OXXXXX*O"], Win);
    t.check("caro exact open five", CaroExact, B, &[".XXXX*."], Win);
    t.check("caro exact blocked", CaroExact, W, &["XOOOO*X."], Continue);
    t.check("caro exact at the edge", CaroExact, B, &["*XXXXO"], Win);
    t.check("caro exact overline", CaroExact, B, &[".XXXXX*."], Continue);
    let diagonal = [
        "O......", ".X.....", "..X....", "...*...", "....X..", ".....X.", "......O",
    ];
    t.check("caro diagonal blocked", Caro, B, &diagonal, Continue);
}

/// The drawing with the colours exchanged (white to test what black may not do).
fn white(rows: &[&str]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            r.chars()
                .map(|c| match c {
                    'X' => 'O',
                    'O' => 'X',
                    c => c,
                })
                .collect()
        })
        .collect()
}
