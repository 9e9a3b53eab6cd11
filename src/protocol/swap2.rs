//! SWAP2BOARD: proposing the first three stones, and choosing between taking black,
//! staying white with a move, after three or five opening stones.

use super::command::StoneLine;
use crate::board::Board;
use crate::engine::{Engine, GameError, ThinkJob};
use crate::search::SearchResult;
use crate::types::{Color, Pos, Value};
use std::time::Instant;

/// White's value below which we take black instead (white is to move in both cases).
const SWAP_MARGIN: Value = 40;

/// Which decision a SWAP2 search serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Three stones on the board: SWAP or play white's 4th move.
    Three,
    /// Five stones: SWAP or play white's 6th move.
    Five,
}

/// What to do next.
pub enum Next {
    Answer(String),
    Search(Box<ThinkJob>, Stage),
}

/// The opening stones, checked: on the board, distinct, 0, 3 or 5 of them.
pub fn read_stones(engine: &Engine, lines: &[StoneLine]) -> Result<Vec<Pos>, String> {
    let board = engine
        .board()
        .ok_or_else(|| GameError::NoGame.to_string())?;
    let mut out: Vec<Pos> = Vec::new();
    for l in lines {
        let p = board.pos_at(l.x, l.y).map_err(|e| e.to_string())?;
        if out.contains(&p) {
            return Err(format!("{p} is listed twice"));
        }
        out.push(p);
    }
    if ![0, 3, 5].contains(&out.len()) {
        return Err(format!("expected 0, 3 or 5 stones, got {}", out.len()));
    }
    Ok(out)
}

/// Answer at once (no stones) or prepare the search that decides.
pub fn stage(engine: &mut Engine, stones: &[Pos], received: Instant) -> Result<Next, GameError> {
    let (w, h) = engine
        .board()
        .map(|b| (b.width(), b.height()))
        .ok_or(GameError::NoGame)?;
    if stones.is_empty() {
        // A quiet, roughly balanced start near the centre: black centre, white diagonal,
        // black a knight's move away.
        let (cx, cy) = (w / 2, h / 2);
        let moves = [
            Pos::new(cx, cy),
            Pos::new(cx + 1, cy - 1),
            Pos::new(cx + 1, cy + 2),
        ];
        let text: Vec<String> = moves.iter().map(|p| p.to_string()).collect();
        return Ok(Next::Answer(text.join(" ")));
    }
    let mut board = Board::new(w, h, engine.options.rule)?;
    for (i, &p) in stones.iter().enumerate() {
        board.make(
            p,
            if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
        );
    }
    let job = engine.think_on(board, received)?;
    let stage = if stones.len() == 3 {
        Stage::Three
    } else {
        Stage::Five
    };
    Ok(Next::Search(Box::new(job), stage))
}

/// The reply once the search is done: SWAP if white (to move) stands badly, else its move.
pub fn answer(_stage: Stage, r: &SearchResult) -> String {
    if r.value < -SWAP_MARGIN {
        "SWAP".to_string()
    } else {
        r.best.to_string()
    }
}
