//! `selfplay`: Wuzi plays itself, several games at once, and writes every game with each
//! searched position's value and best move (`data` has the file layout). Games start
//! from an openings file, in turn, or from random openings near the centre that a short
//! search finds roughly even. Under a node or depth limit a run is repeatable: the same
//! arguments write the same bytes, however many games run at once.

pub mod data;
pub(crate) mod openings;
pub mod siblings;

use crate::board::Board;
use crate::pattern::{weights, RuleTables};
use crate::search::{Limits, Searcher, Silent};
use crate::types::{Color, Depth, Pos, Rule};
use crate::{movegen, rules};
use data::{Game, Label, Outcome};
use openings::Openings;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Nodes per move when no limit is given.
const DEFAULT_NODES: u64 = 20_000;
/// Hash table of each game.
const GAME_TT_BYTES: usize = 16 << 20;

/// The `selfplay` command line.
#[derive(clap::Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("limit").args(["nodes", "depth", "time"])))]
pub struct Args {
    /// Games to play.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub games: u64,
    /// The data file to write. It must not exist yet, unless --append is given.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Add the games to an existing data file.
    #[arg(long)]
    pub append: bool,
    #[command(flatten)]
    pub setup: Setup,
    /// Nodes per move (20000 unless --depth or --time is given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Depth per move instead.
    #[arg(long, value_parser = crate::cli::depth)]
    pub depth: Option<Depth>,
    /// Seconds per move instead (the games then depend on the machine's speed).
    #[arg(long, value_parser = crate::cli::seconds)]
    pub time: Option<Duration>,
    /// Games played at once (default: one a core).
    #[arg(long, default_value_t = crate::search::cores(), value_parser = crate::cli::threads)]
    pub jobs: usize,
    /// Search threads of each game (with more than one, runs are no longer repeatable).
    #[arg(long, default_value_t = 1, value_parser = crate::cli::threads)]
    pub threads: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The chance, in a position with no threat to answer, of playing a random one of
    /// the five best-ordered moves instead of the search's choice: positions off the
    /// best line, like those a search meets. The labels stay the search's.
    #[arg(long, default_value_t = 0.0, value_parser = crate::cli::probability)]
    pub explore: f64,
    /// Evaluate with this weights file (as `train` writes) instead of the compiled-in
    /// one. Random openings are still chosen with the compiled-in weights.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Evaluate with this codebook network (as `scripts/train-codebook.py` writes) in
    /// place of the compiled-in networks of the rule.
    #[arg(long, value_name = "FILE")]
    pub codebook: Option<PathBuf>,
}

/// Where the games of a run start, under which rule and on which board (`selfplay` and
/// `tune` share these options).
#[derive(clap::Args, Debug, Clone)]
pub struct Setup {
    /// Start from these openings, one pos string a line (`h8i9j10`), taken in turn;
    /// without it, from random openings near the centre that a short search finds even.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Rule: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 caro with exact five (or a name).
    #[arg(long, default_value = "0", value_parser = crate::cli::rule)]
    pub rule: Rule,
    /// Board size: N or WxH.
    #[arg(long, default_value = "15", value_parser = crate::cli::size)]
    pub size: (usize, usize),
}

/// How many of the best-ordered moves `--explore` picks from.
const EXPLORE_MOVES: usize = 5;

impl Args {
    fn limits(&self) -> Limits {
        let mut limits = Limits {
            max_depth: self.depth,
            max_nodes: self.nodes,
            ..Limits::default()
        };
        if let Some(t) = self.time {
            limits.soft = Some(t);
            limits.hard = Some(t);
        }
        if self.depth.is_none() && self.time.is_none() && self.nodes.is_none() {
            limits.max_nodes = Some(DEFAULT_NODES);
        }
        limits
    }
}

/// What a run wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    pub black: u64,
    pub white: u64,
    pub draws: u64,
}

/// Play the games and write them to `args.out` in order; one progress line a game and a
/// closing summary go to `progress`.
pub fn run(args: &Args, progress: &mut dyn Write) -> anyhow::Result<Summary> {
    let (rule, (width, height)) = (args.setup.rule, args.setup.size);
    let openings = Openings::new(&args.setup, args.seed)?;
    let tables = evaluation(args.weights.as_deref(), args.codebook.as_deref(), rule)?;
    let mut file = open(&args.out, args.append)?;
    let limits = args.limits();
    let next = AtomicU64::new(0);
    let started = Instant::now();
    let mut summary = Summary::default();
    let (tx, rx) = mpsc::channel::<(u64, anyhow::Result<Game>)>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for j in 0..args.jobs.min(args.games as usize) {
            let tx = tx.clone();
            let (next, limits, openings, tables) = (&next, &limits, &openings, &tables);
            std::thread::Builder::new()
                .name(format!("selfplay {j}"))
                .stack_size(crate::search::STACK_BYTES)
                .spawn_scoped(scope, move || loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= args.games {
                        break;
                    }
                    let opening = openings.get(g);
                    let explore = Explore::new(args.explore, args.seed, g);
                    let board = Board::with_tables(width, height, rule, tables.clone());
                    let game = board
                        .map_err(anyhow::Error::from)
                        .and_then(|b| play(b, &opening, limits, args.threads, explore));
                    if tx.send((g, game)).is_err() {
                        break;
                    }
                })?;
        }
        drop(tx);
        // Games finish in any order; they are written in order.
        let mut waiting = BTreeMap::new();
        for (g, game) in rx {
            waiting.insert(g, game);
            while let Some(game) = waiting.remove(&summary.games) {
                let game = game?;
                file.write_all(&game.encode())?;
                file.flush()?;
                summary.games += 1;
                summary.positions += game.labels.len() as u64;
                let result = match game.outcome {
                    Outcome::BlackWon => {
                        summary.black += 1;
                        "black won"
                    }
                    Outcome::WhiteWon => {
                        summary.white += 1;
                        "white won"
                    }
                    Outcome::Draw => {
                        summary.draws += 1;
                        "draw"
                    }
                };
                writeln!(
                    progress,
                    "game {}/{}: {result} after {} moves",
                    summary.games,
                    args.games,
                    game.moves.len()
                )?;
            }
        }
        Ok(())
    })?;
    writeln!(
        progress,
        "wrote {}, {} to {} in {:.1} s: black won {}, white won {}, draws {}",
        crate::value_text::plural(summary.games as usize, "game"),
        crate::value_text::plural(summary.positions as usize, "position"),
        args.out.display(),
        started.elapsed().as_secs_f64(),
        summary.black,
        summary.white,
        summary.draws
    )?;
    Ok(summary)
}

/// The output file, ready for the first game: new with its header, or (with `append`) an
/// existing data file (checked) to append to.
fn open(path: &Path, append: bool) -> anyhow::Result<std::fs::File> {
    let fail = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
    if append && path.exists() {
        let contents = data::read(path)?;
        anyhow::ensure!(
            contents.cut_off == 0,
            "{} ends in a cut-off game ({} bytes): copy its whole games elsewhere first",
            path.display(),
            contents.cut_off
        );
        return std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(fail);
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => anyhow::anyhow!(
                "{} exists: give another --out, or --append to add to it",
                path.display()
            ),
            _ => fail(e),
        })?;
    data::write_header(&mut file).map_err(fail)?;
    Ok(file)
}

/// When a game leaves the search's move for another (see `Args::explore`).
struct Explore {
    chance: f64,
    rng: openings::SplitMix,
}

impl Explore {
    /// Game `game` of a run with `seed`: its own generator, apart from the openings'.
    fn new(chance: f64, seed: u64, game: u64) -> Explore {
        Explore {
            chance,
            rng: openings::SplitMix(!seed ^ game.wrapping_mul(0xD1B5_4A32_D192_ED03)),
        }
    }

    /// The move to play: usually `best`; with the chance, in a position with no threat
    /// to answer and no proven value, one of the best-ordered moves at random.
    fn choose(&mut self, board: &mut Board, best: Pos, value: crate::types::Value) -> Pos {
        if self.chance <= 0.0 {
            return best;
        }
        if self.rng.fraction() >= self.chance
            || value.abs() >= crate::types::VALUE_MATE_BOUND
            || movegen::threat(board) != movegen::Threat::None
        {
            return best;
        }
        let mut moves = movegen::generate(board);
        movegen::sort(board, &mut moves);
        let n = moves.len().min(EXPLORE_MOVES);
        if n == 0 {
            return best;
        }
        moves[self.rng.below(n as u64) as usize].pos
    }
}

/// Play the search's move `p`: the game's outcome if it ends the game. A draw (a full
/// board) is for the caller to see before the search.
pub(crate) fn play_move(board: &mut Board, p: Pos) -> Option<Outcome> {
    let mover = board.side_to_move();
    // Black plays a foul only when nothing else is left: it loses.
    let foul = mover == Color::Black && rules::foul(board, p).is_some();
    board.make_move(p);
    if foul {
        return Some(Outcome::WhiteWon);
    }
    rules::last_move_won(board).then_some(match mover {
        Color::Black => Outcome::BlackWon,
        Color::White => Outcome::WhiteWon,
    })
}

/// The evaluation tables of `rule`: from the weights file `path` (`--weights`), or the
/// compiled-in ones, with the codebook network of the file `codebook` (`--codebook`) in
/// place of the rule's networks if one is given.
pub(crate) fn evaluation(
    path: Option<&Path>,
    codebook: Option<&Path>,
    rule: Rule,
) -> anyhow::Result<Arc<RuleTables>> {
    if let Some(file) = codebook {
        let w = match path {
            Some(path) => weights::read(path, rule)?,
            None => weights::builtin(rule),
        };
        let cb = crate::pattern::codebook::read(file)?;
        return Ok(Arc::new(
            RuleTables::with_weights(rule, &w).with_codebook(Some(&cb)),
        ));
    }
    Ok(match path {
        Some(path) => Arc::new(RuleTables::with_weights(rule, &weights::read(path, rule)?)),
        None => crate::pattern::tables(rule).clone(),
    })
}

/// One game on `board` (empty) from `opening` to its end, every move searched under
/// `limits` by one searcher on `threads` threads (on one, a node or depth limit makes it
/// repeatable).
fn play(
    mut board: Board,
    opening: &[Pos],
    limits: &Limits,
    threads: usize,
    mut explore: Explore,
) -> anyhow::Result<Game> {
    let (rule, width, height) = (board.rule(), board.width(), board.height());
    for &p in opening {
        board.make_move(p);
    }
    let mut searcher = Searcher::new(GAME_TT_BYTES);
    searcher.set_threads(threads);
    let mut labels = Vec::new();
    let outcome = loop {
        if board.empty_count() == 0 {
            break Outcome::Draw;
        }
        let r = searcher.search(&mut board, limits.clone(), &mut Silent);
        labels.push(Label {
            value: r.value,
            best: r.best,
        });
        let p = explore.choose(&mut board, r.best, r.value);
        if let Some(outcome) = play_move(&mut board, p) {
            break outcome;
        }
    };
    Ok(Game {
        rule,
        width,
        height,
        outcome,
        moves: board.history().iter().map(|&(p, _)| p).collect(),
        opening: opening.len(),
        labels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str, out: &std::path::Path) -> Args {
        let line = format!("selfplay --out {} {line}", out.display());
        match crate::cli::parse(&line).unwrap() {
            crate::cli::Command::Selfplay(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn temp(name: &str) -> PathBuf {
        crate::scratch_files::fresh("selfplay", name)
    }

    /// Replays a game and checks it: legal moves, labels, and the result on the board.
    fn check(game: &Game) {
        assert_eq!(explored(game), 0, "self-play plays the best move");
        check_explored(game);
    }

    /// How many moves of a game are not its labels' best.
    fn explored(game: &Game) -> usize {
        let played = &game.moves[game.opening..];
        played
            .iter()
            .zip(&game.labels)
            .filter(|(&p, l)| p != l.best)
            .count()
    }

    /// `check`, for a game that may have left the best moves.
    fn check_explored(game: &Game) {
        let mut b = Board::new(game.width, game.height, game.rule).unwrap();
        for (i, &p) in game.moves.iter().enumerate() {
            assert!(b.is_empty(p));
            b.make_move(p);
            let won = rules::last_move_won(&mut b);
            assert_eq!(
                won,
                i + 1 == game.moves.len() && game.outcome != Outcome::Draw
            );
        }
        assert_eq!(game.labels.len(), game.moves.len() - game.opening);
    }

    #[test]
    fn games_are_written_whole_repeatably_and_in_order() {
        let one = temp("one.wsp");
        let two = temp("two.wsp");
        let a = run(
            &args("--games 3 --nodes 1500 --jobs 1 --seed 5", &one),
            &mut Vec::new(),
        )
        .unwrap();
        let mut log = Vec::new();
        let b = run(
            &args("--games 3 --nodes 1500 --jobs 3 --seed 5", &two),
            &mut log,
        )
        .unwrap();
        // On two threads a game is not repeatable, but it is still whole.
        let threaded = temp("threaded.wsp");
        let two_threads = args("--games 2 --nodes 1500 --threads 2", &threaded);
        run(&two_threads, &mut Vec::new()).unwrap();
        data::read(&threaded).unwrap().games.iter().for_each(check);
        assert_eq!(a, b);
        assert_eq!(a.games, 3);
        assert_eq!(a.black + a.white + a.draws, 3);
        let bytes = std::fs::read(&one).unwrap();
        assert_eq!(
            bytes,
            std::fs::read(&two).unwrap(),
            "the same bytes at any --jobs"
        );
        let contents = data::parse(&bytes).unwrap();
        assert_eq!(contents.games.len(), 3);
        assert_eq!(
            contents
                .games
                .iter()
                .map(|g| g.labels.len() as u64)
                .sum::<u64>(),
            a.positions
        );
        contents.games.iter().for_each(check);
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("game 3/3: "), "{log}");
        assert!(log.contains("wrote 3 games"), "{log}");
        // Another seed, other openings.
        let three = temp("three.wsp");
        run(
            &args("--games 3 --nodes 1500 --seed 6", &three),
            &mut Vec::new(),
        )
        .unwrap();
        assert_ne!(std::fs::read(&three).unwrap(), bytes);
    }

    #[test]
    fn exploring_games_leave_the_best_move_sometimes_and_repeatably() {
        let one = temp("explore-one.wsp");
        let two = temp("explore-two.wsp");
        let line = "--games 4 --nodes 800 --seed 3 --explore 0.5";
        run(&args(&format!("{line} --jobs 1"), &one), &mut Vec::new()).unwrap();
        run(&args(&format!("{line} --jobs 2"), &two), &mut Vec::new()).unwrap();
        let bytes = std::fs::read(&one).unwrap();
        assert_eq!(bytes, std::fs::read(&two).unwrap());
        let games = data::parse(&bytes).unwrap().games;
        games.iter().for_each(check_explored);
        let left: usize = games.iter().map(explored).sum();
        let searched: usize = games.iter().map(|g| g.labels.len()).sum();
        assert!(
            left > 0 && left < searched,
            "{left} of {searched} moves explored"
        );
        let plain = temp("explore-none.wsp");
        run(
            &args("--games 4 --nodes 800 --seed 3", &plain),
            &mut Vec::new(),
        )
        .unwrap();
        assert_ne!(std::fs::read(&plain).unwrap(), bytes);
    }

    #[test]
    fn games_play_with_the_weights_file_given() {
        let (builtin, same, other) = (temp("builtin.wsp"), temp("same.wsp"), temp("other.wsp"));
        let rule = Rule::Freestyle;
        // The compiled-in weights written to a file, and the same turned upside down.
        let w = weights::builtin(rule);
        let same_file = temp("same.txt");
        std::fs::write(&same_file, w.to_text("")).unwrap();
        let mut upside_down = w.clone();
        for side in upside_down.sides.iter_mut() {
            for v in side
                .class
                .iter_mut()
                .chain(side.codes.values_mut())
                .flatten()
            {
                *v = -*v;
            }
            side.threat.values_mut().for_each(|v| *v = -*v);
        }
        let other_file = temp("upside-down.txt");
        std::fs::write(&other_file, upside_down.to_text("")).unwrap();
        let line = "--games 2 --nodes 1500 --seed 3";
        run(&args(line, &builtin), &mut Vec::new()).unwrap();
        let with = |file: &PathBuf| format!("{line} --weights {}", file.display());
        run(&args(&with(&same_file), &same), &mut Vec::new()).unwrap();
        run(&args(&with(&other_file), &other), &mut Vec::new()).unwrap();
        let bytes = |f: &PathBuf| std::fs::read(f).unwrap();
        assert_eq!(bytes(&builtin), bytes(&same));
        assert_ne!(bytes(&builtin), bytes(&other));
        data::read(&other).unwrap().games.iter().for_each(check);
        // A missing file, or one that does not fit the rule, is a clear error.
        let missing = temp("missing.txt");
        let (x, y) = (temp("x.wsp"), temp("y.wsp"));
        let err = run(&args(&with(&missing), &x), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("cannot read"), "{err}");
        let renju = format!("{} --rule renju", with(&same_file));
        let err = run(&args(&renju, &y), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("renju takes 2"), "{err}");
        assert!(!x.exists() && !y.exists());
    }

    #[test]
    fn an_existing_file_is_kept_unless_appended_to() {
        let path = temp("kept.wsp");
        let a = args("--games 1 --depth 2 --rule renju --size 9", &path);
        run(&a, &mut Vec::new()).unwrap();
        let err = run(&a, &mut Vec::new()).unwrap_err().to_string();
        assert!(
            err.contains("exists: give another --out, or --append"),
            "{err}"
        );
        let mut appended = a.clone();
        appended.append = true;
        run(&appended, &mut Vec::new()).unwrap();
        let games = data::read(&path).unwrap().games;
        assert_eq!(games.len(), 2);
        games.iter().for_each(check);
        assert!(games.iter().all(|g| g.rule == Rule::Renju && g.width == 9));
        // Appending to a file that is not self-play data is refused.
        let other = temp("other.wsp");
        std::fs::write(&other, "h8i9\n").unwrap();
        let mut wrong = args("--games 1 --depth 2 --append", &other);
        wrong.append = true;
        let err = run(&wrong, &mut Vec::new()).unwrap_err().to_string();
        assert!(err.contains("not a Wuzi self-play file"), "{err}");
    }

    #[test]
    fn openings_come_from_the_file_in_turn() {
        let openings = temp("openings.txt");
        std::fs::write(&openings, "h8i9\nh8g7i9\n").unwrap();
        let path = temp("from-file.wsp");
        let line = format!("--games 3 --depth 2 --openings {}", openings.display());
        run(&args(&line, &path), &mut Vec::new()).unwrap();
        let games = data::read(&path).unwrap().games;
        let starts: Vec<&[Pos]> = games.iter().map(|g| &g.moves[..g.opening]).collect();
        let (h8, i9, g7) = (Pos::new(7, 7), Pos::new(8, 8), Pos::new(6, 6));
        assert_eq!(starts, [&[h8, i9][..], &[h8, g7, i9][..], &[h8, i9][..]]);
        let missing = temp("missing.txt");
        let never = temp("never.wsp");
        let line = format!("--games 1 --openings {}", missing.display());
        let err = run(&args(&line, &never), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("cannot read openings"), "{err}");
        assert!(
            !never.exists(),
            "no output file for a run that cannot start"
        );
    }
}
