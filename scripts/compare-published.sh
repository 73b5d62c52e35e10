#!/usr/bin/env bash
# Compares a folder's win/loss/draw counts with the published ones of an
# independent solver (data/published-movement-wdl.tsv), for every sector the
# folder holds that the file lists. Usage: scripts/compare-published.sh [DB]
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-db}"
cargo build --release --quiet
target/release/morris stats --db "$db" --tsv |
  awk -F'\t' 'NR == FNR { if ($1 !~ /^#/ && $1 != "sector") want[$1] = $2 "\t" $3 "\t" $4; next }
              $1 in want { n++; got = $3 "\t" $4 "\t" $5
                           if (got == want[$1]) ok++; else print "DIFFERS " $1 ": ours " got ", published " want[$1] }
              END { printf "%d of %d listed sectors compared agree\n", ok, n; exit (ok != n) }' \
      data/published-movement-wdl.tsv -
