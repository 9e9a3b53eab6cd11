//! A move as a person types it (`h8` or `7,7`), checked against the position: on the
//! board, on an empty cell, not a renju foul of black's. One check, and one wording of
//! each refusal, for `play`, `analyse` and the web board.

use crate::board::Board;
use crate::records::coords::{cell_name, parse_cell, CellError};
use crate::rules;
use crate::types::{Color, Pos};

/// Why a typed move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Neither `h8` nor `x,y`: each front-end says what it takes instead.
    NotACell,
    /// A cell that cannot be played, and why: `p3 is off the 15x15 board: ...`,
    /// `h8 is taken`, `h8 is forbidden for black under renju: it makes a double three`.
    Why(String),
}

/// The cell `text` names, if the side to move of `board` may play it.
pub fn typed_move(board: &mut Board, text: &str) -> Result<Pos, Refusal> {
    let p = parse_cell(text, board.width(), board.height()).map_err(|e| match e {
        CellError::NotACell => Refusal::NotACell,
        CellError::OffBoard(why) => Refusal::Why(why),
    })?;
    if !board.is_empty(p) {
        return Err(Refusal::Why(format!("{} is taken", cell_name(p))));
    }
    if board.side_to_move() == Color::Black {
        if let Some(foul) = rules::foul(board, p) {
            return Err(Refusal::Why(format!(
                "{} is forbidden for black under renju: it makes {}",
                cell_name(p),
                foul.name()
            )));
        }
    }
    Ok(p)
}
