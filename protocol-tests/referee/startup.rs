//! Start-up mode: how long the engine takes from process start to `OK` for `START 15`,
//! from `END` to exit, and from closing stdin while idle to exit, over several runs.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::process::{describe_exit, is_chatter, Process, ReadError};

/// The longest an exit may take.
const EXIT_LIMIT: Duration = Duration::from_secs(1);
/// How long the measurement waits before killing (to report how late an exit was).
const EXIT_WAIT: Duration = Duration::from_secs(3);
const OK_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the measurements and prints the report; true if every run passed.
pub fn run(config: &Config) -> bool {
    let dir = std::env::temp_dir().join(format!("wuzi-referee-{}-startup", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let mut to_ok = Vec::new();
    let mut end_exit = Vec::new();
    let mut eof_exit = Vec::new();
    let mut failures = Vec::new();
    let mut failed_runs = 0;
    for run in 1..=config.runs {
        let before = failures.len();
        match measure(&config.engine, &dir, Leave::End) {
            Ok((ok, exit)) => {
                to_ok.push(ok);
                end_exit.push(exit);
            }
            Err(e) => failures.push(format!("run {run}, END: {e}")),
        }
        match measure(&config.engine, &dir, Leave::Eof) {
            Ok((ok, exit)) => {
                to_ok.push(ok);
                eof_exit.push(exit);
            }
            Err(e) => failures.push(format!("run {run}, stdin EOF: {e}")),
        }
        if failures.len() > before {
            failed_runs += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "referee startup: {} runs of engine {} (two processes a run: one left with END, \
         one with stdin EOF)",
        config.runs,
        config.engine.display()
    );
    for (name, times) in [
        ("process start -> OK to START 15", &mut to_ok),
        ("END -> exit", &mut end_exit),
        ("stdin EOF while idle -> exit", &mut eof_exit),
    ] {
        times.sort_by(f64::total_cmp);
        if times.is_empty() {
            println!("  {name:<34} no measurements");
        } else {
            println!(
                "  {name:<34} median {:7.2} ms, worst {:7.2} ms ({} samples)",
                times[(times.len() - 1) / 2],
                times[times.len() - 1],
                times.len()
            );
        }
    }
    for f in &failures {
        println!("  FAIL {f}");
    }
    println!(
        "referee: {} passed, {failed_runs} failed",
        config.runs - failed_runs
    );
    failed_runs == 0
}

#[derive(Clone, Copy)]
enum Leave {
    End,
    Eof,
}

/// One process: ms from spawn to `OK`, and from `END` (or stdin EOF) to exit.
fn measure(exe: &Path, dir: &Path, leave: Leave) -> Result<(f64, f64), String> {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let spawned = Instant::now();
    let mut proc = Process::spawn(exe, dir, "E")?;
    proc.send("START 15")?;
    let deadline = spawned + OK_TIMEOUT;
    let ok_at = loop {
        match proc.read(deadline) {
            Ok(line) if is_chatter(&line.text) => {}
            Ok(line) if line.text == "OK" => break line.at,
            Ok(line) => return Err(format!("{:?} instead of OK to START 15", line.text)),
            Err(ReadError::Timeout) => return Err(format!("no OK within {OK_TIMEOUT:?}")),
            Err(ReadError::Closed) => return Err("exited before OK".into()),
        }
    };
    let left = match leave {
        Leave::End => proc.send("END")?,
        Leave::Eof => proc.close_stdin(),
    };
    let Some((status, exited)) = proc.wait_exit(EXIT_WAIT) else {
        proc.kill();
        return Err(format!("no exit within {EXIT_WAIT:?}"));
    };
    let exit_ms = ms(exited.saturating_duration_since(left));
    if let Some(why) = describe_exit(status) {
        return Err(why);
    }
    if exit_ms > ms(EXIT_LIMIT) {
        return Err(format!("exit took {exit_ms:.1} ms, over {EXIT_LIMIT:?}"));
    }
    let drain = Instant::now() + Duration::from_millis(500);
    while let Ok(line) = proc.read(drain) {
        if !is_chatter(&line.text) {
            return Err(format!("stray output {:?}", line.text));
        }
    }
    if proc.stderr_text().contains("panicked") {
        return Err(format!("panicked: {}", proc.stderr_text().trim()));
    }
    Ok((ms(ok_at.saturating_duration_since(spawned)), exit_ms))
}
