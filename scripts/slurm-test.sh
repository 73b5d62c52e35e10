#!/usr/bin/env bash
# The workflow through a real Slurm: installs Debian's slurm-wlm and munge,
# starts a one-node cluster on this machine (munged, slurmctld and slurmd,
# with a configuration written here), runs workflow/Snakefile on six with
# Snakemake's Slurm executor, checks the folder byte for byte against
# `morris solve --all`, and stops the cluster. Needs root (packages and
# daemons); Snakemake and its Slurm plugin go into a virtual environment
# under target/.
#
#   sudo scripts/slurm-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ "$(id -u)" = 0 ] || { echo "slurm-test: run as root: it installs packages and starts daemons" >&2; exit 2; }
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge > /dev/null
fi
venv=target/slurm-venv
if [ ! -x "$venv/bin/snakemake" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'snakemake>=9,<10' snakemake-executor-plugin-slurm
fi
cargo build --release --quiet
export PATH="$repo/target/release:$PATH"

work=$(mktemp -d /tmp/morris-slurm.XXXXXX)
chmod 755 "$work"
host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
stop() {
    # Only the cluster this script started: never a real one's jobs.
    [ -n "${wrote_conf:-}" ] && scancel --full --quiet --user root 2> /dev/null || true
    [ -f "$work/slurmd.pid" ] && kill "$(cat "$work/slurmd.pid")" 2> /dev/null || true
    [ -f "$work/slurmctld.pid" ] && kill "$(cat "$work/slurmctld.pid")" 2> /dev/null || true
    [ -f "$work/munged.pid" ] && kill "$(cat "$work/munged.pid")" 2> /dev/null || true
    sleep 1
    [ -n "${wrote_conf:-}" ] && rm -f /etc/slurm/slurm.conf
    rm -rf "$work"
}
trap stop EXIT

# munge: a key of its own, a socket in the work folder.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
    --pid-file="$work/munged.pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed"
export MUNGE_SOCKET="$work/munge/socket"

# One node, this machine, all its cores and most of its memory. The
# configuration goes where every Slurm command looks for it (srun inside a
# job reads no SLURM_CONF), and only where none is: a real cluster's stays.
conf=/etc/slurm/slurm.conf
{ [ -e "$conf" ] || [ -L "$conf" ]; } && { echo "slurm-test: $conf exists: this machine has a Slurm of its own" >&2; exit 2; }
mkdir -p /etc/slurm "$work/ctld" "$work/spool"
wrote_conf=1
cat > "$conf" <<CONF
ClusterName=morris-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld
slurmd
for _ in $(seq 1 60); do
    sinfo --noheader --states=idle 2> /dev/null | grep -q main && break
    sleep 1
done
sinfo
sinfo --noheader --states=idle | grep -q main || { echo "slurm-test: the node never came up"; cat "$work/slurmctld.log" "$work/slurmd.log"; exit 1; }

# The workflow through Slurm: one job per unit, submitted with sbatch.
cd "$work"
# The project's profile, with what a cluster without accounting needs.
started=$(date +%s)
"$repo/$venv/bin/snakemake" -s "$repo/workflow/Snakefile" --profile "$repo/workflow/profiles/slurm" \
    --slurm-status-command squeue --slurm-no-account --latency-wait 5 --quiet --config db="$work/six" variant=six morris="$repo/target/release/morris" || {
    echo "slurm-test: the workflow failed; the logs of its jobs and daemons:"
    find "$work/.snakemake/slurm_logs" -name '*.log' -exec tail -n 20 {} + || true
    tail -n 30 "$work/slurmctld.log" "$work/slurmd.log"
    exit 1
}
morris --variant six solve --all --db "$work/six-solve" --quiet
jobs=$(ls "$work/six.jobs" | wc -l)
seconds=$(( $(date +%s) - started ))
diff -r "$work/six" "$work/six-solve"
echo "slurm-test: $jobs Slurm jobs in $seconds s wrote six byte for byte as morris solve --all"
