//! Whole-line regular expressions, just big enough for the transcripts (see the
//! pattern syntax in `main.rs`).

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
