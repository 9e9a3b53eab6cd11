//! `play`: a game against Wuzi in a terminal. The board is drawn after every move, moves
//! are typed as `h8` (column letter, row number from the top) or `7,7` (the protocol's
//! `x,y`), and a few words steer the game: undo, hint, new, swap, save, load, help, quit.
//! While Wuzi thinks, one live line shows its depth, value, win rate and best line.

pub mod screen;
pub mod terminal;
pub mod typed;

use crate::engine::Engine;
use crate::records::{self, Move, Record};
use crate::search::time::TimeControl;
use crate::search::{IterationReport, Observer, SearchResult, Searcher};
use crate::types::{Color, Pos, Rule};
use crate::value_text::{one_ply_later, plural, verdict, Side};
use screen::{cell_name, render, winning_line, Style};
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use typed::{typed_move, Refusal};

const HELP: &str = "\
Type a move as h8 (column letter, row number counted from the top, as drawn) or 7,7
(column,row from 0), or:
  undo        take back your last move and Wuzi's answer
  hint        Wuzi suggests a move for you
  new         a new game with the same settings
  swap        change sides: Wuzi plays your stones from here on
  save FILE   save the game; the name ends in .psq, .sgf, .sav, .txt or .pos
  load FILE   load a game from a file of any of those formats
  help        this text
  quit        leave (Ctrl-D too); quit, new and load ask first if the game is not saved";

/// How a game is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub width: usize,
    pub height: usize,
    pub rule: Rule,
    /// The person's colour.
    pub human: Color,
    /// Wuzi's time per move.
    pub time: Duration,
    /// Wuzi's search threads.
    pub threads: usize,
}

/// The `play` command line.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Board size: N or WxH.
    #[arg(long, default_value = "15", value_parser = crate::cli::size)]
    size: (usize, usize),
    /// Rule: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 caro with exact five (or a name).
    #[arg(long, default_value = "0", value_parser = crate::cli::rule)]
    rule: Rule,
    /// You play black and move first (the default).
    #[arg(long, conflicts_with = "white")]
    black: bool,
    /// You play white; Wuzi moves first.
    #[arg(long)]
    white: bool,
    /// Wuzi's thinking time per move, in seconds.
    #[arg(long, default_value = "2", value_parser = crate::cli::seconds)]
    time: Duration,
    #[command(flatten)]
    threads: crate::cli::Threads,
}

impl Args {
    /// The game these arguments set up.
    pub fn options(&self) -> Options {
        Options {
            width: self.size.0,
            height: self.size.1,
            rule: self.rule,
            human: if self.white {
                Color::White
            } else {
                Color::Black
            },
            time: self.time,
            threads: self.threads.threads,
        }
    }
}

/// How the game is shown.
#[derive(Clone, Copy, Debug)]
pub struct Display {
    pub style: Style,
    /// Update one status line while Wuzi thinks (a terminal).
    pub live: bool,
}

/// One game session: the engine and who is who.
struct Game<'a> {
    engine: Engine,
    opts: Options,
    display: Display,
    out: &'a mut dyn Write,
    /// How the game ended, once it has.
    result: Option<String>,
    /// Whether the game on the board is in a file (saved or loaded as it is), or empty.
    saved: bool,
}

/// Play games until the person quits or the input ends.
pub fn run(
    opts: Options,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    display: Display,
) -> anyhow::Result<()> {
    let mut g = Game {
        engine: Engine::new(),
        opts,
        display,
        out,
        result: None,
        saved: true,
    };
    writeln!(
        g.out,
        "Wuzi {} - {} on {}x{}. Type a move (h8 or 7,7), or help.",
        env!("CARGO_PKG_VERSION"),
        g.opts.rule.name(),
        g.opts.width,
        g.opts.height
    )?;
    g.new_game()?;
    let mut line = String::new();
    loop {
        write!(g.out, "{}> ", g.prompt())?;
        g.out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(g.out)?;
            return Ok(());
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        match word.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => {
                if g.saved || g.confirm(input, "Quit anyway?", "Not quitting")? {
                    return Ok(());
                }
            }
            "help" | "?" => writeln!(g.out, "{HELP}")?,
            "new" => {
                if g.saved || g.confirm(input, "Start a new game anyway?", "No new game")? {
                    g.new_game()?
                }
            }
            "undo" => g.undo()?,
            "hint" => g.hint()?,
            "swap" => g.swap()?,
            "save" => g.save(rest.trim())?,
            "load" => {
                let path = rest.trim();
                // A file that cannot be read is said so at once; a game that would
                // replace the unsaved one, asked about first.
                let readable = records::load(Path::new(path)).is_ok();
                if path.is_empty()
                    || g.saved
                    || !readable
                    || g.confirm(input, &format!("Load {path} in its place?"), "Not loaded")?
                {
                    g.load(path)?
                }
            }
            _ => g.human_move(text)?,
        }
    }
}

impl Game<'_> {
    fn prompt(&self) -> String {
        let colour = if self.opts.human == Color::Black {
            "X"
        } else {
            "O"
        };
        match self.result {
            Some(_) => "game over (new, undo, save FILE, quit)".to_string(),
            None => format!("your move as {colour}"),
        }
    }

    /// Asks `question` before the unsaved game is left (quit, new, load); `no` starts
    /// the answer to a no. End of input is a yes.
    fn confirm(
        &mut self,
        input: &mut dyn BufRead,
        question: &str,
        no: &str,
    ) -> anyhow::Result<bool> {
        write!(
            self.out,
            "The game is not saved (save FILE saves it). {question} (y/n)> "
        )?;
        self.out.flush()?;
        let mut answer = String::new();
        if input.read_line(&mut answer)? == 0 {
            writeln!(self.out)?;
            return Ok(true);
        }
        let yes = matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
        if !yes {
            writeln!(self.out, "{no}: the game goes on.")?;
        }
        Ok(yes)
    }

    fn board(&self) -> &crate::board::Board {
        self.engine.board().expect("a game is always set up")
    }

    /// Who plays `c`, for messages.
    fn who(&self, c: Color) -> &'static str {
        if c == self.opts.human {
            "you"
        } else {
            "Wuzi"
        }
    }

    fn new_game(&mut self) -> anyhow::Result<()> {
        self.engine.set_rule(self.opts.rule);
        self.engine
            .new_game(self.opts.width, self.opts.height)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        self.engine.options.show_detail = false;
        self.engine.options.threads = self.opts.threads;
        // People read the values: a forced move is searched for its value too.
        self.engine.options.exact_value = true;
        self.engine.options.time = TimeControl {
            turn_ms: Some(self.opts.time.as_millis() as u64),
            match_ms: 0,
            left_ms: None,
        };
        self.result = None;
        self.saved = true;
        let human = if self.opts.human == Color::Black {
            "black (X)"
        } else {
            "white (O)"
        };
        writeln!(self.out, "New game: you play {human}.")?;
        if self.opts.human == Color::White {
            self.engine_move()?;
        } else {
            self.show()?;
        }
        Ok(())
    }

    fn show(&mut self) -> anyhow::Result<()> {
        let five = winning_line(self.board());
        let text = render(self.board(), &five, self.display.style);
        write!(self.out, "\n{text}\n")?;
        Ok(())
    }

    fn human_move(&mut self, text: &str) -> anyhow::Result<()> {
        if self.result.is_some() {
            writeln!(self.out, "The game is over: new, undo, save FILE or quit.")?;
            return Ok(());
        }
        let p = match typed_move(&mut self.board().clone(), text) {
            Ok(p) => p,
            Err(Refusal::Why(why)) => {
                writeln!(self.out, "{why}.")?;
                return Ok(());
            }
            Err(Refusal::NotACell) => {
                writeln!(
                    self.out,
                    "'{text}' is neither a move (like h8 or 7,7) nor a command; type help."
                )?;
                return Ok(());
            }
        };
        self.engine
            .play_opponent(p.x() as i64, p.y() as i64)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        self.saved = false;
        if self.check_end()? {
            return Ok(());
        }
        self.engine_move()
    }

    /// Wuzi thinks, with the live line when there is a terminal, and plays.
    fn engine_move(&mut self) -> anyhow::Result<()> {
        let (r, searcher) = self.think(self.board().clone())?;
        self.engine.finish_think(searcher, Some(r.best));
        self.saved = false;
        // Wuzi's value before its move, from your side after it.
        writeln!(
            self.out,
            "Wuzi plays {} (depth {}, {:.1} s): {}.",
            cell_name(r.best),
            r.depth,
            r.elapsed.as_secs_f64(),
            verdict(one_ply_later(-r.value), Side::You, Side::Wuzi)
        )?;
        if !self.check_end()? {
            self.show()?;
        }
        Ok(())
    }

    /// Search `board` for its side to move; the searcher comes back with the result.
    fn think(&mut self, board: crate::board::Board) -> anyhow::Result<(SearchResult, Searcher)> {
        let yours = board.side_to_move() == self.opts.human;
        let job = self
            .engine
            .think_on(board, Instant::now())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let (tx, rx) = mpsc::channel();
        let live = LiveLine {
            on: self.display.live,
            yours,
        };
        job.start(live, move |r, s| {
            let _ = tx.send((r, s));
        })?;
        let done = rx
            .recv()
            .map_err(|_| anyhow::anyhow!("the search thread ended without an answer"))?;
        if self.display.live {
            write!(self.out, "\r\x1b[K")?;
        }
        Ok(done)
    }

    /// After a move: announce a win or a full board.
    fn check_end(&mut self) -> anyhow::Result<bool> {
        let Some(&(last, colour)) = self.board().history().last() else {
            return Ok(false);
        };
        let result = if self.engine.last_move_won() {
            let five: Vec<String> = winning_line(self.board())
                .into_iter()
                .map(cell_name)
                .collect();
            let side = if colour == Color::Black {
                "Black"
            } else {
                "White"
            };
            format!(
                "{side} ({}) wins with {}: {}.",
                self.who(colour),
                cell_name(last),
                five.join(" ")
            )
        } else if self.board().empty_count() == 0 {
            "Draw: the board is full.".to_string()
        } else {
            return Ok(false);
        };
        self.show()?;
        writeln!(self.out, "{result}")?;
        self.result = Some(result);
        Ok(true)
    }

    fn undo(&mut self) -> anyhow::Result<()> {
        // Back to just before the person's last move.
        let history = self.board().history().to_vec();
        let Some(mine) = history.iter().rposition(|&(_, c)| c == self.opts.human) else {
            writeln!(self.out, "Nothing of yours to take back.")?;
            return Ok(());
        };
        for &(p, _) in history[mine..].iter().rev() {
            self.engine
                .takeback(p.x() as i64, p.y() as i64)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        self.result = None;
        self.saved = false;
        writeln!(
            self.out,
            "Took back {}.",
            plural(history.len() - mine, "move")
        )?;
        self.show()
    }

    fn hint(&mut self) -> anyhow::Result<()> {
        if self.result.is_some() {
            writeln!(self.out, "The game is over.")?;
            return Ok(());
        }
        let (r, searcher) = self.think(self.board().clone())?;
        self.engine.return_searcher(searcher);
        writeln!(
            self.out,
            "Hint: {} (depth {}): {}.",
            cell_name(r.best),
            r.depth,
            verdict(r.value, Side::You, Side::Wuzi)
        )?;
        Ok(())
    }

    fn swap(&mut self) -> anyhow::Result<()> {
        if self.result.is_some() {
            writeln!(self.out, "The game is over.")?;
            return Ok(());
        }
        self.opts.human = self.opts.human.opp();
        let side = if self.opts.human == Color::Black {
            "black (X)"
        } else {
            "white (O)"
        };
        writeln!(
            self.out,
            "You play {side} now; Wuzi takes over your stones."
        )?;
        let moves = self.board().history().to_vec();
        self.replay(&moves.iter().map(|&(p, _)| p).collect::<Vec<_>>())?;
        self.engine_move()
    }

    /// Set the game to `moves` (from black, alternating), with the current sides.
    fn replay(&mut self, moves: &[Pos]) -> anyhow::Result<()> {
        let (w, h) = (self.board().width(), self.board().height());
        self.engine
            .new_game(w, h)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for (i, p) in moves.iter().enumerate() {
            let colour = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let (x, y) = (p.x() as i64, p.y() as i64);
            let placed = if colour == self.opts.human {
                self.engine.play_opponent(x, y)
            } else {
                self.engine.play_own(x, y)
            };
            placed.map_err(|e| anyhow::anyhow!("move {}: {e}", i + 1))?;
        }
        self.result = None;
        Ok(())
    }

    fn save(&mut self, path: &str) -> anyhow::Result<()> {
        if path.is_empty() {
            writeln!(self.out, "save needs a file name, e.g. save game.sgf")?;
            return Ok(());
        }
        let b = self.board();
        let mut record = Record::new(b.width(), b.height());
        record.rule = Some(b.rule());
        record.moves = b.history().iter().map(|&(p, _)| Move::at(p)).collect();
        let names = ["You".to_string(), "Wuzi".to_string()];
        let (black, white) = if self.opts.human == Color::Black {
            (&names[0], &names[1])
        } else {
            (&names[1], &names[0])
        };
        record.black = Some(black.clone());
        record.white = Some(white.clone());
        match records::save(Path::new(path), &record) {
            Ok(()) => {
                self.saved = true;
                writeln!(
                    self.out,
                    "Saved {} to {path}.",
                    plural(record.moves.len(), "move")
                )?
            }
            Err(e) => writeln!(self.out, "Not saved: {e}.")?,
        }
        Ok(())
    }

    fn load(&mut self, path: &str) -> anyhow::Result<()> {
        if path.is_empty() {
            writeln!(self.out, "load needs a file name, e.g. load game.sgf")?;
            return Ok(());
        }
        let record = match records::load_with_format(Path::new(path)) {
            Ok((mut r, format)) => {
                // A pos string names no board: it is played on this one if it fits.
                let (w, h) = (self.opts.width, self.opts.height);
                let fits = r.moves.iter().all(|m| m.pos.x() < w && m.pos.y() < h);
                if format == records::Format::PosString && fits {
                    (r.width, r.height) = (w, h);
                }
                r
            }
            Err(e) => {
                writeln!(self.out, "Not loaded: {e}")?;
                return Ok(());
            }
        };
        let before = self
            .board()
            .history()
            .iter()
            .map(|&(p, _)| p)
            .collect::<Vec<_>>();
        let size = (self.opts.width, self.opts.height);
        self.opts.width = record.width;
        self.opts.height = record.height;
        if let Some(rule) = record.rule {
            self.opts.rule = rule;
        }
        self.engine.set_rule(self.opts.rule);
        self.engine
            .new_game(record.width, record.height)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if let Err(e) = self.replay(&record.positions()) {
            writeln!(self.out, "Not loaded: {e}")?;
            (self.opts.width, self.opts.height) = size;
            self.engine
                .new_game(size.0, size.1)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            return self.replay(&before);
        }
        self.saved = true;
        writeln!(
            self.out,
            "Loaded {} ({} on {}x{}).",
            plural(record.moves.len(), "move"),
            self.opts.rule.name(),
            record.width,
            record.height
        )?;
        if self.check_end()? {
            return Ok(());
        }
        if self.board().side_to_move() != self.opts.human {
            return self.engine_move();
        }
        self.show()
    }
}

/// The live status line while Wuzi thinks (terminals only).
struct LiveLine {
    on: bool,
    /// The search is of your move (a hint), so its values are yours, not Wuzi's.
    yours: bool,
}

impl Observer for LiveLine {
    fn iteration(&mut self, r: &IterationReport) {
        if !self.on {
            return;
        }
        let pv: Vec<String> = r.pv.iter().take(6).map(|&p| cell_name(p)).collect();
        let mut out = std::io::stdout().lock();
        // A failed write to the terminal is not worth stopping the search for.
        let _ = write!(
            out,
            "\r\x1b[KWuzi thinks: depth {}, {}; line {}",
            r.depth,
            verdict(
                if self.yours { r.value } else { -r.value },
                Side::You,
                Side::Wuzi
            ),
            pv.join(" ")
        );
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(line: &str) -> Result<Options, String> {
        match crate::cli::parse(&format!("play {line}"))? {
            crate::cli::Command::Play(a) => Ok(a.options()),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn command_line() {
        let o = options("--size 20x15 --rule renju --white --time 0.5").unwrap();
        assert_eq!((o.width, o.height, o.rule), (20, 15, Rule::Renju));
        assert_eq!(
            (o.human, o.time),
            (Color::White, Duration::from_millis(500))
        );
        let o = options("").unwrap();
        assert_eq!(
            (o.width, o.rule, o.human),
            (15, Rule::Freestyle, Color::Black)
        );
        assert_eq!(o.time, Duration::from_secs(2));
        assert_eq!(options("--rule 1").unwrap().rule, Rule::Standard);
        for bad in [
            "--size 4",
            "--size 40",
            "--rule 3",
            "--time 0",
            "--time",
            "--black --white",
        ] {
            assert!(options(bad).is_err(), "{bad}");
        }
    }

    /// Play a script of typed lines; the text the person would see.
    fn session(opts: &str, typed: &str) -> String {
        let mut input = std::io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let mut o = options(opts).unwrap();
        o.time = Duration::from_millis(100);
        let display = Display {
            style: Style::Plain,
            live: false,
        };
        run(o, &mut input, &mut out, display).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn moves_commands_and_refusals() {
        let text = session("--size 9", "h8\nh8\nz1\nhint\nundo\nhelp\nquit\n");
        assert!(text.contains("Wuzi plays "), "{text}");
        assert!(text.contains("h8 is taken."), "{text}");
        assert!(
            text.contains("z1 is off the 9x9 board: columns a to i, rows 1 to 9"),
            "{text}"
        );
        assert!(text.contains("Hint: "), "{text}");
        assert!(text.contains("Took back 2 moves."), "{text}");
        assert!(text.contains("undo        take back"), "{text}");
    }

    #[test]
    fn renju_fouls_are_refused_with_the_reason() {
        // Black (the person) to move with f8 g8 and h6 h7 on the board: h8 makes two open
        // threes.
        let dir = std::env::temp_dir().join(format!("wuzi-play-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("foul.txt");
        std::fs::write(&file, "f8a1g8a3h6a5h7a7\n").unwrap();
        let typed = format!("load {}\nh8\nquit\n", file.display());
        let text = session("--rule renju", &typed);
        assert!(text.contains("Loaded 8 moves (renju on 15x15)."), "{text}");
        assert!(
            text.contains("h8 is forbidden for black under renju: it makes a double three."),
            "{text}"
        );
        // Saved and loaded again: the same position, and under freestyle h8 is a move.
        let saved = dir.join("game.sgf");
        let typed = format!("load {}\nsave {}\nquit\n", file.display(), saved.display());
        session("--rule renju", &typed);
        let typed = format!("load {}\nh8\nquit\n", saved.display());
        let text = session("", &typed);
        assert!(text.contains("Loaded 8 moves (renju on 15x15)."), "{text}");
        assert!(
            text.contains("forbidden"),
            "the rule comes from the SGF: {text}"
        );
        let broken = dir.join("broken.sgf");
        std::fs::write(&broken, "(;GM[4]SZ[15];B[hh];B[ii])").unwrap();
        let text = session("", &format!("load {}\nquit\n", broken.display()));
        assert!(
            text.contains("Not loaded: ") && text.contains("expected a white move"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
