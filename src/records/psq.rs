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
//! Moves are read up to the first line that is not three numbers; names are the non-empty
//! lines after them, up to the end code.

use super::{board_size, shown, Record, RecordError};

pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (no, header) = lines
        .next()
        .ok_or_else(|| RecordError::at(1, "a header 'Piskvorky WxH, ...'", "an empty file"))?;
    let (width, height) = header_size(header)
        .ok_or_else(|| RecordError::at(no, "a header 'Piskvorky WxH, ...'", shown(header)))?;
    let (width, height) = board_size(no, width, height)?;
    let mut record = Record::new(width, height);
    let mut rest = Vec::new();
    for (no, line) in lines.by_ref() {
        match numbers(line) {
            Some([x, y, t]) => {
                record
                    .push(no, x.saturating_sub(1), y.saturating_sub(1))?
                    .time_ms = Some(u64::try_from(t).unwrap_or(0));
            }
            None => {
                rest.push((no, line));
                break;
            }
        }
    }
    rest.extend(lines);
    let names: Vec<&str> = rest
        .iter()
        .map(|&(_, l)| l)
        .take_while(|l| l.parse::<i64>().is_err())
        .filter(|l| !l.is_empty())
        .collect();
    if let [black, white, ..] = names[..] {
        record.black = Some(black.to_string());
        record.white = Some(white.to_string());
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

/// Three integers `a,b,c`.
fn numbers(line: &str) -> Option<[i64; 3]> {
    let mut it = line.split(',').map(|p| p.trim().parse::<i64>());
    let n = [it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?];
    it.next().is_none().then_some(n)
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
