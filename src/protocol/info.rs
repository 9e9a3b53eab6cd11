//! INFO keys: each updates an engine option; nothing is ever printed in reply.

use crate::engine::Engine;
use crate::types::Rule;

/// Apply `INFO key value` (key already lower case). Unknown keys and bad values are ignored.
pub fn apply(engine: &mut Engine, key: &str, value: &str) {
    let int = value
        .split_whitespace()
        .next()
        .and_then(|v| v.parse::<i64>().ok());
    let o = &mut engine.options;
    match (key, int) {
        ("timeout_turn", Some(v)) if v >= 0 => o.time.turn_ms = Some(v as u64),
        ("timeout_match", Some(v)) if v >= 0 => o.time.match_ms = v as u64,
        ("time_left", Some(v)) => o.time.left_ms = Some(v),
        ("max_memory", Some(v)) if v >= 0 => {
            o.max_memory = v as u64;
            o.memory_warning = o.memory_too_small();
        }
        ("hash_size", Some(v)) => o.hash_kb = (v > 0).then_some(v as u64),
        ("max_depth", Some(v)) => o.max_depth = (v > 0).then_some(v.min(1000) as i32),
        ("max_node", Some(v)) => o.max_nodes = (v > 0).then_some(v as u64),
        // 0 silences; bit 1 adds Yixin-Board's realtime stream, bit 2 its INFO blocks.
        // More threads than the machine runs at once would only slow each other down.
        ("thread_num", Some(v)) if v >= 1 => {
            o.threads = (v as u64).min(crate::search::cores() as u64) as usize;
            o.memory_warning = o.memory_too_small();
        }
        ("show_detail", Some(v)) => {
            o.show_detail = v != 0;
            o.realtime = v & 1 != 0;
            o.detail = v & 2 != 0;
        }
        ("rule", _) => match int.and_then(Rule::from_protocol) {
            Some(rule) => {
                o.unknown_rule = None;
                engine.set_rule(rule);
            }
            None => {
                o.unknown_rule = Some(value.to_string());
                engine.set_rule(Rule::Freestyle);
            }
        },
        // game_type, folder, time_increment,
        // caution_factor (the move generator picks its own candidates), pondering (no
        // thinking on the opponent's time), strength (full strength always), evaluate, ...:
        // accepted and not needed.
        _ => {}
    }
}
