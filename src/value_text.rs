//! How a search value is shown to people, the same way in `play`, `review` and `analyse`:
//! always from a named side ("for you", "for black"), the win rate first and the
//! evaluation second (`62% for you (eval +90)`), and a proven result as the winner's moves
//! to the five (`Wuzi wins in 3 moves`). The protocol's `MESSAGE` lines for managers keep
//! the engine's own numbers (see `types::format_value`).

use crate::types::{proven_plies, winrate, Color, Value, VALUE_MATE_BOUND};

/// Who a value is told to or about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The person at the terminal.
    You,
    Wuzi,
    Black,
    White,
    /// Wuzi's opponent on a game server.
    Opponent,
}

impl Side {
    /// The side that plays `colour`, by its colour.
    pub fn of(colour: Color) -> Side {
        match colour {
            Color::Black => Side::Black,
            Color::White => Side::White,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::You => "you",
            Side::Wuzi => "Wuzi",
            Side::Black => "black",
            Side::White => "white",
            Side::Opponent => "the opponent",
        }
    }

    /// The name with "win" agreeing: `you win`, `black wins`.
    fn wins(self) -> String {
        match self {
            Side::You => "you win".to_string(),
            s => format!("{} wins", s.name()),
        }
    }

    /// `you have won`, `black has won`.
    fn has_won(self) -> String {
        match self {
            Side::You => "you have won".to_string(),
            s => format!("{} has won", s.name()),
        }
    }
}

/// A value one ply later (after the move it was the value of): a proven result is one ply
/// nearer, anything else the same.
pub fn one_ply_later(v: Value) -> Value {
    if v >= VALUE_MATE_BOUND {
        v + 1
    } else if v <= -VALUE_MATE_BOUND {
        v - 1
    } else {
        v
    }
}

/// The winner's moves to the five of a result proven `plies` plies from now: the side to
/// move makes the first, third, ... ply, so a win in 1 or 2 plies is a win in 1 move.
pub fn moves_to_five(plies: i32) -> i32 {
    (plies.abs() + 1) / 2
}

/// `n moves`, or `1 move`.
pub fn moves(n: i32) -> String {
    plural(n as usize, "move")
}

/// `n things` with the plural of English nouns Wuzi uses (`1 blunder`, `2 inaccuracies`).
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if let Some(stem) = noun
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o']))
    {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {noun}s")
    }
}

/// The win rate as a whole percentage; an unproven value never shows as 0 % or 100 %.
pub fn percent(v: Value) -> u32 {
    let p = (100.0 * winrate(v)).round() as u32;
    match proven_plies(v) {
        Some(_) => p,
        None => p.clamp(1, 99),
    }
}

/// The evaluation with its sign: `+90`, `-240`, `0`.
pub fn eval(v: Value) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// `v`, which is `side`'s value, for a sentence: `62% for you (eval +90)`; a proven result
/// names the winner: `you win in 3 moves`, `Wuzi wins in 1 move`.
pub fn verdict(v: Value, side: Side, other: Side) -> String {
    match proven_plies(v) {
        Some(0) if v > 0 => side.has_won(),
        Some(0) => other.has_won(),
        Some(n) if n > 0 => format!("{} in {}", side.wins(), moves(moves_to_five(n))),
        Some(n) => format!("{} in {}", other.wins(), moves(moves_to_five(n))),
        None => format!("{}% for {} (eval {})", percent(v), side.name(), eval(v)),
    }
}

/// `v` from the mover's side for a table cell: `62% (+90)`, `wins in 3`, `loses in 2`
/// (the table's header says that these count moves), `won` and `lost` once the game is.
pub fn cell(v: Value) -> String {
    match proven_plies(v) {
        Some(0) if v > 0 => "won".to_string(),
        Some(0) => "lost".to_string(),
        Some(n) if n > 0 => format!("wins in {}", moves_to_five(n)),
        Some(n) => format!("loses in {}", moves_to_five(n)),
        None => format!("{}% ({})", percent(v), eval(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{mate_in, mated_in};

    #[test]
    fn values_for_people() {
        assert_eq!(verdict(90, Side::You, Side::Wuzi), "61% for you (eval +90)");
        assert_eq!(
            verdict(-290, Side::You, Side::Wuzi),
            "19% for you (eval -290)"
        );
        assert_eq!(
            verdict(0, Side::Black, Side::White),
            "50% for black (eval 0)"
        );
        // Unproven but far ahead: never shown as certain.
        assert_eq!(
            verdict(5000, Side::Black, Side::White),
            "99% for black (eval +5000)"
        );
        assert_eq!(
            verdict(mate_in(1), Side::You, Side::Wuzi),
            "you win in 1 move"
        );
        assert_eq!(
            verdict(mate_in(9), Side::Black, Side::White),
            "black wins in 5 moves"
        );
        // Lost in 8 plies: the opponent's fourth move makes five.
        assert_eq!(
            verdict(mated_in(8), Side::You, Side::Wuzi),
            "Wuzi wins in 4 moves"
        );
        assert_eq!(verdict(-mate_in(0), Side::You, Side::Wuzi), "Wuzi has won");
        assert_eq!(cell(mate_in(0)), "won");
        assert_eq!(cell(mate_in(3)), "wins in 2");
        assert_eq!(cell(mated_in(2)), "loses in 1");
        assert_eq!(cell(-45), "44% (-45)");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "blunder"), "1 blunder");
        assert_eq!(plural(0, "mistake"), "0 mistakes");
        assert_eq!(plural(2, "inaccuracy"), "2 inaccuracies");
        assert_eq!(plural(1, "inaccuracy"), "1 inaccuracy");
        assert_eq!(plural(3, "day"), "3 days");
        assert_eq!(moves(1), "1 move");
    }
}
