//! `pbrain-wuzi siblings`: positions one move off the games of a self-play file, each
//! searched, as training data for the evaluation.
//!
//! A game's positions teach an evaluation what a position on the engine's own line is
//! worth, but the search uses the evaluation to choose between a node's moves, and most of
//! those lead off that line. So for each quiet position of a game (no five to make or to
//! stop, no open four to play, no threat to answer, no proven value), this takes its
//! twelve best-ordered moves, plays the one the game's search chose (when it is among
//! them) and others drawn at random, searches each position that follows, and writes it
//! with that search's value and best move. `train --lambda 0` then fits the evaluation to
//! those values: to rank a node's moves as a search does.
//!
//! Each position is written as a record of its own in the self-play format: the game's
//! moves up to it as the opening, one searched position, then its best move. Its result is
//! the result of the game it branches from, which says little about a move the game did
//! not play: train on these files with `--lambda 0`, which reads the values alone.

use super::data::{self, Game, Label};
use super::openings::SplitMix;
use crate::board::Board;
use crate::movegen;
use crate::pattern::RuleTables;
use crate::rules;
use crate::search::{Limits, Searcher, Silent};
use crate::types::{Pos, Rule, VALUE_MATE_BOUND};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// The `siblings` command line.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The self-play data file whose games to branch from.
    #[arg(value_name = "DATA")]
    pub input: PathBuf,
    /// The data file to write. It must not exist yet, unless --append is given.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Add to an existing data file.
    #[arg(long)]
    pub append: bool,
    /// Moves tried from each position, from its twelve best-ordered moves: the game's
    /// searched move (when it is one of them) and others drawn at random.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=12))]
    pub moves: u64,
    /// Nodes searched after each move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// Branch from every Nth searched position of a game (the first, then every Nth).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: u64,
    /// Games worked on at once (default: one a core).
    #[arg(long, default_value_t = crate::search::cores(), value_parser = crate::cli::threads)]
    pub jobs: usize,
    /// Seed of the moves drawn.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Evaluate with this weights file (as `train` writes) instead of the compiled-in
    /// one; every game in DATA must then be of a rule it fits.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Evaluate with this codebook network (as `scripts/train-codebook.py` writes) in
    /// place of the compiled-in networks of the rule.
    #[arg(long, value_name = "FILE")]
    pub codebook: Option<PathBuf>,
}

/// How many of the best-ordered moves the other moves are drawn from.
const DRAW_FROM: usize = 12;
/// Hash table of each game's searches.
const TT_BYTES: usize = 16 << 20;

/// What a run wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: usize,
    pub positions: u64,
}

/// Branch from every game of `args.input` and write the positions to `args.out`, game by
/// game in the input's order (the same bytes at any `--jobs`); one progress line a hundred
/// games and a closing summary go to `progress`.
pub fn run(args: &Args, progress: &mut dyn Write) -> anyhow::Result<Summary> {
    let contents = data::read(&args.input)?;
    if contents.cut_off > 0 {
        writeln!(
            progress,
            "{}: the last {} bytes are a cut-off game, left out",
            args.input.display(),
            contents.cut_off
        )?;
    }
    let games = contents.games;
    // The evaluation of each rule the games are played under.
    let mut tables: Vec<(Rule, Arc<RuleTables>)> = Vec::new();
    for g in &games {
        if tables.iter().all(|&(r, _)| r != g.rule) {
            tables.push((
                g.rule,
                super::evaluation(args.weights.as_deref(), args.codebook.as_deref(), g.rule)?,
            ));
        }
    }
    let mut file = super::open(&args.out, args.append)?;
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let mut summary = Summary::default();
    let (tx, rx) = mpsc::channel::<(usize, Vec<Game>)>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for j in 0..args.jobs.min(games.len()) {
            let tx = tx.clone();
            let (next, games, tables) = (&next, &games, &tables);
            std::thread::Builder::new()
                .name(format!("siblings {j}"))
                .stack_size(crate::search::STACK_BYTES)
                .spawn_scoped(scope, move || loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games.len() {
                        break;
                    }
                    let game = &games[g];
                    let found = tables.iter().find(|&&(r, _)| r == game.rule);
                    let tables = found.map(|(_, t)| t.clone()).expect("every rule's tables");
                    if tx.send((g, branch(game, g as u64, tables, args))).is_err() {
                        break;
                    }
                })?;
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        for (g, records) in rx {
            waiting.insert(g, records);
            while let Some(records) = waiting.remove(&summary.games) {
                for r in &records {
                    file.write_all(&r.encode())?;
                }
                file.flush()?;
                summary.games += 1;
                summary.positions += records.len() as u64;
                if summary.games % 100 == 0 || summary.games == games.len() {
                    writeln!(
                        progress,
                        "game {}/{}: {} positions so far",
                        summary.games,
                        games.len(),
                        summary.positions
                    )?;
                }
            }
        }
        Ok(())
    })?;
    writeln!(
        progress,
        "wrote {} positions from {} games to {} in {:.1} s",
        summary.positions,
        summary.games,
        args.out.display(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(summary)
}

/// The searched positions one move off game number `g`'s quiet positions, evaluated with
/// `tables`.
fn branch(game: &Game, g: u64, tables: Arc<RuleTables>, args: &Args) -> Vec<Game> {
    let mut out = Vec::new();
    // A game that cannot be replayed (not possible in a file `selfplay` wrote) gives none.
    let Ok(mut board) = Board::with_tables(game.width, game.height, game.rule, tables) else {
        return out;
    };
    let mut rng = SplitMix(args.seed ^ g.wrapping_mul(0xA24B_AED4_963E_E407));
    let mut searcher = Searcher::new(TT_BYTES);
    let limits = Limits {
        max_nodes: Some(args.nodes),
        ..Limits::default()
    };
    for (i, &played) in game.moves.iter().enumerate() {
        let label = i
            .checked_sub(game.opening)
            .filter(|&k| (k as u64).is_multiple_of(args.every))
            .and_then(|k| game.labels.get(k));
        if let Some(label) = label.filter(|l| calm(&mut board, l)) {
            for p in tried(&mut board, label.best, args.moves as usize, &mut rng) {
                board.make_move(p);
                if !rules::last_move_won(&mut board) && board.empty_count() > 0 {
                    let r = searcher.search(&mut board, limits.clone(), &mut Silent);
                    let mut moves: Vec<Pos> = board.history().iter().map(|&(p, _)| p).collect();
                    let opening = moves.len();
                    moves.push(r.best);
                    out.push(Game {
                        moves,
                        opening,
                        labels: vec![Label {
                            value: r.value,
                            best: r.best,
                        }],
                        ..game.clone()
                    });
                }
                board.undo();
            }
        }
        if !board.on_board(played) || !board.is_empty(played) {
            break;
        }
        board.make_move(played);
    }
    out
}

/// A position worth branching from: no five to make or to stop, no open four to play,
/// no threat to answer, and a value the search did not prove.
fn calm(board: &mut Board, label: &Label) -> bool {
    label.value.abs() < VALUE_MATE_BOUND
        && crate::train::samples::quiet(board)
        && movegen::threat(board) == movegen::Threat::None
}

/// The moves to try, `n` at most, all among the `DRAW_FROM` best-ordered: `best` when it
/// is one of them, then others drawn at random.
fn tried(board: &mut Board, best: Pos, n: usize, rng: &mut SplitMix) -> Vec<Pos> {
    let mut moves = movegen::generate(board);
    movegen::sort(board, &mut moves);
    let pool: Vec<Pos> = moves.iter().take(DRAW_FROM).map(|m| m.pos).collect();
    let mut picks: Vec<Pos> = pool.iter().copied().filter(|&p| p == best).collect();
    let mut rest: Vec<Pos> = pool.into_iter().filter(|&p| p != best).collect();
    while picks.len() < n && !rest.is_empty() {
        picks.push(rest.swap_remove(rng.below(rest.len() as u64) as usize));
    }
    picks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Args {
        match crate::cli::parse(&format!("siblings {line}")).unwrap() {
            crate::cli::Command::Siblings(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn temp(name: &str) -> PathBuf {
        crate::scratch_files::fresh("siblings", name)
    }

    /// Two short self-play games to branch from, in a file named `name` (one per test:
    /// the tests run at once).
    fn games(name: &str) -> PathBuf {
        let path = temp(name);
        let line = format!(
            "selfplay --games 2 --nodes 600 --seed 4 --out {}",
            path.display()
        );
        match crate::cli::parse(&line).unwrap() {
            crate::cli::Command::Selfplay(a) => super::super::run(&a, &mut Vec::new()).unwrap(),
            other => panic!("{other:?}"),
        };
        path
    }

    #[test]
    fn each_record_is_one_searched_move_off_a_calm_position_of_its_game() {
        let input = games("games.wsp");
        let source = data::read(&input).unwrap().games;
        let (one, two) = (temp("one.wsp"), temp("two.wsp"));
        let line = |out: &PathBuf, jobs: u32| {
            format!(
                "{} --out {} --nodes 500 --jobs {jobs}",
                input.display(),
                out.display()
            )
        };
        let mut log = Vec::new();
        let a = run(&args(&line(&one, 1)), &mut log).unwrap();
        let b = run(&args(&line(&two, 2)), &mut Vec::new()).unwrap();
        assert_eq!(a, b);
        let bytes = std::fs::read(&one).unwrap();
        assert_eq!(
            bytes,
            std::fs::read(&two).unwrap(),
            "the same bytes at any --jobs"
        );
        let records = data::parse(&bytes).unwrap().games;
        assert_eq!(records.len() as u64, a.positions);
        assert!(a.positions > 10, "{a:?}");
        let log = String::from_utf8(log).unwrap();
        assert!(
            log.contains(&format!("wrote {} positions from 2 games", a.positions)),
            "{log}"
        );
        let mut off_the_game = 0;
        for r in &records {
            assert_eq!(r.labels.len(), 1);
            assert_eq!(r.opening, r.moves.len() - 1);
            assert_eq!(r.labels[0].best, r.moves[r.opening]);
            // Its branch point is a calm position of one of the games, the move tried
            // one of the position's legal candidates.
            let (start, tried) = r.moves[..r.opening].split_at(r.opening - 1);
            let game = source
                .iter()
                .find(|g| g.moves.len() > start.len() && g.moves[..start.len()] == *start)
                .expect("a record branches from a game");
            assert_eq!(r.outcome, game.outcome);
            let label = game.labels[start.len() - game.opening];
            let mut board = Board::new(game.width, game.height, game.rule).unwrap();
            start.iter().for_each(|&p| board.make_move(p));
            assert!(calm(&mut board, &label));
            let legal = movegen::generate(&mut board);
            assert!(legal.iter().any(|m| m.pos == tried[0]));
            if tried[0] != game.moves[start.len()] {
                off_the_game += 1;
            }
        }
        assert!(
            off_the_game > 0 && off_the_game < records.len(),
            "{off_the_game}"
        );
        // A position's moves are distinct, at most --moves of them.
        let mut seen = std::collections::HashMap::new();
        for r in &records {
            let e: &mut Vec<Pos> = seen.entry(r.moves[..r.opening - 1].to_vec()).or_default();
            assert!(!e.contains(&r.moves[r.opening - 1]));
            e.push(r.moves[r.opening - 1]);
        }
        assert!(seen.values().all(|v| v.len() <= 4));
        assert!(seen.values().any(|v| v.len() == 4));
        // Every other position: fewer branch points.
        let half = temp("half.wsp");
        let c = run(
            &args(&format!(
                "{} --out {} --nodes 500 --every 2",
                input.display(),
                half.display()
            )),
            &mut Vec::new(),
        )
        .unwrap();
        assert!(c.positions > 0 && c.positions < a.positions, "{c:?}");
    }

    /// The error of a run from `input` to `out`.
    fn error(input: &std::path::Path, out: &std::path::Path) -> String {
        let line = format!("{} --out {}", input.display(), out.display());
        run(&args(&line), &mut Vec::new()).unwrap_err().to_string()
    }

    #[test]
    fn a_missing_or_broken_input_is_a_clear_error_and_an_output_is_kept() {
        let out = temp("never.wsp");
        let err = error(&temp("missing.wsp"), &out);
        assert!(err.contains("cannot read"), "{err}");
        let broken = temp("broken.wsp");
        std::fs::write(&broken, "h8i9\n").unwrap();
        let err = error(&broken, &out);
        assert!(err.contains("not a Wuzi self-play file"), "{err}");
        assert!(!out.exists());
        let input = games("kept.wsp");
        let err = error(&input, &input);
        assert!(err.contains("exists: give another --out"), "{err}");
        assert!(data::read(&input).is_ok(), "the input is untouched");
    }

    #[test]
    fn the_searches_evaluate_with_the_weights_file_given() {
        let input = games("w-games.wsp");
        let rule = crate::types::Rule::Freestyle;
        let w = crate::pattern::weights::builtin(rule);
        let mut flat = w.clone();
        for side in flat.sides.iter_mut() {
            side.codes.clear();
        }
        let (same_file, flat_file) = (temp("w-same.txt"), temp("w-flat.txt"));
        std::fs::write(&same_file, w.to_text("")).unwrap();
        std::fs::write(&flat_file, flat.to_text("")).unwrap();
        let written = |name: &str, weights: Option<&PathBuf>| {
            let out = temp(name);
            let mut line = format!("{} --out {} --nodes 500", input.display(), out.display());
            if let Some(f) = weights {
                line += &format!(" --weights {}", f.display());
            }
            run(&args(&line), &mut Vec::new()).unwrap();
            std::fs::read(&out).unwrap()
        };
        let builtin = written("w-builtin.wsp", None);
        assert_eq!(builtin, written("w-same.wsp", Some(&same_file)));
        assert_ne!(builtin, written("w-flat.wsp", Some(&flat_file)));
        let never = temp("w-never.wsp");
        let line = format!(
            "{} --out {} --weights {}",
            input.display(),
            never.display(),
            temp("w-missing.txt").display()
        );
        let err = run(&args(&line), &mut Vec::new()).unwrap_err().to_string();
        assert!(err.contains("cannot read"), "{err}");
        assert!(!never.exists());
    }
}
