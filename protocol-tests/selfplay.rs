//! `pbrain-wuzi selfplay` run as a person runs it: from the command line, stopped in the
//! middle of a long run, its file read back; and with arguments it cannot use.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use wuzi::selfplay::data;

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wuzi-selfplay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn a_stopped_run_keeps_every_game_it_finished() {
    let out = temp("stopped.wsp");
    let mut child = binary()
        .args([
            "selfplay", "--games", "100000", "--nodes", "300", "--jobs", "2",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Let it write a few games, then kill it (no chance to tidy up).
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let games = std::fs::read(&out)
            .ok()
            .and_then(|b| data::parse(&b).ok())
            .map_or(0, |c| c.games.len());
        if games >= 4 {
            break;
        }
        assert!(Instant::now() < deadline, "no 4 games in 120 s");
        thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let contents = data::read(&out).unwrap();
    assert!(contents.games.len() >= 4);
    for g in &contents.games {
        assert_eq!(g.labels.len(), g.moves.len() - g.opening);
    }
    // The run can go on in the same file, unless the kill cut a game off.
    let more = binary()
        .args([
            "selfplay", "--games", "2", "--nodes", "300", "--append", "--seed", "9",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&more.stderr);
    if contents.cut_off == 0 {
        assert!(more.status.success(), "{stderr}");
        assert_eq!(
            data::read(&out).unwrap().games.len(),
            contents.games.len() + 2
        );
    } else {
        assert!(!more.status.success());
        assert!(stderr.contains("ends in a cut-off game"), "{stderr}");
    }
}

#[test]
fn bad_arguments_get_a_clear_message_and_no_file() {
    let out = temp("never.wsp");
    for (args, expected) in [
        (&["--games", "0"][..], "--games"),
        (&["--rule", "3"][..], "expected 0 (freestyle)"),
        (&["--size", "40"][..], "sides from 5 to 32"),
        (
            &["--nodes", "10", "--depth", "3"][..],
            "cannot be used with",
        ),
        (
            &["--openings", "/no/such/file"][..],
            "cannot read openings /no/such/file",
        ),
    ] {
        let o = binary()
            .arg("selfplay")
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out.exists(), "{args:?} left a file");
    }
}
