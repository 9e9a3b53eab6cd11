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

use crate::types::Pos;

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
}
