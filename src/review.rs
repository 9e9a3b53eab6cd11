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
use crate::types::{
    format_value, winrate, Color, Depth, Pos, Rule, Value, VALUE_MATE, VALUE_MATE_BOUND,
};
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
    /// Also write the game with every move's review as SGF comments and marks.
    #[arg(long, value_name = "OUT")]
    pub sgf: Option<PathBuf>,
    #[command(flatten)]
    pub threads: crate::cli::Threads,
}

impl Request {
    fn limits(&self) -> Limits {
        let mut limits = Limits {
            multipv: 2,
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
    pub before: Value,
    pub after: Value,
    pub best: Pos,
    /// Wuzi's line from the best move.
    pub line: Vec<Pos>,
    /// Win-rate points lost, from the mover's side.
    pub loss: f64,
    pub label: Option<Label>,
}

/// The position after the first `n` moves of `record`, under `rule`.
fn position(record: &Record, rule: Rule, n: usize) -> anyhow::Result<Board> {
    let mut b = Board::new(record.width, record.height, rule)?;
    for m in &record.moves[..n] {
        b.make_move(m.pos);
    }
    Ok(b)
}

/// Review every move of `record` under `rule` with `limits` per position, on `threads`
/// search threads.
pub fn review(
    record: &Record,
    rule: Rule,
    limits: &Limits,
    threads: usize,
) -> anyhow::Result<Vec<MoveReview>> {
    let mut searcher = Searcher::new(REVIEW_TT_BYTES);
    searcher.set_threads(threads);
    let n = record.moves.len();
    // Searches of the positions before each move, and after the last one when the game
    // goes on from there.
    let mut searches: Vec<Option<SearchResult>> = Vec::with_capacity(n + 1);
    let mut reviews = Vec::with_capacity(n);
    for i in 0..=n {
        let mut board = position(record, rule, i)?;
        let over = i > 0 && rules::last_move_won(&mut board) || board.empty_count() == 0;
        searches.push((!over).then(|| searcher.search(&mut board, limits.clone(), &mut Silent)));
        if over {
            break;
        }
    }
    for i in 0..searches.len().min(n) {
        let Some(r) = &searches[i] else { break };
        let mut board = position(record, rule, i)?;
        let colour = board.side_to_move();
        let played = record.moves[i].pos;
        let foul = colour == Color::Black && rules::is_forbidden(&mut board, played);
        board.make_move(played);
        let before = r.lines.first().map_or(r.value, |l| l.value);
        let second = r.lines.iter().find(|l| l.pv.first() != Some(&played));
        let after = if foul {
            -VALUE_MATE
        } else if rules::last_move_won(&mut board) {
            VALUE_MATE - 1
        } else if r.best == played || r.lines.first().is_some_and(|l| l.pv[0] == played) {
            before
        } else if let Some(l) = r.lines.iter().find(|l| l.pv.first() == Some(&played)) {
            l.value
        } else {
            match searches.get(i + 1) {
                Some(Some(next)) => -next.lines.first().map_or(next.value, |l| l.value),
                // The board is full after the move: a draw.
                _ => 0,
            }
        };
        // A proven loss stays one whatever is played; a shallower search of the next
        // position may not see it yet.
        let after = if before <= -VALUE_MATE_BOUND {
            after.min(before)
        } else {
            after
        };
        // A win kept by a slower road than the search's own needs more plies to prove
        // than the next position's search had: look again, deeper, before calling it
        // missed.
        let missed = before >= VALUE_MATE_BOUND && after < VALUE_MATE_BOUND;
        let after = if !foul && missed && board.empty_count() > 0 {
            let again = -searcher
                .search(&mut board, deeper(limits), &mut Silent)
                .value;
            if again >= VALUE_MATE_BOUND {
                again
            } else {
                after
            }
        } else {
            after
        };
        let loss = (100.0 * (winrate(before) - winrate(after))).max(0.0);
        let label = label(foul, before, after, loss, r.best == played, second);
        reviews.push(MoveReview {
            colour,
            played,
            before,
            after,
            best: r.best,
            line: r
                .lines
                .first()
                .map_or_else(|| r.pv.clone(), |l| l.pv.clone()),
            loss,
            label,
        });
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

/// The label a move earns: the Gomoku transitions first, then the size of the loss.
fn label(
    foul: bool,
    before: Value,
    after: Value,
    loss: f64,
    was_best: bool,
    second: Option<&RootLine>,
) -> Option<Label> {
    let won = |v: Value| v >= VALUE_MATE_BOUND;
    let lost = |v: Value| v <= -VALUE_MATE_BOUND;
    if foul {
        Some(Label::Foul)
    } else if lost(after) && !lost(before) {
        Some(Label::AllowedWin)
    } else if won(before) && !won(after) {
        Some(Label::MissedWin)
    } else if loss >= BLUNDER_PP {
        Some(Label::Blunder)
    } else if loss >= MISTAKE_PP {
        Some(Label::Mistake)
    } else if loss >= INACCURACY_PP {
        Some(Label::Inaccuracy)
    } else if was_best && !lost(before) && second.is_some_and(|l| lost(l.value)) {
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
    records::coords::to_pos_string(p).unwrap_or_else(|| p.to_string())
}

/// The text of one move's review, as printed and as written into SGF comments.
fn describe(r: &MoveReview) -> String {
    let mut s = format!(
        "value {} -> {} (win {:.0}% -> {:.0}%), best {} ({})",
        format_value(r.before),
        format_value(r.after),
        100.0 * winrate(r.before),
        100.0 * winrate(r.after),
        cell(r.best),
        r.line
            .iter()
            .take(6)
            .map(|&p| cell(p))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if r.loss >= 0.5 {
        let _ = write!(s, ", loss {:.1} pp", r.loss);
    }
    if let Some(l) = r.label {
        let _ = write!(s, ": {}", l.text());
    }
    s
}

/// Review the requested game and print the report to `out`.
pub fn run(req: &Request, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut record = records::load(&req.game)?;
    let rule = req.rule.or(record.rule).unwrap_or(Rule::Freestyle);
    let limits = req.limits();
    let reviews = review(&record, rule, &limits, req.threads.threads)?;
    let per = match req.time {
        Some(t) => format!("{:.1} s", t.as_secs_f64()),
        None => format!("depth {}", limits.max_depth.unwrap_or(DEFAULT_DEPTH)),
    };
    writeln!(
        out,
        "Game: {} ({} on {}x{}), {} moves{}; review: {per} a position",
        req.game.display(),
        rule.name(),
        record.width,
        record.height,
        record.moves.len(),
        record
            .result
            .as_deref()
            .map_or(String::new(), |r| format!(", result {r}"))
    )?;
    writeln!(
        out,
        "  #  side move       value -> after           win%      best  loss  note"
    )?;
    for (i, r) in reviews.iter().enumerate() {
        let row = format!(
            "{:>3}  {}    {:<4} {:>10} -> {:<10}  {:>3}% -> {:>3}%  {:<4} {:>5}  {}",
            i + 1,
            side(r.colour),
            cell(r.played),
            format_value(r.before),
            format_value(r.after),
            (100.0 * winrate(r.before)).round(),
            (100.0 * winrate(r.after)).round(),
            cell(r.best),
            if r.loss >= 0.5 {
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
        let count = |l: Label| mine.iter().filter(|r| r.label == Some(l)).count();
        let avg = mine.iter().map(|r| r.loss).sum::<f64>() / mine.len().max(1) as f64;
        writeln!(
            out,
            "{}: {} blunders, {} mistakes, {} inaccuracies, {} forced wins allowed, {} missed, {} fouls, {} only moves; average loss {avg:.1} pp",
            if colour == Color::Black { "Black" } else { "White" },
            count(Label::Blunder),
            count(Label::Mistake),
            count(Label::Inaccuracy),
            count(Label::AllowedWin),
            count(Label::MissedWin),
            count(Label::Foul),
            count(Label::OnlyMove),
        )?;
    }
    match decisive(&reviews) {
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
        None => writeln!(out, "Decisive move: none (no move lost anything)")?,
    }
    if let Some(path) = &req.sgf {
        for (m, r) in record.moves.iter_mut().zip(&reviews) {
            m.comment = Some(describe(r));
            m.mark = r.label.map(Label::mark);
        }
        record.rule = Some(rule);
        let text = records::Format::Sgf.write(&record)?;
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        writeln!(out, "Wrote {}", path.display())?;
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

    #[test]
    fn a_real_c_gomoku_cli_game() {
        // Game 1 of a c-gomoku-cli match of Wuzi against itself at 50 ms a move, which
        // black won. Reviewed to depth 7: black's third move (j12) threw away much of its
        // edge (g8 was best; about 15 points of winning chance, near the line between a
        // mistake and a blunder), and at move 41 black had a forced win and kept it with
        // e11, so that move carries no label. The win after e11 is longer than the one the
        // search found, and the depth-7 search of the next position does not prove it: the
        // second, deeper look does.
        let record = records::Format::Sgf
            .read(include_str!("records/c-gomoku-cli.sgf"))
            .unwrap();
        let limits = request("g --depth 7").unwrap().limits();
        let reviews = review(&record, Rule::Freestyle, &limits, 1).unwrap();
        assert_eq!(reviews.len(), record.moves.len());
        let r = &reviews[2];
        let cells = (cell(r.played), cell(r.best));
        assert_eq!(
            (r.colour, cells),
            (Color::Black, ("j12".into(), "g8".into()))
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
        assert!(reviews.iter().all(|r| r.loss >= 0.0));
        let d = decisive(&reviews).expect("a decisive move");
        assert_eq!(reviews[d].colour, Color::White, "the loser made it");
        // The whole report and its SGF.
        let dir = std::env::temp_dir().join(format!("wuzi-review-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let game = dir.join("game.sgf");
        std::fs::write(&game, include_str!("records/c-gomoku-cli.sgf")).unwrap();
        let out_sgf = dir.join("reviewed.sgf");
        // One thread: on more, a helper's deeper iterations change what depth 7 finds.
        let line = format!(
            "{} --depth 7 --threads 1 --sgf {}",
            game.display(),
            out_sgf.display()
        );
        let req = request(&line).unwrap();
        let mut text = Vec::new();
        run(&req, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        // Move 3's own row carries the label (the summary lines name every kind anyway).
        let row = text
            .lines()
            .find(|l| l.starts_with("  3  B    j12 "))
            .unwrap_or_else(|| panic!("no row for move 3:\n{text}"));
        assert!(row.ends_with(third.text()), "{row}");
        let back = records::load(&out_sgf).unwrap();
        assert_eq!(back.positions(), record.positions());
        let m = &back.moves[2];
        assert_eq!(m.mark, Some(third.mark()));
        assert!(
            m.comment.as_deref().unwrap().contains("best g8"),
            "{:?}",
            m.comment
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
