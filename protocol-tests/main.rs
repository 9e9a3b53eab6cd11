//! Protocol transcript tests: every `protocol-tests/transcripts/*.txt` is played against
//! the `pbrain-wuzi` binary over pipes, interactively, the way a Gomocup manager talks to
//! a brain. Plain `std` only.
//!
//! # Transcript format
//!
//! One item per line; trailing blanks of a transcript line are ignored.
//!
//! | line | meaning |
//! | --- | --- |
//! | `# text`, blank | comment |
//! | `> text` | send `text` + `\n` to the engine (a lone `>` sends an empty line) |
//! | `< text` | the next engine line that is not `MESSAGE `/`DEBUG ` must equal `text` |
//! | `<~ pattern` | same, but the whole line must match `pattern` (see below) |
//! | `<msg pattern` | a `MESSAGE ` line matching `pattern` (whole line, `MESSAGE ` included) must arrive before the next non-MESSAGE/DEBUG line; non-matching MESSAGE lines are skipped |
//! | `! eof` | close the engine's stdin |
//! | `! exits-within MS` | the engine must exit (successfully) within MS ms from now |
//! | `! sleep MS` | wait MS ms (output keeps being collected) |
//! | `! no-output MS` | no line other than MESSAGE/DEBUG may arrive (or be pending) within MS ms |
//! | `! reply-within MS` | the line matched by the next `<`/`<~` must have arrived at most MS ms after the last `>` line was sent |
//! | `! save NAME` | remember the line matched by the last `<`/`<~` as `${NAME}` |
//! | `! max-rss-mb N` | the engine's resident memory (Linux `/proc`) must be at most N MiB now |
//!
//! Escapes in `>` lines: `\r` CR, `\t` TAB, `\s` a blank (to make trailing blanks visible),
//! `\\` a backslash, `\xHH` a raw byte (non-UTF-8 input), `\c` at the very end: send no
//! `\n`. Any other backslash is sent literally, so Windows paths work as long as no path
//! component starts with `r`, `t`, `s`, `x` or `c` after a backslash. `${NAME}` is
//! replaced in `>`, `<`, `<~` and `<msg` lines.
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
//! waits up to 5 s for a successful exit, and fails if any further non-MESSAGE/DEBUG line
//! was printed. Every stdout line must be non-empty, end in `\n`, carry no CR or trailing
//! blank and have one of the forms `OK`, `SWAP`, `ERROR …`, `UNKNOWN …`, `MESSAGE …`,
//! `DEBUG …`, `FORBID xxyy….`, `name=…` or `x,y[ x,y…]`. A death by signal, a non-zero
//! exit status or `panicked` on stderr fails the transcript.
//!
//! Environment: `WUZI_PROTO_FILTER=substring` runs only matching transcripts,
//! `WUZI_PROTO_JOBS=n` sets the parallelism (default 2).

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use pattern::Pattern;

/// How long one expected line may take.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the engine may take to exit after the final stdin EOF.
const FINAL_EXIT_TIMEOUT: Duration = Duration::from_secs(5);
/// Transcripts run at the same time (each engine may use a core).
const DEFAULT_JOBS: usize = 2;
/// I/O lines shown before a failure.
const CONTEXT_LINES: usize = 16;

/// Whole-line regular expressions, just big enough for the transcripts.
mod pattern {
    #[derive(Debug, Clone, PartialEq)]
    enum Node {
        Lit(char),
        Any,
        Class {
            ranges: Vec<(char, char)>,
            negated: bool,
        },
        Group(Vec<Vec<Node>>),
        Repeat {
            node: Box<Node>,
            min: usize,
            max: usize,
        },
    }

    /// A compiled pattern; [`Pattern::is_match`] tests a whole line.
    #[derive(Debug, Clone)]
    pub struct Pattern {
        alts: Vec<Vec<Node>>,
    }

    impl Pattern {
        pub fn new(src: &str) -> Result<Pattern, String> {
            let chars: Vec<char> = src.chars().collect();
            let mut i = 0;
            let alts = parse_alts(&chars, &mut i)?;
            if i < chars.len() {
                return Err(format!("unbalanced ')' at offset {i} in {src:?}"));
            }
            Ok(Pattern { alts })
        }

        pub fn is_match(&self, text: &str) -> bool {
            let s: Vec<char> = text.chars().collect();
            self.alts
                .iter()
                .any(|alt| match_seq(alt, &s, 0, &mut |end| end == s.len()))
        }
    }

    fn parse_alts(c: &[char], i: &mut usize) -> Result<Vec<Vec<Node>>, String> {
        let mut alts = vec![parse_seq(c, i)?];
        while *i < c.len() && c[*i] == '|' {
            *i += 1;
            alts.push(parse_seq(c, i)?);
        }
        Ok(alts)
    }

    fn parse_seq(c: &[char], i: &mut usize) -> Result<Vec<Node>, String> {
        let mut seq = Vec::new();
        while *i < c.len() && c[*i] != '|' && c[*i] != ')' {
            let atom = match c[*i] {
                '(' => {
                    *i += 1;
                    let alts = parse_alts(c, i)?;
                    if *i >= c.len() || c[*i] != ')' {
                        return Err("missing ')'".into());
                    }
                    *i += 1;
                    Node::Group(alts)
                }
                '[' => {
                    *i += 1;
                    parse_class(c, i)?
                }
                '.' => {
                    *i += 1;
                    Node::Any
                }
                '\\' => {
                    let e = *c.get(*i + 1).ok_or("pattern ends with '\\'")?;
                    *i += 2;
                    escape_node(e)
                }
                '*' | '+' | '?' => return Err(format!("nothing to repeat at offset {i}")),
                ch => {
                    *i += 1;
                    Node::Lit(ch)
                }
            };
            let node = match parse_quantifier(c, i) {
                Some((min, max)) => {
                    if parse_quantifier(c, &mut i.clone()).is_some() {
                        return Err(format!("nested quantifier at offset {i}"));
                    }
                    Node::Repeat {
                        node: Box::new(atom),
                        min,
                        max,
                    }
                }
                None => atom,
            };
            seq.push(node);
        }
        Ok(seq)
    }

    fn escape_node(e: char) -> Node {
        let digits = vec![('0', '9')];
        let blanks = vec![(' ', ' '), ('\t', '\t')];
        let word = vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
        match e {
            'd' => Node::Class {
                ranges: digits,
                negated: false,
            },
            'D' => Node::Class {
                ranges: digits,
                negated: true,
            },
            's' => Node::Class {
                ranges: blanks,
                negated: false,
            },
            'S' => Node::Class {
                ranges: blanks,
                negated: true,
            },
            'w' => Node::Class {
                ranges: word,
                negated: false,
            },
            'W' => Node::Class {
                ranges: word,
                negated: true,
            },
            other => Node::Lit(other),
        }
    }

    /// After `[`: items up to the closing `]` (a `]` right after `[` or `[^` is literal).
    fn parse_class(c: &[char], i: &mut usize) -> Result<Node, String> {
        let mut negated = false;
        if c.get(*i) == Some(&'^') {
            negated = true;
            *i += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let ch = *c.get(*i).ok_or("missing ']'")?;
            if ch == ']' && !first {
                *i += 1;
                break;
            }
            first = false;
            let lo = if ch == '\\' {
                let e = *c.get(*i + 1).ok_or("missing ']'")?;
                *i += 2;
                match escape_node(e) {
                    Node::Class {
                        ranges: r,
                        negated: false,
                    } => {
                        ranges.extend(r);
                        continue;
                    }
                    Node::Lit(l) => l,
                    _ => return Err(format!("\\{e} not allowed inside [...]")),
                }
            } else {
                *i += 1;
                ch
            };
            if c.get(*i) == Some(&'-') && c.get(*i + 1).is_some_and(|&n| n != ']') {
                let mut hi = c[*i + 1];
                *i += 2;
                if hi == '\\' {
                    hi = *c.get(*i).ok_or("missing ']'")?;
                    *i += 1;
                }
                if hi < lo {
                    return Err(format!("bad range {lo}-{hi}"));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Node::Class { ranges, negated })
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`; advances `i` only if one is found.
    fn parse_quantifier(c: &[char], i: &mut usize) -> Option<(usize, usize)> {
        match c.get(*i)? {
            '*' => {
                *i += 1;
                Some((0, usize::MAX))
            }
            '+' => {
                *i += 1;
                Some((1, usize::MAX))
            }
            '?' => {
                *i += 1;
                Some((0, 1))
            }
            '{' => {
                let close = (*i..c.len()).find(|&k| c[k] == '}')?;
                let body: String = c[*i + 1..close].iter().collect();
                let number = |s: &str| -> Option<usize> {
                    if s.is_empty() || !s.chars().all(|ch| ch.is_ascii_digit()) {
                        None
                    } else {
                        s.parse().ok()
                    }
                };
                let (min, max) = match body.split_once(',') {
                    None => {
                        let n = number(&body)?;
                        (n, n)
                    }
                    Some((a, "")) => (number(a)?, usize::MAX),
                    Some((a, b)) => (number(a)?, number(b)?),
                };
                if max < min {
                    return None;
                }
                *i = close + 1;
                Some((min, max))
            }
            _ => None,
        }
    }

    fn single_matches(node: &Node, ch: char) -> bool {
        match node {
            Node::Lit(l) => *l == ch,
            Node::Any => true,
            Node::Class { ranges, negated } => {
                ranges.iter().any(|&(lo, hi)| lo <= ch && ch <= hi) != *negated
            }
            Node::Group(_) | Node::Repeat { .. } => unreachable!(),
        }
    }

    /// Continuation-passing backtracking: `k` is called with every end offset the
    /// sequence can reach from `i`, until it returns true.
    fn match_seq(seq: &[Node], s: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
        match seq.split_first() {
            None => k(i),
            Some((first, rest)) => match_node(first, s, i, &mut |j| match_seq(rest, s, j, k)),
        }
    }

    fn match_node(node: &Node, s: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
        match node {
            Node::Group(alts) => alts.iter().any(|alt| match_seq(alt, s, i, k)),
            Node::Repeat { node, min, max } => match_repeat(node, *min, *max, 0, s, i, k),
            single => i < s.len() && single_matches(single, s[i]) && k(i + 1),
        }
    }

    fn match_repeat(
        node: &Node,
        min: usize,
        max: usize,
        count: usize,
        s: &[char],
        i: usize,
        k: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        // Greedy: one more repetition first; an empty repetition only while below `min`.
        if count < max
            && match_node(node, s, i, &mut |j| {
                (j > i || count < min) && match_repeat(node, min, max, count + 1, s, j, k)
            })
        {
            return true;
        }
        count >= min && k(i)
    }

    #[cfg(test)]
    mod tests {
        use super::Pattern;

        fn m(p: &str, s: &str) -> bool {
            Pattern::new(p)
                .unwrap_or_else(|e| panic!("{p:?}: {e}"))
                .is_match(s)
        }

        #[test]
        fn literals_and_anchoring() {
            assert!(m("OK", "OK"));
            assert!(!m("OK", "OK "));
            assert!(!m("OK", "xOK"));
            assert!(!m("OK", "O"));
            assert!(m("", ""));
            assert!(!m("", "a"));
            assert!(m("a\\.b", "a.b"));
            assert!(!m("a\\.b", "axb"));
            assert!(m("\\(\\)\\[\\|", "()[|"));
        }

        #[test]
        fn dot_classes_and_escapes() {
            assert!(m("a.c", "abc"));
            assert!(!m("a.c", "ac"));
            assert!(m("\\d,\\d", "7,7"));
            assert!(!m("\\d,\\d", "7,x"));
            assert!(m("[0-9,]+", "10,11"));
            assert!(!m("[0-9,]+", "10, 11"));
            assert!(m("[^ ]+", "a,b"));
            assert!(!m("[^ ]+", "a b"));
            assert!(m("[]a]+", "]a]"));
            assert!(m("[a-]+", "a-a"));
            assert!(m("[\\d.]+", "0.1.2"));
            assert!(m("\\s\\S\\w\\W", " x_."));
            assert!(!m("\\D", "5"));
        }

        #[test]
        fn quantifiers() {
            assert!(m("\\d+,\\d+", "10,10"));
            assert!(!m("\\d+,\\d+", ",10"));
            assert!(m("a*", ""));
            assert!(m("a*b", "aaab"));
            assert!(m("ab?c", "ac"));
            assert!(m("ab?c", "abc"));
            assert!(!m("ab?c", "abbc"));
            assert!(m("FORBID (\\d{4})*\\.", "FORBID 07070808."));
            assert!(m("FORBID (\\d{4})*\\.", "FORBID ."));
            assert!(!m("FORBID (\\d{4})*\\.", "FORBID 0707080."));
            assert!(m("x{2,3}", "xxx"));
            assert!(!m("x{2,3}", "xxxx"));
            assert!(m("x{2,}", "xxxxx"));
            assert!(!m("x{2,}", "x"));
            assert!(m("a{b", "a{b"));
            assert!(m("a{,2}", "a{,2}"));
            // Backtracking into a greedy repeat.
            assert!(m(".*,.*,.*", "1,2,3"));
            assert!(m("(a|ab)(c|bcd)(d*)", "abcd"));
            // Empty-matching repeats terminate.
            assert!(m("(a*)*b", "aab"));
            assert!(!m("(a*)*b", "aac"));
            assert!(m("(a?){3}", ""));
        }

        #[test]
        fn groups_and_alternation() {
            let p = "SWAP|\\d+,\\d+( \\d+,\\d+)?";
            assert!(m(p, "SWAP"));
            assert!(m(p, "7,8"));
            assert!(m(p, "7,8 9,9"));
            assert!(!m(p, "7,8 9,9 1,1"));
            assert!(!m(p, "SWAP 1,1"));
            assert!(!m(p, "7,8 "));
            assert!(m("(ERROR|UNKNOWN) .*", "UNKNOWN FOO 1 2"));
            assert!(!m("(ERROR|UNKNOWN) .*", "UNKNOWNFOO"));
            assert!(m("a(|b)c", "ac"));
            assert!(m("a(|b)c", "abc"));
        }

        #[test]
        fn about_line() {
            let p = "name=\"Wuzi\", version=\"[0-9.]+\", author=\".*\", country=\".*\"";
            assert!(m(
                p,
                "name=\"Wuzi\", version=\"0.1.0\", author=\"A, B\", country=\"CZ\""
            ));
            assert!(!m(
                p,
                "name=\"Wuzi\" version=\"0.1.0\", author=\"\", country=\"\""
            ));
        }

        #[test]
        fn syntax_errors() {
            for bad in ["(a", "a)", "[ab", "*a", "a**", "a+?", "\\", "[z-a]"] {
                assert!(Pattern::new(bad).is_err(), "{bad:?} should not compile");
            }
        }
    }
}

// ------------------------------------------------------------------------------------
// Transcripts

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Send(String),
    Expect(String),
    ExpectRe(String),
    ExpectMsg(String),
    Eof,
    ExitsWithin(u64),
    Sleep(u64),
    NoOutput(u64),
    ReplyWithin(u64),
    Save(String),
    MaxRssMb(u64),
}

fn parse_transcript(text: &str) -> Result<Vec<(usize, Step)>, String> {
    let mut steps = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let no = index + 1;
        let line = raw.trim_end();
        if line.trim_start().is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |msg: &str| Err(format!("line {no}: {msg}: {line:?}"));
        let step = if line == ">" {
            Step::Send(String::new())
        } else if let Some(rest) = line.strip_prefix("> ") {
            Step::Send(rest.to_string())
        } else if let Some(rest) = line.strip_prefix("<msg ") {
            Step::ExpectMsg(rest.to_string())
        } else if let Some(rest) = line.strip_prefix("<~ ") {
            Step::ExpectRe(rest.to_string())
        } else if let Some(rest) = line.strip_prefix("< ") {
            Step::Expect(rest.to_string())
        } else if let Some(rest) = line.strip_prefix("! ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let ms = |w: &[&str]| -> Option<u64> {
                match w {
                    [_, n] => n.parse().ok(),
                    _ => None,
                }
            };
            match words.first().copied() {
                Some("eof") if words.len() == 1 => Step::Eof,
                Some("exits-within") => match ms(&words) {
                    Some(n) => Step::ExitsWithin(n),
                    None => return err("expected `! exits-within MS`"),
                },
                Some("sleep") => match ms(&words) {
                    Some(n) => Step::Sleep(n),
                    None => return err("expected `! sleep MS`"),
                },
                Some("no-output") => match ms(&words) {
                    Some(n) => Step::NoOutput(n),
                    None => return err("expected `! no-output MS`"),
                },
                Some("reply-within") => match ms(&words) {
                    Some(n) => Step::ReplyWithin(n),
                    None => return err("expected `! reply-within MS`"),
                },
                Some("max-rss-mb") => match ms(&words) {
                    Some(n) => Step::MaxRssMb(n),
                    None => return err("expected `! max-rss-mb N`"),
                },
                Some("save") if words.len() == 2 && is_var_name(words[1]) => {
                    Step::Save(words[1].to_string())
                }
                _ => return err("unknown directive"),
            }
        } else {
            return err("unrecognised transcript line");
        };
        // Patterns without variables are checked when the transcript is loaded.
        if let Step::ExpectRe(p) | Step::ExpectMsg(p) = &step {
            if !p.contains("${") {
                Pattern::new(p).map_err(|e| format!("line {no}: bad pattern: {e}"))?;
            }
        }
        steps.push((no, step));
    }
    Ok(steps)
}

fn is_var_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Replaces `${NAME}` by the saved value.
fn substitute(s: &str, vars: &HashMap<String, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed ${{ in {s:?}"))?;
        let name = &after[..end];
        let value = vars
            .get(name)
            .ok_or_else(|| format!("variable ${{{name}}} was never saved"))?;
        out.push_str(value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Decodes the escapes of a `>` line; returns the bytes to send (newline included).
fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() + 1);
    let mut newline = true;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let hex = |k: usize| b.get(k).and_then(|&c| (c as char).to_digit(16));
        match b[i + 1] {
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b's' => out.push(b' '),
            b'\\' => out.push(b'\\'),
            b'c' => {
                if i + 2 != b.len() {
                    return Err("\\c must end the line".into());
                }
                newline = false;
            }
            b'x' => match (hex(i + 2), hex(i + 3)) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => return Err("\\x needs two hex digits".into()),
            },
            _ => {
                out.push(b'\\');
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if newline {
        out.push(b'\n');
    }
    Ok(out)
}

/// Why an engine stdout line breaks the output rules, if it does.
fn line_format_error(line: &str, terminated: bool, format: &Pattern) -> Option<String> {
    if !terminated {
        Some("last line not terminated by a newline".into())
    } else if line.is_empty() {
        Some("empty line".into())
    } else if line.contains('\r') {
        Some("line contains a CR".into())
    } else if line.ends_with(|c: char| c.is_whitespace()) {
        Some("trailing whitespace".into())
    } else if !format.is_match(line) {
        Some("not a protocol line (no known keyword, not a move list)".into())
    } else {
        None
    }
}

fn output_format() -> Pattern {
    Pattern::new(
        "OK|SWAP|(ERROR|UNKNOWN|MESSAGE|DEBUG) .+|FORBID (\\d{4})*\\.|name=.*|\\d+,\\d+( \\d+,\\d+)*",
    )
    .expect("output format pattern")
}

fn is_chatter(line: &str) -> bool {
    line.starts_with("MESSAGE ") || line.starts_with("DEBUG ")
}

// ------------------------------------------------------------------------------------
// Engine process

#[derive(Debug, Clone)]
struct Received {
    at: Instant,
    text: String,
    terminated: bool,
}

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Received>,
    stdout_eof: bool,
    /// Received lines not yet consumed by `<`, `<~`, `<msg`.
    pending: VecDeque<Received>,
    /// Every stdout line, for the format checks.
    seen: Vec<Received>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// I/O log shown as context on failure.
    log: Vec<String>,
    status: Option<ExitStatus>,
}

impl Engine {
    fn spawn(dir: &Path) -> Result<Engine, String> {
        let exe = env!("CARGO_BIN_EXE_pbrain-wuzi");
        let mut child = Command::new(exe)
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

    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.log.push(format!(
            "> {}",
            String::from_utf8_lossy(bytes).escape_debug()
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

    fn close_stdin(&mut self) {
        self.log.push("! eof".into());
        self.stdin = None;
    }

    fn accept(&mut self, line: Received) {
        self.log.push(format!("< {}", line.text.escape_debug()));
        self.seen.push(line.clone());
        self.pending.push_back(line);
    }

    /// Waits until `deadline` for one more stdout line; false on timeout or EOF.
    fn pump(&mut self, deadline: Instant) -> bool {
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

    /// The next line that is not MESSAGE/DEBUG.
    fn next_reply(&mut self, timeout: Duration) -> Result<Received, String> {
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

    /// The first MESSAGE line matching `pat`, which must come before any reply line.
    fn next_message(&mut self, pat: &Pattern, timeout: Duration) -> Result<String, String> {
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
                if line.text.starts_with("MESSAGE ") {
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
    fn expect_silence(&mut self, dur: Duration) -> Result<(), String> {
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
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
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

    fn rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024.0)
    }

    fn kill(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
            self.log.push("(killed by the harness)".into());
        }
    }

    fn context(&self) -> String {
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

fn describe_exit(status: ExitStatus) -> Option<String> {
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
    let mut failures = Vec::new();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            failures.push(format!("{name}: cannot read: {e}"));
            return Outcome {
                name,
                failures,
                elapsed: started.elapsed(),
            };
        }
    };
    let steps = match parse_transcript(&text) {
        Ok(s) => s,
        Err(e) => {
            failures.push(format!("{name}: {e}"));
            return Outcome {
                name,
                failures,
                elapsed: started.elapsed(),
            };
        }
    };
    let dir = std::env::temp_dir().join(format!(
        "wuzi-proto-{}-{}",
        std::process::id(),
        name.trim_end_matches(".txt")
    ));
    let _ = std::fs::create_dir_all(&dir);
    let mut engine = match Engine::spawn(&dir) {
        Ok(e) => e,
        Err(e) => {
            failures.push(format!("{name}: {e}"));
            return Outcome {
                name,
                failures,
                elapsed: started.elapsed(),
            };
        }
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
        let extra: Vec<&str> = engine
            .pending
            .iter()
            .filter(|l| !is_chatter(&l.text))
            .map(|l| l.text.as_str())
            .collect();
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
            Step::MaxRssMb(limit) => {
                if let Some(rss) = engine.rss_mib() {
                    if rss > *limit as f64 {
                        return Err(fail(format!("resident memory {rss:.1} MiB > {limit} MiB")));
                    }
                }
            }
        }
    }
    Ok(())
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

#[cfg(test)]
mod harness_tests {
    use super::*;

    #[test]
    fn unescape_rules() {
        assert_eq!(unescape("START 15").unwrap(), b"START 15\n");
        assert_eq!(unescape("START 15\\r").unwrap(), b"START 15\r\n");
        assert_eq!(unescape("a\\tb\\s").unwrap(), b"a\tb \n");
        assert_eq!(unescape("END\\c").unwrap(), b"END");
        assert_eq!(unescape("\\xff\\x00").unwrap(), b"\xff\x00\n");
        assert_eq!(
            unescape("C:\\Program Files\\AI").unwrap(),
            b"C:\\Program Files\\AI\n"
        );
        assert_eq!(unescape("a\\\\b").unwrap(), b"a\\b\n");
        assert_eq!(unescape("trailing\\").unwrap(), b"trailing\\\n");
        assert!(unescape("a\\cb").is_err());
        assert!(unescape("\\xg1").is_err());
    }

    #[test]
    fn parse_lines() {
        let t = "# c\n\n> START 15\n< OK\n<~ \\d+,\\d+\n<msg MESSAGE .*\n>\n! eof\n\
                 ! exits-within 100\n! sleep 5\n! no-output 7\n! reply-within 9\n! save M\n\
                 ! max-rss-mb 64\n> TURN ${M}  \n";
        let steps: Vec<Step> = parse_transcript(t)
            .unwrap()
            .into_iter()
            .map(|s| s.1)
            .collect();
        assert_eq!(
            steps,
            vec![
                Step::Send("START 15".into()),
                Step::Expect("OK".into()),
                Step::ExpectRe("\\d+,\\d+".into()),
                Step::ExpectMsg("MESSAGE .*".into()),
                Step::Send(String::new()),
                Step::Eof,
                Step::ExitsWithin(100),
                Step::Sleep(5),
                Step::NoOutput(7),
                Step::ReplyWithin(9),
                Step::Save("M".into()),
                Step::MaxRssMb(64),
                Step::Send("TURN ${M}".into()),
            ]
        );
        assert_eq!(
            parse_transcript("x\n> a\nfoo").unwrap_err(),
            "line 1: unrecognised transcript line: \"x\""
        );
        assert!(parse_transcript("! frobnicate").is_err());
        assert!(parse_transcript("! sleep").is_err());
        assert!(parse_transcript("<~ (").is_err());
    }

    #[test]
    fn substitution() {
        let mut vars = HashMap::new();
        vars.insert("A".to_string(), "3,4".to_string());
        assert_eq!(substitute("TURN ${A}", &vars).unwrap(), "TURN 3,4");
        assert_eq!(substitute("${A} ${A}", &vars).unwrap(), "3,4 3,4");
        assert!(substitute("${B}", &vars).is_err());
        assert!(substitute("${A", &vars).is_err());
    }

    #[test]
    fn output_rules() {
        let f = output_format();
        let ok = |l: &str| line_format_error(l, true, &f).is_none();
        for good in [
            "OK",
            "SWAP",
            "7,7",
            "10,11",
            "1,2 3,4 5,6",
            "ERROR bad size",
            "UNKNOWN FOO 1 2",
            "MESSAGE hello",
            "DEBUG x",
            "FORBID .",
            "FORBID 07070808.",
            "name=\"Wuzi\", version=\"0.1.0\"",
        ] {
            assert!(ok(good), "{good:?} should pass");
        }
        for bad in [
            "",
            "7,7 ",
            "7,7\r",
            "7, 7",
            "7,7  8,8",
            "OK - ready",
            "MESSAGE",
            "MESSAGE ",
            "ok",
            "FORBID 0707",
            "FORBID 070.",
            "SUGGEST 7,7",
            "Wuzi 0.1 ready",
        ] {
            assert!(!ok(bad), "{bad:?} should fail");
        }
        assert!(line_format_error("7,7", false, &f).is_some());
    }
}
