//! One fuzz session against a fresh engine process: its kind, the bytes it writes (in
//! random pieces, with LF and CRLF mixed) and the checks it makes.

use std::thread;
use std::time::{Duration, Instant};

use crate::engine::{describe_exit, Engine};
use crate::lines::{chance, chaos, hostile, newline, pick, Game};
use crate::output_rules::{line_format_error, output_format};
use crate::rng::Rng;

/// How long a reply may take (searches here are limited to tens of milliseconds, but a
/// chaos session may have set a longer limit).
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the engine may take to exit after END or the end of its input, once the
/// searches it owes are answered. END itself is held to 100 ms by the transcripts; here
/// the machine runs several sessions at once.
const EXIT_TIMEOUT: Duration = Duration::from_millis(1000);
/// Problems of one session shown in the report.
const MAX_PROBLEMS_SHOWN: usize = 6;
/// The limits every session plays with (and restores after hostile INFO lines), besides
/// its own `timeout_turn`.
const SESSION_SETTINGS: &[&str] = &[
    "INFO timeout_match 0",
    "INFO time_left 2147483647",
    "INFO max_depth 0",
    "INFO max_node 0",
    "INFO max_memory 0",
    "INFO hash_size 0",
    "INFO show_detail 1",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A position is set up, hostile lines follow, then the position must play on: a TURN
    /// that makes a four must be answered by its block.
    Survival,
    /// A real game with hostile lines between the moves: every think gets exactly one
    /// move, on an empty cell; the session ends with END or EOF, often mid-search.
    Game,
    /// Anything at all, mutations included: no crash, no hang, clean lines.
    Chaos,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Survival, Kind::Game, Kind::Chaos];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Survival => "survival",
            Kind::Game => "game",
            Kind::Chaos => "chaos",
        }
    }
}

/// What a session did.
pub struct Outcome {
    pub kind: Kind,
    pub lines: u64,
    pub bytes: u64,
    pub failure: Option<String>,
}

struct Session {
    engine: Engine,
    rng: Rng,
    lines: u64,
    bytes: u64,
    /// The per-move limit of this session, in ms.
    turn_ms: u64,
}

/// Run session `seed` of `kind` in a fresh engine started in `dir`.
pub fn run(kind: Kind, seed: u64, dir: &std::path::Path) -> Outcome {
    let engine = match Engine::spawn(dir) {
        Ok(e) => e,
        Err(e) => {
            return Outcome {
                kind,
                lines: 0,
                bytes: 0,
                failure: Some(e),
            }
        }
    };
    let mut rng = Rng::new(seed);
    let turn_ms = rng.range(10, 50);
    let mut s = Session {
        engine,
        rng,
        lines: 0,
        bytes: 0,
        turn_ms,
    };
    let played = match kind {
        Kind::Survival => s.survival(),
        Kind::Game => s.game(),
        Kind::Chaos => s.chaos(),
    };
    let failure = s.finish(played.err());
    Outcome {
        kind,
        lines: s.lines,
        bytes: s.bytes,
        failure,
    }
}

impl Session {
    /// Write `lines`, each with a random terminator, in random pieces.
    fn write(&mut self, lines: &[Vec<u8>]) -> Result<(), String> {
        let mut data = Vec::new();
        for line in lines {
            data.extend_from_slice(line);
            data.extend_from_slice(newline(&mut self.rng));
        }
        self.lines += lines.len() as u64;
        self.bytes += data.len() as u64;
        let mut rest = &data[..];
        while !rest.is_empty() {
            let piece = if chance(&mut self.rng, 30) {
                self.rng.range(1, 16)
            } else {
                self.rng.range(16, 70_000)
            } as usize;
            let (now, later) = rest.split_at(piece.min(rest.len()));
            self.engine.send(now)?;
            if chance(&mut self.rng, 5) {
                thread::sleep(Duration::from_millis(1));
            }
            rest = later;
        }
        Ok(())
    }

    fn write_str(&mut self, lines: &[&str]) -> Result<(), String> {
        let lines: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        self.write(&lines)
    }

    /// The session's limits again (hostile INFO lines may have changed them).
    fn settings(&mut self) -> Result<(), String> {
        let turn = format!("INFO timeout_turn {}", self.turn_ms);
        let mut lines: Vec<&str> = SESSION_SETTINGS.to_vec();
        lines.push(&turn);
        self.write_str(&lines)
    }

    fn start(&mut self, width: i64, height: i64) -> Result<(), String> {
        let line = if width == height && chance(&mut self.rng, 70) {
            format!("START {width}")
        } else {
            format!("RECTSTART {width},{height}")
        };
        self.write_str(&[&line])?;
        self.expect_reply("OK", |t| t == "OK")?;
        self.settings()
    }

    /// The next reply (MESSAGE/DEBUG skipped), which must satisfy `ok`.
    fn expect_reply(&mut self, what: &str, ok: impl Fn(&str) -> bool) -> Result<String, String> {
        let got = self.engine.next_reply(REPLY_TIMEOUT)?;
        if ok(&got.text) {
            Ok(got.text)
        } else {
            Err(format!("expected {what}, got {:?}", got.text))
        }
    }

    /// Replies up to the next move line; the others must be ERROR, UNKNOWN, FORBID, OK or
    /// name= lines (answers to hostile input).
    fn next_move(&mut self) -> Result<(i64, i64), String> {
        loop {
            let got = self.engine.next_reply(REPLY_TIMEOUT)?;
            if let Some(m) = parse_move(&got.text) {
                return Ok(m);
            }
        }
    }

    /// Sends a marker no generator makes (an unknown command with a random tag) and reads
    /// the replies up to its `UNKNOWN` line: the replies to everything sent before.
    /// Unless `moves_allowed`, none of them may be a move.
    fn sync(&mut self, moves_allowed: bool) -> Result<(), String> {
        let tag = format!("SYNC-{:016x}", self.rng.next_u64());
        self.write_str(&[&tag])?;
        loop {
            let got = self
                .engine
                .next_reply(REPLY_TIMEOUT)
                .map_err(|e| format!("waiting for the reply to {tag}: {e}"))?;
            if got.text.starts_with("UNKNOWN ") && got.text.contains(&tag) {
                return Ok(());
            }
            if !moves_allowed && parse_move(&got.text).is_some() {
                return Err(format!(
                    "hostile input made the engine move: {:?}",
                    got.text
                ));
            }
        }
    }

    fn hostile_lines(&mut self, g: &Game, groups: u64) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for _ in 0..groups {
            lines.extend(hostile(&mut self.rng, g));
        }
        lines
    }

    fn survival(&mut self) -> Result<(), String> {
        let (w, h) = *pick(&mut self.rng, &[(15, 15), (20, 20), (20, 15), (12, 19)]);
        self.start(w, h)?;
        // Six cells in a row: our stone, three of theirs, the probe TURN, the block.
        let (dx, dy) = *pick(&mut self.rng, &[(1, 0), (0, 1), (1, 1), (1, -1)]);
        let line = loop {
            let x0 = self.rng.range(0, w as u64 - 1) as i64;
            let y0 = self.rng.range(0, h as u64 - 1) as i64;
            let cells: Vec<(i64, i64)> = (0..6).map(|i| (x0 + i * dx, y0 + i * dy)).collect();
            if cells
                .iter()
                .all(|&(x, y)| (0..w).contains(&x) && (0..h).contains(&y))
            {
                break cells;
            }
        };
        let mut g = Game {
            width: w,
            height: h,
            stones: line[..4].to_vec(),
        };
        // Two more own stones anywhere else: three own stones make no four.
        let mut own = vec![line[0]];
        while own.len() < 3 {
            let x = self.rng.range(0, w as u64 - 1) as i64;
            let y = self.rng.range(0, h as u64 - 1) as i64;
            if !line.contains(&(x, y)) && !own.contains(&(x, y)) {
                own.push((x, y));
                g.stones.push((x, y));
            }
        }
        let mut block = vec!["YXBOARD".to_string()];
        block.extend(own.iter().map(|(x, y)| format!("{x},{y},1")));
        block.extend(line[1..4].iter().map(|(x, y)| format!("{x},{y},2")));
        block.push("DONE".into());
        let block: Vec<&str> = block.iter().map(String::as_str).collect();
        self.write_str(&block)?;
        let groups = self.rng.range(5, 40);
        let lines = self.hostile_lines(&g, groups);
        self.write(&lines)?;
        self.settings()?;
        self.sync(false)?;
        let (px, py) = line[4];
        self.write_str(&[&format!("TURN {px},{py}")])?;
        let want = format!("{},{}", line[5].0, line[5].1);
        self.expect_reply(&format!("the block {want} of the four"), |t| t == want)?;
        self.close()
    }

    fn game(&mut self) -> Result<(), String> {
        let w = self.rng.range(10, 20) as i64;
        let h = if chance(&mut self.rng, 70) {
            w
        } else {
            self.rng.range(10, 20) as i64
        };
        self.start(w, h)?;
        let rule = *pick(&mut self.rng, &[0, 1, 4, 8, 9]);
        self.write_str(&[&format!("INFO rule {rule}")])?;
        let mut g = Game {
            width: w,
            height: h,
            stones: Vec::new(),
        };
        let engine_first = chance(&mut self.rng, 50);
        let moves = self.rng.range(3, 25);
        for i in 0..moves {
            if chance(&mut self.rng, 40) {
                let groups = self.rng.range(1, 3);
                let lines = self.hostile_lines(&g, groups);
                self.write(&lines)?;
                self.settings()?;
            }
            if i == 0 && engine_first {
                self.write_str(&["BEGIN"])?;
            } else {
                let (x, y) = self.near_empty(&g).ok_or("the board is full")?;
                g.stones.push((x, y));
                self.write_str(&[&format!("TURN {x},{y}")])?;
            }
            let (x, y) = self.next_move()?;
            if !(0..w).contains(&x) || !(0..h).contains(&y) || g.occupied(x, y) {
                return Err(format!("illegal answer {x},{y}"));
            }
            g.stones.push((x, y));
            if g.stones.len() as i64 + 2 >= w * h {
                break;
            }
        }
        // The end: END or EOF, mid-search or idle, or inside a block.
        match self.rng.range(0, 4) {
            0 | 1 => {
                let (x, y) = self.near_empty(&g).ok_or("the board is full")?;
                self.write_str(&[&format!("TURN {x},{y}")])?;
                self.close()?;
                let (ax, ay) = self.next_move()?;
                if (ax, ay) == (x, y) || g.occupied(ax, ay) {
                    return Err(format!("illegal last answer {ax},{ay}"));
                }
                Ok(())
            }
            2 => self
                .write_str(&["BOARD", "1,1,1", "2,2,2"])
                .and_then(|()| self.close()),
            _ => self.close(),
        }
    }

    fn chaos(&mut self) -> Result<(), String> {
        self.start(15, 15)?;
        let g = Game {
            width: 15,
            height: 15,
            stones: Vec::new(),
        };
        let mut lines = Vec::new();
        for _ in 0..self.rng.range(10, 80) {
            lines.extend(chaos(&mut self.rng, &g));
        }
        // Close any block left open, then the session's limits, then a sync.
        lines.push(b"DONE".to_vec());
        self.write(&lines)?;
        self.settings()?;
        self.sync(true)?;
        self.close()
    }

    /// An empty cell next to a stone (any empty cell on an empty board or when none is).
    fn near_empty(&mut self, g: &Game) -> Option<(i64, i64)> {
        let mut near = Vec::new();
        let mut any = Vec::new();
        for y in 0..g.height {
            for x in 0..g.width {
                if g.occupied(x, y) {
                    continue;
                }
                any.push((x, y));
                if g.stones
                    .iter()
                    .any(|&(sx, sy)| (sx - x).abs() <= 2 && (sy - y).abs() <= 2)
                {
                    near.push((x, y));
                }
            }
        }
        let from = if near.is_empty() { any } else { near };
        (!from.is_empty()).then(|| *pick(&mut self.rng, &from))
    }

    /// END or the end of input, chosen at random.
    fn close(&mut self) -> Result<(), String> {
        if chance(&mut self.rng, 50) {
            let end = *pick(&mut self.rng, &["END", "end", " End\t"]);
            self.write_str(&[end])
        } else {
            self.engine.close_stdin();
            Ok(())
        }
    }

    /// The checks every session ends with: exit, clean lines, no panic, nothing extra.
    fn finish(&mut self, failed: Option<String>) -> Option<String> {
        let mut problems: Vec<String> = failed.into_iter().collect();
        if problems.is_empty() {
            let asked = Instant::now();
            match self.engine.wait_exit(REPLY_TIMEOUT) {
                None => problems.push("the engine did not exit".into()),
                Some(status) => {
                    if let Some(why) = describe_exit(status) {
                        problems.push(why);
                    }
                    let took = asked.elapsed();
                    if took > EXIT_TIMEOUT {
                        problems.push(format!("exit took {} ms", took.as_millis()));
                    }
                }
            }
            let drain = Instant::now() + Duration::from_secs(2);
            while self.engine.pump(drain) {}
            let extra = self.engine.unconsumed_replies();
            if !extra.is_empty() {
                problems.push(format!("replies nobody asked for: {extra:?}"));
            }
        }
        let context = self.engine.context();
        self.engine.kill();
        let format = output_format();
        for line in &self.engine.seen {
            if let Some(why) = line_format_error(&line.text, line.terminated, &format) {
                problems.push(format!("bad output line {:?}: {why}", line.text));
            }
        }
        let stderr = String::from_utf8_lossy(&self.engine.stderr.lock().unwrap()).into_owned();
        if stderr.contains("panicked") {
            problems.push(format!("the engine panicked: {stderr}"));
        }
        // The first few problems, each cut short: one fault tends to repeat.
        let shown: Vec<String> = problems
            .iter()
            .take(MAX_PROBLEMS_SHOWN)
            .map(|p| p.chars().take(300).collect())
            .collect();
        (!problems.is_empty()).then(|| format!("{}\n{context}", shown.join("\n    ")))
    }
}

/// `x,y` as a move, if the line is one.
fn parse_move(text: &str) -> Option<(i64, i64)> {
    let (x, y) = text.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}
