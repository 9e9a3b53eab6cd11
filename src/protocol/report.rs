//! What a search says while it runs and when it ends, as protocol lines: `MESSAGE depth …`
//! per iteration (unless `INFO show_detail 0`), and for Yixin-Board (`show_detail` bits 1
//! and 2) the realtime stream of root moves (`MESSAGE REALTIME POS/DONE/LOST/BEST/REFRESH`)
//! and one `INFO PV … INFO PV DONE` block per line per depth.

use super::output::Output;
use crate::engine::Options;
use crate::search::{IterationReport, Observer, RootEvent, RootLine, SearchResult};
use crate::types::{format_value, proven_plies, winrate, Pos, Value};
use std::time::{Duration, Instant};

/// The realtime stream starts once a search has run this long (a quick answer needs no
/// live display).
const REALTIME_AFTER: Duration = Duration::from_millis(200);

/// Turns a running search's reports into lines.
pub struct Reporter {
    out: Output,
    show: bool,
    realtime: bool,
    detail: bool,
    start: Instant,
}

impl Reporter {
    /// A reporter for a search starting now, with the options' detail levels.
    pub fn new(out: Output, options: &Options) -> Reporter {
        Reporter {
            out,
            show: options.show_detail,
            realtime: options.realtime,
            detail: options.detail,
            start: Instant::now(),
        }
    }

    fn live(&self) -> bool {
        self.realtime && self.start.elapsed() >= REALTIME_AFTER
    }
}

impl Observer for Reporter {
    fn iteration(&mut self, r: &IterationReport) {
        let ms = r.elapsed.as_millis().max(1) as u64;
        let nps = r.nodes * 1000 / ms;
        if self.show {
            self.out.message(&format!(
                "depth {} value {} nodes {} nps {nps} time {ms} pv {}",
                r.depth,
                format_value(r.value),
                r.nodes,
                cells(&r.pv)
            ));
        }
        if self.realtime {
            self.out.message("REALTIME REFRESH");
            if let Some(&best) = r.pv.first() {
                self.out.message(&format!("REALTIME BEST {best}"));
            }
        }
        if self.detail {
            for (k, line) in r.lines.iter().enumerate() {
                let info = |key: &str, value: String| self.out.line(&format!("INFO {key} {value}"));
                info("PV", k.to_string());
                info("NUMPV", r.lines.len().to_string());
                info("DEPTH", r.depth.to_string());
                info("SELDEPTH", r.seldepth.to_string());
                info("NODES", r.nodes.to_string());
                info("TOTALNODES", r.nodes.to_string());
                info("TOTALTIME", ms.to_string());
                info("SPEED", nps.to_string());
                info("EVAL", eval_text(line.value));
                info("WINRATE", format!("{:.3}", winrate(line.value)));
                info("BESTLINE", cells(&line.pv));
                self.out.line("INFO PV DONE");
            }
        }
    }

    fn root_event(&mut self, event: RootEvent) {
        if !self.live() {
            return;
        }
        let text = match event {
            RootEvent::Enter(p, _) => format!("REALTIME POS {p}"),
            RootEvent::Leave(p) => format!("REALTIME DONE {p}"),
            RootEvent::Lost(p) => format!("REALTIME LOST {p}"),
            RootEvent::Best(p) => format!("REALTIME BEST {p}"),
        };
        self.out.message(&text);
    }
}

/// The `MESSAGE` lines that close a search: its result, and with several lines (YXNBEST,
/// YXSEARCHDEFEND, balance searches) each line's move, value and continuation.
pub fn summary(out: &Output, r: &SearchResult) {
    let ms = r.elapsed.as_millis().max(1) as u64;
    out.message(&format!(
        "best {} value {} depth {} nodes {} nps {} time {}",
        r.best,
        format_value(r.value),
        r.depth,
        r.nodes,
        r.nodes * 1000 / ms,
        ms
    ));
    if r.lines.len() > 1 {
        for (k, RootLine { value, pv }) in r.lines.iter().enumerate() {
            out.message(&format!(
                "line {} value {} pv {}",
                k + 1,
                format_value(*value),
                cells(pv)
            ));
        }
    }
}

fn cells(pv: &[Pos]) -> String {
    pv.iter().map(Pos::to_string).collect::<Vec<_>>().join(" ")
}

/// A value as Yixin-Board reads `INFO EVAL`: a number, or `+M n` / `-M n` for a win or a
/// loss in n plies.
fn eval_text(v: Value) -> String {
    match proven_plies(v) {
        Some(n) if n > 0 => format!("+M{n}"),
        Some(n) => format!("-M{}", -n),
        None => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::VALUE_MATE;

    #[test]
    fn values_as_people_and_yixin_board_read_them() {
        assert_eq!(eval_text(-35), "-35");
        assert_eq!(eval_text(VALUE_MATE - 9), "+M9");
        assert_eq!(eval_text(-VALUE_MATE + 12), "-M12");
    }
}
