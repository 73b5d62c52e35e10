#!/usr/bin/env bash
# The long oracle comparisons kept out of the default test run: the 3-4/4-3
# unit of standard, strict-mills and no-flying, the whole movement phase of
# six, and standard, strict-mills and morabaraba with three men a side in all, each
# against the naive solver; under the move-count rule (N = 10 and 20),
# standard 3-3 and the 3-4 unit against the naive (position, counter)
# solver (6.4 GB of memory for that one).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test integration -- --ignored
