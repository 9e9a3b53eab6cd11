//! The game server's HTTP API (`join_game`, `check_game`, `play_game`) and a tolerant
//! reader of its JSON answers: every field is read in the plausible shapes a server may
//! give it, and what cannot be read becomes a `ServerError`, never a panic.

use super::coords;
use crate::types::{Color, Pos};
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// `left_time` values above this are taken as milliseconds, at most this as seconds (the
/// server allows 60 s a move, so no real count of seconds comes near it).
const LEFT_TIME_SECONDS_MAX: f64 = 120.0;
/// Longest piece of a response body quoted in an error message.
const QUOTE_CHARS: usize = 100;
/// Largest response body read.
const MAX_BODY_BYTES: u64 = 1 << 20;

/// Why a request to the server did not give a usable answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// No connection could be made (refused, unknown host, no route).
    Unreachable(String),
    /// No complete answer within the request timeout.
    Timeout(Duration),
    /// An HTTP status other than 2xx, with the start of the body.
    Http {
        /// The status code.
        status: u16,
        /// The start of the body, quoted.
        body: String,
    },
    /// The answer is not the JSON object expected, or a field cannot be read.
    Malformed(String),
    /// The server answered `is_success` false, with its `error` text.
    Failed(String),
    /// Any other transport failure (connection reset, broken HTTP).
    Transport(String),
    /// The command line or configuration cannot work (e.g. an https URL in a build
    /// without TLS); retrying does not help.
    Config(String),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Unreachable(e) => write!(f, "server unreachable: {e}"),
            ServerError::Timeout(t) => {
                write!(
                    f,
                    "no answer within {} (request timeout)",
                    format_duration(*t)
                )
            }
            ServerError::Http { status, body } if body.is_empty() => write!(f, "HTTP {status}"),
            ServerError::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            ServerError::Malformed(e) => write!(f, "malformed answer: {e}"),
            ServerError::Failed(e) => write!(f, "the server reports failure: {e}"),
            ServerError::Transport(e) => write!(f, "connection failed: {e}"),
            ServerError::Config(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// A duration for messages: milliseconds under a second, else seconds to a tenth.
pub fn format_duration(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// Printable ASCII, cut after `QUOTE_CHARS` characters, for quoting server text.
pub fn quote(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(QUOTE_CHARS)
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect();
    if s.chars().count() > QUOTE_CHARS {
        out.push('…');
    }
    out
}

/// The server, the user and the password to send: one blocking HTTP agent.
pub struct Server {
    base: String,
    user: String,
    password: String,
    timeout: Duration,
    agent: ureq::Agent,
}

impl Server {
    /// A client of the server at `url` (`http://host[:port][/prefix]`). Each request must
    /// be answered completely within `timeout`. The password is sent as given.
    pub fn new(
        url: &str,
        user: &str,
        password: &str,
        timeout: Duration,
    ) -> Result<Server, ServerError> {
        let base = url.trim().trim_end_matches('/').to_string();
        let lower = base.to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err(ServerError::Config(format!(
                "{base}: this build has no TLS; use an http:// URL (or a local TLS-terminating proxy)"
            )));
        }
        let Some(rest) = lower.strip_prefix("http://") else {
            return Err(ServerError::Config(format!(
                "server URL '{}' must start with http://",
                quote(&base)
            )));
        };
        let host = rest.split(['/', '?']).next().unwrap_or("");
        if host.is_empty() {
            return Err(ServerError::Config(format!(
                "server URL '{}' has no host",
                quote(&base)
            )));
        }
        // A proxy from the environment is used, except for a server on this machine.
        let host_name = host.rsplit_once(':').map_or(host, |(h, _)| h);
        let loopback = matches!(host_name, "localhost" | "[::1]") || host_name.starts_with("127.");
        let mut config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(format!("wuzi/{}", env!("CARGO_PKG_VERSION")));
        if loopback {
            config = config.proxy(None);
        }
        Ok(Server {
            base,
            user: user.to_string(),
            password: password.to_string(),
            timeout,
            agent: config.build().into(),
        })
    }

    /// `join_game`: the id of the game the server puts us in.
    pub fn join(&self) -> Result<String, ServerError> {
        let v = self.get(
            "/join_game",
            &[
                ("user", &self.user),
                ("password", &self.password),
                ("data_type", "json"),
            ],
        )?;
        let id = v
            .get("game_id")
            .and_then(scalar_text)
            .ok_or_else(|| ServerError::Malformed("join_game gave no game_id".into()))?;
        check_game_id(&id).map_err(ServerError::Malformed)?;
        Ok(id)
    }

    /// `check_game`: the state of game `id`.
    pub fn check(&self, id: &str) -> Result<GameState, ServerError> {
        let v = self.get(&format!("/check_game/{id}"), &[])?;
        GameState::from_json(&v).map_err(ServerError::Malformed)
    }

    /// `play_game`: our move `p` in game `id`. `Failed` means the server refused it.
    pub fn play(&self, id: &str, p: Pos) -> Result<(), ServerError> {
        let coord = coords::format(p);
        self.get(
            &format!("/play_game/{id}"),
            &[
                ("user", &self.user),
                ("password", &self.password),
                ("coord", &coord),
            ],
        )?;
        Ok(())
    }

    /// GET `path` with `query`; the answer must be a JSON object without `is_success`
    /// false.
    fn get(&self, path: &str, query: &[(&str, &str)]) -> Result<Map<String, Value>, ServerError> {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        for (k, v) in query {
            req = req.query(k, v);
        }
        let mut resp = req.call().map_err(|e| self.transport_error(e))?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| self.transport_error(e))?;
        if !(200..300).contains(&status) {
            return Err(ServerError::Http {
                status,
                body: quote(body.trim()),
            });
        }
        let value: Value = serde_json::from_str(&body).map_err(|e| {
            ServerError::Malformed(format!("not JSON ({e}): '{}'", quote(body.trim())))
        })?;
        let Value::Object(map) = value else {
            return Err(ServerError::Malformed(format!(
                "expected a JSON object, got '{}'",
                quote(body.trim())
            )));
        };
        if map.get("is_success").and_then(truth) == Some(false) {
            let why = map
                .get("error")
                .and_then(scalar_text)
                .unwrap_or_else(|| "no reason given".into());
            return Err(ServerError::Failed(quote(&why)));
        }
        Ok(map)
    }

    fn transport_error(&self, e: ureq::Error) -> ServerError {
        use std::io::ErrorKind;
        match e {
            ureq::Error::Timeout(_) => ServerError::Timeout(self.timeout),
            ureq::Error::HostNotFound => ServerError::Unreachable("host not found".into()),
            ureq::Error::ConnectionFailed => ServerError::Unreachable("connection failed".into()),
            ureq::Error::Io(io) => match io.kind() {
                ErrorKind::TimedOut | ErrorKind::WouldBlock => ServerError::Timeout(self.timeout),
                ErrorKind::ConnectionRefused
                | ErrorKind::NotFound
                | ErrorKind::AddrNotAvailable
                | ErrorKind::HostUnreachable
                | ErrorKind::NetworkUnreachable => ServerError::Unreachable(io.to_string()),
                _ => ServerError::Transport(io.to_string()),
            },
            ureq::Error::TlsRequired | ureq::Error::BadUri(_) => ServerError::Config(e.to_string()),
            other => ServerError::Transport(other.to_string()),
        }
    }
}

/// A game id goes into the URL path: letters, digits, `-` and `_` only.
pub fn check_game_id(id: &str) -> Result<(), String> {
    if !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        Ok(())
    } else {
        Err(format!(
            "game id '{}' is not letters, digits, '-' or '_'",
            quote(id)
        ))
    }
}

/// A scalar as text: strings trimmed, numbers and booleans written out; `None` for null,
/// empty and the server's `"None"`.
fn scalar_text(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty() && !s.eq_ignore_ascii_case("none") && !s.eq_ignore_ascii_case("null"))
        .then_some(s)
}

/// A boolean given as `true`, `1`, `"true"`, `"True"`, `"yes"`, `"1"` (or the opposites).
fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" | "" | "none" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A stone: `x` (black) or `o` (white), any case; also `black`/`white`, `b`/`w`, 1/2.
pub fn stone(s: &str) -> Option<Color> {
    match s.trim().to_ascii_lowercase().as_str() {
        "x" | "black" | "b" | "1" => Some(Color::Black),
        "o" | "white" | "w" | "2" => Some(Color::White),
        _ => None,
    }
}

/// A number, or a number in a string (an `s` or `ms` after it allowed).
fn number(v: &Value) -> Option<(f64, Option<&'static str>)> {
    match v {
        Value::Number(n) => n.as_f64().map(|x| (x, None)),
        Value::String(s) => {
            let t = s.trim().to_ascii_lowercase();
            if let Some(ms) = t.strip_suffix("ms") {
                ms.trim().parse().ok().map(|x| (x, Some("ms")))
            } else if let Some(sec) = t.strip_suffix('s') {
                sec.trim().parse().ok().map(|x| (x, Some("s")))
            } else {
                t.parse().ok().map(|x| (x, None))
            }
        }
        _ => None,
    }
}

/// `left_time`: seconds, or milliseconds when above `LEFT_TIME_SECONDS_MAX` (or marked
/// `ms`); negative counts as none left.
fn left_time(v: &Value) -> Option<Duration> {
    let (x, unit) = number(v)?;
    if !x.is_finite() {
        return None;
    }
    let secs = match unit {
        Some("ms") => x / 1000.0,
        Some(_) => x,
        None if x > LEFT_TIME_SECONDS_MAX => x / 1000.0,
        None => x,
    };
    Some(Duration::from_secs_f64(secs.max(0.0)))
}

/// A move list: one string of letter pairs, or an array whose strings (nested arrays
/// too) together spell the pairs (`["hh","hi"]`, `[["h","h"],["h","i"]]`).
fn move_list(v: &Value) -> Result<Vec<Pos>, String> {
    fn letters(v: &Value, out: &mut String) -> Result<(), String> {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push(' ');
                Ok(())
            }
            Value::Array(items) => items.iter().try_for_each(|i| letters(i, out)),
            other => Err(format!("'{}' is not a move", quote(&other.to_string()))),
        }
    }
    match v {
        Value::Null => Ok(Vec::new()),
        Value::String(_) if scalar_text(v).is_none() => Ok(Vec::new()),
        _ => {
            let mut text = String::new();
            letters(v, &mut text)?;
            coords::parse_list(&text).map_err(|e| e.to_string())
        }
    }
}

/// One player's fields in the state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerInfo {
    /// `creator` / `opponent`: a user name or an id.
    pub id: Option<String>,
    /// `creator_name` / `opponent_name`.
    pub name: Option<String>,
    /// `creator_stone` / `opponent_stone`.
    pub stone: Option<Color>,
}

impl PlayerInfo {
    fn read(map: &Map<String, Value>, role: &str) -> PlayerInfo {
        let text = |k: String| map.get(&k).and_then(scalar_text);
        PlayerInfo {
            id: text(role.to_string()),
            name: text(format!("{role}_name")),
            stone: text(format!("{role}_stone")).as_deref().and_then(stone),
        }
    }

    /// Is this player `who` (by id or name, ignoring case)?
    pub fn is(&self, who: &str) -> bool {
        let who = who.trim();
        [&self.id, &self.name]
            .into_iter()
            .flatten()
            .any(|s| s.eq_ignore_ascii_case(who))
    }

    /// The name to show: the name, else the id.
    pub fn label(&self) -> Option<&str> {
        self.name.as_deref().or(self.id.as_deref())
    }

    fn present(&self) -> bool {
        self.id.is_some() || self.name.is_some()
    }
}

/// The state `check_game` gives, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameState {
    /// `step`: the number of moves, as the server counts them (not relied on).
    pub step: Option<u64>,
    /// `creator`, `creator_name`, `creator_stone`.
    pub creator: PlayerInfo,
    /// `opponent`, `opponent_name`, `opponent_stone`.
    pub opponent: PlayerInfo,
    /// `ready`: both players are there.
    pub ready: Option<bool>,
    /// Whose turn: a user name or id (or a stone letter).
    pub current_turn: Option<String>,
    /// `current_stone`: the stone to move.
    pub current_stone: Option<Color>,
    /// Time left for the move being played, as read when the state was fetched.
    pub left_time: Option<Duration>,
    /// `None` while nobody has won (`"None"`, null, empty or absent).
    pub winner: Option<String>,
    /// Every move so far, black first, alternating.
    pub board: Vec<Pos>,
    /// `last_step`: the last move (not relied on: the board is).
    pub last_step: Option<Pos>,
    /// The winning line, if the server gives one it can be read.
    pub win_step: Option<Vec<Pos>>,
}

/// Which player we are in a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// Our stone.
    pub stone: Color,
    /// Our fields.
    pub me: PlayerInfo,
    /// The opponent's fields.
    pub them: PlayerInfo,
}

/// How a game ended, from our side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The winner is us.
    Won,
    /// The winner is the opponent.
    Lost,
    /// `winner` says draw (or the board filled up).
    Draw,
    /// A `winner` value that names neither player.
    Other(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Won => write!(f, "won"),
            Outcome::Lost => write!(f, "lost"),
            Outcome::Draw => write!(f, "draw"),
            Outcome::Other(w) => write!(f, "game over, winner '{}'", quote(w)),
        }
    }
}

impl GameState {
    /// Read a `check_game` answer. Fields that are absent stay `None`; a `board` or `step`
    /// that cannot be read, or a board with a cell played twice, is an error.
    pub fn from_json(map: &Map<String, Value>) -> Result<GameState, String> {
        let board = match map.get("board") {
            Some(v) => move_list(v).map_err(|e| format!("board: {e}"))?,
            None => Vec::new(),
        };
        for (i, p) in board.iter().enumerate() {
            if board[..i].contains(p) {
                return Err(format!("board: {} is played twice", coords::format(*p)));
            }
        }
        let step = match map.get("step") {
            None | Some(Value::Null) => None,
            Some(v) => match number(v) {
                Some((x, None)) if x >= 0.0 && x.fract() == 0.0 => Some(x as u64),
                _ => match scalar_text(v) {
                    None => None,
                    Some(t) => return Err(format!("step '{}' is not a count", quote(&t))),
                },
            },
        };
        if board.is_empty() && step.is_some_and(|s| s > 1) && map.get("board").is_none() {
            return Err("no board in a game already under way".into());
        }
        let text = |k: &str| map.get(k).and_then(scalar_text);
        Ok(GameState {
            step,
            creator: PlayerInfo::read(map, "creator"),
            opponent: PlayerInfo::read(map, "opponent"),
            ready: map.get("ready").and_then(truth),
            current_turn: text("current_turn"),
            current_stone: text("current_stone").as_deref().and_then(stone),
            left_time: map.get("left_time").and_then(left_time),
            winner: text("winner"),
            board,
            last_step: text("last_step").and_then(|s| coords::parse(&s).ok()),
            win_step: map
                .get("win_step")
                .and_then(|v| move_list(v).ok())
                .filter(|l| !l.is_empty()),
        })
    }

    /// Can play start: `ready` if given, else both players present.
    pub fn is_ready(&self) -> bool {
        self.ready
            .unwrap_or(self.creator.present() && self.opponent.present())
    }

    /// The colour to move by the board: black after an even number of moves.
    pub fn parity_to_move(&self) -> Color {
        if self.board.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Our seat, when `user` is the creator or the opponent. Our stone is our `_stone`
    /// field, else the other of the opponent's, else read from `current_turn` and the
    /// board's parity.
    pub fn seat(&self, user: &str) -> Option<Seat> {
        let (me, them) = if self.creator.is(user) {
            (&self.creator, &self.opponent)
        } else if self.opponent.is(user) {
            (&self.opponent, &self.creator)
        } else {
            return None;
        };
        let stone = me.stone.or(them.stone.map(Color::opp)).or_else(|| {
            let turn = self.current_turn.as_deref()?;
            let to_move = self.parity_to_move();
            if me.is(turn) {
                Some(to_move)
            } else if them.is(turn) {
                Some(to_move.opp())
            } else {
                None
            }
        })?;
        Some(Seat {
            stone,
            me: me.clone(),
            them: them.clone(),
        })
    }

    /// Is it our turn, as the server's `current_turn` (a name, an id or a stone letter)
    /// or else `current_stone` says? `None` when neither says.
    pub fn server_says_our_turn(&self, seat: &Seat) -> Option<bool> {
        if let Some(t) = self.current_turn.as_deref() {
            if seat.me.is(t) {
                return Some(true);
            }
            if seat.them.is(t) {
                return Some(false);
            }
            if let Some(c) = stone(t) {
                return Some(c == seat.stone);
            }
        }
        self.current_stone.map(|c| c == seat.stone)
    }

    /// The result once `winner` is set: our id or name, or our stone, is a win; the
    /// opponent's a loss; `draw`/`tie` a draw.
    pub fn outcome(&self, seat: &Seat) -> Option<Outcome> {
        let w = self.winner.as_deref()?;
        Some(if seat.me.is(w) {
            Outcome::Won
        } else if seat.them.is(w) {
            Outcome::Lost
        } else if let Some(c) = stone(w) {
            if c == seat.stone {
                Outcome::Won
            } else {
                Outcome::Lost
            }
        } else if ["draw", "tie", "both", "even"].contains(&w.to_ascii_lowercase().as_str()) {
            Outcome::Draw
        } else {
            Outcome::Other(w.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<GameState, String> {
        match v {
            Value::Object(m) => GameState::from_json(&m),
            _ => unreachable!(),
        }
    }

    fn article_state() -> Value {
        json!({
            "is_success": true, "error": "", "step": 3,
            "creator": "alice", "creator_name": "alice", "creator_stone": "x",
            "opponent": "bob", "opponent_name": "bob", "opponent_stone": "o",
            "ready": true, "current_turn": "bob", "current_stone": "o",
            "left_time": 57, "winner": "None", "board": "hhhigg", "last_step": "gg",
            "win_step": ""
        })
    }

    #[test]
    fn reads_the_article_state() {
        let s = read(article_state()).unwrap();
        assert_eq!(s.step, Some(3));
        assert_eq!(
            s.board,
            vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(6, 6)]
        );
        assert_eq!(s.last_step, Some(Pos::new(6, 6)));
        assert_eq!(s.left_time, Some(Duration::from_secs(57)));
        assert_eq!(s.winner, None);
        assert_eq!(s.win_step, None);
        assert!(s.is_ready());
        let me = s.seat("alice").unwrap();
        assert_eq!(me.stone, Color::Black);
        assert_eq!(me.them.label(), Some("bob"));
        assert_eq!(s.server_says_our_turn(&me), Some(false));
        let bob = s.seat("BOB").unwrap();
        assert_eq!(bob.stone, Color::White);
        assert_eq!(s.server_says_our_turn(&bob), Some(true));
        assert_eq!(s.seat("carol"), None);
        assert_eq!(s.outcome(&me), None);
    }

    #[test]
    fn board_variants() {
        let want = vec![Pos::new(7, 7), Pos::new(8, 7)];
        for board in [
            json!("hhhi"),
            json!("hh,hi"),
            json!("hh hi"),
            json!("HHHI"),
            json!(["hh", "hi"]),
            json!([["h", "h"], ["h", "i"]]),
        ] {
            let mut v = article_state();
            v["board"] = board.clone();
            assert_eq!(read(v).unwrap().board, want, "{board}");
        }
        for empty in [json!(""), json!(null), json!([]), json!("None")] {
            let mut v = article_state();
            v["board"] = empty.clone();
            v["step"] = json!(0);
            assert_eq!(read(v).unwrap().board, vec![], "{empty}");
        }
        for bad in [
            json!("hhh"),
            json!("hhzz"),
            json!([7, 7]),
            json!({"a": 1}),
            json!("hhhh"),
        ] {
            let mut v = article_state();
            v["board"] = bad.clone();
            assert!(read(v).is_err(), "{bad}");
        }
        let mut v = article_state();
        v.as_object_mut().unwrap().remove("board");
        assert!(read(v).is_err(), "a game under way needs its board");
    }

    #[test]
    fn turn_by_name_id_or_stone() {
        // Ids in creator/opponent, names in *_name; current_turn an id.
        let mut v = article_state();
        v["creator"] = json!(17);
        v["opponent"] = json!(23);
        v["current_turn"] = json!(17);
        let s = read(v.clone()).unwrap();
        let me = s.seat("alice").unwrap();
        assert_eq!(s.server_says_our_turn(&me), Some(true));
        // Or a numeric string.
        v["current_turn"] = json!("23");
        assert_eq!(
            read(v.clone()).unwrap().server_says_our_turn(&me),
            Some(false)
        );
        // A stone letter.
        v["current_turn"] = json!("x");
        assert_eq!(
            read(v.clone()).unwrap().server_says_our_turn(&me),
            Some(true)
        );
        // Nothing usable in current_turn: current_stone decides.
        v["current_turn"] = json!("None");
        v["current_stone"] = json!("o");
        assert_eq!(
            read(v.clone()).unwrap().server_says_our_turn(&me),
            Some(false)
        );
        v["current_stone"] = json!(null);
        assert_eq!(read(v).unwrap().server_says_our_turn(&me), None);
    }

    #[test]
    fn stone_from_turn_when_no_stone_fields() {
        let mut v = article_state();
        for k in ["creator_stone", "opponent_stone", "current_stone"] {
            v.as_object_mut().unwrap().remove(k);
        }
        // Three moves on the board: white to move, and it is bob's turn.
        let s = read(v).unwrap();
        assert_eq!(s.seat("bob").unwrap().stone, Color::White);
        assert_eq!(s.seat("alice").unwrap().stone, Color::Black);
        // Stones as words.
        let mut v = article_state();
        v["creator_stone"] = json!("White");
        v["opponent_stone"] = json!("black");
        assert_eq!(read(v).unwrap().seat("alice").unwrap().stone, Color::White);
    }

    #[test]
    fn left_time_variants() {
        let cases = [
            (json!(57), Some(57_000)),
            (json!(42.5), Some(42_500)),
            (json!("30"), Some(30_000)),
            (json!("30s"), Some(30_000)),
            (json!(45000), Some(45_000)),
            (json!("1500ms"), Some(1_500)),
            (json!(-3), Some(0)),
            (json!(null), None),
            (json!("soon"), None),
        ];
        for (lt, want) in cases {
            let mut v = article_state();
            v["left_time"] = lt.clone();
            let got = read(v).unwrap().left_time.map(|d| d.as_millis() as u64);
            assert_eq!(got, want, "{lt}");
        }
    }

    #[test]
    fn winners_and_winning_lines() {
        let mut v = article_state();
        v["winner"] = json!("alice");
        v["win_step"] = json!("hahbhchdhe");
        let s = read(v.clone()).unwrap();
        let me = s.seat("alice").unwrap();
        assert_eq!(s.outcome(&me), Some(Outcome::Won));
        assert_eq!(s.win_step.as_ref().map(|l| l.len()), Some(5));
        v["winner"] = json!("o");
        assert_eq!(read(v.clone()).unwrap().outcome(&me), Some(Outcome::Lost));
        // The winner as the opponent's id.
        v["winner"] = json!(23);
        v["opponent"] = json!(23);
        let s = read(v.clone()).unwrap();
        assert_eq!(s.outcome(&s.seat("alice").unwrap()), Some(Outcome::Lost));
        v["winner"] = json!("Draw");
        assert_eq!(read(v.clone()).unwrap().outcome(&me), Some(Outcome::Draw));
        v["winner"] = json!("referee");
        assert_eq!(
            read(v.clone()).unwrap().outcome(&me),
            Some(Outcome::Other("referee".into()))
        );
        for none in [json!("None"), json!(null), json!(""), json!("none")] {
            v["winner"] = none;
            assert_eq!(read(v.clone()).unwrap().outcome(&me), None);
        }
        v["win_step"] = json!(["ha", "hb", "hc", "hd", "he"]);
        assert_eq!(read(v.clone()).unwrap().win_step.map(|l| l.len()), Some(5));
        v["win_step"] = json!("garbage!");
        assert_eq!(
            read(v).unwrap().win_step,
            None,
            "an unreadable line is left out"
        );
    }

    #[test]
    fn readiness_and_bad_fields() {
        let mut v = article_state();
        v["ready"] = json!("False");
        assert!(!read(v.clone()).unwrap().is_ready());
        v["ready"] = json!(1);
        assert!(read(v.clone()).unwrap().is_ready());
        v.as_object_mut().unwrap().remove("ready");
        assert!(
            read(v.clone()).unwrap().is_ready(),
            "both players are there"
        );
        v["opponent"] = json!("None");
        v["opponent_name"] = json!(null);
        assert!(!read(v.clone()).unwrap().is_ready());
        v["step"] = json!("three");
        assert!(read(v.clone()).is_err());
        v["step"] = json!("3");
        assert_eq!(read(v).unwrap().step, Some(3));
    }

    #[test]
    fn urls_and_ids() {
        let t = Duration::from_secs(1);
        assert!(Server::new("http://127.0.0.1:8000/", "u", "p", t).is_ok());
        assert!(Server::new("http://example.org/gomoku", "u", "p", t).is_ok());
        assert!(matches!(
            Server::new("https://example.org", "u", "p", t),
            Err(ServerError::Config(_))
        ));
        assert!(Server::new("example.org", "u", "p", t).is_err());
        assert!(Server::new("http://", "u", "p", t).is_err());
        assert!(check_game_id("123").is_ok());
        assert!(check_game_id("ab-9_x").is_ok());
        assert!(check_game_id("1/../2").is_err());
        assert!(check_game_id("").is_err());
        assert_eq!(quote("a\nb"), "a?b");
    }
}
