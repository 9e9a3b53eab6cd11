//! SGF with `GM[4]` (Gomoku and Renju), as c-gomoku-cli writes it:
//!
//! ```text
//! (;FF[4]GM[4]SZ[15]RU[0]PB[black]PW[white]RE[B+5]
//! ;B[hh]
//! ;W[ii]C[a comment]
//! )
//! ```
//!
//! `SZ[20:15]` is a rectangular board (columns:rows). Only the main line is read: the
//! first variation at every branch. Moves must alternate from black; setup stones
//! (`AB`, `AW`) and passes are refused with an error.

use super::coords::{sgf_value, to_sgf};
use super::{board_size, shown, Format, Mark, Record, RecordError};
use crate::types::Rule;

/// The properties of SGF's FF[4] (red-bean.com/sgf/properties.html). Any other name is an
/// error rather than a property skipped: a `B` typed twice (`BB[hh]`) is not a move lost.
const KNOWN: &[&str] = &[
    "AB", "AE", "AN", "AP", "AR", "AS", "AW", "B", "BL", "BM", "BR", "BT", "C", "CA", "CP", "CR",
    "DD", "DM", "DO", "DT", "EV", "FF", "FG", "GB", "GC", "GM", "GN", "GW", "HA", "HO", "IP", "IT",
    "IY", "KM", "KO", "LB", "LN", "MA", "MN", "N", "OB", "ON", "OT", "OW", "PB", "PC", "PL", "PM",
    "PW", "RE", "RO", "RU", "SE", "SL", "SO", "SQ", "ST", "SU", "SZ", "TB", "TE", "TM", "TR", "TW",
    "UC", "US", "V", "VW", "W", "WL", "WR", "WT",
];

/// One property: its name, values and line.
struct Property {
    name: String,
    values: Vec<String>,
    line: usize,
}

/// The parser's place in the text.
struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
}

impl Reader<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn error(&mut self, expected: &str) -> RecordError {
        let found = match self.peek() {
            Some(c) => shown(&c.to_string()),
            None => "the end of the file".to_string(),
        };
        RecordError::at(self.line, expected, found)
    }

    fn expect(&mut self, c: char) -> Result<(), RecordError> {
        self.skip_blanks();
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(&format!("'{c}'")))
        }
    }

    /// A game tree; the nodes of its main line (with the line of their `;`) are appended
    /// to `main` when `keep`.
    fn tree(
        &mut self,
        main: &mut Vec<(usize, Vec<Property>)>,
        keep: bool,
    ) -> Result<(), RecordError> {
        self.expect('(')?;
        self.skip_blanks();
        if self.peek() != Some(';') {
            return Err(self.error("';' (a node)"));
        }
        while {
            self.skip_blanks();
            self.peek() == Some(';')
        } {
            let line = self.line;
            self.bump();
            let node = self.node()?;
            if keep {
                main.push((line, node));
            }
        }
        let mut first = true;
        while {
            self.skip_blanks();
            self.peek() == Some('(')
        } {
            self.tree(main, keep && first)?;
            first = false;
        }
        self.expect(')')
    }

    fn node(&mut self) -> Result<Vec<Property>, RecordError> {
        let mut props = Vec::new();
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(c) if c.is_ascii_uppercase() => {}
                _ => return Ok(props),
            }
            let line = self.line;
            let mut name = String::new();
            while let Some(c) = self.peek().filter(char::is_ascii_uppercase) {
                name.push(c);
                self.bump();
            }
            let mut values = Vec::new();
            while {
                self.skip_blanks();
                self.peek() == Some('[')
            } {
                self.bump();
                values.push(self.value()?);
            }
            if values.is_empty() {
                return Err(self.error(&format!("'[' (a value of {name})")));
            }
            if !KNOWN.contains(&name.as_str()) {
                let e = RecordError::at(line, "a property of SGF's FF[4]", shown(&name));
                return Err(e);
            }
            if props.iter().any(|p: &Property| p.name == name) {
                let e =
                    RecordError::at(line, format!("{name} at most once in a node"), shown(&name));
                return Err(e);
            }
            props.push(Property { name, values, line });
        }
    }

    /// A value after its `[`, up to the closing `]`: `\` escapes the next character and
    /// drops a line break. A value that runs over a line break into what looks like the
    /// next move (`\n;B[`) has lost its `]`: an error rather than a move swallowed.
    fn value(&mut self) -> Result<String, RecordError> {
        let start = self.line;
        let mut v = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error("']' (the end of a value)")),
                Some(']') => {
                    let swallowed = v.lines().skip(1).any(|l| {
                        let l = l.trim_start();
                        l.starts_with(";B[") || l.starts_with(";W[")
                    });
                    if swallowed {
                        return Err(RecordError::at(
                            start,
                            "']' at the end of this value, before the next move",
                            shown(&v),
                        ));
                    }
                    return Ok(v);
                }
                Some('\\') => match self.bump() {
                    None => return Err(self.error("']' (the end of a value)")),
                    Some('\n') => {}
                    Some(c) => v.push(c),
                },
                Some(c) => v.push(c),
            }
        }
    }
}

pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut r = Reader {
        chars: text.chars().peekable(),
        line: 1,
    };
    let mut nodes = Vec::new();
    r.tree(&mut nodes, true)?;
    // A collection (c-gomoku-cli writes a match into one file): the first game is read,
    // the others must be whole games too.
    loop {
        r.skip_blanks();
        match r.peek() {
            None => break,
            Some('(') => r.tree(&mut Vec::new(), false)?,
            Some(_) => return Err(r.error("another game '(;' or the end of the file")),
        }
    }
    let mut record = Record::new(15, 15);
    let root = nodes.first().map(|(_, n)| n.as_slice()).unwrap_or_default();
    for p in root {
        let v = p.values[0].trim();
        match p.name.as_str() {
            "GM" if v != "4" => {
                return Err(RecordError::at(
                    p.line,
                    "GM[4] (Gomoku)",
                    format!("GM[{v}]"),
                ))
            }
            "SZ" => {
                let (w, h) = v.split_once(':').unwrap_or((v, v));
                let size = |s: &str| s.trim().parse::<i64>().ok();
                let (w, h) = match (size(w), size(h)) {
                    (Some(w), Some(h)) => board_size(p.line, w, h)?,
                    _ => {
                        let e = RecordError::at(p.line, "a board size SZ[n] or SZ[w:h]", shown(v));
                        return Err(e);
                    }
                };
                record.width = w;
                record.height = h;
            }
            "RU" => record.rule = v.parse().ok().and_then(Rule::from_protocol),
            "PB" => record.black = Some(p.values[0].clone()),
            "PW" => record.white = Some(p.values[0].clone()),
            "RE" => record.result = Some(p.values[0].clone()),
            _ => {}
        }
    }
    for (i, (node_line, node)) in nodes.iter().enumerate() {
        let mut comment = None;
        let mut mark = None;
        let mut moved = false;
        for p in node {
            match p.name.as_str() {
                "B" | "W" => {
                    let want = if record.moves.len().is_multiple_of(2) {
                        "B"
                    } else {
                        "W"
                    };
                    if p.name != want {
                        let colour = if want == "B" { "black" } else { "white" };
                        let found = format!("{}[{}]", p.name, p.values[0]);
                        return Err(RecordError::at(p.line, format!("a {colour} move"), found));
                    }
                    let text = format!("{}[{}]", p.name, p.values.join("]["));
                    let (x, y) = point(&p.values[0])
                        .filter(|_| p.values.len() == 1)
                        .ok_or_else(|| {
                            RecordError::at(p.line, "a move of two letters", shown(&text))
                        })?;
                    record.push(p.line, (x, y), &text, Format::Sgf)?;
                    moved = true;
                }
                "AB" | "AW" | "AE" => {
                    let e = RecordError::at(p.line, "moves (B, W), not setup stones", &p.name);
                    return Err(e);
                }
                "C" => comment = Some(p.values[0].clone()),
                "BM" | "TE" => {
                    let n = if p.values[0].trim() == "2" { 2 } else { 1 };
                    mark = Some(if p.name == "BM" {
                        Mark::Bad(n)
                    } else {
                        Mark::Good(n)
                    });
                }
                "DO" => mark = Some(Mark::Doubtful),
                "IT" => mark = Some(Mark::Interesting),
                _ => {}
            }
        }
        if moved {
            let m = record.moves.last_mut().expect("a move was read");
            m.comment = comment;
            m.mark = mark;
        } else if i > 0 {
            // A node of the main line without a move (a broken `B`, say): refused, so that
            // the game does not end there unseen.
            let line = *node_line;
            let found = node.first().map_or("an empty node ';'".to_string(), |p| {
                shown(&format!("{}[{}]", p.name, p.values[0]))
            });
            return Err(RecordError::at(
                line,
                "a move B[..] or W[..] in every node after the first",
                found,
            ));
        }
    }
    Ok(record)
}

/// Protocol coordinates of an SGF point (`hh` is 7,7).
fn point(v: &str) -> Option<(i64, i64)> {
    let mut it = v.trim().chars();
    let x = sgf_value(it.next()?)?;
    let y = sgf_value(it.next()?)?;
    it.next().is_none().then_some((x as i64, y as i64))
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace(']', "\\]")
}

pub fn write(record: &Record) -> String {
    let size = if record.width == record.height {
        record.width.to_string()
    } else {
        format!("{}:{}", record.width, record.height)
    };
    let mut s = format!("(;FF[4]GM[4]SZ[{size}]");
    if let Some(rule) = record.rule {
        s.push_str(&format!("RU[{}]", rule.protocol()));
    }
    for (name, value) in [
        ("PB", &record.black),
        ("PW", &record.white),
        ("RE", &record.result),
    ] {
        if let Some(v) = value {
            s.push_str(&format!("{name}[{}]", escape(v)));
        }
    }
    s.push('\n');
    for (i, m) in record.moves.iter().enumerate() {
        let colour = if i % 2 == 0 { 'B' } else { 'W' };
        s.push_str(&format!(";{colour}[{}]", to_sgf(m.pos)));
        match m.mark {
            Some(Mark::Bad(n)) => s.push_str(&format!("BM[{n}]")),
            Some(Mark::Good(n)) => s.push_str(&format!("TE[{n}]")),
            Some(Mark::Doubtful) => s.push_str("DO[]"),
            Some(Mark::Interesting) => s.push_str("IT[]"),
            None => {}
        }
        if let Some(c) = &m.comment {
            s.push_str(&format!("C[{}]", escape(c)));
        }
        s.push('\n');
    }
    s.push_str(")\n");
    s
}
