#!/usr/bin/env bash
# The whole standard game, end to end: solve (resumable: run it again after an
# interruption), verify every sector, write the per-sector table, compare it
# with the published counts. Hours on two cores: run it in the background,
#   nohup scripts/whole-game.sh ../dbs/standard > ../dbs/whole-game.log 2>&1 &
# With a second argument N, the same under the move-count rule of N plies,
# its table compared with the one without the rule (data/standard-sectors.tsv):
#   nohup scripts/whole-game.sh ../dbs/standard-n100 100 > ../dbs/whole-game-n100.log 2>&1 &
# Each step prints its own time; the solve and verify logs are kept beside
# the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-../dbs/standard}"
n="${2:-}"
cargo build --release --quiet
# A copy: rebuilding the checkout while this runs must not change it.
morris="$db.morris"
cp target/release/morris "$morris"
rule=()
table=data/standard-sectors.tsv
if [ -n "$n" ]; then
  rule=(--n-move "$n")
  table="data/standard-n$n-sectors.tsv"
fi
step() { echo "== $(date -u +%FT%TZ) $*"; }
step "solve --all into $db"
/usr/bin/time -v "$morris" "${rule[@]}" solve --all --db "$db" 2> >(tee -a "$db.solve.log" >&2)
step "verify every sector"
/usr/bin/time -v "$morris" verify --db "$db" --resume | tee -a "$db.verify.log"
step "per-sector table"
"$morris" stats --db "$db" --tsv > "$table"
wc -l "$table"
if [ -z "$n" ]; then
  step "published counts"
  scripts/compare-published.sh "$db"
else
  step "what the rule turns into draws"
  scripts/move-count-table.sh data/standard-sectors.tsv "$table" > "data/standard-n$n-draws.tsv"
  tail -1 "data/standard-n$n-draws.tsv"
fi
step "done"
