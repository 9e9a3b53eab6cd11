//! The rules every engine stdout line must follow: printable ASCII, no trailing blank,
//! and one of the protocol's forms. Shared by the transcript runner and the fuzzer.

use crate::pattern::Pattern;

/// The longest output line taken (an echo of a huge input line is a fault; the pattern
/// matcher also recurses once a character).
const MAX_LINE_CHARS: usize = 10_000;

/// Why an engine stdout line breaks the output rules, if it does.
pub(crate) fn line_format_error(line: &str, terminated: bool, format: &Pattern) -> Option<String> {
    if !terminated {
        Some("last line not terminated by a newline".into())
    } else if line.is_empty() {
        Some("empty line".into())
    } else if line.len() > MAX_LINE_CHARS {
        Some(format!(
            "{} characters: longer than any reply needs",
            line.len()
        ))
    } else if line.contains('\r') {
        Some("line contains a CR".into())
    } else if let Some(c) = line.chars().find(|c| !(' '..='~').contains(c)) {
        Some(format!("line contains {c:?}, not printable ASCII"))
    } else if line.ends_with(|c: char| c.is_whitespace()) {
        Some("trailing whitespace".into())
    } else if !format.is_match(line) {
        Some("not a protocol line (no known keyword, not a move list)".into())
    } else {
        None
    }
}

pub(crate) fn output_format() -> Pattern {
    Pattern::new(
        "OK|SWAP|(ERROR|UNKNOWN|MESSAGE|DEBUG|INFO) .+|FORBID (\\d{4})*\\.|name=.*|\\d+,\\d+( \\d+,\\d+)*",
    )
    .expect("output format pattern")
}

/// Information lines (`MESSAGE`, `DEBUG`, and Yixin-Board's `INFO` detail blocks), which
/// a manager shows or logs but never takes for a reply.
pub(crate) fn is_chatter(line: &str) -> bool {
    ["MESSAGE ", "DEBUG ", "INFO "]
        .iter()
        .any(|k| line.starts_with(k))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!ok(&format!("UNKNOWN {}", "X".repeat(MAX_LINE_CHARS))));
    }
}
