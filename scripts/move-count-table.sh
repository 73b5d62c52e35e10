#!/usr/bin/env bash
# The move-count rule's effect per sector: how many positions with a fresh
# counter the rule turns from wins or losses into draws (the cursed wins and
# blessed losses at counter 0 of the answers' categories), from the
# per-sector tables of a folder without the rule and one under it (`stats
# --tsv` of each). Exact, not an estimate: a win under the rule is a win
# without it, so the difference of the counts is the number of positions
# that changed (tests/integration/move_count.rs checks both on six).
# Usage: scripts/move-count-table.sh PLAIN.tsv RULED.tsv > table.tsv
set -euo pipefail
plain="$1" ruled="$2"
awk -F'\t' -v OFS='\t' '
  NR == FNR { if ($1 != "sector") { w[$1] = $3; l[$1] = $4 }; next }
  FNR == 1 { print "sector", "positions", "wins", "losses", "draws", "cursed_wins", "blessed_losses"; next }
  !($1 in w) { print "missing from " FILENAME ": " $1 > "/dev/stderr"; exit 1 }
  { print $1, $2, $3, $4, $5, w[$1] - $3, l[$1] - $4
    tw += w[$1] - $3; tl += l[$1] - $4; n += $2 }
  END { print "total", n, "", "", "", tw, tl }' "$plain" "$ruled"
