//! Wuzi: a Gomoku engine for the Gomocup pbrain protocol.

pub mod pattern;
pub mod types;
