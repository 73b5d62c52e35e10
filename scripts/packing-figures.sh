#!/usr/bin/env bash
# The figures of every packing of a solved raw folder, one row each, as the
# issue "One packed folder to ship" asks them for the whole standard game:
# bytes of sector files, bits per position, packing time, probes a second on
# one thread and on all (files warm, stored indices), the median first probe
# of a sector, and with --verify the time of `verify` of the whole folder.
# The page cache is dropped before each folder's probes when the script runs
# as root (the first probe is then cold), else the first probe is warm and
# the row says so. Resumable: a packing already there is kept (pack's own
# resume), and its row measured again. Hours on the whole game: run it in the
# background,
#   nohup scripts/packing-figures.sh ../dbs/standard ../dbs/packed > ../dbs/packing-figures.tsv 2> ../dbs/packing-figures.log &
# PACKINGS="default plain" restricts it to some rows (names below); RAW_ROW=no
# leaves out the raw folder's row (measured once, it takes minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
raw=${1:?usage: scripts/packing-figures.sh RAW_FOLDER OUT_FOLDER [--verify]}
out=${2:?usage: scripts/packing-figures.sh RAW_FOLDER OUT_FOLDER [--verify]}
verify=${3:-}
cargo build --release --quiet
mkdir -p "$out"
# A copy: rebuilding the checkout while this runs must not change it.
morris="$out/morris"
cp target/release/morris "$morris"
# name:flags of `pack` (the default first).
all="default: wdl:--wdl plain:--plain plain-wdl:--plain_--wdl zstd:--zstd wdl-zstd:--wdl_--zstd plain-zstd:--plain_--zstd plain-wdl-512:--plain_--wdl_--block-bytes_512"
wanted=${PACKINGS:-$(for p in $all; do printf '%s ' "${p%%:*}"; done)}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
cold() {
    if [ "$(id -u)" = 0 ]; then
        sync
        echo 3 > /proc/sys/vm/drop_caches
        echo cold
    else
        echo warm
    fi
}
# One row: name, flags, pack seconds, folder.
row() {
    local name=$1 flags=$2 packed=$3 folder=$4 state bench verified=""
    state=$(cold)
    bench=$("$morris" bench --probe "$folder")
    echo "$bench" >&2
    if [ "$verify" = --verify ]; then
        local started
        started=$(now)
        "$morris" verify --db "$folder" > /dev/null
        verified=$(since "$started")
    fi
    echo "$bench" | awk -v name="$name" -v flags="$flags" -v packed="$packed" -v state="$state" -v verified="$verified" '
        /bytes of sector files/ { bytes = $1; bits = $(NF - 3) }
        /first probe of a sector/ { first = $(NF - 2); sub(/,$/, "", first) }
        /stored indices/ { one = $4; all = $(NF - 2) }
        END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s %s\t%s\n", name, flags, bytes, bits, packed, one, all, first, state, verified }'
}
printf 'packing\tflags\tbytes\tbits_per_position\tpack_seconds\tprobes_per_s_one_thread\tprobes_per_s_all_threads\tfirst_probe_median\tverify_seconds\n'
if [ "${RAW_ROW:-yes}" != no ]; then
    row raw "" "" "$raw"
fi
for entry in $all; do
    name=${entry%%:*}
    flags=${entry#*:}
    flags=${flags//_/ }
    case " $wanted " in *" $name "*) ;; *) continue ;; esac
    started=$(now)
    # shellcheck disable=SC2086 # the flags are words
    "$morris" pack --db "$raw" --out "$out/$name" $flags > "$out/$name.pack.log"
    packed=$(since "$started")
    row "$name" "$flags" "$packed" "$out/$name"
done
