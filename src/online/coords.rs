//! The game server's coordinates: two letters `a`…`o` on the 15×15 board, first the row,
//! then the column, and the move lists (`board`, `win_step`) written with them.

use crate::types::Pos;
use std::fmt;

/// The server's board side.
pub const SIZE: usize = 15;

/// Why a coordinate or a move list cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoordError {
    /// Not two letters.
    Shape(String),
    /// A letter past the board's last row or column.
    OffBoard(String),
    /// An odd number of letters in a move list.
    OddLength(usize),
}

impl fmt::Display for CoordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = (b'a' + SIZE as u8 - 1) as char;
        match self {
            CoordError::Shape(s) => write!(f, "'{s}' is not a coordinate (two letters a-{last})"),
            CoordError::OffBoard(s) => write!(f, "'{s}' is off the board (letters a-{last})"),
            CoordError::OddLength(n) => {
                write!(f, "a move list of {n} letters (moves are pairs of letters)")
            }
        }
    }
}

impl std::error::Error for CoordError {}

/// The server's name of a cell: the row letter, then the column letter (`Pos` keeps the
/// column as `x` and the row as `y`, as the pbrain protocol does).
pub fn format(p: Pos) -> String {
    let letter = |i: usize| (b'a' + i as u8) as char;
    format!("{}{}", letter(p.y()), letter(p.x()))
}

/// Moves as the server writes them, separated by blanks (for messages).
pub fn format_list(moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|&p| format(p))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One letter as a row or column index.
fn index(c: char) -> Option<usize> {
    let c = c.to_ascii_lowercase();
    c.is_ascii_lowercase().then(|| (c as u8 - b'a') as usize)
}

/// A cell from its two letters (any case, blanks around them ignored).
pub fn parse(s: &str) -> Result<Pos, CoordError> {
    let t = s.trim();
    let mut chars = t.chars();
    let (Some(r), Some(c), None) = (chars.next(), chars.next(), chars.next()) else {
        return Err(CoordError::Shape(t.to_string()));
    };
    let (Some(row), Some(col)) = (index(r), index(c)) else {
        return Err(CoordError::Shape(t.to_string()));
    };
    if row >= SIZE || col >= SIZE {
        return Err(CoordError::OffBoard(t.to_string()));
    }
    Ok(Pos::new(col, row))
}

/// A move list written as one string: letter pairs, run together (`hhhi`) or separated by
/// anything that is not a letter (`hh,hi`, `hh hi`, `["hh","hi"]` as text).
pub fn parse_list(s: &str) -> Result<Vec<Pos>, CoordError> {
    let letters: Vec<char> = s.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    if !letters.len().is_multiple_of(2) {
        return Err(CoordError::OddLength(letters.len()));
    }
    letters
        .chunks(2)
        .map(|pair| parse(&pair.iter().collect::<String>()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_first_then_column() {
        // "hi": row h (8th, index 7), column i (index 8): x = 8, y = 7.
        assert_eq!(parse("hi"), Ok(Pos::new(8, 7)));
        assert_eq!(parse(" HI "), Ok(Pos::new(8, 7)));
        assert_eq!(format(Pos::new(8, 7)), "hi");
        assert_eq!(parse("aa"), Ok(Pos::new(0, 0)));
        assert_eq!(parse("oo"), Ok(Pos::new(14, 14)));
        for y in 0..SIZE {
            for x in 0..SIZE {
                assert_eq!(parse(&format(Pos::new(x, y))), Ok(Pos::new(x, y)));
            }
        }
    }

    #[test]
    fn bad_coordinates() {
        assert!(matches!(parse("pa"), Err(CoordError::OffBoard(_))));
        assert!(matches!(parse("h"), Err(CoordError::Shape(_))));
        assert!(matches!(parse("hhh"), Err(CoordError::Shape(_))));
        assert!(matches!(parse("h8"), Err(CoordError::Shape(_))));
        assert!(matches!(parse(""), Err(CoordError::Shape(_))));
        assert!(parse("é1").is_err());
    }

    #[test]
    fn move_lists() {
        let want = vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(0, 14)];
        assert_eq!(parse_list("hhhioa"), Ok(want.clone()));
        assert_eq!(parse_list("hh,hi,oa"), Ok(want.clone()));
        assert_eq!(parse_list(" hh hi oa "), Ok(want.clone()));
        assert_eq!(parse_list("HH-HI-OA"), Ok(want.clone()));
        assert_eq!(parse_list(""), Ok(vec![]));
        assert_eq!(parse_list("hhh"), Err(CoordError::OddLength(3)));
        assert!(parse_list("hhzz").is_err());
        assert_eq!(format_list(&want), "hh hi oa");
    }
}
