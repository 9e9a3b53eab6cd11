//! The games report: one line per game, results by colour, rule and size, every fault with
//! its I/O, answer times and the closest margin to the limit, the match clock, peak
//! memory, and the closing `referee: N passed, M failed` line.

use std::fmt::Write;
use std::time::Duration;

use crate::config::Config;
use crate::memory::mib;
use crate::record::{End, Fault, Kind, Report};
use crate::rules::Stone;

pub struct Summary {
    pub text: String,
    pub passed: usize,
    pub failed: usize,
}

/// Results of a set of games: black wins, white wins, draws.
#[derive(Default)]
struct Tally {
    games: usize,
    black: usize,
    white: usize,
    draws: usize,
}

impl Tally {
    fn add(&mut self, end: End) {
        self.games += 1;
        match winner(end) {
            Some(Stone::Black) => self.black += 1,
            Some(Stone::White) => self.white += 1,
            None => self.draws += 1,
        }
    }

    fn line(&self) -> String {
        format!(
            "{:2} games: black won {}, white won {}, drawn {}",
            self.games, self.black, self.white, self.draws
        )
    }
}

fn winner(end: End) -> Option<Stone> {
    match end {
        End::Win(s) => Some(s),
        End::Forfeit(s) => Some(s.other()),
        End::Draw => None,
    }
}

fn describe_end(r: &Report) -> String {
    match r.end {
        End::Win(s) => format!("{} wins ({})", s.name(), r.how),
        End::Draw => format!("draw ({})", r.how),
        End::Forfeit(s) => format!(
            "{} forfeits ({}), {} wins",
            s.name(),
            r.how,
            s.other().name()
        ),
    }
}

/// Above this share of the CPUs used by other processes, timing results are suspect.
const BUSY_MACHINE_PERCENT: f64 = 10.0;

/// The report; `load` is (our CPU share, other processes' share, CPUs) over the run.
pub fn games(
    config: &Config,
    reports: &[Report],
    elapsed: Duration,
    load: Option<(f64, f64, usize)>,
) -> Summary {
    let mut t = String::new();
    let turn = if config.turn_ms.0 == config.turn_ms.1 {
        format!("{} ms", config.turn_ms.0)
    } else {
        format!("{}..{} ms", config.turn_ms.0, config.turn_ms.1)
    };
    let turn = format!("{turn} (time fault {} ms past it)", config.late_ms);
    let _ = writeln!(
        t,
        "referee: {} games, {} at once, engine {}, seed {:#x}, timeout_turn {turn}, \
         timeout_match {}, max_memory {}, thread_num {}",
        reports.len(),
        config.jobs,
        config.engine.display(),
        config.seed,
        match config.match_ms {
            0 => "0 (no match clock)".to_string(),
            m => format!("{m} ms"),
        },
        match config.memory {
            0 => "0 (not limited)".to_string(),
            m => format!("{m} bytes ({:.1} MiB)", mib(m)),
        },
        config.threads
    );

    let _ = writeln!(t, "\ngames (A and B are the two engine processes):");
    for r in reports {
        let s = &r.spec;
        let opening = if s.opening.is_empty() {
            "empty board, BEGIN".to_string()
        } else {
            format!("{} stones, BOARD", s.opening.len())
        };
        let slowest = r
            .answers
            .iter()
            .map(|a| a.ms)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let mut faults: Vec<&str> = r.faults.iter().map(|f| f.kind.name()).collect();
        faults.dedup();
        let _ = writeln!(
            t,
            "  game {:3}  rule {} {:<15} {:>5}  turn {:4} ms  {:<18}  {} black  {:<40} {:3} stones, \
             slowest {:>6} ms, {:5.1} s{}",
            s.number,
            s.rule.code(),
            s.rule.name(),
            s.size_name(),
            s.turn_ms,
            opening,
            if s.a_is_black { "A" } else { "B" },
            describe_end(r),
            r.stones,
            slowest.map_or("-".to_string(), |m| format!("{m:.1}")),
            r.elapsed.as_secs_f64(),
            if faults.is_empty() {
                String::new()
            } else {
                format!("  FAULT: {}", faults.join(", "))
            }
        );
    }

    let mut all = Tally::default();
    for r in reports {
        all.add(r.end);
    }
    let _ = writeln!(t, "\nresults: {}", all.line());
    let _ = writeln!(
        t,
        "  by colour: black W/L/D {}/{}/{}, white W/L/D {}/{}/{}",
        all.black, all.white, all.draws, all.white, all.black, all.draws
    );
    let forfeits = reports
        .iter()
        .filter(|r| matches!(r.end, End::Forfeit(_)))
        .count();
    let _ = writeln!(t, "  decided by forfeit: {forfeits}");
    let _ = writeln!(t, "  per rule:");
    for rule in &config.rules {
        let mut tally = Tally::default();
        for r in reports.iter().filter(|r| r.spec.rule == *rule) {
            tally.add(r.end);
        }
        let _ = writeln!(
            t,
            "    rule {} {:<15} {}",
            rule.code(),
            rule.name(),
            tally.line()
        );
    }
    let _ = writeln!(t, "  per board size:");
    for &(w, h) in &config.sizes {
        let mut tally = Tally::default();
        for r in reports
            .iter()
            .filter(|r| (r.spec.width, r.spec.height) == (w, h))
        {
            tally.add(r.end);
        }
        let name = if w == h {
            format!("{w}")
        } else {
            format!("{w}x{h}")
        };
        let _ = writeln!(t, "    {name:<6} {}", tally.line());
    }
    let uncovered_rules = config
        .rules
        .iter()
        .filter(|rule| !reports.iter().any(|r| r.spec.rule == **rule))
        .count();
    let uncovered_sizes = config
        .sizes
        .iter()
        .filter(|&&size| {
            !reports
                .iter()
                .any(|r| (r.spec.width, r.spec.height) == size)
        })
        .count();
    if uncovered_rules + uncovered_sizes > 0 {
        let _ = writeln!(
            t,
            "  note: {uncovered_rules} rules and {uncovered_sizes} sizes were not played \
             (too few games)"
        );
    }

    // Faults.
    let faults: Vec<(usize, &Fault)> = reports
        .iter()
        .flat_map(|r| r.faults.iter().map(move |f| (r.spec.number, f)))
        .collect();
    let counts: Vec<String> = Kind::ALL
        .iter()
        .map(|k| {
            let n = faults.iter().filter(|(_, f)| f.kind == *k).count();
            format!("{} {n}", k.name())
        })
        .collect();
    let _ = writeln!(t, "\nforfeits and faults: {}", counts.join(", "));
    for (game, f) in &faults {
        let at = f.move_no.map_or(String::new(), |m| format!(", move {m}"));
        let _ = writeln!(
            t,
            "  [{}] game {game}{at}, {}: {}",
            f.kind.name(),
            f.who,
            f.detail
        );
        if !f.io.is_empty() {
            let _ = writeln!(t, "      last I/O (> sent, < received, ! event):");
            for line in &f.io {
                let _ = writeln!(t, "      {line}");
            }
        }
    }

    // Answer times.
    let mut times: Vec<f64> = reports
        .iter()
        .flat_map(|r| r.answers.iter().map(|a| a.ms))
        .collect();
    times.sort_by(f64::total_cmp);
    if times.is_empty() {
        let _ = writeln!(t, "\nanswer times: no answers");
    } else {
        let rank =
            |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
        let _ = writeln!(
            t,
            "\nanswer times: {} answers, median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            times.len(),
            rank(0.5),
            rank(0.99),
            times[times.len() - 1]
        );
        let closest = reports
            .iter()
            .flat_map(|r| r.answers.iter().map(move |a| (r.spec.number, a)))
            .min_by(|(_, a), (_, b)| {
                (a.limit_ms as f64 - a.ms).total_cmp(&(b.limit_ms as f64 - b.ms))
            });
        if let Some((game, a)) = closest {
            let _ = writeln!(
                t,
                "  closest margin to the per-move limit: {:.1} ms (game {game}, move {}: \
                 {:.1} ms of {} ms)",
                a.limit_ms as f64 - a.ms,
                a.move_no,
                a.ms,
                a.limit_ms
            );
        }
        let late = reports
            .iter()
            .flat_map(|r| &r.answers)
            .filter(|a| a.late() && !a.too_late(config.late_ms))
            .count();
        if late > 0 {
            let _ = writeln!(
                t,
                "  late but within {} ms of the limit (not faults): {late} answers",
                config.late_ms
            );
        }
    }
    if config.match_ms > 0 {
        let least = reports
            .iter()
            .filter_map(|r| {
                r.time_left
                    .as_ref()
                    .map(|(ms, who)| (*ms, who, r.spec.number))
            })
            .min_by_key(|(ms, _, _)| *ms);
        if let Some((ms, who, game)) = least {
            let _ = writeln!(
                t,
                "match clock {} ms: least time left at a game's end {ms} ms (game {game}, {who})",
                config.match_ms
            );
        }
    }
    let peak = reports
        .iter()
        .filter_map(|r| {
            r.peak_memory
                .as_ref()
                .map(|(bytes, who)| (*bytes, who, r.spec.number))
        })
        .max_by_key(|(bytes, _, _)| *bytes);
    let given = match config.memory {
        0 => "max_memory 0 (not limited)".to_string(),
        m => format!("max_memory {:.1} MiB", mib(m)),
    };
    match peak {
        Some((bytes, who, game)) => {
            let _ = writeln!(
                t,
                "memory: peak VmHWM {:.1} MiB (game {game}, {who}); {given}",
                mib(bytes)
            );
        }
        None => {
            let _ = writeln!(t, "memory: VmHWM not available; {given}");
        }
    }

    if let Some((ours, others, cpus)) = load {
        let _ = writeln!(
            t,
            "machine: {cpus} CPUs; the referee and its engines used {ours:.0}% of them, \
             other processes {others:.0}%"
        );
        if others > BUSY_MACHINE_PERCENT {
            let _ = writeln!(
                t,
                "  note: the machine was busy with other work; time faults may come from \
                 that load rather than from the engine"
            );
        }
    }

    let failed = reports.iter().filter(|r| !r.faults.is_empty()).count();
    let passed = reports.len() - failed;
    let _ = writeln!(
        t,
        "\nwall time {:.1} s; a game fails on any forfeit or fault",
        elapsed.as_secs_f64()
    );
    let _ = writeln!(t, "referee: {passed} passed, {failed} failed");
    Summary {
        text: t,
        passed,
        failed,
    }
}
