//! Piskvork's `.psq`, as Piskvork and the Gomocup judge write it:
//!
//! ```text
//! Piskvorky 15x15, 11:11, 0
//! 8,8,0            one move a line: x,y 1-based, then the thinking time in ms
//! 9,9,1234
//! pbrain-a.zip     the players (black's first), when the file names them
//! pbrain-b.zip
//! -1               the end code
//! ```
//!
//! The file is read whole or not at all. Every line with a comma is a move, and must be
//! `x,y,time` (or `x,y`) on the board; the moves come first, with no other line among
//! them. After them come either nothing, or the end code, or two player names and the end
//! code, then only blank lines. Anything else (a broken move such as `9,x,0`, a move after
//! the names, a third name) is an error naming its line, so that no broken file reads as
//! a shorter game.

use super::{board_size, shown, Format, Record, RecordError};

pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (no, header) = lines
        .next()
        .ok_or_else(|| RecordError::at(1, "a header 'Piskvorky WxH, ...'", "an empty file"))?;
    let (width, height) = header_size(header)
        .ok_or_else(|| RecordError::at(no, "a header 'Piskvorky WxH, ...'", shown(header)))?;
    let (width, height) = board_size(no, width, height)?;
    let mut record = Record::new(width, height);
    let mut last_move = no;
    // The lines after the moves: names and the end code.
    let mut trailer: Vec<(usize, &str)> = Vec::new();
    for (no, line) in lines {
        if !line.contains(',') {
            trailer.push((no, line));
            continue;
        }
        if let Some(&(first, l)) = trailer.first() {
            let what = if l.is_empty() {
                "a blank line".to_string()
            } else {
                shown(l)
            };
            return Err(RecordError::at(
                no,
                format!("no move after line {first} ({what}): the moves come first, with no other line among them"),
                shown(line),
            ));
        }
        let Some((x, y, time)) = numbers(line) else {
            return Err(RecordError::at(
                no,
                "a move x,y,time: whole numbers, x and y from 1",
                shown(line),
            ));
        };
        let m = record.push(
            no,
            (x.saturating_sub(1), y.saturating_sub(1)),
            line,
            Format::Psq,
        )?;
        m.time_ms = time.map(|t| u64::try_from(t).unwrap_or(0));
        last_move = no;
    }
    // Blank lines at the end are nothing.
    while trailer.last().is_some_and(|(_, l)| l.is_empty()) {
        trailer.pop();
    }
    let end_code = |(no, l): (usize, &str)| {
        l.parse::<i64>().map(drop).map_err(|_| {
            RecordError::at(
                no,
                format!("the end code (a number such as -1) after the moves (last on line {last_move}) and the two players' names"),
                shown(l),
            )
        })
    };
    match trailer[..] {
        [] => {}
        [code] => end_code(code)?,
        [(_, black), (_, white), code] if !black.is_empty() && !white.is_empty() => {
            end_code(code)?;
            record.black = Some(black.to_string());
            record.white = Some(white.to_string());
        }
        _ => {
            let (no, l) = trailer[..]
                .iter()
                .copied()
                .find(|(_, l)| l.is_empty())
                .unwrap_or(trailer[trailer.len() - 1]);
            return Err(RecordError::at(
                no,
                format!(
                    "after the moves (last on line {last_move}) two players' names and the end code, or the end code alone"
                ),
                if l.is_empty() { "a blank line".to_string() } else { shown(l) },
            ));
        }
    }
    Ok(record)
}

/// Width and height from `Piskvorky 15x15, 11:11, 0`.
fn header_size(header: &str) -> Option<(i64, i64)> {
    let size = header.strip_prefix("Piskvorky")?.trim_start();
    let size = size.split(',').next()?.trim();
    let (w, h) = size.split_once('x')?;
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

/// Two or three integers: `x,y,time` or `x,y`.
fn numbers(line: &str) -> Option<(i64, i64, Option<i64>)> {
    let n: Vec<i64> = line
        .split(',')
        .map(|p| p.trim().parse::<i64>().ok())
        .collect::<Option<_>>()?;
    match n[..] {
        [x, y] => Some((x, y, None)),
        [x, y, t] => Some((x, y, Some(t))),
        _ => None,
    }
}

pub fn write(record: &Record) -> String {
    let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", record.width, record.height);
    for m in &record.moves {
        let t = m.time_ms.unwrap_or(0);
        s.push_str(&format!("{},{},{t}\n", m.pos.x() + 1, m.pos.y() + 1));
    }
    if let (Some(b), Some(w)) = (&record.black, &record.white) {
        s.push_str(&format!("{b}\n{w}\n"));
    }
    s.push_str("-1\n");
    s
}
