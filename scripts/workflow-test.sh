#!/usr/bin/env bash
# The Snakemake workflow (workflow/Snakefile) on the real engine, with
# --cores 2: six whole, Lasker's sectors up to 2+2-2+2 (placement units with
# moves inside), Morabaraba's up to 2+2-2+2 and six packed as they go (six
# with its win/draw/loss folder too, and given it only once the units are
# done), each folder byte for byte what `morris solve` writes; pack_wdl
# without pack refused; then a job killed in the
# middle of its unit and the workflow run again, which must give the same
# files. CI runs it.
#
#   scripts/workflow-test.sh            (snakemake on the PATH, or SNAKEMAKE=...)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
snakemake=${SNAKEMAKE:-snakemake}
# The jobs run in a temporary folder: a relative path must be made absolute.
case $snakemake in
    */*) snakemake=$(realpath "$snakemake") ;;
esac
cargo build --release --quiet
export PATH="$repo/target/release:$PATH"
work=$(mktemp -d)
trap 'pkill -f "morris.*--db $work" 2>/dev/null || true; rm -rf "$work"' EXIT
flow() { (cd "$work" && "$snakemake" -s "$repo/workflow/Snakefile" --cores 2 --quiet "$@"); }
same() {
    if ! diff -r "$1" "$2" > /dev/null; then
        echo "workflow-test: $1 and $2 differ:"
        diff -rq "$1" "$2" || true
        exit 1
    fi
    echo "workflow-test: $1 is $2 byte for byte"
}

flow --config db="$work/six" variant=six
morris --variant six solve --all --db "$work/six-solve" --quiet
same "$work/six" "$work/six-solve"

flow --config db="$work/lasker" variant=lasker sectors=2+2-2+2
morris --variant lasker solve --sectors 2+2-2+2 --db "$work/lasker-solve" --quiet
same "$work/lasker" "$work/lasker-solve"

# Morabaraba's sectors up to 2+2-2+2 (placement units and the flying 3-3 with
# its diagonal mills), packed as they go, as the whole game is run.
flow --config db="$work/mora-raw" variant=morabaraba sectors=2+2-2+2 pack="$work/mora"
morris --variant morabaraba solve --sectors 2+2-2+2 --db "$work/mora-raw-solve" \
    --pack "$work/mora-solve" --quiet
same "$work/mora" "$work/mora-solve"
same "$work/mora-raw" "$work/mora-raw-solve"

flow --config db="$work/six-raw" variant=six pack="$work/six-packed" pack_wdl="$work/six-wdl"
morris --variant six solve --all --db "$work/six-raw-solve" --pack "$work/six-packed-solve" \
    --pack-wdl "$work/six-wdl-solve" --quiet
same "$work/six-packed" "$work/six-packed-solve"
same "$work/six-wdl" "$work/six-wdl-solve"
same "$work/six-raw" "$work/six-raw-solve"

# pack_wdl given once the units are done (packed without it): the workflow's
# last step decodes the win/draw/loss folder, as solve's catch-up does.
flow --config db="$work/late-raw" variant=six pack="$work/late-packed"
flow --config db="$work/late-raw" variant=six pack="$work/late-packed" pack_wdl="$work/late-wdl"
same "$work/late-wdl" "$work/six-wdl-solve"

# pack_wdl without pack: refused as the workflow is read, not by each job.
if flow --config db="$work/lone-wdl" variant=six pack_wdl="$work/lone-wdl-packed" \
    > "$work/lone-wdl.log" 2>&1; then
    echo "workflow-test: pack_wdl without pack was not refused"
    exit 1
fi
grep -q "give both" "$work/lone-wdl.log"
[ ! -e "$work/lone-wdl" ]
echo "workflow-test: pack_wdl without pack is refused as the workflow is read"

# A job killed with SIGKILL in the middle of a unit of seconds (4-5 + 5-4,
# 21 M positions; its lock file shows it was still at work): the
# workflow fails; run again, it solves what is left and the files are those
# of a solve that was never stopped.
flow --config db="$work/killed" max_men=9 > "$work/killed.log" 2>&1 &
engine=$!
victim=""
for _ in $(seq 1 600); do
    victim=$(pgrep -f "morris solve --db $work/killed --unit 4-5" || true)
    [ -n "$victim" ] && break
    sleep 0.05
done
[ -n "$victim" ] || { echo "workflow-test: the unit 4-5 never started"; cat "$work/killed.log"; exit 1; }
# Killed half a second after it took its unit's lock (the unit takes
# seconds), while the lock is still held.
for _ in $(seq 1 600); do
    [ -e "$work/killed/4-5.lock" ] && break
    sleep 0.01
done
sleep 0.5
kill -9 $victim || { echo "workflow-test: the unit ended before it could be killed"; exit 1; }
ls "$work/killed/4-5.lock" > /dev/null
if wait $engine; then
    echo "workflow-test: the workflow succeeded with a job killed"
    exit 1
fi
echo "workflow-test: a job killed, the workflow stopped; running it again"
flow --config db="$work/killed" max_men=9 --rerun-incomplete
morris solve --max-men 9 --db "$work/killed-solve" --quiet
same "$work/killed" "$work/killed-solve"
echo "workflow-test: every workflow run gave the files of a plain solve"
