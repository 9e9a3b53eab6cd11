//! `pbrain-wuzi selfplay`, `siblings` and `train` run as a person runs them: self-play from the
//! command line, stopped in the middle of a long run, its file read back; training on
//! its games into a weights file the engine can compile in; and arguments neither can use.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use wuzi::pattern::weights::Weights;
use wuzi::selfplay::data;

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
}

#[path = "../src/scratch_files.rs"]
mod scratch_files;

fn temp(name: &str) -> PathBuf {
    scratch_files::fresh("selfplay-cli", name)
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
        refused("selfplay", args, &out, expected);
    }
}

/// `pbrain-wuzi SUBCOMMAND ARGS --out OUT` fails with a message that says `expected`,
/// without a panic and without writing `out`.
fn refused(subcommand: &str, args: &[&str], out: &Path, expected: &str) {
    let o = binary()
        .arg(subcommand)
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.exists(), "{args:?} left a file");
}

fn train(data: &Path, out: &Path, extra: &[&str]) -> Output {
    binary()
        .arg("train")
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(["--iterations", "60", "--min-count", "20"])
        .args(extra)
        .output()
        .unwrap()
}

/// `train`, which must succeed: its standard output.
fn train_ok(data: &Path, out: &Path, extra: &[&str]) -> String {
    let o = train(data, out, extra);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

/// The first number on each side of the line `label A ... -> B ...`.
fn before_after(stdout: &str, label: &str) -> (f64, f64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("{label}: {stdout}"));
    let (left, right) = line[label.len()..]
        .split_once("->")
        .unwrap_or_else(|| panic!("{line}"));
    let first_number = |s: &str| -> f64 {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    (first_number(left), first_number(right))
}

#[test]
fn self_play_then_training_writes_weights_that_fit_better() {
    let data = temp("games.wsp");
    let o = binary()
        .args([
            "selfplay", "--games", "16", "--nodes", "2000", "--jobs", "2", "--seed", "5",
        ])
        .arg("--out")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let out = temp("freestyle.txt");
    let stdout = train_ok(&data, &out, &[]);
    assert!(stdout.contains("16 games of this rule"), "{stdout}");
    let (before, after) = before_after(&stdout, "loss on training positions");
    assert!(after < before, "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    let w = Weights::parse(&text).unwrap();
    assert_eq!(w.sides.len(), 1);
    assert!(text.contains("written by `pbrain-wuzi train`"), "{text}");
    // The fit moved the class values away from the compiled-in ones.
    let builtin = wuzi::pattern::weights::builtin(wuzi::types::Rule::Freestyle);
    assert_ne!(w.sides[0].class, builtin.sides[0].class);

    // The same run again needs --force, and then writes the same bytes.
    let o = train(&data, &out, &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("give --force"));
    let o = train(&data, &out, &["--force"]);
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);

    // Training can go on from the file it wrote.
    let again = temp("again.txt");
    let stdout = train_ok(&data, &again, &["--from", out.to_str().unwrap()]);
    let (from, _) = before_after(&stdout, "loss on training positions");
    assert!((from - after).abs() < 1e-4, "{from} vs {after}");

    // The move ordering learns from the same games: the chosen moves rank higher, and
    // the file it writes reads back as a policy file.
    let policy = temp("policy.txt");
    let stdout = train_ok(&data, &policy, &["--policy", "--temperature", "60"]);
    assert!(stdout.contains("of them ordered"), "{stdout}");
    let (before, after) = before_after(&stdout, "loss on training positions");
    assert!(after < before, "{stdout}");
    let text = std::fs::read_to_string(&policy).unwrap();
    assert!(
        text.contains("written by `pbrain-wuzi train --policy`"),
        "{text}"
    );
    let learned = wuzi::pattern::policy::Policy::parse(&text).unwrap();
    assert_eq!(learned.sides.len(), 1);
    assert!(!learned.sides[0].is_empty(), "{text}");

    // The evaluation's network learns from the same games, on top of the cell values,
    // and writes a file that reads back as a network; the same run writes the same bytes.
    let net = temp("net.txt");
    let stdout = train_ok(&data, &net, &["--net", "--passes", "4"]);
    assert_eq!(stdout.matches("pass ").count(), 4, "{stdout}");
    let (before, after) = before_after(&stdout, "loss on training positions");
    assert!(after < before, "{stdout}");
    let text = std::fs::read_to_string(&net).unwrap();
    assert!(
        text.contains("written by `pbrain-wuzi train --net`"),
        "{text}"
    );
    let learned = wuzi::pattern::net::NetFile::parse(&text).unwrap();
    assert!(learned.out.iter().any(|&w| w != 0.0), "{text}");
    train_ok(&data, &net, &["--net", "--passes", "4", "--force"]);
    assert_eq!(std::fs::read_to_string(&net).unwrap(), text);
    // Renju's colours have cell values of their own: no network for it yet.
    let o = train(&data, &temp("renju-net.txt"), &["--net", "--rule", "renju"]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("not renju"), "{stderr}");

    // Positions one move off the games, searched, train the per-code values on top of
    // the compiled-in classes.
    let siblings = temp("siblings.wsp");
    let o = binary()
        .args(["siblings", "--nodes", "500"])
        .arg(&data)
        .arg("--out")
        .arg(&siblings)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("from 16 games"), "{stdout}");
    let coded = temp("coded.txt");
    let stdout = train_ok(&siblings, &coded, &["--lambda", "0", "--keep-classes"]);
    let (before, after) = before_after(&stdout, "loss on training positions");
    assert!(after < before, "{stdout}");
    let w = Weights::parse(&std::fs::read_to_string(&coded).unwrap()).unwrap();
    assert_eq!(w.sides[0].class, builtin.sides[0].class);
    assert!(!w.sides[0].codes.is_empty());

    // Games of another rule are not used.
    let o = train(&data, &temp("renju.txt"), &["--rule", "renju"]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("no quiet position of this rule"),
        "{stderr}"
    );
}

#[test]
fn bad_training_inputs_get_a_clear_message_and_no_file() {
    let out = temp("never.txt");
    let not_data = temp("not-data.wsp");
    std::fs::write(&not_data, "hello").unwrap();
    let broken = temp("broken.txt");
    std::fs::write(&broken, "tempo 3\nclass HFlex3 40\n").unwrap();
    for (args, expected) in [
        (
            vec!["/no/such/file.wsp".to_string()],
            "cannot read /no/such/file.wsp",
        ),
        (
            vec![not_data.display().to_string()],
            "not a Wuzi self-play file",
        ),
        (
            vec![
                not_data.display().to_string(),
                "--from".into(),
                broken.display().to_string(),
            ],
            "line 2",
        ),
        (
            vec![
                not_data.display().to_string(),
                "--lambda".into(),
                "2".into(),
            ],
            "from 0 to 1",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused("train", &args, &out, expected);
    }
}

#[test]
fn codebook_data_holds_each_quiet_position_and_a_codebook_file_plays() {
    let data = temp("cb-games.wsp");
    let o = binary()
        .args(["selfplay", "--games", "4", "--nodes", "1500", "--seed", "3"])
        .arg("--out")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let export = |out: &Path, extra: &[&str]| {
        let o = binary()
            .arg("train")
            .arg(&data)
            .args(["--codebook-data", "--lambda", "0", "--hold-out", "2"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        (stdout, std::fs::read(out).unwrap())
    };
    let (stdout, bytes) = export(&temp("cb.bin"), &[]);
    assert!(stdout.contains("of 4 games on 15x15"), "{stdout}");
    assert_eq!(&bytes[..8], b"WUZICB01");
    assert_eq!(&bytes[8..12], &[15, 0, 15, 0]);
    let rec = 12 * 225 + 12;
    assert_eq!((bytes.len() - 12) % rec, 0);
    let records: Vec<&[u8]> = bytes[12..].chunks(rec).collect();
    let said: usize = stdout
        .split(": ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(records.len(), said, "{stdout}");
    assert!(said > 20, "{stdout}");
    let f32_at = |r: &[u8], i: usize| f32::from_le_bytes(r[i..i + 4].try_into().unwrap());
    let mut held = 0;
    for r in &records {
        let (pats, keys, tail) = (&r[..900], &r[900..2700], &r[2700..]);
        // A stone's cell is FF in its patterns and its keys alike; a game from three
        // opening stones on has at least three.
        let stones = (0..225).filter(|&c| pats[4 * c] == 0xFF).count();
        assert!(stones >= 3);
        for c in 0..225 {
            let stone = pats[4 * c] == 0xFF;
            assert!(pats[4 * c..4 * c + 4].iter().all(|&b| (b == 0xFF) == stone));
            if stone {
                assert!(keys[8 * c..8 * c + 8].iter().all(|&b| b == 0xFF));
            }
            if !stone {
                // Every pattern nibble names a pattern (14 of them).
                assert!(pats[4 * c..4 * c + 4]
                    .iter()
                    .all(|&b| b & 15 < 14 && b >> 4 < 14));
            }
        }
        assert!(tail[0] < 2 && tail[1] < 2);
        held += tail[1] as usize;
        assert!((0.0..=1.0).contains(&f32_at(tail, 8)));
        // The side to move is the one with no more stones than the other has.
        assert_eq!(tail[0] as usize, stones % 2);
    }
    // Every second game held out.
    assert!(held > 0 && held < records.len());

    // A codebook file of the trainer's format: the evaluations written with it differ
    // by its correction, here a constant (no units: only the offset) of 25 and -40.
    let mut text = String::from("codebook 16 32\ncell");
    text += &" 0".repeat(16);
    for (side, offset) in [("black", 25), ("white", -40)] {
        text += &format!("\nside {side}\n");
        text += &format!("unit 0 0{}\n", " 0".repeat(16)).repeat(32);
        text += &format!("offset {offset}");
    }
    let file = temp("constant-codebook.txt");
    std::fs::write(&file, text + "\n").unwrap();
    let (_, with) = export(
        &temp("cb-with.bin"),
        &["--codebook", file.to_str().unwrap()],
    );
    assert_eq!(with.len(), bytes.len());
    for (a, b) in records.iter().zip(with[12..].chunks(rec)) {
        let want = if a[2700] == 0 { 25.0 } else { -40.0 };
        assert_eq!(f32_at(b, 2704) - f32_at(a, 2704), want);
    }

    // Self-play with it; a broken file is refused with its line.
    let games = temp("cb-play.wsp");
    let play = |codebook: &Path| {
        binary()
            .args(["selfplay", "--games", "1", "--nodes", "500", "--codebook"])
            .arg(codebook)
            .arg("--out")
            .arg(&games)
            .output()
            .unwrap()
    };
    let o = play(&file);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(data::read(&games).unwrap().games.len(), 1);
    std::fs::remove_file(&games).unwrap();
    let broken = temp("broken-codebook.txt");
    std::fs::write(&broken, "codebook 16 32\ncell 1 2\n").unwrap();
    let o = play(&broken);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        stderr.contains("line 2: cell 1 2: expected 16 values, found 2"),
        "{stderr}"
    );
    assert!(!games.exists());
}
