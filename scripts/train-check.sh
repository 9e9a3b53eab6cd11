#!/usr/bin/env bash
# The codebook network's training pipeline end to end, on a few games: self-play, the
# trainer's data, a fit in JAX (scripts/train-codebook.py, in a virtual environment
# under target/ with scripts/requirements-train.txt), the engine evaluating with the
# fitted file exactly as the trainer does, and a game played with it.
set -euo pipefail
cd "$(dirname "$0")/.."
export JAX_PLATFORMS=cpu
venv=target/train-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-train.txt
cargo build --release -q
w=target/release/pbrain-wuzi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$w" selfplay --games 8 --nodes 3000 --seed 5 --out "$t/sp.wsp" > /dev/null
"$w" train "$t/sp.wsp" --codebook-data --lambda 0 --hold-out 4 --out "$t/cb.bin"
"$venv/bin/python" scripts/train-codebook.py "$t/cb.bin" --out "$t/cb.txt" --epochs 4 --batch 32 \
    | tee "$t/fit.log"
# The fit must lower the loss on its training positions.
grep '^# Loss without' -A1 "$t/cb.txt" | tr '\n' ' ' \
    | awk '{ for (i = 1; i <= NF; i++) if ($i == "training") { b = $(i + 1); a = $(i + 3) } }
           END { a += 0; b += 0; if (!(a < b)) { print "no gain: " b " -> " a; exit 1 } }'
"$w" train "$t/sp.wsp" --codebook-data --lambda 0 --hold-out 4 --codebook "$t/cb.txt" \
    --out "$t/cb-with.bin"
"$venv/bin/python" scripts/train-codebook.py "$t/cb.bin" --compare-with "$t/cb-with.bin" \
    --codebook "$t/cb.txt"
"$w" selfplay --games 1 --nodes 2000 --codebook "$t/cb.txt" --out "$t/g.wsp"
echo "train-check: the codebook pipeline works"
