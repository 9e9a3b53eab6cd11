//! A mock of the seeds' game server on loopback: hand-written HTTP/1.1 (one request per
//! connection, `Connection: close`), one game, a simple opponent that takes a five when it
//! has one, blocks the client's five point and otherwise plays the empty cell nearest the
//! centre, a referee of fives, scripted faults, and a log of every request with its time.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub const SIZE: usize = 15;
pub const PASSWORD: &str = "5ebe2294ecd0e0f08eab7690d2a6ee69";
pub const GAME_ID: &str = "7";
pub const CLIENT_ID: u64 = 101;
pub const BOT: &str = "mockbot";
pub const BOT_ID: u64 = 202;

/// Which request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Join,
    Check,
    Play,
    Other,
}

/// A scripted misbehaviour, used once by the next request to its endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this HTTP status and a short HTML body.
    Status(u16),
    /// Answer 200 with a body that is not JSON.
    Malformed,
    /// Answer `is_success: false` (a `play_game` so answered is not applied).
    NotSuccess,
    /// Answer normally, but only after this delay.
    Delay(Duration),
    /// Close the connection without answering.
    Close,
}

/// How the mock writes the fields whose shape the article leaves open.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// `board` as a JSON list of pairs instead of one string.
    pub board_as_list: bool,
    /// `creator`/`opponent`/`current_turn`/`winner` as numeric ids (names in `*_name`).
    pub ids: bool,
    /// `left_time` in milliseconds instead of seconds.
    pub left_time_ms: bool,
    /// Leave `current_turn` and `current_stone` out (the client must use the board).
    pub no_turn_fields: bool,
}

/// One request as the mock saw it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub at: Instant,
    pub endpoint: Endpoint,
    pub query: Vec<(String, String)>,
    pub fault: Option<Fault>,
    /// For `play_game`: why the move was refused, if it was.
    pub refused: Option<String>,
}

impl Logged {
    pub fn param(&self, k: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }
}

/// The game and the script.
pub struct Game {
    pub client: String,
    /// The client's stone: 'x' (black, moves first) or 'o'.
    pub client_stone: char,
    /// Moves so far as (row, column), black first.
    pub moves: Vec<(usize, usize)>,
    pub winner: Option<String>,
    pub win_line: Vec<(usize, usize)>,
    pub style: Style,
    pub faults: VecDeque<(Endpoint, Fault)>,
    pub log: Vec<Logged>,
    /// When the `check_game` count reaches this, the opponent is declared the winner
    /// (as when the server rules on a timeout) before answering.
    pub end_on_check: Option<usize>,
    pub checks: usize,
    pub turn_started: Instant,
    /// The opponent sits down at this `check_game` (0: it is there from the start).
    pub bot_arrives_on_check: usize,
}

impl Game {
    pub fn new(client: &str, client_stone: char) -> Game {
        Game {
            client: client.to_string(),
            client_stone,
            moves: Vec::new(),
            winner: None,
            win_line: Vec::new(),
            style: Style::default(),
            faults: VecDeque::new(),
            log: Vec::new(),
            end_on_check: None,
            checks: 0,
            turn_started: Instant::now(),
            bot_arrives_on_check: 0,
        }
    }

    fn stone_to_move(&self) -> char {
        if self.moves.len().is_multiple_of(2) {
            'x'
        } else {
            'o'
        }
    }

    fn stone_at(&self, cell: (usize, usize)) -> Option<char> {
        self.moves
            .iter()
            .position(|&m| m == cell)
            .map(|i| if i.is_multiple_of(2) { 'x' } else { 'o' })
    }

    /// The five through `cell` for `stone` if it were there.
    fn five_through(&self, cell: (usize, usize), stone: char) -> Option<Vec<(usize, usize)>> {
        for (dr, dc) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)] {
            let mut line = vec![cell];
            for sign in [1, -1] {
                let (mut r, mut c) = (cell.0 as i32, cell.1 as i32);
                loop {
                    r += dr * sign;
                    c += dc * sign;
                    if r < 0 || c < 0 || r >= SIZE as i32 || c >= SIZE as i32 {
                        break;
                    }
                    if self.stone_at((r as usize, c as usize)) != Some(stone) {
                        break;
                    }
                    line.push((r as usize, c as usize));
                }
            }
            if line.len() >= 5 {
                line.sort();
                return Some(line);
            }
        }
        None
    }

    fn name_of(&self, stone: char) -> Value {
        let client = stone == self.client_stone;
        match (self.style.ids, client) {
            (true, true) => json!(CLIENT_ID),
            (true, false) => json!(BOT_ID),
            (false, true) => json!(self.client),
            (false, false) => json!(BOT),
        }
    }

    /// Put a stone and referee.
    fn put(&mut self, cell: (usize, usize)) {
        let stone = self.stone_to_move();
        self.moves.push(cell);
        self.turn_started = Instant::now();
        if let Some(line) = self.five_through(cell, stone) {
            self.winner = Some(match self.name_of(stone) {
                Value::String(s) => s,
                other => other.to_string(),
            });
            self.win_line = line;
        } else if self.moves.len() == SIZE * SIZE {
            self.winner = Some("draw".into());
        }
    }

    /// The opponent's move, when it is its turn.
    fn bot_here(&self) -> bool {
        self.checks >= self.bot_arrives_on_check
    }

    fn bot_moves(&mut self) {
        if !self.bot_here() || self.winner.is_some() || self.stone_to_move() == self.client_stone {
            return;
        }
        let me = self.stone_to_move();
        let them = self.client_stone;
        let empty: Vec<(usize, usize)> = spiral()
            .into_iter()
            .filter(|&c| self.stone_at(c).is_none())
            .collect();
        let pick = empty
            .iter()
            .find(|&&c| self.five_through(c, me).is_some())
            .or_else(|| {
                empty
                    .iter()
                    .find(|&&c| self.five_through(c, them).is_some())
            })
            .or(empty.first())
            .copied();
        if let Some(c) = pick {
            self.put(c);
        }
    }

    fn board_json(&self) -> Value {
        let pairs: Vec<String> = self.moves.iter().map(|&m| coord(m)).collect();
        if self.style.board_as_list {
            json!(pairs)
        } else {
            json!(pairs.concat())
        }
    }

    fn state(&self) -> Value {
        let other = if self.client_stone == 'x' { 'o' } else { 'x' };
        let left = 60.0 - self.turn_started.elapsed().as_secs_f64();
        let mut s = json!({
            "is_success": true,
            "error": "",
            "step": self.moves.len(),
            "creator": self.name_of(self.client_stone),
            "creator_name": self.client,
            "creator_stone": self.client_stone.to_string(),
            "opponent": self.name_of(other),
            "opponent_name": BOT,
            "opponent_stone": other.to_string(),
            "ready": true,
            "current_turn": self.name_of(self.stone_to_move()),
            "current_stone": self.stone_to_move().to_string(),
            "left_time": if self.style.left_time_ms { json!((left * 1000.0) as i64) } else { json!(left.floor() as i64) },
            "winner": self.winner.clone().unwrap_or_else(|| "None".into()),
            "board": self.board_json(),
            "last_step": self.moves.last().map(|&m| coord(m)).unwrap_or_default(),
            "win_step": self.win_line.iter().map(|&m| coord(m)).collect::<String>(),
        });
        if !self.bot_here() {
            let m = s.as_object_mut().expect("an object");
            for k in ["opponent", "opponent_name", "current_turn"] {
                m.insert(k.into(), json!("None"));
            }
            m.insert("ready".into(), json!(false));
        }
        if self.style.no_turn_fields {
            let m = s.as_object_mut().expect("an object");
            m.remove("current_turn");
            m.remove("current_stone");
        }
        s
    }

    /// Handle one request: the status and body, before any fault is applied.
    fn answer(
        &mut self,
        endpoint: Endpoint,
        query: &[(String, String)],
    ) -> (u16, Value, Option<String>) {
        let param = |k: &str| {
            query
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let fail = |why: &str| json!({"is_success": false, "error": why});
        match endpoint {
            Endpoint::Join => {
                if param("user") != Some(&self.client) || param("password") != Some(PASSWORD) {
                    return (200, fail("wrong user or password"), None);
                }
                self.turn_started = Instant::now();
                (
                    200,
                    json!({"is_success": true, "game_id": GAME_ID.parse::<u64>().unwrap()}),
                    None,
                )
            }
            Endpoint::Check => {
                self.checks += 1;
                if self.end_on_check == Some(self.checks) && self.winner.is_none() {
                    self.winner = Some(BOT.into());
                }
                self.bot_moves();
                (200, self.state(), None)
            }
            Endpoint::Play => {
                let refuse = |why: &str| (200, fail(why), Some(why.to_string()));
                if param("user") != Some(&self.client) || param("password") != Some(PASSWORD) {
                    return refuse("wrong user or password");
                }
                if self.winner.is_some() {
                    return refuse("the game is over");
                }
                if self.stone_to_move() != self.client_stone {
                    return refuse("not your turn");
                }
                let Some(cell) = param("coord").and_then(parse_coord) else {
                    return refuse("bad coord");
                };
                if self.stone_at(cell).is_some() {
                    return refuse("occupied");
                }
                self.put(cell);
                (200, json!({"is_success": true}), None)
            }
            Endpoint::Other => (
                404,
                json!({"is_success": false, "error": "no such page"}),
                None,
            ),
        }
    }
}

/// The cells from the centre outwards (ring by ring, each ring in board order).
fn spiral() -> Vec<(usize, usize)> {
    let mut cells: Vec<(usize, usize)> = (0..SIZE)
        .flat_map(|r| (0..SIZE).map(move |c| (r, c)))
        .collect();
    let centre = (SIZE / 2) as i32;
    cells.sort_by_key(|&(r, c)| {
        (
            (r as i32 - centre).abs().max((c as i32 - centre).abs()),
            r,
            c,
        )
    });
    cells
}

/// (row, column) as the server's two letters.
pub fn coord((r, c): (usize, usize)) -> String {
    format!("{}{}", (b'a' + r as u8) as char, (b'a' + c as u8) as char)
}

pub fn parse_coord(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let r = b[0].checked_sub(b'a')? as usize;
    let c = b[1].checked_sub(b'a')? as usize;
    (r < SIZE && c < SIZE).then_some((r, c))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'+' {
            out.push(b' ');
            i += 1;
            continue;
        }
        if b[i] == b'%' && i + 3 <= b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The running mock.
pub struct Mock {
    pub url: String,
    pub game: Arc<Mutex<Game>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl Mock {
    /// The mock on a free loopback port.
    pub fn start(game: Game) -> Mock {
        Mock::start_on(game, 0)
    }

    /// The mock on this loopback port (0: any free one).
    pub fn start_on(game: Game, port: u16) -> Mock {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind a loopback port");
        let port = listener.local_addr().expect("local address").port();
        let game = Arc::new(Mutex::new(game));
        let stop = Arc::new(AtomicBool::new(false));
        let (g, s) = (game.clone(), stop.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                let at = Instant::now();
                if s.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(stream) = conn else { continue };
                let g = g.clone();
                thread::spawn(move || handle(stream, at, &g));
            }
        });
        Mock {
            url: format!("http://127.0.0.1:{port}"),
            game,
            stop,
            port,
        }
    }

    /// The request log.
    pub fn log(&self) -> Vec<Logged> {
        self.game.lock().unwrap().log.clone()
    }

    pub fn requests(&self, e: Endpoint) -> Vec<Logged> {
        self.log().into_iter().filter(|l| l.endpoint == e).collect()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn handle(mut stream: TcpStream, at: Instant, game: &Mutex<Game>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let target = text
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let query: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect();
    let endpoint = if path.starts_with("/join_game") {
        Endpoint::Join
    } else if path == format!("/check_game/{GAME_ID}") {
        Endpoint::Check
    } else if path == format!("/play_game/{GAME_ID}") {
        Endpoint::Play
    } else {
        Endpoint::Other
    };
    let (fault, status, body) = {
        let mut g = game.lock().unwrap();
        let fault = g
            .faults
            .iter()
            .position(|(e, _)| *e == endpoint)
            .and_then(|i| g.faults.remove(i))
            .map(|(_, f)| f);
        let (status, body, refused) = match fault {
            Some(Fault::Status(_)) | Some(Fault::Malformed) | Some(Fault::Close) => {
                (200, Value::Null, None)
            }
            Some(Fault::NotSuccess) => (
                200,
                json!({"is_success": false, "error": "mock says no"}),
                None,
            ),
            _ => g.answer(endpoint, &query),
        };
        g.log.push(Logged {
            at,
            endpoint,
            query,
            fault: fault.clone(),
            refused,
        });
        (fault, status, body)
    };
    let (status, body, content_type) = match &fault {
        Some(Fault::Close) => return,
        Some(Fault::Status(s)) => (
            *s,
            format!("<html><body>{s} mock error</body></html>"),
            "text/html",
        ),
        Some(Fault::Malformed) => (200, "{\"is_success\": tru".to_string(), "application/json"),
        Some(Fault::Delay(d)) => {
            thread::sleep(*d);
            (status, body.to_string(), "application/json")
        }
        _ => (status, body.to_string(), "application/json"),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Mock",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}
