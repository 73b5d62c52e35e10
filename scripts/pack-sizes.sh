#!/usr/bin/env bash
# One tab-separated table of the sizes two `morris pack` runs printed, in
# full (the losses) and win/draw/loss only (the loss bits), per sector:
#   scripts/pack-sizes.sh pack-losses.log pack-bits.log > data/standard-packed.tsv
set -euo pipefail
full="$1"
wdl="$2"
printf 'sector\tpositions\traw_bytes\tfull_bytes\tfull_bits\twdl_bytes\twdl_bits\n'
# pack prints: sector positions raw packed bits/pos, a header line and a summary.
join -t $'\t' \
  <(awk 'NF == 5 && $2 ~ /^[0-9]+$/ {print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5}' "$full" | sort) \
  <(awk 'NF == 5 && $2 ~ /^[0-9]+$/ {print $1 "\t" $4 "\t" $5}' "$wdl" | sort)
