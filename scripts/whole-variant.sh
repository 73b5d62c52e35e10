#!/usr/bin/env bash
# A whole game of a variant too large for its raw files (Morabaraba, Lasker),
# end to end, packed as it is solved: solve (resumable: run it again after an
# interruption), then the results the issue asks for, each step printing its
# time:
#   - data/VARIANT-sectors.tsv: per sector, positions, wins, losses, draws,
#     the longest win and loss (the columns of data/standard-sectors.tsv);
#   - data/VARIANT-start.txt: the start's value and every first move's;
#   - the win/draw/loss folder, packed as it goes beside the full values;
#   - the sizes of both, and the longest wins;
#   - verify --sample of every sector (a full check does not fit the time).
# Hours to days on two cores: run it in the background, at low priority,
#   LOG=../dbs/morabaraba.log nohup nice -n 19 scripts/whole-variant.sh morabaraba ../dbs >> ../dbs/morabaraba.log 2>&1 &
# (LOG names the log it appends to: its figures over the resumes end it,
# from scripts/run-summary.sh.)
# The tables go into data/ (DATA=DIR elsewhere, e.g. for a trial on six).
# Folders: DBS/VARIANT-raw (the raw files still read), DBS/VARIANT (packed,
# the full values), DBS/VARIANT-wdl (win/draw/loss only); a relative DBS is
# taken from the checkout's root (default ../dbs, beside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:?usage: scripts/whole-variant.sh VARIANT [DBS] [SAMPLE]}"
dbs="${2:-../dbs}"
# A sampled position of a packed folder is checked by a search two plies
# deep, each value read from its chunk, after its file's block checksums:
# 60,000 of standard's 7-7, 6-8 and 5-9 in 2.2 s on two cores (2-core EPYC),
# 56 µs a position in Morabaraba's. 20,000 in each of its 1,216 sectors: about
# half an hour.
sample="${3:-20000}"
data="${DATA:-data}"
mkdir -p "$data" "$dbs"
raw="$dbs/$variant-raw"
packed="$dbs/$variant"
wdl="$dbs/$variant-wdl"
cargo build --release --quiet
# A copy: rebuilding the checkout while this runs must not change it.
# Renamed into place: a copy over a binary a killed start left running
# would fail ("Text file busy").
morris="$dbs/$variant.morris"
cp target/release/morris "$morris.new"
mv -f "$morris.new" "$morris"
step() { echo "== $(date -u +%FT%TZ) $*"; }

step "solve --all into $raw, packed as it goes into $packed and $wdl"
/usr/bin/time -v "$morris" --variant "$variant" solve --all --db "$raw" --pack "$packed" \
  --pack-wdl "$wdl"

step "per-sector table"
table="$data/$variant-sectors.tsv"
"$morris" stats --db "$packed" --tsv > "$table"
wc -l "$table"
tail -1 "$table"

step "the start and its first moves"
"$morris" probe --db "$packed" start | tee "$data/$variant-start.txt"

step "the longest wins"
# sed, not head: head leaving early would stop sort with SIGPIPE, and
# pipefail the script.
sort -t$'\t' -k6,6nr "$table" | sed -n 1,5p

step "sizes"
for folder in "$packed" "$wdl"; do
  bytes=$(find "$folder" -name '*.mdb' -printf '%s\n' | awk '{s += $1} END {print s}')
  echo "$folder: $bytes bytes of sector files ($(du -sh "$folder" | cut -f1) with the stored indices)"
done

step "verify --sample $sample of every sector"
/usr/bin/time -v "$morris" verify --db "$packed" --sample "$sample"

if [[ -n "${LOG:-}" ]]; then
  step "the run's figures over its resumes, from $LOG"
  scripts/run-summary.sh "$LOG" 10
fi

step "done"
