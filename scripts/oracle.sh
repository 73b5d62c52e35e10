#!/usr/bin/env bash
# The long oracle comparisons kept out of the default test run, each the
# full size of a kind of check the suite runs smaller: the 3-4/4-3 unit of
# standard, strict-mills and no-flying, the whole movement phase of six, and
# standard, strict-mills, morabaraba and Lasker with three men a side in
# all, each against the naive solver; under the move-count rule (N = 10 and
# 20), standard 3-3 and the 3-4 unit against the naive (position, counter)
# solver (6.4 GB of memory for that one); every packing of standard up to 8
# men, damaged files of predicted loss bits and small blocks, small blocks
# probed one position in 13, answers on standard up to 8 men, probes with
# their moves one position in 10, every position of six under the rule of
# 100, the fast check on standard up to 8 men.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test integration -- --ignored
