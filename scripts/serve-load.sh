#!/usr/bin/env bash
# Load on `morris serve`, measured: six solved whole, raw and packed, served
# together; positions gathered by random walks through the API; then wrk
# (Debian's package) asks /api/probe for them, round robin, for DURATION
# seconds with CONNECTIONS open connections, once per folder, and prints
# requests per second and the latency percentiles. Not a test: figures for
# the README.
#
#   scripts/serve-load.sh [DURATION] [CONNECTIONS]     (default 10 s, 16)
#   PACK_FLAGS=--zstd scripts/serve-load.sh              (another packing)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
connections=${2:-16}
command -v wrk > /dev/null || { echo "serve-load: wrk is needed (apt-get install wrk)" >&2; exit 1; }
cargo build --release --quiet
morris=$PWD/target/release/morris
work=$(mktemp -d)
server=""
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$morris" --variant six solve --all --db "$work/six" --quiet > /dev/null
# shellcheck disable=SC2086 # the flags are words
"$morris" pack --db "$work/six" --out "$work/six-packed" ${PACK_FLAGS:-} > /dev/null 2>&1
"$morris" serve --db "$work/six" --db "$work/six-packed" --addr 127.0.0.1:0 > "$work/serving" &
server=$!
until [ -s "$work/serving" ]; do sleep 0.1; done
base=$(sed -n 's|.* at \(http://[^/]*\)/.*|\1|p' "$work/serving")
echo "serve-load: $(head -1 "$work/serving")"
# 2000 positions met in random games, as wrk requests (a Lua list).
python3 - "$base" > "$work/paths.lua" <<'PY'
import json, random, sys, urllib.parse, urllib.request
base = sys.argv[1]
random.seed(1)
seen = []
while len(seen) < 2000:
    position = ".../.../..../.../... w 6 6"
    for _ in range(40):
        seen.append(position)
        url = f"{base}/api/probe?{urllib.parse.urlencode({'position': position})}"
        moves = json.load(urllib.request.urlopen(url))["moves"]
        if not moves or len(seen) >= 2000:
            break
        position = random.choice(moves)["position"]
print("positions = {" + ",".join(json.dumps(urllib.parse.quote(p)) for p in seen) + "}")
PY
cat >> "$work/paths.lua" <<'LUA'
counter = 0
request = function()
    counter = counter + 1
    return wrk.format("GET", "/api/probe?db=" .. folder .. "&position=" .. positions[counter % #positions + 1])
end
LUA
for folder in six six-packed; do
    sed "1i folder = \"$folder\"" "$work/paths.lua" > "$work/$folder.lua"
    echo "serve-load: $folder, $connections connections, ${duration} s:"
    wrk -t2 -c"$connections" -d"${duration}s" --latency -s "$work/$folder.lua" "$base" \
        | grep -E "Requests/sec|Latency|50%|90%|99%|Non-2xx|Socket errors"
done
