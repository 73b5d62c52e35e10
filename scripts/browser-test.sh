#!/usr/bin/env bash
# The page of `morris serve` in a real headless browser (scripts/browser-test.py):
# Debian's chromium and chromium-driver, driven by selenium from a virtual
# environment under target/. Screenshots land in target/browser-test/.
# CI runs it after installing the two packages; without them it says so and
# stops with exit 0 only when MORRIS_SKIP_BROWSER=1 (a machine that cannot
# install a browser).
#
#   scripts/browser-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    if [ "${MORRIS_SKIP_BROWSER:-0}" = 1 ]; then
        echo "browser-test: SKIPPED: /usr/bin/chromium or /usr/bin/chromedriver is missing (apt-get install chromium chromium-driver)"
        exit 0
    fi
    echo "browser-test: /usr/bin/chromium and /usr/bin/chromedriver are needed: apt-get install chromium chromium-driver" >&2
    exit 1
fi
cargo build --release --quiet
venv=target/browser-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'selenium>=4.20,<5'
fi
# Selenium must not look for a driver of its own on the network.
export SE_OFFLINE=true
"$venv/bin/python" scripts/browser-test.py "$PWD/target/release/morris" target/browser-test
