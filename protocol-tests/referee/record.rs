//! What a game leaves behind: its result, the faults by kind with their I/O, every
//! answer's time against its limit, and the match-clock and memory readings.

use std::time::Duration;

use crate::game::Spec;
use crate::rules::Stone;

/// Kinds of faults. The first five forfeit the game when they happen during it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Over the per-move limit or the match clock, or no answer at all.
    Time,
    /// A malformed, off-board or occupied move.
    Illegal,
    /// Renju: black played a forbidden point.
    Foul,
    /// A stdout line that is neither a move nor MESSAGE/DEBUG (ERROR and UNKNOWN too).
    Stray,
    /// The process died, exited non-zero or panicked.
    Crash,
    /// Not exited within 1 s of `END`.
    Exit,
    /// Peak resident memory above `max_memory`.
    Memory,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Time,
        Kind::Illegal,
        Kind::Foul,
        Kind::Stray,
        Kind::Crash,
        Kind::Exit,
        Kind::Memory,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Time => "time",
            Kind::Illegal => "illegal",
            Kind::Foul => "foul",
            Kind::Stray => "stray",
            Kind::Crash => "crash",
            Kind::Exit => "exit",
            Kind::Memory => "memory",
        }
    }
}

pub struct Fault {
    pub kind: Kind,
    /// `A (black)`.
    pub who: String,
    /// The number of the stone the engine was to play (opening stones count).
    pub move_no: Option<usize>,
    pub detail: String,
    /// The last I/O lines of both engines, oldest first.
    pub io: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Win(Stone),
    Draw,
    /// This colour lost by a fault.
    Forfeit(Stone),
}

/// One answer's time and its limit.
pub struct Answer {
    pub ms: f64,
    pub limit_ms: u64,
    pub move_no: usize,
}

impl Answer {
    /// Later than the per-move limit.
    pub fn late(&self) -> bool {
        self.ms > self.limit_ms as f64
    }

    /// Later than the limit by more than `late_ms`: a time fault.
    pub fn too_late(&self, late_ms: u64) -> bool {
        self.ms > (self.limit_ms + late_ms) as f64
    }
}

pub struct Report {
    pub spec: Spec,
    pub end: End,
    /// How the game ended: `five`, `full board`, `foul (double three)`, `time`, ….
    pub how: String,
    /// Stones on the board at the end.
    pub stones: usize,
    pub faults: Vec<Fault>,
    pub answers: Vec<Answer>,
    /// With a match clock: the least match time left at the end (ms) and whose.
    pub time_left: Option<(i64, String)>,
    /// Peak `VmHWM` over both processes (bytes) and whose.
    pub peak_memory: Option<(u64, String)>,
    pub elapsed: Duration,
}
