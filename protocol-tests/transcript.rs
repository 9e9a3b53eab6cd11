//! Transcript lines: parsing, `>` escapes and `${NAME}` variables.

use std::collections::HashMap;

use crate::pattern::Pattern;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
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
    SendLong(u64),
    /// The engine's thread count must equal this sum (after `${NAME}` substitution).
    Threads(String),
}

pub(crate) fn parse_transcript(text: &str) -> Result<Vec<(usize, Step)>, String> {
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
                Some("send-long") => match ms(&words) {
                    Some(n) => Step::SendLong(n),
                    None => return err("expected `! send-long N`"),
                },
                Some("max-rss-mb") => match ms(&words) {
                    Some(n) => Step::MaxRssMb(n),
                    None => return err("expected `! max-rss-mb N`"),
                },
                Some("threads") if words.len() == 2 => Step::Threads(words[1].to_string()),
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
pub(crate) fn substitute(s: &str, vars: &HashMap<String, String>) -> Result<String, String> {
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
pub(crate) fn unescape(s: &str) -> Result<Vec<u8>, String> {
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

#[cfg(test)]
mod tests {
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
}
