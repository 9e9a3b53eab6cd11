//! `analyse`: search one position given on the command line to a fixed depth or node count
//! and print every iteration, for studying positions outside a manager. The moves are
//! typed as in `play` (`h8` or `7,7`); the position is drawn first, with whose move it is,
//! and every value is told from that side.

use crate::board::Board;
use crate::cli::UsageError;
use crate::play::screen::{cell_name, render, Style};
use crate::play::typed::{typed_move, Refusal};
use crate::records::coords::typed_range;
use crate::rules;
use crate::search::{IterationReport, Limits, Observer, Searcher};
use crate::types::{Depth, Pos, Rule};
use crate::value_text::{plural, verdict, Side};
use std::io::Write;

/// TT size for analysis runs.
const ANALYSE_TT_BYTES: usize = 64 << 20;

/// What `analyse` was asked: one position, searched to a depth or a node count (never
/// timed: with `--threads 1` the output is the same on every machine; with more threads
/// the helpers' timing changes what the search finds first, and the node limit counts
/// every thread's nodes).
#[derive(clap::Args, Debug, PartialEq)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["depth", "nodes"])))]
pub struct Request {
    /// Rule: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 caro with exact five (or a name).
    #[arg(long, default_value = "0", value_parser = crate::cli::rule)]
    pub rule: Rule,
    /// Board size: N or WxH.
    #[arg(long, default_value = "15", value_parser = crate::cli::size)]
    pub size: (usize, usize),
    /// Search to this depth.
    #[arg(long, value_parser = crate::cli::depth)]
    pub depth: Option<Depth>,
    /// Search this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    #[command(flatten)]
    pub threads: crate::cli::Threads,
    /// The moves from black's first, alternating, as in `play`: h8 (column letter, row
    /// number from the top) or 7,7 (column,row from 0).
    pub moves: Vec<String>,
}

/// The position after `moves` (from black, alternating), each checked: on the board, on
/// an empty cell, not after the game was won. A fault is the command line's.
fn position(rule: Rule, (w, h): (usize, usize), moves: &[String]) -> anyhow::Result<Board> {
    let mut b = Board::new(w, h, rule)?;
    for (i, m) in moves.iter().enumerate() {
        let fault = |why: String| UsageError(format!("move {} ({m}): {why}", i + 1));
        let p = typed_move(&mut b, m).map_err(|e| match e {
            Refusal::NotACell => fault(format!(
                "not a move; type a column letter and a row number (h8) or x,y (7,7): {}",
                typed_range(w, h)
            )),
            Refusal::Why(why) => fault(why),
        })?;
        b.make_move(p);
        if rules::last_move_won(&mut b) {
            Err(fault("the game is won with this move".into()))?;
        }
    }
    if b.empty_count() == 0 {
        Err(UsageError("the board is full".into()))?;
    }
    Ok(b)
}

/// Prints each iteration: its depth, the value for the side to move and the best line.
struct Printer<'a> {
    out: &'a mut dyn Write,
    sides: (Side, Side),
}

fn line(pv: &[Pos]) -> String {
    pv.iter()
        .map(|&p| cell_name(p))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Observer for Printer<'_> {
    fn iteration(&mut self, r: &IterationReport) {
        // Progress output: a failed write to the terminal is not worth stopping for.
        let _ = writeln!(
            self.out,
            "depth {:>2}  {}  nodes {}  line {}",
            r.depth,
            verdict(r.value, self.sides.0, self.sides.1),
            r.nodes,
            line(&r.pv)
        );
    }
}

/// Search the requested position and print it, each iteration and the result to `out`.
pub fn run(req: &Request, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut board = position(req.rule, req.size, &req.moves)?;
    let mover = board.side_to_move();
    let sides = (Side::of(mover), Side::of(mover.opp()));
    writeln!(
        out,
        "{} on {}x{} after {}; {} to move (rows counted from the top):",
        req.rule.name(),
        board.width(),
        board.height(),
        plural(req.moves.len(), "move"),
        sides.0.name()
    )?;
    writeln!(out, "{}", render(&board, &[], Style::Plain))?;
    let mut searcher = Searcher::new(ANALYSE_TT_BYTES);
    searcher.set_threads(req.threads.threads);
    let limits = Limits {
        max_depth: req.depth,
        max_nodes: req.nodes,
        exact_value: true,
        ..Limits::default()
    };
    let mut printer = Printer { out, sides };
    let r = searcher.search(&mut board, limits, &mut printer);
    writeln!(
        printer.out,
        "Best for {}: {}: {}; depth {}, {}",
        sides.0.name(),
        cell_name(r.best),
        verdict(r.value, sides.0, sides.1),
        r.depth,
        plural(r.nodes as usize, "node")
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(line: &str) -> Result<Request, String> {
        match crate::cli::parse(&format!("analyse {line}"))? {
            crate::cli::Command::Analyse(r) => Ok(r),
            other => Err(format!("{other:?}")),
        }
    }

    fn output(line: &str) -> anyhow::Result<String> {
        let mut out = Vec::new();
        run(&request(line).unwrap(), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn parses_options_and_moves() {
        let r = request("--rule 4 --size 20x18 --depth 3 7,7 8,8").unwrap();
        assert_eq!(r.rule, Rule::Renju);
        assert_eq!((r.size, r.depth), ((20, 18), Some(3)));
        assert_eq!(r.moves, ["7,7", "8,8"]);
        assert!(request("7,7").is_err(), "a limit is required");
        assert!(request("--rule 3 --depth 2").is_err());
        assert!(request("--depth").is_err());
        assert_eq!(
            request("--depth 2").unwrap().threads.threads,
            crate::search::cores()
        );
        assert_eq!(request("--depth 2 --threads 3").unwrap().threads.threads, 3);
        assert!(request("--depth 2 --threads 0").is_err());
    }

    #[test]
    fn finds_the_open_four_in_either_style() {
        // Black h8 i8 j8 against white's a1 a3 a5; black to move makes an open four.
        for moves in [
            "7,7 0,0 8,7 0,2 9,7 0,4",
            "h8 a1 i8 a3 j8 a5",
            "H8 a1 8,7 a3 j8 0,4",
        ] {
            let text = output(&format!("--depth 2 --threads 1 {moves}")).unwrap();
            assert!(
                text.starts_with("freestyle on 15x15 after 6 moves; black to move (rows counted from the top):\n"),
                "{text}"
            );
            assert!(
                text.contains("\n  8  . . . . . . . X X X . . . . .  8\n"),
                "the position is drawn:\n{text}"
            );
            let last = text.lines().last().unwrap();
            assert!(
                last.starts_with("Best for black: g8: ")
                    || last.starts_with("Best for black: k8: "),
                "{text}"
            );
            // The open four wins: the five comes with black's second move.
            assert!(text.contains(": black wins in 2 moves; depth "), "{text}");
        }
        // White to move, lost: told from white's side, in moves.
        let text = output("--depth 4 --threads 1 h8 a1 i8 a3 j8 a5 k8").unwrap();
        assert!(text.contains("; white to move"), "{text}");
        assert!(
            text.lines()
                .last()
                .unwrap()
                .contains(": black wins in 1 move; depth "),
            "{text}"
        );
    }

    #[test]
    fn bad_moves_are_the_command_lines_fault() {
        for (moves, says) in [
            ("h8 p3", "move 2 (p3): p3 is off the 15x15 board: columns a to o, rows 1 to 15, or x,y from 0,0 to 14,14"),
            ("h8 h8", "move 2 (h8): h8 is taken"),
            (
                "--rule renju f8 a1 g8 a3 h6 a5 h7 a7 h8",
                "move 9 (h8): h8 is forbidden for black under renju: it makes a double three",
            ),
            ("h8 hello", "move 2 (hello): not a move; type a column letter"),
            ("a1 b1 a2 b2 a3 b3 a4 b4 a5 b5", "move 9 (a5): the game is won with this move"),
        ] {
            let e = output(&format!("--depth 1 {moves}")).unwrap_err();
            assert!(e.downcast_ref::<UsageError>().is_some(), "{e}");
            assert!(e.to_string().starts_with(says), "{moves}: {e}");
        }
    }
}
