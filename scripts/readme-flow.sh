#!/usr/bin/env bash
# The README's first session, command by command, as a new user runs it in a
# fresh clone: fails if any of them fails. CI runs it after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
morris() { target/release/morris "$@"; }
# The main job (README, "A first session"), into a folder of its own.
morris solve --db "$work/db"
# Then ask the database, as the first session does.
morris probe --db "$work/db" 'WBW/.../.../W...../.../.../BB. w 0 0' --line
morris probe --db "$work/db" --json 'WBW/.../.../W...../.../.../BBB w 0 0'
printf 'WBW/.../.../W...../.../.../BB. w 0 0\n' | morris probe --db "$work/db" --batch - --json
morris play --db "$work/db" --human none --seed 1 --from 'WBW/.../.../W...../.../.../BB. w 0 0'
morris stats --db "$work/db" > /dev/null
# A whole small game, in its own folder; the folder knows its variant.
morris --variant six solve --all --db "$work/six"
morris play --db "$work/six" --human none --seed 1 > /dev/null
echo "readme flow: every command succeeded"
