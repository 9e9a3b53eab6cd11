//! Hostile input lines. `hostile` makes lines that must not change a game in progress
//! (garbage, control bytes, long lines, unknown commands, known commands with arguments
//! that must be refused, blocks that must be rejected); `chaos` makes anything at all,
//! valid commands and mutations of them included.

use crate::rng::Rng;

/// The words the engine takes as commands; garbage must not start with one.
const COMMANDS: &[&str] = &[
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "PLAY",
    "TAKEBACK",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "INFO",
    "END",
    "ABOUT",
    "STOP",
    "YXSTOP",
    "YXSHOWFORBID",
    "YXSHOWINFO",
    "YXHASHCLEAR",
    "DONE",
    "YXNBEST",
    "YXSEARCHDEFEND",
    "YXBALANCEONE",
    "YXBALANCETWO",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    // Yixin-Board commands whose x,y lines up to DONE the engine skips.
    "YXQUERYDATABASEALL",
    "YXQUERYDATABASEALLT",
    "YXQUERYDATABASEONE",
    "YXQUERYDATABASETEXT",
    "YXEDITLABELDATABASE",
    "YXEDITTEXTDATABASE",
    "YXEDITTVDDATABASE",
    "YXDELETEDATABASEONE",
    "YXDELETEDATABASEALL",
    "YXSETBESTMOVEDATABASE",
    "YXCLEARBESTMOVEDATABASE",
    "YXBLOCKPATH",
    "YXBLOCKPATHUNDO",
    "YXSOOSORVSTEP3",
    "YXSOOSORVSTEP5",
];

/// What the fuzzer knows of the game it is hostile to.
pub struct Game {
    pub width: i64,
    pub height: i64,
    /// Occupied cells.
    pub stones: Vec<(i64, i64)>,
}

impl Game {
    pub fn occupied(&self, x: i64, y: i64) -> bool {
        self.stones.contains(&(x, y))
    }

    fn empty_cell(&self, rng: &mut Rng) -> (i64, i64) {
        loop {
            let x = rng.range(0, self.width as u64 - 1) as i64;
            let y = rng.range(0, self.height as u64 - 1) as i64;
            if !self.occupied(x, y) {
                return (x, y);
            }
        }
    }
}

pub fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.range(0, items.len() as u64 - 1) as usize]
}

pub fn chance(rng: &mut Rng, percent: u64) -> bool {
    rng.range(0, 99) < percent
}

/// A line terminator: LF or CRLF.
pub fn newline(rng: &mut Rng) -> &'static [u8] {
    if chance(rng, 50) {
        b"\n"
    } else {
        b"\r\n"
    }
}

/// A number meant to be refused or to overflow: huge, negative, or not a number.
fn bad_number(rng: &mut Rng) -> String {
    pick(
        rng,
        &[
            "99999999999999999999",
            "-99999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551616",
            "-1",
            "-7",
            "1e3",
            "0x10",
            "abc",
            "",
            "1.5",
            "+",
            "\u{ff11}",
        ],
    )
    .to_string()
}

/// Random bytes with no newline, often with control, NUL and non-UTF-8 bytes.
fn garbage_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| match rng.range(0, 9) {
            0 => rng.range(0, 31) as u8,
            1 => rng.range(0x80, 0xff) as u8,
            2 => b'\r',
            3 => 0,
            _ => rng.range(0x20, 0x7e) as u8,
        })
        .map(|b| if b == b'\n' { b'?' } else { b })
        .collect()
}

/// True when the engine could read `line` as a command or a stone line (a block line of
/// numbers): garbage must be neither.
fn could_be_command(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    COMMANDS.contains(&first_word(line).as_str())
        || text.chars().all(|c| {
            c.is_ascii_digit() || c == ',' || c == '-' || c == '+' || c == '\0' || c.is_whitespace()
        })
}

/// The first word of `line` in upper case, as the engine reads it (blanks and NUL around
/// the line trimmed).
fn first_word(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    text.trim_matches(|c: char| c.is_whitespace() || c == '\0')
        .split(char::is_whitespace)
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// Garbage that is no command.
fn garbage(rng: &mut Rng) -> Vec<u8> {
    loop {
        let len = rng.range(1, 80) as usize;
        let line = garbage_bytes(rng, len);
        if !could_be_command(&line) {
            return line;
        }
    }
}

/// A line of `len` bytes, longer than most buffers (and around the engine's 64 KiB cap).
fn long_line(rng: &mut Rng) -> Vec<u8> {
    let len = *pick(rng, &[65_535usize, 65_536, 65_537, 100_000, 200_000]);
    let mut line = vec![b'X'; len];
    if chance(rng, 50) {
        // A command word in front: still one overlong line, not a command.
        line[..5].copy_from_slice(b"TURN ");
    }
    line
}

fn cell_text(x: i64, y: i64) -> String {
    format!("{x},{y}")
}

/// A cell the engine must refuse as a move: off the board or occupied.
fn refused_cell(rng: &mut Rng, g: &Game) -> String {
    match rng.range(0, 3) {
        0 if !g.stones.is_empty() => {
            let (x, y) = *pick(rng, &g.stones);
            cell_text(x, y)
        }
        1 => cell_text(g.width, rng.range(0, g.height as u64 - 1) as i64),
        2 => cell_text(-1 - rng.range(0, 5) as i64, rng.range(0, 40) as i64),
        _ => cell_text(rng.range(0, 40) as i64, g.height + rng.range(0, 5) as i64),
    }
}

/// Arguments `x,y` that do not read as a cell.
fn bad_cell_args(rng: &mut Rng) -> String {
    match rng.range(0, 4) {
        0 => format!("{},{}", bad_number(rng), rng.range(0, 9)),
        1 => format!("{},{}", rng.range(0, 9), bad_number(rng)),
        2 => pick(rng, &["", "7", "7,", ",7", "7,7,7,7", "7 7", "7;7"]).to_string(),
        _ => format!(
            "{},{},{}",
            bad_number(rng),
            bad_number(rng),
            bad_number(rng)
        ),
    }
}

/// A block (`BOARD`, `YXBOARD` or `SWAP2BOARD` … `DONE`) the engine must reject as a
/// whole: its stones can never make a legal position (only own stones, at least two;
/// or a SWAP2BOARD of 1, 2 or 4 stones), and other lines in it are garbage, stray
/// commands or stone lines with bad fields.
fn rejected_block(rng: &mut Rng, g: &Game) -> Vec<Vec<u8>> {
    let swap2 = chance(rng, 25);
    let head = if swap2 {
        "SWAP2BOARD"
    } else {
        *pick(rng, &["BOARD", "YXBOARD", "board", "YxBoard"])
    };
    let mut lines = vec![head.as_bytes().to_vec()];
    let mut cells: Vec<(i64, i64)> = Vec::new();
    let want = if swap2 {
        *pick(rng, &[1usize, 2, 4])
    } else {
        rng.range(2, 6) as usize
    };
    while cells.len() < want {
        let c = g.empty_cell(rng);
        if !cells.contains(&c) {
            cells.push(c);
        }
    }
    let mut stones: Vec<Vec<u8>> = cells
        .iter()
        .map(|&(x, y)| {
            if swap2 {
                format!("{x},{y}")
            } else {
                format!("{x},{y},1")
            }
            .into_bytes()
        })
        .collect();
    let noise = rng.range(0, 6);
    for _ in 0..noise {
        // A SWAP2BOARD counts every line of numbers as a stone, whatever its field.
        let kind = if swap2 {
            *pick(rng, &[0, 3, 4, 5])
        } else {
            rng.range(0, 5)
        };
        let line = match kind {
            0 => garbage(rng),
            1 => format!("{},{}", refused_cell(rng, g), pick(rng, &["1", "3"])).into_bytes(),
            2 => format!(
                "{},{},{}",
                rng.range(0, 9),
                rng.range(0, 9),
                pick(rng, &["0", "4", "-1", "99999999999999999999", "x", ""])
            )
            .into_bytes(),
            3 => pick(
                rng,
                &["TURN 1,1", "START 15", "ABOUT", "INFO rule 4", "BEGIN"],
            )
            .as_bytes()
            .to_vec(),
            4 => Vec::new(),
            _ => long_line(rng),
        };
        let at = rng.range(0, stones.len() as u64) as usize;
        stones.insert(at, line);
    }
    lines.extend(stones);
    lines.push(
        pick(rng, &["DONE", "done", " Done ", "DONE\r"])
            .as_bytes()
            .to_vec(),
    );
    lines
}

/// A Yixin-Board command the engine does not support, with the cells it sends and other
/// lines up to DONE: all skipped with it.
fn skipped_block(rng: &mut Rng, g: &Game) -> Vec<Vec<u8>> {
    let head = *pick(
        rng,
        &[
            "yxquerydatabaseallt",
            "YXSETBESTMOVEDATABASE",
            "yxblockpath",
        ],
    );
    let mut lines = vec![head.as_bytes().to_vec()];
    for _ in 0..rng.range(0, 5) {
        let line = match rng.range(0, 3) {
            0 => garbage(rng),
            1 => b"TURN 1,1".to_vec(),
            _ => {
                let (x, y) = g.empty_cell(rng);
                format!("{x},{y}").into_bytes()
            }
        };
        lines.push(line);
    }
    lines.push(b"done".to_vec());
    lines
}

/// INFO lines whose values are odd but must not change the game position. The session
/// resets the time and memory options afterwards.
fn odd_info(rng: &mut Rng) -> String {
    let key = *pick(
        rng,
        &[
            "timeout_turn",
            "timeout_match",
            "time_left",
            "max_memory",
            "max_depth",
            "max_node",
            "hash_size",
            "game_type",
            "folder",
            "evaluate",
            "thread_num",
            "no_such_key",
            "",
        ],
    );
    let value = match rng.range(0, 3) {
        0 => bad_number(rng),
        1 => pick(
            rng,
            &["0", "1", "5", "1000000", "2147483647", "-2147483648"],
        )
        .to_string(),
        _ => String::from_utf8_lossy(&garbage_bytes(rng, 12)).into_owned(),
    };
    format!("INFO {key} {value}")
}

/// Lines that must leave the game as it is: each gets an `ERROR`/`UNKNOWN` line, another
/// non-move reply, or nothing.
pub fn hostile(rng: &mut Rng, g: &Game) -> Vec<Vec<u8>> {
    let one = |s: String| vec![s.into_bytes()];
    match rng.range(0, 15) {
        0 | 1 => vec![garbage(rng)],
        2 => vec![long_line(rng)],
        3 => one(format!(
            "{} {}",
            pick(rng, &["TURN", "turn", "PLAY", "TAKEBACK"]),
            bad_cell_args(rng)
        )),
        4 => one(format!(
            "{} {}",
            pick(rng, &["TURN", "Turn", "PLAY"]),
            refused_cell(rng, g)
        )),
        5 => {
            let (x, y) = g.empty_cell(rng);
            one(format!("TAKEBACK {x},{y}"))
        }
        6 => one(format!(
            "START {}",
            pick(
                rng,
                &[
                    "0",
                    "4",
                    "33",
                    "1000",
                    "-15",
                    "99999999999999999999",
                    "abc",
                    ""
                ]
            )
        )),
        7 => one(format!(
            "RECTSTART {}",
            pick(
                rng,
                &["4,15", "15,33", "-1,20", "20", "20,20,20", "x,y", ""]
            )
        )),
        // BEGIN is refused only once a stone is down.
        8 if g.stones.is_empty() => one("ABOUT".to_string()),
        8 => one(pick(
            rng,
            &[
                "BEGIN",
                "ABOUT",
                "YXSHOWFORBID",
                "YXSHOWINFO",
                "YXHASHCLEAR",
                "STOP",
                "YXSTOP",
                "SUGGEST 7,7",
                "YXNBEST 0",
                "YXNBEST many",
                "YXBALANCEONE x",
                "YXBLOCKRESET",
                "YXSHOWHASHUSAGE",
                "HELLO WORLD",
            ],
        )
        .to_string()),
        9 if chance(rng, 20) => skipped_block(rng, g),
        9 => rejected_block(rng, g),
        10 => one(odd_info(rng)),
        11 => vec![Vec::new()],
        12 => one(pick(rng, &[" ", "\t", "\r", "\0", " \r "]).to_string()),
        13 => {
            // A command word glued to garbage by a bare CR: one line, one UNKNOWN.
            let mut line = b"HELLO\rTURN 7,7".to_vec();
            line.extend(garbage_bytes(rng, 4));
            vec![line]
        }
        _ => {
            // A valid command with control bytes inside its arguments.
            let (x, y) = g.empty_cell(rng);
            one(format!("TURN {x},\u{7}{y}"))
        }
    }
}

/// Anything: valid commands of every kind (new games, moves, positions, rules), hostile
/// lines, and random mutations of both.
pub fn chaos(rng: &mut Rng, g: &Game) -> Vec<Vec<u8>> {
    let mut lines = match rng.range(0, 13) {
        0 => vec![format!("START {}", rng.range(3, 34)).into_bytes()],
        12 => {
            // Yixin-Board's analysis commands and root-move exclusion.
            let word = *pick(
                rng,
                &[
                    "YXNBEST 2",
                    "YXSEARCHDEFEND",
                    "YXBALANCEONE 0",
                    "YXBALANCETWO 30",
                    "YXBLOCK",
                    "YXBLOCKUNDO",
                ],
            );
            let mut lines = vec![word.as_bytes().to_vec()];
            if word.starts_with("YXBLOCK") {
                for _ in 0..rng.range(0, 4) {
                    let x = rng.range(0, g.width as u64) as i64;
                    let y = rng.range(0, g.height as u64) as i64;
                    lines.push(format!("{x},{y}").into_bytes());
                }
                lines.push(b"DONE".to_vec());
            }
            lines
        }
        1 => vec![format!("RECTSTART {},{}", rng.range(4, 33), rng.range(4, 33)).into_bytes()],
        2 => vec![b"RESTART".to_vec()],
        3 => vec![b"BEGIN".to_vec()],
        4 | 5 => {
            let word = pick(rng, &["TURN", "PLAY", "TAKEBACK"]);
            let x = rng.range(0, g.width as u64) as i64;
            let y = rng.range(0, g.height as u64) as i64;
            vec![format!("{word} {x},{y}").into_bytes()]
        }
        6 => {
            let head = pick(rng, &["BOARD", "YXBOARD", "SWAP2BOARD"]);
            let mut block = vec![head.as_bytes().to_vec()];
            for _ in 0..rng.range(0, 7) {
                let x = rng.range(0, g.width as u64) as i64;
                let y = rng.range(0, g.height as u64) as i64;
                block.push(format!("{x},{y},{}", rng.range(1, 3)).into_bytes());
            }
            if chance(rng, 90) {
                block.push(b"DONE".to_vec());
            }
            block
        }
        7 => {
            let (key, values): (&str, &[&str]) = match rng.range(0, 4) {
                0 => ("rule", &["0", "1", "2", "4", "8", "9", "10", "-1"]),
                1 => (
                    *pick(rng, &["timeout_turn", "time_left", "max_node", "max_depth"]),
                    &["0", "1", "10", "50", "-1"],
                ),
                2 => ("thread_num", &["1", "2", "3", "64", "0"]),
                _ => ("max_memory", &["0", "1", "1048576", "67108864"]),
            };
            vec![format!("INFO {key} {}", pick(rng, values)).into_bytes()]
        }
        _ => hostile(rng, g),
    };
    if chance(rng, 20) {
        mutate(rng, &mut lines);
    }
    // The session decides when it ends, and its searches stay short: no END, and no
    // per-move limit over 100 ms (chaos has searches start at any time, so a long limit
    // could not be taken back before one runs).
    for line in &mut lines {
        if first_word(line) == "END" || long_turn_limit(line) {
            *line = garbage(rng);
        }
    }
    lines
}

/// `INFO timeout_turn N` with N over 100 (or not a number the engine reads as one).
fn long_turn_limit(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let mut words = text.split_whitespace();
    let info = words.next().is_some_and(|w| w.eq_ignore_ascii_case("INFO"));
    let key = words
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("timeout_turn"));
    info && key
        && words
            .next()
            .and_then(|v| v.parse::<i64>().ok())
            .is_some_and(|v| v > 100)
}

/// Flip, drop, insert or duplicate bytes in one of `lines`, or cut it short.
fn mutate(rng: &mut Rng, lines: &mut [Vec<u8>]) {
    let i = rng.range(0, lines.len() as u64 - 1) as usize;
    let line = &mut lines[i];
    if line.is_empty() {
        line.push(rng.range(0, 255) as u8);
    }
    let at = rng.range(0, line.len() as u64 - 1) as usize;
    match rng.range(0, 4) {
        0 => line[at] ^= 1 << rng.range(0, 7),
        1 => {
            line.remove(at);
        }
        2 => line.insert(at, rng.range(0, 255) as u8),
        3 => line.truncate(at),
        _ => {
            let copy = line[at..].to_vec();
            line.extend(copy);
        }
    }
    line.retain(|&b| b != b'\n');
}

/// Checks the generator's own promise (run before every fuzz run): garbage never reads as
/// a command or a stone line.
pub fn self_check() {
    assert!(could_be_command(b"  turn 1,2"));
    assert!(could_be_command(b"\0END\r"));
    assert!(could_be_command(b"1, 2 ,3"));
    assert!(!could_be_command(b"TURNX 1,2"));
    let mut rng = Rng::new(5);
    for _ in 0..10_000 {
        assert!(!could_be_command(&garbage(&mut rng)));
    }
    assert!(long_turn_limit(b"info  TIMEOUT_TURN 2000000 x"));
    assert!(!long_turn_limit(b"INFO timeout_turn 50"));
    assert!(!long_turn_limit(b"INFO timeout_match 2000000"));
}
