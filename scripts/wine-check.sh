#!/usr/bin/env bash
# Checks the Windows executable under Wine, as .ci/run does:
#   - it imports only DLLs that Windows 10 ships;
#   - `bench 5` prints the same Bench and Signature lines as the Linux build;
#   - every protocol transcript (protocol-tests/transcripts/) passes against it;
#   - the referee's fast games (cargo test --test referee) end without a forfeit.
#
#   scripts/wine-check.sh [EXE]
#
# EXE defaults to the release build of scripts/build.sh: pbrain-wuzi.exe for x86-64-v3
# where this processor has AVX2, else the build for any x86-64. Wine 8 (Debian 12's) lacks
# ProcessPrng, which Rust's standard library imports from bcryptprimitives.dll: the check
# builds a stand-in DLL (protocol-tests/wine/processprng.c) and puts it beside a copy of
# the executable in target/wine/, with Wine's settings there too. It also leaves
# target/wine/pbrain-wuzi, a script that runs the copy under Wine, for other tests:
#   WUZI_REFEREE_ENGINE=target/wine/pbrain-wuzi WUZI_REFEREE_TURN_MS=1000 \
#       cargo test --release --test referee
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

scripts/need-packages.sh wine wine64 mingw-w64

if [ $# -ge 1 ]; then
    exe=$1
else
    cpu=x86-64
    grep -qw avx2 /proc/cpuinfo && cpu=x86-64-v3
    echo "building the Windows executable for $cpu"
    exe=$(scripts/build.sh windows "$cpu" | tail -n 1)
fi

work=$root/target/wine
mkdir -p "$work"
cp "$exe" "$work/pbrain-wuzi.exe"
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" \
    protocol-tests/wine/processprng.c -ladvapi32
wine=/usr/lib/wine/wine64
cat >"$work/pbrain-wuzi" <<SCRIPT
#!/bin/sh
# pbrain-wuzi.exe under Wine (written by scripts/wine-check.sh).
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n,b"
exec $wine "$work/pbrain-wuzi.exe" "\$@"
SCRIPT
chmod +x "$work/pbrain-wuzi"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
# The Wine prefix is made first, and its set-up finished (some seconds: an engine started
# meanwhile may be cut off); then one Wine server serves the whole check, so that each
# engine starts in milliseconds.
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    mkdir -p "$WINEPREFIX"
    "$wine" wineboot --init >/dev/null 2>&1 || true
    wineserver -w
fi
# A server still running (left by an earlier run) refuses -p, and serves as well.
wineserver -p >/dev/null 2>&1 </dev/null || true
trap 'wineserver -k 2>/dev/null || true' EXIT
# The first start also starts Wine's services, which keep its standard output open: a
# file, not a pipe that someone waits to close.
# That start of Wine's services was once seen killed (status 137) right after the browser
# test: once more then, after the server has settled; the checks below run as they are.
if ! printf 'ABOUT\nEND\n' | "$work/pbrain-wuzi" >"$work/about.txt" 2>&1; then
    echo "the first start under Wine failed; starting once more" >&2
    wineserver -w 2>/dev/null || true
    printf 'ABOUT\nEND\n' | "$work/pbrain-wuzi" >"$work/about.txt" 2>&1
fi
grep -q '^name="Wuzi"' "$work/about.txt"

echo "== DLLs imported by $(basename "$exe")"
# The DLLs of a Windows 10 installation that a Rust program may import.
allowed='^(kernel32|ntdll|msvcrt|ws2_32|bcryptprimitives|advapi32|userenv|api-ms-win-core-synch-l1-2-0)\.dll$'
dlls=$(x86_64-w64-mingw32-objdump -p "$work/pbrain-wuzi.exe" | sed -n 's/^\s*DLL Name: //p' | sort -fu)
echo "$dlls" | sed 's/^/  /'
if echo "$dlls" | grep -viqE "$allowed"; then
    echo "unexpected DLL: $(echo "$dlls" | grep -viE "$allowed" | tr '\n' ' ')" >&2
    exit 1
fi

echo "== bench 5: Windows under Wine against Linux"
cargo build --release
linux=$(target/release/pbrain-wuzi bench 5 2>&1 | grep -E '^(Bench|Signature):')
windows=$("$work/pbrain-wuzi" bench 5 2>&1 | grep -E '^(Bench|Signature):')
echo "linux:   $(echo "$linux" | tr '\n' ' ')"
echo "windows: $(echo "$windows" | tr '\n' ' ')"
if [ "$linux" != "$windows" ]; then
    echo "bench differs between the Windows and Linux builds" >&2
    exit 1
fi

# What Wine itself keeps resident: the idle engine's memory (started, nothing read yet)
# under Wine less the Linux build's. The transcripts' memory limits allow that much more.
idle_rss_kib() {
    sleep 3 | "$1" >/dev/null 2>&1 &
    local pid=$!
    sleep 2
    sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status"
    wait "$pid" || true
}
wine_kib=$(idle_rss_kib "$work/pbrain-wuzi")
linux_kib=$(idle_rss_kib target/release/pbrain-wuzi)
allowance=$(((wine_kib - linux_kib + 1023) / 1024))
echo "== idle resident memory: $((wine_kib / 1024)) MiB under Wine, $((linux_kib / 1024)) MiB on Linux"
echo "== protocol transcripts under Wine (memory limits + $allowance MiB for Wine)"
WUZI_ENGINE="$work/pbrain-wuzi" WUZI_ENGINE_RSS_ALLOWANCE_MB=$allowance \
    cargo test --test protocol
echo "== referee games under Wine"
WUZI_REFEREE_ENGINE="$work/pbrain-wuzi" cargo test --test referee
