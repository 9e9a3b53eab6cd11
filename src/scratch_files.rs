//! For tests: fresh paths in a folder of the system's temporary directory, which goes,
//! with everything in it, when the test is over. The test harness runs each test on a
//! thread of its own, so each thread gets its own folder per topic and removes it as the
//! thread ends: a test run leaves nothing behind, and parallel tests never share a file.
//! (Also compiled into the `selfplay` integration tests.)

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A folder that is removed with its contents when dropped.
struct Folder {
    topic: String,
    path: PathBuf,
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

thread_local! {
    /// This thread's folders, one per topic, removed when the thread ends.
    static FOLDERS: RefCell<Vec<Folder>> = const { RefCell::new(Vec::new()) };
}

/// Numbers the folders of this process.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A path named `name` in this thread's folder for `topic`, with no file there yet.
pub fn fresh(topic: &str, name: &str) -> PathBuf {
    let dir = FOLDERS.with_borrow_mut(|folders| {
        if let Some(f) = folders.iter().find(|f| f.topic == topic) {
            return f.path.clone();
        }
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("wuzi-{topic}-{}-{n}", std::process::id()));
        folders.push(Folder {
            topic: topic.to_string(),
            path: path.clone(),
        });
        path
    });
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_folder_goes_when_the_thread_ends() {
        let (path, again, other) = std::thread::spawn(|| {
            let path = fresh("scratch-test", "a.txt");
            std::fs::write(&path, "x").unwrap();
            let again = fresh("scratch-test", "b.txt");
            let other = fresh("scratch-test-other", "a.txt");
            assert!(path.exists());
            (path, again, other)
        })
        .join()
        .unwrap();
        // One folder per topic on a thread, and none left after it.
        assert_eq!(path.parent(), again.parent());
        assert_ne!(path.parent(), other.parent());
        assert!(!path.parent().unwrap().exists(), "{path:?}");
        assert!(!other.parent().unwrap().exists(), "{other:?}");
        // Another thread's folder for the same topic is another folder.
        let mine = fresh("scratch-test", "a.txt");
        assert_ne!(mine.parent(), path.parent());
    }
}
