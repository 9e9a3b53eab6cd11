//! Protocol transcript tests: every `protocol-tests/transcripts/*.txt` is played against
//! the `pbrain-wuzi` binary over pipes, interactively, the way a Gomocup manager talks to
//! a brain. Plain `std` only. This file is the runner; `engine.rs` drives the child
//! process, `transcript.rs` reads the transcript language, `pattern.rs` is the regex,
//! `output_rules.rs` the rules every output line must follow.
//!
//! # Transcript format
//!
//! One item per line; trailing blanks of a transcript line are ignored.
//!
//! | line | meaning |
//! | --- | --- |
//! | `# text`, blank | comment |
//! | `> text` | send `text` + `\n` to the engine (a lone `>` sends an empty line) |
//! | `< text` | the next engine line that is not `MESSAGE `/`DEBUG `/`INFO ` must equal `text` |
//! | `<~ pattern` | same, but the whole line must match `pattern` (see below) |
//! | `<msg pattern` | a `MESSAGE ` or `INFO ` line matching `pattern` (whole line, keyword included) must arrive before the next reply line; non-matching ones are skipped |
//! | `! eof` | close the engine's stdin |
//! | `! exits-within MS` | the engine must exit (successfully) within MS ms from now |
//! | `! sleep MS` | wait MS ms (output keeps being collected) |
//! | `! no-output MS` | no line other than MESSAGE/DEBUG/INFO may arrive (or be pending) within MS ms |
//! | `! reply-within MS` | the line matched by the next `<`/`<~` must have arrived at most MS ms after the last `>` line was sent |
//! | `! save NAME` | remember the line matched by the last `<`/`<~` as `${NAME}` |
//! | `! max-rss-mb N` | the engine's resident memory (Linux `/proc`) must be at most N MiB now |
//! | `! send-long N` | send a line of N `X` characters and a `\n` |
//! | `! threads A+B…` | the engine process must run exactly A+B… threads now, or within a second (Linux `/proc`; terms may be `${NAME}`) |
//!
//! Escapes in `>` lines: `\r` CR, `\t` TAB, `\s` a blank (to make trailing blanks visible),
//! `\\` a backslash, `\xHH` a raw byte (non-UTF-8 input), `\c` at the very end: send no
//! `\n`. Any other backslash is sent literally, so Windows paths work as long as no path
//! component starts with `r`, `t`, `s`, `x` or `c` after a backslash. `${NAME}` is
//! replaced in `>`, `<`, `<~` and `<msg` lines. `${CORES}` is set from the start: the
//! number of threads the machine runs at once, which the engine reports and obeys.
//!
//! # Patterns (`<~`, `<msg`)
//!
//! A small backtracking regex, always anchored to the whole line: literal characters,
//! `.`, classes `[0-9,]` / `[^ ]`, `\d` `\s` `\w` (and `\D` `\S` `\W`), `\` before any
//! other character makes it literal, groups `( )`, alternation `|`, and the greedy
//! quantifiers `*` `+` `?` `{n}` `{n,}` `{n,m}`. A `{` that does not start a valid
//! quantifier is literal.
//!
//! # Checks made on every transcript
//!
//! After the last line the harness closes stdin (unless the engine already exited),
//! waits up to 5 s for a successful exit, and fails if any further reply line (not MESSAGE/DEBUG/INFO)
//! was printed. Every stdout line must be non-empty, end in `\n`, carry no CR or trailing
//! blank, be printable ASCII and have one of the forms `OK`, `SWAP`, `ERROR …`, `UNKNOWN …`, `MESSAGE …`,
//! `DEBUG …`, `FORBID xxyy….`, `name=…` or `x,y[ x,y…]`. A death by signal, a non-zero
//! exit status or `panicked` on stderr fails the transcript.
//!
//! Environment: `WUZI_PROTO_FILTER=substring` runs only matching transcripts,
//! `WUZI_PROTO_JOBS=n` sets the parallelism (default 2), `WUZI_ENGINE=path` runs another
//! program, and `WUZI_ENGINE_RSS_ALLOWANCE_MB=n` raises every `! max-rss-mb` limit by `n`
//! MiB: the resident memory that a runtime around the engine adds of its own (Wine, for
//! the Windows executable: `scripts/wine-check.sh` measures it on the idle engine).

mod engine;
mod output_rules;
mod pattern;
mod transcript;

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use engine::{describe_exit, Engine};
use output_rules::{line_format_error, output_format};
use pattern::Pattern;
use transcript::{parse_transcript, substitute, unescape, Step};

/// How long one expected line may take.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the engine may take to exit after the final stdin EOF.
const FINAL_EXIT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a `! threads` count may take to reach its value.
const THREADS_SETTLE: Duration = Duration::from_secs(1);
/// Transcripts run at the same time (each engine may use a core).
const DEFAULT_JOBS: usize = 2;
/// I/O lines shown before a failure.
const CONTEXT_LINES: usize = 16;

// ------------------------------------------------------------------------------------
// Running one transcript

struct Outcome {
    name: String,
    failures: Vec<String>,
    elapsed: Duration,
}

fn run_transcript(path: &Path) -> Outcome {
    let started = Instant::now();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    // A transcript that cannot even start fails with this one message.
    let failed = |name: String, message: String| Outcome {
        failures: vec![format!("{name}: {message}")],
        name,
        elapsed: started.elapsed(),
    };
    let mut failures = Vec::new();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return failed(name, format!("cannot read: {e}")),
    };
    let steps = match parse_transcript(&text) {
        Ok(s) => s,
        Err(e) => return failed(name, e.to_string()),
    };
    let dir = std::env::temp_dir().join(format!(
        "wuzi-proto-{}-{}",
        std::process::id(),
        name.trim_end_matches(".txt")
    ));
    let _ = std::fs::create_dir_all(&dir);
    let mut engine = match Engine::spawn(&dir) {
        Ok(e) => e,
        Err(e) => return failed(name, e.to_string()),
    };

    let last_line = steps.last().map_or(0, |(no, _)| *no);
    let result = play(&mut engine, &steps);
    let aborted = result.is_err();
    if let Err((no, msg)) = result {
        failures.push(format!("{name}:{no}: {msg}\n{}", engine.context()));
        engine.kill();
    } else if engine.status.is_none() {
        engine.close_stdin();
        if engine.wait_exit(FINAL_EXIT_TIMEOUT).is_none() {
            failures.push(format!(
                "{name}:{last_line}: engine did not exit within {} s of stdin EOF\n{}",
                FINAL_EXIT_TIMEOUT.as_secs(),
                engine.context()
            ));
            engine.kill();
        }
    }
    // Collect the rest of stdout (the reader ends when the pipe closes).
    let drain_deadline = Instant::now() + Duration::from_secs(2);
    while engine.pump(drain_deadline) {}
    if !aborted {
        let extra = engine.unconsumed_replies();
        if !extra.is_empty() {
            failures.push(format!(
                "{name}:{last_line}: unexpected extra output after the transcript: {extra:?}\n{}",
                engine.context()
            ));
        }
        if let Some(why) = engine.status.and_then(describe_exit) {
            failures.push(format!("{name}: {why}"));
        }
    }
    let format = output_format();
    for line in &engine.seen {
        if let Some(why) = line_format_error(&line.text, line.terminated, &format) {
            failures.push(format!("{name}: bad output line {:?}: {why}", line.text));
        }
    }
    let stderr = String::from_utf8_lossy(&engine.stderr.lock().unwrap()).into_owned();
    if stderr.contains("panicked") {
        failures.push(format!("{name}: the engine panicked; stderr:\n{stderr}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Outcome {
        name,
        failures,
        elapsed: started.elapsed(),
    }
}

/// Plays the steps; `Err((line number, message))` stops the transcript.
fn play(engine: &mut Engine, steps: &[(usize, Step)]) -> Result<(), (usize, String)> {
    let mut vars: HashMap<String, String> = HashMap::new();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    vars.insert("CORES".into(), cores.to_string());
    let mut last_send = Instant::now();
    let mut reply_within: Option<u64> = None;
    let mut last_reply: Option<String> = None;
    for (no, step) in steps {
        let no = *no;
        let fail = |msg: String| (no, msg);
        match step {
            Step::Send(raw) => {
                let text = substitute(raw, &vars).map_err(fail)?;
                let bytes = unescape(&text).map_err(fail)?;
                engine.send(&bytes).map_err(fail)?;
                last_send = Instant::now();
            }
            Step::Expect(_) | Step::ExpectRe(_) => {
                let got = engine
                    .next_reply(REPLY_TIMEOUT)
                    .map_err(|e| fail(format!("expected {}: {e}", describe_expect(step))))?;
                match step {
                    Step::Expect(want) => {
                        let want = substitute(want, &vars).map_err(fail)?;
                        if got.text != want {
                            return Err(fail(format!("expected {want:?}, got {:?}", got.text)));
                        }
                    }
                    Step::ExpectRe(p) => {
                        let p = substitute(p, &vars).map_err(fail)?;
                        let pat = Pattern::new(&p).map_err(fail)?;
                        if !pat.is_match(&got.text) {
                            return Err(fail(format!(
                                "expected a line matching /{p}/, got {:?}",
                                got.text
                            )));
                        }
                    }
                    _ => unreachable!(),
                }
                if let Some(ms) = reply_within.take() {
                    let took = got.at.saturating_duration_since(last_send);
                    if took > Duration::from_millis(ms) {
                        return Err(fail(format!(
                            "{:?} took {} ms, limit {ms} ms",
                            got.text,
                            took.as_millis()
                        )));
                    }
                }
                last_reply = Some(got.text);
            }
            Step::ExpectMsg(p) => {
                let p = substitute(p, &vars).map_err(fail)?;
                let pat = Pattern::new(&p).map_err(fail)?;
                engine
                    .next_message(&pat, REPLY_TIMEOUT)
                    .map_err(|e| fail(format!("expected a MESSAGE matching /{p}/: {e}")))?;
            }
            Step::SendLong(n) => {
                let mut bytes = vec![b'X'; *n as usize];
                bytes.push(b'\n');
                engine.send(&bytes).map_err(fail)?;
                last_send = Instant::now();
            }
            Step::Eof => engine.close_stdin(),
            Step::ExitsWithin(ms) => {
                let status = engine
                    .wait_exit(Duration::from_millis(*ms))
                    .ok_or_else(|| fail(format!("engine did not exit within {ms} ms")))?;
                if let Some(why) = describe_exit(status) {
                    return Err(fail(why));
                }
            }
            Step::Sleep(ms) => {
                let deadline = Instant::now() + Duration::from_millis(*ms);
                while engine.pump(deadline) {}
                thread::sleep(deadline.saturating_duration_since(Instant::now()));
            }
            Step::NoOutput(ms) => {
                engine
                    .expect_silence(Duration::from_millis(*ms))
                    .map_err(fail)?;
            }
            Step::ReplyWithin(ms) => reply_within = Some(*ms),
            Step::Save(name) => {
                let value = last_reply
                    .clone()
                    .ok_or_else(|| fail("`! save` before any `<` line".into()))?;
                vars.insert(name.clone(), value);
            }
            Step::Threads(sum) => {
                let sum = substitute(sum, &vars).map_err(fail)?;
                let want: Option<usize> = sum.split('+').map(|t| t.parse::<usize>().ok()).sum();
                let want = want.ok_or_else(|| fail(format!("bad thread count `{sum}`")))?;
                // Threads start and end a little after the line that asks for them,
                // later on a loaded machine or under Wine: the count has a second to settle.
                let deadline = Instant::now() + THREADS_SETTLE;
                while let Some(n) = engine.threads() {
                    if n == want {
                        break;
                    }
                    if Instant::now() >= deadline {
                        return Err(fail(format!(
                            "the engine runs {n} threads, not {want} (for {} ms)",
                            THREADS_SETTLE.as_millis()
                        )));
                    }
                    thread::sleep(Duration::from_millis(5));
                }
            }
            Step::MaxRssMb(limit) => {
                if let Some(rss) = engine.rss_mib() {
                    let allowance = rss_allowance_mib();
                    if rss > *limit as f64 + allowance {
                        let besides = if allowance > 0.0 {
                            format!(" (+ {allowance} MiB allowed for the runtime)")
                        } else {
                            String::new()
                        };
                        return Err(fail(format!(
                            "resident memory {rss:.1} MiB > {limit} MiB{besides}"
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `WUZI_ENGINE_RSS_ALLOWANCE_MB`: MiB of resident memory a runtime around the engine adds.
fn rss_allowance_mib() -> f64 {
    std::env::var("WUZI_ENGINE_RSS_ALLOWANCE_MB")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .unwrap_or(0.0)
}

fn describe_expect(step: &Step) -> String {
    match step {
        Step::Expect(s) => format!("{s:?}"),
        Step::ExpectRe(p) => format!("a line matching /{p}/"),
        other => format!("{other:?}"),
    }
}

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-tests")
        .join("transcripts")
}

fn transcript_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("protocol-tests/transcripts exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn transcripts() {
    let filter = std::env::var("WUZI_PROTO_FILTER").unwrap_or_default();
    let jobs = std::env::var("WUZI_PROTO_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|&j: &usize| j > 0)
        .unwrap_or(DEFAULT_JOBS);
    let files: VecDeque<PathBuf> = transcript_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    assert!(!files.is_empty(), "no transcripts matched {filter:?}");
    let total = files.len();
    let queue = Arc::new(Mutex::new(files));
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..jobs.min(total))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let outcomes = Arc::clone(&outcomes);
            thread::spawn(move || loop {
                let next = queue.lock().unwrap().pop_front();
                let Some(path) = next else { break };
                let outcome = run_transcript(&path);
                outcomes.lock().unwrap().push(outcome);
            })
        })
        .collect();
    for w in workers {
        w.join().expect("transcript worker");
    }
    let mut outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    outcomes.sort_by(|a, b| a.name.cmp(&b.name));
    let mut summary = String::new();
    let mut details = String::new();
    let mut failed = 0;
    for o in &outcomes {
        let verdict = if o.failures.is_empty() {
            "ok  "
        } else {
            "FAIL"
        };
        summary.push_str(&format!(
            "  {verdict} {} ({:.1} s)\n",
            o.name,
            o.elapsed.as_secs_f64()
        ));
        if !o.failures.is_empty() {
            failed += 1;
            for f in &o.failures {
                details.push_str(f);
                details.push('\n');
            }
        }
    }
    eprintln!("protocol transcripts:\n{summary}");
    if failed > 0 {
        panic!("{failed} of {total} transcripts failed:\n{summary}\n{details}");
    }
}

/// The transcripts parse and their patterns compile (no engine needed).
#[test]
fn transcripts_are_well_formed() {
    let files = transcript_files();
    assert!(!files.is_empty());
    let mut errors = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match parse_transcript(&text) {
            Ok(steps) => {
                for (no, step) in &steps {
                    if let Step::Send(s) = step {
                        if let Err(e) = unescape(s) {
                            errors.push(format!("{name}:{no}: {e}"));
                        }
                    }
                }
                if !steps.iter().any(|(_, s)| matches!(s, Step::Send(_))) {
                    errors.push(format!("{name}: sends nothing"));
                }
            }
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
