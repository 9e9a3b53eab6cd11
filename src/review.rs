//! `review`: where a game was won and lost. Every position of a recorded game is searched
//! (to a depth or for a time, with the two best lines), and every move gets the value
//! before and after it, the win rate, Wuzi's best move, the loss in win-rate points and a
//! label: a renju foul, a forced win allowed or missed, a blunder, mistake or inaccuracy,
//! or the only move. A summary per side and the decisive move close the report; `--sgf`
//! writes the same into an SGF file as comments and move marks.

use crate::board::Board;
use crate::records::{self, Mark, Record};
use crate::rules;
use crate::search::{Limits, RootLine, SearchResult, Searcher, Silent};
use crate::types::{winrate, Color, Depth, Pos, Rule, Value, VALUE_MATE, VALUE_MATE_BOUND};
use crate::value_text::{self, one_ply_later, Side};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// TT size for reviews.
const REVIEW_TT_BYTES: usize = 64 << 20;
/// Depth per position when neither `--depth` nor `--time` is given.
const DEFAULT_DEPTH: Depth = 10;
/// Win-rate drops (percentage points, from the mover's side) that earn a label.
const BLUNDER_PP: f64 = 15.0;
const MISTAKE_PP: f64 = 10.0;
const INACCURACY_PP: f64 = 5.0;

/// What `review` was asked.
#[derive(clap::Args, Debug, PartialEq)]
pub struct Request {
    /// The game: a .psq, .sgf (as c-gomoku-cli writes them), .sav or pos-string file.
    pub game: PathBuf,
    /// Search every position to this depth (10 unless --time is given).
    #[arg(long, conflicts_with = "time", value_parser = crate::cli::depth)]
    pub depth: Option<Depth>,
    /// Search every position for this many seconds instead.
    #[arg(long, value_parser = crate::cli::seconds)]
    pub time: Option<Duration>,
    /// The rule, when the file does not say (SGF RU) or says wrong: 0, 1, 4, 8, 9 or a name.
    #[arg(long, value_parser = crate::cli::rule)]
    pub rule: Option<Rule>,
    /// Also write the game with every move's review as SGF comments and marks (a file
    /// name ending in .sgf).
    #[arg(long, value_name = "OUT")]
    pub sgf: Option<PathBuf>,
    /// The board of a pos string, which names none (15 unless its moves need more): N or WxH.
    #[arg(long, value_parser = crate::cli::size)]
    pub size: Option<(usize, usize)>,
    #[command(flatten)]
    pub threads: crate::cli::Threads,
}

impl Request {
    fn limits(&self) -> Limits {
        let mut limits = Limits {
            multipv: 2,
            exact_value: true,
            ..Limits::default()
        };
        match self.time {
            Some(t) => {
                limits.soft = Some(t);
                limits.hard = Some(t);
            }
            None => limits.max_depth = Some(self.depth.unwrap_or(DEFAULT_DEPTH)),
        }
        limits
    }
}

/// What a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// A renju foul: black loses on the spot.
    Foul,
    /// The opponent can now force a win that it could not before.
    AllowedWin,
    /// A forced win was there, and is not after the move.
    MissedWin,
    Blunder,
    Mistake,
    Inaccuracy,
    /// Every other move loses by force, and this one was played.
    OnlyMove,
}

impl Label {
    pub fn text(self) -> &'static str {
        match self {
            Label::Foul => "renju foul",
            Label::AllowedWin => "allowed a forced win",
            Label::MissedWin => "missed a forced win",
            Label::Blunder => "blunder",
            Label::Mistake => "mistake",
            Label::Inaccuracy => "inaccuracy",
            Label::OnlyMove => "only move",
        }
    }

    fn mark(self) -> Mark {
        match self {
            Label::Foul | Label::AllowedWin | Label::MissedWin | Label::Blunder => Mark::Bad(2),
            Label::Mistake => Mark::Bad(1),
            Label::Inaccuracy => Mark::Doubtful,
            Label::OnlyMove => Mark::Good(1),
        }
    }

    /// Labels that lose something (all but the only move).
    fn is_error(self) -> bool {
        self != Label::OnlyMove
    }
}

/// One reviewed move. Values are from the mover's side.
#[derive(Clone, Debug)]
pub struct MoveReview {
    pub colour: Color,
    pub played: Pos,
    /// The value of the position before the move: the previous move's `after`, seen from
    /// this side.
    pub before: Value,
    /// The value of the position after the move (a proven result counted from there).
    pub after: Value,
    /// The best move: Wuzi's, or the move played where it did at least as well.
    pub best: Pos,
    /// The best move's value, searched like `after` (the same depth or time).
    pub best_value: Value,
    /// Wuzi's line from the best move.
    pub line: Vec<Pos>,
    /// Win-rate points the move gave up against the best move (never below 0).
    pub loss: f64,
    pub label: Option<Label>,
}

/// A search's value: its best line's.
fn value_of(r: &SearchResult) -> Value {
    r.lines.first().map_or(r.value, |l| l.value)
}

/// Review every move of `record` under `rule` with `limits` per position, on `threads`
/// search threads.
///
/// Every position is searched once; its value, from the side to move, is the `before`
/// of the move played there and, negated, the `after` of the move that led to it, so
/// that the rows chain. The best move's value comes from a search of the position it
/// leads to with the same limits, so that the move played and the best move are measured
/// alike: the loss is the difference of their win rates, and a move that does better than
/// Wuzi's choice (or as well) is the best move.
pub fn review(
    record: &Record,
    rule: Rule,
    limits: &Limits,
    threads: usize,
) -> anyhow::Result<Vec<MoveReview>> {
    let mut searcher = Searcher::new(REVIEW_TT_BYTES);
    searcher.set_threads(threads);
    let single = Limits {
        multipv: 1,
        ..limits.clone()
    };
    let mut board = Board::new(record.width, record.height, rule)?;
    let mut reviews = Vec::with_capacity(record.moves.len());
    if record.moves.is_empty() {
        return Ok(reviews);
    }
    let mut here = searcher.search(&mut board.clone(), limits.clone(), &mut Silent);
    let mut value = value_of(&here);
    for m in &record.moves {
        let colour = board.side_to_move();
        let played = m.pos;
        anyhow::ensure!(board.is_empty(played), "{} is taken", cell(played));
        let foul = colour == Color::Black && rules::is_forbidden(&mut board, played);
        let mut child = board.clone();
        child.make_move(played);
        // The position after the move, from the opponent's side, and its search.
        let next: Option<(Value, SearchResult)> =
            if foul || rules::last_move_won(&mut child) || child.empty_count() == 0 {
                None
            } else {
                let s = searcher.search(&mut child.clone(), limits.clone(), &mut Silent);
                let mut v = value_of(&s);
                if value <= -VALUE_MATE_BOUND {
                    // Lost whatever was played: the opponent's win stands, one ply nearer.
                    v = v.max(one_ply_later(-value));
                } else if value >= VALUE_MATE_BOUND && v > -VALUE_MATE_BOUND {
                    // A win kept by a slower road than the search's own needs more plies
                    // to prove than this search had: look again, deeper, before calling
                    // it missed.
                    let again =
                        value_of(&searcher.search(&mut child.clone(), deeper(limits), &mut Silent));
                    if again <= -VALUE_MATE_BOUND {
                        v = again;
                    }
                }
                Some((v, s))
            };
        let after = if foul {
            -VALUE_MATE
        } else {
            match &next {
                Some((v, _)) => -v,
                None if rules::last_move_won(&mut child) => VALUE_MATE,
                // The board is full after the move: a draw.
                None => 0,
            }
        };
        let wuzi_best = here.best;
        let (mut best, mut best_value, mut line) = if wuzi_best == played {
            (
                played,
                after,
                here.lines
                    .first()
                    .map_or_else(|| here.pv.clone(), |l| l.pv.clone()),
            )
        } else {
            let line = here
                .lines
                .first()
                .map_or_else(|| here.pv.clone(), |l| l.pv.clone());
            let raw = value_of(&here);
            let v = if raw.abs() >= VALUE_MATE_BOUND {
                // Proven: the search's own value of its move is exact.
                one_ply_later(raw)
            } else {
                let mut alt = board.clone();
                alt.make_move(wuzi_best);
                if rules::last_move_won(&mut alt) {
                    VALUE_MATE
                } else if alt.empty_count() == 0 {
                    0
                } else {
                    -value_of(&searcher.search(&mut alt, single.clone(), &mut Silent))
                }
            };
            (wuzi_best, v, line)
        };
        if !foul && after >= best_value {
            // Measured alike, the move played did as well as Wuzi's choice, or better.
            best = played;
            best_value = after;
            line = std::iter::once(played)
                .chain(next.iter().flat_map(|(_, s)| s.pv.iter().copied()))
                .collect();
        }
        let loss = (100.0 * (winrate(best_value) - winrate(after))).max(0.0);
        let second = here.lines.iter().find(|l| l.pv.first() != Some(&played));
        let label = label(foul, best_value, after, loss, best == played, second);
        reviews.push(MoveReview {
            colour,
            played,
            before: value,
            after,
            best,
            best_value,
            line,
            loss,
            label,
        });
        let Some((v, s)) = next else { break };
        board = child;
        value = v;
        here = s;
    }
    Ok(reviews)
}

/// The limits of a second look at a position where a forced win seems to have gone: four
/// plies deeper, or four times the time, with the best line only.
fn deeper(limits: &Limits) -> Limits {
    Limits {
        max_depth: limits.max_depth.map(|d| d + 4),
        soft: limits.soft.map(|t| t * 4),
        hard: limits.hard.map(|t| t * 4),
        multipv: 1,
        ..limits.clone()
    }
}

/// The label a move earns: the Gomoku transitions from the best move's value to the
/// value after the move played first, then the size of the loss.
fn label(
    foul: bool,
    best: Value,
    after: Value,
    loss: f64,
    was_best: bool,
    second: Option<&RootLine>,
) -> Option<Label> {
    let won = |v: Value| v >= VALUE_MATE_BOUND;
    let lost = |v: Value| v <= -VALUE_MATE_BOUND;
    if foul {
        Some(Label::Foul)
    } else if lost(after) && !lost(best) {
        Some(Label::AllowedWin)
    } else if won(best) && !won(after) {
        Some(Label::MissedWin)
    } else if loss >= BLUNDER_PP {
        Some(Label::Blunder)
    } else if loss >= MISTAKE_PP {
        Some(Label::Mistake)
    } else if loss >= INACCURACY_PP {
        Some(Label::Inaccuracy)
    } else if was_best && !lost(best) && second.is_some_and(|l| lost(l.value)) {
        Some(Label::OnlyMove)
    } else {
        None
    }
}

/// The decisive move: the first error after which the eventual winner's win is forced to
/// the end (failing that, the costliest error of the side that lost).
pub fn decisive(reviews: &[MoveReview]) -> Option<usize> {
    let forced = reviews
        .iter()
        .rposition(|r| r.after.abs() < VALUE_MATE_BOUND);
    let from = forced.map_or(0, |i| i + 1);
    if let Some(i) = reviews[from..]
        .iter()
        .position(|r| r.label.is_some_and(|l| l.is_error()))
    {
        return Some(from + i);
    }
    let loser = reviews.last().map(|r| r.colour.opp())?;
    reviews
        .iter()
        .enumerate()
        .filter(|(_, r)| r.colour == loser)
        .max_by(|a, b| a.1.loss.total_cmp(&b.1.loss))
        .filter(|(_, r)| r.loss > 0.0)
        .map(|(i, _)| i)
}

fn side(c: Color) -> &'static str {
    if c == Color::Black {
        "B"
    } else {
        "W"
    }
}

fn cell(p: Pos) -> String {
    crate::play::screen::cell_name(p)
}

/// What the table's numbers mean, printed under its header line.
const UNITS: &str = "\
Values are the mover's: the win rate, then the evaluation in brackets (+200 is a 73%
win rate); \"wins in N\" and \"loses in N\" are forced, N moves of the winner's.
\"before\" is the position's value, \"after\" the value after the move (the next row's
\"before\", seen from the other side), \"best\" Wuzi's move with its value searched the
same way, and \"loss\" the win-rate points (pp) the move gave up against it.";

/// The text of one move's review, as written into SGF comments.
fn describe(r: &MoveReview) -> String {
    let who = Side::of(r.colour).name();
    let mut s = format!(
        "for {who}: before {}, after {}; best {} {} ({})",
        value_text::cell(r.before),
        value_text::cell(r.after),
        cell(r.best),
        value_text::cell(r.best_value),
        r.line
            .iter()
            .take(6)
            .map(|&p| cell(p))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if r.loss >= 0.05 {
        let _ = write!(s, "; loss {:.1} pp", r.loss);
    }
    if let Some(l) = r.label {
        let _ = write!(s, ": {}", l.text());
    }
    s
}

/// The report of `reviews` of `record` (`game` names its file, `per` says how each
/// position was searched: `to depth 6`), as `review` prints it.
pub fn report(
    game: &str,
    record: &Record,
    rule: Rule,
    per: &str,
    reviews: &[MoveReview],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "Game: {game} ({} on {}x{}), {}{}; each position searched {per}",
        rule.name(),
        record.width,
        record.height,
        value_text::plural(record.moves.len(), "move"),
        record
            .result
            .as_deref()
            .map_or(String::new(), |r| format!(", result {r}"))
    )?;
    writeln!(out, "{UNITS}")?;
    writeln!(
        out,
        "  #  side move  before        after         best                  loss  note"
    )?;
    for (i, r) in reviews.iter().enumerate() {
        let row = format!(
            "{:>3}  {}    {:<4}  {:<12}  {:<12}  {:<4} {:<16} {:>5}  {}",
            i + 1,
            side(r.colour),
            cell(r.played),
            value_text::cell(r.before),
            value_text::cell(r.after),
            cell(r.best),
            value_text::cell(r.best_value),
            if r.loss >= 0.05 {
                format!("{:.1}", r.loss)
            } else {
                String::new()
            },
            r.label.map_or("", Label::text)
        );
        writeln!(out, "{}", row.trim_end())?;
    }
    for colour in [Color::Black, Color::White] {
        let mine: Vec<&MoveReview> = reviews.iter().filter(|r| r.colour == colour).collect();
        let count = |l: Label, noun: &str| {
            value_text::plural(mine.iter().filter(|r| r.label == Some(l)).count(), noun)
        };
        let name = if colour == Color::Black {
            "Black"
        } else {
            "White"
        };
        if mine.is_empty() {
            writeln!(out, "{name}: no moves")?;
            continue;
        }
        let avg = mine.iter().map(|r| r.loss).sum::<f64>() / mine.len() as f64;
        writeln!(
            out,
            "{name}: {}, {}, {}, {} allowed, {} missed, {}, {}; average loss {:.1} pp",
            count(Label::Blunder, "blunder"),
            count(Label::Mistake, "mistake"),
            count(Label::Inaccuracy, "inaccuracy"),
            count(Label::AllowedWin, "forced win"),
            count(Label::MissedWin, "forced win"),
            count(Label::Foul, "foul"),
            count(Label::OnlyMove, "only move"),
            avg.max(0.0) + 0.0,
        )?;
    }
    match decisive(reviews) {
        Some(i) => {
            let r = &reviews[i];
            writeln!(
                out,
                "Decisive move: {}. {} {} ({})",
                i + 1,
                side(r.colour),
                cell(r.played),
                r.label.map_or("the costliest loss", Label::text)
            )?;
        }
        None => {
            let won = reviews.last().is_some_and(|r| r.after.abs() == VALUE_MATE);
            let why = if !won {
                "the record ends before a win"
            } else {
                "the loser lost nothing"
            };
            writeln!(out, "Decisive move: none ({why})")?
        }
    }
    Ok(())
}

/// How each position was searched, for the report's first line.
fn per_position(req: &Request) -> String {
    match req.time {
        Some(t) => format!("for {:.1} s", t.as_secs_f64()),
        None => format!("to depth {}", req.depth.unwrap_or(DEFAULT_DEPTH)),
    }
}

/// `record` with every move's review as its SGF comment and mark.
fn annotated(record: &Record, rule: Rule, reviews: &[MoveReview]) -> Record {
    let mut record = record.clone();
    for (m, r) in record.moves.iter_mut().zip(reviews) {
        m.comment = Some(describe(r));
        m.mark = r.label.map(Label::mark);
    }
    record.rule = Some(rule);
    record
}

/// Review the requested game and print the report to `out`.
pub fn run(req: &Request, out: &mut dyn Write) -> anyhow::Result<()> {
    use crate::cli::UsageError;
    // The output file first: a name that is not SGF's, or a place that cannot be
    // written, is said before the review's searches, not after.
    let sgf_file = match &req.sgf {
        Some(path) => {
            if records::Format::from_path(path) != Some(records::Format::Sgf) {
                Err(UsageError(format!(
                    "--sgf writes SGF: name the file ....sgf, not {}",
                    path.display()
                )))?;
            }
            let file = std::fs::File::create(path)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            Some((path, file))
        }
        None => None,
    };
    let (mut record, format) = records::load_with_format(&req.game)?;
    if let Some((w, h)) = req.size {
        if format != records::Format::PosString {
            Err(UsageError(format!(
                "--size is for pos strings, which name no board; this {} file says {}x{}",
                format.name(),
                record.width,
                record.height
            )))?;
        }
        let fits = record.moves.iter().all(|m| m.pos.x() < w && m.pos.y() < h);
        anyhow::ensure!(
            fits,
            "the moves of {} do not fit a {w}x{h} board",
            req.game.display()
        );
        (record.width, record.height) = (w, h);
    }
    let rule = req.rule.or(record.rule).unwrap_or(Rule::Freestyle);
    anyhow::ensure!(
        !record.moves.is_empty(),
        "{}: the record has no moves to review",
        req.game.display()
    );
    ends_at_its_end(&record, rule).map_err(|e| anyhow::anyhow!("{}: {e}", req.game.display()))?;
    let reviews = review(&record, rule, &req.limits(), req.threads.threads)?;
    let game = req.game.display().to_string();
    report(&game, &record, rule, &per_position(req), &reviews, out)?;
    if let Some((path, mut file)) = sgf_file {
        let text = records::Format::Sgf.write(&annotated(&record, rule, &reviews))?;
        file.write_all(text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        writeln!(out, "Wrote {}", path.display())?;
    }
    Ok(())
}

/// Whether no move of `record` comes after the game ended under `rule` (a five, or
/// black's renju foul): such a record is refused, not played or reviewed in part.
pub fn ends_at_its_end(record: &Record, rule: Rule) -> Result<(), String> {
    let mut b = Board::new(record.width, record.height, rule).map_err(|e| e.to_string())?;
    for (i, m) in record.moves.iter().enumerate() {
        let foul = b.side_to_move() == Color::Black && rules::is_forbidden(&mut b, m.pos);
        b.make_move(m.pos);
        let end = if foul {
            Some("black's renju foul")
        } else if rules::last_move_won(&mut b) {
            Some("the five")
        } else {
            None
        };
        if let (Some(what), Some(next)) = (end, record.moves.get(i + 1)) {
            return Err(format!(
                "move {} ({}) comes after {what} of move {} ({}): the game ended there",
                i + 2,
                cell(next.pos),
                i + 1,
                cell(m.pos)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn request(line: &str) -> Result<Request, String> {
        match crate::cli::parse(&format!("review {line}"))? {
            crate::cli::Command::Review(r) => Ok(r),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn requests() {
        let r = request("g.sgf --depth 6 --sgf out.sgf").unwrap();
        assert_eq!(
            (r.depth, r.sgf.as_deref()),
            (Some(6), Some(Path::new("out.sgf")))
        );
        let r = request("g.psq --time 0.5 --rule renju").unwrap();
        assert_eq!(
            (r.time, r.rule),
            (Some(Duration::from_millis(500)), Some(Rule::Renju))
        );
        for bad in [
            "",
            "--depth 6",
            "g --depth 0",
            "g --depth 3 --time 1",
            "g h",
            "g --colour",
        ] {
            assert!(request(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn labels_by_transition_then_size() {
        let mate = VALUE_MATE - 9;
        assert_eq!(label(true, 0, 0, 0.0, false, None), Some(Label::Foul));
        assert_eq!(
            label(false, 30, -mate, 50.0, false, None),
            Some(Label::AllowedWin)
        );
        assert_eq!(
            label(false, mate, 200, 30.0, false, None),
            Some(Label::MissedWin)
        );
        assert_eq!(
            label(false, 100, -100, 24.0, false, None),
            Some(Label::Blunder)
        );
        assert_eq!(
            label(false, 50, -30, 10.0, false, None),
            Some(Label::Mistake)
        );
        assert_eq!(
            label(false, 50, 20, 5.0, false, None),
            Some(Label::Inaccuracy)
        );
        assert_eq!(label(false, 50, 45, 0.6, false, None), None);
        let losing = RootLine {
            value: -mate,
            pv: vec![Pos::new(0, 0)],
        };
        assert_eq!(
            label(false, 10, 10, 0.0, true, Some(&losing)),
            Some(Label::OnlyMove)
        );
        // Already lost: no move is "the only one".
        assert_eq!(label(false, -mate, -mate, 0.0, true, Some(&losing)), None);
    }

    /// The README's review example: its command, and the lines of its output it shows
    /// (`...` stands for lines left out).
    fn readme_example() -> (String, Vec<&'static str>) {
        let readme = include_str!("../README.md");
        let intro = readme
            .lines()
            .position(|l| l.starts_with("`pbrain-wuzi review ") && l.ends_with("` prints:"))
            .expect("the README shows a review");
        let line = &readme.lines().nth(intro).unwrap();
        let command = line
            .trim_start_matches("`pbrain-wuzi ")
            .trim_end_matches("` prints:")
            .to_string();
        let shown = readme
            .lines()
            .skip(intro + 2)
            .take_while(|l| l.starts_with("    "))
            .map(|l| &l[4..])
            .collect();
        (command, shown)
    }

    /// Whether `shown` is `text` with some runs of lines replaced by `...`.
    fn shows(shown: &[&str], text: &str) -> bool {
        let lines: Vec<&str> = text.lines().collect();
        let parts: Vec<&[&str]> = shown.split(|l| *l == "...").collect();
        let (first, last) = (parts[0], parts[parts.len() - 1]);
        if !lines.starts_with(first) || !lines[first.len()..].ends_with(last) {
            return false;
        }
        let mut at = first.len();
        let end = lines.len() - last.len();
        for part in &parts[1..parts.len() - 1] {
            match (at..end).find(|&i| lines[i..end].starts_with(part)) {
                Some(i) => at = i + part.len(),
                None => return false,
            }
        }
        parts.len() > 1 || lines.len() == first.len()
    }

    #[test]
    fn a_real_c_gomoku_cli_game() {
        // Game 1 of a c-gomoku-cli match of Wuzi against itself at 50 ms a move, which
        // black won, reviewed with the README's command (one thread: on more, a helper's
        // deeper iterations change what a fixed depth finds). Black's third move (j12)
        // threw away much of its edge (g8 was best), and at move 41 black had a forced
        // win and kept it with e11 (e12 was faster), so that move carries no label. The
        // win after e11 is longer than the one the search found, and the search of the
        // next position does not prove it: the second, deeper look does.
        let (command, shown) = readme_example();
        let req = match crate::cli::parse(&command).unwrap() {
            crate::cli::Command::Review(r) => r,
            other => panic!("{other:?}"),
        };
        let record = records::load(&req.game).unwrap();
        let reviews = review(&record, Rule::Freestyle, &req.limits(), req.threads.threads).unwrap();
        assert_eq!(reviews.len(), record.moves.len());
        let mut text = Vec::new();
        let game = req.game.display().to_string();
        report(
            &game,
            &record,
            Rule::Freestyle,
            &per_position(&req),
            &reviews,
            &mut text,
        )
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            shows(&shown, &text),
            "the README's example is not what `{command}` prints:\n{text}"
        );

        // The rows chain, and no move gains on the best one.
        for pair in reviews.windows(2) {
            assert_eq!(pair[1].before, -pair[0].after, "{}", describe(&pair[1]));
        }
        for r in &reviews {
            assert!(r.loss >= 0.0 && r.after <= r.best_value, "{}", describe(r));
            assert_eq!(r.loss == 0.0, winrate(r.after) == winrate(r.best_value));
        }
        let r = &reviews[2];
        let cells = (cell(r.played), cell(r.best));
        assert_eq!(
            (r.colour, cells),
            (Color::Black, ("j12".into(), "h8".into()))
        );
        let third = r.label.expect("move 3 is labelled");
        assert!(
            matches!(third, Label::Mistake | Label::Blunder),
            "{}",
            describe(r)
        );
        let r = &reviews[40];
        assert_eq!((r.colour, cell(r.played)), (Color::Black, "e11".into()));
        assert!(
            r.before >= VALUE_MATE_BOUND && r.after >= VALUE_MATE_BOUND,
            "{}",
            describe(r)
        );
        assert_eq!(r.label, None, "{}", describe(r));
        let d = decisive(&reviews).expect("a decisive move");
        assert_eq!(reviews[d].colour, Color::White, "the loser made it");

        // Move 3's own row carries the label (the summary lines name every kind anyway).
        let row = text
            .lines()
            .find(|l| l.starts_with("  3  B    j12 "))
            .unwrap_or_else(|| panic!("no row for move 3:\n{text}"));
        assert!(row.ends_with(third.text()), "{row}");

        // The same review as SGF comments and marks, read back.
        let sgf = records::Format::Sgf
            .write(&annotated(&record, Rule::Freestyle, &reviews))
            .unwrap();
        let back = records::Format::Sgf.read(&sgf).unwrap();
        assert_eq!(back.positions(), record.positions());
        let m = &back.moves[2];
        assert_eq!(m.mark, Some(third.mark()));
        let comment = m.comment.as_deref().unwrap();
        assert!(
            comment.starts_with("for black: before ")
                && comment.contains(&format!("best {}", cell(reviews[2].best))),
            "{comment}"
        );
    }

    #[test]
    fn writes_the_reviewed_game() {
        let game = crate::scratch_files::fresh("review", "game.txt");
        // Black makes five at l8 while white plays down the edge.
        std::fs::write(&game, "h8a1i8a2j8a3k8a4l8\n").unwrap();
        let out_sgf = crate::scratch_files::fresh("review", "reviewed.sgf");
        let line = format!(
            "{} --depth 3 --threads 1 --sgf {}",
            game.display(),
            out_sgf.display()
        );
        let mut text = Vec::new();
        run(&request(&line).unwrap(), &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("9 moves; each position searched to depth 3"),
            "{text}"
        );
        assert!(text.contains("Decisive move: "), "{text}");
        let back = records::load(&out_sgf).unwrap();
        assert_eq!(back.moves.len(), 9);
        let last = back.moves[8].comment.as_deref().unwrap();
        assert!(last.contains("after won"), "{last}");
    }
}
