//! Wuzi: a Gomoku engine for the Gomocup pbrain protocol.

pub mod board;
pub mod pattern;
pub mod rules;
pub mod types;
