//! `pbrain-wuzi`: with no arguments, the pbrain protocol on stdin/stdout (as managers and
//! GUIs run it); the subcommands are for people and tools (see `cli`).

use std::io::{self, IsTerminal, Write};
use wuzi::cli::{Cli, Command, UsageError};
use wuzi::protocol::{self, output::Output};

/// Exit status 2: a command line that cannot be carried out, as for clap's own errors.
const USAGE_STATUS: i32 = 2;

fn main() {
    let cli = wuzi::cli::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(()) => {}
        // Whoever read the output has stopped reading (`pbrain-wuzi analyse ... | head`):
        // there is nothing more to say and nobody to say it to, so end quietly, as other
        // command-line tools do.
        Err(e) if broken_pipe(&e) => {}
        Err(e) => {
            // One line, worded like the parser's errors: `error: ` and the causes.
            eprintln!("error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                std::process::exit(USAGE_STATUS);
            }
            std::process::exit(1);
        }
    }
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => {
            if io::stdin().is_terminal() {
                // Only a person at a terminal sees this; managers use pipes.
                // Lines that fit 80 columns.
                eprintln!(
                    "Wuzi, pbrain protocol: type START 15 (END quits); to play: pbrain-wuzi play"
                );
                eprintln!(
                    "Each move thinks up to {} s unless INFO timeout_turn says (1000: 1 s).",
                    wuzi::search::time::DEFAULT_TURN_MS / 1000
                );
            }
            let stdin = io::stdin();
            protocol::run(io::BufReader::new(stdin), Output::new(io::stdout()));
            // Every command is answered by now; leave without waiting for the input thread.
            std::process::exit(0);
        }
        Some(Command::Bench {
            threads: Some(threads),
            to_depth: Some(depth),
            ..
        }) => {
            wuzi::bench::time_to_depth(threads, depth, &mut io::stderr())?;
            Ok(())
        }
        Some(Command::Bench {
            threads: Some(threads),
            seconds,
            ..
        }) => {
            wuzi::bench::run_threads(threads, seconds, &mut io::stderr())?;
            Ok(())
        }
        Some(Command::Bench { depth, .. }) => {
            wuzi::bench::run(depth, &mut io::stderr())?;
            Ok(())
        }
        Some(Command::Analyse(req)) => wuzi::analyse::run(&req, &mut io::stdout()),
        Some(Command::Review(req)) => wuzi::review::run(&req, &mut io::stdout()),
        Some(Command::Selfplay(args)) => wuzi::selfplay::run(&args, &mut io::stdout()).map(drop),
        Some(Command::Siblings(args)) => {
            wuzi::selfplay::siblings::run(&args, &mut io::stdout()).map(drop)
        }
        Some(Command::Train(args)) => wuzi::train::command(&args, &mut io::stdout()),
        Some(Command::Tune(args)) => wuzi::tune::run(&args, &mut io::stdout()).map(drop),
        Some(Command::Play(args)) => {
            let escapes = wuzi::play::terminal::supports_escapes();
            let colour = escapes && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            let display = wuzi::play::Display {
                style: if colour {
                    wuzi::play::screen::Style::Colour
                } else {
                    wuzi::play::screen::Style::Plain
                },
                // The live line rewrites itself with escapes: without them, none.
                live: escapes,
            };
            wuzi::play::run(
                args.options(),
                &mut io::stdin().lock(),
                &mut io::stdout(),
                display,
            )
        }
        Some(Command::Serve(args)) => wuzi::serve::run(&args, &mut |address| {
            if args.host != "127.0.0.1" {
                eprintln!(
                    "warning: listening on {}: other machines can reach this board (with its token)",
                    args.host
                );
            }
            println!("Wuzi's board: open {address}");
            println!("(Ctrl-C stops the server.)");
            let _ = io::stdout().flush();
            if args.open && wuzi::serve::open_browser(address).is_err() {
                eprintln!("could not open a browser: open the address above yourself");
            }
        }),
        Some(Command::Online(args)) => {
            let fast_poll = std::env::var_os(wuzi::online::cli::FAST_POLL_ENV).is_some();
            let config = args
                .into_config(fast_poll)
                .map_err(|e| UsageError(format!("{e:#}")))?;
            wuzi::online::run(&config, &mut io::stdout())?;
            Ok(())
        }
    }
}
