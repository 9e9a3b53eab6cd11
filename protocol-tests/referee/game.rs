//! One game between two engine processes, as a tournament manager plays it: setup, the
//! opening, relaying each answer to the other engine, judging every move with the
//! referee's rules, timing each answer, peak memory, and the end of the game.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::memory;
use crate::process::{describe_exit, is_chatter, LogEntry, Process, ReadError};
use crate::record::{Answer, End, Fault, Kind, Report};
use crate::rules::{Board, Illegal, Rule, Stone, Verdict};

/// How long `START` may take to answer `OK`.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// Extra wait past the limit before a silent engine is killed.
const GRACE: Duration = Duration::from_secs(2);
/// How long an engine may take to exit after `END`.
const EXIT_TIMEOUT: Duration = Duration::from_secs(1);
/// I/O lines shown with a fault, and how many of them may be MESSAGE/DEBUG lines.
const CONTEXT_LINES: usize = 12;
const CONTEXT_CHATTER: usize = 3;

/// What one game is.
#[derive(Clone, Debug)]
pub struct Spec {
    /// 1-based.
    pub number: usize,
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub turn_ms: u64,
    /// An answer this much past `turn_ms` is a time fault; one within it is only late.
    pub late_ms: u64,
    /// 0 = no match clock.
    pub match_ms: u64,
    pub memory: u64,
    pub threads: u64,
    /// Stones placed before the engines move, black first; empty = `BEGIN`.
    pub opening: Vec<(i32, i32)>,
    /// Engine process A plays black (else B does).
    pub a_is_black: bool,
}

impl Spec {
    pub fn size_name(&self) -> String {
        if self.width == self.height {
            format!("{}", self.width)
        } else {
            format!("{}x{}", self.width, self.height)
        }
    }
}

struct Side {
    proc: Process,
    stone: Stone,
    /// Thinking time used so far.
    used: Duration,
    /// Has had the position (BEGIN or BOARD); from then on it gets TURN.
    synced: bool,
    peak: Option<u64>,
}

impl Side {
    fn who(&self) -> String {
        format!("{} ({})", self.proc.label(), self.stone.name())
    }
}

struct Game<'a> {
    spec: &'a Spec,
    sides: Vec<Side>,
    board: Board,
    history: Vec<(i32, i32, Stone)>,
    faults: Vec<Fault>,
    answers: Vec<Answer>,
}

/// Why a game stopped early: the fault, and the side (index) that committed it.
type Stop = (usize, Fault);

/// Plays one game with `exe` as both engines.
pub fn play(spec: &Spec, exe: &Path) -> Report {
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!(
        "wuzi-referee-{}-{}",
        std::process::id(),
        spec.number
    ));
    let _ = std::fs::create_dir_all(&dir);
    let black_label = if spec.a_is_black { "A" } else { "B" };
    let mut sides = Vec::new();
    let mut spawn_error = None;
    for label in ["A", "B"] {
        let stone = if label == black_label {
            Stone::Black
        } else {
            Stone::White
        };
        match Process::spawn(exe, &dir, label) {
            Ok(proc) => sides.push(Side {
                proc,
                stone,
                used: Duration::ZERO,
                synced: false,
                peak: None,
            }),
            Err(e) => spawn_error = Some((stone, format!("{label} ({}): {e}", stone.name()))),
        }
    }
    let mut game = Game {
        spec,
        sides,
        board: Board::new(spec.width, spec.height),
        history: Vec::new(),
        faults: Vec::new(),
        answers: Vec::new(),
    };
    let mut forfeited = None;
    let (end, how) = if let Some((stone, message)) = spawn_error {
        game.faults.push(Fault {
            kind: Kind::Crash,
            who: stone.name().to_string(),
            move_no: None,
            detail: message,
            io: Vec::new(),
        });
        (End::Forfeit(stone), "cannot start".to_string())
    } else {
        match game.run() {
            Ok(result) => result,
            Err((side, fault)) => {
                forfeited = Some(side);
                let stone = game.sides[side].stone;
                let how = fault.kind.name().to_string();
                game.faults.push(fault);
                (End::Forfeit(stone), how)
            }
        }
    };
    game.finish(forfeited);
    let _ = std::fs::remove_dir_all(&dir);
    let time_left = (spec.match_ms > 0)
        .then(|| {
            game.sides
                .iter()
                .map(|s| (spec.match_ms as i64 - s.used.as_millis() as i64, s.who()))
                .min_by_key(|(left, _)| *left)
        })
        .flatten();
    let peak_memory = game
        .sides
        .iter()
        .filter_map(|s| s.peak.map(|p| (p, s.who())))
        .max_by_key(|(p, _)| *p);
    Report {
        spec: spec.clone(),
        end,
        how,
        stones: game.board.stones(),
        faults: game.faults,
        answers: game.answers,
        time_left,
        peak_memory,
        elapsed: started.elapsed(),
    }
}

impl Game<'_> {
    fn side_of(&self, stone: Stone) -> usize {
        self.sides.iter().position(|s| s.stone == stone).unwrap()
    }

    /// The last I/O of both engines, merged by time, with few MESSAGE/DEBUG lines.
    fn context(&self) -> Vec<String> {
        let mut all: Vec<&LogEntry> = self.sides.iter().flat_map(|s| s.proc.log()).collect();
        all.sort_by_key(|e| e.at);
        let base = all.first().map(|e| e.at);
        let mut picked = Vec::new();
        let mut chatter = 0;
        for e in all.iter().rev() {
            if picked.len() == CONTEXT_LINES {
                break;
            }
            if e.chatter {
                if chatter == CONTEXT_CHATTER {
                    continue;
                }
                chatter += 1;
            }
            let ms = base.map_or(0.0, |b| e.at.duration_since(b).as_secs_f64() * 1000.0);
            picked.push(format!("{ms:9.1} ms  {}", e.text));
        }
        picked.reverse();
        picked
    }

    fn fault(&self, side: usize, kind: Kind, move_no: Option<usize>, detail: String) -> Fault {
        Fault {
            kind,
            who: self.sides[side].who(),
            move_no,
            detail,
            io: self.context(),
        }
    }

    /// Plays until a win, a draw or a forfeit.
    fn run(&mut self) -> Result<(End, String), Stop> {
        for side in 0..2 {
            self.setup(side)?;
        }
        for (i, &(x, y)) in self.spec.opening.iter().enumerate() {
            let stone = if i % 2 == 0 {
                Stone::Black
            } else {
                Stone::White
            };
            self.board.put(x, y, stone);
            self.history.push((x, y, stone));
        }
        let mut to_move = if self.history.len().is_multiple_of(2) {
            Stone::Black
        } else {
            Stone::White
        };
        loop {
            let side = self.side_of(to_move);
            let move_no = self.board.stones() + 1;
            let (x, y) = self.think(side, move_no)?;
            match self.board.play(self.spec.rule, x, y, to_move) {
                Err(why) => {
                    let what = match why {
                        Illegal::OffBoard => "off the board",
                        Illegal::Occupied => "on an occupied cell",
                    };
                    let detail = format!("move {x},{y} is {what}");
                    return Err((side, self.fault(side, Kind::Illegal, Some(move_no), detail)));
                }
                Ok(Verdict::Foul(foul)) => {
                    let detail = format!("black's {x},{y} is a foul ({})", foul.name());
                    return Err((side, self.fault(side, Kind::Foul, Some(move_no), detail)));
                }
                Ok(Verdict::Win) => {
                    self.history.push((x, y, to_move));
                    return Ok((End::Win(to_move), "five".into()));
                }
                Ok(Verdict::Draw) => {
                    self.history.push((x, y, to_move));
                    return Ok((End::Draw, "full board".into()));
                }
                Ok(Verdict::Continue) => self.history.push((x, y, to_move)),
            }
            to_move = to_move.other();
        }
    }

    /// START/RECTSTART, `OK`, then the INFO lines.
    fn setup(&mut self, side: usize) -> Result<(), Stop> {
        let spec = self.spec;
        let start = if spec.width == spec.height {
            format!("START {}", spec.width)
        } else {
            format!("RECTSTART {},{}", spec.width, spec.height)
        };
        let sent = self.send(side, &start, None)?;
        let deadline = sent + SETUP_TIMEOUT;
        loop {
            match self.sides[side].proc.read(deadline) {
                Ok(line) if is_chatter(&line.text) => {}
                Ok(line) if line.text == "OK" => break,
                Ok(line) => {
                    let detail = format!("{:?} instead of OK to {start:?}", line.text);
                    return Err((side, self.fault(side, Kind::Stray, None, detail)));
                }
                Err(ReadError::Timeout) => {
                    self.sides[side].proc.kill();
                    let detail = format!("no OK to {start:?} within {SETUP_TIMEOUT:?}");
                    return Err((side, self.fault(side, Kind::Time, None, detail)));
                }
                Err(ReadError::Closed) => return Err(self.died(side, None)),
            }
        }
        let infos = [
            format!("INFO timeout_turn {}", spec.turn_ms),
            format!("INFO timeout_match {}", spec.match_ms),
            format!("INFO max_memory {}", spec.memory),
            format!("INFO thread_num {}", spec.threads),
            format!("INFO rule {}", spec.rule.code()),
            "INFO game_type 1".to_string(),
        ];
        for info in infos {
            self.send(side, &info, None)?;
        }
        Ok(())
    }

    fn send(&mut self, side: usize, line: &str, move_no: Option<usize>) -> Result<Instant, Stop> {
        match self.sides[side].proc.send(line) {
            Ok(at) => Ok(at),
            Err(e) => {
                let (_, mut fault) = self.died(side, move_no);
                fault.detail = format!("{e}; {}", fault.detail);
                Err((side, fault))
            }
        }
    }

    /// The engine closed stdout or its stdin: a crash, with its exit status.
    fn died(&mut self, side: usize, move_no: Option<usize>) -> Stop {
        let proc = &mut self.sides[side].proc;
        let status = proc.wait_exit(Duration::from_secs(1));
        let detail = match status {
            Some((status, _)) => format!(
                "the engine exited ({})",
                describe_exit(status).unwrap_or_else(|| "status 0".into())
            ),
            None => "the engine closed its output".to_string(),
        };
        (side, self.fault(side, Kind::Crash, move_no, detail))
    }

    /// Gives `side` the position or the last move and waits for its answer.
    fn think(&mut self, side: usize, move_no: usize) -> Result<(i32, i32), Stop> {
        // Lines left over from before (e.g. a second move) are strays.
        while let Some(line) = self.sides[side].proc.try_read() {
            if !is_chatter(&line.text) {
                let detail = format!("{:?} while it was not its turn", line.text);
                return Err((side, self.fault(side, Kind::Stray, Some(move_no), detail)));
            }
        }
        let spec = self.spec;
        let mut limit = spec.turn_ms;
        if spec.match_ms > 0 {
            let left = spec
                .match_ms
                .saturating_sub(self.sides[side].used.as_millis() as u64);
            self.send(side, &format!("INFO time_left {left}"), Some(move_no))?;
            limit = limit.min(left);
        }
        let sent = if self.sides[side].synced {
            let &(x, y, _) = self.history.last().expect("a move to relay");
            self.send(side, &format!("TURN {x},{y}"), Some(move_no))?
        } else if self.history.is_empty() {
            self.send(side, "BEGIN", Some(move_no))?
        } else {
            self.send(side, "BOARD", Some(move_no))?;
            let own = self.sides[side].stone;
            let fields: Vec<String> = self
                .history
                .iter()
                .map(|&(x, y, s)| format!("{x},{y},{}", if s == own { 1 } else { 2 }))
                .collect();
            for field in fields {
                self.send(side, &field, Some(move_no))?;
            }
            self.send(side, "DONE", Some(move_no))?
        };
        self.sides[side].synced = true;
        let deadline = sent + Duration::from_millis(limit) + GRACE;
        let line = loop {
            match self.sides[side].proc.read(deadline) {
                Ok(line) if is_chatter(&line.text) => {}
                Ok(line) => break line,
                Err(ReadError::Timeout) => {
                    self.sides[side].used += deadline - sent;
                    self.sides[side].proc.kill();
                    let detail = format!(
                        "no answer within {} ms (limit {limit} ms + {} s)",
                        (deadline - sent).as_millis(),
                        GRACE.as_secs()
                    );
                    return Err((side, self.fault(side, Kind::Time, Some(move_no), detail)));
                }
                Err(ReadError::Closed) => return Err(self.died(side, Some(move_no))),
            }
        };
        let took = line.at.saturating_duration_since(sent);
        let ms = took.as_secs_f64() * 1000.0;
        let s = &mut self.sides[side];
        s.used += took;
        if let Some(peak) = memory::peak_bytes(s.proc.pid()) {
            s.peak = Some(s.peak.map_or(peak, |p| p.max(peak)));
        }
        let used_ms = s.used.as_secs_f64() * 1000.0;
        let answer = Answer {
            ms,
            limit_ms: spec.turn_ms,
            move_no,
        };
        let too_late = answer.too_late(spec.late_ms);
        self.answers.push(answer);
        let Some((x, y)) = parse_move(&line.text) else {
            let (kind, detail) = classify(&line.text);
            return Err((side, self.fault(side, kind, Some(move_no), detail)));
        };
        if too_late {
            let detail = format!(
                "answered {x},{y} after {ms:.1} ms, over timeout_turn {} ms by more than {} ms",
                spec.turn_ms, spec.late_ms
            );
            return Err((side, self.fault(side, Kind::Time, Some(move_no), detail)));
        }
        if spec.match_ms > 0 && used_ms > spec.match_ms as f64 {
            let detail = format!(
                "used {used_ms:.1} ms in the game, over timeout_match {} ms",
                spec.match_ms
            );
            return Err((side, self.fault(side, Kind::Time, Some(move_no), detail)));
        }
        Ok((x, y))
    }

    /// Ends both engines: `END` to both, then an exit within 1 s of it, leftover output
    /// (not for `forfeited`, the side that lost by a fault: its output is already out of
    /// step), exit status and stderr, and the memory limit.
    fn finish(&mut self, forfeited: Option<usize>) {
        let n = self.sides.len();
        let mut strays = vec![Vec::new(); n];
        let mut ended = vec![None; n];
        for side in 0..n {
            let proc = &mut self.sides[side].proc;
            if !proc.exited() {
                while let Some(line) = proc.try_read() {
                    if !is_chatter(&line.text) {
                        strays[side].push(line.text);
                    }
                }
                ended[side] = Some(proc.send("END").unwrap_or_else(|_| Instant::now()));
            }
        }
        for side in 0..n {
            let mut found = Vec::new();
            let proc = &mut self.sides[side].proc;
            if let Some(sent) = ended[side] {
                let wait = (sent + EXIT_TIMEOUT).saturating_duration_since(Instant::now());
                if proc.wait_exit(wait).is_none() {
                    proc.kill();
                    found.push((
                        Kind::Exit,
                        format!("did not exit within {EXIT_TIMEOUT:?} of END"),
                    ));
                }
            }
            // The rest of its output (the pipe closes at exit).
            let drain = Instant::now() + Duration::from_millis(500);
            while let Ok(line) = proc.read(drain) {
                if !is_chatter(&line.text) {
                    strays[side].push(line.text);
                }
            }
            let who = self.sides[side].who();
            let crashed = self
                .faults
                .iter()
                .any(|f| f.kind == Kind::Crash && f.who == who);
            let proc = &self.sides[side].proc;
            if !proc.was_killed() {
                if !strays[side].is_empty() && forfeited != Some(side) {
                    let detail = format!("output after its last turn: {:?}", strays[side]);
                    found.push((Kind::Stray, detail));
                }
                if let Some(why) = proc.status().and_then(describe_exit) {
                    if !crashed {
                        found.push((Kind::Crash, why));
                    }
                }
            }
            let stderr = proc.stderr_text();
            if stderr.contains("panicked") {
                found.push((Kind::Crash, format!("panicked; stderr: {}", stderr.trim())));
            }
            if self.spec.memory > 0 {
                if let Some(peak) = self.sides[side].peak.filter(|&p| p > self.spec.memory) {
                    let detail = format!(
                        "peak resident memory {:.1} MiB over max_memory {:.1} MiB",
                        memory::mib(peak),
                        memory::mib(self.spec.memory)
                    );
                    found.push((Kind::Memory, detail));
                }
            }
            for (kind, detail) in found {
                let fault = self.fault(side, kind, None, detail);
                self.faults.push(fault);
            }
        }
    }
}

/// `x,y` with decimal digits only.
pub fn parse_move(text: &str) -> Option<(i32, i32)> {
    let (x, y) = text.split_once(',')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    (digits(x) && digits(y)).then(|| (x.parse().unwrap(), y.parse().unwrap()))
}

/// A non-move answer: a malformed move is illegal, anything else stray.
fn classify(text: &str) -> (Kind, String) {
    let looks_like_move = text
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    if looks_like_move {
        (Kind::Illegal, format!("malformed move {text:?}"))
    } else if text.starts_with("ERROR ") || text.starts_with("UNKNOWN ") {
        (
            Kind::Stray,
            format!("{text:?} to valid input instead of a move"),
        )
    } else if text == "OK" {
        (Kind::Stray, "OK instead of a move".to_string())
    } else {
        (Kind::Stray, format!("{text:?} instead of a move"))
    }
}
