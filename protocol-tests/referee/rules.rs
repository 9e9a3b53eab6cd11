//! The referee's own rules: the board and the judging of one move under freestyle, exact
//! five, renju and caro. Written from the rule descriptions; shares no code with the engine.

/// A stone colour; black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stone {
    Black,
    White,
}

impl Stone {
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stone::Black => "black",
            Stone::White => "white",
        }
    }
}

/// The rules, numbered as in `INFO rule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// 0: five or more in a row wins.
    Freestyle,
    /// 1: exactly five wins; six or more wins for nobody.
    ExactFive,
    /// 4: black wins with exactly five and must avoid fouls; white wins with five or more.
    Renju,
    /// 8: five wins unless both ends hold opponent stones; six or more wins.
    Caro,
    /// 9: exactly five wins unless both ends hold opponent stones.
    CaroExact,
}

impl Rule {
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::ExactFive,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    pub fn from_code(code: u32) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }

    pub fn code(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::ExactFive => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::ExactFive => "exact five",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro exact five",
        }
    }
}

/// Why a black move is forbidden under renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foul {
    Overline,
    DoubleFour,
    DoubleThree,
}

impl Foul {
    pub fn name(self) -> &'static str {
        match self {
            Foul::Overline => "overline",
            Foul::DoubleFour => "double four",
            Foul::DoubleThree => "double three",
        }
    }
}

/// What a legal move leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The game goes on.
    Continue,
    /// The mover has won.
    Win,
    /// The mover (black, renju) played a forbidden point and has lost.
    Foul(Foul),
    /// The board is full without a win.
    Draw,
}

/// Why a move cannot be played at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    OffBoard,
    Occupied,
}

/// What lies at a cell: `None` is off the board.
type Cell = Option<Option<Stone>>;

/// The four line directions: horizontal, vertical and both diagonals.
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A `width` × `height` board; x is the column, y the row.
#[derive(Clone, Debug)]
pub struct Board {
    width: i32,
    height: i32,
    cells: Vec<Option<Stone>>,
    stones: usize,
}

impl Board {
    pub fn new(width: usize, height: usize) -> Board {
        Board {
            width: width as i32,
            height: height as i32,
            cells: vec![None; width * height],
            stones: 0,
        }
    }

    pub fn stones(&self) -> usize {
        self.stones
    }

    pub fn on_board(&self, x: i32, y: i32) -> bool {
        (0..self.width).contains(&x) && (0..self.height).contains(&y)
    }

    pub fn at(&self, x: i32, y: i32) -> Cell {
        self.on_board(x, y)
            .then(|| self.cells[(y * self.width + x) as usize])
    }

    /// Puts a stone on an empty on-board cell (no judging).
    pub fn put(&mut self, x: i32, y: i32, stone: Stone) {
        debug_assert_eq!(self.at(x, y), Some(None));
        self.cells[(y * self.width + x) as usize] = Some(stone);
        self.stones += 1;
    }

    fn remove(&mut self, x: i32, y: i32) {
        self.cells[(y * self.width + x) as usize] = None;
        self.stones -= 1;
    }

    fn is_empty_cell(&self, x: i32, y: i32) -> bool {
        self.at(x, y) == Some(None)
    }

    fn is_black(&self, x: i32, y: i32) -> bool {
        self.at(x, y) == Some(Some(Stone::Black))
    }

    /// The run of `stone` through (x, y) along `d`, the cell counted as `stone`: its
    /// length, how far it reaches back and forward, and the cells just beyond both ends.
    fn run(&self, x: i32, y: i32, d: (i32, i32), stone: Stone) -> Run {
        let reach = |sign: i32| {
            let mut k = 0;
            while self.at(x + sign * (k + 1) * d.0, y + sign * (k + 1) * d.1) == Some(Some(stone)) {
                k += 1;
            }
            k
        };
        let back = reach(-1);
        let fwd = reach(1);
        Run {
            len: (back + fwd + 1) as usize,
            back,
            fwd,
            before: self.at(x - (back + 1) * d.0, y - (back + 1) * d.1),
            after: self.at(x + (fwd + 1) * d.0, y + (fwd + 1) * d.1),
        }
    }

    /// Judges and plays `stone` at (x, y).
    pub fn play(&mut self, rule: Rule, x: i32, y: i32, stone: Stone) -> Result<Verdict, Illegal> {
        match self.at(x, y) {
            None => return Err(Illegal::OffBoard),
            Some(Some(_)) => return Err(Illegal::Occupied),
            Some(None) => {}
        }
        self.put(x, y, stone);
        if self.wins(rule, x, y, stone) {
            return Ok(Verdict::Win);
        }
        if rule == Rule::Renju && stone == Stone::Black {
            if let Some(foul) = self.foul_placed(x, y) {
                return Ok(Verdict::Foul(foul));
            }
        }
        if self.stones == self.cells.len() {
            return Ok(Verdict::Draw);
        }
        Ok(Verdict::Continue)
    }

    /// Whether the stone just placed at (x, y) wins under `rule`.
    fn wins(&self, rule: Rule, x: i32, y: i32, stone: Stone) -> bool {
        DIRS.iter().any(|&d| {
            let run = self.run(x, y, d, stone);
            let opponent = Some(Some(stone.other()));
            let both_blocked = run.before == opponent && run.after == opponent;
            match rule {
                Rule::Freestyle => run.len >= 5,
                Rule::ExactFive => run.len == 5,
                Rule::Renju => match stone {
                    Stone::Black => run.len == 5,
                    Stone::White => run.len >= 5,
                },
                Rule::Caro => run.len >= 6 || (run.len == 5 && !both_blocked),
                Rule::CaroExact => run.len == 5 && !both_blocked,
            }
        })
    }

    /// Renju: why a black stone just placed at (x, y) is a foul, if it is. A five (exactly
    /// five) beats any foul.
    fn foul_placed(&mut self, x: i32, y: i32) -> Option<Foul> {
        let lens = DIRS.map(|d| self.run(x, y, d, Stone::Black).len);
        if lens.contains(&5) {
            return None;
        }
        if lens.iter().any(|&l| l > 5) {
            return Some(Foul::Overline);
        }
        let mut fours = 0;
        let mut threes = 0;
        for d in DIRS {
            let f = self.fours(x, y, d);
            if f > 0 {
                fours += f;
            } else if self.is_three(x, y, d) {
                threes += 1;
            }
        }
        if fours >= 2 {
            Some(Foul::DoubleFour)
        } else if threes >= 2 {
            Some(Foul::DoubleThree)
        } else {
            None
        }
    }

    /// Renju: how many black fours along `d` include the black stone at (x, y). A four is
    /// a line where one more stone makes exactly five; each such five point is one four,
    /// except the two points of a straight four (`.XXXX.`, five apart), which are one.
    fn fours(&mut self, x: i32, y: i32, d: (i32, i32)) -> usize {
        let mut points = Vec::new();
        for k in (-4..=4).filter(|&k| k != 0) {
            let (qx, qy) = (x + k * d.0, y + k * d.1);
            if !self.is_empty_cell(qx, qy) {
                continue;
            }
            self.put(qx, qy, Stone::Black);
            let run = self.run(qx, qy, d, Stone::Black);
            // The five must contain (x, y), which lies k steps before q.
            if run.len == 5 && -run.fwd <= k && k <= run.back {
                points.push(k);
            }
            self.remove(qx, qy);
        }
        let straight_pairs = points
            .iter()
            .filter(|&&a| points.contains(&(a + 5)))
            .count();
        points.len() - straight_pairs
    }

    /// Renju: whether the black stone at (x, y) is part of a three along `d`: a line where
    /// one more stone, on a point that is itself not forbidden, makes a straight four
    /// (four in a row, both ends empty, each end making exactly five).
    fn is_three(&mut self, x: i32, y: i32, d: (i32, i32)) -> bool {
        for k in (-4..=4).filter(|&k| k != 0) {
            let (qx, qy) = (x + k * d.0, y + k * d.1);
            if !self.is_empty_cell(qx, qy) {
                continue;
            }
            self.put(qx, qy, Stone::Black);
            let run = self.run(qx, qy, d, Stone::Black);
            let straight = run.len == 4
                && -run.fwd <= k
                && k <= run.back
                && run.before == Some(None)
                && run.after == Some(None)
                && !self.is_black(qx - (run.back + 2) * d.0, qy - (run.back + 2) * d.1)
                && !self.is_black(qx + (run.fwd + 2) * d.0, qy + (run.fwd + 2) * d.1);
            let real = straight && self.foul_placed(qx, qy).is_none();
            self.remove(qx, qy);
            if real {
                return true;
            }
        }
        false
    }
}

/// A run of one colour through a cell along a direction.
struct Run {
    len: usize,
    /// Stones before the cell.
    back: i32,
    /// Stones after the cell.
    fwd: i32,
    before: Cell,
    after: Cell,
}
