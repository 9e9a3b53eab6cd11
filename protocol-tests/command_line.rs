//! The subcommands run as a person types them: what they print, on which stream, and the
//! exit status (0 done, 1 a file or server that failed, 2 a command line that cannot be
//! carried out, as the README says).

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the binary starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[path = "../src/scratch_files.rs"]
mod scratch_files;

/// A fresh path for a test's file, removed with its folder when the test ends.
fn scratch(name: &str) -> std::path::PathBuf {
    scratch_files::fresh("cli", name)
}

#[test]
fn analyse_takes_the_cells_people_type_and_says_whose_move_it_is() {
    let analyse = |moves: &str| {
        let line = format!("analyse --depth 3 --threads 1 {moves}");
        run(&line.split_whitespace().collect::<Vec<_>>())
    };
    let o = analyse("h8 i9 j7");
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.starts_with(
            "freestyle on 15x15 after 3 moves; white to move (rows counted from the top):"
        ),
        "{out}"
    );
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("Best for white: "), "{out}");
    assert!(last.contains("% for white (eval "), "{out}");
    // The same position in the protocol's x,y gives the same answer.
    let o = analyse("7,7 8,8 9,6");
    assert_eq!(text(&o.stdout), out);
}

#[test]
fn command_line_faults_exit_2_with_one_error() {
    let saved = scratch("x.psq");
    std::fs::write(&saved, "Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\n").unwrap();
    for (args, says) in [
        (
            vec!["play", "--time", "-1"],
            "error: invalid value '-1' for '--time <TIME>': expected a number of seconds above 0",
        ),
        (
            vec!["review", saved.to_str().unwrap(), "--depth", "-3"],
            "error: invalid value '-3' for '--depth <DEPTH>': expected a depth from 1",
        ),
        (
            vec!["online", "--server", "http://127.0.0.1:9", "--user", "u", "--password", "p", "--poll", "1"],
            "error: the server asks clients to poll every 5 to 10 seconds: --poll must be between 5 and 10 seconds, got 1",
        ),
        (
            vec!["analyse", "--depth", "2", "h8", "p3"],
            "error: move 2 (p3): p3 is off the 15x15 board: columns a to o, rows 1 to 15, or x,y from 0,0 to 14,14",
        ),
        (
            vec!["analyse", "--depth", "2", "h8", "7,7"],
            "error: move 2 (7,7): h8 is taken",
        ),
    ] {
        let o = run(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(says), "{args:?}: {err}");
        assert!(!err.contains("backtrace"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_broken_record_is_refused_not_cut_short() {
    // The report's file: the second move line broken, then two good moves and the end
    // code. It used to be reviewed as a game of one move.
    let game = scratch("broken.psq");
    let review = |moves: &str| {
        std::fs::write(&game, format!("Piskvorky 15x15, 11:11, 0\n{moves}-1\n")).unwrap();
        run(&[
            "review",
            game.to_str().unwrap(),
            "--depth",
            "2",
            "--threads",
            "1",
        ])
    };
    let o = review("8,8,0\n9,x,0\n10,10,0\n11,11,0\n");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {} (psq file): line 3: expected a move x,y,time: whole numbers, x and y from 1, found \"9,x,0\"",
            game.display()
        )
    );
    assert!(o.stdout.is_empty());
    // Mended, it is a game of four moves, with the plural right and a loss never negative.
    let o = review("8,8,0\n9,9,0\n10,10,0\n11,11,0\n");
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        out.contains(", 4 moves; each position searched to depth 2"),
        "{out}"
    );
    assert!(!out.contains("-0.0") && !out.contains("1 moves"), "{out}");
    // A game of one move: white has none to sum up (it once read "average loss -0.0").
    let o = review("8,8,0\n");
    let out = text(&o.stdout);
    assert!(out.contains(", 1 move; each position"), "{out}");
    assert!(out.contains("\nWhite: no moves\n"), "{out}");
    assert!(!out.contains("-0.0"), "{out}");
}

#[test]
fn a_forced_move_is_searched_for_its_value() {
    // Black must block white's four at b3, and white then wins with d4: the value said
    // is that, not the evaluation of a search cut short because only one move is left.
    let o = run(&[
        "analyse",
        "--size",
        "9",
        "--depth",
        "10",
        "--threads",
        "1",
        "e5",
        "e6",
        "d7",
        "d5",
        "c6",
        "f4",
        "b8",
        "g5",
        "g3",
        "d2",
        "e3",
        "c4",
        "f7",
        "a2",
    ]);
    let out = text(&o.stdout);
    let last = out.lines().last().unwrap_or("");
    assert_eq!(
        last.split("; depth").next(),
        Some("Best for black: b3: white wins in 3 moves"),
        "{out}"
    );
}

#[test]
fn review_refuses_what_it_cannot_review_before_searching() {
    let file = |name: &str, text: &str| {
        let p = scratch(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let after_five = file("five.txt", "h8a1i8a2j8a3k8a4l8a5\n");
    let o = run(&["review", &after_five, "--depth", "2", "--threads", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("move 10 (a5) comes after the five of move 9 (l8)"),
        "{}",
        text(&o.stderr)
    );
    let empty = file("empty.txt", "\n");
    let o = run(&["review", &empty, "--depth", "2"]);
    assert!(
        text(&o.stderr).contains("no moves to review"),
        "{}",
        text(&o.stderr)
    );
    // --sgf names SGF, and is refused before any search.
    let game = file("game.txt", "e5d5\n");
    let out = scratch("out.psq");
    let o = run(&[
        "review",
        &game,
        "--depth",
        "2",
        "--sgf",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).starts_with("error: --sgf writes SGF"),
        "{}",
        text(&o.stderr)
    );
    assert!(o.stdout.is_empty() && !out.exists());
    // A pos string's board, given.
    let o = run(&[
        "review",
        &game,
        "--depth",
        "2",
        "--threads",
        "1",
        "--size",
        "9",
    ]);
    assert!(
        text(&o.stdout).contains("(freestyle on 9x9), 2 moves"),
        "{}",
        text(&o.stdout)
    );
    let psq = file("g.psq", "Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\n");
    let o = run(&["review", &psq, "--depth", "2", "--size", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--size is for pos strings"),
        "{}",
        text(&o.stderr)
    );
}
