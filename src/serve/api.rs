//! The web board's requests, answered without any network: each request (method, path,
//! query, `Host`, body) gets a response (status, type, body), or the live stream of a
//! session's analysis. The guards come first: the `Host` header must name this server
//! (no DNS rebinding), the address's token must be given, bodies are capped.

use super::session::{Session, Snapshot, ANALYSIS_LINES, MAX_TIME_SECS};
use crate::play::screen::cell_name;
use crate::records::Format;
use crate::types::{winrate, Color, Pos};
use crate::value_text::{self, verdict, Side};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The largest request body read (a record of a 32×32 board is far smaller).
pub const MAX_BODY: usize = 256 << 10;
/// Sessions kept at once; the one longest unseen makes way for a new one.
const MAX_SESSIONS: usize = 16;
/// The deepest review a page may ask for.
const MAX_REVIEW_DEPTH: i64 = 12;

/// A request, as the server read it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub method: String,
    /// The path, without the query.
    pub path: String,
    pub query: HashMap<String, String>,
    /// The `Host` header.
    pub host: Option<String>,
    pub body: Vec<u8>,
}

impl Request {
    /// Splits `url` (`/api/state?session=x`) into the path and the decoded query.
    pub fn new(method: &str, url: &str, host: Option<&str>, body: Vec<u8>) -> Request {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let query = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (decode(k), decode(v))
            })
            .collect();
        Request {
            method: method.to_ascii_uppercase(),
            path: path.to_string(),
            query,
            host: host.map(str::to_string),
            body,
        }
    }
}

/// `%xx` and `+` decoded; a broken escape is kept as it is.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'+', _, _) => out.push(b' '),
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 2;
            }
            (b, _, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the server sends back.
pub enum Response {
    Body {
        status: u16,
        content_type: &'static str,
        body: Vec<u8>,
        /// A file name to save the body as (`Content-Disposition`).
        download: Option<String>,
    },
    /// The live stream of a session's analysis (server-sent events).
    Events(Arc<Mutex<Session>>),
}

impl Response {
    fn json(status: u16, v: Json) -> Response {
        Response::Body {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
            download: None,
        }
    }

    fn error(status: u16, why: impl Into<String>) -> Response {
        Response::json(status, json!({ "error": why.into() }))
    }

    /// The status.
    #[cfg(test)]
    fn status(&self) -> u16 {
        match self {
            Response::Body { status, .. } => *status,
            Response::Events(_) => 200,
        }
    }

    /// The body as JSON (`Null` for anything else).
    #[cfg(test)]
    fn body_json(&self) -> Json {
        match self {
            Response::Body { body, .. } => serde_json::from_slice(body).unwrap_or(Json::Null),
            Response::Events(_) => Json::Null,
        }
    }
}

/// The web board's state: its token, the names it answers to, the sessions.
pub struct App {
    token: String,
    /// `Host` header values accepted, besides IP literals when listening beyond loopback.
    hosts: Vec<String>,
    /// Accept any IP literal as `Host` (listening on a non-loopback address).
    any_ip_host: bool,
    threads: usize,
    sessions: Mutex<HashMap<String, Arc<Mutex<Session>>>>,
    page: String,
}

impl App {
    /// The app of a server on `port`; `public` when it listens beyond loopback.
    pub fn new(token: String, port: u16, host: &str, public: bool, threads: usize) -> App {
        let mut hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        hosts.push(format!("{host}:{port}"));
        App {
            token,
            hosts,
            any_ip_host: public,
            threads,
            sessions: Mutex::new(HashMap::new()),
            page: super::page(),
        }
    }

    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host.map(str::to_ascii_lowercase) else {
            return false;
        };
        if self.hosts.contains(&host) {
            return true;
        }
        // An address typed as digits cannot be rebound by a DNS name.
        let name = host.rsplit_once(':').map_or(host.as_str(), |(n, _)| n);
        let name = name.trim_start_matches('[').trim_end_matches(']');
        self.any_ip_host && name.parse::<std::net::IpAddr>().is_ok()
    }

    /// Answers one request.
    pub fn handle(&self, req: &Request) -> Response {
        if !self.host_allowed(req.host.as_deref()) {
            return Response::error(
                403,
                "this server answers only to its own address (Host header)",
            );
        }
        if req.query.get("token") != Some(&self.token) {
            return Response::error(
                403,
                "the address needs its token: open the address the server printed",
            );
        }
        if req.body.len() > MAX_BODY {
            return Response::error(413, format!("requests are limited to {MAX_BODY} bytes"));
        }
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/") => Response::Body {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: self.page.clone().into_bytes(),
                download: None,
            },
            ("POST", "/api/session") => self.open_session(),
            ("GET", "/api/state") => self.with_session(req, &Json::Null, |_, _| Ok(())),
            ("GET", "/api/events") => match self.session(req, &Json::Null) {
                Ok(s) => Response::Events(s),
                Err(r) => r,
            },
            ("GET", "/api/save") => self.save(req),
            ("POST", path) if path.starts_with("/api/") => {
                let body: Json = match serde_json::from_slice(&req.body) {
                    Ok(Json::Object(o)) => Json::Object(o),
                    _ => return Response::error(400, "the request body must be a JSON object"),
                };
                self.action(req, &path[5..], &body)
            }
            (_, path) if path == "/" || path.starts_with("/api/") => {
                Response::error(405, format!("{} is not a method of {path}", req.method))
            }
            (_, path) => Response::error(404, format!("nothing at {path}")),
        }
    }

    fn open_session(&self) -> Response {
        let id = super::random_hex();
        let session = Arc::new(Mutex::new(Session::new(self.threads)));
        let mut all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        while all.len() >= MAX_SESSIONS {
            let oldest = all
                .iter()
                .min_by_key(|(_, s)| {
                    s.lock()
                        .map(|s| s.last_seen)
                        .unwrap_or_else(|_| Instant::now())
                })
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => all.remove(&k),
                None => break,
            };
        }
        all.insert(id.clone(), session.clone());
        drop(all);
        let s = session.lock().unwrap_or_else(|e| e.into_inner());
        let mut state = state(&s);
        state["session"] = json!(id);
        Response::json(200, state)
    }

    /// The session a request names (`session` in the body or the query).
    fn session(&self, req: &Request, body: &Json) -> Result<Arc<Mutex<Session>>, Response> {
        let id = body
            .get("session")
            .and_then(Json::as_str)
            .or_else(|| req.query.get("session").map(String::as_str));
        let Some(id) = id else {
            return Err(Response::error(400, "no session given"));
        };
        let all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        all.get(id).cloned().ok_or_else(|| {
            Response::error(
                404,
                "no such session (the server restarted, or the page was closed): reload the page",
            )
        })
    }

    /// Runs `f` on the session, then answers with its state, or with `f`'s error and the
    /// state it left (unchanged).
    fn with_session(
        &self,
        req: &Request,
        body: &Json,
        f: impl FnOnce(&mut Session, &Json) -> Result<(), String>,
    ) -> Response {
        let session = match self.session(req, body) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
        s.last_seen = Instant::now();
        let result = f(&mut s, body);
        let mut st = state(&s);
        match result {
            Ok(()) => Response::json(200, st),
            Err(why) => {
                st["error"] = json!(why);
                Response::json(400, st)
            }
        }
    }

    fn action(&self, req: &Request, name: &str, body: &Json) -> Response {
        match name {
            "new" => self.with_session(req, body, new_game),
            "play" => self.with_session(req, body, |s, b| {
                let cell = text(b, "cell")?;
                if s.analysing() {
                    s.stop_analysis();
                    let r = s.play_for_study(cell);
                    s.start_analysis()?;
                    r
                } else {
                    s.play(cell)
                }
            }),
            "undo" => self.with_session(req, body, |s, _| s.undo()),
            "redo" => self.with_session(req, body, |s, _| s.redo()),
            "hint" => self.with_session(req, body, |s, _| s.hint()),
            "swap" => self.with_session(req, body, |s, _| s.swap()),
            "goto" => self.with_session(req, body, |s, b| {
                let n = b
                    .get("ply")
                    .and_then(Json::as_u64)
                    .ok_or("ply: the number of moves to show")?;
                s.goto(n as usize)
            }),
            "analysis" => self.with_session(req, body, |s, b| {
                match b.get("on").and_then(Json::as_bool) {
                    Some(true) => s.start_analysis(),
                    Some(false) => {
                        s.stop_analysis();
                        Ok(())
                    }
                    None => Err("on: true or false".into()),
                }
            }),
            "load" => self.with_session(req, body, |s, b| {
                let name = b.get("name").and_then(Json::as_str);
                s.load(text(b, "text")?, name).map(drop)
            }),
            "review" => self.review(req, body),
            "close" => {
                if let Some(id) = body.get("session").and_then(Json::as_str) {
                    let gone = self
                        .sessions
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(id);
                    if let Some(s) = gone {
                        s.lock().unwrap_or_else(|e| e.into_inner()).stop_analysis();
                    }
                }
                Response::json(200, json!({ "closed": true }))
            }
            other => Response::error(404, format!("no request /api/{other}")),
        }
    }

    fn review(&self, req: &Request, body: &Json) -> Response {
        let session = match self.session(req, body) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let depth = body.get("depth").and_then(Json::as_i64).unwrap_or(6);
        if !(1..=MAX_REVIEW_DEPTH).contains(&depth) {
            return Response::error(400, format!("depth: from 1 to {MAX_REVIEW_DEPTH}"));
        }
        let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
        s.last_seen = Instant::now();
        if s.line.is_empty() {
            return Response::error(400, "no moves to review");
        }
        match s.review(depth as i32) {
            Ok(rows) => Response::json(200, json!({ "depth": depth, "rows": review_rows(&rows) })),
            Err(why) => Response::error(400, why),
        }
    }

    fn save(&self, req: &Request) -> Response {
        let session = match self.session(req, &Json::Null) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let (format, ext) = match req.query.get("format").map(String::as_str) {
            Some("psq") => (Format::Psq, "psq"),
            Some("sgf") => (Format::Sgf, "sgf"),
            Some("sav") => (Format::Sav, "sav"),
            Some("pos") => (Format::PosString, "txt"),
            _ => return Response::error(400, "format: psq, sgf, sav or pos"),
        };
        let s = session.lock().unwrap_or_else(|e| e.into_inner());
        match s.save(format) {
            Ok(text) => Response::Body {
                status: 200,
                content_type: "text/plain; charset=utf-8",
                body: text.into_bytes(),
                download: Some(format!("wuzi-game.{ext}")),
            },
            Err(why) => Response::error(400, why),
        }
    }
}

/// A string field of a request body.
fn text<'a>(body: &'a Json, key: &str) -> Result<&'a str, String> {
    body.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| format!("{key}: a string"))
}

fn new_game(s: &mut Session, b: &Json) -> Result<(), String> {
    let rule = match b.get("rule") {
        None => s.rule,
        Some(Json::Number(n)) => crate::cli::rule(&n.to_string())?,
        Some(Json::String(r)) => crate::cli::rule(r)?,
        Some(_) => return Err("rule: a number or a name".into()),
    };
    let size = match b.get("size") {
        None => (s.width, s.height),
        Some(Json::Number(n)) => crate::cli::size(&n.to_string())?,
        Some(Json::String(v)) => crate::cli::size(v)?,
        Some(_) => return Err("size: N or WxH".into()),
    };
    let human = match b.get("human").and_then(Json::as_str) {
        None => s.human,
        Some("black") => Color::Black,
        Some("white") => Color::White,
        Some(other) => return Err(format!("human: black or white, not {other}")),
    };
    let time = match b.get("time") {
        None => s.time,
        Some(t) => match t.as_f64() {
            Some(t) if t > 0.0 && t <= MAX_TIME_SECS => Duration::from_secs_f64(t),
            _ => return Err(format!("time: seconds above 0, up to {MAX_TIME_SECS}")),
        },
    };
    s.new_game(rule, size, human, time)
}

fn cell(p: Pos) -> Json {
    json!([p.x(), p.y()])
}

/// Black's win rate for a value of `mover`'s, in per cent.
fn black_percent(v: i32, mover: Color) -> f64 {
    let w = 100.0 * winrate(v);
    if mover == Color::Black {
        w
    } else {
        100.0 - w
    }
}

/// What the page draws and says: the board, whose move, the end, Wuzi's last words.
pub fn state(s: &Session) -> Json {
    let mut board = s.board();
    let next = board.side_to_move();
    let five = s.five();
    let full = board.empty_count() == 0;
    let result = if let Some(&(last, c)) = board.history().last().filter(|_| !five.is_empty()) {
        let who = if c == s.human { "you" } else { "Wuzi" };
        let side = if c == Color::Black { "Black" } else { "White" };
        Some(format!("{side} ({who}) wins with {}", cell_name(last)))
    } else if full {
        Some("Draw: the board is full".to_string())
    } else {
        None
    };
    let forbidden: Vec<Json> = if result.is_none() && next == Color::Black {
        crate::rules::forbidden_points(&mut board)
            .into_iter()
            .map(cell)
            .collect()
    } else {
        Vec::new()
    };
    json!({
        "width": s.width,
        "height": s.height,
        "rule": s.rule.protocol(),
        "ruleName": s.rule.name(),
        "human": Side::of(s.human).name(),
        "next": Side::of(next).name(),
        "moves": s.line[..s.at].iter().map(|&p| cell(p)).collect::<Vec<_>>(),
        "line": s.line.iter().map(|&p| cell(p)).collect::<Vec<_>>(),
        "at": s.at,
        "five": five.into_iter().map(cell).collect::<Vec<_>>(),
        "forbidden": forbidden,
        "result": result,
        "said": s.said,
        "hint": s.hint.map(cell),
        "analysing": s.analysing(),
        "time": s.time.as_secs_f64(),
    })
}

/// The analysis as the page shows it: black's win rate for the bar, each line's value
/// told from the side to move.
pub fn snapshot_json(s: &Snapshot) -> Json {
    let mover = s.mover.unwrap_or(Color::Black);
    let (me, other) = (Side::of(mover), Side::of(mover.opp()));
    let lines: Vec<Json> = s
        .lines
        .iter()
        .take(ANALYSIS_LINES)
        .map(|(p, v, pv)| {
            json!({
                "move": cell_name(*p),
                "cell": cell(*p),
                "black": black_percent(*v, mover),
                "text": verdict(*v, me, other),
                "pv": pv.iter().map(|&p| cell(p)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "seq": s.seq,
        "running": s.running,
        "depth": s.depth,
        "nodes": s.nodes,
        "nps": s.nps,
        "mover": Side::of(mover).name(),
        "lines": lines,
    })
}

/// The review's rows, with black's win rate after every move for the graph.
fn review_rows(rows: &[crate::review::MoveReview]) -> Vec<Json> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            // `after` is the mover's; the graph is black's.
            json!({
                "ply": i + 1,
                "colour": Side::of(r.colour).name(),
                "move": cell_name(r.played),
                "before": value_text::cell(r.before),
                "after": value_text::cell(r.after),
                "black": black_percent(r.after, r.colour),
                "best": cell_name(r.best),
                "bestValue": value_text::cell(r.best_value),
                "line": r.line.iter().map(|&p| cell(p)).collect::<Vec<_>>(),
                "loss": (r.loss * 10.0).round() / 10.0,
                "label": r.label.map(|l| l.text()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef";
    const PORT: u16 = 8015;

    fn app() -> App {
        App::new(TOKEN.into(), PORT, "127.0.0.1", false, 1)
    }

    /// A request as the page sends it (its token, its own `Host`).
    fn req(method: &str, url: &str, body: Json) -> Request {
        let sep = if url.contains('?') { '&' } else { '?' };
        let body = if body.is_null() {
            Vec::new()
        } else {
            body.to_string().into_bytes()
        };
        Request::new(
            method,
            &format!("{url}{sep}token={TOKEN}"),
            Some(&format!("127.0.0.1:{PORT}")),
            body,
        )
    }

    /// A new session's id.
    fn session(app: &App) -> String {
        let r = app.handle(&req("POST", "/api/session", json!({})));
        assert_eq!(r.status(), 200);
        r.body_json()["session"].as_str().unwrap().to_string()
    }

    fn post(app: &App, what: &str, id: &str, mut body: Json) -> (u16, Json) {
        body["session"] = json!(id);
        let r = app.handle(&req("POST", &format!("/api/{what}"), body));
        (r.status(), r.body_json())
    }

    #[test]
    fn refuses_foreign_hosts_missing_tokens_and_large_bodies() {
        let app = app();
        let page = |host: Option<&str>, url: &str| {
            app.handle(&Request::new("GET", url, host, Vec::new()))
                .status()
        };
        let good = format!("/?token={TOKEN}");
        assert_eq!(page(Some("127.0.0.1:8015"), &good), 200);
        assert_eq!(page(Some("localhost:8015"), &good), 200);
        assert_eq!(page(Some("[::1]:8015"), &good), 200);
        // DNS rebinding: a name that is not this server's.
        assert_eq!(page(Some("evil.example:8015"), &good), 403);
        assert_eq!(page(Some("127.0.0.1:9999"), &good), 403);
        assert_eq!(page(None, &good), 403);
        // Beyond loopback, addresses typed as digits are accepted, names still not.
        let public = App::new(TOKEN.into(), PORT, "0.0.0.0", true, 1);
        let at = |host| public.handle(&Request::new("GET", &good, Some(host), Vec::new()));
        assert_eq!(at("192.168.1.20:8015").status(), 200);
        assert_eq!(at("evil.example:8015").status(), 403);
        // The token.
        assert_eq!(page(Some("127.0.0.1:8015"), "/"), 403);
        assert_eq!(page(Some("127.0.0.1:8015"), "/?token=guess"), 403);
        let r = app.handle(&Request::new(
            "POST",
            "/api/session",
            Some("127.0.0.1:8015"),
            b"{}".to_vec(),
        ));
        assert_eq!(r.status(), 403);
        // The size cap.
        let mut big = req("POST", "/api/load", json!({}));
        big.body = vec![b' '; MAX_BODY + 1];
        assert_eq!(app.handle(&big).status(), 413);
        // Paths, methods, bodies, sessions.
        assert_eq!(
            app.handle(&req("GET", "/nothing", Json::Null)).status(),
            404
        );
        assert_eq!(
            app.handle(&req("DELETE", "/api/state", Json::Null))
                .status(),
            405
        );
        let mut broken = req("POST", "/api/play", Json::Null);
        broken.body = b"{not json".to_vec();
        assert_eq!(app.handle(&broken).status(), 400);
        assert_eq!(post(&app, "play", "nobody", json!({"cell": "h8"})).0, 404);
        let r = app.handle(&req("POST", "/api/play", json!({"cell": "h8"})));
        assert_eq!(r.status(), 400, "no session");
        let id = session(&app);
        assert_eq!(post(&app, "dance", &id, json!({})).0, 404);
    }

    #[test]
    fn the_page_is_whole() {
        let page = String::from_utf8(match app().handle(&req("GET", "/", Json::Null)) {
            Response::Body { body, .. } => body,
            Response::Events(_) => panic!("not a page"),
        })
        .unwrap();
        assert!(page.contains("<canvas id=\"board\""));
        assert!(
            page.contains("window.wuziBoard"),
            "the script is in the page"
        );
        assert!(page.contains("#winbar"), "the style is in the page");
        assert!(!page.contains("/*SCRIPT*/") && !page.contains("/*STYLE*/"));
        // Nothing fetched from elsewhere: the page works offline.
        let outside: Vec<&str> = page
            .lines()
            .filter(|l| {
                l.contains("https://") || l.contains("src=\"http") || l.contains("href=\"http")
            })
            .collect();
        assert!(
            outside.is_empty(),
            "the page fetches from outside: {outside:?}"
        );
    }

    #[test]
    fn a_game_with_every_request_and_its_faults() {
        let app = app();
        let id = session(&app);
        let (status, s) = post(
            &app,
            "new",
            &id,
            json!({"rule": "renju", "size": "9", "human": "black", "time": 0.05}),
        );
        assert_eq!(status, 200, "{s}");
        assert_eq!(
            (s["width"].as_u64(), s["ruleName"].as_str()),
            (Some(9), Some("renju"))
        );
        for (body, says) in [
            (json!({"rule": 3}), "expected 0 (freestyle)"),
            (json!({"size": "40"}), "expected N or WxH"),
            (json!({"human": "red"}), "human: black or white"),
            (json!({"time": 0}), "time: seconds above 0"),
            (json!({"time": "soon"}), "time: seconds above 0"),
        ] {
            let (status, s) = post(&app, "new", &id, body.clone());
            assert_eq!(status, 400, "{body}");
            assert!(s["error"].as_str().unwrap().contains(says), "{body}: {s}");
            assert_eq!(s["width"].as_u64(), Some(9), "the game is kept");
        }
        // A move, and Wuzi's answer.
        let (status, s) = post(&app, "play", &id, json!({"cell": "e5"}));
        assert_eq!(status, 200, "{s}");
        assert_eq!(s["moves"].as_array().unwrap().len(), 2);
        assert!(
            s["said"].as_str().unwrap().starts_with("Wuzi plays "),
            "{s}"
        );
        for (cell, says) in [
            ("e5", "e5 is taken"),
            ("p3", "p3 is off the 9x9 board: columns a to i"),
            ("hello", "'hello' is not a cell"),
        ] {
            let (status, s) = post(&app, "play", &id, json!({"cell": cell}));
            assert_eq!(status, 400);
            assert!(
                s["error"].as_str().unwrap().starts_with(says),
                "{cell}: {s}"
            );
            assert_eq!(s["moves"].as_array().unwrap().len(), 2);
        }
        assert_eq!(post(&app, "play", &id, json!({"cell": 5})).0, 400);
        // Hint, undo, redo, goto, swap.
        let (_, s) = post(&app, "hint", &id, json!({}));
        assert!(s["said"].as_str().unwrap().starts_with("Hint: "), "{s}");
        let hint = s["hint"].as_array().expect("the hint's cell").clone();
        let named = s["said"].as_str().unwrap()[6..]
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        let at = |c: &Json| {
            cell_name(Pos::new(
                c[0].as_u64().unwrap() as usize,
                c[1].as_u64().unwrap() as usize,
            ))
        };
        assert_eq!(at(&Json::Array(hint)), named);
        let (_, s) = post(&app, "undo", &id, json!({}));
        assert_eq!(
            (s["at"].as_u64(), s["line"].as_array().unwrap().len()),
            (Some(0), 2)
        );
        let (status, s) = post(&app, "undo", &id, json!({}));
        assert_eq!(status, 400);
        assert!(s["error"].as_str().unwrap().contains("nothing of yours"));
        let (_, s) = post(&app, "redo", &id, json!({}));
        assert_eq!(s["at"].as_u64(), Some(2));
        assert_eq!(post(&app, "redo", &id, json!({})).0, 400);
        assert_eq!(
            post(&app, "goto", &id, json!({"ply": 1})).1["at"].as_u64(),
            Some(1)
        );
        assert_eq!(post(&app, "goto", &id, json!({"ply": 3})).0, 400);
        assert_eq!(post(&app, "goto", &id, json!({})).0, 400);
        // Back to black's move, the person's: after the swap Wuzi plays it.
        post(&app, "goto", &id, json!({"ply": 2}));
        let (_, s) = post(&app, "swap", &id, json!({}));
        assert_eq!(s["human"].as_str(), Some("white"));
        assert_eq!(s["at"].as_u64(), Some(3), "Wuzi plays the side it took");
    }

    #[test]
    fn renju_fouls_are_marked_and_refused() {
        let app = app();
        let id = session(&app);
        post(&app, "new", &id, json!({"rule": 4, "time": 0.05}));
        // Black to move with f8 g8 and h6 h7: h8 makes a double three.
        let (status, s) = post(
            &app,
            "load",
            &id,
            json!({"text": "f8a1g8a3h6a5h7a7", "name": "foul.txt"}),
        );
        assert_eq!(status, 200, "{s}");
        assert!(
            s["forbidden"].as_array().unwrap().contains(&json!([7, 7])),
            "{s}"
        );
        let (status, s) = post(&app, "play", &id, json!({"cell": "h8"}));
        assert_eq!(status, 400);
        assert_eq!(
            s["error"].as_str(),
            Some("h8 is forbidden for black under renju: it makes a double three")
        );
    }

    #[test]
    fn records_load_save_and_review() {
        let app = app();
        let id = session(&app);
        let sgf = include_str!("../records/c-gomoku-cli.sgf");
        let (status, s) = post(&app, "load", &id, json!({"text": sgf, "name": "game.sgf"}));
        assert_eq!(status, 200, "{s}");
        assert_eq!(s["moves"].as_array().unwrap().len(), 51);
        assert!(s["result"].as_str().unwrap().starts_with("Black"), "{s}");
        // A broken record is refused with its line, and the game stays.
        let broken = "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,x,0\n10,10,0\n-1\n";
        let (status, s) = post(&app, "load", &id, json!({"text": broken}));
        assert_eq!(status, 400);
        assert!(
            s["error"]
                .as_str()
                .unwrap()
                .contains("line 3: expected a move x,y,time"),
            "{s}"
        );
        assert_eq!(s["moves"].as_array().unwrap().len(), 51);
        assert_eq!(post(&app, "load", &id, json!({})).0, 400);
        // Saved in every format, and read back the same.
        for (format, back) in [
            ("psq", Format::Psq),
            ("sgf", Format::Sgf),
            ("pos", Format::PosString),
            ("sav", Format::Sav),
        ] {
            let r = app.handle(&req(
                "GET",
                &format!("/api/save?session={id}&format={format}"),
                Json::Null,
            ));
            let Response::Body {
                status,
                body,
                download,
                ..
            } = r
            else {
                panic!("no body")
            };
            assert_eq!(status, 200);
            assert!(download.unwrap().starts_with("wuzi-game."));
            let text = String::from_utf8(body).unwrap();
            assert_eq!(back.read(&text).unwrap().moves.len(), 51, "{format}");
        }
        let r = app.handle(&req(
            "GET",
            &format!("/api/save?session={id}&format=doc"),
            Json::Null,
        ));
        assert_eq!(r.status(), 400);
        // The review: rows with black's win rate, and the mistakes labelled.
        let (status, r) = post(&app, "review", &id, json!({"depth": 3}));
        assert_eq!(status, 200, "{r}");
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 51);
        assert!(rows.iter().any(|r| r["label"].is_string()), "{r}");
        assert!(rows
            .iter()
            .all(|r| (0.0..=100.0).contains(&r["black"].as_f64().unwrap())));
        assert_eq!(post(&app, "review", &id, json!({"depth": 40})).0, 400);
        let (_, s) = post(&app, "new", &id, json!({}));
        assert_eq!(s["at"].as_u64(), Some(0));
        assert_eq!(
            post(&app, "review", &id, json!({"depth": 3})).0,
            400,
            "no moves"
        );
    }

    #[test]
    fn the_analysis_runs_until_stopped_and_the_page_sees_it() {
        let app = app();
        let id = session(&app);
        post(&app, "new", &id, json!({"time": 0.05}));
        post(&app, "play", &id, json!({"cell": "h8"}));
        let (status, s) = post(&app, "analysis", &id, json!({"on": true}));
        assert_eq!((status, s["analysing"].as_bool()), (200, Some(true)));
        let live = match app.handle(&req(
            "GET",
            &format!("/api/events?session={id}"),
            Json::Null,
        )) {
            Response::Events(s) => s.lock().unwrap().live.clone(),
            Response::Body { .. } => panic!("no stream"),
        };
        // Iterations arrive, each with the top moves, until depth 4.
        let mut seen = u64::MAX;
        let mut snap = live.next(seen, Duration::from_secs(30));
        while snap.depth < 4 {
            seen = snap.seq;
            snap = live.next(seen, Duration::from_secs(30));
        }
        let j = snapshot_json(&snap);
        assert_eq!(j["mover"].as_str(), Some("black"));
        let first = &j["lines"][0];
        assert!(first["text"].as_str().unwrap().contains("for black"), "{j}");
        assert!(!first["pv"].as_array().unwrap().is_empty());
        // A cell played while analysing: the analysis goes on from there.
        let (status, s) = post(&app, "play", &id, json!({"cell": "i9"}));
        assert_eq!((status, s["analysing"].as_bool()), (200, Some(true)), "{s}");
        assert_eq!(
            s["moves"].as_array().unwrap().len(),
            3,
            "no answer while analysing"
        );
        let (_, s) = post(&app, "analysis", &id, json!({"on": false}));
        assert_eq!(s["analysing"].as_bool(), Some(false));
        assert_eq!(post(&app, "analysis", &id, json!({"on": "yes"})).0, 400);
        // Closing the page ends the session.
        assert_eq!(post(&app, "close", &id, json!({})).0, 200);
        assert_eq!(post(&app, "play", &id, json!({"cell": "a1"})).0, 404);
    }
}
