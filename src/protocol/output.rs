//! The single writer of stdout: whole lines, flushed one at a time, shared by the protocol
//! loop and the search observer. A line never carries a control character: a manager
//! would read a stray CR or newline as the start of another line.

use super::quote;
use std::borrow::Cow;
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

    /// Write one line and flush, escaping any character that is not printable ASCII.
    /// Write errors (a closed pipe) are ignored: the manager is gone and the next read
    /// will end the loop.
    pub fn line(&self, text: &str) {
        let text: Cow<str> = if quote::is_clean(text) {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(quote::escape(text))
        };
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
