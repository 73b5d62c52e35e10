#!/usr/bin/env bash
# The figures of a long `solve --pack` run from its log, over all its
# resumes (the log of scripts/whole-variant.sh, appended to at each resume):
# how many times it was started, the units and positions solved, the time
# spent in units and in packing (and, where the log tells it, in each
# unit's two phases), the peak memory, the peak disk the log tells, and the
# largest units with their times.
#   scripts/run-summary.sh ../dbs/morabaraba.log [LARGEST]
# A unit solved twice (its first run interrupted after its line) counts once.
set -euo pipefail
log="${1:?usage: scripts/run-summary.sh LOG [LARGEST]}"
largest="${2:-5}"
awk -v largest="$largest" '
# Seconds of a Rust duration as printed: 49.86s, 106.66ms, 1.2µs, 300ns.
function seconds(d) {
  # sub, not substr: "µ" is two bytes to mawk and one character to gawk.
  if (sub(/ms$/, "", d)) return d / 1e3
  if (sub(/µs$/, "", d)) return d / 1e6
  if (sub(/ns$/, "", d)) return d / 1e9
  sub(/s$/, "", d)
  return d + 0
}
function gb(text,   n) {
  n = text + 0
  if (text ~ /TB/) return n * 1e3
  if (text ~ /MB/) return n / 1e3
  return n
}
/^[0-9]+ units \(/ { starts++ }
/^solved .*: [0-9]+ positions in / {
  unit = $2; sub(/:$/, "", unit)
  # "solved A + B: N positions in T (...)": the unit is up to the colon.
  line = $0
  sub(/^solved /, "", line)
  name = substr(line, 1, index(line, ":") - 1)
  rest = substr(line, index(line, ":") + 2)
  split(rest, f, " ")
  if (name in seen) next
  seen[name] = 1
  units++; positions += f[1]; t = seconds(f[4]); unit_time += t
  sizes[name] = f[1]; times[name] = t
  if (match(line, /[0-9]+ MiB in use/)) {
    mib = substr(line, RSTART, RLENGTH) + 0
    if (mib > peak_mib) { peak_mib = mib; peak_unit = name }
  }
  # Since 2026-12-07: the time of the first phase (children counted, the moves
  # leaving the unit valued) and the levels after it.
  if (match(line, /children counted in [^,]+, then [0-9]+ levels/)) {
    split(substr(line, RSTART, RLENGTH), p, /[ ,]+/)
    counted[name] = seconds(p[4]); levels[name] = p[6]
    phased_time += t; counted_time += counted[name]
  }
  if (match(line, /held at most [0-9.]+ [MGT]B so far/)) {
    held = gb(substr(line, RSTART + 13, RLENGTH - 13 - 7))
    if (held > peak_disk) peak_disk = held
  }
}
/^packed .* in [0-9.]+[^ ]*s / {
  for (i = 1; i <= NF; i++) if ($i == "in") d = $(i + 1)
  packing += seconds(d)
}
/the folders held at most [0-9.]+ [MGT]B together/ {
  match($0, /held at most [0-9.]+ [MGT]B/)
  held = gb(substr($0, RSTART + 13, RLENGTH - 13))
  if (held > peak_disk) peak_disk = held
}
END {
  printf "starts of the solve: %d (resumed %d times)\n", starts, (starts > 0 ? starts - 1 : 0)
  printf "units solved: %d, %.0f positions\n", units, positions
  printf "time in units: %.0f s (%.2f h), %.2f M positions/s; in packing: %.0f s\n", \
    unit_time, unit_time / 3600, (unit_time > 0 ? positions / unit_time / 1e6 : 0), packing
  if (phased_time > 0)
    printf "of the units whose log tells their phases (%.0f s): %.0f%% counting children, the rest in levels\n", \
      phased_time, 100 * counted_time / phased_time
  if (peak_mib) printf "peak memory of a unit: %d MiB (%s)\n", peak_mib, peak_unit
  if (peak_disk) printf "peak disk the log tells: %.3f GB (packing along, after a unit)\n", peak_disk
  else print "peak disk: not in this log (its lines predate the figure)"
  printf "largest units:\n"
  n = 0
  for (name in sizes) order[++n] = name
  for (i = 1; i <= n; i++)            # insertion sort by size, largest first
    for (j = i; j > 1 && sizes[order[j]] > sizes[order[j - 1]]; j--) {
      tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp
    }
  for (i = 1; i <= n && i <= largest; i++) {
    name = order[i]
    phases = (name in counted) ? sprintf(", children counted in %.1f s, then %d levels", \
      counted[name], levels[name]) : ""
    printf "  %s: %.0f positions in %.1f s (%.2f M/s%s)\n", name, sizes[name], \
      times[name], (times[name] > 0 ? sizes[name] / times[name] / 1e6 : 0), phases
  }
}' "$log"
