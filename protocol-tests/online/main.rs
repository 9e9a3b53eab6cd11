//! Tests of `pbrain-wuzi online` against a mock game server on loopback (`mock.rs`):
//! whole games in-process and through the binary, a resumed game, and each fault the
//! client must survive (unreachable, slow, HTTP errors, malformed JSON, `is_success`
//! false, a refused move, the game ending while thinking), with the poll pace checked on
//! every run. Searches are bounded by depth or nodes, never by the clock.

mod mock;

use mock::{Endpoint, Fault, Game, Logged, Mock, Style};
use std::process::Command;
use std::time::{Duration, Instant};
use wuzi::online::{self, Config, Outcome};

const USER: &str = "wuzi-test";
/// The poll interval of most tests.
const POLL: Duration = Duration::from_millis(20);
/// How much sooner than the poll interval a `check_game` may arrive. The client counts
/// the interval from the end of the previous request, which the mock saw arrive earlier,
/// so none is needed; a millisecond covers clock rounding.
const SLACK: Duration = Duration::from_millis(1);

fn config(mock: &Mock) -> Config {
    let mut c = Config::new(&mock.url, USER, mock::PASSWORD);
    c.poll = POLL;
    c.backoff_cap = POLL * 4;
    c.request_timeout = Duration::from_secs(5);
    c.time_margin = Duration::from_secs(1);
    c.max_failures = 5;
    c.limits.depth = Some(3);
    c.limits.hash_mb = Some(4);
    c
}

/// Run the client in-process; its output as text.
fn play(cfg: &Config) -> (anyhow::Result<Outcome>, String) {
    let mut out = Vec::new();
    let r = online::run(cfg, &mut out);
    (r, String::from_utf8(out).expect("the client writes UTF-8"))
}

/// No two `check_game` requests closer than `poll` (less the slack).
fn assert_paced(log: &[Logged], poll: Duration) {
    let checks: Vec<Instant> = log
        .iter()
        .filter(|l| l.endpoint == Endpoint::Check)
        .map(|l| l.at)
        .collect();
    let mut sorted = checks.clone();
    sorted.sort();
    for w in sorted.windows(2) {
        let gap = w[1] - w[0];
        assert!(
            gap + SLACK >= poll,
            "two check_game requests {gap:?} apart (poll interval {poll:?})"
        );
    }
}

/// The game was won by the client with a five of its stones, and no move it posted was
/// refused for being illegal.
fn assert_won(mock: &Mock, r: &anyhow::Result<Outcome>, out: &str) {
    assert!(matches!(r, Ok(Outcome::Won)), "{r:?}\n{out}");
    let g = mock.game.lock().unwrap();
    assert_eq!(g.winner.as_deref(), Some(USER), "{out}");
    assert!(g.win_line.len() >= 5);
    let refused: Vec<_> = g.log.iter().filter_map(|l| l.refused.clone()).collect();
    assert!(refused.is_empty(), "moves refused: {refused:?}\n{out}");
    assert!(out.contains("result: won, winning line "), "{out}");
}

fn faulty(faults: &[(Endpoint, Fault)]) -> Mock {
    let mut g = Game::new(USER, 'x');
    g.faults = faults.iter().cloned().collect();
    Mock::start(g)
}

#[test]
fn wins_a_whole_game_as_black() {
    let mock = Mock::start(Game::new(USER, 'x'));
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
    assert!(
        out.starts_with(&format!("joined game 7 as {USER}\n")),
        "{out}"
    );
    assert!(
        out.contains("game 7: playing black (x) against mockbot with Wuzi"),
        "{out}"
    );
    assert!(out.contains("opponent played "), "{out}");
    assert!(out.contains("thinking (up to "), "{out}");
    assert!(
        out.contains("played hh (depth ") && out.contains(" for Wuzi (eval "),
        "the first move is the centre:\n{out}"
    );
    assert_eq!(mock.requests(Endpoint::Join).len(), 1);
    let join = &mock.requests(Endpoint::Join)[0];
    assert_eq!(join.param("data_type"), Some("json"));
    assert_eq!(join.param("password"), Some(mock::PASSWORD));
    assert_paced(&mock.log(), POLL);
}

#[test]
fn keeps_the_poll_interval() {
    let mock = Mock::start(Game::new(USER, 'o'));
    let mut cfg = config(&mock);
    let poll = Duration::from_millis(120);
    cfg.poll = poll;
    cfg.limits.depth = Some(2);
    let (r, out) = play(&cfg);
    assert_won(&mock, &r, &out);
    let log = mock.log();
    assert_paced(&log, poll);
    // No flood either: at most one check per interval over the whole run, and one
    // more for the first.
    let checks = mock.requests(Endpoint::Check).len() as u32;
    let span = log.last().unwrap().at - log[0].at;
    assert!(
        checks <= span.as_millis() as u32 / poll.as_millis() as u32 + 2,
        "{checks} checks in {span:?}"
    );
}

#[test]
fn binary_wins_as_white_against_the_other_field_styles() {
    let mut g = Game::new(USER, 'o');
    g.style = Style {
        board_as_list: true,
        ids: true,
        left_time_ms: true,
        no_turn_fields: false,
    };
    let mock = Mock::start(g);
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args([
            "online",
            "--server",
            &mock.url,
            "--user",
            USER,
            "--password",
            mock::PASSWORD,
        ])
        .args(["--poll", "0.02", "--depth", "3", "--time-margin", "1"])
        .env(online::cli::FAST_POLL_ENV, "1")
        .output()
        .expect("run pbrain-wuzi");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "game 7: playing white (o) against mockbot with Wuzi 0.1.0\nopponent played hh\n"
        ),
        "the mock opens in the centre:\n{stdout}"
    );
    let g = mock.game.lock().unwrap();
    // With ids, the mock names the winner by the client's id.
    assert_eq!(
        g.winner.as_deref(),
        Some(mock::CLIENT_ID.to_string().as_str()),
        "{stdout}"
    );
    assert!(stdout.contains("result: won"), "{stdout}");
    drop(g);
    assert_paced(&mock.log(), POLL);
}

#[test]
fn turn_read_from_the_board_when_the_server_does_not_say() {
    let mut g = Game::new(USER, 'o');
    g.style.no_turn_fields = true;
    let mock = Mock::start(g);
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
}

#[test]
fn external_engine_behind_the_client() {
    let mock = Mock::start(Game::new(USER, 'x'));
    let engine = format!("'{}'", env!("CARGO_BIN_EXE_pbrain-wuzi"));
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args([
            "online",
            "--server",
            &mock.url,
            "--user",
            USER,
            "--password",
            mock::PASSWORD,
        ])
        .args(["--poll", "0.02", "--depth", "3", "--engine", &engine])
        .env(online::cli::FAST_POLL_ENV, "1")
        .output()
        .expect("run pbrain-wuzi");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("with the engine '{engine}'")),
        "{stdout}"
    );
    // pbrain x,y is column,row: the centre 7,7 is hh.
    assert!(
        stdout.contains("played hh (7,7 from the engine"),
        "{stdout}"
    );
    assert!(stdout.contains("result: won"), "{stdout}");
    let g = mock.game.lock().unwrap();
    assert_eq!(g.winner.as_deref(), Some(USER));
    assert!(g.log.iter().all(|l| l.refused.is_none()));
}

#[test]
fn an_engine_that_does_not_speak_pbrain_ends_the_run() {
    let mock = Mock::start(Game::new(USER, 'x'));
    let mut cfg = config(&mock);
    // `cat` echoes START back instead of answering OK.
    cfg.engine = Some("cat".into());
    cfg.max_failures = 2;
    let (r, out) = play(&cfg);
    let e = r.expect_err("no move can be made");
    assert!(
        e.to_string().contains(
            "giving up after 2 moves in a row not made (last: the engine cannot start thinking: \
             the engine answered 'START 15' to START 15)"
        ),
        "{e}\n{out}"
    );
    assert!(mock.requests(Endpoint::Play).is_empty());
}

#[test]
fn resumes_a_game_with_moves_on_the_board() {
    let mut g = Game::new(USER, 'x');
    // Four moves already played: black (the client) to move.
    g.moves = vec![(7, 7), (8, 8), (7, 8), (6, 6)];
    let mock = Mock::start(g);
    let mut cfg = config(&mock);
    cfg.game = Some(mock::GAME_ID.to_string());
    let (r, out) = play(&cfg);
    assert_won(&mock, &r, &out);
    assert!(
        mock.requests(Endpoint::Join).is_empty(),
        "no join_game with --game"
    );
    assert!(
        out.starts_with(&format!("rejoining game 7 as {USER}\n")),
        "{out}"
    );
    assert!(out.contains("4 moves on the board: hh ii hi gg"), "{out}");
    let g = mock.game.lock().unwrap();
    assert_eq!(&g.moves[..4], &[(7, 7), (8, 8), (7, 8), (6, 6)]);
}

#[test]
fn waits_for_an_opponent() {
    let mut g = Game::new(USER, 'x');
    g.bot_arrives_on_check = 4;
    let mock = Mock::start(g);
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
    assert!(
        out.contains("joined game 7 as wuzi-test\nwaiting for an opponent…\ngame 7: playing black (x) against mockbot"),
        "{out}"
    );
    // Nothing was played before the opponent came.
    let log = mock.log();
    let first_play = log
        .iter()
        .position(|l| l.endpoint == Endpoint::Play)
        .unwrap();
    let checks_before = log[..first_play]
        .iter()
        .filter(|l| l.endpoint == Endpoint::Check)
        .count();
    assert!(checks_before >= 4, "{checks_before}");
    assert_paced(&log, POLL);
}

#[test]
fn a_game_without_us_gives_up() {
    let mock = Mock::start(Game::new(USER, 'x'));
    let mut cfg = config(&mock);
    cfg.user = "stranger".into();
    cfg.game = Some(mock::GAME_ID.to_string());
    cfg.max_failures = 3;
    let (r, out) = play(&cfg);
    let e = r.expect_err("not our game");
    assert!(
        e.to_string().contains(
            "giving up after 3 consecutive failures (last: check_game: malformed answer: \
             neither the creator nor the opponent is 'stranger'"
        ),
        "{e}\n{out}"
    );
    assert_eq!(mock.requests(Endpoint::Check).len(), 3);
    assert!(mock.requests(Endpoint::Play).is_empty());
}

#[test]
fn unreachable_server_gives_up_with_an_error() {
    // A port nobody listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args([
            "online",
            "--server",
            &format!("http://127.0.0.1:{port}"),
            "--user",
            USER,
        ])
        .args(["--password", "x", "--poll", "0.02"])
        .env(online::cli::FAST_POLL_ENV, "1")
        .output()
        .expect("run pbrain-wuzi");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("join_game failed: server unreachable"),
        "{stdout}"
    );
    assert!(
        stdout.contains("retrying in 20 ms (1 of 6 failures)"),
        "{stdout}"
    );
    assert!(stdout.contains("(5 of 6 failures)"), "{stdout}");
    assert!(
        stderr.contains(
            "giving up after 6 consecutive failures (last: join_game: server unreachable"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn slow_server_times_out_and_recovers() {
    let slow = Fault::Delay(Duration::from_millis(900));
    let mock = faulty(&[(Endpoint::Check, slow.clone()), (Endpoint::Check, slow)]);
    let mut cfg = config(&mock);
    cfg.request_timeout = Duration::from_millis(300);
    let (r, out) = play(&cfg);
    assert_won(&mock, &r, &out);
    assert!(
        out.contains("check_game failed: no answer within 300 ms (request timeout); retrying in 20 ms (1 of 5 failures)"),
        "{out}"
    );
    assert!(out.contains("(2 of 5 failures)"), "{out}");
    assert_paced(&mock.log(), POLL);
}

#[test]
fn http_errors_then_recovery() {
    let mock = faulty(&[
        (Endpoint::Join, Fault::Status(503)),
        (Endpoint::Check, Fault::Status(500)),
        (Endpoint::Check, Fault::Status(500)),
        (Endpoint::Check, Fault::Close),
    ]);
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
    assert!(
        out.contains("join_game failed: HTTP 503: <html><body>503 mock error</body></html>"),
        "{out}"
    );
    assert!(out.contains("check_game failed: HTTP 500"), "{out}");
    assert!(
        out.contains("(3 of 5 failures)"),
        "three check failures in a row:\n{out}"
    );
    assert!(
        out.contains("check_game failed: connection failed"),
        "{out}"
    );
    assert_paced(&mock.log(), POLL);
}

#[test]
fn malformed_json_then_recovery() {
    let mock = faulty(&[
        (Endpoint::Check, Fault::Malformed),
        (Endpoint::Join, Fault::Malformed),
    ]);
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
    assert!(
        out.contains("join_game failed: malformed answer: not JSON"),
        "{out}"
    );
    assert!(
        out.contains("check_game failed: malformed answer: not JSON"),
        "{out}"
    );
}

#[test]
fn is_success_false_then_recovery() {
    let mock = faulty(&[
        (Endpoint::Join, Fault::NotSuccess),
        (Endpoint::Check, Fault::NotSuccess),
    ]);
    let (r, out) = play(&config(&mock));
    assert_won(&mock, &r, &out);
    assert!(
        out.contains("join_game failed: the server reports failure: mock says no"),
        "{out}"
    );
    assert!(
        out.contains("check_game failed: the server reports failure: mock says no"),
        "{out}"
    );
}

#[test]
fn refused_move_is_read_again_and_replayed() {
    let mock = faulty(&[(Endpoint::Play, Fault::NotSuccess)]);
    let (r, out) = play(&config(&mock));
    assert!(matches!(r, Ok(Outcome::Won)), "{r:?}\n{out}");
    assert!(
        out.contains("move hh refused: mock says no; reading the game again (1 of 5)"),
        "{out}"
    );
    // After the refusal: a fresh check_game, then the move again.
    let log = mock.log();
    let first = log
        .iter()
        .position(|l| l.endpoint == Endpoint::Play)
        .unwrap();
    assert_eq!(log[first].fault, Some(Fault::NotSuccess));
    assert_eq!(log[first + 1].endpoint, Endpoint::Check, "{log:?}");
    let plays: Vec<_> = log
        .iter()
        .filter(|l| l.endpoint == Endpoint::Play)
        .collect();
    assert_eq!(plays[1].param("coord"), Some("hh"));
    assert_eq!(mock.game.lock().unwrap().winner.as_deref(), Some(USER));
}

#[test]
fn a_move_refused_every_time_ends_the_run() {
    let mock = faulty(&vec![(Endpoint::Play, Fault::NotSuccess); 10]);
    let mut cfg = config(&mock);
    cfg.max_failures = 3;
    let (r, out) = play(&cfg);
    let e = r.expect_err("three refusals in a row give up");
    assert!(
        e.to_string().contains(
            "giving up after 3 moves in a row not made (last: move hh refused: mock says no)"
        ),
        "{e}\n{out}"
    );
    assert_eq!(mock.requests(Endpoint::Play).len(), 3);
    assert_paced(&mock.log(), POLL);
}

#[test]
fn persistent_failures_give_up_without_a_flood() {
    let mock = faulty(&vec![(Endpoint::Check, Fault::Status(500)); 20]);
    let mut cfg = config(&mock);
    cfg.max_failures = 4;
    let (r, out) = play(&cfg);
    let e = r.expect_err("four failures in a row give up");
    assert!(
        e.to_string()
            .contains("giving up after 4 consecutive failures (last: check_game: HTTP 500"),
        "{e}\n{out}"
    );
    let checks: Vec<Instant> = mock
        .requests(Endpoint::Check)
        .iter()
        .map(|l| l.at)
        .collect();
    assert_eq!(checks.len(), 4);
    // Exponential back-off: 1, 2 and 4 poll intervals (the cap) between the tries.
    for (i, want) in [1u32, 2, 4].iter().enumerate() {
        let gap = checks[i + 1] - checks[i];
        assert!(
            gap + SLACK >= POLL * *want,
            "try {} came {gap:?} after the one before",
            i + 2
        );
    }
}

#[test]
fn game_ending_while_thinking() {
    let mut g = Game::new(USER, 'x');
    // A quiet opening, black (the client) to move: a long search. (Not one where black
    // has a win by threats: the search would find it in milliseconds and play before the
    // second check.)
    g.moves = vec![(7, 7), (8, 8), (7, 9), (6, 8), (9, 7), (9, 9)];
    // The first check shows our turn; the second comes while we think and finds the
    // opponent declared the winner.
    g.end_on_check = Some(2);
    let mock = Mock::start(g);
    let mut cfg = config(&mock);
    cfg.game = Some(mock::GAME_ID.to_string());
    cfg.limits.depth = None;
    cfg.limits.nodes = Some(2_000_000_000);
    let (r, out) = play(&cfg);
    assert!(matches!(r, Ok(Outcome::Lost)), "{r:?}\n{out}");
    assert!(out.contains("thinking (up to "), "{out}");
    assert!(
        out.contains("the game ended while thinking\nresult: lost (6 moves)"),
        "{out}"
    );
    assert!(
        mock.requests(Endpoint::Play).is_empty(),
        "no move posted after the end"
    );
}

#[test]
fn bad_command_lines_are_refused() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
            .arg("online")
            .args(args)
            .output()
            .expect("run pbrain-wuzi")
    };
    let out = run(&[
        "--server",
        "http://127.0.0.1:9",
        "--user",
        "u",
        "--password",
        "p",
        "--poll",
        "1",
    ]);
    // Command-line faults, the parser's own and those it cannot see: exit status 2.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("poll every 5 to 10 seconds"), "{stderr}");
    let out = run(&[
        "--server",
        "https://example.org",
        "--user",
        "u",
        "--password",
        "p",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no TLS"), "{stderr}");
    // A missing option is a usage error (exit status 2), named in the message.
    let out = run(&["--user", "u"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--server <URL>"));
}
