#!/usr/bin/env bash
# Two builds of morris against each other: the same solves and packings by
# each, every file compared byte for byte (`cmp`), then `bench` and
# `bench --probe` by each, alternating, so that a redesign can show it kept
# the files and the speed.
#
#   scripts/compare-builds.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# WORK_DIR (default: a temporary folder) receives old/ and new/ with a
# folder per solve; about 0.5 GB. Exit status 1 if any file differs.
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"

# What each build makes: the default solve (standard's movement sectors up
# to 10 men), six whole, six whole under a rule of 20 plies, and each
# packing of them.
make_folders() {
    local bin=$1 out=$2
    rm -rf "$out" && mkdir -p "$out"
    "$bin" solve --db "$out/standard"
    "$bin" solve --variant six --all --db "$out/six"
    "$bin" solve --variant six --n-move 20 --all --db "$out/six-rule"
    "$bin" pack --db "$out/standard" --out "$out/standard-losses"
    "$bin" pack --db "$out/standard" --plain --out "$out/standard-plain"
    "$bin" pack --db "$out/standard" --plain --wdl --block-bytes 512 --out "$out/standard-wdl-512"
    "$bin" pack --db "$out/standard" --wdl --out "$out/standard-wdl"
    "$bin" pack --db "$out/six" --out "$out/six-losses"
    "$bin" pack --db "$out/six-rule" --out "$out/six-rule-packed"
}

make_folders "$old" old > old.log 2>&1
make_folders "$new" new > new.log 2>&1

differ=0
compared=0
while IFS= read -r -d '' f; do
    rel=${f#old/}
    compared=$((compared + 1))
    if [ ! -f "new/$rel" ]; then
        echo "only in old: $rel"
        differ=1
    elif ! cmp -s "$f" "new/$rel"; then
        echo "differs: $rel"
        differ=1
    fi
done < <(find old -type f -print0)
while IFS= read -r -d '' f; do
    rel=${f#new/}
    [ -f "old/$rel" ] || { echo "only in new: $rel"; differ=1; }
done < <(find new -type f -print0)
echo "files compared: $compared; differ: $differ"

# Random positions of the standard movement sectors up to 10 men, for the
# probes (the same file for both builds, so their answers are compared too).
python3 - > positions.txt <<'PY'
import random
random.seed(7)
ranks = [3, 3, 3, 6, 3, 3, 3]
for _ in range(300000):
    while True:
        w, b = random.randint(3, 7), random.randint(3, 7)
        if w + b <= 10:
            break
    cells = ['.'] * 24
    taken = random.sample(range(24), w + b)
    for p in taken[:w]:
        cells[p] = 'W'
    for p in taken[w:]:
        cells[p] = 'B'
    at, rows = 0, []
    for r in ranks:
        rows.append(''.join(cells[at:at + r]))
        at += r
    print('/'.join(rows), random.choice('wb'), 0, 0)
PY

# Speed: each build twice, alternating. The solve's rates from `bench`;
# probes timed through `probe --batch` (the bench's own probe timing changed
# with the redesign, the batch command did not).
for round in 1 2; do
    for which in old new; do
        bin=${!which}
        echo "== round $round, $which: bench --max-men 9"
        "$bin" bench --max-men 9 2>&1 | grep -E '^(total|placement):'
        for folder in standard standard-losses standard-plain standard-wdl-512; do
            /usr/bin/time -f "== round $round, $which: probe --batch on $folder: %e s, %U s user" \
                "$bin" probe --db "old/$folder" --batch positions.txt > "answers-$which-$folder.txt"
        done
    done
done 2>&1
for folder in standard standard-losses standard-plain standard-wdl-512; do
    if cmp -s "answers-old-$folder.txt" "answers-new-$folder.txt"; then
        echo "probe --batch on $folder: the same answers"
    else
        echo "probe --batch on $folder: the answers differ"
        differ=1
    fi
done
exit $differ
