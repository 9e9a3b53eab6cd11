//! One engine process: spawning, writing commands, a reader thread that timestamps every
//! stdout line as it arrives, stderr collection, waiting for exit, killing, and the I/O log.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A stdout line (without its `\n`) and when the reader thread got it.
pub struct Line {
    pub at: Instant,
    pub text: String,
}

pub enum ReadError {
    /// Nothing arrived before the deadline.
    Timeout,
    /// The engine closed stdout (it exited or is exiting).
    Closed,
}

/// One entry of the I/O log.
pub struct LogEntry {
    pub at: Instant,
    /// `A> TURN 7,7`, `A< 8,8`, `A! killed`.
    pub text: String,
    /// A `MESSAGE`/`DEBUG` line.
    pub chatter: bool,
}

/// Lines that are information only and never a reply.
pub fn is_chatter(line: &str) -> bool {
    line.starts_with("MESSAGE ") || line.starts_with("DEBUG ")
}

pub struct Process {
    label: String,
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Line>,
    closed: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    log: Vec<LogEntry>,
    status: Option<ExitStatus>,
    killed: bool,
}

impl Process {
    /// Starts `exe` in `dir`; `label` names it in the log.
    pub fn spawn(exe: &Path, dir: &Path, label: &str) -> Result<Process, String> {
        let mut child = Command::new(exe)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
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
                        let at = Instant::now();
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        }
                        let text = String::from_utf8_lossy(&buf).into_owned();
                        if tx.send(Line { at, text }).is_err() {
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
        Ok(Process {
            label: label.to_string(),
            child,
            stdin,
            rx,
            closed: false,
            stderr,
            log: Vec::new(),
            status: None,
            killed: false,
        })
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    fn record(&mut self, at: Instant, kind: char, text: &str, chatter: bool) {
        self.log.push(LogEntry {
            at,
            text: format!("{}{kind} {}", self.label, text.escape_debug()),
            chatter,
        });
    }

    /// Notes an event of the driver's in the log.
    pub fn note(&mut self, text: &str) {
        self.record(Instant::now(), '!', text, false);
    }

    /// Writes `line` and a `\n`; returns the moment just before the write.
    pub fn send(&mut self, line: &str) -> Result<Instant, String> {
        let at = Instant::now();
        self.record(at, '>', line, false);
        let stdin = self.stdin.as_mut().ok_or("stdin is closed")?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write {line:?}: {e}"))?;
        Ok(at)
    }

    pub fn close_stdin(&mut self) -> Instant {
        let at = Instant::now();
        self.record(at, '!', "stdin closed", false);
        self.stdin = None;
        at
    }

    fn accept(&mut self, line: &Line) {
        let chatter = is_chatter(&line.text);
        self.record(line.at, '<', &line.text, chatter);
    }

    /// The next stdout line, waiting until `deadline`.
    pub fn read(&mut self, deadline: Instant) -> Result<Line, ReadError> {
        if self.closed {
            return Err(ReadError::Closed);
        }
        match self
            .rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(line) => {
                self.accept(&line);
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(ReadError::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Err(ReadError::Closed)
            }
        }
    }

    /// A stdout line that has already arrived, if any.
    pub fn try_read(&mut self) -> Option<Line> {
        match self.rx.try_recv() {
            Ok(line) => {
                self.accept(&line);
                Some(line)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.closed = true;
                None
            }
        }
    }

    /// Waits up to `timeout` for the process to exit; its status and when the exit was
    /// seen (polled every 0.2 ms).
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<(ExitStatus, Instant)> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let at = Instant::now();
                self.status = Some(status);
                self.record(at, '!', &format!("exited: {status}"), false);
                return Some((status, at));
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_micros(200));
        }
    }

    pub fn exited(&self) -> bool {
        self.status.is_some()
    }

    pub fn status(&self) -> Option<ExitStatus> {
        self.status
    }

    pub fn kill(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
            self.killed = true;
            self.note("killed by the referee");
        }
    }

    /// Whether the referee killed the process.
    pub fn was_killed(&self) -> bool {
        self.killed
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What is wrong with an exit status, if anything.
pub fn describe_exit(status: ExitStatus) -> Option<String> {
    if status.success() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Some(format!("killed by signal {sig}"));
        }
    }
    Some(format!("exited with {status}"))
}
