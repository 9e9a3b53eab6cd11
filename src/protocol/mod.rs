//! The pbrain protocol: a reader thread feeds raw lines into one event loop, which parses
//! them into commands, answers them, and runs searches on a worker thread. Commands that
//! arrive while a search runs are queued (INFO, STOP and END act at once).

pub mod command;
mod info;
pub mod output;
mod swap2;

use crate::engine::{Engine, GameError, Owner, ThinkJob};
use crate::search::{IterationReport, Observer, SearchResult, Searcher};
use crate::types::{Pos, Value, VALUE_MATE, VALUE_MATE_BOUND};
use command::{BlockKind, Command, Parser, StoneLine};
use output::Output;
use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

/// Version reported by ABOUT.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Stack for the search thread (deep forced lines recurse far).
const SEARCH_STACK_BYTES: usize = 256 << 20;

enum Event {
    Line(String, Instant),
    Eof,
    Done(Box<SearchResult>, Searcher, Purpose),
}

/// What a running search will answer.
#[derive(Clone, Copy, Debug)]
enum Purpose {
    Move,
    Swap2(swap2::Stage),
}

struct Running {
    stop: Arc<AtomicBool>,
}

/// The protocol session: engine, parser, output, the running search and queued commands.
struct Session {
    engine: Engine,
    parser: Parser,
    out: Output,
    events: Sender<Event>,
    running: Option<Running>,
    queue: VecDeque<(Command, Instant)>,
}

/// Run the protocol on `input` / `output` until END or end of input.
pub fn run<R: BufRead + Send + 'static>(input: R, out: Output) {
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    let spawned = thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_lines(input, reader_tx));
    if spawned.is_err() {
        out.error("cannot start the input thread");
        return;
    }
    let mut s = Session {
        engine: Engine::new(),
        parser: Parser::default(),
        out,
        events: tx,
        running: None,
        queue: VecDeque::new(),
    };
    s.event_loop(rx);
}

fn read_lines<R: BufRead>(mut input: R, tx: Sender<Event>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.send(Event::Eof);
                return;
            }
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf).into_owned();
                if tx.send(Event::Line(line, Instant::now())).is_err() {
                    return;
                }
            }
        }
    }
}

impl Session {
    fn event_loop(&mut self, rx: Receiver<Event>) {
        loop {
            while self.running.is_none() {
                let Some((cmd, t)) = self.queue.pop_front() else {
                    break;
                };
                if !self.dispatch(cmd, t) {
                    return;
                }
            }
            let Ok(ev) = rx.recv() else {
                return;
            };
            match ev {
                Event::Eof => return,
                Event::Line(line, t) => {
                    let Some(cmd) = self.parser.feed(&line) else {
                        continue;
                    };
                    match cmd {
                        Command::End => return,
                        Command::Stop => {
                            if let Some(r) = &self.running {
                                r.stop.store(true, Ordering::Relaxed);
                            }
                        }
                        Command::Info { .. } if self.queue.is_empty() => {
                            self.dispatch(cmd, t);
                        }
                        _ if self.running.is_some() || !self.queue.is_empty() => {
                            self.queue.push_back((cmd, t))
                        }
                        _ => {
                            if !self.dispatch(cmd, t) {
                                return;
                            }
                        }
                    }
                }
                Event::Done(result, searcher, purpose) => {
                    self.running = None;
                    self.finish(*result, searcher, purpose);
                }
            }
        }
    }

    /// Handle one command; false means exit.
    fn dispatch(&mut self, cmd: Command, received: Instant) -> bool {
        match cmd {
            Command::End => return false,
            Command::Stop => {}
            Command::About => self.out.line(&format!(
                "name=\"Wuzi\", version=\"{VERSION}\", author=\"The Wuzi developers\", country=\"International\""
            )),
            Command::Start { width, height } => match self.engine.new_game(width, height) {
                Ok(()) => self.out.line("OK"),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Restart => match self.engine.restart() {
                Ok(()) => self.out.line("OK"),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Begin => match self.engine.check_begin() {
                Ok(()) => self.think(received, Purpose::Move),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Turn { x, y } => match self.engine.play_opponent(x, y) {
                Ok(_) => self.think(received, Purpose::Move),
                Err(e) => self.out.error(&format!("TURN {x},{y}: {e}")),
            },
            Command::Play { x, y } => match self.engine.play_own(x, y) {
                Ok(p) => self.out.line(&p.to_string()),
                Err(e) => self.out.error(&format!("PLAY {x},{y}: {e}")),
            },
            Command::Takeback { x, y } => match self.engine.takeback(x, y) {
                Ok(()) => self.out.line("OK"),
                Err(e) => self.out.error(&format!("TAKEBACK {x},{y}: {e}")),
            },
            Command::Block { kind, stones, errors } => {
                for e in &errors {
                    self.out.error(e);
                }
                self.block(kind, &stones, received);
            }
            Command::Info { key, value } => info::apply(&mut self.engine, &key, &value),
            Command::ShowForbid => {
                let mut s = String::from("FORBID ");
                for p in self.engine.forbidden_points() {
                    s.push_str(&format!("{:02}{:02}", p.x(), p.y()));
                }
                s.push('.');
                self.out.line(&s);
            }
            Command::ShowInfo => {
                self.out.message("INFO MAX_THREAD_NUM 1");
                self.out.message("INFO MAX_HASH_SIZE 20");
            }
            Command::HashClear => self.engine.clear_hash(),
            Command::Malformed(text) => self.out.error(&text),
            Command::Unknown(text) => self.out.line(&format!("UNKNOWN command '{text}'")),
        }
        true
    }

    fn block(&mut self, kind: BlockKind, stones: &[StoneLine], received: Instant) {
        if kind == BlockKind::Swap2Board {
            match swap2::read_stones(&self.engine, stones) {
                Ok(list) => self.swap2(list, received),
                Err(e) => self.out.error(&format!("SWAP2BOARD: {e}")),
            }
            return;
        }
        let Some(board) = self.engine.board() else {
            self.out.error(&GameError::NoGame.to_string());
            return;
        };
        let mut list: Vec<(Pos, Owner)> = Vec::new();
        for s in stones {
            let owner = match s.field {
                Some(1) => Owner::Own,
                Some(2) => Owner::Opponent,
                // Field 3 (continuous games: a finished line or a foul stone) is ignored.
                Some(3) => continue,
                _ => {
                    self.out.error(&format!(
                        "bad field in {},{},{:?}: expected 1, 2 or 3",
                        s.x, s.y, s.field
                    ));
                    continue;
                }
            };
            match board.pos_at(s.x, s.y) {
                Ok(p) if list.iter().any(|&(q, _)| q == p) => {
                    self.out.error(&format!("{p} is listed twice"));
                }
                Ok(p) => list.push((p, owner)),
                Err(e) => self.out.error(&e.to_string()),
            }
        }
        match self.engine.set_position(&list) {
            Ok(()) => {
                if kind == BlockKind::Board {
                    self.think(received, Purpose::Move);
                }
            }
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    fn swap2(&mut self, stones: Vec<Pos>, received: Instant) {
        match swap2::stage(&mut self.engine, &stones, received) {
            Ok(swap2::Next::Answer(text)) => self.out.line(&text),
            Ok(swap2::Next::Search(job, stage)) => self.spawn(*job, Purpose::Swap2(stage)),
            Err(e) => self.out.error(&format!("SWAP2BOARD: {e}")),
        }
    }

    fn think(&mut self, received: Instant, purpose: Purpose) {
        if let Some(v) = self.engine.options.unknown_rule.take() {
            self.out.message(&format!(
                "unknown rule '{v}': playing freestyle (known: 0, 1, 2, 4, 8, 9)"
            ));
        }
        match self.engine.think(received) {
            Ok(job) => self.spawn(job, purpose),
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    fn spawn(&mut self, job: ThinkJob, purpose: Purpose) {
        let ThinkJob {
            mut board,
            mut searcher,
            limits,
        } = job;
        let stop = searcher.stop_flag();
        stop.store(false, Ordering::Relaxed);
        let tx = self.events.clone();
        let mut observer = MessageObserver {
            out: self.out.clone(),
            show: self.engine.options.show_detail,
        };
        let spawned = thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let r = searcher.search(&mut board, limits, &mut observer);
                let _ = tx.send(Event::Done(Box::new(r), searcher, purpose));
            });
        match spawned {
            Ok(_) => self.running = Some(Running { stop }),
            Err(e) => self
                .out
                .error(&format!("cannot start the search thread: {e}")),
        }
    }

    fn finish(&mut self, r: SearchResult, searcher: Searcher, purpose: Purpose) {
        match purpose {
            Purpose::Move => {
                if self.engine.options.show_detail {
                    let ms = r.elapsed.as_millis().max(1) as u64;
                    self.out.message(&format!(
                        "best {} value {} depth {} nodes {} nps {} time {}",
                        r.best,
                        format_value(r.value),
                        r.depth,
                        r.nodes,
                        r.nodes * 1000 / ms,
                        ms
                    ));
                }
                self.out.line(&r.best.to_string());
                self.engine.finish_think(searcher, Some(r.best));
            }
            Purpose::Swap2(stage) => {
                self.engine.return_searcher(searcher);
                self.out.line(&swap2::answer(stage, &r));
            }
        }
    }
}

/// Turns iteration reports into MESSAGE lines.
struct MessageObserver {
    out: Output,
    show: bool,
}

impl Observer for MessageObserver {
    fn iteration(&mut self, r: &IterationReport) {
        if !self.show {
            return;
        }
        let ms = r.elapsed.as_millis().max(1) as u64;
        let value = format_value(r.value);
        let pv: Vec<String> = r.pv.iter().map(|p| p.to_string()).collect();
        self.out.message(&format!(
            "depth {} value {} nodes {} nps {} time {} pv {}",
            r.depth,
            value,
            r.nodes,
            r.nodes * 1000 / ms,
            ms,
            pv.join(" ")
        ));
    }
}

/// A value as text: centi-stone-ish numbers, or the distance of a proven result in plies.
fn format_value(v: Value) -> String {
    if v >= VALUE_MATE_BOUND {
        format!("win in {}", VALUE_MATE - v)
    } else if v <= -VALUE_MATE_BOUND {
        format!("loss in {}", VALUE_MATE + v)
    } else {
        v.to_string()
    }
}
