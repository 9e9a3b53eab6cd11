//! Which games a run plays: the rules and board sizes cycled per opening (so a short run
//! meets every rule and size), seeded random openings near the centre or, one opening in
//! four, an empty board; each opening twice with colours swapped; each game's per-move
//! limit drawn from the configured range.

use crate::config::Config;
use crate::game::Spec;
use crate::rng::Rng;

pub fn games(config: &Config) -> Vec<Spec> {
    (0..config.games)
        .map(|g| {
            let pair = g / 2;
            let (rule, (width, height)) = combination(config, pair);
            let mut rng =
                Rng::new(config.seed ^ (g as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
            Spec {
                number: g + 1,
                rule,
                width,
                height,
                turn_ms: rng.range(config.turn_ms.0, config.turn_ms.1),
                late_ms: config.late_ms,
                match_ms: config.match_ms,
                memory: config.memory,
                threads: config.threads,
                opening: opening(config.seed, pair, width, height),
                a_is_black: g % 2 == 0,
            }
        })
        .collect()
}

/// The rule and size of the `pair`-th opening: within the first max(rules, sizes)
/// openings every rule and every size occurs, and every combination within
/// rules × sizes openings (the size index shifts by one per lcm block).
fn combination(config: &Config, pair: usize) -> (crate::rules::Rule, (usize, usize)) {
    let (r, s) = (config.rules.len(), config.sizes.len());
    let k = pair % (r * s);
    let lcm = r * s / gcd(r, s);
    let size = (k % s + k / lcm) % s;
    (config.rules[k % r], config.sizes[size])
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// 2 to 4 distinct stones (black first) within two cells of the centre, or none.
fn opening(seed: u64, pair: usize, width: usize, height: usize) -> Vec<(i32, i32)> {
    if pair % 4 == 3 {
        return Vec::new();
    }
    let mut rng = Rng::new(seed ^ (pair as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let count = rng.range(2, 4) as usize;
    let (cx, cy) = ((width / 2) as i32, (height / 2) as i32);
    let mut stones = Vec::new();
    while stones.len() < count {
        let x = cx + rng.range(0, 4) as i32 - 2;
        let y = cy + rng.range(0, 4) as i32 - 2;
        if !stones.contains(&(x, y)) {
            stones.push((x, y));
        }
    }
    stones
}
