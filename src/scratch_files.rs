//! For tests: fresh paths in a folder of the system's temporary directory.

use std::path::PathBuf;

/// A path named `name` in this process's folder for `topic`, with no file there yet.
pub fn fresh(topic: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wuzi-{topic}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}
