//! The test suite's mock game server, serving one game for trying `pbrain-wuzi online` by
//! hand: `cargo run --example online-demo [PORT]` (default 8000). The game is for user
//! `wuzi` with the mock's password (printed), and the server runs until the game is over
//! (or 20 minutes have passed), then a little longer so that the client reads the result.

// The tests use more of the mock than the demo does.
#[allow(dead_code)]
#[path = "mock.rs"]
mod mock;

use mock::{Game, Mock};
use std::time::{Duration, Instant};

fn main() {
    let port = match std::env::args().nth(1) {
        None => 8000,
        Some(a) => match a.parse() {
            Ok(p) => p,
            Err(_) => {
                eprintln!("usage: online-demo [PORT]  (not a port: {a})");
                std::process::exit(2);
            }
        },
    };
    let mock = Mock::start_on(Game::new("wuzi", 'x'), port);
    println!(
        "serving game {} at {} for user wuzi, password {}",
        mock::GAME_ID,
        mock.url,
        mock::PASSWORD
    );
    let start = Instant::now();
    while mock.game.lock().unwrap().winner.is_none() && start.elapsed() < Duration::from_secs(1200)
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    println!("game over; the server stops in 15 s");
    std::thread::sleep(Duration::from_secs(15));
}
