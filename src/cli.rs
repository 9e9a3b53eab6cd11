//! The command line. With no arguments `pbrain-wuzi` speaks the pbrain protocol, as
//! tournament managers and GUIs expect; the subcommands are for people and tools. Parsed
//! with clap: `--help`, `--version`, `help SUBCOMMAND`, and errors that say what was
//! expected. The value parsers the subcommands share live here.

use crate::types::{Depth, Rule, MAX_SIZE, MIN_SIZE};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::time::Duration;

/// Wuzi, a Gomoku engine.
///
/// With no arguments it speaks the Gomocup pbrain protocol on standard input and output
/// (START 15, BEGIN, TURN x,y, ... END), for Piskvork, tournament managers, Yixin-Board
/// and scripts. The subcommands play, review and analyse games directly.
#[derive(Parser, Debug)]
#[command(name = "pbrain-wuzi", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What to do instead of speaking the protocol.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play a game against Wuzi in the terminal.
    Play(crate::play::Args),
    /// Review a recorded game move by move: values, best moves, mistakes.
    Review(crate::review::Request),
    /// Search one position and print every iteration.
    Analyse(crate::analyse::Request),
    /// Play Wuzi against itself and write the games, with every position's search, as
    /// training data.
    Selfplay(crate::selfplay::Args),
    /// Search positions one move off the quiet positions of self-play games, and write
    /// them, with their values, as training data for `train --lambda 0`.
    Siblings(crate::selfplay::siblings::Args),
    /// Fit the evaluation's weights to self-play data and write a weights file.
    Train(crate::train::Args),
    /// Tune the evaluation's weights by games between nudged copies of them, and write
    /// a weights file.
    Tune(crate::tune::Args),
    /// Serve a board to play, analyse and review with Wuzi in a web browser.
    Serve(crate::serve::Args),
    /// Play a game on an HTTP Gomoku server (the one of the article Wuzi grew from).
    Online(crate::online::cli::Args),
    /// Search the fixed bench positions and print the node-count signature (on stderr).
    /// With --threads, measure nodes per second on 1 to N threads instead, or with
    /// --to-depth the time 1 to N threads take to reach a depth.
    Bench {
        /// Depth of every search.
        #[arg(default_value_t = crate::bench::DEFAULT_DEPTH, value_parser = depth)]
        depth: Depth,
        /// Measure the speed of 1 to this many search threads (timed, so not repeatable).
        #[arg(long, value_parser = threads, conflicts_with = "depth")]
        threads: Option<usize>,
        /// With --threads: seconds each thread count searches each position.
        #[arg(long, default_value = "1", value_parser = seconds, requires = "threads")]
        seconds: Duration,
        /// With --threads: time each thread count to this depth instead of measuring its
        /// speed (the median ratio to one thread's time is what threads buy in depth).
        #[arg(long, value_parser = depth, requires = "threads", conflicts_with = "seconds")]
        to_depth: Option<Depth>,
    },
}

/// A command line that parses but asks for something that cannot be (a move off the
/// board, a poll interval the server forbids): reported like the parser's own errors,
/// with exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `--threads`, for the subcommands that run Wuzi's own search: every core by default.
#[derive(clap::Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threads {
    /// Search threads (the default is every core of this machine).
    #[arg(long, default_value_t = crate::search::cores(), value_parser = threads)]
    pub threads: usize,
}

/// A number from 0 to 1 (a chance, or a weight of a mix).
pub fn probability(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a number from 0 to 1".into()),
    }
}

/// A rule by its protocol number (0, 1, 4, 8, 9) or its name.
pub fn rule(v: &str) -> Result<Rule, String> {
    match v.to_ascii_lowercase().as_str() {
        "freestyle" => Some(Rule::Freestyle),
        "standard" | "exact" => Some(Rule::Standard),
        "renju" => Some(Rule::Renju),
        "caro" => Some(Rule::Caro),
        "caro-exact" => Some(Rule::CaroExact),
        n => n.parse().ok().and_then(Rule::from_protocol),
    }
    .ok_or_else(|| {
        "expected 0 (freestyle), 1 (exact five), 4 (renju), 8 (caro), 9 (caro with exact five) \
         or one of freestyle, standard, renju, caro, caro-exact"
            .to_string()
    })
}

/// A board size: `N` or `WxH`, sides from 5 to 32.
pub fn size(v: &str) -> Result<(usize, usize), String> {
    let (w, h) = v.split_once('x').unwrap_or((v, v));
    let side = |s: &str| {
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (MIN_SIZE..=MAX_SIZE).contains(n))
    };
    match (side(w), side(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!(
            "expected N or WxH with sides from {MIN_SIZE} to {MAX_SIZE}"
        )),
    }
}

/// A search depth from 1 to the deepest iteration.
pub fn depth(v: &str) -> Result<Depth, String> {
    let max = crate::search::MAX_DEPTH;
    v.parse()
        .ok()
        .filter(|d| (1..=max).contains(d))
        .ok_or_else(|| format!("expected a depth from 1 to {max}"))
}

/// A number of search threads, from 1 to the most a searcher runs.
pub fn threads(v: &str) -> Result<usize, String> {
    let max = crate::search::MAX_THREADS;
    v.parse()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("expected a number of threads from 1 to {max}"))
}

/// A positive number of seconds, up to an hour.
pub fn seconds(v: &str) -> Result<Duration, String> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| "expected a number of seconds above 0, up to 3600".to_string())
}

/// The command line's grammar. Every option that takes a value takes a negative number
/// as its value (`--time -1` is a time refused with its reason, not an unknown option).
pub fn command() -> clap::Command {
    fn negatives(c: clap::Command) -> clap::Command {
        c.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negatives)
    }
    negatives(Cli::command())
}

/// Parses `words` (the program's name first), or the error clap prints and exits with.
pub fn parse_from<I, T>(words: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut matches = command().try_get_matches_from(words)?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// The command line of a test, as a person would type it after `pbrain-wuzi`.
#[cfg(test)]
pub fn parse(line: &str) -> Result<Command, String> {
    let words = std::iter::once("pbrain-wuzi").chain(line.split_whitespace());
    parse_from(words)
        .map_err(|e| e.to_string())
        .and_then(|c| c.command.ok_or_else(|| "no subcommand".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn shared_values() {
        assert_eq!(rule("renju"), Ok(Rule::Renju));
        assert_eq!(rule("9"), Ok(Rule::CaroExact));
        assert!(rule("3").unwrap_err().contains("expected 0 (freestyle)"));
        assert_eq!(size("20x15"), Ok((20, 15)));
        assert_eq!(size("15"), Ok((15, 15)));
        for bad in ["4", "33", "20x", "x", "big"] {
            assert!(size(bad).is_err(), "{bad}");
        }
        assert_eq!(depth("6"), Ok(6));
        assert!(depth("0").is_err());
        assert_eq!(seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(seconds("0").is_err() && seconds("inf").is_err() && seconds("x").is_err());
    }

    #[test]
    fn help_and_version() {
        let help = parse_from(["pbrain-wuzi", "--help"])
            .unwrap_err()
            .to_string();
        for word in [
            "play",
            "review",
            "analyse",
            "online",
            "bench",
            "pbrain protocol",
        ] {
            assert!(help.contains(word), "{help}");
        }
        let v = parse_from(["pbrain-wuzi", "--version"])
            .unwrap_err()
            .to_string();
        assert!(v.contains(env!("CARGO_PKG_VERSION")), "{v}");
        // A negative number is a value refused with its reason, not an unknown option.
        let e = parse("play --time -1").unwrap_err();
        assert!(e.contains("invalid value '-1' for '--time"), "{e}");
        assert!(e.contains("expected a number of seconds above 0"), "{e}");
        let e = parse("play --size 40").unwrap_err();
        assert!(e.contains("expected N or WxH"), "{e}");
        assert!(parse("dance")
            .unwrap_err()
            .contains("unrecognized subcommand"));
        assert!(matches!(parse("bench"), Ok(Command::Bench { .. })));
    }
}
