//! `analyse`: search one position given on the command line to a fixed depth or node count
//! and print every iteration, for studying positions outside a manager.

use crate::bench;
use crate::search::{IterationReport, Limits, Observer, Searcher};
use crate::types::{Depth, Rule};
use std::io::Write;

/// TT size for analysis runs.
const ANALYSE_TT_BYTES: usize = 64 << 20;

/// What `analyse` was asked.
#[derive(Debug, PartialEq)]
pub struct Request {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub depth: Option<Depth>,
    pub nodes: Option<u64>,
    /// Moves from black, alternating, as `x,y`.
    pub moves: String,
}

/// Usage text for errors.
pub const USAGE: &str = "analyse [--rule N] [--size W[xH]] [--depth D] [--nodes N] x,y x,y ... \
(moves from black, alternating; rule numbers as in INFO rule)";

impl Request {
    /// Parse the arguments after `analyse`.
    pub fn parse(args: &[String]) -> anyhow::Result<Request> {
        let mut r = Request {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            depth: None,
            nodes: None,
            moves: String::new(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .ok_or_else(|| anyhow::anyhow!("{name} needs a value; usage: {USAGE}"))
            };
            match a.as_str() {
                "--rule" => {
                    let v = value("--rule")?;
                    r.rule = v
                        .parse()
                        .ok()
                        .and_then(Rule::from_protocol)
                        .ok_or_else(|| anyhow::anyhow!("unknown rule '{v}'"))?;
                }
                "--size" => {
                    let v = value("--size")?;
                    let (w, h) = v.split_once('x').unwrap_or((v, v));
                    r.width = w.parse().map_err(|_| anyhow::anyhow!("bad size '{v}'"))?;
                    r.height = h.parse().map_err(|_| anyhow::anyhow!("bad size '{v}'"))?;
                }
                "--depth" => {
                    let v = value("--depth")?;
                    r.depth = Some(v.parse().map_err(|_| anyhow::anyhow!("bad depth '{v}'"))?);
                }
                "--nodes" => {
                    let v = value("--nodes")?;
                    r.nodes = Some(
                        v.parse()
                            .map_err(|_| anyhow::anyhow!("bad node count '{v}'"))?,
                    );
                }
                m if m.contains(',') => {
                    r.moves.push_str(m);
                    r.moves.push(' ');
                }
                other => anyhow::bail!("unexpected argument '{other}'; usage: {USAGE}"),
            }
        }
        anyhow::ensure!(
            r.depth.is_some() || r.nodes.is_some(),
            "give --depth or --nodes (analysis is never timed); usage: {USAGE}"
        );
        Ok(r)
    }
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
    let mut board = bench::setup(req.rule, req.width, req.height, &req.moves)?;
    anyhow::ensure!(board.empty_count() > 0, "the board is full");
    let mut searcher = Searcher::new(ANALYSE_TT_BYTES);
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

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_options_and_moves() {
        let r = Request::parse(&args("--rule 4 --size 20x18 --depth 3 7,7 8,8")).unwrap();
        assert_eq!(r.rule, Rule::Renju);
        assert_eq!((r.width, r.height, r.depth), (20, 18, Some(3)));
        assert_eq!(r.moves.trim(), "7,7 8,8");
        assert!(Request::parse(&args("7,7")).is_err(), "a limit is required");
        assert!(Request::parse(&args("--rule 3 --depth 2")).is_err());
        assert!(Request::parse(&args("--depth")).is_err());
    }

    #[test]
    fn finds_the_open_four() {
        let r = Request::parse(&args("--depth 2 7,7 0,0 8,7 0,2 9,7 0,4")).unwrap();
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
