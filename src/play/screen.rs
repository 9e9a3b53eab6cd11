//! The board as `play` draws it: column letters across, row numbers down (the pos-string
//! frame: `h8` is the protocol's `7,7`), the last move marked and a winning five
//! highlighted. With colour (a terminal, no `NO_COLOR`) stones are coloured and marks are
//! shown in reverse video; without it, plain ASCII: the last move in `( )`, the five in
//! `[ ]`.

use crate::board::Board;
use crate::types::{Color, Pos, DIRS};

/// How to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Colour,
}

const RESET: &str = "\x1b[0m";
const BLACK_STONE: &str = "\x1b[1;36m";
const WHITE_STONE: &str = "\x1b[1;33m";
const LAST: &str = "\x1b[7m";
const FIVE: &str = "\x1b[1;42;30m";

pub use crate::records::coords::cell_name;
use crate::records::coords::column_letter;

/// The board drawn as text, one line per row and a line of letters above and below.
pub fn render(board: &Board, five: &[Pos], style: Style) -> String {
    let last = board.history().last().map(|&(p, _)| p);
    let letters: String = (0..board.width())
        .map(|x| format!(" {}", column_letter(x)))
        .collect();
    let mut out = format!("    {letters}\n");
    let (w, h) = (board.width(), board.height());
    for y in 0..h {
        let at = |x: usize| Pos::new(x, y);
        // The blank before each cell and after the last: marks take their place, a run
        // of the five in one row sharing one pair of brackets.
        let mut seps = vec![' '; w + 1];
        if style == Style::Plain {
            for x in 0..w {
                if five.contains(&at(x)) {
                    if x == 0 || !five.contains(&at(x - 1)) {
                        seps[x] = '[';
                    }
                    if x + 1 == w || !five.contains(&at(x + 1)) {
                        seps[x + 1] = ']';
                    }
                } else if last == Some(at(x)) {
                    seps[x] = '(';
                    seps[x + 1] = ')';
                }
            }
        }
        let mut row = format!("{:>3} ", y + 1);
        for (x, &sep) in seps.iter().enumerate().take(w) {
            row.push(sep);
            let glyph = match board.stone(at(x)) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '.',
            };
            let colour = match (style, glyph) {
                (Style::Plain, _) | (_, '.') => "",
                (_, 'X') => BLACK_STONE,
                _ => WHITE_STONE,
            };
            let mark = match style {
                Style::Plain => "",
                _ if five.contains(&at(x)) => FIVE,
                _ if last == Some(at(x)) => LAST,
                _ => "",
            };
            if colour.is_empty() && mark.is_empty() {
                row.push(glyph);
            } else {
                row.push_str(&format!("{colour}{mark}{glyph}{RESET}"));
            }
        }
        row.push(seps[w]);
        out.push_str(&format!("{row} {}\n", y + 1));
    }
    out.push_str(&format!("    {letters}\n"));
    out
}

/// The five (or longer run) through the last move, if it made one, for the highlight.
pub fn winning_line(board: &Board) -> Vec<Pos> {
    let Some(&(p, c)) = board.history().last() else {
        return Vec::new();
    };
    for (d, _) in DIRS.iter().enumerate() {
        let run = |dir: i32| -> Vec<Pos> {
            (1..)
                .map_while(|k| board.step(p, d, dir * k))
                .take_while(|&q| board.stone(q) == Some(c))
                .collect()
        };
        let mut line = run(-1);
        line.reverse();
        line.push(p);
        line.extend(run(1));
        if line.len() >= 5 {
            return line;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Rule;

    fn board(moves: &[(usize, usize)]) -> Board {
        let mut b = Board::new(9, 9, Rule::Freestyle).unwrap();
        for &(x, y) in moves {
            b.make_move(Pos::new(x, y));
        }
        b
    }

    #[test]
    fn plain_board_marks_the_last_move_and_the_five() {
        let b = board(&[(4, 4), (0, 0), (5, 4)]);
        let text = render(&b, &[], Style::Plain);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "     a b c d e f g h i");
        assert_eq!(lines[1], "  1  O . . . . . . . .  1");
        assert_eq!(lines[5], "  5  . . . . X(X). . .  5");
        assert_eq!(lines[10], lines[0]);
        assert!(text.is_ascii());
        let five: Vec<Pos> = (2..7).map(|x| Pos::new(x, 4)).collect();
        let marked = render(&b, &five, Style::Plain);
        assert_eq!(marked.lines().nth(5).unwrap(), "  5  . .[. . X X .]. .  5");
    }

    #[test]
    fn the_winning_run_through_the_last_move() {
        let mut b = board(&[
            (1, 1),
            (0, 8),
            (2, 2),
            (1, 8),
            (3, 3),
            (2, 8),
            (4, 4),
            (3, 8),
        ]);
        assert!(winning_line(&b).is_empty());
        b.make_move(Pos::new(5, 5));
        let line = winning_line(&b);
        assert_eq!(line, (1..6).map(|i| Pos::new(i, i)).collect::<Vec<_>>());
        assert_eq!(cell_name(Pos::new(7, 7)), "h8");
    }

    #[test]
    fn colour_board_uses_escapes_only_around_stones() {
        let b = board(&[(4, 4)]);
        let text = render(&b, &[], Style::Colour);
        assert!(text.contains("\x1b[1;36m\x1b[7mX\x1b[0m"), "{text:?}");
        assert_eq!(text.lines().nth(1).unwrap(), "  1  . . . . . . . . .  1");
    }
}
