//! Yixin-Board's `.sav`: the board's width and height on a line each, the number of
//! moves, then one move a line as two 0-based numbers `a b`. The pair is taken as the
//! protocol's `x,y`, the way Yixin-Board sends moves to an engine; to a person looking at
//! Yixin-Board the game may appear mirrored on the diagonal, which changes nothing in play.

use super::{board_size, shown, Format, Record, RecordError};

pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut lines = text.lines().map(str::trim);
    let mut number = |no: usize, what: &str| -> Result<i64, RecordError> {
        match lines.next() {
            Some(l) => l.parse().map_err(|_| RecordError::at(no, what, shown(l))),
            None => Err(RecordError::at(no, what, "the end of the file")),
        }
    };
    let width = number(1, "the board width")?;
    let height = number(2, "the board height")?;
    let (width, height) = board_size(1, width, height)?;
    let count = number(3, "the number of moves")?;
    if count < 0 {
        return Err(RecordError::at(3, "the number of moves", count.to_string()));
    }
    let mut record = Record::new(width, height);
    for i in 0..count as usize {
        let no = 4 + i;
        let expected = || {
            let n = crate::value_text::plural(count as usize, "move");
            format!("a move 'column row' (line 3 counts {n})")
        };
        let line = lines
            .next()
            .ok_or_else(|| RecordError::at(no, expected(), "the end of the file"))?;
        let mut it = line.split_whitespace().map(str::parse::<i64>);
        match (it.next(), it.next(), it.next()) {
            (Some(Ok(a)), Some(Ok(b)), None) => {
                record.push(no, (a, b), line, Format::Sav)?;
            }
            _ => return Err(RecordError::at(no, expected(), shown(line))),
        }
    }
    // Only blank lines may follow: a move more than line 3 counts is an error, not a
    // move dropped.
    if let Some((i, l)) = lines.enumerate().find(|(_, l)| !l.is_empty()) {
        return Err(RecordError::at(
            4 + count as usize + i,
            format!(
                "the end of the file: line 3 counts {}",
                crate::value_text::plural(count as usize, "move")
            ),
            shown(l),
        ));
    }
    Ok(record)
}

pub fn write(record: &Record) -> String {
    let mut s = format!(
        "{}\n{}\n{}\n",
        record.width,
        record.height,
        record.moves.len()
    );
    for m in &record.moves {
        s.push_str(&format!("{} {}\n", m.pos.x(), m.pos.y()));
    }
    s
}
