//! Wuzi: a Gomoku engine for the Gomocup pbrain protocol.

pub mod analyse;
pub mod bench;
pub mod board;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod movegen;
pub mod online;
pub mod pattern;
pub mod play;
pub mod protocol;
pub mod records;
pub mod review;
pub mod rules;
#[cfg(test)]
mod scratch_files;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod train;
pub mod tune;
pub mod types;
pub mod value_text;
