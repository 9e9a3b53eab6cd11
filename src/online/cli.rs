//! The `online` subcommand's arguments, turned into a `Config`, with the server's pacing
//! rule (poll every 5 to 10 s) enforced here rather than in the client core.

use super::server::check_game_id;
use super::Config;
use crate::types::Depth;
use std::time::Duration;

/// Set (to anything) in the environment to allow a poll interval under the server's 5 s
/// minimum. For the test suite's mock server only; never against a real server.
pub const FAST_POLL_ENV: &str = "WUZI_ONLINE_FAST_POLL";

/// The server asks clients to poll every 5 to 10 seconds.
const POLL_MIN_SECS: f64 = 5.0;
const POLL_MAX_SECS: f64 = 10.0;

/// The `online` command line. Times are in seconds; fractions are allowed.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game server: http://host[:port][/prefix] (plain HTTP).
    #[arg(long, value_name = "URL")]
    server: String,
    /// The user name sent with join_game and play_game.
    #[arg(long, value_name = "U")]
    user: String,
    /// The password, sent as given (already encoded by your own method).
    #[arg(long, value_name = "P")]
    password: String,
    /// Rejoin this game instead of joining a new one.
    #[arg(long, value_name = "ID")]
    game: Option<String>,
    /// Seconds between two check_game requests: 5 to 10, as the server asks.
    #[arg(long, value_name = "S", default_value = "5")]
    poll: f64,
    /// Play with this pbrain engine (a shell command) instead of Wuzi's own search.
    #[arg(long, value_name = "CMD")]
    engine: Option<String>,
    /// Seconds kept back from the server's clock for the network.
    #[arg(long, value_name = "S", default_value = "3")]
    time_margin: f64,
    /// Seconds each request may take.
    #[arg(long, value_name = "S", default_value = "10")]
    timeout: f64,
    /// Limit every search to this depth.
    #[arg(long, value_parser = crate::cli::depth)]
    depth: Option<Depth>,
    /// Limit every search to this many nodes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Wuzi's own search only (not --engine's).
    #[command(flatten)]
    threads: crate::cli::Threads,
}

/// A number of seconds within `min..=max`.
fn seconds(name: &str, v: f64, min: f64, max: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(
        v.is_finite() && (min..=max).contains(&v),
        "{name} must be between {min} and {max} seconds, got {v}"
    );
    Ok(Duration::from_secs_f64(v))
}

impl Args {
    /// The client's configuration. `fast_poll` lifts the 5 s minimum of `--poll` (see
    /// `FAST_POLL_ENV`).
    pub fn into_config(self, fast_poll: bool) -> anyhow::Result<Config> {
        for (name, v) in [
            ("--server URL", &self.server),
            ("--user U", &self.user),
            ("--password P", &self.password),
        ] {
            anyhow::ensure!(!v.is_empty(), "{name} must not be empty");
        }
        let mut cfg = Config::new(&self.server, &self.user, &self.password);
        if let Some(g) = self.game {
            check_game_id(&g).map_err(anyhow::Error::msg)?;
            cfg.game = Some(g);
        }
        let min = if fast_poll { 0.001 } else { POLL_MIN_SECS };
        cfg.poll = seconds("--poll", self.poll, min, POLL_MAX_SECS)
            .map_err(|e| e.context("the server asks clients to poll every 5 to 10 seconds"))?;
        cfg.backoff_cap = cfg.poll * 4;
        if let Some(e) = self.engine {
            anyhow::ensure!(!e.trim().is_empty(), "--engine needs a command");
            cfg.engine = Some(e);
        }
        cfg.time_margin = seconds("--time-margin", self.time_margin, 0.0, 50.0)?;
        cfg.request_timeout = seconds("--timeout", self.timeout, 0.001, 60.0)?;
        cfg.limits.depth = self.depth;
        cfg.limits.nodes = self.nodes;
        cfg.limits.threads = self.threads.threads;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "--server http://127.0.0.1:9 --user me --password 5f4dcc3b";

    fn parse(line: &str, fast_poll: bool) -> anyhow::Result<Config> {
        match crate::cli::parse(&format!("online {line}")).map_err(anyhow::Error::msg)? {
            crate::cli::Command::Online(a) => a.into_config(fast_poll),
            other => anyhow::bail!("{other:?}"),
        }
    }

    #[test]
    fn defaults_and_options() {
        let c = parse(BASE, false).unwrap();
        assert_eq!(c.server, "http://127.0.0.1:9");
        assert_eq!((c.user.as_str(), c.password.as_str()), ("me", "5f4dcc3b"));
        assert_eq!(c.poll, Duration::from_secs(5));
        assert_eq!(c.time_margin, Duration::from_secs(3));
        assert_eq!(c.game, None);
        assert_eq!(c.engine, None);
        let c = parse(
            &format!(
                "{BASE} --game 42 --poll 7.5 --time-margin 1.5 --timeout 4 --depth 6 --nodes 1000 --engine ./pbrain-x"
            ),
            false,
        )
        .unwrap();
        assert_eq!(c.game.as_deref(), Some("42"));
        assert_eq!(c.poll, Duration::from_millis(7500));
        assert_eq!(c.backoff_cap, Duration::from_secs(30));
        assert_eq!(c.time_margin, Duration::from_millis(1500));
        assert_eq!(c.request_timeout, Duration::from_secs(4));
        assert_eq!((c.limits.depth, c.limits.nodes), (Some(6), Some(1000)));
        assert_eq!(c.engine.as_deref(), Some("./pbrain-x"));
    }

    #[test]
    fn poll_interval_is_the_servers() {
        let err = parse(&format!("{BASE} --poll 4.9"), false).unwrap_err();
        assert!(format!("{err:#}").contains("5 to 10 seconds"), "{err:#}");
        assert!(parse(&format!("{BASE} --poll 11"), false).is_err());
        assert!(parse(&format!("{BASE} --poll soon"), false).is_err());
        assert!(parse(&format!("{BASE} --poll 5"), false).is_ok());
        // The test-only setting lifts the minimum.
        let c = parse(&format!("{BASE} --poll 0.02"), true).unwrap();
        assert_eq!(c.poll, Duration::from_millis(20));
        assert!(parse(&format!("{BASE} --poll 0"), true).is_err());
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = parse("--user me --password p", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--server <URL>"), "{e}");
        let e = parse(&format!("{BASE} --depth"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--depth <DEPTH>"), "{e}");
        let e = parse(&format!("{BASE} --depth 0"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a depth"), "{e}");
        let e = parse(&format!("{BASE} --game ../x"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("game id"), "{e}");
        let e = parse(&format!("{BASE} --colour black"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unexpected argument '--colour'"), "{e}");
        assert!(parse(&format!("{BASE} --time-margin -1"), false).is_err());
    }
}
