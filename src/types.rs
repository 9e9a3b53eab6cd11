//! Basic vocabulary shared by every layer: colours, cells, rules, values and depths.

use std::fmt;

/// Largest supported board side (both width and height).
pub const MAX_SIZE: usize = 32;
/// Smallest supported board side.
pub const MIN_SIZE: usize = 5;
/// Row stride of the cell index: `Pos = y * STRIDE + x`.
pub const STRIDE: usize = 32;
/// Number of cell indices (every `Pos` is below this).
pub const NUM_CELLS: usize = STRIDE * MAX_SIZE;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    /// The other side.
    #[inline]
    pub fn opp(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    /// 0 for black, 1 for white.
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
}

/// A cell of the board, stored as `y * STRIDE + x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos(pub u16);

impl Pos {
    /// The cell at column `x`, row `y` (both below `MAX_SIZE`).
    #[inline]
    pub fn new(x: usize, y: usize) -> Pos {
        debug_assert!(x < MAX_SIZE && y < MAX_SIZE);
        Pos((y * STRIDE + x) as u16)
    }
    /// Column.
    #[inline]
    pub fn x(self) -> usize {
        self.0 as usize % STRIDE
    }
    /// Row.
    #[inline]
    pub fn y(self) -> usize {
        self.0 as usize / STRIDE
    }
    /// Index into per-cell arrays.
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x(), self.y())
    }
}

/// The four line directions as (dx, dy).
pub const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The winning rule of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins (protocol rule 0).
    Freestyle,
    /// Exactly five wins, an overline does not (rule 1).
    Standard,
    /// Renju: black wins only with exactly five and may not play overlines,
    /// double fours or double threes; white wins with five or more (rule 4).
    Renju,
    /// Caro: a five blocked by the opponent at both ends does not win; six or more wins (rule 8).
    Caro,
    /// Caro with exact five: only an exact five not blocked at both ends wins (rule 9).
    CaroExact,
}

impl Rule {
    /// All rules, in table order.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// The rule for a protocol `INFO rule` value, or `None` if unknown.
    /// Value 2 (continuous game in Piskvork) is taken as renju, as Yixin-Board means it.
    pub fn from_protocol(v: i64) -> Option<Rule> {
        match v {
            0 => Some(Rule::Freestyle),
            1 => Some(Rule::Standard),
            2 | 4 => Some(Rule::Renju),
            8 => Some(Rule::Caro),
            9 => Some(Rule::CaroExact),
            _ => None,
        }
    }

    /// The rule's `INFO rule` value (renju as 4).
    pub fn protocol(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    /// Index into per-rule tables.
    pub fn idx(self) -> usize {
        self as usize
    }

    /// Short name, for messages and bench output.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro-exact",
        }
    }
}

/// A position score from the side to move's point of view.
pub type Value = i32;

/// Value of a won position at the root; a win in `n` plies scores `VALUE_MATE - n`.
pub const VALUE_MATE: Value = 30000;
/// Values beyond this magnitude are proven wins or losses.
pub const VALUE_MATE_BOUND: Value = VALUE_MATE - 1000;

/// Values are turned into win rates as 1 / (1 + e^(-value / WINRATE_SCALE)).
const WINRATE_SCALE: f64 = 200.0;

/// The side to move's chance to win: 1 and 0 for proven results, else a logistic curve of
/// the value.
pub fn winrate(v: Value) -> f64 {
    if v >= VALUE_MATE_BOUND {
        1.0
    } else if v <= -VALUE_MATE_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(v as f64) / WINRATE_SCALE).exp())
    }
}

/// A proven result as plies to the five: positive for a win, negative for a loss; `None`
/// for a value that proves nothing.
pub fn proven_plies(v: Value) -> Option<i32> {
    if v >= VALUE_MATE_BOUND {
        Some(VALUE_MATE - v)
    } else if v <= -VALUE_MATE_BOUND {
        Some(-(VALUE_MATE + v))
    } else {
        None
    }
}

/// A value for people: roughly hundredths of a stone's worth, or the distance of a proven
/// result in plies (`win in 9`, `loss in 12`).
pub fn format_value(v: Value) -> String {
    match proven_plies(v) {
        Some(n) if n > 0 => format!("win in {n}"),
        Some(n) => format!("loss in {}", -n),
        None => v.to_string(),
    }
}

/// Larger than any reachable value.
pub const VALUE_INFINITE: Value = 32000;
/// A drawn (full) board.
pub const VALUE_DRAW: Value = 0;

/// Value of winning `ply` plies from the root.
#[inline]
pub fn mate_in(ply: i32) -> Value {
    VALUE_MATE - ply
}

/// Value of losing `ply` plies from the root.
#[inline]
pub fn mated_in(ply: i32) -> Value {
    -VALUE_MATE + ply
}

/// A move-ordering key (higher is tried first).
pub type Score = i32;

/// A search depth in plies.
pub type Depth = i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_for_people() {
        assert_eq!(format_value(35), "35");
        assert_eq!(format_value(-35), "-35");
        assert_eq!(format_value(VALUE_MATE - 9), "win in 9");
        assert_eq!(format_value(-VALUE_MATE + 12), "loss in 12");
        assert_eq!(proven_plies(VALUE_MATE - 9), Some(9));
        assert_eq!(proven_plies(-VALUE_MATE + 12), Some(-12));
        assert_eq!(proven_plies(500), None);
        assert_eq!(winrate(0), 0.5);
        assert!(winrate(200) > 0.73 && winrate(200) < 0.74);
        assert!(winrate(-200) < 0.27);
        assert_eq!(winrate(VALUE_MATE - 3), 1.0);
        assert_eq!(winrate(-VALUE_MATE + 4), 0.0);
    }

    #[test]
    fn rule_numbers_round_trip() {
        for rule in Rule::ALL {
            assert_eq!(Rule::from_protocol(rule.protocol()), Some(rule));
        }
    }
}
