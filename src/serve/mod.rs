//! `serve`: the web board. A small HTTP server (tiny_http: blocking, no async runtime,
//! which a local board for one person does not need) serves one page, with its HTML, CSS
//! and JavaScript compiled into the binary so that it works offline, and the requests the
//! page makes (`api`). The analysis streams to the page as server-sent events: one-way,
//! plain HTTP, reconnected by the browser on its own, which is all a live view needs.
//!
//! Safe by default: it listens on 127.0.0.1 unless `--host` says otherwise, answers only
//! requests whose `Host` names it and whose address carries the random token it printed,
//! reads at most `api::MAX_BODY` bytes of a request, runs one search per page at a time
//! and stops the analysis when the page goes away.

pub mod api;
pub mod session;

use api::{App, Request, Response};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// The `serve` command line.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The port to listen on (0: any free one).
    #[arg(long, default_value_t = 8015)]
    pub port: u16,
    /// The address to listen on. Anything but a loopback address lets other machines
    /// reach the board (they still need the token).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the board in the default web browser.
    #[arg(long)]
    pub open: bool,
    #[command(flatten)]
    pub threads: crate::cli::Threads,
}

/// How often the live stream says something, so that a page gone is noticed.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// Requests answered at once; more wait for a thread.
const MAX_CONNECTIONS: usize = 32;

/// The page: its HTML with the style and the script put in.
pub fn page() -> String {
    include_str!("web/index.html")
        .replace("/*STYLE*/", include_str!("web/style.css"))
        .replace("/*SCRIPT*/", include_str!("web/board.js"))
}

/// 128 random bits as hex, from the standard library's randomly keyed hasher.
pub fn random_hex() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// Serves the board until the process is ended; `ready` gets the address to open.
pub fn run(args: &Args, ready: &mut dyn FnMut(&str)) -> anyhow::Result<()> {
    let server = tiny_http::Server::http((args.host.as_str(), args.port)).map_err(|e| {
        crate::cli::UsageError(format!("cannot listen on {}:{}: {e}", args.host, args.port))
    })?;
    let port = server.server_addr().to_ip().map_or(args.port, |a| a.port());
    let public = !matches!(args.host.as_str(), "127.0.0.1" | "localhost" | "::1");
    let token = random_hex();
    let app = Arc::new(App::new(
        token.clone(),
        port,
        &args.host,
        public,
        args.threads.threads,
    ));
    let shown_host = if public {
        args.host.as_str()
    } else {
        "127.0.0.1"
    };
    let address = format!("http://{shown_host}:{port}/?token={token}");
    ready(&address);
    let gate = Arc::new(Gate::new(MAX_CONNECTIONS));
    for request in server.incoming_requests() {
        let (app, gate) = (app.clone(), gate.clone());
        gate.enter();
        let spawned = std::thread::Builder::new()
            .name("http".into())
            .spawn(move || {
                answer(&app, request);
                gate.leave();
            });
        if spawned.is_err() {
            eprintln!("cannot start a thread for a request");
        }
    }
    Ok(())
}

/// Opens `address` in the default browser, where one can be found.
pub fn open_browser(address: &str) -> std::io::Result<()> {
    let mut cmd = if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(address)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}

/// A counter of requests in flight, so that a flood of them waits instead of starting
/// a thread each.
struct Gate {
    count: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    max: usize,
}

impl Gate {
    fn new(max: usize) -> Gate {
        Gate {
            count: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            max,
        }
    }

    fn enter(&self) {
        let n = self.count.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = self
            .freed
            .wait_while(n, |n| *n >= self.max)
            .unwrap_or_else(|e| e.into_inner());
        *n += 1;
    }

    fn leave(&self) {
        *self.count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.freed.notify_one();
    }
}

/// Reads one request, answers it, and streams the analysis where it asks for that.
fn answer(app: &App, mut rq: tiny_http::Request) {
    let host = rq
        .headers()
        .iter()
        .find(|h| h.field.equiv("Host"))
        .map(|h| h.value.as_str().to_string());
    let too_long = rq.body_length().is_some_and(|n| n > api::MAX_BODY);
    let mut body = Vec::new();
    if !too_long {
        let _ = rq
            .as_reader()
            .take(api::MAX_BODY as u64 + 1)
            .read_to_end(&mut body);
    }
    let method = rq.method().as_str().to_string();
    let mut req = Request::new(&method, rq.url(), host.as_deref(), body);
    if too_long {
        // Over the cap: what was sent is not read, and the answer says why.
        req.body = vec![0; api::MAX_BODY + 1];
    }
    match app.handle(&req) {
        Response::Body {
            status,
            content_type,
            body,
            download,
        } => {
            let mut r = tiny_http::Response::from_data(body).with_status_code(status);
            for (k, v) in [
                ("Content-Type", content_type.to_string()),
                ("Cache-Control", "no-store".to_string()),
                ("X-Content-Type-Options", "nosniff".to_string()),
                ("Referrer-Policy", "no-referrer".to_string()),
            ] {
                if let Ok(h) = tiny_http::Header::from_bytes(k, v) {
                    r.add_header(h);
                }
            }
            if let Some(name) = download {
                let v = format!("attachment; filename=\"{name}\"");
                if let Ok(h) = tiny_http::Header::from_bytes("Content-Disposition", v) {
                    r.add_header(h);
                }
            }
            let _ = rq.respond(r);
        }
        Response::Events(session) => {
            let live = session
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .live
                .clone();
            let mut out = rq.into_writer();
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                        Cache-Control: no-store\r\nConnection: close\r\n\r\n";
            if out
                .write_all(head.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return;
            }
            let mut seen = u64::MAX;
            loop {
                let snap = live.next(seen, HEARTBEAT);
                let text = if snap.seq == seen {
                    ": still here\n\n".to_string()
                } else {
                    seen = snap.seq;
                    format!("data: {}\n\n", api::snapshot_json(&snap))
                };
                if out
                    .write_all(text.as_bytes())
                    .and_then(|_| out.flush())
                    .is_err()
                {
                    // The page went away: its analysis stops.
                    session
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .stop_analysis();
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::net::TcpStream;

    /// A server on a free loopback port, and the address it printed.
    fn serve() -> String {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let args = Args {
                port: 0,
                host: "127.0.0.1".into(),
                open: false,
                threads: crate::cli::Threads { threads: 1 },
            };
            let _ = run(&args, &mut |a| {
                let _ = tx.send(a.to_string());
            });
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the server starts")
    }

    /// Sends raw HTTP to the server of `address`; the connection, for reading.
    fn send(address: &str, text: &str) -> BufReader<TcpStream> {
        let authority = address
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap();
        let mut s = TcpStream::connect(authority).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(text.as_bytes()).unwrap();
        BufReader::new(s)
    }

    fn status(r: &mut BufReader<TcpStream>) -> String {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        line.trim_end().to_string()
    }

    #[test]
    fn over_a_socket() {
        let address = serve();
        let authority = address
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let token = address.split("token=").nth(1).unwrap().to_string();
        assert_eq!(token.len(), 32);
        let get = |path: &str, host: &str| {
            let mut r = send(
                &address,
                &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            );
            status(&mut r)
        };
        assert_eq!(
            get(&format!("/?token={token}"), &authority),
            "HTTP/1.1 200 OK"
        );
        assert!(get(&format!("/?token={token}"), "rebound.example").starts_with("HTTP/1.1 403"));
        assert!(get("/", &authority).starts_with("HTTP/1.1 403"));
        // A body over the cap is refused by its length, unread.
        let mut r = send(
            &address,
            &format!("POST /api/load?token={token} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", api::MAX_BODY + 1),
        );
        assert!(status(&mut r).starts_with("HTTP/1.1 413"));
        // A session, its analysis, and the live stream of it.
        let post = |path: &str, body: &str| {
            let mut r = send(
                &address,
                &format!("POST {path}?token={token} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()),
            );
            let mut text = String::new();
            let _ = r.read_to_string(&mut text);
            text
        };
        let answer = post("/api/session", "{}");
        let id = answer
            .split("\"session\":\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string();
        let loaded = post(
            "/api/load",
            &format!("{{\"session\":\"{id}\",\"text\":\"h8i9\"}}"),
        );
        assert!(loaded.starts_with("HTTP/1.1 200"), "{loaded}");
        let on = post(
            "/api/analysis",
            &format!("{{\"session\":\"{id}\",\"on\":true}}"),
        );
        assert!(on.contains("\"analysing\":true"), "{on}");
        let mut events = send(
            &address,
            &format!(
                "GET /api/events?token={token}&session={id} HTTP/1.1\r\nHost: {authority}\r\n\r\n"
            ),
        );
        assert_eq!(status(&mut events), "HTTP/1.1 200 OK");
        let mut line = String::new();
        while !line.starts_with("data: ") || !line.contains("\"depth\":3") {
            line.clear();
            events.read_line(&mut line).unwrap();
        }
        assert!(line.contains("for black"), "{line}");
        // The page goes away: its analysis stops.
        drop(events);
        let start = std::time::Instant::now();
        loop {
            let mut r = send(
                &address,
                &format!("GET /api/state?token={token}&session={id} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"),
            );
            let mut text = String::new();
            let _ = r.read_to_string(&mut text);
            if text.contains("\"analysing\":false") {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the analysis goes on: {text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
