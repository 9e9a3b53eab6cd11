//! The subcommands piped into a reader that stops early, as in
//! `pbrain-wuzi analyse ... | head -1`: they end quietly and successfully, with no error
//! message, like other command-line tools.

use std::io::Read;
use std::process::{Command, Stdio};

/// Run `pbrain-wuzi args` with the stream it reports on (`stderr` or stdout) closed by
/// its reader at once, and return the exit status and what the other stream said.
fn run_unread(args: &[&str], stderr: bool) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Close the read end before the child has searched anything: every line it writes
    // to that stream then meets a pipe with no reader.
    let mut other: Box<dyn Read> = if stderr {
        drop(child.stderr.take());
        Box::new(child.stdout.take().expect("stdout is piped"))
    } else {
        drop(child.stdout.take());
        Box::new(child.stderr.take().expect("stderr is piped"))
    };
    let mut said = String::new();
    other
        .read_to_string(&mut said)
        .expect("the other stream reads");
    (child.wait().expect("the child ends"), said)
}

#[test]
fn analyse_review_and_bench_end_quietly_when_their_reader_goes_away() {
    let review = concat!(env!("CARGO_MANIFEST_DIR"), "/src/records/c-gomoku-cli.sgf");
    for (args, on_stderr) in [
        (
            &["analyse", "--threads", "1", "--depth", "10", "7,7"][..],
            false,
        ),
        (
            &["review", review, "--depth", "2", "--threads", "1"][..],
            false,
        ),
        (&["bench", "3"][..], true),
    ] {
        let (status, said) = run_unread(args, on_stderr);
        assert!(status.success(), "{args:?}: {status}, said {said:?}");
        // Each of them is silent on its other stream, so anything there is a complaint.
        assert!(said.is_empty(), "{args:?} said {said:?}");
    }
}
