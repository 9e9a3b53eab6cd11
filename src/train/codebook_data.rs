//! `train --codebook-data`: the quiet positions of self-play games as the codebook
//! network's trainer (`scripts/train-codebook.py`) reads them.
//!
//! The file starts with the 8 bytes `WUZICB01`, then the board's width and height (2 bytes
//! each, little-endian); then one record a position, `12 * width * height + 12` bytes:
//! every cell's four line-pattern bytes row by row (black's pattern in the low nibble,
//! white's in the high one, `lines::Pattern`'s numbers; `FF` for a stone), every cell's
//! four line keys (2 bytes each, little-endian: the neighbours -1 to -4 then +1 to +4
//! steps away, two bits each from the highest, 0 empty, 1 black, 2 white, 3 off the
//! board; `FFFF` for a stone), the side to
//! move (0 black, 1 white), whether the position is held out (1) or for training (0), two
//! zero bytes, then the evaluation without any network (`f32`, evaluation units; with
//! `--codebook FILE`, with that codebook network) and the
//! target win probability (`f32`). Positions are those `train` fits: quiet, with the
//! target of `--lambda` and `--scale`.

use super::samples;
use super::Args;
use crate::eval;
use crate::pattern::{self, codebook, weights};
use crate::types::Color;
use std::io::Write;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"WUZICB01";
/// A cell's bytes where a stone stands.
pub const STONE: u8 = 0xFF;
/// Neighbours on each side in a cell's line keys.
const KEY_REACH: usize = 4;

/// Write the positions; progress lines go to `progress`.
pub fn run(args: &Args, progress: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.force || !args.out.exists(),
        "{} exists: give --force to replace it",
        args.out.display()
    );
    let cells = weights::builtin(args.rule);
    let codebook = args.codebook.as_deref().map(codebook::read).transpose()?;
    let tables = std::sync::Arc::new(
        pattern::RuleTables::with_weights(args.rule, &cells).with_codebook(codebook.as_ref()),
    );
    let mut out = Vec::new();
    let mut size: Option<(usize, usize)> = None;
    let (mut written, mut held_out, mut other_size) = (0usize, 0usize, 0usize);
    let mut tally = samples::Tally::default();
    super::for_each_file(args, progress, &mut |games| {
        for game in games {
            let this = (game.width, game.height);
            if *size.get_or_insert(this) != this {
                other_size += 1;
                continue;
            }
            samples::replay_quiet(
                std::slice::from_ref(game),
                args.rule,
                &tables,
                // The tally counts games over all files: every `hold_out`-th is held out.
                (args.lambda, args.scale, args.hold_out),
                &mut tally,
                &mut |board, target, held| {
                    let cells = || {
                        (0..board.height()).flat_map(|y| {
                            (0..board.width()).map(move |x| crate::types::Pos::new(x, y))
                        })
                    };
                    for p in cells() {
                        if board.is_empty(p) {
                            out.extend_from_slice(&board.line_patterns(p));
                        } else {
                            out.extend_from_slice(&[STONE; 4]);
                        }
                    }
                    for p in cells() {
                        for d in 0..4 {
                            let key = if board.is_empty(p) {
                                let near = board.line_neighbours(p, d, KEY_REACH);
                                near.iter().fold(0u16, |k, &c| k << 2 | c as u16)
                            } else {
                                u16::MAX
                            };
                            out.extend_from_slice(&key.to_le_bytes());
                        }
                    }
                    out.push((board.side_to_move() == Color::White) as u8);
                    out.push(held as u8);
                    out.extend_from_slice(&[0, 0]);
                    out.extend_from_slice(&(eval::evaluate(board) as f32).to_le_bytes());
                    out.extend_from_slice(&(target as f32).to_le_bytes());
                    written += 1;
                    held_out += held as usize;
                },
            )?;
        }
        Ok(())
    })?;
    let (w, h) = size.unwrap_or((0, 0));
    let mut file = Vec::with_capacity(out.len() + 12);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&(w as u16).to_le_bytes());
    file.extend_from_slice(&(h as u16).to_le_bytes());
    file.extend_from_slice(&out);
    std::fs::write(&args.out, file)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    writeln!(
        progress,
        "wrote {}: {written} quiet positions ({held_out} held out) of {} games on {w}x{h}{}",
        args.out.display(),
        tally.games,
        if other_size > 0 {
            format!(" ({other_size} games of other sizes left out)")
        } else {
            String::new()
        }
    )?;
    Ok(())
}
