//! `pbrain-wuzi`: with no arguments, the pbrain protocol on stdin/stdout; `bench [depth]`
//! runs the fixed bench positions; `analyse ...` searches one position; `online ...` plays
//! a game on the seeds' game server.

use std::io;
use wuzi::protocol::{self, output::Output};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            let stdin = io::stdin();
            protocol::run(io::BufReader::new(stdin), Output::new(io::stdout()));
            // Every command is answered by now; leave without waiting for the input thread.
            std::process::exit(0);
        }
        Some("bench") => {
            let depth = match args.get(1) {
                Some(d) => d.parse().map_err(|_| anyhow::anyhow!("bench depth must be a number, got '{d}'"))?,
                None => wuzi::bench::DEFAULT_DEPTH,
            };
            wuzi::bench::run(depth, &mut io::stderr())?;
            Ok(())
        }
        Some("analyse") => {
            let req = wuzi::analyse::Request::parse(&args[1..])?;
            wuzi::analyse::run(&req, &mut io::stdout())
        }
        Some("play") => {
            use std::io::IsTerminal;
            let opts = wuzi::play::Options::parse(&args[1..])?;
            let terminal = io::stdout().is_terminal();
            let colour = terminal
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb");
            let display = wuzi::play::Display {
                style: if colour {
                    wuzi::play::screen::Style::Colour
                } else {
                    wuzi::play::screen::Style::Plain
                },
                live: terminal,
            };
            wuzi::play::run(opts, &mut io::stdin().lock(), &mut io::stdout(), display)
        }
        Some("review") => {
            let req = wuzi::review::Request::parse(&args[1..])?;
            wuzi::review::run(&req, &mut io::stdout())
        }
        Some("online") => {
            let fast_poll = std::env::var_os(wuzi::online::cli::FAST_POLL_ENV).is_some();
            let config = wuzi::online::cli::parse(&args[1..], fast_poll)?;
            wuzi::online::run(&config, &mut io::stdout())?;
            Ok(())
        }
        Some(other) => anyhow::bail!("unknown subcommand '{other}' (run with no arguments for the protocol, 'bench [depth]', '{}', '{}', '{}' or '{}')", wuzi::analyse::USAGE, wuzi::play::USAGE, wuzi::review::USAGE, wuzi::online::cli::USAGE),
    }
}
