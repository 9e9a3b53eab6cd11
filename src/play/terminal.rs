//! What the terminal `play` writes to can show: colours and the live line need its escape
//! sequences (ANSI/VT100). Terminals on Linux and macOS understand them unless `TERM` is
//! `dumb`; a Windows console does once it is asked to (Windows 10 and later), and an older
//! console that refuses gets plain text, with moves and commands working just the same.

use std::io::IsTerminal;

/// Whether standard output is a terminal (not a pipe or a file) that carries out escape
/// sequences (cursor moves, colours); on Windows this switches the console to them where
/// it can.
pub fn supports_escapes() -> bool {
    std::io::stdout().is_terminal()
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
        && enable_escapes()
}

#[cfg(not(windows))]
fn enable_escapes() -> bool {
    true
}

/// Turns on the console's escape processing (`ENABLE_VIRTUAL_TERMINAL_PROCESSING`); false
/// where the console cannot (before Windows 10) or standard output is not a console.
#[cfg(windows)]
fn enable_escapes() -> bool {
    use std::os::windows::io::AsRawHandle;
    type Handle = *mut std::ffi::c_void;
    #[link(name = "kernel32")]
    extern "system" {
        fn GetConsoleMode(console: Handle, mode: *mut u32) -> i32;
        fn SetConsoleMode(console: Handle, mode: u32) -> i32;
    }
    const ENABLE_VIRTUAL_TERMINAL_PROCESSING: u32 = 0x0004;
    let handle = std::io::stdout().as_raw_handle() as Handle;
    let mut mode = 0u32;
    // SAFETY: `handle` is this process's standard output handle, valid for its lifetime,
    // and `mode` is a live u32 the call writes into; both calls only read or set flags.
    unsafe {
        if GetConsoleMode(handle, &mut mode) == 0 {
            return false;
        }
        mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0
            || SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0
    }
}
