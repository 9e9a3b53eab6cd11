//! The `online` subcommand's arguments: parsed by hand into a `Config`, with the server's
//! pacing rules (poll every 5 to 10 s) enforced here rather than in the client core.

use super::server::check_game_id;
use super::Config;
use std::time::Duration;

/// Usage text for errors.
pub const USAGE: &str = "online --server URL --user U --password P [--game ID] [--poll S] \
[--engine CMD] [--time-margin S] [--timeout S] [--depth D] [--nodes N] \
(S in seconds, fractions allowed; --poll 5 to 10, default 5)";

/// Set (to anything) in the environment to allow a poll interval under the server's 5 s
/// minimum. For the test suite's mock server only; never against a real server.
pub const FAST_POLL_ENV: &str = "WUZI_ONLINE_FAST_POLL";

/// The server asks clients to poll every 5 to 10 seconds.
const POLL_MIN_SECS: f64 = 5.0;
const POLL_MAX_SECS: f64 = 10.0;

/// A number of seconds from `text`, within `min..=max`.
fn seconds(name: &str, text: &str, min: f64, max: f64) -> anyhow::Result<Duration> {
    let v: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| anyhow::anyhow!("{name} expects a number of seconds, got '{text}'"))?;
    anyhow::ensure!(
        (min..=max).contains(&v),
        "{name} must be between {min} and {max} seconds, got {text}"
    );
    Ok(Duration::from_secs_f64(v))
}

/// Parse the arguments after `online`. `fast_poll` lifts the 5 s minimum of `--poll`
/// (see `FAST_POLL_ENV`).
pub fn parse(args: &[String], fast_poll: bool) -> anyhow::Result<Config> {
    let mut server = None;
    let mut user = None;
    let mut password = None;
    let mut cfg = Config::new("", "", "");
    let mut poll = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| anyhow::anyhow!("{name} needs a value; usage: {USAGE}"))
        };
        match a.as_str() {
            "--server" => server = Some(value("--server")?.clone()),
            "--user" => user = Some(value("--user")?.clone()),
            "--password" => password = Some(value("--password")?.clone()),
            "--game" => {
                let v = value("--game")?;
                check_game_id(v).map_err(anyhow::Error::msg)?;
                cfg.game = Some(v.clone());
            }
            "--poll" => {
                let v = value("--poll")?;
                let min = if fast_poll { 0.001 } else { POLL_MIN_SECS };
                let p = seconds("--poll", v, min, POLL_MAX_SECS).map_err(|e| {
                    e.context("the server asks clients to poll every 5 to 10 seconds")
                })?;
                poll = Some(p);
            }
            "--engine" => {
                let v = value("--engine")?;
                anyhow::ensure!(!v.trim().is_empty(), "--engine needs a command");
                cfg.engine = Some(v.clone());
            }
            "--time-margin" => {
                cfg.time_margin = seconds("--time-margin", value("--time-margin")?, 0.0, 50.0)?
            }
            "--timeout" => {
                cfg.request_timeout = seconds("--timeout", value("--timeout")?, 0.001, 60.0)?
            }
            "--depth" => {
                let v = value("--depth")?;
                let d = v
                    .parse()
                    .ok()
                    .filter(|d| (1..=crate::search::MAX_DEPTH).contains(d))
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "--depth expects 1 to {}, got '{v}'",
                            crate::search::MAX_DEPTH
                        )
                    })?;
                cfg.limits.depth = Some(d);
            }
            "--nodes" => {
                let v = value("--nodes")?;
                let n = v.parse().ok().filter(|&n: &u64| n > 0).ok_or_else(|| {
                    anyhow::anyhow!("--nodes expects a positive count, got '{v}'")
                })?;
                cfg.limits.nodes = Some(n);
            }
            other => anyhow::bail!("unexpected argument '{other}'; usage: {USAGE}"),
        }
    }
    let need = |v: Option<String>, name: &str| {
        v.filter(|s| !s.is_empty())
            .ok_or_else(|| anyhow::anyhow!("{name} is required; usage: {USAGE}"))
    };
    cfg.server = need(server, "--server URL")?;
    cfg.user = need(user, "--user U")?;
    cfg.password = need(password, "--password P")?;
    if let Some(p) = poll {
        cfg.poll = p;
        cfg.backoff_cap = p * 4;
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    const BASE: &str = "--server http://127.0.0.1:9 --user me --password 5f4dcc3b";

    #[test]
    fn defaults_and_options() {
        let c = parse(&args(BASE), false).unwrap();
        assert_eq!(c.server, "http://127.0.0.1:9");
        assert_eq!((c.user.as_str(), c.password.as_str()), ("me", "5f4dcc3b"));
        assert_eq!(c.poll, Duration::from_secs(5));
        assert_eq!(c.time_margin, Duration::from_secs(3));
        assert_eq!(c.game, None);
        assert_eq!(c.engine, None);
        let c = parse(
            &args(&format!(
                "{BASE} --game 42 --poll 7.5 --time-margin 1.5 --timeout 4 --depth 6 --nodes 1000 --engine ./pbrain-x"
            )),
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
        let err = parse(&args(&format!("{BASE} --poll 4.9")), false).unwrap_err();
        assert!(format!("{err:#}").contains("5 to 10 seconds"), "{err:#}");
        assert!(parse(&args(&format!("{BASE} --poll 11")), false).is_err());
        assert!(parse(&args(&format!("{BASE} --poll soon")), false).is_err());
        assert!(parse(&args(&format!("{BASE} --poll 5")), false).is_ok());
        // The test-only setting lifts the minimum.
        let c = parse(&args(&format!("{BASE} --poll 0.02")), true).unwrap();
        assert_eq!(c.poll, Duration::from_millis(20));
        assert!(parse(&args(&format!("{BASE} --poll 0")), true).is_err());
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = parse(&args("--user me --password p"), false).unwrap_err();
        assert!(e.to_string().contains("--server URL is required"), "{e}");
        let e = parse(&args(&format!("{BASE} --depth")), false).unwrap_err();
        assert!(e.to_string().contains("--depth needs a value"), "{e}");
        let e = parse(&args(&format!("{BASE} --depth 0")), false).unwrap_err();
        assert!(e.to_string().contains("--depth expects"), "{e}");
        let e = parse(&args(&format!("{BASE} --game ../x")), false).unwrap_err();
        assert!(e.to_string().contains("game id"), "{e}");
        let e = parse(&args(&format!("{BASE} --colour black")), false).unwrap_err();
        assert!(
            e.to_string().contains("unexpected argument '--colour'"),
            "{e}"
        );
        assert!(parse(&args(&format!("{BASE} --time-margin -1")), false).is_err());
    }
}
