//! Coordinates of every record format, against the protocol's frame: `x,y` 0-based,
//! x the column from the left, y the row from the top. Each format's convention is
//! stated once, here.
//!
//! | format | a cell is written | origin | example for protocol `7,7` |
//! | --- | --- | --- | --- |
//! | psq (Piskvork) | `x,y` 1-based | top left | `8,8` |
//! | SGF (`GM[4]`) | two letters, column then row, `a` = 0, `A` = 26 | top left | `hh` |
//! | pos string | letter = column (`a` = 0), number = row + 1 | top left | `h8` |
//! | Yixin-Board `.sav` | `a b`, 0-based, the pair Yixin-Board sends an engine as `x,y` | top left | `7 7` |
//! | renju notation (for people) | letter = column, number counted from the bottom | bottom left | `h8` on 15×15 |

use super::Format;
use crate::types::Pos;

/// The cells of a `width`×`height` board as `format` writes them, for error messages:
/// `x from 1 to 15, y from 1 to 15` (psq).
pub fn range(format: Format, width: usize, height: usize) -> String {
    let letter = |n: usize| sgf_letter(n - 1).unwrap_or('?');
    match format {
        Format::Psq => format!("x from 1 to {width}, y from 1 to {height}"),
        Format::Sgf => format!(
            "columns a to {}, rows a to {}",
            letter(width),
            letter(height)
        ),
        Format::PosString => format!("columns a to {}, rows 1 to {height}", letter(width.min(26))),
        Format::Sav => format!("columns 0 to {}, rows 0 to {}", width - 1, height - 1),
    }
}

/// An SGF point letter: `a`–`z` for 0–25, `A`–`Z` for 26–51.
pub fn sgf_letter(v: usize) -> Option<char> {
    match v {
        0..=25 => Some((b'a' + v as u8) as char),
        26..=51 => Some((b'A' + (v - 26) as u8) as char),
        _ => None,
    }
}

/// The value of an SGF point letter.
pub fn sgf_value(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 26),
        _ => None,
    }
}

/// `pos` as an SGF point (`hh`).
pub fn to_sgf(pos: Pos) -> String {
    let x = sgf_letter(pos.x()).expect("boards are at most 32 wide");
    let y = sgf_letter(pos.y()).expect("boards are at most 32 high");
    format!("{x}{y}")
}

/// A pos-string cell (`h8`); the column letter covers boards up to 26 wide.
pub fn to_pos_string(pos: Pos) -> Option<String> {
    let letter = (pos.x() < 26).then(|| (b'a' + pos.x() as u8) as char)?;
    Some(format!("{letter}{}", pos.y() + 1))
}

/// `pos` in renju notation on a board `height` rows high (`h8` is the centre of 15×15;
/// `i` is not skipped), for people reading a board drawn with row 1 at the bottom.
pub fn to_renju(pos: Pos, height: usize) -> String {
    let letter = if pos.x() < 26 {
        ((b'a' + pos.x() as u8) as char).to_string()
    } else {
        format!("a{}", (b'a' + (pos.x() - 26) as u8) as char)
    };
    format!("{letter}{}", height - pos.y())
}

/// The column letter people see and type for column `x`: `a` to `z`, then `A` to `Z` on
/// boards wider than 26.
pub fn column_letter(x: usize) -> char {
    sgf_letter(x).unwrap_or('?')
}

/// A cell as Wuzi shows it to people: the column letter and the row number from 1 at the
/// top, as `play` and `analyse` draw the board (`h8` is the protocol's `7,7`; the same as
/// a pos string on boards up to 26 wide).
pub fn cell_name(p: Pos) -> String {
    format!("{}{}", column_letter(p.x()), p.y() + 1)
}

/// Why a typed cell is not a cell of the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CellError {
    /// Neither `h8` nor `x,y`.
    NotACell,
    /// A cell, but off the board: the message says the board's range.
    OffBoard(String),
}

/// The board's cells in both of the ways people type them, for messages.
pub fn typed_range(width: usize, height: usize) -> String {
    format!(
        "columns a to {}, rows 1 to {height}, or x,y from 0,0 to {},{}",
        column_letter(width - 1),
        width - 1,
        height - 1
    )
}

/// A cell as people type it: `h8` (column letter, row number from 1 at the top; `H8`
/// too, except on boards wider than 26 where capitals are columns 27 on) or `7,7` (the
/// protocol's x,y from 0).
pub fn parse_cell(text: &str, width: usize, height: usize) -> Result<Pos, CellError> {
    let text = text.trim();
    let (x, y) = if let Some((x, y)) = text.split_once(',') {
        let n = |s: &str| s.trim().parse::<i64>().map_err(|_| CellError::NotACell);
        (n(x)?, n(y)?)
    } else {
        let mut chars = text.chars();
        let letter = chars.next().ok_or(CellError::NotACell)?;
        let digits = chars.as_str();
        if !letter.is_ascii_alphabetic()
            || digits.is_empty()
            || digits.len() > 3
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(CellError::NotACell);
        }
        let letter = if width > 26 {
            letter
        } else {
            letter.to_ascii_lowercase()
        };
        let x = sgf_value(letter).ok_or(CellError::NotACell)? as i64;
        (
            x,
            digits.parse::<i64>().map_err(|_| CellError::NotACell)? - 1,
        )
    };
    if (0..width as i64).contains(&x) && (0..height as i64).contains(&y) {
        Ok(Pos::new(x as usize, y as usize))
    } else {
        Err(CellError::OffBoard(format!(
            "{text} is off the {width}x{height} board: {}",
            typed_range(width, height)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_agrees_on_the_centre() {
        let centre = Pos::new(7, 7);
        assert_eq!(to_sgf(centre), "hh");
        assert_eq!(to_pos_string(centre).as_deref(), Some("h8"));
        assert_eq!(to_renju(centre, 15), "h8");
        // Top left and bottom right of a 20×15 board.
        assert_eq!(to_pos_string(Pos::new(0, 0)).as_deref(), Some("a1"));
        assert_eq!(to_renju(Pos::new(0, 0), 15), "a15");
        assert_eq!(to_renju(Pos::new(19, 14), 15), "t1");
        assert_eq!(to_sgf(Pos::new(31, 26)), "FA");
        for v in 0..52 {
            assert_eq!(sgf_value(sgf_letter(v).unwrap()), Some(v));
        }
        assert_eq!(to_pos_string(Pos::new(26, 0)), None);
    }

    #[test]
    fn cells_as_people_type_them() {
        assert_eq!(parse_cell("h8", 15, 15), Ok(Pos::new(7, 7)));
        assert_eq!(parse_cell(" H8 ", 15, 15), Ok(Pos::new(7, 7)));
        assert_eq!(parse_cell("7,7", 15, 15), Ok(Pos::new(7, 7)));
        assert_eq!(parse_cell("7, 8", 15, 15), Ok(Pos::new(7, 8)));
        assert_eq!(parse_cell("o15", 15, 15), Ok(Pos::new(14, 14)));
        let off =
            "p3 is off the 15x15 board: columns a to o, rows 1 to 15, or x,y from 0,0 to 14,14";
        assert_eq!(
            parse_cell("p3", 15, 15),
            Err(CellError::OffBoard(off.into()))
        );
        assert!(matches!(
            parse_cell("h16", 15, 15),
            Err(CellError::OffBoard(_))
        ));
        assert!(matches!(
            parse_cell("h0", 15, 15),
            Err(CellError::OffBoard(_))
        ));
        assert!(matches!(
            parse_cell("15,0", 15, 15),
            Err(CellError::OffBoard(_))
        ));
        assert!(matches!(
            parse_cell("-1,0", 15, 15),
            Err(CellError::OffBoard(_))
        ));
        for junk in ["", "hello", "h", "8h", "h8x", "h,8", "7,7,7", "é8", "h1000"] {
            assert_eq!(parse_cell(junk, 15, 15), Err(CellError::NotACell), "{junk}");
        }
        // Past 26 columns capitals are the columns drawn after z.
        assert_eq!(parse_cell("A1", 32, 32), Ok(Pos::new(26, 0)));
        assert_eq!(parse_cell("a1", 32, 32), Ok(Pos::new(0, 0)));
        assert_eq!(cell_name(Pos::new(26, 0)), "A1");
        assert_eq!(cell_name(Pos::new(7, 7)), "h8");
    }
}
