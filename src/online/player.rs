//! The engine behind the online client: Wuzi's own search on a worker thread, or any
//! external pbrain engine, started once and given the whole position with `BOARD` at
//! every move.

use super::coords::SIZE;
use super::server::quote;
use crate::board::Board;
use crate::engine::Engine;
use crate::rules;
use crate::search::time::TimeControl;
use crate::search::{SearchResult, Searcher, Silent};
use crate::types::{Color, Depth, Pos, Rule};
use crate::value_text::{plural, verdict, Side};
use anyhow::{anyhow, bail, Context};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long an external engine may take to answer `START`.
const ENGINE_START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an external engine may take to exit after `END` before it is killed.
const ENGINE_EXIT_WAIT: Duration = Duration::from_secs(1);

/// The position to think about: every move so far, black first, alternating, and our
/// colour (the side to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Every move so far, black first.
    pub moves: Vec<Pos>,
    /// Our colour, to move.
    pub me: Color,
}

/// A move and a few words on how it was found (value, depth, nodes) for the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The move.
    pub pos: Pos,
    /// How it was found, for the log.
    pub detail: String,
    /// What the search made of the position, for people (Wuzi's own search only).
    pub verdict: Option<String>,
}

/// Depth, node and hash limits for the search (Wuzi's own, or sent to an external
/// engine as `INFO max_depth` / `INFO max_node`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Deepest iteration.
    pub depth: Option<Depth>,
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// Hash table size in MiB (Wuzi's own search; `None`: the engine's default).
    pub hash_mb: Option<u64>,
    /// Search threads of Wuzi's own search (0 counts as 1).
    pub threads: usize,
}

/// Something that finds moves: started with a position, then waited on in slices so the
/// client can watch the server meanwhile.
pub trait Player {
    /// What plays, for the log.
    fn describe(&self) -> String;
    /// Start thinking about `position`, answering within `budget`.
    fn start(&mut self, position: &Position, budget: Duration) -> anyhow::Result<()>;
    /// Wait up to `timeout` for the answer: `None` while still thinking.
    fn wait(&mut self, timeout: Duration) -> Option<anyhow::Result<Answer>>;
    /// Abandon the current thought (the game moved on without it).
    fn cancel(&mut self);
    /// The game is over: release what the player holds.
    fn end(&mut self);
}

/// The board of `moves` (black first, alternating) with `me` to move.
pub fn build_board(moves: &[Pos], me: Color) -> anyhow::Result<Board> {
    let mut b = Board::new(SIZE, SIZE, Rule::Freestyle)?;
    for (i, &p) in moves.iter().enumerate() {
        if !b.on_board(p) || !b.is_empty(p) {
            bail!("move {} ({p}) is off the board or on a stone", i + 1);
        }
        b.make(p, colour_of(i));
    }
    b.set_side_to_move(me);
    Ok(b)
}

/// The colour of the move with this index (from 0): black first.
pub fn colour_of(index: usize) -> Color {
    if index.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    }
}

/// Did the last of `moves` make five (freestyle)?
pub fn last_move_won(moves: &[Pos]) -> bool {
    let Some(last) = moves.len().checked_sub(1) else {
        return false;
    };
    build_board(moves, colour_of(last).opp()).is_ok_and(|mut b| rules::last_move_won(&mut b))
}

/// Wuzi's own search, through the `Engine` facade, on a worker thread.
pub struct Wuzi {
    engine: Engine,
    running: Option<Running>,
}

struct Running {
    stop: Arc<AtomicBool>,
    done: Receiver<(SearchResult, Searcher)>,
}

impl Wuzi {
    /// Wuzi under freestyle with these limits.
    pub fn new(limits: &SearchLimits) -> Wuzi {
        let mut engine = Engine::new();
        engine.set_rule(Rule::Freestyle);
        engine.options.max_depth = limits.depth;
        engine.options.max_nodes = limits.nodes;
        engine.options.hash_kb = limits.hash_mb.map(|mb| mb * 1024);
        engine.options.show_detail = false;
        engine.options.threads = limits.threads.max(1);
        Wuzi {
            engine,
            running: None,
        }
    }
}

impl Player for Wuzi {
    fn describe(&self) -> String {
        format!("Wuzi {}", env!("CARGO_PKG_VERSION"))
    }

    fn start(&mut self, position: &Position, budget: Duration) -> anyhow::Result<()> {
        self.cancel();
        let board = build_board(&position.moves, position.me)?;
        self.engine.options.time = TimeControl {
            turn_ms: Some(budget.as_millis().max(1) as u64),
            match_ms: 0,
            left_ms: None,
        };
        let job = self
            .engine
            .think_on(board, Instant::now())
            .map_err(|e| anyhow!("{e}"))?;
        let (tx, done) = mpsc::channel();
        let stop = job
            .start(Silent, move |r, searcher| {
                let _ = tx.send((r, searcher));
            })
            .context("cannot start the search thread")?;
        self.running = Some(Running { stop, done });
        Ok(())
    }

    fn wait(&mut self, timeout: Duration) -> Option<anyhow::Result<Answer>> {
        let Some(run) = &self.running else {
            return Some(Err(anyhow!("no search is running")));
        };
        match run.done.recv_timeout(timeout) {
            Ok((r, searcher)) => {
                self.running = None;
                self.engine.return_searcher(searcher);
                Some(Ok(Answer {
                    pos: r.best,
                    detail: format!("depth {}, {}", r.depth, plural(r.nodes as usize, "node")),
                    verdict: Some(verdict(r.value, Side::Wuzi, Side::Opponent)),
                }))
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                self.running = None;
                Some(Err(anyhow!("the search thread ended without an answer")))
            }
        }
    }

    fn cancel(&mut self) {
        if let Some(run) = self.running.take() {
            run.stop.store(true, Ordering::Relaxed);
            // The search polls the flag every few hundred nodes: this is quick.
            if let Ok((_, searcher)) = run.done.recv() {
                self.engine.return_searcher(searcher);
            }
        }
    }

    fn end(&mut self) {
        self.cancel();
    }
}

impl Drop for Wuzi {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// An external pbrain engine, run as `sh -c COMMAND` (`cmd /C` on Windows).
pub struct External {
    command: String,
    limits: SearchLimits,
    process: Option<Process>,
    thinking: bool,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    fn spawn(command: &str) -> anyhow::Result<Process> {
        let mut cmd = if cfg!(windows) {
            let mut c = Command::new("cmd");
            c.arg("/C").arg(command);
            c
        } else {
            let mut c = Command::new("sh");
            c.arg("-c").arg(command);
            c
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start the engine '{}'", quote(command)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("the engine's pipes could not be opened");
        };
        let (tx, lines) = mpsc::channel();
        thread::Builder::new()
            .name("engine-output".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim().to_string();
                            if tx.send(line).is_err() {
                                return;
                            }
                        }
                    }
                }
            })
            .context("cannot start the engine reader thread")?;
        Ok(Process {
            child,
            stdin,
            lines,
        })
    }

    fn send(&mut self, lines: &[String]) -> anyhow::Result<()> {
        let mut text = lines.join("\n");
        text.push('\n');
        self.stdin
            .write_all(text.as_bytes())
            .and_then(|()| self.stdin.flush())
            .context("cannot write to the engine (has it exited?)")
    }

    /// The next line that is not `MESSAGE`, `DEBUG` or blank, within `timeout`:
    /// `Ok(None)` on timeout.
    fn reply(&mut self, timeout: Duration) -> anyhow::Result<Option<String>> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let upper = line.to_ascii_uppercase();
                    if line.is_empty() || upper.starts_with("MESSAGE") || upper.starts_with("DEBUG")
                    {
                        continue;
                    }
                    return Ok(Some(line));
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => bail!("the engine exited"),
            }
        }
    }

    /// `END`, a moment to exit, then kill.
    fn close(mut self) {
        let _ = self.send(&["END".to_string()]);
        let deadline = Instant::now() + ENGINE_EXIT_WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl External {
    /// An engine to start at the first move with `command`.
    pub fn new(command: &str, limits: &SearchLimits) -> External {
        External {
            command: command.to_string(),
            limits: limits.clone(),
            process: None,
            thinking: false,
        }
    }

    /// The running engine, started (`START 15`, answered `OK`) if it is not.
    fn process(&mut self) -> anyhow::Result<&mut Process> {
        if self.process.is_none() {
            let mut p = Process::spawn(&self.command)?;
            p.send(&[format!("START {SIZE}")])?;
            match p.reply(ENGINE_START_TIMEOUT) {
                Ok(Some(line)) if line.eq_ignore_ascii_case("OK") => {}
                Ok(Some(line)) => {
                    p.close();
                    bail!("the engine answered '{}' to START {SIZE}", quote(&line));
                }
                Ok(None) => {
                    p.close();
                    bail!(
                        "the engine did not answer START {SIZE} within {} s",
                        ENGINE_START_TIMEOUT.as_secs()
                    );
                }
                Err(e) => {
                    p.close();
                    return Err(e.context(format!("START {SIZE}")));
                }
            }
            let mut info = vec![
                "INFO rule 0".to_string(),
                "INFO timeout_match 0".to_string(),
            ];
            if let Some(d) = self.limits.depth {
                info.push(format!("INFO max_depth {d}"));
            }
            if let Some(n) = self.limits.nodes {
                info.push(format!("INFO max_node {n}"));
            }
            p.send(&info)?;
            self.process = Some(p);
        }
        self.process
            .as_mut()
            .ok_or_else(|| anyhow!("the engine is not running"))
    }

    /// Stop the engine process (it is started again at the next move).
    fn kill(&mut self) {
        self.thinking = false;
        if let Some(p) = self.process.take() {
            p.close();
        }
    }
}

impl Player for External {
    fn describe(&self) -> String {
        format!("the engine '{}'", quote(&self.command))
    }

    fn start(&mut self, position: &Position, budget: Duration) -> anyhow::Result<()> {
        if self.thinking {
            // An answer is still owed for an abandoned position: start afresh.
            self.kill();
        }
        let mut lines = vec![
            format!("INFO timeout_turn {}", budget.as_millis().max(1)),
            "BOARD".to_string(),
        ];
        for (i, p) in position.moves.iter().enumerate() {
            let field = if colour_of(i) == position.me { 1 } else { 2 };
            lines.push(format!("{},{},{field}", p.x(), p.y()));
        }
        lines.push("DONE".to_string());
        let sent = self.process().and_then(|p| p.send(&lines));
        if let Err(e) = sent {
            self.kill();
            return Err(e);
        }
        self.thinking = true;
        Ok(())
    }

    fn wait(&mut self, timeout: Duration) -> Option<anyhow::Result<Answer>> {
        if !self.thinking {
            return Some(Err(anyhow!("the engine was not asked for a move")));
        }
        let Some(p) = self.process.as_mut() else {
            self.thinking = false;
            return Some(Err(anyhow!("the engine is not running")));
        };
        let line = match p.reply(timeout) {
            Ok(None) => return None,
            Ok(Some(line)) => line,
            Err(e) => {
                self.kill();
                return Some(Err(e));
            }
        };
        self.thinking = false;
        let parsed = line.split_once(',').and_then(|(x, y)| {
            let (x, y): (usize, usize) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
            (x < SIZE && y < SIZE).then(|| Pos::new(x, y))
        });
        match parsed {
            Some(pos) => Some(Ok(Answer {
                pos,
                detail: format!("{},{} from the engine", pos.x(), pos.y()),
                verdict: None,
            })),
            None => {
                self.kill();
                Some(Err(anyhow!(
                    "the engine answered '{}' instead of a move x,y",
                    quote(&line)
                )))
            }
        }
    }

    fn cancel(&mut self) {
        if self.thinking {
            self.kill();
        }
    }

    fn end(&mut self) {
        self.kill();
    }
}

impl Drop for External {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_and_fives() {
        let row = |xs: &[usize]| xs.iter().map(|&x| Pos::new(x, 7)).collect::<Vec<_>>();
        // Black on row 7 at 0..4, white on row 8 in between: black's fifth stone wins.
        let mut moves = Vec::new();
        for x in 0..5 {
            moves.push(Pos::new(x, 7));
            if x < 4 {
                moves.push(Pos::new(x, 8));
            }
        }
        assert!(last_move_won(&moves));
        assert!(!last_move_won(&moves[..8]));
        assert!(!last_move_won(&[]));
        let b = build_board(&row(&[3, 4]), Color::Black).unwrap();
        assert_eq!(b.stone(Pos::new(3, 7)), Some(Color::Black));
        assert_eq!(b.stone(Pos::new(4, 7)), Some(Color::White));
        assert!(build_board(&row(&[3, 3]), Color::Black).is_err());
    }

    #[test]
    fn wuzi_answers_and_cancels() {
        let limits = SearchLimits {
            depth: Some(2),
            nodes: None,
            hash_mb: Some(1),
            threads: 1,
        };
        let mut w = Wuzi::new(&limits);
        // Black has four in a row on row 7: the fifth stone is the only sensible move.
        let mut moves = Vec::new();
        for x in 3..7 {
            moves.push(Pos::new(x, 7));
            moves.push(Pos::new(x, 9));
        }
        let pos = Position {
            moves,
            me: Color::Black,
        };
        w.start(&pos, Duration::from_secs(30)).unwrap();
        let a = loop {
            if let Some(a) = w.wait(Duration::from_millis(50)) {
                break a.unwrap();
            }
        };
        assert!(a.pos == Pos::new(2, 7) || a.pos == Pos::new(7, 7), "{a:?}");
        // A cancelled search hands the searcher back; the next one works.
        w.start(&pos, Duration::from_secs(30)).unwrap();
        w.cancel();
        assert!(w.wait(Duration::ZERO).is_some_and(|r| r.is_err()));
        w.start(&pos, Duration::from_secs(30)).unwrap();
        assert!(w.wait(Duration::from_secs(20)).is_some_and(|r| r.is_ok()));
    }
}
