#!/usr/bin/env bash
# The long oracle comparisons kept out of the default test run: the 3-4/4-3
# unit of standard, strict-mills and no-flying, the whole movement phase of
# six, and strict-mills and morabaraba with three men a side in all, each
# against the naive solver.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test integration -- --ignored
