//! `tune`: tune the evaluation's weights by games. Each iteration, two players with the
//! weights nudged opposite ways (`spsa`) play game pairs against each other (each opening
//! once with each colour), and the weights move towards the winner. The tuned weights are
//! written after every iteration, so a run that is stopped keeps what it learnt; under
//! the default node limit a run is repeatable, however many games run at once.

mod spsa;

use crate::board::Board;
use crate::pattern::weights::{self, Weights};
use crate::pattern::RuleTables;
use crate::search::{Limits, Searcher, Silent};
use crate::selfplay::data::Outcome;
use crate::selfplay::openings::{Openings, SplitMix};
use crate::selfplay::{play_move, Setup};
use crate::types::{Color, Pos};
use spsa::Params;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Hash table of each player of a game.
const PLAYER_TT_BYTES: usize = 16 << 20;

/// The `tune` command line.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Iterations of the run.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Game pairs (each opening with both colours) of every iteration.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub pairs: u64,
    /// Nodes per move.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// The tuned weights file, written after every iteration. It must not exist yet,
    /// unless --force is given.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Start from this weights file instead of the compiled-in weights.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Go on with a stopped run from this iteration (with --from its last weights and
    /// the same --iterations).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub first: u64,
    #[command(flatten)]
    pub setup: Setup,
    /// Games played at once (default: one a core).
    #[arg(long, default_value_t = crate::search::cores(), value_parser = crate::cli::threads)]
    pub jobs: usize,
    /// Each value's perturbation at the last iteration, as a share of its size (at
    /// least 2).
    #[arg(long, default_value_t = 0.1, value_parser = crate::cli::probability)]
    pub c_end: f64,
    /// The learning rate at the last iteration, a / c² there.
    #[arg(long, default_value_t = 0.002, value_parser = crate::cli::probability)]
    pub r_end: f64,
    /// Seed of the perturbations and of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Tune as `args` says; one line per iteration goes to `progress`. Returns the last
/// weights written.
pub fn run(args: &Args, progress: &mut dyn Write) -> anyhow::Result<Weights> {
    let (rule, (width, height)) = (args.setup.rule, args.setup.size);
    anyhow::ensure!(
        args.force || args.first > 1 || !args.out.exists(),
        "{} exists: give --force to replace it",
        args.out.display()
    );
    anyhow::ensure!(
        args.first <= args.iterations,
        "--first {} is past the run's {} iterations",
        args.first,
        args.iterations
    );
    Board::new(width, height, rule)?;
    let start = match &args.from {
        Some(path) => weights::read(path, rule)?,
        None => weights::builtin(rule),
    };
    let openings = Openings::new(&args.setup, args.seed)?;
    let mut params = Params::new(&start, args.c_end);
    let names = params.names();
    let started = Instant::now();
    let n = args.iterations;
    for k in args.first..=n {
        let mut rng = SplitMix(args.seed ^ k.wrapping_mul(0xA076_1D64_78BD_642F));
        let flip: Vec<f64> = (0..params.count())
            .map(|_| if rng.below(2) == 0 { 1.0 } else { -1.0 })
            .collect();
        let players = params
            .perturbed(k, n, &flip)
            .map(|v| Arc::new(RuleTables::with_weights(rule, &params.weights(&v))));
        let first_game = (k - 1) * args.pairs * 2;
        // Both games of a pair start from the same opening.
        let opening = |g: u64| openings.get(g / 2);
        let games = (0..args.pairs * 2)
            .map(|i| first_game + i)
            .collect::<Vec<_>>();
        let results = play_all(args, &games, &opening, &players)?;
        // θ+ wins minus θ− wins.
        let score: i64 = results.iter().sum();
        let (wins, losses) = (
            results.iter().filter(|&&r| r > 0).count(),
            results.iter().filter(|&&r| r < 0).count(),
        );
        params.update(k, n, args.r_end, &flip, score as f64);
        let w = params.weights(&params.theta);
        let header = format!(
            "Wuzi's evaluation weights for {}, tuned by `pbrain-wuzi tune`: iteration {k} of \
             {n}, {} game pairs an iteration at {} nodes a move, seed {}.",
            rule.name(),
            args.pairs,
            args.nodes,
            args.seed
        );
        write_weights(&args.out, &w.to_text(&header))?;
        writeln!(
            progress,
            "iteration {k}/{n}: plus {wins} minus {losses} draws {} ({:.0} s); {}",
            results.len() - wins - losses,
            started.elapsed().as_secs_f64(),
            summary(&names, &params.theta)
        )?;
    }
    Ok(params.weights(&params.theta))
}

/// The values as `name value` pairs, rounded.
fn summary(names: &[String], theta: &[f64]) -> String {
    names
        .iter()
        .zip(theta)
        .map(|(n, v)| format!("{n} {v:.1}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Play `games` on `args.jobs` threads. Game `g` starts from `opening(g)`, `players[0]`
/// (θ+) black when `g` is even; its result is +1 when θ+ won, -1 when θ− won, 0 for a
/// draw, in the order of `games`.
fn play_all(
    args: &Args,
    games: &[u64],
    opening: &(dyn Fn(u64) -> Vec<Pos> + Sync),
    players: &[Arc<RuleTables>; 2],
) -> anyhow::Result<Vec<i64>> {
    let next = AtomicUsize::new(0);
    let results = std::sync::Mutex::new(
        (0..games.len())
            .map(|_| Ok(0))
            .collect::<Vec<anyhow::Result<i64>>>(),
    );
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for j in 0..args.jobs.min(games.len()) {
            let (next, results) = (&next, &results);
            std::thread::Builder::new()
                .name(format!("tune {j}"))
                .stack_size(crate::search::STACK_BYTES)
                .spawn_scoped(scope, move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&g) = games.get(i) else { break };
                    let plus_black = g % 2 == 0;
                    let [black, white] = if plus_black {
                        [&players[0], &players[1]]
                    } else {
                        [&players[1], &players[0]]
                    };
                    let r = game(args, &opening(g), black, white).map(|o| {
                        let black_score = match o {
                            Outcome::BlackWon => 1,
                            Outcome::WhiteWon => -1,
                            Outcome::Draw => 0,
                        };
                        if plus_black {
                            black_score
                        } else {
                            -black_score
                        }
                    });
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = r;
                })?;
        }
        Ok(())
    })?;
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.into_iter().collect()
}

/// One game from `opening`: black evaluates with `black`'s tables, white with `white`'s,
/// each with its own board and search, every move under the node limit.
fn game(
    args: &Args,
    opening: &[Pos],
    black: &Arc<RuleTables>,
    white: &Arc<RuleTables>,
) -> anyhow::Result<Outcome> {
    let ((width, height), rule) = (args.setup.size, args.setup.rule);
    let mut boards = [
        Board::with_tables(width, height, rule, black.clone())?,
        Board::with_tables(width, height, rule, white.clone())?,
    ];
    for &p in opening {
        boards.iter_mut().for_each(|b| b.make_move(p));
    }
    let mut searchers = [(); 2].map(|_| Searcher::new(PLAYER_TT_BYTES));
    let limits = Limits {
        max_nodes: Some(args.nodes),
        ..Limits::default()
    };
    loop {
        if boards[0].empty_count() == 0 {
            return Ok(Outcome::Draw);
        }
        let i = match boards[0].side_to_move() {
            Color::Black => 0,
            Color::White => 1,
        };
        let p = searchers[i]
            .search(&mut boards[i], limits.clone(), &mut Silent)
            .best;
        boards[1].make_move(p);
        if let Some(outcome) = play_move(&mut boards[0], p) {
            return Ok(outcome);
        }
    }
}

/// Write `text` to `path` whole: to a file beside it first, then renamed over it, so a
/// run stopped while writing leaves the previous iteration's file.
fn write_weights(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let fail = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Rule;

    fn args(line: &str) -> Args {
        match crate::cli::parse(&format!("tune {line}")).unwrap() {
            crate::cli::Command::Tune(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn temp(name: &str) -> PathBuf {
        crate::scratch_files::fresh("tune", name)
    }

    #[test]
    fn a_run_writes_its_weights_the_same_however_many_games_run_at_once() {
        let mut texts = Vec::new();
        for jobs in [1, 2] {
            let out = temp(&format!("jobs{jobs}.txt"));
            let a = args(&format!(
                "--iterations 2 --pairs 2 --nodes 300 --size 9 --jobs {jobs} --out {}",
                out.display()
            ));
            let mut progress = Vec::new();
            let w = run(&a, &mut progress).unwrap();
            let progress = String::from_utf8(progress).unwrap();
            assert_eq!(progress.lines().count(), 2, "{progress}");
            assert!(progress.starts_with("iteration 1/2: plus "), "{progress}");
            let text = std::fs::read_to_string(&out).unwrap();
            assert_eq!(Weights::parse(&text).unwrap(), w);
            assert!(
                text.starts_with("# Wuzi's evaluation weights for freestyle"),
                "{text}"
            );
            texts.push(text);
        }
        assert_eq!(texts[0], texts[1]);
    }

    #[test]
    fn each_player_evaluates_with_its_own_weights() {
        // Against weights turned upside down (classes, codes and threat term alike; the search still
        // sees wins and forced replies), the compiled-in ones win with either colour.
        let rule = Rule::Freestyle;
        let good = Arc::new(RuleTables::with_weights(rule, &weights::builtin(rule)));
        let mut upside_down = weights::builtin(rule);
        for side in upside_down.sides.iter_mut() {
            let codes = side.codes.values_mut();
            for v in side.class.iter_mut().chain(codes).flatten() {
                *v = -*v;
            }
            for v in side.threat.values_mut() {
                *v = -*v;
            }
        }
        // (And no network: the compiled-in one corrects the compiled-in values.)
        let upside_down = Arc::new(RuleTables::with_weights_and_net(rule, &upside_down, None));
        let a = args("--nodes 20000 --out unused");
        let opening = [Pos::new(7, 7), Pos::new(8, 8)];
        assert_eq!(
            game(&a, &opening, &good, &upside_down).unwrap(),
            Outcome::BlackWon
        );
        assert_eq!(
            game(&a, &opening, &upside_down, &good).unwrap(),
            Outcome::WhiteWon
        );
    }

    #[test]
    fn bad_arguments_and_files_are_refused_with_the_reason() {
        let out = temp("exists.txt");
        std::fs::write(&out, "tempo 1\n").unwrap();
        let renju = temp("renju.txt");
        std::fs::write(&renju, weights::builtin(Rule::Renju).to_text("renju")).unwrap();
        let broken = temp("broken.txt");
        std::fs::write(&broken, "tempo 1\nclass HFlex3 1\n").unwrap();
        let fresh = temp("fresh.txt");
        for (line, want) in [
            (format!("--out {}", out.display()), "--force"),
            (
                format!(
                    "--out {} --from {}",
                    fresh.display(),
                    temp("none").display()
                ),
                "cannot read",
            ),
            (
                format!("--out {} --from {}", fresh.display(), renju.display()),
                "2 colour",
            ),
            (
                format!("--out {} --from {}", fresh.display(), broken.display()),
                "line 2",
            ),
            (
                format!("--out {} --iterations 5 --first 6", fresh.display()),
                "past the run's 5",
            ),
            (
                format!(
                    "--out {} --openings {}",
                    fresh.display(),
                    temp("none").display()
                ),
                "cannot read openings",
            ),
        ] {
            let e = run(&args(&line), &mut Vec::new()).unwrap_err();
            assert!(format!("{e:#}").contains(want), "{line}: {e:#}");
        }
        assert!(!fresh.exists());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "tempo 1\n");
    }
}
