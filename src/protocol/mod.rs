//! The pbrain protocol: a reader thread feeds raw lines into one event loop, which parses
//! them into commands, answers them, and runs searches on a worker thread. Commands that
//! arrive while a search runs are queued (INFO, STOP and END act at once).

mod balance;
pub mod command;
mod info;
pub mod output;
mod quote;
mod report;
mod swap2;

use crate::engine::{Engine, GameError, Owner, ThinkJob};
use crate::search::{SearchResult, Searcher};
use crate::types::{Pos, Value};
use command::{BlockKind, Command, Parser, StoneLine};
use output::Output;
use quote::quote;
use report::Reporter;
use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Version reported by ABOUT.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest input line taken; a longer one gets one `ERROR` and is skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

enum Event {
    Line(String, Instant),
    /// A line over `MAX_LINE_BYTES`, with its length.
    Overlong(usize, Instant),
    Eof,
    /// A search ended: its result, the searcher back, and what it was for.
    Done(Box<(SearchResult, Searcher, Purpose)>),
}

/// How the session is coming to an end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closing {
    /// End of input: carry out every command received, searches as usual, then exit.
    Eof,
    /// END: stop the running search and answer it, answer every think command received
    /// before END with a search stopped at once, then exit.
    End,
}

/// What a running search will answer.
#[derive(Clone, Copy, Debug)]
enum Purpose {
    /// A move, played on the engine's board (BEGIN, TURN, BOARD, YXNBEST, YXSEARCHDEFEND).
    Move,
    /// YXBALANCEONE (`two` false) or YXBALANCETWO; `first` is the move the second search
    /// of YXBALANCETWO answers.
    Balance {
        bias: Value,
        two: bool,
        first: Option<Pos>,
    },
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
    closing: Option<Closing>,
    /// STOP arrived during the current think command (a second search it needs stops at
    /// once too).
    stopped: bool,
    /// When the last search ended.
    search_ended: Instant,
}

/// Run the protocol on `input` / `output` until END or end of input.
pub fn run<R: BufRead + Send + 'static>(input: R, out: Output) {
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    let spawned = thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_lines(input, reader_tx));
    let Ok(reader) = spawned else {
        out.error("cannot start the input thread");
        return;
    };
    let mut s = Session {
        engine: Engine::new(),
        parser: Parser::default(),
        out,
        events: tx,
        running: None,
        queue: VecDeque::new(),
        closing: None,
        stopped: false,
        search_ended: Instant::now(),
    };
    s.event_loop(rx);
    // At end of input the reader has returned, or is returning: let it finish before the
    // process exits (Wine can kill a process that exits while one of its threads is still
    // ending, and report a crash). After END it is blocked on a read and is left there.
    if s.closing == Some(Closing::Eof) {
        let _ = reader.join();
    }
}

fn read_lines<R: BufRead>(mut input: R, tx: Sender<Event>) {
    let mut buf = Vec::new();
    loop {
        let event = match read_line(&mut input, &mut buf) {
            Ok(Read::Line) => {
                Event::Line(String::from_utf8_lossy(&buf).into_owned(), Instant::now())
            }
            Ok(Read::Overlong(len)) => Event::Overlong(len, Instant::now()),
            Ok(Read::Eof) | Err(_) => {
                let _ = tx.send(Event::Eof);
                return;
            }
        };
        if tx.send(event).is_err() {
            return;
        }
    }
}

/// What one `read_line` found.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    Line,
    Overlong(usize),
    Eof,
}

/// Read one line (its newline dropped) into `buf`, holding at most `MAX_LINE_BYTES` of it:
/// the rest of a longer line is read and dropped, and only its length is reported. A last
/// line without a newline still counts as a line.
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Read> {
    buf.clear();
    let mut len = 0usize;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (data, used, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None if chunk.is_empty() => (chunk, 0, true),
            None => (chunk, chunk.len(), false),
        };
        if len + data.len() <= MAX_LINE_BYTES {
            buf.extend_from_slice(data);
        } else {
            buf.clear();
        }
        len += data.len();
        input.consume(used);
        if ended {
            return Ok(if used == 0 && len == 0 {
                Read::Eof
            } else if len > MAX_LINE_BYTES {
                Read::Overlong(len)
            } else {
                Read::Line
            });
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
                // Time spent queued behind another search is not this command's.
                self.dispatch(cmd, t.max(self.search_ended));
            }
            if self.running.is_none() && self.closing.is_some() {
                return;
            }
            let Ok(ev) = rx.recv() else {
                return;
            };
            match ev {
                Event::Eof => {
                    self.closing.get_or_insert(Closing::Eof);
                }
                // Nothing read after END counts.
                Event::Line(..) | Event::Overlong(..) if self.closing.is_some() => {}
                Event::Line(line, t) => {
                    if let Some(cmd) = self.parser.feed(&line) {
                        self.receive(cmd, t);
                    }
                }
                Event::Overlong(len, t) => {
                    if let Some(cmd) = self.parser.overlong(len, MAX_LINE_BYTES) {
                        self.receive(cmd, t);
                    }
                }
                Event::Done(done) => {
                    let (result, searcher, purpose) = *done;
                    self.running = None;
                    self.search_ended = Instant::now();
                    self.finish(result, searcher, purpose);
                }
            }
        }
    }

    /// A command just read: END, STOP and INFO act at once, the rest waits for the running
    /// search and the commands queued before it.
    fn receive(&mut self, cmd: Command, received: Instant) {
        match cmd {
            Command::End => {
                self.closing = Some(Closing::End);
                self.stop_search();
            }
            Command::Stop => {
                self.stopped = true;
                self.stop_search();
            }
            Command::Info { .. } if self.queue.is_empty() => self.dispatch(cmd, received),
            _ if self.running.is_some() || !self.queue.is_empty() => {
                self.queue.push_back((cmd, received))
            }
            _ => self.dispatch(cmd, received),
        }
    }

    fn stop_search(&self) {
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Carry out one command.
    fn dispatch(&mut self, cmd: Command, received: Instant) {
        match cmd {
            // Both act on arrival (`receive`) and are never queued.
            Command::End | Command::Stop => {}
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
                Ok(()) => self.think(received, Purpose::Move, 1),
                Err(e) => self.out.error(&e.to_string()),
            },
            Command::Turn { x, y } => match self.engine.play_opponent(x, y) {
                Ok(_) => self.think(received, Purpose::Move, 1),
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
                let threads = crate::search::cores();
                self.out.message(&format!("INFO MAX_THREAD_NUM {threads}"));
                self.out.message("INFO MAX_HASH_SIZE 20");
            }
            Command::HashClear => self.engine.clear_hash(),
            Command::NBest(n) => self.think(received, Purpose::Move, n),
            Command::SearchDefend => self.think(received, Purpose::Move, usize::MAX),
            Command::Balance { two, bias } => {
                let purpose = Purpose::Balance {
                    bias,
                    two,
                    first: None,
                };
                self.think(received, purpose, usize::MAX)
            }
            Command::IncludeAll => self.engine.include_all(),
            Command::Unsupported(name) => self.out.line(&format!(
                "UNKNOWN command {} is not supported (its lines were skipped)",
                quote(name)
            )),
            Command::Malformed(text) => self.out.error(&text),
            Command::Unknown(text) => self.out.line(&format!("UNKNOWN command {}", quote(&text))),
        }
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
        if let BlockKind::Exclude | BlockKind::Include = kind {
            let mut cells = Vec::new();
            for s in stones {
                match board.pos_at(s.x, s.y) {
                    Ok(p) => cells.push(p),
                    Err(e) => self.out.error(&e.to_string()),
                }
            }
            if kind == BlockKind::Exclude {
                self.engine.exclude(&cells);
            } else {
                self.engine.include(&cells);
            }
            return;
        }
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
                    self.think(received, Purpose::Move, 1);
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

    /// Start a search of the game's position for `purpose`, finding the best `multipv`
    /// root moves (1: just the best).
    fn think(&mut self, received: Instant, purpose: Purpose, multipv: usize) {
        self.stopped = false;
        let o = &mut self.engine.options;
        if std::mem::take(&mut o.memory_warning) {
            self.out.message(&format!(
                "max_memory {} is below the {} bytes Wuzi needs: playing with the smallest hash table",
                o.max_memory,
                o.min_memory()
            ));
        }
        if let Some(v) = self.engine.options.unknown_rule.take() {
            self.out.message(&format!(
                "unknown rule {}: playing freestyle (known: 0, 1, 2, 4, 8, 9)",
                quote(&v)
            ));
        }
        match self.engine.think(received) {
            Ok(mut job) => {
                job.limits.multipv = multipv;
                if let Purpose::Balance { two: true, .. } = purpose {
                    // Two searches share the move's time.
                    job.limits.soft = job.limits.soft.map(|t| t / 2);
                    job.limits.hard = job.limits.hard.map(|t| t / 2);
                }
                self.spawn(job, purpose)
            }
            Err(e) => self.out.error(&e.to_string()),
        }
    }

    fn spawn(&mut self, mut job: ThinkJob, purpose: Purpose) {
        if self.closing == Some(Closing::End) || self.stopped {
            // Received before END (or the second search of a command that was stopped):
            // answered, but by a search stopped at once.
            job.limits.soft = Some(Duration::ZERO);
            job.limits.hard = Some(Duration::ZERO);
        }
        let tx = self.events.clone();
        let observer = Reporter::new(self.out.clone(), &self.engine.options);
        let started = job.start(observer, move |r, searcher| {
            let _ = tx.send(Event::Done(Box::new((r, searcher, purpose))));
        });
        match started {
            Ok(stop) => self.running = Some(Running { stop }),
            Err(e) => self
                .out
                .error(&format!("cannot start the search thread: {e}")),
        }
    }

    fn finish(&mut self, r: SearchResult, searcher: Searcher, purpose: Purpose) {
        if self.engine.options.show_detail {
            report::summary(&self.out, &r);
        }
        match purpose {
            Purpose::Move => {
                self.out.line(&r.best.to_string());
                self.engine.finish_think(searcher, Some(r.best));
            }
            Purpose::Balance { bias, two, first } => {
                self.engine.return_searcher(searcher);
                let replies = first.is_some();
                let bias = if replies {
                    balance::reply_bias(bias)
                } else {
                    bias
                };
                let chosen = balance::closest(&r.lines, bias).unwrap_or(r.best);
                match first {
                    Some(m) => self.out.line(&format!("{m} {chosen}")),
                    None if !two => self.out.line(&chosen.to_string()),
                    None => self.balance_reply(chosen, bias),
                }
            }
            Purpose::Swap2(stage) => {
                self.engine.return_searcher(searcher);
                self.out.line(&swap2::answer(stage, &r));
            }
        }
    }

    /// YXBALANCETWO's second search: after `first`, the reply that balances the position.
    fn balance_reply(&mut self, first: Pos, bias: Value) {
        let Some(mut board) = self.engine.board().cloned() else {
            self.out.error(&GameError::NoGame.to_string());
            return;
        };
        board.make_move(first);
        if board.empty_count() == 0 {
            // No reply is possible: the one move is the answer.
            self.out.line(&first.to_string());
            return;
        }
        match self.engine.think_on(board, Instant::now()) {
            Ok(mut job) => {
                job.limits.multipv = usize::MAX;
                job.limits.soft = job.limits.soft.map(|t| t / 2);
                job.limits.hard = job.limits.hard.map(|t| t / 2);
                let purpose = Purpose::Balance {
                    bias,
                    two: true,
                    first: Some(first),
                };
                self.spawn(job, purpose);
            }
            Err(e) => self.out.error(&e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    /// Every line `read_line` finds in `data`, read through a small buffer so that lines
    /// arrive in pieces.
    fn read_all(data: &[u8]) -> Vec<(Read, Vec<u8>)> {
        let mut input = BufReader::with_capacity(7, Cursor::new(data.to_vec()));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let r = read_line(&mut input, &mut buf).unwrap();
            let eof = r == Read::Eof;
            out.push((r, buf.clone()));
            if eof {
                return out;
            }
        }
    }

    #[test]
    fn lines_are_capped_and_nothing_else_is_lost() {
        let mut data = b"START 15\r\nBEGIN\n".to_vec();
        data.extend(std::iter::repeat_n(b'X', MAX_LINE_BYTES + 1));
        data.extend(b"\nTURN 1,2\n");
        data.extend(std::iter::repeat_n(b'Y', MAX_LINE_BYTES));
        data.extend(b"\nEND");
        let got = read_all(&data);
        let kinds: Vec<&Read> = got.iter().map(|(r, _)| r).collect();
        assert_eq!(
            kinds,
            [
                &Read::Line,
                &Read::Line,
                &Read::Overlong(MAX_LINE_BYTES + 1),
                &Read::Line,
                &Read::Line,
                &Read::Line,
                &Read::Eof
            ]
        );
        assert_eq!(got[0].1, b"START 15\r");
        assert_eq!(got[3].1, b"TURN 1,2");
        assert_eq!(got[4].1.len(), MAX_LINE_BYTES);
        // A last line without a newline still counts.
        assert_eq!(got[5].1, b"END");
        assert_eq!(read_all(b"")[0].0, Read::Eof);
    }
}
