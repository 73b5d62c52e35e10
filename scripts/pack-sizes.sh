#!/usr/bin/env bash
# One tab-separated table of packed sizes per sector, in full and win/draw/loss
# only, from the logs of two `morris pack` runs:
#   scripts/pack-sizes.sh pack-losses.log pack-bits.log > data/standard-packed.tsv
# or from the folders themselves (a resumed pack's log lacks what an earlier
# run packed), the standard game's sectors unless VARIANT says:
#   scripts/pack-sizes.sh --folders ../dbs/standard ../dbs/packed/default ../dbs/packed/wdl > data/standard-packed-pairs.tsv
set -euo pipefail
cd "$(dirname "$0")/.."
printf 'sector\tpositions\traw_bytes\tfull_bytes\tfull_bits\twdl_bytes\twdl_bits\n'
if [ "${1:-}" = --folders ]; then
    raw=${2:?raw folder}
    full=${3:?folder packed in full}
    wdl=${4:?folder packed win/draw/loss only}
    cargo build --release --quiet
    size() { stat -c %s "$1/$2.mdb"; }
    # `sectors` prints: sector, positions, index (the positions stored), ...
    target/release/morris --variant "${VARIANT:-standard}" sectors --all |
        awk '$1 ~ /^[0-9]/ && $3 ~ /^[0-9]+$/ { print $1, $3 }' | sort |
        while read -r sector stored; do
            r=$(size "$raw" "$sector")
            f=$(size "$full" "$sector")
            w=$(size "$wdl" "$sector")
            awk -v s="$sector" -v n="$stored" -v r="$r" -v f="$f" -v w="$w" \
                'BEGIN { printf "%s\t%s\t%s\t%s\t%.3f\t%s\t%.3f\n", s, n, r, f, 8 * f / n, w, 8 * w / n }'
        done
    exit 0
fi
full="$1"
wdl="$2"
# pack prints: sector positions raw packed bits/pos, a header line and a summary.
join -t $'\t' \
  <(awk 'NF == 5 && $2 ~ /^[0-9]+$/ {print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5}' "$full" | sort) \
  <(awk 'NF == 5 && $2 ~ /^[0-9]+$/ {print $1 "\t" $4 "\t" $5}' "$wdl" | sort)
