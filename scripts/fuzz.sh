#!/usr/bin/env bash
# Longer fuzzing of the position parsers and the file readers than
# `cargo test` runs: the same property tests with more cases.
# Usage: scripts/fuzz.sh [CASES]   (default 100000; about a minute per 10000 here)
set -euo pipefail
cd "$(dirname "$0")/.."
MORRIS_FUZZ_CASES="${1:-100000}" cargo test --release --test integration house:: -- --nocapture
