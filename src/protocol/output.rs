//! The single writer of stdout: whole lines, flushed one at a time, shared by the protocol
//! loop and the search observer.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// A cloneable handle to the output stream.
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// Wrap a writer.
    pub fn new<W: Write + Send + 'static>(w: W) -> Output {
        Output {
            inner: Arc::new(Mutex::new(Box::new(w))),
        }
    }

    /// Write one line and flush. Write errors (a closed pipe) are ignored: the manager is
    /// gone and the next read will end the loop.
    pub fn line(&self, text: &str) {
        let mut w = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let _ = w.write_all(text.as_bytes());
        let _ = w.write_all(b"\n");
        let _ = w.flush();
    }

    /// `MESSAGE <text>`.
    pub fn message(&self, text: &str) {
        self.line(&format!("MESSAGE {text}"));
    }

    /// `ERROR <text>`.
    pub fn error(&self, text: &str) {
        self.line(&format!("ERROR {text}"));
    }
}
