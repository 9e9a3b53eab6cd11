//! `analyse`: search one position given on the command line to a fixed depth or node count
//! and print every iteration, for studying positions outside a manager.

use crate::bench;
use crate::search::{IterationReport, Limits, Observer, Searcher};
use crate::types::{Depth, Rule};
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
    /// The moves from black's first, alternating, as x,y (0-based column,row).
    pub moves: Vec<String>,
}

struct Printer<'a>(&'a mut dyn Write);

impl Observer for Printer<'_> {
    fn iteration(&mut self, r: &IterationReport) {
        let pv: Vec<String> = r.pv.iter().map(|p| p.to_string()).collect();
        // Progress output: a failed write to the terminal is not worth stopping for.
        let _ = writeln!(
            self.0,
            "depth {} value {} nodes {} pv {}",
            r.depth,
            r.value,
            r.nodes,
            pv.join(" ")
        );
    }
}

/// Search the requested position and print each iteration and the result to `out`.
pub fn run(req: &Request, out: &mut dyn Write) -> anyhow::Result<()> {
    let (width, height) = req.size;
    let mut board = bench::setup(req.rule, width, height, &req.moves.join(" "))?;
    anyhow::ensure!(board.empty_count() > 0, "the board is full");
    let mut searcher = Searcher::new(ANALYSE_TT_BYTES);
    searcher.set_threads(req.threads.threads);
    let limits = Limits {
        max_depth: req.depth,
        max_nodes: req.nodes,
        ..Limits::default()
    };
    let r = searcher.search(&mut board, limits, &mut Printer(out));
    writeln!(
        out,
        "best {} value {} depth {} nodes {}",
        r.best, r.value, r.depth, r.nodes
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
    fn finds_the_open_four() {
        let r = request("--depth 2 7,7 0,0 8,7 0,2 9,7 0,4").unwrap();
        let mut out = Vec::new();
        run(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("best 6,7") || last.starts_with("best 10,7"),
            "{text}"
        );
    }
}
