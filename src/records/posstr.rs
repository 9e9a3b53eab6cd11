//! Pos strings, as opening files and c-gomoku-cli use them: the moves from black's first,
//! each a column letter (`a` = 0) and a row number from 1 at the top, with nothing between
//! them (`h8i9j10`); blanks and line breaks between moves are allowed. The string names no
//! board: it is read on 15×15, or on the smallest square board that holds its moves.

use super::coords::to_pos_string;
use super::{shown, Format, Record, RecordError};
use crate::types::MAX_SIZE;

/// The board a pos string is read on, unless its moves need a larger one.
const DEFAULT_SIZE: usize = 15;

pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut cells = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let mut chars = line.char_indices().peekable();
        while let Some(&(at, c)) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
                continue;
            }
            if !c.is_ascii_alphabetic() {
                return Err(RecordError::at(
                    no,
                    "a column letter a-z",
                    shown(&line[at..]),
                ));
            }
            chars.next();
            let x = (c.to_ascii_lowercase() as u8 - b'a') as i64;
            let mut digits = String::new();
            while let Some(&(_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                digits.push(d);
                chars.next();
            }
            let cell = &line[at..at + 1 + digits.len()];
            let row: i64 = match digits.len() {
                1 | 2 => digits.parse().expect("one or two digits"),
                _ => {
                    return Err(RecordError::at(
                        no,
                        "a row number of 1 or 2 digits after the letter",
                        shown(&line[at..]),
                    ))
                }
            };
            cells.push((no, x, row - 1, cell));
        }
    }
    let need = cells
        .iter()
        .map(|&(_, x, y, _)| x.max(y) + 1)
        .max()
        .unwrap_or(0)
        .clamp(DEFAULT_SIZE as i64, MAX_SIZE as i64) as usize;
    let mut record = Record::new(need, need);
    for (no, x, y, cell) in cells {
        record.push(no, (x, y), cell, Format::PosString)?;
    }
    Ok(record)
}

pub fn write(record: &Record) -> Result<String, RecordError> {
    let mut s = String::new();
    for m in &record.moves {
        let cell = to_pos_string(m.pos).ok_or_else(|| {
            RecordError::at(
                0,
                "a board of at most 26 columns for a pos string",
                format!("{} columns", record.width),
            )
        })?;
        s.push_str(&cell);
    }
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Pos;

    /// `benches/openings-20.txt` is `benches/openings-15.txt` with every stone two cells
    /// right and two down, at the centre of a 20×20 board: the README's 20×20 matches use it.
    #[test]
    fn the_20x20_openings_are_the_15x15_ones_moved_to_the_centre() {
        let small = include_str!("../../benches/openings-15.txt").lines();
        let large = include_str!("../../benches/openings-20.txt").lines();
        assert_eq!(small.clone().count(), large.clone().count());
        for (a, b) in small.zip(large) {
            let moved: Vec<Pos> = read(a)
                .expect("a 15×15 opening")
                .positions()
                .iter()
                .map(|p| Pos::new(p.x() + 2, p.y() + 2))
                .collect();
            assert_eq!(
                read(b).expect("a 20×20 opening").positions(),
                moved,
                "{a} / {b}"
            );
        }
    }
}
