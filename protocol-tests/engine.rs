//! The engine process: spawning, writing stdin, collecting stdout on a reader thread,
//! and waiting for replies, MESSAGE lines, silence and exit.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::output_rules::is_chatter;
use crate::pattern::Pattern;
use crate::CONTEXT_LINES;

#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) at: Instant,
    pub(crate) text: String,
    pub(crate) terminated: bool,
}

pub(crate) struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Received>,
    stdout_eof: bool,
    /// Received lines not yet consumed by `<`, `<~`, `<msg`.
    pending: VecDeque<Received>,
    /// Every stdout line, for the format checks.
    pub(crate) seen: Vec<Received>,
    pub(crate) stderr: Arc<Mutex<Vec<u8>>>,
    /// I/O log shown as context on failure.
    log: Vec<String>,
    pub(crate) status: Option<ExitStatus>,
}

impl Engine {
    /// Starts the engine in `dir`: the `pbrain-wuzi` of this build, or the program named
    /// by the `WUZI_ENGINE` environment variable (to hold another build, or another
    /// engine, to the same tests).
    pub(crate) fn spawn(dir: &Path) -> Result<Engine, String> {
        let exe = std::env::var("WUZI_ENGINE")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_pbrain-wuzi").to_string());
        let mut child = Command::new(&exe)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {exe}: {e}"))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let terminated = buf.last() == Some(&b'\n');
                        if terminated {
                            buf.pop();
                        }
                        let text = String::from_utf8_lossy(&buf).into_owned();
                        let line = Received {
                            at: Instant::now(),
                            text,
                            terminated,
                        };
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        Ok(Engine {
            child,
            stdin,
            rx,
            stdout_eof: false,
            pending: VecDeque::new(),
            seen: Vec::new(),
            stderr,
            log: Vec::new(),
            status: None,
        })
    }

    pub(crate) fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let shown = &bytes[..bytes.len().min(200)];
        let cut = if shown.len() < bytes.len() {
            format!("... ({} bytes)", bytes.len())
        } else {
            String::new()
        };
        self.log.push(format!(
            "> {}{cut}",
            String::from_utf8_lossy(shown).escape_debug()
        ));
        if self.status.is_some() {
            return Err("cannot send: the engine has already exited".into());
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or("cannot send: stdin was closed by `! eof`")?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the engine: {e} (did it exit?)"))
    }

    pub(crate) fn close_stdin(&mut self) {
        self.log.push("! eof".into());
        self.stdin = None;
    }

    fn accept(&mut self, line: Received) {
        self.log.push(format!("< {}", line.text.escape_debug()));
        self.seen.push(line.clone());
        self.pending.push_back(line);
    }

    /// Waits until `deadline` for one more stdout line; false on timeout or EOF.
    pub(crate) fn pump(&mut self, deadline: Instant) -> bool {
        if self.stdout_eof {
            return false;
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(wait) {
            Ok(line) => {
                self.accept(line);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                self.stdout_eof = true;
                false
            }
        }
    }

    /// Takes whatever stdout lines are already there.
    fn pump_ready(&mut self) {
        loop {
            match self.rx.try_recv() {
                Ok(line) => self.accept(line),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.stdout_eof = true;
                    break;
                }
            }
        }
    }

    fn no_more_output(&self, waited: Duration) -> String {
        if self.stdout_eof {
            "the engine closed stdout (exited?)".to_string()
        } else {
            format!("no reply within {} ms", waited.as_millis())
        }
    }

    /// Received reply lines (not MESSAGE/DEBUG/INFO) that no `<` line consumed.
    pub(crate) fn unconsumed_replies(&self) -> Vec<&str> {
        self.pending
            .iter()
            .filter(|l| !is_chatter(&l.text))
            .map(|l| l.text.as_str())
            .collect()
    }

    /// The next reply line (not MESSAGE/DEBUG/INFO).
    pub(crate) fn next_reply(&mut self, timeout: Duration) -> Result<Received, String> {
        let deadline = Instant::now() + timeout;
        loop {
            while let Some(line) = self.pending.pop_front() {
                if !is_chatter(&line.text) {
                    return Ok(line);
                }
            }
            if !self.pump(deadline) {
                return Err(self.no_more_output(timeout));
            }
        }
    }

    /// The first MESSAGE or INFO line matching `pat`, which must come before any reply
    /// line.
    pub(crate) fn next_message(
        &mut self,
        pat: &Pattern,
        timeout: Duration,
    ) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        let mut skipped = Vec::new();
        loop {
            while let Some(line) = self.pending.front() {
                if !is_chatter(&line.text) {
                    return Err(format!(
                        "reply {:?} came before a matching MESSAGE line (MESSAGE lines seen: {skipped:?})",
                        line.text
                    ));
                }
                let line = self.pending.pop_front().unwrap();
                if !line.text.starts_with("DEBUG ") {
                    if pat.is_match(&line.text) {
                        return Ok(line.text);
                    }
                    skipped.push(line.text);
                }
            }
            if !self.pump(deadline) {
                return Err(format!(
                    "{}; MESSAGE lines seen: {skipped:?}",
                    self.no_more_output(timeout)
                ));
            }
        }
    }

    /// Fails if a reply line is pending or arrives within `dur`.
    pub(crate) fn expect_silence(&mut self, dur: Duration) -> Result<(), String> {
        let deadline = Instant::now() + dur;
        loop {
            if let Some(line) = self.pending.iter().find(|l| !is_chatter(&l.text)) {
                return Err(format!("unexpected output {:?}", line.text));
            }
            if !self.pump(deadline) {
                if self.stdout_eof && Instant::now() < deadline {
                    // Output closed: nothing more can come; keep the timing honest.
                    thread::sleep(deadline.saturating_duration_since(Instant::now()));
                }
                return Ok(());
            }
        }
    }

    /// Polls for the process exit until `timeout`, collecting output meanwhile.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        if let Some(status) = self.status {
            return Some(status);
        }
        let deadline = Instant::now() + timeout;
        loop {
            self.pump_ready();
            if let Ok(Some(status)) = self.child.try_wait() {
                self.status = Some(status);
                self.log.push(format!("(exited: {status})"));
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    pub(crate) fn rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024.0)
    }

    /// The number of threads the engine process runs (Linux `/proc`).
    pub(crate) fn threads(&self) -> Option<usize> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("Threads:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    pub(crate) fn kill(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
            self.log.push("(killed by the harness)".into());
        }
    }

    pub(crate) fn context(&self) -> String {
        let start = self.log.len().saturating_sub(CONTEXT_LINES);
        let mut s = String::from("    recent I/O (> sent, < received):\n");
        for l in &self.log[start..] {
            s.push_str("      ");
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

pub(crate) fn describe_exit(status: ExitStatus) -> Option<String> {
    if status.success() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Some(format!("engine killed by signal {sig}"));
        }
    }
    Some(format!("engine exited with {status}"))
}
