//! One person's game on the web board: the line of moves (with the moves undone kept for
//! redo and for stepping through a record), who plays which side, and Wuzi's searches: a
//! move, a hint, or the analysis that runs until stopped and shows its progress live.

use crate::board::Board;
use crate::engine::ThinkJob;
use crate::play::screen::{cell_name, winning_line};
use crate::play::typed::{typed_move, Refusal};
use crate::records::{Format, Move, Record};
use crate::rules;
use crate::search::{IterationReport, Limits, Observer, SearchResult, Searcher};
use crate::types::{Color, Pos, Rule, MAX_SIZE, MIN_SIZE};
use crate::value_text::{one_ply_later, verdict, Side};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Hash table of one session's searcher.
const TT_BYTES: usize = 64 << 20;
/// Root moves the analysis shows.
pub const ANALYSIS_LINES: usize = 3;
/// The thinking time a page may ask for, in seconds.
pub const MAX_TIME_SECS: f64 = 60.0;
/// Kept back from the thinking time for the answer's way to the page.
const TIME_RESERVE: Duration = Duration::from_millis(30);

/// What the running analysis last found, for the page's live view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Counts every update, so that a watcher sees each one once.
    pub seq: u64,
    pub running: bool,
    pub depth: i32,
    pub nodes: u64,
    pub nps: u64,
    /// The side to move, whose values these are.
    pub mover: Option<Color>,
    /// The best root moves: move, value for the side to move, line.
    pub lines: Vec<(Pos, i32, Vec<Pos>)>,
}

/// The snapshot, shared with the analysis thread and the pages watching it.
#[derive(Default)]
pub struct Live {
    pub snapshot: Mutex<Snapshot>,
    pub changed: Condvar,
}

impl Live {
    fn update(&self, f: impl FnOnce(&mut Snapshot)) {
        let mut s = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut s);
        s.seq += 1;
        self.changed.notify_all();
    }

    /// The snapshot after `seen`, waiting up to `timeout` for one.
    pub fn next(&self, seen: u64, timeout: Duration) -> Snapshot {
        let s = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        let (s, _) = self
            .changed
            .wait_timeout_while(s, timeout, |s| s.seq == seen)
            .unwrap_or_else(|e| e.into_inner());
        s.clone()
    }
}

/// The analysis observer: every iteration goes to the snapshot.
struct Reporter {
    live: Arc<Live>,
    mover: Color,
}

impl Observer for Reporter {
    fn iteration(&mut self, r: &IterationReport) {
        let secs = r.elapsed.as_secs_f64();
        let lines = if r.lines.is_empty() {
            r.pv.first()
                .map(|&p| vec![(p, r.value, r.pv.clone())])
                .unwrap_or_default()
        } else {
            r.lines
                .iter()
                .filter_map(|l| Some((*l.pv.first()?, l.value, l.pv.clone())))
                .collect()
        };
        self.live.update(|s| {
            s.running = true;
            s.depth = r.depth;
            s.nodes = r.nodes;
            s.nps = if secs > 0.0 {
                (r.nodes as f64 / secs) as u64
            } else {
                0
            };
            s.mover = Some(self.mover);
            s.lines = lines;
        });
    }
}

/// The analysis, running on its own thread.
struct Running {
    stop: Arc<AtomicBool>,
    /// The searcher, back when the search has stopped.
    done: Receiver<Searcher>,
}

/// One person's game.
pub struct Session {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    /// Every move of the line, those undone included.
    pub line: Vec<Pos>,
    /// How many of `line` are on the board.
    pub at: usize,
    /// The person's colour.
    pub human: Color,
    /// Wuzi's thinking time a move.
    pub time: Duration,
    threads: usize,
    /// `None` while a search holds it.
    searcher: Option<Searcher>,
    analysis: Option<Running>,
    pub live: Arc<Live>,
    /// What Wuzi last said (its move, a hint), for the page.
    pub said: Option<String>,
    /// The move of the last hint, while the position is the one it was for.
    pub hint: Option<Pos>,
    /// When the page last asked anything: a session nobody asks about is ended.
    pub last_seen: Instant,
}

impl Session {
    pub fn new(threads: usize) -> Session {
        let mut searcher = Searcher::new(TT_BYTES);
        searcher.set_threads(threads);
        Session {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            line: Vec::new(),
            at: 0,
            human: Color::Black,
            time: Duration::from_secs(1),
            threads,
            searcher: Some(searcher),
            analysis: None,
            live: Arc::new(Live::default()),
            said: None,
            hint: None,
            last_seen: Instant::now(),
        }
    }

    /// The position on the board.
    pub fn board(&self) -> Board {
        let mut b = Board::new(self.width, self.height, self.rule).expect("a checked size");
        for &p in &self.line[..self.at] {
            b.make_move(p);
        }
        b
    }

    /// The winning five of the last move, if it made one.
    pub fn five(&self) -> Vec<Pos> {
        let mut b = self.board();
        if self.at > 0 && rules::last_move_won(&mut b) {
            winning_line(&b)
        } else {
            Vec::new()
        }
    }

    /// Whether the game on the board is over: a five, or a full board.
    pub fn over(&self) -> bool {
        let mut b = self.board();
        b.empty_count() == 0 || self.at > 0 && rules::last_move_won(&mut b)
    }

    /// A new game. Every setting is checked before anything changes.
    pub fn new_game(
        &mut self,
        rule: Rule,
        (width, height): (usize, usize),
        human: Color,
        time: Duration,
    ) -> Result<(), String> {
        let sides = MIN_SIZE..=MAX_SIZE;
        if !sides.contains(&width) || !sides.contains(&height) {
            return Err(format!(
                "a board from {MIN_SIZE} to {MAX_SIZE} on a side, not {width}x{height}"
            ));
        }
        self.stop_analysis();
        (self.rule, self.width, self.height) = (rule, width, height);
        (self.human, self.time) = (human, time);
        self.line.clear();
        self.at = 0;
        self.said = None;
        self.hint = None;
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
        self.answer()
    }

    /// The person plays `cell` (`h8` or `7,7`); Wuzi answers.
    pub fn play(&mut self, cell: &str) -> Result<(), String> {
        let p = self.check_cell(cell)?;
        self.stop_analysis();
        self.place(p);
        self.said = None;
        self.hint = None;
        self.answer()
    }

    /// Plays `cell` for the side to move, whoever plays it, and lets nobody answer (the
    /// analysis view: any cell, either colour).
    pub fn play_for_study(&mut self, cell: &str) -> Result<(), String> {
        let p = self.check_cell(cell)?;
        self.place(p);
        self.said = None;
        self.hint = None;
        Ok(())
    }

    fn check_cell(&mut self, cell: &str) -> Result<Pos, String> {
        if self.over() {
            return Err("the game is over: start a new one, or undo".into());
        }
        typed_move(&mut self.board(), cell).map_err(|e| match e {
            Refusal::NotACell => format!("'{cell}' is not a cell (h8 or 7,7)"),
            Refusal::Why(why) => why,
        })
    }

    /// Puts `p` on the board after the moves there; the moves undone after them go.
    fn place(&mut self, p: Pos) {
        self.line.truncate(self.at);
        self.line.push(p);
        self.at += 1;
    }

    /// Wuzi moves if it is its turn and the game goes on.
    fn answer(&mut self) -> Result<(), String> {
        if self.over() || self.board().side_to_move() == self.human {
            return Ok(());
        }
        let r = self.search(self.move_limits(), 1)?;
        self.place(r.best);
        self.hint = None;
        // Wuzi's value before its move, from the person's side after it.
        self.said = Some(format!(
            "Wuzi plays {} (depth {}, {:.1} s): {}",
            cell_name(r.best),
            r.depth,
            r.elapsed.as_secs_f64(),
            verdict(one_ply_later(-r.value), Side::You, Side::Wuzi)
        ));
        Ok(())
    }

    fn move_limits(&self) -> Limits {
        let t = self
            .time
            .saturating_sub(TIME_RESERVE)
            .max(Duration::from_millis(10));
        Limits {
            soft: Some(t),
            hard: Some(t),
            exact_value: true,
            ..Limits::default()
        }
    }

    /// Searches the position on the board to the end, on a thread with the stack a deep
    /// search needs.
    fn search(&mut self, limits: Limits, multipv: usize) -> Result<SearchResult, String> {
        self.stop_analysis();
        let board = self.board();
        if board.empty_count() == 0 {
            return Err("the board is full".into());
        }
        let searcher = self.searcher.take().expect("no search is running");
        let (tx, rx) = mpsc::channel();
        let job = ThinkJob {
            board,
            searcher,
            limits: Limits { multipv, ..limits },
        };
        job.start(crate::search::Silent, move |r, s| {
            let _ = tx.send((r, s));
        })
        .map_err(|e| format!("cannot start a search: {e}"))?;
        let (r, s) = rx
            .recv()
            .map_err(|_| "the search ended without an answer".to_string())?;
        self.searcher = Some(s);
        Ok(r)
    }

    /// Wuzi's move for the person, with its value for them.
    pub fn hint(&mut self) -> Result<(), String> {
        if self.over() {
            return Err("the game is over".into());
        }
        let r = self.search(self.move_limits(), 1)?;
        self.hint = Some(r.best);
        self.said = Some(format!(
            "Hint: {} (depth {}): {}",
            cell_name(r.best),
            r.depth,
            verdict(r.value, Side::You, Side::Wuzi)
        ));
        Ok(())
    }

    /// Back to before the person's last move.
    pub fn undo(&mut self) -> Result<(), String> {
        self.stop_analysis();
        let mine = (0..self.at).rev().find(|&i| {
            let colour = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            colour == self.human
        });
        let Some(i) = mine else {
            return Err("nothing of yours to take back".into());
        };
        self.at = i;
        self.said = None;
        self.hint = None;
        Ok(())
    }

    /// Forward again to the next position where the person is to move (or the end).
    pub fn redo(&mut self) -> Result<(), String> {
        if self.at == self.line.len() {
            return Err("nothing to redo".into());
        }
        self.stop_analysis();
        self.at += 1;
        if self.at < self.line.len() && self.board().side_to_move() != self.human {
            self.at += 1;
        }
        self.said = None;
        self.hint = None;
        Ok(())
    }

    /// The position after the first `n` moves of the line (stepping through a record).
    pub fn goto(&mut self, n: usize) -> Result<(), String> {
        if n > self.line.len() {
            return Err(format!("the line has {} moves, not {n}", self.line.len()));
        }
        self.stop_analysis();
        self.at = n;
        self.said = None;
        self.hint = None;
        Ok(())
    }

    /// The person takes the other side; Wuzi moves if that is now its turn.
    pub fn swap(&mut self) -> Result<(), String> {
        self.stop_analysis();
        self.human = self.human.opp();
        self.said = None;
        self.hint = None;
        self.answer()
    }

    /// Starts the analysis of the position on the board, until stopped.
    pub fn start_analysis(&mut self) -> Result<(), String> {
        if self.analysis.is_some() {
            return Ok(());
        }
        let board = self.board();
        if self.over() {
            return Err("the game is over: nothing to analyse".into());
        }
        let mover = board.side_to_move();
        let searcher = self.searcher.take().expect("no search is running");
        let (tx, done) = mpsc::channel();
        let job = ThinkJob {
            board,
            searcher,
            limits: Limits {
                multipv: ANALYSIS_LINES,
                exact_value: true,
                ..Limits::default()
            },
        };
        let live = self.live.clone();
        live.update(|s| {
            *s = Snapshot {
                seq: s.seq,
                running: true,
                mover: Some(mover),
                ..Snapshot::default()
            }
        });
        let reporter = Reporter {
            live: live.clone(),
            mover,
        };
        let stop = job
            .start(reporter, move |_, s| {
                live.update(|s| s.running = false);
                let _ = tx.send(s);
            })
            .map_err(|e| format!("cannot start the analysis: {e}"))?;
        self.analysis = Some(Running { stop, done });
        Ok(())
    }

    /// Stops the analysis, if it runs, and takes its searcher back.
    pub fn stop_analysis(&mut self) {
        if let Some(run) = self.analysis.take() {
            run.stop.store(true, Ordering::Relaxed);
            if let Ok(s) = run.done.recv() {
                self.searcher = Some(s);
            } else {
                let mut s = Searcher::new(TT_BYTES);
                s.set_threads(self.threads);
                self.searcher = Some(s);
            }
            self.live.update(|s| s.running = false);
        }
    }

    pub fn analysing(&self) -> bool {
        self.analysis.is_some()
    }

    /// Replaces the game with a record's (`name` tells the format by its ending, else the
    /// text does). Nothing changes if the record cannot be read or played.
    pub fn load(&mut self, text: &str, name: Option<&str>) -> Result<usize, String> {
        let format = name
            .and_then(|n| Format::from_path(std::path::Path::new(n)))
            .unwrap_or_else(|| Format::sniff(text));
        let record = format
            .read(text)
            .map_err(|e| format!("not loaded ({} text): {e}", format.name()))?;
        let rule = record.rule.unwrap_or(self.rule);
        crate::review::ends_at_its_end(&record, rule).map_err(|e| format!("not loaded: {e}"))?;
        self.stop_analysis();
        (self.rule, self.width, self.height) = (rule, record.width, record.height);
        self.line = record.positions();
        self.at = self.line.len();
        self.said = None;
        self.hint = None;
        Ok(self.line.len())
    }

    /// The game (the whole line) as a record.
    pub fn record(&self) -> Record {
        let mut r = Record::new(self.width, self.height);
        r.rule = Some(self.rule);
        r.moves = self.line.iter().map(|&p| Move::at(p)).collect();
        r
    }

    /// The game in `format`.
    pub fn save(&self, format: Format) -> Result<String, String> {
        format.write(&self.record()).map_err(|e| e.to_string())
    }

    /// Reviews the whole line to `depth`.
    pub fn review(&mut self, depth: i32) -> Result<Vec<crate::review::MoveReview>, String> {
        self.stop_analysis();
        let limits = Limits {
            multipv: 2,
            max_depth: Some(depth),
            exact_value: true,
            ..Limits::default()
        };
        let record = self.record();
        let (rule, threads) = (self.rule, self.threads);
        // On a thread with the stack a deep search needs.
        std::thread::Builder::new()
            .name("review".into())
            .stack_size(crate::search::STACK_BYTES)
            .spawn(move || crate::review::review(&record, rule, &limits, threads))
            .map_err(|e| format!("cannot start the review: {e}"))?
            .join()
            .map_err(|_| "the review failed".to_string())?
            .map_err(|e| e.to_string())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stop_analysis();
    }
}
