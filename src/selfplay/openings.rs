//! Where self-play games start: the lines of an openings file in turn, or random openings
//! near the centre that a short search finds roughly even.

use crate::board::Board;
use crate::records::Format;
use crate::rules;
use crate::search::{Limits, Searcher, Silent};
use crate::types::{Depth, Pos, Rule, Value};
use std::path::Path;

/// Random openings: stones placed, and how far from the centre (in rows and columns).
const RANDOM_STONES: [usize; 3] = [2, 3, 4];
const RANDOM_RADIUS: usize = 3;
/// A random opening is kept when a search of this depth values it within this much.
const BALANCE_DEPTH: Depth = 4;
const BALANCE_LIMIT: Value = 150;
/// Draws before the most balanced draw so far is taken anyway.
const BALANCE_TRIES: usize = 40;

/// The openings of a run's games: a file's, in turn, or random ones from a seed.
pub struct Openings {
    file: Option<Vec<Vec<Pos>>>,
    seed: u64,
    rule: Rule,
    width: usize,
    height: usize,
}

impl Openings {
    /// The openings `setup` asks for (its file is read and checked now).
    pub fn new(setup: &super::Setup, seed: u64) -> anyhow::Result<Openings> {
        let (width, height) = setup.size;
        let file = match &setup.openings {
            Some(path) => Some(load(path, setup.rule, width, height)?),
            None => None,
        };
        Ok(Openings {
            file,
            seed,
            rule: setup.rule,
            width,
            height,
        })
    }

    /// The opening of game `game`.
    pub fn get(&self, game: u64) -> Vec<Pos> {
        match &self.file {
            Some(list) => list[(game % list.len() as u64) as usize].clone(),
            None => random(self.seed, game, self.rule, self.width, self.height),
        }
    }
}

/// Openings read from a file: one pos string a line (`h8i9j10`: column letter, row number
/// from 1 at the top), blank lines and `#` comments skipped. Each must fit the board and
/// leave a game to play under the rule.
pub fn load(path: &Path, rule: Rule, width: usize, height: usize) -> anyhow::Result<Vec<Vec<Pos>>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read openings {}: {e}", path.display()))?;
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: String| anyhow::anyhow!("{} line {}: {what}", path.display(), i + 1);
        let record = Format::PosString
            .read(line)
            .map_err(|e| at(e.to_string()))?;
        let moves = record.positions();
        if let Some(p) = moves.iter().find(|p| p.x() >= width || p.y() >= height) {
            return Err(at(format!("move {p} is off the {width}x{height} board")));
        }
        if let Err(e) = playable(&moves, rule, width, height) {
            return Err(at(e));
        }
        openings.push(moves);
    }
    anyhow::ensure!(!openings.is_empty(), "{} holds no opening", path.display());
    Ok(openings)
}

/// The board after `moves`, if no move wins or fouls and a move is left.
fn playable(moves: &[Pos], rule: Rule, width: usize, height: usize) -> Result<Board, String> {
    let mut b = Board::new(width, height, rule).map_err(|e| e.to_string())?;
    for &p in moves {
        if b.side_to_move() == crate::types::Color::Black {
            if let Some(foul) = rules::foul(&mut b, p) {
                return Err(format!("{p} is a foul for black ({})", foul.name()));
            }
        }
        b.make_move(p);
        if rules::last_move_won(&mut b) {
            return Err(format!("the game is already won at {p}"));
        }
    }
    if b.empty_count() == 0 {
        return Err("the board is full".into());
    }
    Ok(b)
}

/// The random opening of game `game` of a run with `seed`: the same for the same
/// arguments. Stones go on empty cells near the centre, black first; the first draw that
/// a short search values within `BALANCE_LIMIT` is taken (else the most even of
/// `BALANCE_TRIES`).
pub fn random(seed: u64, game: u64, rule: Rule, width: usize, height: usize) -> Vec<Pos> {
    let mut rng = SplitMix(seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let (cx, cy) = (width / 2, height / 2);
    let span = |c: usize, side: usize| {
        let lo = c.saturating_sub(RANDOM_RADIUS);
        lo..(c + RANDOM_RADIUS + 1).min(side)
    };
    let (xs, ys) = (span(cx, width), span(cy, height));
    let mut best: Option<(Value, Vec<Pos>)> = None;
    for _ in 0..BALANCE_TRIES {
        let stones = RANDOM_STONES[rng.below(RANDOM_STONES.len() as u64) as usize];
        let mut moves = Vec::with_capacity(stones);
        while moves.len() < stones.min(xs.len() * ys.len()) {
            let x = xs.start + rng.below(xs.len() as u64) as usize;
            let y = ys.start + rng.below(ys.len() as u64) as usize;
            let p = Pos::new(x, y);
            if !moves.contains(&p) {
                moves.push(p);
            }
        }
        let Ok(mut board) = playable(&moves, rule, width, height) else {
            continue;
        };
        let limits = Limits {
            max_depth: Some(BALANCE_DEPTH),
            ..Limits::default()
        };
        let value = Searcher::new(1 << 20)
            .search(&mut board, limits, &mut Silent)
            .value
            .abs();
        if value <= BALANCE_LIMIT {
            return moves;
        }
        if best.as_ref().is_none_or(|(v, _)| value < *v) {
            best = Some((value, moves));
        }
    }
    // Every draw was lopsided (or, on a tiny board, no draw was playable): the most even.
    best.map(|(_, m)| m).unwrap_or_default()
}

/// A small, fixed random number generator (SplitMix64): the same openings and the same
/// explored moves everywhere.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number from 0 (included) to 1 (excluded).
    pub(crate) fn fraction(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number below `n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_repeatable_even_and_differ_by_game() {
        let a = random(7, 0, Rule::Freestyle, 15, 15);
        assert_eq!(a, random(7, 0, Rule::Freestyle, 15, 15));
        assert!((2..=4).contains(&a.len()), "{a:?}");
        let others: Vec<_> = (1..6)
            .map(|g| random(7, g, Rule::Freestyle, 15, 15))
            .collect();
        assert!(others.iter().any(|o| *o != a));
        for moves in others.iter().chain([&a]) {
            let mut b = playable(moves, Rule::Freestyle, 15, 15).unwrap();
            let limits = Limits {
                max_depth: Some(BALANCE_DEPTH),
                ..Limits::default()
            };
            let v = Searcher::new(1 << 20)
                .search(&mut b, limits, &mut Silent)
                .value;
            assert!(v.abs() <= BALANCE_LIMIT, "{moves:?}: {v}");
            for p in moves {
                assert!(p.x().abs_diff(7) <= RANDOM_RADIUS && p.y().abs_diff(7) <= RANDOM_RADIUS);
            }
        }
        // A board too small for the centre window still gets an opening on it.
        let small = random(1, 0, Rule::Renju, 5, 5);
        assert!(small.iter().all(|p| p.x() < 5 && p.y() < 5));
    }

    #[test]
    fn opening_files_are_read_and_bad_lines_named() {
        let dir = std::env::temp_dir().join(format!("wuzi-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("o.txt");
        let write = |text: &str| std::fs::write(&path, text).unwrap();
        write("# two openings\nh8i9\n\nh8 i9 j10\n");
        let o = load(&path, Rule::Freestyle, 15, 15).unwrap();
        assert_eq!(
            o,
            [
                vec![Pos::new(7, 7), Pos::new(8, 8)],
                vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(9, 9)]
            ]
        );
        let err = |text: &str, w: usize| {
            write(text);
            load(&path, Rule::Renju, w, w).unwrap_err().to_string()
        };
        assert!(err("h8\nh8!\n", 15).contains("o.txt line 2"));
        assert!(err("h8\np16\n", 15).contains("line 2: move 15,15 is off the 15x15 board"));
        assert!(err("a1a2b1b2c1c2d1d2e1\n", 15).contains("already won"));
        assert!(err("# nothing\n", 15).contains("holds no opening"));
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = load(&dir.join("none.txt"), Rule::Freestyle, 15, 15).unwrap_err();
        assert!(missing.to_string().contains("cannot read openings"));
    }
}
