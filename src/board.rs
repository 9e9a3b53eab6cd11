//! The board: stones plus the incrementally updated pattern state of every cell.
//! `make` and `undo` are the only writers of that state.

use crate::pattern::class_of_packed as class;
use crate::pattern::codebook::{self, Codebook};
use crate::pattern::net::{pair, Net, HIDDEN};
use crate::pattern::{
    self, slot, Pattern, Pattern4, RuleTables, BLACK, CLASS_SHIFT, EMPTY, HALF, WALL, WHITE,
};
use crate::types::{Color, Pos, Rule, DIRS, MAX_SIZE, MIN_SIZE, NUM_CELLS, STRIDE};
use once_cell::sync::Lazy;
use std::fmt;
use std::sync::Arc;

/// Offsets (dx, dy) of the candidate stencil: a cell is a candidate when a stone lies at one
/// of these offsets from it (the 5×5 square plus the eight rays to distance 3).
const STENCIL: [(i32, i32); 32] = [
    (-2, -2),
    (-1, -2),
    (0, -2),
    (1, -2),
    (2, -2),
    (-2, -1),
    (-1, -1),
    (0, -1),
    (1, -1),
    (2, -1),
    (-2, 0),
    (-1, 0),
    (1, 0),
    (2, 0),
    (-2, 1),
    (-1, 1),
    (0, 1),
    (1, 1),
    (2, 1),
    (-2, 2),
    (-1, 2),
    (0, 2),
    (1, 2),
    (2, 2),
    (-3, -3),
    (0, -3),
    (3, -3),
    (-3, 0),
    (3, 0),
    (-3, 3),
    (0, 3),
    (3, 3),
];

// `undo` clears a key's two bits to say "empty".
const _: () = assert!(EMPTY == 0);

/// How far the stencil reaches from its cell in x or y.
const STENCIL_REACH: usize = 3;

/// The stencil row by row, from three rows above the cell to three below: bit `j` of a
/// row's mask for each stencil cell at column offset `j - 3`. (Words of 64 bits: a mask
/// shifted up to a cell's column passes bit 31 before its shift back by three.)
const STENCIL_ROW_MASKS: [u64; 7] = {
    let mut masks = [0u64; 7];
    let mut i = 0;
    while i < STENCIL.len() {
        let (dx, dy) = STENCIL[i];
        masks[(dy + 3) as usize] |= 1 << (dx + 3);
        i += 1;
    }
    masks
};

/// Zobrist keys: one per colour and cell, plus one for the side to move.
struct Zobrist {
    stone: [[u64; NUM_CELLS]; 2],
    side: u64,
}

static ZOBRIST: Lazy<Box<Zobrist>> = Lazy::new(|| {
    let mut state: u64 = 0x5755_5a49_2024_0001;
    let mut next = || {
        // SplitMix64: fixed seed, so hashes (and bench) are the same on every machine.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut z = Box::new(Zobrist {
        stone: [[0; NUM_CELLS]; 2],
        side: 0,
    });
    for c in 0..2 {
        for i in 0..NUM_CELLS {
            z.stone[c][i] = next();
        }
    }
    z.side = next();
    z
});

/// Why a board cannot be created or a stone cannot be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    /// Width or height outside `MIN_SIZE..=MAX_SIZE`.
    BadSize(usize, usize),
    /// Coordinates outside the board.
    OffBoard(i64, i64),
    /// The cell already holds a stone.
    Occupied(Pos),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::BadSize(w, h) => write!(
                f,
                "unsupported board size {w}x{h} (sizes {MIN_SIZE} to {MAX_SIZE} are supported)"
            ),
            BoardError::OffBoard(x, y) => write!(f, "{x},{y} is outside the board"),
            BoardError::Occupied(p) => write!(f, "{p} is already occupied"),
        }
    }
}

impl std::error::Error for BoardError {}

/// Stones, side to move and the pattern state of every cell.
#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    tables: Arc<RuleTables>,
    cells: Vec<u8>,
    /// Per cell and direction: the 10 neighbours' codes (see `pattern::slot`).
    keys: Vec<[u32; 4]>,
    /// Per cell and direction: black pattern (low nibble) and white pattern (high nibble).
    pats: Vec<[u8; 4]>,
    /// Per cell (empty cells only), for black and for white: the pattern code and its
    /// `Pattern4` class, packed as `pattern::packed_code` packs them.
    code: Vec<[u16; 2]>,
    /// Per colour: how many empty cells have each `Pattern4` class.
    p4count: [[u16; Pattern4::COUNT]; 2],
    /// Per colour: the sum over empty cells of its codes' own and their values.
    value: [[i32; 2]; 2],
    /// The evaluation network's row sums over empty cells (see `pattern::net`), with
    /// black as the side to move, then with white; zero when the rule has no network.
    /// While `acc_stale`, they are the sums before the last move (see `settle_acc`).
    acc: [[i32; HIDDEN]; 2],
    /// The codebook network's sums of the empty cells' features (see `pattern::codebook`);
    /// zero when the rule has none. Stale with `acc`.
    pool: codebook::Sums,
    acc_stale: bool,
    /// Per row: bit x set when cell x of the row has a stone within the stencil, and
    /// when it is empty. Candidates are the cells with both bits.
    near_rows: [u32; MAX_SIZE],
    empty_rows: [u32; MAX_SIZE],
    /// Per cell and direction: the offsets along the line that stay on the board and
    /// within the tables' reach, as (first, last). Key slots beyond the reach are never
    /// read, so they are never written either.
    span: Vec<[(i8, i8); 4]>,
    hash: u64,
    side: Color,
    history: Vec<(Pos, Color)>,
    /// Undo data: the patterns each move overwrote, and per move where its changes start
    /// and the histogram before it.
    changes: Vec<Change>,
    frames: Vec<Frame>,
    /// Per move, when the rule has a network: its sums before the move.
    acc_frames: Vec<([[i32; HIDDEN]; 2], codebook::Sums)>,
}

/// Iterator over a board's candidate cells, row by row (see `Board::candidates`).
pub struct Candidates<'a> {
    board: &'a Board,
    /// The next row to read.
    y: usize,
    /// Candidates of row `y - 1` not yet returned.
    bits: u32,
}

impl Iterator for Candidates<'_> {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        while self.bits == 0 {
            if self.y >= self.board.height {
                return None;
            }
            self.bits = self.board.near_rows[self.y] & self.board.empty_rows[self.y];
            self.y += 1;
        }
        let x = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(Pos::new(x, self.y - 1))
    }
}

/// One cell's pattern in one direction before a move changed it.
#[derive(Clone, Copy, Debug)]
struct Change {
    cell: u16,
    dir: u8,
    pat: u8,
    code: [u16; 2],
}

/// Per move: the first of its `Change`s, and the histogram and values before it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    changes: u32,
    p4count: [[u16; Pattern4::COUNT]; 2],
    value: [[i32; 2]; 2],
    /// The stencil rows of `near_rows` before the move, from three rows above its cell
    /// (rows off the board unused): a stone only ever adds candidates, and its take-back
    /// puts these back.
    near: [u32; 7],
}

impl Board {
    /// An empty `width × height` board under `rule`, black to move.
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<Board, BoardError> {
        Board::with_tables(width, height, rule, pattern::tables(rule).clone())
    }

    /// An empty board like `new`'s that evaluates with `tables` (made for `rule` by
    /// `RuleTables::with_weights`): for comparing weights against each other.
    pub fn with_tables(
        width: usize,
        height: usize,
        rule: Rule,
        tables: Arc<RuleTables>,
    ) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
            return Err(BoardError::BadSize(width, height));
        }
        let mut b = Board {
            width,
            height,
            rule,
            tables,
            cells: vec![WALL; NUM_CELLS],
            keys: vec![[0; 4]; NUM_CELLS],
            pats: vec![[0; 4]; NUM_CELLS],
            code: vec![[0; 2]; NUM_CELLS],
            p4count: [[0; Pattern4::COUNT]; 2],
            value: [[0; 2]; 2],
            acc: [[0; HIDDEN]; 2],
            pool: [0; codebook::DIM],
            acc_stale: false,
            near_rows: [0; MAX_SIZE],
            empty_rows: [0; MAX_SIZE],
            span: vec![[(0, 0); 4]; NUM_CELLS],
            hash: 0,
            side: Color::Black,
            history: Vec::with_capacity(width * height),
            changes: Vec::new(),
            frames: Vec::new(),
            acc_frames: Vec::new(),
        };
        for y in 0..height {
            for x in 0..width {
                b.cells[Pos::new(x, y).idx()] = EMPTY;
                b.empty_rows[y] |= 1 << x;
            }
        }
        for y in 0..height {
            for x in 0..width {
                let p = Pos::new(x, y);
                for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                    let reach = |sign: i32| {
                        (1..=b.tables.reach() as i32)
                            .take_while(|&k| b.step(p, d, sign * k).is_some())
                            .count() as i8
                    };
                    b.span[p.idx()][d] = (-reach(-1), reach(1));
                    let mut key = 0u32;
                    for off in -(HALF as i32)..=(HALF as i32) {
                        if off != 0 {
                            let code = b.code_at(x as i32 + off * dx, y as i32 + off * dy);
                            key |= (code as u32) << (2 * slot(off));
                        }
                    }
                    b.keys[p.idx()][d] = key;
                }
                b.refresh_cell(p);
                b.count_cell(p, 1);
            }
        }
        (b.acc, b.pool) = b.counted_acc();
        Ok(b)
    }

    fn code_at(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            WALL
        } else {
            self.cells[Pos::new(x as usize, y as usize).idx()]
        }
    }

    /// Board width (number of columns).
    pub fn width(&self) -> usize {
        self.width
    }
    /// Board height (number of rows).
    pub fn height(&self) -> usize {
        self.height
    }
    /// The rule the pattern state was built for.
    pub fn rule(&self) -> Rule {
        self.rule
    }
    /// Side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    /// Set the side to move (position setup only).
    pub fn set_side_to_move(&mut self, c: Color) {
        if c != self.side {
            self.hash ^= ZOBRIST.side;
            self.side = c;
        }
    }
    /// Zobrist hash of stones and side to move.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// The hash after the side to move plays `p`.
    #[inline]
    pub fn hash_after(&self, p: Pos) -> u64 {
        self.hash ^ ZOBRIST.stone[self.side.idx()][p.idx()] ^ ZOBRIST.side
    }
    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        self.history.len()
    }
    /// Moves in the order they were made, with their colours.
    pub fn history(&self) -> &[(Pos, Color)] {
        &self.history
    }
    /// Number of empty cells.
    pub fn empty_count(&self) -> usize {
        self.width * self.height - self.history.len()
    }

    /// The cell at protocol coordinates, if on the board.
    pub fn pos_at(&self, x: i64, y: i64) -> Result<Pos, BoardError> {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            Err(BoardError::OffBoard(x, y))
        } else {
            Ok(Pos::new(x as usize, y as usize))
        }
    }
    /// True if `p` lies on the board.
    #[inline]
    pub fn on_board(&self, p: Pos) -> bool {
        p.x() < self.width && p.y() < self.height
    }
    /// The stone at `p`, if any.
    #[inline]
    pub fn stone(&self, p: Pos) -> Option<Color> {
        match self.cells[p.idx()] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }
    /// True if `p` is on the board and empty.
    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p.idx()] == EMPTY
    }
    /// All cells of the board, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Pos::new(x, y)))
    }
    /// Empty cells with a stone within the candidate stencil, row by row. Every cell that
    /// makes a four or an open four for either side is among them (such a cell has a stone
    /// of that side within two cells on the line).
    pub fn candidates(&self) -> Candidates<'_> {
        Candidates {
            board: self,
            y: 0,
            bits: 0,
        }
    }
    /// True if some stone lies within the candidate stencil of `p`.
    #[inline]
    pub fn is_near(&self, p: Pos) -> bool {
        self.near_rows[p.y()] >> p.x() & 1 == 1
    }
    /// Line pattern of `c` at empty cell `p` in direction `d`.
    #[inline]
    pub fn pattern(&self, p: Pos, d: usize, c: Color) -> Pattern {
        let b = self.pats[p.idx()][d];
        Pattern::from_u8(if c == Color::Black { b & 15 } else { b >> 4 })
    }
    /// Threat class of `c` at empty cell `p`.
    #[inline]
    pub fn p4(&self, p: Pos, c: Color) -> Pattern4 {
        pattern::class_of_packed(self.code[p.idx()][c.idx()])
    }
    /// Pattern code of `c` at empty cell `p`.
    #[inline]
    pub fn pcode(&self, p: Pos, c: Color) -> u16 {
        pattern::code_of_packed(self.code[p.idx()][c.idx()])
    }
    /// Move-ordering scores of `c` at empty cell `p`, own and their (`pattern::policy`).
    #[inline]
    pub fn order_scores(&self, p: Pos, c: Color) -> [i32; 2] {
        self.tables.order_of(self.pcode(p, c), c)
    }
    /// The sum over empty cells of `c`'s values: its own values (`role` `weights::OWN`)
    /// or their values (`weights::THEIR`) in the weights of `pattern::weights`.
    #[inline]
    pub fn value_sum(&self, c: Color, role: usize) -> i32 {
        self.value[c.idx()][role]
    }
    /// The evaluation's bonus for the side to move under this board's rule.
    #[inline]
    pub fn tempo(&self) -> i32 {
        self.tables.tempo()
    }
    /// The evaluation's threat term for the side to move with threat mask `mask` (see
    /// `eval::threat_mask`).
    #[inline]
    pub fn threat_value(&self, mask: usize) -> i32 {
        self.tables.threat_of(self.side_to_move(), mask)
    }
    /// Number of empty cells where `c` has class `k`.
    #[inline]
    pub fn p4_count(&self, c: Color, k: Pattern4) -> u32 {
        self.p4count[c.idx()][k as usize] as u32
    }
    /// Cell at offset `k` along direction `d` from `p`, if on the board.
    #[inline]
    pub fn step(&self, p: Pos, d: usize, k: i32) -> Option<Pos> {
        let (dx, dy) = DIRS[d];
        let x = p.x() as i32 + dx * k;
        let y = p.y() as i32 + dy * k;
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            None
        } else {
            Some(Pos::new(x as usize, y as usize))
        }
    }

    /// The threat class `c` would have at empty cell `t` if a stone of colour `stone` stood
    /// at the empty cell `m` (`m != t`), without touching the board. Only the line through
    /// both cells changes, and only if `m` lies within `HALF` cells of `t` on it.
    pub fn p4_with_stone(&self, t: Pos, m: Pos, stone: Color, c: Color) -> Pattern4 {
        let Some((d, off)) = line_offset(t, m) else {
            return self.p4(t, c);
        };
        let code = if stone == Color::Black { BLACK } else { WHITE };
        let sh = 2 * slot(off);
        let key = (self.keys[t.idx()][d] & !(3 << sh)) | ((code as u32) << sh);
        let mut pats = self.pats[t.idx()];
        pats[d] = self.tables.line_of(key);
        pattern::class_of_packed(self.tables.packed_of(pats, c))
    }

    /// Place a stone of the side to move at `p`.
    #[inline]
    pub fn make_move(&mut self, p: Pos) {
        self.make(p, self.side);
    }

    /// Place a stone of colour `c` at `p` (empty, on board); `c`'s opponent moves next.
    pub fn make(&mut self, p: Pos, c: Color) {
        debug_assert!(self.on_board(p) && self.is_empty(p), "make on {p}");
        // Only a rule with a network keeps sums to save: those after the previous move,
        // brought up to date now if no evaluation has asked for them (while the last
        // frame is still the previous move's).
        let net = self.tables.has_networks();
        if net {
            self.settle_acc();
            self.acc_frames.push((self.acc, self.pool));
        }
        let near = self.cover_near(p);
        self.frames.push(Frame {
            changes: self.changes.len() as u32,
            p4count: self.p4count,
            value: self.value,
            near,
        });
        self.count_cell(p, -1);
        let code = if c == Color::Black { BLACK } else { WHITE };
        self.cells[p.idx()] = code;
        self.empty_rows[p.y()] &= !(1 << p.x());
        self.hash ^= ZOBRIST.stone[c.idx()][p.idx()];
        self.set_side_to_move(c.opp());
        self.history.push((p, c));
        self.update_lines(p, code);
        self.acc_stale = net;
        #[cfg(debug_assertions)]
        self.check_counts_sometimes();
    }

    /// Take back the last move.
    pub fn undo(&mut self) {
        let Some((p, c)) = self.history.pop() else {
            debug_assert!(false, "undo on an empty history");
            return;
        };
        self.cells[p.idx()] = EMPTY;
        self.empty_rows[p.y()] |= 1 << p.x();
        self.hash ^= ZOBRIST.stone[c.idx()][p.idx()];
        self.set_side_to_move(c);
        // Keys are restored bit by bit: `p`'s two bits back to empty (0). Occupied cells
        // were not touched, but their keys already hold `p` as empty (it was when their
        // stones came), so every cell in reach is cleared alike, with no test. Patterns
        // and classes come back from the saved values (the cell `p` itself kept its own
        // while it was occupied).
        for d in 0..4 {
            let (first, last) = self.span[p.idx()][d];
            // Before `p`, then after it (as in `update_lines`).
            for off in first as i32..0 {
                self.clear_key(p, d, off);
            }
            for off in 1..=last as i32 {
                self.clear_key(p, d, off);
            }
        }
        let frame = self.frames.pop().expect("a frame per move");
        for ch in self.changes.drain(frame.changes as usize..).rev() {
            self.pats[ch.cell as usize][ch.dir as usize] = ch.pat;
            self.code[ch.cell as usize] = ch.code;
        }
        self.p4count = frame.p4count;
        self.value = frame.value;
        if self.tables.has_networks() {
            (self.acc, self.pool) = self.acc_frames.pop().expect("sums saved per move");
            self.acc_stale = false;
        }
        for (i, &rows) in frame.near.iter().enumerate() {
            if let Some(row) = self.stencil_row(p, i) {
                self.near_rows[row] = rows;
            }
        }
        #[cfg(debug_assertions)]
        self.check_counts_sometimes();
    }

    /// `undo` for the cell `off` steps from `p` along direction `d`: `p`'s two bits of its
    /// key back to empty.
    #[inline(always)]
    fn clear_key(&mut self, p: Pos, d: usize, off: i32) {
        let q = line_cell(p, d, off);
        self.keys[q][d] &= !(3 << (2 * slot(-off)));
    }

    /// Write `code` into the keys of every cell within reach of `p` and refresh the empty
    /// ones, saving their old patterns for `undo`.
    fn update_lines(&mut self, p: Pos, code: u8) {
        for d in 0..4 {
            let (first, last) = self.span[p.idx()][d];
            // The cells before `p`, then those after it, so that no step asks whether it
            // is `p`. (Two loops, not a chain of ranges: the chain asks at every step
            // which range it is in, a branch the processor mispredicts.)
            for off in first as i32..0 {
                self.update_line_cell(p, d, off, code);
            }
            for off in 1..=last as i32 {
                self.update_line_cell(p, d, off, code);
            }
        }
    }

    /// `update_lines` for the cell `off` steps from `p` along direction `d`.
    #[inline(always)]
    fn update_line_cell(&mut self, p: Pos, d: usize, off: i32, code: u8) {
        let q = line_cell(p, d, off);
        // Only empty cells keep their keys current. An occupied cell's key is needed again
        // only once its stone is taken back, and by then every later move has been taken
        // back too: it is as it was when the stone came.
        if self.cells[q] != EMPTY {
            return;
        }
        // `p` sits at offset -off from `q`.
        let s = 2 * slot(-off);
        let k = &mut self.keys[q][d];
        *k = (*k & !(3 << s)) | ((code as u32) << s);
        // Far stones often leave the pattern as it was: then nothing changes.
        let pat = self.tables.line_of(*k);
        // The cell's four patterns as one word, changed by shifts and written whole:
        // reading back bytes just written one by one stalls the store buffer.
        let word = u32::from_le_bytes(self.pats[q]);
        let sh = 8 * d as u32;
        let old_pat = (word >> sh) as u8;
        if pat == old_pat {
            return;
        }
        let old = self.code[q];
        self.changes.push(Change {
            cell: q as u16,
            dir: d as u8,
            pat: old_pat,
            code: old,
        });
        let pats = ((word & !(0xFF << sh)) | ((pat as u32) << sh)).to_le_bytes();
        self.pats[q] = pats;
        // Both colours are brought up to date with no test of which one's code changed: a
        // colour whose code stays takes its class count and values off and puts them back.
        // That costs a few instructions; the tests it saves were branches the processor
        // could not predict.
        for c in [Color::Black, Color::White] {
            let ci = c.idx();
            let new = self.tables.packed_of(pats, c);
            self.code[q][ci] = new;
            self.p4count[ci][(old[ci] >> CLASS_SHIFT) as usize] -= 1;
            self.p4count[ci][(new >> CLASS_SHIFT) as usize] += 1;
            let a = self.tables.value_of(pattern::code_of_packed(old[ci]), c);
            let b = self.tables.value_of(pattern::code_of_packed(new), c);
            self.value[ci][0] += (b[0] - a[0]) as i32;
            self.value[ci][1] += (b[1] - a[1]) as i32;
        }
    }

    /// The evaluation networks' correction for the side to move (0 when the rule has no
    /// network): the class-pair network's and the codebook's.
    #[inline]
    pub fn net_value(&mut self) -> i32 {
        self.settle_acc();
        let net = self
            .tables
            .net()
            .map_or(0, |net| net.correction(&self.acc[self.side.idx()]));
        let cb = self
            .tables
            .codebook()
            .map_or(0, |cb| cb.correction(&self.pool, self.side));
        net + cb
    }

    /// Bring the network's sums up to date. A move leaves them as they were
    /// (`acc_stale`), and they are brought up to date when an evaluation or the next move
    /// asks for them: a third of the moves the search makes are taken back with neither,
    /// and those skip the work.
    #[inline]
    fn settle_acc(&mut self) {
        if !self.acc_stale {
            return;
        }
        self.acc_stale = false;
        let Board {
            acc,
            pool,
            tables,
            frames,
            history,
            changes,
            code,
            pats,
            ..
        } = self;
        if let (Some(frame), Some(&(p, _))) = (frames.last(), history.last()) {
            let changes = &changes[frame.changes as usize..];
            if let Some(net) = tables.net() {
                add_move(acc, net, p, code, changes);
            }
            if let Some(cb) = tables.codebook() {
                add_move_to_pool(pool, cb, p, pats, changes);
            }
        }
    }

    /// The network's sums for the stones as they stand (what `settle_acc` makes them).
    #[cfg(debug_assertions)]
    fn settled_acc(&self) -> ([[i32; HIDDEN]; 2], codebook::Sums) {
        let (mut acc, mut pool) = (self.acc, self.pool);
        if let (true, Some(frame), Some(&(p, _))) =
            (self.acc_stale, self.frames.last(), self.history.last())
        {
            let changes = &self.changes[frame.changes as usize..];
            if let Some(net) = self.tables.net() {
                add_move(&mut acc, net, p, &self.code, changes);
            }
            if let Some(cb) = self.tables.codebook() {
                add_move_to_pool(&mut pool, cb, p, &self.pats, changes);
            }
        }
        (acc, pool)
    }

    /// The networks' sums counted afresh over the empty cells.
    fn counted_acc(&self) -> ([[i32; HIDDEN]; 2], codebook::Sums) {
        let mut acc = [[0i32; HIDDEN]; 2];
        let mut pool = [0; codebook::DIM];
        for p in self.cells().filter(|&p| self.is_empty(p)) {
            if let Some(net) = self.tables.net() {
                add_rows(&mut acc, net, self.code[p.idx()], true);
            }
            if let Some(cb) = self.tables.codebook() {
                Codebook::add(&mut pool, &cb.features(self.pats[p.idx()]), 1);
            }
        }
        (acc, pool)
    }

    /// The four line-pattern bytes of every empty cell (black's pattern in the low nibble,
    /// white's in the high one), row by row: what the codebook network reads.
    #[cfg(test)]
    pub fn empty_cell_patterns(&self) -> Vec<[u8; 4]> {
        self.cells()
            .filter(|&p| self.is_empty(p))
            .map(|p| self.pats[p.idx()])
            .collect()
    }

    /// The neighbours of empty cell `p` along direction `d` from `-reach` to `reach` steps
    /// away (the tables' reach), centre left out, two bits each (`pattern::EMPTY`,
    /// `BLACK`, `WHITE`, `WALL`), the nearest step first on each side: the cells at
    /// -1, -2, ... in order, then +1, +2, ...
    pub fn line_neighbours(&self, p: Pos, d: usize, reach: usize) -> Vec<u8> {
        let key = self.keys[p.idx()][d];
        let code = |off: i32| ((key >> (2 * slot(off))) & 3) as u8;
        let r = reach as i32;
        (1..=r).map(|k| code(-k)).chain((1..=r).map(code)).collect()
    }

    /// The four line-pattern bytes of cell `p` (see `empty_cell_patterns`), as they were
    /// when it was last empty.
    pub fn line_patterns(&self, p: Pos) -> [u8; 4] {
        self.pats[p.idx()]
    }

    /// Mark the cells within the stencil of a stone at `p` as near one; returns the
    /// stencil's rows as they were (see `Frame::near`).
    #[inline]
    fn cover_near(&mut self, p: Pos) -> [u32; 7] {
        let mut before = [0; 7];
        let on_board = (1u64 << self.width) - 1;
        for (i, &mask) in STENCIL_ROW_MASKS.iter().enumerate() {
            if let Some(row) = self.stencil_row(p, i) {
                before[i] = self.near_rows[row];
                let bits = ((mask << p.x()) >> STENCIL_REACH) & on_board;
                self.near_rows[row] |= bits as u32;
            }
        }
        before
    }

    /// The board row of the stencil's row `i` (from 0, three rows above `p`), if on the
    /// board.
    #[inline]
    fn stencil_row(&self, p: Pos, i: usize) -> Option<usize> {
        (p.y() + i)
            .checked_sub(STENCIL_REACH)
            .filter(|&row| row < self.height)
    }

    /// Recompute all four line patterns and the `Pattern4` of cell `p` from its keys.
    fn refresh_cell(&mut self, p: Pos) {
        for d in 0..4 {
            self.pats[p.idx()][d] = self.tables.line_of(self.keys[p.idx()][d]);
        }
        let pats = self.pats[p.idx()];
        for c in [Color::Black, Color::White] {
            self.code[p.idx()][c.idx()] = self.tables.packed_of(pats, c);
        }
    }

    /// Add (`delta` 1) or remove (-1) cell `p`'s share of the histogram and the values
    /// (not of the network's sums: see `settle_acc`).
    fn count_cell(&mut self, p: Pos, delta: i32) {
        for c in [Color::Black, Color::White] {
            let ci = c.idx();
            let packed = self.code[p.idx()][ci];
            let k = (packed >> CLASS_SHIFT) as usize;
            self.p4count[ci][k] = (self.p4count[ci][k] as i32 + delta) as u16;
            let v = self.tables.value_of(pattern::code_of_packed(packed), c);
            self.value[ci][0] += delta * v[0] as i32;
            self.value[ci][1] += delta * v[1] as i32;
        }
    }

    /// Debug builds: `check_counts` after every move and take-back in the unit tests, and
    /// after one in 16 (by stone count) in a debug binary. A recount reads every cell, and
    /// a debug binary under a referee's clock makes and takes back stones outside the
    /// search's node count too (renju's foul checks, the defences to a threat), between
    /// its looks at the clock: recounting at each of them made it answer tens of
    /// milliseconds late. A drift stays in the counts for every move made on top of the
    /// one that caused it, so the sampled checks still see it unless it is taken back
    /// within a few moves.
    #[cfg(debug_assertions)]
    fn check_counts_sometimes(&self) {
        if cfg!(test) || self.history.len().is_multiple_of(16) {
            self.check_counts();
        }
    }

    /// Recount the threat histogram and the values from the cells. (The whole state is
    /// compared with a from-scratch rebuild in the randomised tests.)
    #[cfg(debug_assertions)]
    fn check_counts(&self) {
        let mut count = [[0u16; Pattern4::COUNT]; 2];
        let mut value = [[0i32; 2]; 2];
        for p in self.cells() {
            if self.is_empty(p) {
                for c in [Color::Black, Color::White] {
                    count[c.idx()][self.p4(p, c) as usize] += 1;
                    let v = self.tables.value_of(self.pcode(p, c), c);
                    value[c.idx()][0] += v[0] as i32;
                    value[c.idx()][1] += v[1] as i32;
                }
            }
        }
        assert_eq!(self.p4count, count, "p4 histogram drifted");
        assert_eq!(self.value, value, "values drifted");
        assert_eq!(
            self.settled_acc(),
            self.counted_acc(),
            "network sums drifted"
        );
    }

    /// Compare the whole incremental state with a rebuild from the stones.
    #[cfg(test)]
    fn assert_matches_rebuild(&self) {
        let fresh = self.recomputed();
        for p in self.cells() {
            if self.is_empty(p) {
                let used = |keys: [u32; 4]| keys.map(|k| self.tables.used_bits(k));
                assert_eq!(
                    used(self.keys[p.idx()]),
                    used(fresh.keys[p.idx()]),
                    "keys at {p}"
                );
                assert_eq!(self.pats[p.idx()], fresh.pats[p.idx()], "patterns at {p}");
                assert_eq!(self.code[p.idx()], fresh.code[p.idx()], "codes at {p}");
            }
        }
        assert_eq!(self.p4count, fresh.p4count, "p4 histogram drifted");
        assert_eq!(self.value, fresh.value, "values drifted");
        assert_eq!(
            self.settled_acc(),
            (fresh.acc, fresh.pool),
            "network sums drifted"
        );
        assert_eq!(self.near_rows, fresh.near_rows, "candidate bits drifted");
        for p in self.cells() {
            let bit = |rows: &[u32; MAX_SIZE]| rows[p.y()] >> p.x() & 1 == 1;
            assert_eq!(bit(&self.empty_rows), self.is_empty(p), "empty bit {p}");
        }
        assert_eq!(self.hash, fresh_hash(self), "hash drifted");
    }

    /// A board built from scratch with the same stones (used to check the incremental state).
    #[cfg(test)]
    fn recomputed(&self) -> Board {
        let mut fresh = Board::with_tables(self.width, self.height, self.rule, self.tables.clone())
            .expect("same size");
        // Build without the per-move checks: set stones directly, then recompute.
        for &(p, c) in &self.history {
            fresh.cells[p.idx()] = if c == Color::Black { BLACK } else { WHITE };
        }
        for p in self.cells().collect::<Vec<_>>() {
            for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                let mut key = 0u32;
                for off in -(HALF as i32)..=(HALF as i32) {
                    if off != 0 {
                        let code = fresh.code_at(p.x() as i32 + off * dx, p.y() as i32 + off * dy);
                        key |= (code as u32) << (2 * slot(off));
                    }
                }
                fresh.keys[p.idx()][d] = key;
            }
        }
        fresh.p4count = [[0; Pattern4::COUNT]; 2];
        fresh.value = [[0; 2]; 2];
        fresh.near_rows = [0; MAX_SIZE];
        fresh.empty_rows = [0; MAX_SIZE];
        for p in self.cells().collect::<Vec<_>>() {
            if fresh.is_empty(p) {
                fresh.empty_rows[p.y()] |= 1 << p.x();
                fresh.refresh_cell(p);
                fresh.count_cell(p, 1);
            } else {
                fresh.cover_near(p);
            }
        }
        (fresh.acc, fresh.pool) = fresh.counted_acc();
        fresh
    }

    /// Text diagram (X black, O white), for tests and debugging.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.stone(Pos::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
            }
            s.push('\n');
        }
        s
    }

    /// A board from a diagram: one text row per board row, `X` black, `O` white, anything
    /// else empty; blanks are ignored. Stones are placed black and white alternately while
    /// both remain, so renju histories look plausible; `to_move` is then set.
    pub fn from_diagram(text: &str, rule: Rule, to_move: Color) -> Result<Board, BoardError> {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| {
                l.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<Vec<char>>()
            })
            .filter(|r| !r.is_empty())
            .collect();
        let height = rows.len();
        let width = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut b = Board::new(width, height, rule)?;
        let mut blacks = Vec::new();
        let mut whites = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, &ch) in row.iter().enumerate() {
                match ch {
                    'X' | 'x' => blacks.push(Pos::new(x, y)),
                    'O' | 'o' => whites.push(Pos::new(x, y)),
                    _ => {}
                }
            }
        }
        let (mut bi, mut wi) = (blacks.into_iter(), whites.into_iter());
        loop {
            match (bi.next(), wi.next()) {
                (None, None) => break,
                (bp, wp) => {
                    if let Some(p) = bp {
                        b.make(p, Color::Black);
                    }
                    if let Some(p) = wp {
                        b.make(p, Color::White);
                    }
                }
            }
        }
        b.set_side_to_move(to_move);
        Ok(b)
    }
}

/// The network rows of an empty cell with codes `codes` (black's, white's) for the sums
/// with black to move, then with white to move.
#[inline]
fn rows_of(net: &Net, codes: [u16; 2]) -> [&[i32; HIDDEN]; 2] {
    let [b, w] = codes.map(class);
    [net.row(pair(b, w)), net.row(pair(w, b))]
}

/// Add (`add`) or take away the network rows of an empty cell with codes `codes` to the
/// sums `acc` (black to move, then white). Plain additions and subtractions, with the
/// choice made once outside the loops: a multiplication by a sign inside them cost a
/// quarter of the search's time, since the processors the default build targets have no
/// vector instruction for it.
#[inline]
fn add_rows(acc: &mut [[i32; HIDDEN]; 2], net: &Net, codes: [u16; 2], add: bool) {
    for (sums, row) in acc.iter_mut().zip(rows_of(net, codes)) {
        if add {
            sums.iter_mut().zip(row).for_each(|(a, x)| *a += x);
        } else {
            sums.iter_mut().zip(row).for_each(|(a, x)| *a -= x);
        }
    }
}

/// Replace an empty cell's network rows in the sums `acc`: those of its codes `old` by
/// those of `new`, in one pass over each sum.
#[inline]
fn swap_rows(acc: &mut [[i32; HIDDEN]; 2], net: &Net, old: [u16; 2], new: [u16; 2]) {
    let lines = rows_of(net, old).into_iter().zip(rows_of(net, new));
    for (sums, (from, to)) in acc.iter_mut().zip(lines) {
        for ((a, x), y) in sums.iter_mut().zip(from).zip(to) {
            *a += y - x;
        }
    }
}

/// Add a move's changes to the codebook's sums `pool`: the stone at `p` takes its cell's
/// features away, and every cell whose line pattern changed (`changes`, at most one a cell:
/// a move shares one line with a cell) trades its features before for those after.
fn add_move_to_pool(
    pool: &mut codebook::Sums,
    cb: &Codebook,
    p: Pos,
    pats: &[[u8; 4]],
    changes: &[Change],
) {
    Codebook::add(pool, &cb.features(pats[p.idx()]), -1);
    for ch in changes {
        let now = pats[ch.cell as usize];
        let f = cb.raw_features(now);
        let before = cb.traded(&f, ch.pat, now[ch.dir as usize]);
        Codebook::replace(pool, &Codebook::clip(before), &Codebook::clip(f));
    }
}

/// Add a move's changes to the network's sums `acc`: the stone at `p` takes its cell's
/// rows away, and each of the cells it changed (`changes`, each cell once: a cell lies on
/// one line through the stone), whose codes before the move the changes keep, trades its
/// rows for those of its codes now (`code`). The stone's cell keeps its codes from
/// before it was taken.
fn add_move(
    acc: &mut [[i32; HIDDEN]; 2],
    net: &Net,
    p: Pos,
    code: &[[u16; 2]],
    changes: &[Change],
) {
    add_rows(acc, net, code[p.idx()], false);
    for ch in changes {
        let new = code[ch.cell as usize];
        if ch.code.map(class) != new.map(class) {
            swap_rows(acc, net, ch.code, new);
        }
    }
}

/// True if `a` is `b` or lies on one of the four lines through `b` within `HALF` cells:
/// the only cells where a stone changes `b`'s patterns.
#[inline]
pub fn in_line_reach(a: Pos, b: Pos) -> bool {
    let dx = (a.x() as i32 - b.x() as i32).abs();
    let dy = (a.y() as i32 - b.y() as i32).abs();
    (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) <= HALF as i32
}

/// Where `to` lies on the lines through `from`: the direction (index into `DIRS`) and the
/// signed number of steps, if it is on one of them within `HALF` cells (and not `from`).
pub fn line_offset(from: Pos, to: Pos) -> Option<(usize, i32)> {
    if from == to || !in_line_reach(to, from) {
        return None;
    }
    let dx = to.x() as i32 - from.x() as i32;
    let dy = to.y() as i32 - from.y() as i32;
    // The direction of `DIRS` the two cells share, and the steps along it (counted in x,
    // but along a column, where x does not change).
    Some(if dy == 0 {
        (0, dx)
    } else if dx == 0 {
        (1, dy)
    } else if dx == dy {
        (2, dx)
    } else {
        (3, dx)
    })
}

/// Index step of one cell along each direction of `DIRS`.
const DIR_STEP: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, 1 - STRIDE as isize];

/// Index of the cell `off` steps from `p` along direction `d` (which must be on the board).
#[inline]
fn line_cell(p: Pos, d: usize, off: i32) -> usize {
    (p.idx() as isize + off as isize * DIR_STEP[d]) as usize
}

/// The Zobrist hash of `b`'s stones and side to move, computed from scratch.
#[cfg(test)]
fn fresh_hash(b: &Board) -> u64 {
    let mut h = 0;
    for &(p, c) in b.history() {
        h ^= ZOBRIST.stone[c.idx()][p.idx()];
    }
    if b.side_to_move() == Color::White {
        h ^= ZOBRIST.side;
    }
    h
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Fixed-seed xorshift for randomised tests (other modules' tests use it too).
    pub(crate) struct Rng(u64);
    impl Rng {
        pub(crate) fn new(seed: u64) -> Rng {
            Rng(seed | 1)
        }
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn sizes() {
        assert!(Board::new(4, 15, Rule::Freestyle).is_err());
        assert!(Board::new(15, 33, Rule::Freestyle).is_err());
        assert!(Board::new(5, 5, Rule::Freestyle).is_ok());
        assert!(Board::new(32, 20, Rule::Renju).is_ok());
    }

    /// `steps` random moves and take-backs on `b` (a take-back one time in three), with
    /// `check` after every `every`-th.
    fn random_walk(
        b: &mut Board,
        rng: &mut Rng,
        steps: usize,
        every: usize,
        check: &mut dyn FnMut(&mut Board, usize),
    ) {
        for step in 0..steps {
            let undo = b.stone_count() > 0 && (b.empty_count() == 0 || rng.below(3) == 0);
            if undo {
                b.undo();
            } else {
                let empties: Vec<Pos> = b.cells().filter(|&p| b.is_empty(p)).collect();
                b.make_move(empties[rng.below(empties.len())]);
            }
            if step % every == 0 {
                check(b, step);
            }
        }
    }

    #[test]
    fn random_make_undo_matches_recompute() {
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let (w, h) = [(15, 15), (20, 20), (7, 11), (22, 9), (5, 5)][i];
            let mut b = Board::new(w, h, rule).unwrap();
            let start_hash = b.hash();
            let mut rng = Rng::new(0x1234 + i as u64);
            random_walk(&mut b, &mut rng, 3000, 7, &mut |b, _| {
                b.assert_matches_rebuild()
            });
            while b.stone_count() > 0 {
                b.undo();
            }
            assert_eq!(b.hash(), start_hash);
            assert_eq!(b.p4count, Board::new(w, h, rule).unwrap().p4count);
        }
    }

    #[test]
    fn codebook_sums_follow_every_move_and_take_back() {
        let cb = crate::pattern::codebook::tests::scrambled();
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let (w, h) = [(15, 15), (20, 20), (7, 11), (22, 9), (5, 5)][i];
            let tables = RuleTables::with_weights(rule, &crate::pattern::weights::builtin(rule))
                .with_codebook(Some(&cb));
            let mut b = Board::with_tables(w, h, rule, Arc::new(tables)).unwrap();
            let mut rng = Rng::new(0x4321 + i as u64);
            random_walk(&mut b, &mut rng, 1500, 5, &mut |b, step| {
                b.assert_matches_rebuild();
                // The integer correction is the floating-point one, up to rounding.
                let plain = b
                    .tables
                    .net()
                    .map_or(0, |n| n.correction(&b.settled_acc().0[b.side.idx()]));
                let int = b.net_value() - plain;
                let exact = cb.correction(&b.empty_cell_patterns(), b.side_to_move());
                assert!(
                    (exact - int as f32).abs() <= 2.0 + exact.abs() * 0.03,
                    "{rule:?} step {step}: {exact} against {int}"
                );
            });
        }
    }

    #[test]
    fn what_if_query_matches_a_real_move_and_candidates_hold_every_four_point() {
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let mut b = Board::new(13, 11, rule).unwrap();
            let mut rng = Rng::new(0x77 + i as u64);
            for _ in 0..60 {
                let empties: Vec<Pos> = b.cells().filter(|&p| b.is_empty(p)).collect();
                b.make_move(empties[rng.below(empties.len())]);
                let empties: Vec<Pos> = b.cells().filter(|&p| b.is_empty(p)).collect();
                for c in [Color::Black, Color::White] {
                    for &t in &empties {
                        let near = b.candidates().any(|q| q == t);
                        assert!(near || b.p4(t, c) < Pattern4::EBlock4, "{t} missed");
                    }
                }
                let m = empties[rng.below(empties.len())];
                let stone = [Color::Black, Color::White][rng.below(2)];
                let predicted: Vec<[Pattern4; 2]> = empties
                    .iter()
                    .map(|&t| {
                        [Color::Black, Color::White].map(|c| {
                            if t == m {
                                Pattern4::None
                            } else {
                                b.p4_with_stone(t, m, stone, c)
                            }
                        })
                    })
                    .collect();
                b.make(m, stone);
                for (&t, want) in empties.iter().zip(&predicted) {
                    if t != m {
                        assert_eq!(
                            [Color::Black, Color::White].map(|c| b.p4(t, c)),
                            *want,
                            "{t} with a stone at {m}"
                        );
                    }
                }
                b.undo();
            }
        }
    }

    #[test]
    fn five_point_detected() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for x in 3..7 {
            b.make(Pos::new(x, 7), Color::Black);
        }
        assert_eq!(b.p4(Pos::new(7, 7), Color::Black), Pattern4::AFive);
        assert_eq!(b.p4(Pos::new(2, 7), Color::Black), Pattern4::AFive);
        assert_eq!(b.p4_count(Color::Black, Pattern4::AFive), 2);
        assert_eq!(b.p4_count(Color::White, Pattern4::AFive), 0);
    }
}
