//! Broken records, the way people meet them: every fault of a table gives an error that
//! names its line and quotes the file, and no change of one character anywhere in a good
//! record reads as a shorter game.

use super::{Format, Record};

const PSQ: &str = "Piskvorky 15x15, 11:11, 0\n";

#[test]
fn every_fault_names_its_line() {
    let psq = |rest: &str| format!("{PSQ}{rest}");
    // Each broken record: its format, its text, the line the error must name, and words
    // the error's "expected" and "found" parts must contain.
    let table: Vec<(Format, String, usize, &str, &str)> = vec![
        // The file of the report: a broken second move, then good moves and the end code.
        (
            Format::Psq,
            psq("8,8,0\n9,x,0\n10,10,0\n11,11,0\n-1\n"),
            3,
            "a move x,y,time",
            "\"9,x,0\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\n99,9,0\n-1\n"),
            3,
            "a move on the 15x15 board (x from 1 to 15, y from 1 to 15)",
            "\"99,9,0\"",
        ),
        (
            Format::Psq,
            psq("0,5,0\n-1\n"),
            2,
            "x from 1 to 15",
            "\"0,5,0\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\n9,9,0\n8,8,0\n-1\n"),
            4,
            "a move on an empty cell",
            "\"8,8,0\", the cell of move 1",
        ),
        (
            Format::Psq,
            psq("8,8,0\nblack\nwhite\n9,9,0\n-1\n"),
            5,
            "no move after line 3",
            "\"9,9,0\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\n\n9,9,0\n-1\n"),
            4,
            "no move after line 3 (a blank line)",
            "\"9,9,0\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\nblack\nwhite\nthird\n-1\n"),
            6,
            "two players' names and the end code",
            "\"-1\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\nblack\n-1\n"),
            4,
            "two players' names and the end code",
            "\"-1\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\nblack\nwhite\n"),
            4,
            "the end code",
            "\"white\"",
        ),
        (
            Format::Psq,
            psq("8,8,0\n9,9,0,4\n-1\n"),
            3,
            "a move x,y,time",
            "\"9,9,0,4\"",
        ),
        (
            Format::Psq,
            "Piskvork 15x15\n8,8,0\n".into(),
            1,
            "a header",
            "\"Piskvork 15x15\"",
        ),
        (
            Format::Psq,
            "Piskvorky 40x40, 11:11, 0\n".into(),
            1,
            "a board size from 5 to 32",
            "40x40",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh]\n;W[zz])".into(),
            3,
            "a move on the 15x15 board (columns a to o, rows a to o)",
            "\"W[zz]\"",
        ),
        (
            Format::Sgf,
            "(;GM[1]SZ[19];B[hh])".into(),
            1,
            "GM[4]",
            "GM[1]",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15];B[hh]".into(),
            1,
            "')'",
            "the end of the file",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh];B[ii])".into(),
            2,
            "a white move",
            "B[ii]",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15];B[h".into(),
            1,
            "']'",
            "the end of the file",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[abc])".into(),
            1,
            "a board size",
            "\"abc\"",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh][ii])".into(),
            2,
            "a move of two letters",
            "\"B[hh][ii]\"",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh]\n;C[hi]\n;W[ii])".into(),
            3,
            "a move B[..] or W[..] in every node",
            "\"C[hi]\"",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh]C[4ms\n;W[ii]C[5ms]\n)".into(),
            2,
            "']' at the end of this value",
            "4ms",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;B[hh]C[a]C[b])".into(),
            2,
            "C at most once in a node",
            "\"C\"",
        ),
        (
            Format::Sgf,
            "(;GM[4]SZ[15]\n;AB[hh])".into(),
            2,
            "not setup stones",
            "AB",
        ),
        (
            Format::PosString,
            "h8i9z99".into(),
            1,
            "a move on the 32x32 board",
            "\"z99\"",
        ),
        (
            Format::PosString,
            "h8 9i".into(),
            1,
            "a column letter",
            "\"9i\"",
        ),
        (
            Format::PosString,
            "h8i9\nj".into(),
            2,
            "a row number",
            "\"j\"",
        ),
        (
            Format::PosString,
            "h8i9h8".into(),
            1,
            "a move on an empty cell",
            "\"h8\", the cell of move 1",
        ),
        (
            Format::PosString,
            "h123".into(),
            1,
            "a row number of 1 or 2 digits",
            "\"h123\"",
        ),
        (
            Format::Sav,
            "15\n15\n2\n7 7\n".into(),
            5,
            "line 3 counts 2 moves",
            "the end of the file",
        ),
        (
            Format::Sav,
            "15\n15\n1\n7 x\n".into(),
            4,
            "a move 'column row' (line 3 counts 1 move)",
            "\"7 x\"",
        ),
        (
            Format::Sav,
            "15\n".into(),
            2,
            "the board height",
            "the end of the file",
        ),
        (
            Format::Sav,
            "15\n15\n1\n7 7\n8 8\n".into(),
            5,
            "the end of the file: line 3 counts 1 move",
            "\"8 8\"",
        ),
        (
            Format::Sav,
            "15\n15\n-2\n".into(),
            3,
            "the number of moves",
            "-2",
        ),
        (
            Format::Sav,
            "15\n15\n1\n15 3\n".into(),
            4,
            "columns 0 to 14, rows 0 to 14",
            "\"15 3\"",
        ),
    ];
    assert!(table.len() >= 20);
    for (format, text, line, expected, found) in table {
        let (text, line) = (text.as_str(), line);
        match format.read(text) {
            Ok(r) => panic!("{format:?} {text:?} read as {} moves", r.moves.len()),
            Err(e) => {
                assert_eq!(e.line, line, "{format:?} {text:?}: {e}");
                assert!(e.expected.contains(expected), "{format:?} {text:?}: {e}");
                assert!(e.found.contains(found), "{format:?} {text:?}: {e}");
                assert!(e
                    .to_string()
                    .starts_with(&format!("line {line}: expected ")));
            }
        }
    }
}

/// Good records of every format: the repository's c-gomoku-cli file, and a game written
/// by each writer (the psq with and without the players' names).
fn good_records() -> Vec<(Format, String)> {
    let mut game = Record::new(15, 15);
    for (i, p) in ["h8", "i9", "h9", "h10", "i8", "g10", "j7", "k6", "g8"]
        .iter()
        .enumerate()
    {
        let cell = Format::PosString.read(p).unwrap().moves[0].clone();
        game.moves.push(super::Move {
            time_ms: Some(10 * i as u64),
            ..cell
        });
    }
    let mut named = game.clone();
    named.black = Some("pbrain-a.zip".into());
    named.white = Some("pbrain-b.zip".into());
    let mut out = vec![(Format::Sgf, include_str!("c-gomoku-cli.sgf").to_string())];
    for format in Format::ALL {
        out.push((format, format.write(&game).unwrap()));
    }
    out.push((Format::Psq, Format::Psq.write(&named).unwrap()));
    out.push((Format::Sgf, Format::Sgf.write(&named).unwrap()));
    out
}

#[test]
fn no_change_of_one_character_reads_as_a_shorter_game() {
    // Each character of each line replaced by each of these, deleted, or one of these
    // inserted before it (or at the end of the line): the record is read as a game of at
    // least as many moves, or refused. (A whole line taken out is not such a change: a
    // psq or SGF without its last move is a good, shorter game.)
    const CHARS: &[char] = &[
        ',', ';', '[', ']', '(', ')', ' ', '-', '\\', '0', '1', '9', 'a', 'h', 'z', 'B', 'W', 'C',
        'x', '\n',
    ];
    for (format, text) in good_records() {
        let want = format.read(&text).unwrap().moves.len();
        let mut tried = 0;
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let body = line.trim_end_matches('\n');
            let chars: Vec<char> = body.chars().collect();
            for at in 0..=chars.len() {
                let mut variants: Vec<Vec<char>> = Vec::new();
                for &c in CHARS {
                    let mut v = chars.clone();
                    v.insert(at, c);
                    variants.push(v);
                    if at < chars.len() && chars[at] != c {
                        let mut v = chars.clone();
                        v[at] = c;
                        variants.push(v);
                    }
                }
                if at < chars.len() {
                    let mut v = chars.clone();
                    v.remove(at);
                    variants.push(v);
                }
                for v in variants {
                    if v.is_empty() {
                        continue;
                    }
                    let changed: String = v.into_iter().collect();
                    let newline = if line.ends_with('\n') { "\n" } else { "" };
                    let broken = format!(
                        "{}{changed}{newline}{}",
                        lines[..i].concat(),
                        lines[i + 1..].concat()
                    );
                    tried += 1;
                    if let Ok(r) = format.read(&broken) {
                        assert!(
                            r.moves.len() >= want,
                            "{format:?}: line {} changed to {changed:?} reads as {} moves, not {want}:\n{broken}",
                            i + 1,
                            r.moves.len()
                        );
                    }
                }
            }
        }
        assert!(tried > 100, "{format:?}: {tried} changes");
    }
}
