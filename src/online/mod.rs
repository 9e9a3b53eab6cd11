//! `pbrain-wuzi online`: plays one game on the seeds' game server. The loop joins (or
//! rejoins) a game, polls its state at the configured pace, rebuilds the position from the
//! server's `board` on every poll, thinks on its turn within the time the server leaves,
//! posts the move and reports the result; every failed request is retried with a capped
//! exponential back-off, and too many failures in a row end the run with an error.
//!
//! `server` owns the HTTP API and its tolerant JSON reader, `coords` the two-letter
//! coordinates, `player` the engine behind the client, `cli` the command line.

pub mod cli;
pub mod coords;
pub mod player;
pub mod server;

use crate::types::{Color, Pos};
use player::{External, Player, Position, SearchLimits, Wuzi};
pub use server::Outcome;
use server::{GameState, Seat, Server, ServerError};
use std::io::Write;
use std::thread;
use std::time::{Duration, Instant};

/// The time the server allows for a move.
pub const MOVE_TIME: Duration = Duration::from_secs(60);
/// The shortest think, even when the clock is nearly out.
const MIN_THINK: Duration = Duration::from_millis(50);

/// What the client needs: the server, the account, the pace and the engine.
#[derive(Clone, Debug)]
pub struct Config {
    /// `http://host[:port][/prefix]`.
    pub server: String,
    /// The user name sent with `join_game` and `play_game`, and looked for in the state.
    pub user: String,
    /// Sent as given (already encoded by the user's own method).
    pub password: String,
    /// Rejoin this game instead of joining a new one.
    pub game: Option<String>,
    /// Time between two `check_game` requests (the CLI enforces the server's 5–10 s).
    pub poll: Duration,
    /// Time kept back from the server's clock for the network.
    pub time_margin: Duration,
    /// Each request must be answered within this.
    pub request_timeout: Duration,
    /// Consecutive failed requests (or consecutive moves not made) before giving up.
    pub max_failures: u32,
    /// Longest wait between retries (the first wait is one poll interval, then doubles).
    pub backoff_cap: Duration,
    /// An external pbrain engine command; `None` plays with Wuzi's own search.
    pub engine: Option<String>,
    /// Depth, node and hash limits for the engine.
    pub limits: SearchLimits,
}

impl Config {
    /// The defaults: poll every 5 s, a 3 s margin, 10 s per request, 6 failures at
    /// most, back-off capped at four poll intervals, Wuzi's own search.
    pub fn new(server: &str, user: &str, password: &str) -> Config {
        let poll = Duration::from_secs(5);
        Config {
            server: server.to_string(),
            user: user.to_string(),
            password: password.to_string(),
            game: None,
            poll,
            time_margin: Duration::from_secs(3),
            request_timeout: Duration::from_secs(10),
            max_failures: 6,
            backoff_cap: poll * 4,
            engine: None,
            limits: SearchLimits::default(),
        }
    }
}

/// Play one game as `cfg` says, with Wuzi's search or the configured external engine,
/// writing progress lines to `out`. Returns the result; an error when the game cannot be
/// played (bad configuration, too many failures in a row).
pub fn run(cfg: &Config, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut player: Box<dyn Player> = match &cfg.engine {
        Some(cmd) => Box::new(External::new(cmd, &cfg.limits)),
        None => Box::new(Wuzi::new(&cfg.limits)),
    };
    let result = run_with(cfg, player.as_mut(), out);
    player.end();
    result
}

/// `run` with any `Player`.
pub fn run_with(
    cfg: &Config,
    player: &mut dyn Player,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    // A server address that cannot work is the command line's fault (exit status 2).
    let server = Server::new(&cfg.server, &cfg.user, &cfg.password, cfg.request_timeout).map_err(
        |e| match e {
            ServerError::Config(why) => anyhow::Error::new(crate::cli::UsageError(why)),
            e => e.into(),
        },
    )?;
    let mut client = Client {
        cfg,
        server,
        out,
        next_check: Instant::now(),
        failures: 0,
        misses: 0,
    };
    client.play(player)
}

/// The connection's state: the pace and the failure counts.
struct Client<'a> {
    cfg: &'a Config,
    server: Server,
    out: &'a mut dyn Write,
    /// No `check_game` (or `join_game`) before this: one poll interval after the end of
    /// the last one, or the back-off after a failure.
    next_check: Instant,
    /// Consecutive failed requests.
    failures: u32,
    /// Consecutive moves not made (refused, not delivered, or no answer from the engine).
    misses: u32,
}

/// A state as read, with our seat in it and the time it arrived.
struct Checked {
    state: GameState,
    seat: Option<Seat>,
    at: Instant,
}

/// What the last poll showed, for announcing changes once.
#[derive(Default)]
struct Seen {
    board: Option<Vec<Pos>>,
    announced: bool,
    waiting: bool,
    /// The board length at which a turn disagreement was reported.
    disagreement: Option<usize>,
    /// Our turn, at this board length, first seen at this time.
    turn: Option<(usize, Instant)>,
}

impl Client<'_> {
    /// A progress line (a failed write to the terminal is not worth stopping for).
    fn say(&mut self, line: &str) {
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    /// The wait before the next try after `n` failures in a row: one poll interval,
    /// doubling, at most `backoff_cap` (and never under the poll interval).
    fn backoff(&self, n: u32) -> Duration {
        let doubled = self
            .cfg
            .poll
            .saturating_mul(1u32 << n.saturating_sub(1).min(20));
        doubled.min(self.cfg.backoff_cap).max(self.cfg.poll)
    }

    /// Count a failed request: report it and set the back-off, or give up.
    fn failed(&mut self, what: &str, e: ServerError) -> anyhow::Result<()> {
        if let ServerError::Config(_) = e {
            anyhow::bail!("{what}: {e}");
        }
        self.failures += 1;
        let max = self.cfg.max_failures.max(1);
        if self.failures >= max {
            anyhow::bail!(
                "giving up after {} consecutive failures (last: {what}: {e})",
                self.failures
            );
        }
        let wait = self.backoff(self.failures);
        self.next_check = self.next_check.max(Instant::now() + wait);
        self.say(&format!(
            "{what} failed: {e}; retrying in {} ({} of {max} failures)",
            server::format_duration(wait),
            self.failures
        ));
        Ok(())
    }

    /// Count a move not made: report it, or give up.
    fn missed(&mut self, why: &str) -> anyhow::Result<()> {
        self.misses += 1;
        let max = self.cfg.max_failures.max(1);
        if self.misses >= max {
            anyhow::bail!(
                "giving up after {} moves in a row not made (last: {why})",
                self.misses
            );
        }
        let wait = self.backoff(self.misses);
        self.next_check = self.next_check.max(Instant::now() + wait);
        self.say(&format!(
            "{why}; reading the game again ({} of {max})",
            self.misses
        ));
        Ok(())
    }

    fn sleep_until_next_check(&self) {
        let now = Instant::now();
        if self.next_check > now {
            thread::sleep(self.next_check - now);
        }
    }

    /// `join_game`, retried.
    fn join(&mut self) -> anyhow::Result<String> {
        loop {
            self.sleep_until_next_check();
            let joined = self.server.join();
            self.next_check = Instant::now() + self.cfg.poll;
            match joined {
                Ok(id) => {
                    self.failures = 0;
                    return Ok(id);
                }
                Err(e) => self.failed("join_game", e)?,
            }
        }
    }

    /// One `check_game` at the poll pace, with our seat (`None` before the game has
    /// players): `None` after a failure (reported, back-off set). A state that names
    /// neither player as us counts as a failure.
    fn try_check(&mut self, id: &str) -> anyhow::Result<Option<Checked>> {
        self.sleep_until_next_check();
        let read = self.server.check(id).and_then(|state| {
            let seat = self.seat(&state)?;
            Ok((state, seat))
        });
        // The interval runs from the end of this request, so that a slow answer does not
        // bring the next request closer.
        self.next_check = Instant::now() + self.cfg.poll;
        match read {
            Ok((state, seat)) => {
                self.failures = 0;
                Ok(Some(Checked {
                    state,
                    seat,
                    at: Instant::now(),
                }))
            }
            Err(e) => {
                self.failed("check_game", e)?;
                Ok(None)
            }
        }
    }

    /// `check_game`, retried until it answers.
    fn check(&mut self, id: &str) -> anyhow::Result<Checked> {
        loop {
            if let Some(s) = self.try_check(id)? {
                return Ok(s);
            }
        }
    }

    /// Our seat in `state`, or a failure when the state names neither player as us.
    fn seat(&self, state: &GameState) -> Result<Option<Seat>, ServerError> {
        match state.seat(&self.cfg.user) {
            Some(s) => Ok(Some(s)),
            // Before anyone sits down, or before the server fills the names in.
            None if !state.is_ready() && state.board.is_empty() => Ok(None),
            None => Err(ServerError::Malformed(format!(
                "neither the creator nor the opponent is '{}' (or our stone cannot be told)",
                server::quote(&self.cfg.user)
            ))),
        }
    }

    /// Report the moves that are new since the last poll.
    fn show_moves(&mut self, seen: &mut Seen, board: &[Pos], me: Color) {
        match seen.board.take() {
            None if board.is_empty() => {}
            None => self.say(&format!(
                "{} on the board: {}",
                plural(board.len(), "move"),
                coords::format_list(board)
            )),
            Some(old) if board.starts_with(&old) => {
                for (i, &p) in board.iter().enumerate().skip(old.len()) {
                    if player::colour_of(i) == me {
                        self.say(&format!("our move {} is on the board", coords::format(p)));
                    } else {
                        self.say(&format!("opponent played {}", coords::format(p)));
                    }
                }
            }
            Some(_) => self.say(&format!(
                "the server's board changed; now {}: {}",
                plural(board.len(), "move"),
                coords::format_list(board)
            )),
        }
        seen.board = Some(board.to_vec());
    }

    fn report(&mut self, state: &GameState, outcome: &Outcome) {
        let line = match &state.win_step {
            Some(l) => format!(", winning line {}", coords::format_list(l)),
            None => String::new(),
        };
        self.say(&format!(
            "result: {outcome}{line} ({})",
            plural(state.board.len(), "move")
        ));
    }

    /// The game, from joining to the result.
    fn play(&mut self, player: &mut dyn Player) -> anyhow::Result<Outcome> {
        let id = match &self.cfg.game {
            Some(id) => {
                server::check_game_id(id).map_err(anyhow::Error::msg)?;
                self.say(&format!("rejoining game {id} as {}", self.cfg.user));
                id.clone()
            }
            None => {
                let id = self.join()?;
                self.say(&format!("joined game {id} as {}", self.cfg.user));
                id
            }
        };
        let mut seen = Seen::default();
        if self.cfg.game.is_none() {
            // A game just joined: every move on its board is news, one by one.
            seen.board = Some(Vec::new());
        }
        // A state read while thinking, to act on without another request.
        let mut pending: Option<Checked> = None;
        loop {
            let checked = match pending.take() {
                Some(c) => c,
                None => self.check(&id)?,
            };
            let (state, fetched) = (checked.state, checked.at);
            let Some(seat) = checked.seat else {
                if !seen.waiting {
                    self.say("waiting for an opponent…");
                    seen.waiting = true;
                }
                continue;
            };
            if state.is_ready() && !seen.announced {
                seen.announced = true;
                let stone = match seat.stone {
                    Color::Black => "black (x)",
                    Color::White => "white (o)",
                };
                let them = seat
                    .them
                    .label()
                    .unwrap_or("an unnamed opponent")
                    .to_string();
                self.say(&format!(
                    "game {id}: playing {stone} against {} with {}",
                    server::quote(&them),
                    player.describe()
                ));
            }
            self.show_moves(&mut seen, &state.board, seat.stone);
            if let Some(outcome) = state.outcome(&seat) {
                self.report(&state, &outcome);
                return Ok(outcome);
            }
            if player::last_move_won(&state.board) {
                let outcome = if player::colour_of(state.board.len() - 1) == seat.stone {
                    Outcome::Won
                } else {
                    Outcome::Lost
                };
                self.say(
                    "the board holds a five but the server names no winner; judging by the board",
                );
                self.report(&state, &outcome);
                return Ok(outcome);
            }
            if state.board.len() >= coords::SIZE * coords::SIZE {
                self.say("the board is full and the server names no winner");
                self.report(&state, &Outcome::Draw);
                return Ok(Outcome::Draw);
            }
            if !state.is_ready() {
                if !seen.waiting {
                    self.say("waiting for an opponent…");
                    seen.waiting = true;
                }
                continue;
            }
            if !self.our_turn(&state, &seat, &mut seen) {
                seen.turn = None;
                continue;
            }
            // Our turn: think within the server's clock.
            let len = state.board.len();
            let first_seen = match seen.turn {
                Some((l, t)) if l == len => t,
                _ => {
                    seen.turn = Some((len, fetched));
                    fetched
                }
            };
            let deadline = match state.left_time {
                Some(left) => fetched + left,
                // Unknown: the turn may have begun up to a poll before we saw it.
                None => first_seen + MOVE_TIME.saturating_sub(self.cfg.poll),
            };
            let budget = deadline
                .saturating_duration_since(Instant::now())
                .saturating_sub(self.cfg.time_margin)
                .max(MIN_THINK);
            let position = Position {
                moves: state.board.clone(),
                me: seat.stone,
            };
            self.say(&format!(
                "thinking (up to {})…",
                server::format_duration(budget)
            ));
            let started = Instant::now();
            if let Err(e) = player.start(&position, budget) {
                self.missed(&format!("the engine cannot start thinking: {e:#}"))?;
                continue;
            }
            let think_end = started + budget;
            let answer = loop {
                let now = Instant::now();
                // Near the end of the think, a slow answer from the server must not hold
                // up the move: wait for the engine alone until well past its time.
                let timeout = self.cfg.request_timeout;
                if now + timeout >= think_end && now < think_end + timeout {
                    let wait = (think_end + timeout - now).min(self.cfg.poll);
                    match player.wait(wait) {
                        Some(a) => break Some(a),
                        None => continue,
                    }
                }
                if let Some(a) = player.wait(self.next_check.saturating_duration_since(now)) {
                    break Some(a);
                }
                // Still thinking: watch the game meanwhile, at the poll pace.
                let Some(now) = self.try_check(&id)? else {
                    continue;
                };
                if now.state.winner.is_some() {
                    player.cancel();
                    self.say("the game ended while thinking");
                    pending = Some(now);
                    break None;
                }
                let still_ours = now.state.board == state.board
                    && now
                        .seat
                        .as_ref()
                        .is_some_and(|s| now.state.server_says_our_turn(s) != Some(false));
                if !still_ours {
                    player.cancel();
                    self.say("the game moved on while thinking; reading it again");
                    pending = Some(now);
                    break None;
                }
            };
            let answer = match answer {
                None => continue,
                Some(Err(e)) => {
                    self.missed(&format!("the engine gave no move: {e:#}"))?;
                    continue;
                }
                Some(Ok(a)) => a,
            };
            let coord = coords::format(answer.pos);
            if state.board.contains(&answer.pos) {
                self.missed(&format!("the engine chose {coord}, which is taken"))?;
                continue;
            }
            let took = started.elapsed();
            match self.server.play(&id, answer.pos) {
                Ok(()) => {
                    self.misses = 0;
                    self.failures = 0;
                    let verdict = answer
                        .verdict
                        .as_ref()
                        .map_or(String::new(), |v| format!(": {v}"));
                    self.say(&format!(
                        "played {coord} ({}, {}){verdict}",
                        answer.detail,
                        server::format_duration(took)
                    ));
                    if let Some(b) = seen.board.as_mut() {
                        b.push(answer.pos);
                    }
                }
                Err(ServerError::Failed(why)) => {
                    self.missed(&format!("move {coord} refused: {why}"))?;
                }
                Err(e) => {
                    self.missed(&format!("move {coord} not confirmed: {e}"))?;
                }
            }
        }
    }

    /// Is it our turn? The server's `current_turn`/`current_stone` decide; without them,
    /// the board's parity. A disagreement between the two is reported once.
    fn our_turn(&mut self, state: &GameState, seat: &Seat, seen: &mut Seen) -> bool {
        let by_board = state.parity_to_move() == seat.stone;
        match state.server_says_our_turn(seat) {
            Some(t) => {
                if t != by_board && seen.disagreement != Some(state.board.len()) {
                    seen.disagreement = Some(state.board.len());
                    self.say(&format!(
                        "the server says it is {} turn, but the board's {} moves say otherwise; following the server",
                        if t { "our" } else { "the opponent's" },
                        state.board.len()
                    ));
                }
                t
            }
            None => by_board,
        }
    }
}

/// `n` and `word`, with an `s` unless `n` is 1.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
