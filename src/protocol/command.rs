//! Parsing manager lines into commands. Multi-line commands (BOARD, YXBOARD, SWAP2BOARD,
//! YXBLOCK, and Yixin-Board's commands that Wuzi does not support but whose lines must not
//! be taken for commands) are collected here until their DONE line.

use super::quote::quote;

/// One stone line of a BOARD-like block: `x,y[,field]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoneLine {
    pub x: i64,
    pub y: i64,
    pub field: Option<i64>,
}

/// Which multi-line block is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Board,
    YxBoard,
    Swap2Board,
    /// YXBLOCK: root moves to leave out.
    Exclude,
    /// YXBLOCKUNDO: root moves to search again.
    Include,
    /// A command Wuzi does not support, whose `x,y` lines up to DONE are skipped.
    Skipped(&'static str),
}

impl BlockKind {
    /// Lines of two numbers (`x,y`, no field) belong to this block.
    fn takes_cells(self) -> bool {
        matches!(
            self,
            BlockKind::Swap2Board | BlockKind::Exclude | BlockKind::Include
        )
    }
}

/// Yixin-Board commands that send a position or a list of cells, one `x,y` a line, up to
/// DONE: their database family, block paths and the old Yixin opening steps. Wuzi does not
/// support them; their lines are skipped with them.
const SKIPPED_BLOCKS: &[&str] = &[
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

/// A complete command from the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Start {
        width: usize,
        height: usize,
    },
    Restart,
    Begin,
    Turn {
        x: i64,
        y: i64,
    },
    Play {
        x: i64,
        y: i64,
    },
    Takeback {
        x: i64,
        y: i64,
    },
    /// A position block, with one error text per line that could not be read.
    Block {
        kind: BlockKind,
        stones: Vec<StoneLine>,
        errors: Vec<String>,
    },
    Info {
        key: String,
        value: String,
    },
    End,
    About,
    Stop,
    ShowForbid,
    ShowInfo,
    HashClear,
    /// YXNBEST n: the n best moves, then the best played.
    NBest(usize),
    /// YXSEARCHDEFEND: every root move's value, then the best played.
    SearchDefend,
    /// YXBALANCEONE b (`two` false) or YXBALANCETWO b: the move (or move and reply)
    /// after which the position is worth closest to `bias` for the side to move.
    Balance {
        two: bool,
        bias: i32,
    },
    /// YXBLOCKRESET: no root move left out any more.
    IncludeAll,
    /// A block command Wuzi does not support, whose lines were skipped.
    Unsupported(&'static str),
    /// A known command with arguments we cannot read: reply `ERROR <text>`.
    Malformed(String),
    /// Not a command we know: reply `UNKNOWN <text>`.
    Unknown(String),
}

/// Moves YXNBEST lists when it gives no number (Yixin-Board's default).
const DEFAULT_NBEST: usize = 3;

/// Turns lines into commands, holding a block open until DONE.
#[derive(Default)]
pub struct Parser {
    block: Option<(BlockKind, Vec<StoneLine>, Vec<String>)>,
}

impl Parser {
    /// Feed one raw line (without its newline); returns a command once one is complete.
    pub fn feed(&mut self, raw: &str) -> Option<Command> {
        let line = raw.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        if let Some((kind, mut stones, mut errors)) = self.block.take() {
            if line.is_empty() {
                self.block = Some((kind, stones, errors));
                return None;
            }
            let upper = line.to_ascii_uppercase();
            if upper == "DONE" {
                return Some(match kind {
                    BlockKind::Skipped(name) => Command::Unsupported(name),
                    _ => Command::Block {
                        kind,
                        stones,
                        errors,
                    },
                });
            }
            if upper == "END" {
                return Some(Command::End);
            }
            if let BlockKind::Skipped(_) = kind {
                self.block = Some((kind, stones, errors));
                return None;
            }
            match parse_numbers(line) {
                Some(n) if n.len() == 3 || (n.len() == 2 && kind.takes_cells()) => {
                    stones.push(StoneLine {
                        x: n[0],
                        y: n[1],
                        field: n.get(2).copied(),
                    })
                }
                _ => errors.push(format!(
                    "bad line in {kind:?} block: {} (expected x,y,field or DONE)",
                    quote(line)
                )),
            }
            self.block = Some((kind, stones, errors));
            return None;
        }
        if line.is_empty() {
            return None;
        }
        let (word, rest) = match line.find(char::is_whitespace) {
            Some(i) => (&line[..i], line[i..].trim()),
            None => (line, ""),
        };
        let word = word.to_ascii_uppercase();
        if let Some(&name) = SKIPPED_BLOCKS.iter().find(|&&s| s == word) {
            self.block = Some((BlockKind::Skipped(name), Vec::new(), Vec::new()));
            return None;
        }
        let cmd = match word.as_str() {
            "START" => match rest
                .split_whitespace()
                .next()
                .and_then(|s| s.parse::<usize>().ok())
            {
                Some(n) => Command::Start {
                    width: n,
                    height: n,
                },
                None => {
                    Command::Malformed(format!("START needs a board size, got {}", quote(rest)))
                }
            },
            "RECTSTART" => match parse_numbers(rest)
                .filter(|n| n.len() == 2 && n[0] >= 0 && n[1] >= 0)
            {
                Some(n) => Command::Start {
                    width: n[0] as usize,
                    height: n[1] as usize,
                },
                None => {
                    Command::Malformed(format!("RECTSTART needs width,height, got {}", quote(rest)))
                }
            },
            "RESTART" => Command::Restart,
            "BEGIN" => Command::Begin,
            "TURN" | "PLAY" | "TAKEBACK" => match parse_numbers(rest).filter(|n| n.len() == 2) {
                Some(n) => {
                    let (x, y) = (n[0], n[1]);
                    match word.as_str() {
                        "TURN" => Command::Turn { x, y },
                        "PLAY" => Command::Play { x, y },
                        _ => Command::Takeback { x, y },
                    }
                }
                None => Command::Malformed(format!("{word} needs x,y, got {}", quote(rest))),
            },
            "BOARD" | "YXBOARD" | "SWAP2BOARD" | "YXBLOCK" | "YXBLOCKUNDO" => {
                let kind = match word.as_str() {
                    "BOARD" => BlockKind::Board,
                    "YXBOARD" => BlockKind::YxBoard,
                    "SWAP2BOARD" => BlockKind::Swap2Board,
                    "YXBLOCK" => BlockKind::Exclude,
                    _ => BlockKind::Include,
                };
                self.block = Some((kind, Vec::new(), Vec::new()));
                return None;
            }
            "YXNBEST" => match rest.split_whitespace().next().map(str::parse::<usize>) {
                Some(Ok(n)) if n > 0 => Command::NBest(n),
                None => Command::NBest(DEFAULT_NBEST),
                _ => Command::Malformed(format!(
                    "YXNBEST needs a number of moves, got {}",
                    quote(rest)
                )),
            },
            "YXSEARCHDEFEND" => Command::SearchDefend,
            "YXBALANCEONE" | "YXBALANCETWO" => {
                let two = word == "YXBALANCETWO";
                match rest.split_whitespace().next().map(str::parse::<i32>) {
                    Some(Ok(bias)) => Command::Balance { two, bias },
                    None => Command::Balance { two, bias: 0 },
                    _ => Command::Malformed(format!(
                        "{word} needs a bias value, got {}",
                        quote(rest)
                    )),
                }
            }
            "YXBLOCKRESET" => Command::IncludeAll,
            "INFO" => {
                let (key, value) = match rest.find(char::is_whitespace) {
                    Some(i) => (&rest[..i], rest[i..].trim()),
                    None => (rest, ""),
                };
                Command::Info {
                    key: key.to_ascii_lowercase(),
                    value: value.to_string(),
                }
            }
            "END" => Command::End,
            "ABOUT" => Command::About,
            "STOP" | "YXSTOP" => Command::Stop,
            "YXSHOWFORBID" => Command::ShowForbid,
            "YXSHOWINFO" => Command::ShowInfo,
            "YXHASHCLEAR" => Command::HashClear,
            _ => Command::Unknown(line.to_string()),
        };
        Some(cmd)
    }

    /// A line of `len` bytes, too long to be read (over `max`): an error of the open block,
    /// or a command of its own that answers `ERROR`.
    pub fn overlong(&mut self, len: usize, max: usize) -> Option<Command> {
        let text = format!("input line of {len} bytes skipped: lines are limited to {max} bytes");
        match self.block.as_mut() {
            Some((_, _, errors)) => {
                errors.push(text);
                None
            }
            None => Some(Command::Malformed(text)),
        }
    }
}

/// Integers separated by commas (blanks allowed around them), e.g. `10, 4` or `3,4,1`.
fn parse_numbers(s: &str) -> Option<Vec<i64>> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return None;
    }
    parts.iter().map(|p| p.parse::<i64>().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Option<Command> {
        Parser::default().feed(line)
    }

    #[test]
    fn single_line_commands() {
        let cases: &[(&str, Command)] = &[
            (
                "START 15",
                Command::Start {
                    width: 15,
                    height: 15,
                },
            ),
            (
                "  start\t20 20 \r",
                Command::Start {
                    width: 20,
                    height: 20,
                },
            ),
            (
                "RECTSTART 30, 20",
                Command::Start {
                    width: 30,
                    height: 20,
                },
            ),
            ("turn 10, 4", Command::Turn { x: 10, y: 4 }),
            ("TURN -1,3", Command::Turn { x: -1, y: 3 }),
            ("TAKEBACK 3,3", Command::Takeback { x: 3, y: 3 }),
            ("yxstop", Command::Stop),
            (
                "INFO Folder C:\\My AI's\\x",
                Command::Info {
                    key: "folder".into(),
                    value: "C:\\My AI's\\x".into(),
                },
            ),
            (
                "INFO timeout_turn",
                Command::Info {
                    key: "timeout_turn".into(),
                    value: "".into(),
                },
            ),
            ("FOO 1 2", Command::Unknown("FOO 1 2".into())),
        ];
        for (line, want) in cases {
            assert_eq!(one(line).as_ref(), Some(want), "{line}");
        }
        assert!(matches!(one("START"), Some(Command::Malformed(_))));
        assert!(matches!(one("TURN 1"), Some(Command::Malformed(_))));
        assert!(matches!(one("TURN a,b"), Some(Command::Malformed(_))));
        assert_eq!(one("   "), None);
    }

    #[test]
    fn blocks_collect_until_done() {
        let mut p = Parser::default();
        assert_eq!(p.feed("board"), None);
        assert_eq!(p.feed("7,7,1"), None);
        assert_eq!(p.feed(""), None);
        assert_eq!(p.feed(" 8 , 8 , 2 "), None);
        assert_eq!(p.feed("garbage"), None);
        let Some(Command::Block {
            kind,
            stones,
            errors,
        }) = p.feed("Done")
        else {
            panic!("expected a block");
        };
        assert_eq!(kind, BlockKind::Board);
        assert_eq!(stones.len(), 2);
        assert_eq!(errors.len(), 1);
        assert_eq!(p.feed("SWAP2BOARD"), None);
        assert_eq!(p.feed("7,7"), None);
        let Some(Command::Block { stones, .. }) = p.feed("DONE") else {
            panic!("expected a block");
        };
        assert_eq!(stones[0].field, None);
    }
}
