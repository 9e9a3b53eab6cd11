//! The self-play data file: games of Wuzi against itself, each with its result and, for
//! every position after the opening, the value the search gave it and the move it chose.
//! A position is the game's moves up to it, so the file stores each game once.
//!
//! Layout (integers little-endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | the file header `WUZISP01` |
//!
//! then one record a game:
//!
//! | bytes | field |
//! | --- | --- |
//! | 1 | rule, as `INFO rule` numbers it (0, 1, 4, 8, 9) |
//! | 1, 1 | board width, height |
//! | 1 | result: 1 black won, 2 white won, 0 a draw (full board) |
//! | 2 | number of moves `n`, opening stones included |
//! | 2 | number of opening stones `k` (placed, not searched) |
//! | 2·n | the moves from black's first: column, row |
//! | 4·(n−k) | for each searched position, in order: the side to move's value (i16, as the search reports it: centi-stones, mates at ±30000 less the plies), then its best move (column, row) |
//!
//! A record is written whole and flushed, so a run that is stopped leaves complete games
//! and at most one cut-off record at the end, which the reader reports and ignores.

use crate::types::{Pos, Rule, Value};
use std::io::{self, Read, Write};

/// The first bytes of every file.
pub const HEADER: &[u8; 8] = b"WUZISP01";

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    BlackWon,
    WhiteWon,
    Draw,
}

/// One searched position: the search's value for the side to move and its best move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub value: Value,
    pub best: Pos,
}

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub outcome: Outcome,
    /// Every move from black's first, the opening's included.
    pub moves: Vec<Pos>,
    /// How many of `moves` are the opening.
    pub opening: usize,
    /// One per move after the opening: the search before that move.
    pub labels: Vec<Label>,
}

impl Game {
    /// The record's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(8 + 2 * self.moves.len() + 4 * self.labels.len());
        b.push(self.rule.protocol() as u8);
        b.push(self.width as u8);
        b.push(self.height as u8);
        b.push(match self.outcome {
            Outcome::Draw => 0,
            Outcome::BlackWon => 1,
            Outcome::WhiteWon => 2,
        });
        b.extend_from_slice(&(self.moves.len() as u16).to_le_bytes());
        b.extend_from_slice(&(self.opening as u16).to_le_bytes());
        for p in &self.moves {
            b.extend_from_slice(&[p.x() as u8, p.y() as u8]);
        }
        for l in &self.labels {
            b.extend_from_slice(&(l.value as i16).to_le_bytes());
            b.extend_from_slice(&[l.best.x() as u8, l.best.y() as u8]);
        }
        b
    }
}

/// Everything a file holds.
#[derive(Debug, Default)]
pub struct Contents {
    pub games: Vec<Game>,
    /// Bytes at the end that do not make a whole record (a run stopped while writing).
    pub cut_off: usize,
}

/// Write the file header.
pub fn write_header(out: &mut dyn Write) -> io::Result<()> {
    out.write_all(HEADER)
}

/// Read a whole file's bytes. A wrong header or an impossible record is an error that
/// says where; a record cut off at the end is not (see `Contents::cut_off`).
pub fn parse(bytes: &[u8]) -> anyhow::Result<Contents> {
    anyhow::ensure!(
        bytes.len() >= HEADER.len() && &bytes[..HEADER.len()] == HEADER,
        "not a Wuzi self-play file (it does not start with {:?})",
        std::str::from_utf8(HEADER).expect("ASCII")
    );
    let mut contents = Contents::default();
    let mut at = HEADER.len();
    while at < bytes.len() {
        match record(&bytes[at..]) {
            Ok(Some((game, used))) => {
                contents.games.push(game);
                at += used;
            }
            Ok(None) => {
                contents.cut_off = bytes.len() - at;
                break;
            }
            Err(e) => anyhow::bail!("game {} (byte {at}): {e}", contents.games.len() + 1),
        }
    }
    Ok(contents)
}

/// Read a file.
pub fn read(path: &std::path::Path) -> anyhow::Result<Contents> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// One record from the start of `b` and its length; `None` if `b` ends inside it.
fn record(b: &[u8]) -> anyhow::Result<Option<(Game, usize)>> {
    if b.len() < 8 {
        return Ok(None);
    }
    let rule =
        Rule::from_protocol(b[0] as i64).ok_or_else(|| anyhow::anyhow!("unknown rule {}", b[0]))?;
    let (width, height) = (b[1] as usize, b[2] as usize);
    anyhow::ensure!(
        (crate::types::MIN_SIZE..=crate::types::MAX_SIZE).contains(&width)
            && (crate::types::MIN_SIZE..=crate::types::MAX_SIZE).contains(&height),
        "board {width}x{height} is not 5 to 32 a side"
    );
    let outcome = match b[3] {
        0 => Outcome::Draw,
        1 => Outcome::BlackWon,
        2 => Outcome::WhiteWon,
        r => anyhow::bail!("unknown result {r}"),
    };
    let n = u16::from_le_bytes([b[4], b[5]]) as usize;
    let opening = u16::from_le_bytes([b[6], b[7]]) as usize;
    anyhow::ensure!(
        opening <= n && n <= width * height,
        "{n} moves with {opening} opening stones on {width}x{height}"
    );
    let len = 8 + 2 * n + 4 * (n - opening);
    if b.len() < len {
        return Ok(None);
    }
    let cell = |x: u8, y: u8| -> anyhow::Result<Pos> {
        anyhow::ensure!(
            (x as usize) < width && (y as usize) < height,
            "cell {x},{y} is off the {width}x{height} board"
        );
        Ok(Pos::new(x as usize, y as usize))
    };
    let mut moves = Vec::with_capacity(n);
    for i in 0..n {
        let p = cell(b[8 + 2 * i], b[9 + 2 * i])?;
        anyhow::ensure!(!moves.contains(&p), "move {} repeats {p}", i + 1);
        moves.push(p);
    }
    let mut labels = Vec::with_capacity(n - opening);
    for i in 0..n - opening {
        let at = 8 + 2 * n + 4 * i;
        labels.push(Label {
            value: i16::from_le_bytes([b[at], b[at + 1]]) as Value,
            best: cell(b[at + 2], b[at + 3])?,
        });
    }
    let game = Game {
        rule,
        width,
        height,
        outcome,
        moves,
        opening,
        labels,
    };
    Ok(Some((game, len)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        Game {
            rule: Rule::Renju,
            width: 20,
            height: 15,
            outcome: Outcome::WhiteWon,
            moves: vec![Pos::new(10, 7), Pos::new(11, 8), Pos::new(19, 14)],
            opening: 1,
            labels: vec![
                Label {
                    value: -29_990,
                    best: Pos::new(11, 8),
                },
                Label {
                    value: 315,
                    best: Pos::new(0, 0),
                },
            ],
        }
    }

    fn file(games: &[Game]) -> Vec<u8> {
        let mut b = HEADER.to_vec();
        for g in games {
            b.extend(g.encode());
        }
        b
    }

    #[test]
    fn games_round_trip() {
        let mut draw = game();
        draw.outcome = Outcome::Draw;
        draw.rule = Rule::CaroExact;
        let games = [game(), draw];
        let c = parse(&file(&games)).unwrap();
        assert_eq!(c.games, games);
        assert_eq!(c.cut_off, 0);
        assert_eq!(game().encode().len(), 8 + 2 * 3 + 4 * 2);
    }

    #[test]
    fn a_cut_off_record_is_reported_and_the_games_before_it_kept() {
        let bytes = file(&[game(), game()]);
        for cut in 1..game().encode().len() {
            let c = parse(&bytes[..bytes.len() - cut]).unwrap();
            assert_eq!(c.games, [game()], "cut {cut}");
            assert_eq!(c.cut_off, game().encode().len() - cut);
        }
    }

    #[test]
    fn broken_files_are_refused_with_the_reason() {
        let err = |b: &[u8]| parse(b).unwrap_err().to_string();
        assert!(err(b"").contains("not a Wuzi self-play file"));
        assert!(err(b"(;FF[4]GM[4])").contains("not a Wuzi self-play file"));
        let mut bad_rule = file(&[game()]);
        bad_rule[8] = 3;
        assert!(err(&bad_rule).contains("game 1 (byte 8): unknown rule 3"));
        let mut off_board = file(&[game(), game()]);
        let second = 8 + game().encode().len();
        off_board[second + 8] = 20;
        assert!(err(&off_board).contains("game 2"), "{}", err(&off_board));
        assert!(err(&off_board).contains("off the 20x15 board"));
        let mut repeated = file(&[game()]);
        repeated[8 + 10] = 10;
        repeated[8 + 11] = 7;
        assert!(err(&repeated).contains("repeats"), "{}", err(&repeated));
        let mut too_many = file(&[game()]);
        too_many[8 + 6] = 4;
        assert!(err(&too_many).contains("3 moves with 4 opening stones"));
    }
}
