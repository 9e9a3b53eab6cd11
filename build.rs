//! Computes the pattern line tables of every rule (`src/pattern/lines.rs`) at build time
//! and writes them to `OUT_DIR`, where `src/pattern/mod.rs` includes them: the binary
//! carries its tables, and neither START nor the first move of a game waits for them.

#[allow(dead_code)]
#[path = "src/pattern/lines.rs"]
mod lines;

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=src/pattern/lines.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut index = String::from(
        "/// Per rule (in `Rule::ALL` order): the line table, the key's shift and its mask.\n",
    );
    index.push_str("static LINE_TABLES: [(&[u8], u32, u32); 5] = [\n");
    for rule in 0..lines::RULES {
        let (table, shift, mask) = lines::line_table(rule);
        let name = format!("lines-{rule}.bin");
        std::fs::write(Path::new(&out).join(&name), &table).expect("OUT_DIR is writable");
        let _ = writeln!(
            index,
            "    (include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}\")), {shift}, {mask}),"
        );
    }
    index.push_str("];\n");
    std::fs::write(Path::new(&out).join("line_tables.rs"), index).expect("OUT_DIR is writable");
}
