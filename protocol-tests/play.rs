//! `pbrain-wuzi play` driven the way a person uses it: in a terminal (tmux, 80×25), keys
//! typed, the screen read back. Needs `tmux` on the PATH (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

/// How long one screen may take to appear.
const SCREEN_TIMEOUT: Duration = Duration::from_secs(30);

/// A tmux session running one command, ended when dropped.
struct Terminal {
    name: String,
}

impl Terminal {
    fn start(name: &str, command: &str, env: &[(&str, &str)]) -> Terminal {
        let have_tmux = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            have_tmux,
            "this test needs tmux (apt-get install tmux); .ci/run installs it"
        );
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", name])
            .output();
        let mut args = vec!["new-session", "-d", "-s", name, "-x", "80", "-y", "25"];
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for p in &pairs {
            args.extend(["-e", p.as_str()]);
        }
        // The pane stays after the program ends, so that its last screen can be read.
        let shell = format!("{command}; echo '[exited]'; sleep 60");
        args.push(&shell);
        let status = Command::new("tmux")
            .args(&args)
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        Terminal {
            name: name.to_string(),
        }
    }

    fn type_line(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .expect("tmux runs");
        assert!(status.success());
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "Enter"])
            .status()
            .expect("tmux runs");
        assert!(status.success());
    }

    /// The screen as a person sees it (`escapes`: with its colours as escape sequences).
    fn screen(&self, escapes: bool) -> String {
        // -J: a line the terminal wrapped comes back whole.
        let mut args = vec!["capture-pane", "-p", "-J", "-t", &self.name];
        if escapes {
            args.push("-e");
        }
        let out = Command::new("tmux")
            .args(&args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` and Enter, and waits for the answer: a new prompt (or the program's
    /// end) at the bottom of a changed screen, which is returned.
    fn command(&self, text: &str) -> String {
        let before = self.screen(false);
        self.type_line(text);
        self.wait_for(&format!("the answer to {text:?}"), |s| s != before)
    }

    /// Waits until the screen's last non-blank line is a prompt (ends in `>`) or the
    /// program's end, and `done` holds; returns the screen.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        self.wait_until(what, |s| {
            let last = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            (last.trim_end().ends_with('>') || last.contains("[exited]")) && done(s)
        })
    }

    /// Waits until `done` holds for the screen; returns the screen.
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen(false);
            if done(&s) {
                return s;
            }
            assert!(
                start.elapsed() < SCREEN_TIMEOUT,
                "waited {} s for {what}; the screen:\n{s}",
                SCREEN_TIMEOUT.as_secs()
            );
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .output();
    }
}

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_pbrain-wuzi")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wuzi-play-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The character drawn for column `x` (from 0) of the board row numbered `row` (from 1).
fn cell(screen: &str, row: usize, x: usize) -> char {
    let prefix = format!("{row:>3} ");
    let line = screen
        .lines()
        .rev()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no board row {row} on the screen:\n{screen}"));
    line.chars().nth(prefix.len() + 2 * x + 1).unwrap_or(' ')
}

/// The screen after the last occurrence of `marker`.
fn after<'a>(screen: &'a str, marker: &str) -> &'a str {
    screen.rfind(marker).map_or("", |i| &screen[i..])
}

#[test]
fn a_game_in_a_terminal() {
    let t = Terminal::start(
        "wuzi-play-game",
        &format!("{} play --size 9 --time 0.2", exe()),
        &[],
    );
    t.wait_for("the first prompt", |s| s.contains("your move as X>"));

    // A move, and Wuzi's answer on the board.
    let s = t.command("e5");
    assert!(s.contains("Wuzi plays"), "{s}");
    assert_eq!(cell(&s, 5, 4), 'X', "{s}");
    // The last move is shown in reverse video.
    assert!(t.screen(true).contains("7m"), "{}", t.screen(true));

    // Refusals keep the game as it was.
    assert!(t.command("e5").contains("e5 is taken."));
    assert!(t.command("hello").contains("'hello' is neither a move"));

    // Undo takes back the move and the answer.
    let s = t.command("undo");
    assert!(s.contains("Took back 2 moves."), "{s}");
    assert_eq!(cell(after(&s, "Took back"), 5, 4), '.', "{s}");

    // A hint, then a whole game to its end: moves along the edges, never a block, so
    // Wuzi wins; a move Wuzi already took is skipped.
    assert!(t.command("hint").contains("Hint: "));
    let edges = [
        "a1", "i9", "a9", "i1", "c1", "g9", "a3", "i7", "e1", "e9", "a7", "i3", "g1", "c9",
    ];
    let mut result = String::new();
    for m in edges {
        let s = t.command(m);
        if s.contains("wins with") {
            result = s;
            break;
        }
    }
    assert!(
        result.contains("White (Wuzi) wins with"),
        "no result:\n{result}"
    );
    assert!(
        result.contains("game over (new, undo, save FILE, quit)>"),
        "{result}"
    );
    // The five is highlighted (green background).
    let coloured = t.screen(true);
    assert!(coloured.contains("42m"), "{coloured}");

    // Saved, a new game, loaded again.
    let dir = scratch("game");
    let file = dir.join("game.psq");
    assert!(t
        .command(&format!("save {}", file.display()))
        .contains("Saved "));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .starts_with("Piskvorky 9x9"));
    assert!(after(&t.command("new"), "New game").contains("your move as X>"));
    let s = t.command(&format!("load {}", file.display()));
    assert!(
        after(&s, "Loaded").contains("White (Wuzi) wins with"),
        "{s}"
    );
    assert!(t.command("quit").contains("[exited]"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plain_ascii_without_colour() {
    // NO_COLOR: no escapes; the last move in ( ) and the winning five in [ ].
    let dir = scratch("plain");
    let file = dir.join("four.txt");
    // Black (the person) to move with a1 b1 c1 d1: e1 makes five.
    std::fs::write(&file, "a1a9b1b9c1c9d1e9\n").unwrap();
    let t = Terminal::start(
        "wuzi-play-plain",
        &format!("{} play --size 9 --time 0.2", exe()),
        &[("NO_COLOR", "1")],
    );
    t.wait_for("the first prompt", |s| s.contains("your move as X>"));
    let s = t.command(&format!("load {}", file.display()));
    assert!(
        after(&s, "Loaded 8 moves").contains("(O)"),
        "the last move is marked:\n{s}"
    );
    let s = t.command("e1");
    assert!(
        s.contains("Black (you) wins with e1: a1 b1 c1 d1 e1."),
        "{s}"
    );
    assert!(s.contains("[X X X X X]"), "{s}");
    assert!(!t.screen(true).contains('\x1b'), "no escapes with NO_COLOR");
    // The game is not saved: quit asks first.
    assert!(t.command("quit").contains("Quit anyway? (y/n)>"));
    assert!(t.command("y").contains("[exited]"));
    assert!(Path::new(&file).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn what_a_person_reads() {
    // The messages of a new user's first session, each worded for people: values for
    // you, as a win rate and an evaluation; the board's range for a cell off it; a file
    // name that names no format refused; a broken record refused with its line; quitting
    // an unsaved game asks.
    let dir = scratch("reads");
    std::fs::write(
        dir.join("broken.psq"),
        "Piskvorky 9x9, 11:11, 0\n5,5,0\n9,x,0\n6,6,0\n4,4,0\n-1\n",
    )
    .unwrap();
    std::fs::write(dir.join("one.txt"), "e5\n").unwrap();
    let t = Terminal::start(
        "wuzi-play-reads",
        &format!("cd {} && {} play --size 9 --time 0.2", dir.display(), exe()),
        &[],
    );
    t.wait_for("the first prompt", |s| s.contains("your move as X>"));
    let s = t.command("e5");
    let said = after(&s, "Wuzi plays ");
    let line = said.lines().next().unwrap_or("");
    assert!(
        line.contains(" s): ") && (line.contains("% for you (eval ") || line.contains(" in ")),
        "{s}"
    );
    let s = t.command("hint");
    let line = after(&s, "Hint: ").lines().next().unwrap_or("").to_string();
    assert!(line.contains("% for you (eval "), "{s}");
    let s = t.command("p3");
    assert!(
        s.contains("p3 is off the 9x9 board: columns a to i, rows 1 to 9, or x,y from 0,0 to 8,8."),
        "{s}"
    );
    let s = t.command("9,0");
    assert!(s.contains("9,0 is off the 9x9 board"), "{s}");
    let s = t.command("save game1.xyz");
    assert!(
        s.contains("Not saved: game1.xyz does not say which format to write: end the name in .psq, .sgf, .sav, or .txt or .pos for a pos string."),
        "{s}"
    );
    assert!(!dir.join("game1.xyz").exists());
    let s = t.command("load broken.psq");
    assert!(
        s.contains("Not loaded: broken.psq (psq file): line 3: expected a move x,y,time: whole numbers, x and y from 1, found \"9,x,0\""),
        "{s}"
    );
    let s = t.command("quit");
    assert!(
        s.contains("The game is not saved (save FILE saves it). Quit anyway? (y/n)>"),
        "{s}"
    );
    let s = t.command("n");
    assert!(after(&s, "Not quitting").contains("your move as X>"), "{s}");
    // new and load ask too before the unsaved game goes.
    let s = t.command("new");
    assert!(s.contains("Start a new game anyway? (y/n)>"), "{s}");
    let s = t.command("no");
    assert!(
        after(&s, "No new game: the game goes on.").contains("your move as X>"),
        "{s}"
    );
    let s = t.command("load one.txt");
    assert!(s.contains("Load one.txt in its place? (y/n)>"), "{s}");
    let s = t.command("y");
    assert!(s.contains("Loaded 1 move (freestyle on 9x9)."), "{s}");
    let s = t.command("d4");
    assert!(s.contains("Wuzi plays "), "{s}");
    let s = t.command("undo");
    assert!(s.contains("Took back 2 moves."), "{s}");
    let s = t.command("save game1.psq");
    assert!(s.contains("Saved 2 moves to game1.psq."), "{s}");
    assert!(t.command("quit").contains("[exited]"), "saved: no question");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_protocol_says_what_it_waits_for_in_a_terminal() {
    // With no arguments, from a terminal: one hint line, then the protocol as usual.
    let t = Terminal::start("wuzi-play-protocol", exe(), &[]);
    let hint = "Wuzi, pbrain protocol: type START 15 (END quits); to play: pbrain-wuzi play";
    let time = "Each move thinks up to 30 s unless INFO timeout_turn says (1000: 1 s).";
    t.wait_until("the hint", |s| {
        s.lines().any(|l| l.trim_end() == hint) && s.lines().any(|l| l.trim_end() == time)
    });
    t.type_line("START 9");
    t.wait_until("OK", |s| s.lines().any(|l| l.trim() == "OK"));
    t.type_line("END");
    t.wait_until("the exit", |s| s.contains("[exited]"));
}
