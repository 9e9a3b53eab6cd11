//! The engine facade between the protocol and the search: the game being played, the
//! options the manager set, and the searcher that thinks about it.

use crate::board::{Board, BoardError};
use crate::pattern;
use crate::rules;
use crate::search::time::TimeControl;
use crate::search::{self, Limits, Observer, SearchResult, Searcher};
use crate::types::{Color, Depth, Pos, Rule};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Memory assumed when the manager gives none (Gomocup's limit).
pub const DEFAULT_MAX_MEMORY: u64 = 350 * 1024 * 1024;
/// The TT takes at most this fraction (1/n) of `max_memory`.
const TT_MEMORY_DIVISOR: u64 = 4;
/// Memory the engine needs besides its hash table: code, pattern tables, the search
/// thread's stack, boards and buffers. Measured without the table, the process peaks at
/// 4.3 MiB under freestyle and 6.0 MiB under renju on 20×20; this leaves room to spare.
const ENGINE_RESERVE_BYTES: u64 = 8 << 20;
/// Memory each search thread beyond the first needs: its stack as deep searches touch it,
/// its move-ordering tables and its copy of the board.
const THREAD_RESERVE_BYTES: u64 = 2 << 20;
/// TT size bounds.
const TT_MIN_BYTES: u64 = 1 << 20;
const TT_MAX_BYTES: u64 = 1 << 30;

/// Manager-set options (from INFO).
#[derive(Clone, Debug)]
pub struct Options {
    pub time: TimeControl,
    /// Process memory cap in bytes (0 = none given).
    pub max_memory: u64,
    /// Explicit TT size in KiB (Yixin `hash_size`).
    pub hash_kb: Option<u64>,
    pub max_depth: Option<Depth>,
    pub max_nodes: Option<u64>,
    pub rule: Rule,
    /// Set when `INFO rule` had a value we do not know; reported at the next think.
    pub unknown_rule: Option<String>,
    /// Set when `INFO max_memory` is below what the engine needs; reported at the next
    /// think.
    pub memory_warning: bool,
    /// Print per-iteration MESSAGE lines (`INFO show_detail` other than 0).
    pub show_detail: bool,
    /// Yixin-Board's realtime stream of root moves (`show_detail` bit 1).
    pub realtime: bool,
    /// Yixin-Board's per-depth `INFO` blocks (`show_detail` bit 2).
    pub detail: bool,
    /// Search threads: `INFO thread_num` (at most `search::cores()`), or a front-end's
    /// `--threads`.
    pub threads: usize,
    /// Search a forced move for its value too (`Limits::exact_value`): for front-ends
    /// that show people the value, not for managers' clocks.
    pub exact_value: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time: TimeControl::default(),
            max_memory: 0,
            hash_kb: None,
            max_depth: None,
            max_nodes: None,
            rule: Rule::Freestyle,
            unknown_rule: None,
            memory_warning: false,
            show_detail: true,
            realtime: false,
            detail: false,
            threads: 1,
            exact_value: false,
        }
    }
}

impl Options {
    /// The process memory cap in bytes.
    pub fn memory(&self) -> u64 {
        if self.max_memory == 0 {
            DEFAULT_MAX_MEMORY
        } else {
            self.max_memory
        }
    }

    /// Memory the engine needs besides its table, on `threads` search threads (which
    /// share a table of the positions in progress when there are several).
    fn reserve(&self) -> u64 {
        let helpers = self.threads.max(1) as u64 - 1;
        let busy = if helpers > 0 {
            search::BUSY_TABLE_BYTES as u64
        } else {
            0
        };
        ENGINE_RESERVE_BYTES + helpers * THREAD_RESERVE_BYTES + busy
    }

    /// TT bytes these options allow: what is left after the reserve, and at most a
    /// quarter of the cap (half with an explicit `hash_size`). One table serves every
    /// search thread.
    pub fn tt_bytes(&self) -> usize {
        let mem = self.memory();
        let bytes = match self.hash_kb.filter(|&kb| kb > 0) {
            Some(kb) => kb.saturating_mul(1024).min(mem / 2),
            None => mem / TT_MEMORY_DIVISOR,
        };
        bytes
            .min(mem.saturating_sub(self.reserve()))
            .clamp(TT_MIN_BYTES, TT_MAX_BYTES) as usize
    }

    /// True when the cap is below what the engine needs with its smallest table.
    pub fn memory_too_small(&self) -> bool {
        self.memory() < self.min_memory()
    }

    /// The least `max_memory` the engine keeps within: the reserve and the smallest table.
    pub fn min_memory(&self) -> u64 {
        self.reserve() + TT_MIN_BYTES
    }
}

/// Why a game command cannot be carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameError {
    NoGame,
    Board(BoardError),
    NotEmpty,
    Full,
    BadCounts { own: usize, opp: usize },
    NotAStone(Pos),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NoGame => write!(f, "no game: send START first"),
            GameError::Board(e) => write!(f, "{e}"),
            GameError::NotEmpty => write!(f, "the board is not empty"),
            GameError::Full => write!(f, "the board is full"),
            GameError::BadCounts { own, opp } => write!(
                f,
                "impossible position: {own} own and {opp} opponent stones (own must equal opponent or be one less)"
            ),
            GameError::NotAStone(p) => write!(f, "there is no stone at {p}"),
        }
    }
}

impl From<BoardError> for GameError {
    fn from(e: BoardError) -> Self {
        GameError::Board(e)
    }
}

/// Who a stone in a position setup belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Own,
    Opponent,
}

/// A search ready to run on another thread.
pub struct ThinkJob {
    pub board: Board,
    pub searcher: Searcher,
    pub limits: Limits,
}

impl ThinkJob {
    /// Run the search on a thread of its own, with the stack deep searches need, telling
    /// `observer` as it goes; `done` gets the result and the searcher when it ends.
    /// Returns the flag that stops it at once.
    pub fn start<O, F>(self, mut observer: O, done: F) -> std::io::Result<Arc<AtomicBool>>
    where
        O: Observer + Send + 'static,
        F: FnOnce(SearchResult, Searcher) + Send + 'static,
    {
        let ThinkJob {
            mut board,
            mut searcher,
            limits,
        } = self;
        let stop = searcher.stop_flag();
        stop.store(false, Ordering::Relaxed);
        std::thread::Builder::new()
            .name("search".into())
            .stack_size(crate::search::STACK_BYTES)
            .spawn(move || {
                let r = searcher.search(&mut board, limits, &mut observer);
                done(r, searcher);
            })?;
        Ok(stop)
    }
}

/// The game, the options and the searcher.
pub struct Engine {
    board: Option<Board>,
    /// The engine's colour in the current game, once known.
    me: Option<Color>,
    pub options: Options,
    /// `None` until the first think (so that the INFO lines sent after START size its
    /// table) and while a `ThinkJob` holds it.
    searcher: Option<Searcher>,
    /// Root moves the searches leave out (YXBLOCK), until YXBLOCKRESET or a new game.
    excluded: Vec<Pos>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// An engine with no game yet.
    pub fn new() -> Engine {
        Engine {
            board: None,
            me: None,
            searcher: None,
            options: Options::default(),
            excluded: Vec::new(),
        }
    }

    /// The current game's board, if a game was started.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// START / RECTSTART: a new empty game of this size.
    pub fn new_game(&mut self, width: usize, height: usize) -> Result<(), GameError> {
        let board = Board::new(width, height, self.options.rule)?;
        self.board = Some(board);
        self.me = None;
        self.excluded.clear();
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
        Ok(())
    }

    /// RESTART: a new game on the same board size.
    pub fn restart(&mut self) -> Result<(), GameError> {
        let (w, h) = self
            .board
            .as_ref()
            .map(|b| (b.width(), b.height()))
            .ok_or(GameError::NoGame)?;
        self.new_game(w, h)
    }

    /// Change the rule; the current position is kept and re-read under the new rule.
    pub fn set_rule(&mut self, rule: Rule) {
        self.options.rule = rule;
        pattern::tables(rule);
        if let Some(b) = self.board.as_ref() {
            if b.rule() != rule {
                let rebuilt = replay(b, rule, b.history());
                self.board = Some(rebuilt);
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
        }
    }

    fn board_mut(&mut self) -> Result<&mut Board, GameError> {
        self.board.as_mut().ok_or(GameError::NoGame)
    }

    /// The cell at protocol coordinates, checked to be on the board and empty.
    pub fn empty_cell(&self, x: i64, y: i64) -> Result<Pos, GameError> {
        let b = self.board.as_ref().ok_or(GameError::NoGame)?;
        let p = b.pos_at(x, y)?;
        if !b.is_empty(p) {
            return Err(BoardError::Occupied(p).into());
        }
        Ok(p)
    }

    /// TURN: the opponent's stone at (x, y); the engine is to move next.
    pub fn play_opponent(&mut self, x: i64, y: i64) -> Result<Pos, GameError> {
        let p = self.empty_cell(x, y)?;
        let me = self.me;
        let b = self.board_mut()?;
        let c = me.map_or(b.side_to_move(), Color::opp);
        b.make(p, c);
        self.me = Some(c.opp());
        Ok(p)
    }

    /// PLAY: the engine's own stone at (x, y); the opponent is to move next.
    pub fn play_own(&mut self, x: i64, y: i64) -> Result<Pos, GameError> {
        let p = self.empty_cell(x, y)?;
        let me = self.me;
        let b = self.board_mut()?;
        let c = me.unwrap_or(b.side_to_move());
        b.make(p, c);
        self.me = Some(c);
        Ok(p)
    }

    /// BEGIN: the board must be empty.
    pub fn check_begin(&self) -> Result<(), GameError> {
        let b = self.board.as_ref().ok_or(GameError::NoGame)?;
        if b.stone_count() > 0 {
            return Err(GameError::NotEmpty);
        }
        Ok(())
    }

    /// BOARD / YXBOARD: replace the position; stones in the order given. The side to move
    /// (the engine) is black when both sides have as many stones, white when the opponent
    /// has one more.
    pub fn set_position(&mut self, stones: &[(Pos, Owner)]) -> Result<(), GameError> {
        let b = self.board.as_ref().ok_or(GameError::NoGame)?;
        let own = stones.iter().filter(|s| s.1 == Owner::Own).count();
        let opp = stones.len() - own;
        let me = if own == opp {
            Color::Black
        } else if opp == own + 1 {
            Color::White
        } else {
            return Err(GameError::BadCounts { own, opp });
        };
        let mut fresh = Board::new(b.width(), b.height(), self.options.rule)?;
        for &(p, owner) in stones {
            let c = if owner == Owner::Own { me } else { me.opp() };
            if !fresh.is_empty(p) {
                return Err(BoardError::Occupied(p).into());
            }
            fresh.make(p, c);
        }
        fresh.set_side_to_move(me);
        self.board = Some(fresh);
        self.me = Some(me);
        Ok(())
    }

    /// TAKEBACK: remove the stone at (x, y); its owner is to move again.
    pub fn takeback(&mut self, x: i64, y: i64) -> Result<(), GameError> {
        let b = self.board.as_ref().ok_or(GameError::NoGame)?;
        let p = b.pos_at(x, y)?;
        let Some(color) = b.stone(p) else {
            return Err(GameError::NotAStone(p));
        };
        let rest: Vec<(Pos, Color)> = b
            .history()
            .iter()
            .copied()
            .filter(|&(q, _)| q != p)
            .collect();
        let mut fresh = replay(b, b.rule(), &rest);
        fresh.set_side_to_move(color);
        self.board = Some(fresh);
        Ok(())
    }

    /// Did the last move of the game make five?
    pub fn last_move_won(&mut self) -> bool {
        self.board.as_mut().is_some_and(rules::last_move_won)
    }

    /// Black's forbidden points in the current position (renju).
    pub fn forbidden_points(&mut self) -> Vec<Pos> {
        match self.board.as_mut() {
            Some(b) => rules::forbidden_points(b),
            None => Vec::new(),
        }
    }

    /// Prepare a search for the side to move; `received` is when the command was read.
    pub fn think(&mut self, received: Instant) -> Result<ThinkJob, GameError> {
        let board = self.board.as_ref().ok_or(GameError::NoGame)?.clone();
        self.think_on(board, received)
    }

    /// Prepare a search of `board` (not necessarily the game's) under the engine's limits.
    pub fn think_on(&mut self, board: Board, received: Instant) -> Result<ThinkJob, GameError> {
        if board.empty_count() == 0 {
            return Err(GameError::Full);
        }
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.options.tt_bytes()));
        searcher.resize_tt(self.options.tt_bytes());
        searcher.set_threads(self.options.threads);
        let mut limits = Limits {
            max_depth: self.options.max_depth,
            max_nodes: self.options.max_nodes,
            excluded: self.excluded.clone(),
            exact_value: self.options.exact_value,
            ..Limits::default()
        };
        if self.options.time.instant() {
            limits.max_depth = Some(1);
        } else if !self.options.time.unlimited() {
            let budget = self.options.time.budget(board.empty_count());
            let spent = received.elapsed();
            limits.soft = Some(budget.soft.saturating_sub(spent));
            limits.hard = Some(budget.hard.saturating_sub(spent));
            limits.match_bound = budget.match_bound;
        }
        Ok(ThinkJob {
            board,
            searcher,
            limits,
        })
    }

    /// Take the searcher back after a job, and play `mv` (our answer) on the game board.
    pub fn finish_think(&mut self, searcher: Searcher, mv: Option<Pos>) {
        self.searcher = Some(searcher);
        if let (Some(b), Some(p)) = (self.board.as_mut(), mv) {
            if b.is_empty(p) {
                self.me = Some(b.side_to_move());
                b.make_move(p);
            }
        }
    }

    /// Hand the searcher back without playing (SWAP2 analysis).
    pub fn return_searcher(&mut self, searcher: Searcher) {
        self.searcher = Some(searcher);
    }

    /// YXBLOCK: leave these cells out of the root moves of later searches.
    pub fn exclude(&mut self, cells: &[Pos]) {
        for &p in cells {
            if !self.excluded.contains(&p) {
                self.excluded.push(p);
            }
        }
    }

    /// YXBLOCKUNDO: search these cells again.
    pub fn include(&mut self, cells: &[Pos]) {
        self.excluded.retain(|p| !cells.contains(p));
    }

    /// YXBLOCKRESET: no cell is left out.
    pub fn include_all(&mut self) {
        self.excluded.clear();
    }

    /// Clear the hash table (YXHASHCLEAR).
    pub fn clear_hash(&mut self) {
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
    }
}

/// The same stones on a fresh board under `rule`, side to move as in `b`.
fn replay(b: &Board, rule: Rule, moves: &[(Pos, Color)]) -> Board {
    let mut fresh = Board::new(b.width(), b.height(), rule).expect("size was valid");
    for &(p, c) in moves {
        fresh.make(p, c);
    }
    fresh.set_side_to_move(b.side_to_move());
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_colours_and_takeback() {
        let mut e = Engine::new();
        assert_eq!(e.play_opponent(1, 1), Err(GameError::NoGame));
        e.new_game(15, 15).unwrap();
        let stones = [
            (Pos::new(7, 7), Owner::Opponent),
            (Pos::new(8, 8), Owner::Own),
            (Pos::new(9, 9), Owner::Opponent),
        ];
        e.set_position(&stones).unwrap();
        let b = e.board().unwrap();
        assert_eq!(b.side_to_move(), Color::White);
        assert_eq!(b.stone(Pos::new(7, 7)), Some(Color::Black));
        assert!(matches!(
            e.set_position(
                &stones[..1]
                    .iter()
                    .map(|&(p, _)| (p, Owner::Own))
                    .collect::<Vec<_>>()
            ),
            Err(GameError::BadCounts { .. })
        ));
        // The failed setup left the game intact.
        assert_eq!(e.board().unwrap().stone_count(), 3);
        e.takeback(9, 9).unwrap();
        assert_eq!(e.board().unwrap().stone_count(), 2);
        assert_eq!(e.board().unwrap().side_to_move(), Color::Black);
        assert!(e.takeback(9, 9).is_err());
        assert!(e.play_opponent(15, 0).is_err());
        assert!(e.play_opponent(7, 7).is_err());
        // The engine is white in this game; after the takeback black is to move. A TURN
        // puts down the opponent's (black) stone, PLAY the engine's own.
        e.play_opponent(1, 1).unwrap();
        assert_eq!(e.board().unwrap().stone(Pos::new(1, 1)), Some(Color::Black));
        assert_eq!(e.board().unwrap().side_to_move(), Color::White);
        e.play_own(2, 2).unwrap();
        assert_eq!(e.board().unwrap().stone(Pos::new(2, 2)), Some(Color::White));
        // A TURN right after a position setup (engine to move) is still the opponent's.
        e.set_position(&[
            (Pos::new(5, 5), Owner::Own),
            (Pos::new(6, 6), Owner::Opponent),
        ])
        .unwrap();
        e.play_opponent(7, 7).unwrap();
        assert_eq!(e.board().unwrap().stone(Pos::new(7, 7)), Some(Color::White));
        assert_eq!(e.board().unwrap().side_to_move(), Color::Black);
    }

    #[test]
    fn tt_size_follows_memory() {
        let mut o = Options::default();
        assert_eq!(o.tt_bytes() as u64, DEFAULT_MAX_MEMORY / 4);
        o.max_memory = 40 << 20;
        assert_eq!(o.tt_bytes(), 10 << 20);
        o.hash_kb = Some(4096);
        assert_eq!(o.tt_bytes(), 4 << 20);
        // What the engine needs besides the table is kept out of it.
        o.max_memory = 12 << 20;
        assert_eq!(o.tt_bytes() as u64, (12 << 20) - ENGINE_RESERVE_BYTES);
        assert!(!o.memory_too_small());
        // Below what the engine needs: the smallest table, and a warning to give.
        o.max_memory = 4 << 20;
        assert_eq!(o.tt_bytes() as u64, TT_MIN_BYTES);
        assert!(o.memory_too_small());
        // Each thread beyond the first needs its own share besides the one table, and
        // the threads share a table of the positions in progress.
        o.max_memory = 12 << 20;
        o.threads = 2;
        let reserve = ENGINE_RESERVE_BYTES + THREAD_RESERVE_BYTES + search::BUSY_TABLE_BYTES as u64;
        assert_eq!(o.tt_bytes() as u64, (12 << 20) - reserve);
        o.max_memory = reserve + TT_MIN_BYTES;
        assert!(!o.memory_too_small());
        o.threads = 3;
        assert!(o.memory_too_small());
        assert_eq!(o.min_memory(), o.max_memory + THREAD_RESERVE_BYTES);
    }
}
