#!/usr/bin/env bash
# Builds the release executable of pbrain-wuzi for one target and CPU level, the way the
# release archives are made, and prints its path as the last line of standard output.
#
#   scripts/build.sh linux|windows [x86-64|x86-64-v3]
#
# The compiler is Debian's rustc-web (Rust 1.96 with the source of its standard library,
# which the Windows build compiles for its target with -Zbuild-std), and the Windows
# linker is mingw-w64's x86_64-w64-mingw32-gcc-win32; the packages are installed with
# apt-get where they are missing. The build is reproducible: the sources are copied to a
# fixed folder and built there (/var/tmp/wuzi-dist/, or $WUZI_DIST_BUILD_DIR; one build
# at a time), the crate registry's path is replaced by a fixed one in the executable,
# symbols are stripped and the Windows linker writes no time stamp, so the same sources
# give the same bytes on any machine with the same compiler and linker packages. Each
# target and CPU level keeps its own build folder there, so a second run rebuilds only
# what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

os=${1:?usage: scripts/build.sh linux|windows [x86-64|x86-64-v3]}
cpu=${2:-x86-64}
case "$os" in
    linux) triple=x86_64-unknown-linux-gnu; exe=pbrain-wuzi ;;
    windows) triple=x86_64-pc-windows-gnu; exe=pbrain-wuzi.exe ;;
    *) echo "scripts/build.sh: unknown system '$os' (linux or windows)" >&2; exit 2 ;;
esac
case "$cpu" in
    x86-64 | x86-64-v2 | x86-64-v3 | x86-64-v4) ;;
    *) echo "scripts/build.sh: unknown CPU level '$cpu' (x86-64, x86-64-v3, …)" >&2; exit 2 ;;
esac

# The packages the build needs.
packages=(rustc-web cargo-web rust-web-src)
[ "$os" = windows ] && packages+=(mingw-w64)
scripts/need-packages.sh "${packages[@]}"

# Everything is built at fixed paths, the same for every checkout: the compiler's flags
# name the source folder (to keep it out of the executable), and the import libraries it
# makes for the Windows system DLLs name the build folder; both leave their mark on the
# executable's bytes. The source is the checkout's tracked files and untracked ones that
# git does not ignore, copied with their dates, so that an unchanged file stays built.
base=${WUZI_DIST_BUILD_DIR:-/var/tmp/wuzi-dist}
src=$base/src
mkdir -p "$base"
rm -rf "$src.new"
mkdir -p "$src.new"
git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$src.new"
rm -rf "$src"
mv "$src.new" "$src"
cd "$src"
cargo_home=${CARGO_HOME:-$HOME/.cargo}
flags=(
    "-Ctarget-cpu=$cpu"
    "--remap-path-prefix=$src=/build/wuzi"
    "--remap-path-prefix=$cargo_home=/cargo"
)
extra=()
if [ "$os" = windows ]; then
    flags+=("-Clink-arg=-Wl,--no-insert-timestamp")
    extra=(-Zbuild-std=std,panic_abort)
    # -Z on a stable compiler, as Debian's own builds of Rust programs do.
    export RUSTC_BOOTSTRAP=1
    # The win32 variant by name: Debian can point the plain name at the posix one.
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc-win32
fi
target_dir="$base/$os-$cpu"
# Only these flags: none from the environment or a user's cargo configuration.
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_BUILD_TARGET_DIR
CARGO_ENCODED_RUSTFLAGS=$(IFS=$'\x1f'; echo "${flags[*]}")
export CARGO_ENCODED_RUSTFLAGS
export RUSTC=/usr/bin/rustc CARGO_PROFILE_RELEASE_STRIP=symbols
/usr/bin/cargo build --release --locked --bin pbrain-wuzi --target "$triple" \
    --target-dir "$target_dir" "${extra[@]}" >&2
echo "$target_dir/$triple/release/$exe"
