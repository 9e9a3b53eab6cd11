//! Game records: Piskvork `.psq`, SGF (`GM[4]`), pos strings (`h8i9j10`) and Yixin-Board
//! `.sav`, read and written. A malformed file gets a `RecordError` that names the line and
//! what was expected there; nothing in a file can make the reader panic. `coords` owns
//! every format's coordinate convention.

pub mod coords;
#[cfg(test)]
mod faults;
mod posstr;
mod psq;
mod sav;
mod sgf;

use crate::types::{Pos, Rule, MAX_SIZE, MIN_SIZE};
use std::fmt;
use std::path::Path;

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub pos: Pos,
    /// Thinking time, where the format keeps it (psq).
    pub time_ms: Option<u64>,
    /// A comment, where the format keeps it (SGF).
    pub comment: Option<String>,
    /// A judgement of the move, where the format keeps it (SGF).
    pub mark: Option<Mark>,
}

impl Move {
    /// A move with no time, comment or mark.
    pub fn at(pos: Pos) -> Move {
        Move {
            pos,
            time_ms: None,
            comment: None,
            mark: None,
        }
    }
}

/// SGF's move annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// `BM[1]`, `BM[2]`: a bad move, a very bad one.
    Bad(u8),
    /// `DO[]`: doubtful.
    Doubtful,
    /// `IT[]`: interesting.
    Interesting,
    /// `TE[1]`, `TE[2]`: a good move (a tesuji), a very good one.
    Good(u8),
}

/// A game: the board, the moves from black's first, and what the file said of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub width: usize,
    pub height: usize,
    /// The rule, where the format keeps it (SGF `RU`).
    pub rule: Option<Rule>,
    pub moves: Vec<Move>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// The result as the file gives it (SGF `RE`, e.g. `B+5`).
    pub result: Option<String>,
}

impl Record {
    /// An empty record of a `width`×`height` game.
    pub fn new(width: usize, height: usize) -> Record {
        Record {
            width,
            height,
            rule: None,
            moves: Vec::new(),
            black: None,
            white: None,
            result: None,
        }
    }

    /// The moves' cells, in order.
    pub fn positions(&self) -> Vec<Pos> {
        self.moves.iter().map(|m| m.pos).collect()
    }

    /// Add a move at protocol coordinates (`x`, `y`), read from `line` of a `format` file
    /// where it is written `text`: it must be on the board and on an empty cell. The caller
    /// fills in its time and comment.
    fn push(
        &mut self,
        line: usize,
        (x, y): (i64, i64),
        text: &str,
        format: Format,
    ) -> Result<&mut Move, RecordError> {
        let on_board = (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y);
        if !on_board {
            return Err(RecordError::at(
                line,
                format!(
                    "a move on the {}x{} board ({})",
                    self.width,
                    self.height,
                    coords::range(format, self.width, self.height)
                ),
                shown(text),
            ));
        }
        let pos = Pos::new(x as usize, y as usize);
        if let Some(i) = self.moves.iter().position(|m| m.pos == pos) {
            return Err(RecordError::at(
                line,
                "a move on an empty cell",
                format!("{}, the cell of move {}", shown(text), i + 1),
            ));
        }
        self.moves.push(Move::at(pos));
        Ok(self.moves.last_mut().expect("just pushed"))
    }
}

/// Checks a board size read from `line`.
fn board_size(line: usize, width: i64, height: i64) -> Result<(usize, usize), RecordError> {
    let range = MIN_SIZE as i64..=MAX_SIZE as i64;
    if range.contains(&width) && range.contains(&height) {
        Ok((width as usize, height as usize))
    } else {
        Err(RecordError::at(
            line,
            format!("a board size from {MIN_SIZE} to {MAX_SIZE}"),
            format!("{width}x{height}"),
        ))
    }
}

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// 1-based line of the file (0: the file as a whole).
    pub line: usize,
    pub expected: String,
    pub found: String,
}

impl RecordError {
    fn at(line: usize, expected: impl Into<String>, found: impl Into<String>) -> RecordError {
        RecordError {
            line,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for RecordError {}

/// A short, printable account of what was found in a piece of text.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    let more = if cut.len() < text.len() { "..." } else { "" };
    format!("{:?}{more}", cut)
}

/// The record formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Psq,
    Sgf,
    PosString,
    Sav,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Psq, Format::Sgf, Format::PosString, Format::Sav];

    /// The format a file name's extension names: `.psq`, `.sgf`, `.sav`, `.pos`/`.txt`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "psq" => Some(Format::Psq),
            "sgf" => Some(Format::Sgf),
            "sav" => Some(Format::Sav),
            "pos" | "txt" => Some(Format::PosString),
            _ => None,
        }
    }

    /// The format `text` looks like: `Piskvorky` header, SGF `(;`, a number on the first
    /// line (`.sav`), else a pos string.
    pub fn sniff(text: &str) -> Format {
        let start = text.trim_start();
        if start.starts_with("Piskvorky") {
            Format::Psq
        } else if start.starts_with('(') {
            Format::Sgf
        } else if start
            .lines()
            .next()
            .is_some_and(|l| l.trim().parse::<u32>().is_ok())
        {
            Format::Sav
        } else {
            Format::PosString
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Psq => "psq",
            Format::Sgf => "SGF",
            Format::PosString => "pos string",
            Format::Sav => "Yixin-Board sav",
        }
    }

    /// Read `text` in this format. A pos string has no board size of its own: it is read
    /// on a 15×15 board, or the smallest square board (up to 26) that holds it.
    pub fn read(self, text: &str) -> Result<Record, RecordError> {
        match self {
            Format::Psq => psq::read(text),
            Format::Sgf => sgf::read(text),
            Format::PosString => posstr::read(text),
            Format::Sav => sav::read(text),
        }
    }

    /// `record` in this format. Fails only where the format cannot hold the game (a pos
    /// string of a board over 26 columns).
    pub fn write(self, record: &Record) -> Result<String, RecordError> {
        match self {
            Format::Psq => Ok(psq::write(record)),
            Format::Sgf => Ok(sgf::write(record)),
            Format::PosString => posstr::write(record),
            Format::Sav => Ok(sav::write(record)),
        }
    }
}

/// Read a record file: the format from its extension, else from its content.
pub fn load(path: &Path) -> anyhow::Result<Record> {
    load_with_format(path).map(|(record, _)| record)
}

/// Read a record file, and say which format it was read as.
pub fn load_with_format(path: &Path) -> anyhow::Result<(Record, Format)> {
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let named = Format::from_path(path);
    let format = named.unwrap_or_else(|| Format::sniff(&text));
    let record = format.read(&text).map_err(|e| {
        if named.is_none() && format == Format::PosString {
            // Guessed from the content, and nothing else fits either.
            anyhow::anyhow!(
                "{} is not a record Wuzi reads (a psq starts with 'Piskvorky', an SGF with \
                 '(;', a Yixin-Board .sav with a number; as a pos string, {e})",
                path.display()
            )
        } else {
            anyhow::anyhow!("{} ({} file): {e}", path.display(), format.name())
        }
    })?;
    Ok((record, format))
}

/// What a file name must end in to name a record format, for messages.
pub const EXTENSIONS: &str = ".psq, .sgf, .sav, or .txt or .pos for a pos string";

/// Write `record` to `path`, in the format its extension names; any other name is refused.
pub fn save(path: &Path, record: &Record) -> anyhow::Result<()> {
    let format = Format::from_path(path).ok_or_else(|| {
        anyhow::anyhow!(
            "{} does not say which format to write: end the name in {EXTENSIONS}",
            path.display()
        )
    })?;
    let text = format.write(record)?;
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game with every field a format may keep.
    pub(super) fn sample(width: usize, height: usize) -> Record {
        let mut r = Record::new(width, height);
        for (i, (x, y)) in [(7, 7), (8, 8), (6, 8), (0, 0), (width - 1, height - 1)]
            .into_iter()
            .enumerate()
        {
            r.moves.push(Move {
                pos: Pos::new(x, y),
                time_ms: Some(100 * i as u64),
                comment: (i == 1).then(|| "a [bracket] and a \\ backslash".to_string()),
                mark: [
                    None,
                    Some(Mark::Bad(2)),
                    Some(Mark::Doubtful),
                    Some(Mark::Good(1)),
                ]
                .get(i)
                .copied()
                .flatten(),
            });
        }
        r.rule = Some(Rule::Renju);
        r.black = Some("pbrain-wuzi".into());
        r.white = Some("pbrain-other".into());
        r.result = Some("B+5".into());
        r
    }

    /// What `format` keeps of `r`.
    fn kept(format: Format, r: &Record) -> Record {
        let mut k = r.clone();
        for m in &mut k.moves {
            if format != Format::Psq {
                m.time_ms = None;
            }
            if format != Format::Sgf {
                m.comment = None;
                m.mark = None;
            }
        }
        if format != Format::Sgf {
            k.rule = None;
            k.result = None;
        }
        if !matches!(format, Format::Psq | Format::Sgf) {
            k.black = None;
            k.white = None;
        }
        k
    }

    #[test]
    fn every_format_round_trips() {
        for (w, h) in [(15, 15), (20, 20), (20, 15), (10, 9), (26, 26), (32, 32)] {
            for format in Format::ALL {
                let r = sample(w, h);
                let Ok(text) = format.write(&r) else {
                    assert!(format == Format::PosString && w > 26, "{format:?} {w}x{h}");
                    continue;
                };
                let back = format.read(&text).unwrap_or_else(|e| {
                    panic!("{format:?} {w}x{h}: {e}\n{text}");
                });
                let want = kept(format, &r);
                if format == Format::PosString {
                    // A pos string keeps the moves; the board is 15×15 or the smallest
                    // that holds them.
                    assert_eq!(back.positions(), want.positions(), "{text}");
                } else {
                    assert_eq!(back, want, "{format:?} {w}x{h}\n{text}");
                }
                assert_eq!(format.write(&back).unwrap(), text, "{format:?} {w}x{h}");
                assert_eq!(Format::sniff(&text), format, "{text}");
            }
        }
    }

    #[test]
    fn reads_what_c_gomoku_cli_writes() {
        // Two games of one match (`-sgf`), opened from the pos string h9f10j12; the first
        // is read.
        let r = Format::Sgf.read(include_str!("c-gomoku-cli.sgf")).unwrap();
        assert_eq!((r.width, r.height, r.rule), (15, 15, Some(Rule::Freestyle)));
        assert_eq!(
            (r.black.as_deref(), r.white.as_deref()),
            (Some("b"), Some("a"))
        );
        assert_eq!(r.result.as_deref(), Some("B+1"));
        let opening = Format::PosString.read("h9f10j12").unwrap();
        assert_eq!(r.positions()[..3], opening.positions()[..]);
        assert_eq!(r.moves[0].comment.as_deref(), Some("opening move"));
        assert_eq!(r.moves[3].comment.as_deref(), Some("44ms"));
        assert_eq!(r.moves.len(), 51);
        assert_eq!(r.moves.last().unwrap().pos, Pos::new(11, 11));
    }

    #[test]
    fn broken_files_never_panic() {
        // Every prefix of every format's text, and a few bytes changed in each.
        for format in Format::ALL {
            let text = format.write(&sample(15, 15)).unwrap();
            let bytes = text.as_bytes();
            for cut in 0..bytes.len() {
                let _ = format.read(&String::from_utf8_lossy(&bytes[..cut]));
                for junk in [b'(', b']', b'\\', b'9', b'-', b';', b'\n', 0xff] {
                    let mut b = bytes.to_vec();
                    b[cut] = junk;
                    let _ = format.read(&String::from_utf8_lossy(&b));
                }
            }
        }
    }

    #[test]
    fn files_by_extension_and_by_content() {
        let dir = std::env::temp_dir().join(format!("wuzi-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let r = sample(15, 15);
        for (name, format) in [
            ("g.psq", Format::Psq),
            ("g.sgf", Format::Sgf),
            ("g.sav", Format::Sav),
        ] {
            let path = dir.join(name);
            save(&path, &r).unwrap();
            assert_eq!(load(&path).unwrap(), kept(format, &r), "{name}");
            // The same content under a name that says nothing.
            let plain = dir.join(format!("{name}.game"));
            std::fs::copy(&path, &plain).unwrap();
            assert_eq!(load(&plain).unwrap(), kept(format, &r), "{name}");
        }
        let bad = dir.join("bad.sgf");
        std::fs::write(&bad, "(;GM[4]SZ[15];B[zz])").unwrap();
        let e = load(&bad).unwrap_err().to_string();
        assert!(
            e.contains("bad.sgf (SGF file): line 1: expected a move"),
            "{e}"
        );
        assert!(load(&dir.join("missing.psq")).is_err());
        // A file whose name and content name no format.
        let junk = dir.join("notes.md");
        std::fs::write(&junk, "hello world\n").unwrap();
        let e = load(&junk).unwrap_err().to_string();
        assert!(
            e.contains("notes.md is not a record Wuzi reads (a psq starts"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
