#!/usr/bin/env bash
# The whole standard game, end to end: solve (resumable: run it again after an
# interruption), verify every sector, write the per-sector table, compare it
# with the published counts. Hours on two cores: run it in the background,
#   nohup scripts/whole-game.sh ../dbs/standard > ../dbs/whole-game.log 2>&1 &
# Each step prints its own time; the solve and verify logs are kept beside
# the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-../dbs/standard}"
cargo build --release --quiet
morris=target/release/morris
step() { echo "== $(date -u +%FT%TZ) $*"; }
step "solve --all into $db"
/usr/bin/time -v "$morris" solve --all --db "$db" 2> >(tee -a "$db.solve.log" >&2)
step "verify every sector"
/usr/bin/time -v "$morris" verify --db "$db" --resume | tee -a "$db.verify.log"
step "per-sector table"
"$morris" stats --db "$db" --tsv > data/standard-sectors.tsv
wc -l data/standard-sectors.tsv
step "published counts"
scripts/compare-published.sh "$db"
step "done"
