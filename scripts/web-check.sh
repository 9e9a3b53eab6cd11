#!/usr/bin/env bash
# The web board in a real browser: Debian's chromium driven by playwright-core (from npm,
# the version protocol-tests/web/package-lock.json pins) against the release build's
# `pbrain-wuzi serve`. Installs what it needs where missing (as on CI).
#
#   scripts/web-check.sh [SCREENSHOT.png]     (default target/web/board.png;
#                                             docs/web-board.png refreshes the README's)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh chromium
# Node.js and npm may come from elsewhere than Debian: Debian's only where there are none.
command -v npm >/dev/null || scripts/need-packages.sh nodejs npm
shot=${1:-target/web/board.png}
mkdir -p "$(dirname "$shot")"
shot=$(cd "$(dirname "$shot")" && pwd)/$(basename "$shot")
cargo build --release --quiet
(cd protocol-tests/web && npm ci --no-audit --no-fund --silent)
node protocol-tests/web/board.test.mjs "$PWD/target/release/pbrain-wuzi" \
    "$PWD/src/records/c-gomoku-cli.sgf" "$shot"
