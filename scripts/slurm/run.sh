#!/usr/bin/env bash
# A real cluster test of `lnetsim sweep`: installs Slurm and MUNGE from the distribution's
# packages (when missing), starts a one-node Slurm on localhost (munged, slurmctld, slurmd,
# all private to this script: own config, key, socket, ports, state and logs under $WORK),
# submits scripts/slurm/sweep.yaml as the job array that `lnetsim sweep emit slurm` prints,
# merges the shards, and asserts the merged aggregate.csv equals a local `sweep run` + merge
# of the same file byte for byte. See scripts/slurm/README.md.
#
# Usage: bash scripts/slurm/run.sh            (as root, or with Slurm and MUNGE installed)
# Environment: SHARDS (array tasks, default 3), LNETSIM_SLURM_DIR (work directory, default
# ${TMPDIR:-/tmp}/lnetsim-slurm; removed and made anew on each run), SLURM_TIMEOUT (seconds
# the job array may take, default 180), SLURM_PORT_BASE (slurmctld's port; slurmd's is the
# next one; default 16817).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

SWEEP=$ROOT/scripts/slurm/sweep.yaml
SHARDS=${SHARDS:-3}
WORK=${LNETSIM_SLURM_DIR:-${TMPDIR:-/tmp}/lnetsim-slurm}
JOB_TIMEOUT=${SLURM_TIMEOUT:-180}
PORT=${SLURM_PORT_BASE:-16817}
# Every process this script starts (daemons, sbatch, the jobs' lnetsim) inherits this marker,
# so cleanup finds exactly ours, also those a previous, killed run left behind; slurmstepd,
# which rewrites its environment, is known by its open log file under $WORK.
export LNETSIM_SLURM_MARKER="$WORK"
OURS='munged|slurmctld|slurmd|slurmscriptd|slurmstepd|lnetsim|sbatch|timeout'

t0=$SECONDS
LOCKED=
log() { printf '[slurm %3ds] %s\n' "$((SECONDS - t0))" "$*"; }

# show_logs prints the tail of every daemon and job log, to say why something failed.
show_logs() {
  local f
  for f in "$WORK"/log/*.log "$WORK"/out/slurm-*.out; do
    [ -f "$f" ] || continue
    printf -- '--- %s (last 30 lines)\n' "$f"
    tail -n 30 "$f" || true
  done
}

die() {
  printf 'scripts/slurm/run.sh: FAILED: %s\n' "$*" >&2
  [ -z "$LOCKED" ] || show_logs >&2
  exit 1
}

# our_pids lists the processes of ours (see LNETSIM_SLURM_MARKER) that are still alive.
our_pids() {
  local d pid comm
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] || continue
    comm=
    { read -r comm <"$d/comm"; } 2>/dev/null || continue
    [[ $comm =~ ^($OURS)$ ]] || continue
    if { tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qxF "LNETSIM_SLURM_MARKER=$WORK"; then
      echo "$pid"
    elif [ "$comm" = slurmstepd ] &&
      find "$d/fd" -mindepth 1 -maxdepth 1 -lname "$WORK/*" 2>/dev/null | grep -q .; then
      echo "$pid"
    fi
  done
}

# stop_ours ends our processes: TERM, up to 10 s for them to exit, then KILL.
stop_ours() {
  local pids i
  pids=$(our_pids)
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 1 50); do
    pids=$(our_pids)
    [ -n "$pids" ] || return 0
    sleep 0.2
  done
  log "still running after SIGTERM, killing: $(echo $pids)"
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  sleep 0.5
}

POLICY_RC_ADDED=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$LOCKED" ]; then # else the processes under $WORK are another run's
    if [ -n "$JOBNAME" ] && [ -f "${SLURM_CONF:-}" ]; then
      timeout 10 scancel --quiet --name="$JOBNAME" >/dev/null 2>&1 || true
    fi
    stop_ours
  fi
  if [ -n "$POLICY_RC_ADDED" ]; then rm -f /usr/sbin/policy-rc.d; fi
  if [ -n "$LOCKED" ] && [ -n "$(our_pids)" ]; then
    echo "scripts/slurm/run.sh: could not stop: $(our_pids | tr '\n' ' ')" >&2
    rc=1
  fi
  exit "$rc"
}
JOBNAME=
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Slurm and MUNGE from the distribution's packages --------------------------------------
need=(munged slurmctld slurmd sbatch sinfo scontrol scancel)
missing=()
for c in "${need[@]}"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing slurmctld slurmd slurm-client munge (missing: ${missing[*]})"
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "Slurm is not installed (missing: ${missing[*]}) and this is not root with apt-get: install slurmctld, slurmd, slurm-client and munge"
  fi
  # The packages' maintainer scripts must not start system daemons: ours are private.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    POLICY_RC_ADDED=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  aptlog=${TMPDIR:-/tmp}/lnetsim-slurm-apt.log
  apt-get update -qq >"$aptlog" 2>&1 || { tail -n 20 "$aptlog" >&2; die "apt-get update failed"; }
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >>"$aptlog" 2>&1 \
    || { tail -n 20 "$aptlog" >&2; die "apt-get install slurmctld slurmd slurm-client munge failed"; }
  if [ -n "$POLICY_RC_ADDED" ]; then rm -f /usr/sbin/policy-rc.d; POLICY_RC_ADDED=; fi
  for c in "${need[@]}"; do command -v "$c" >/dev/null 2>&1 || die "$c still missing after the install"; done
fi
log "$(slurmctld -V), $(munged --version 2>&1 | awk '{print $1; exit}')"

# --- a fresh work directory, after ending what an earlier run may have left -----------------
# One run at a time per work directory: the lock is held by this shell only (every process
# started in the background closes fd 9), so a run that was killed leaves it free.
exec 9>"$WORK.lock"
flock -n 9 || die "another scripts/slurm/run.sh is using $WORK (lock $WORK.lock held)"
LOCKED=1
left=$(our_pids | tr '\n' ' ')
if [ -n "$left" ]; then
  log "ending processes an earlier, killed run left behind: $left"
  stop_ours
fi
[ -z "$(our_pids)" ] || die "processes of an earlier run are still alive: $(our_pids | tr '\n' ' ')"
# Only a directory this script made (it holds .lnetsim-slurm, or our slurm.conf) or an empty
# one is emptied.
if [ -d "$WORK" ] && [ ! -e "$WORK/.lnetsim-slurm" ] && [ -n "$(ls -A "$WORK")" ] &&
  ! grep -qs '^# written by scripts/slurm/run.sh' "$WORK/slurm.conf"; then
  printf 'scripts/slurm/run.sh: FAILED: %s exists and was not made by this script: not removing it (set LNETSIM_SLURM_DIR)\n' "$WORK" >&2
  exit 1
fi
rm -rf "$WORK"
mkdir -p "$WORK"/{bin,munge,state,spool,run,log,out}
touch "$WORK/.lnetsim-slurm"
chmod 700 "$WORK/munge" # the key; the socket is in run/, open to all as munged wants

log "building lnetsim"
go build -o "$WORK/bin/lnetsim" ./cmd/lnetsim || die "go build ./cmd/lnetsim failed"
export PATH="$WORK/bin:$PATH"

# --- MUNGE: a key, socket, pid, seed and log of our own ------------------------------------
(umask 077 && head -c 1024 /dev/urandom >"$WORK/munge/munge.key")
MUNGE_SOCKET=$WORK/run/munge.socket
log "starting munged"
munged --force --foreground --socket="$MUNGE_SOCKET" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/run/munged.pid" --seed-file="$WORK/munge/munged.seed" \
  --log-file="$WORK/log/munged.log" </dev/null >>"$WORK/log/munged.stdout.log" 2>&1 9>&- &
munged=$!
for i in $(seq 1 50); do
  [ -S "$MUNGE_SOCKET" ] && break
  kill -0 "$munged" 2>/dev/null || die "munged exited"
  sleep 0.1
done
[ -S "$MUNGE_SOCKET" ] || die "munged did not create its socket $MUNGE_SOCKET"
munge --socket="$MUNGE_SOCKET" -n </dev/null | unmunge --socket="$MUNGE_SOCKET" >/dev/null \
  || die "munge/unmunge round trip through $MUNGE_SOCKET failed"

# --- Slurm: one node, localhost, everything under $WORK ------------------------------------
# The node's hardware as slurmd sees it (CPUs, sockets, cores, threads), so it is not drained
# for a mismatch; memory left at the default.
hw=$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
[ -n "$hw" ] || hw="CPUs=$(nproc)"
export SLURM_CONF=$WORK/slurm.conf
cat >"$SLURM_CONF" <<EOF
# written by scripts/slurm/run.sh
ClusterName=lnetsim-ci
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# No cgroup.conf is read with proctrack/linuxproc and task/none.

log "starting slurmctld and slurmd (ports $PORT, $((PORT + 1)))"
slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$WORK/log/slurmctld.stdout.log" 2>&1 9>&- &
ctld=$!
slurmd -D -N localhost -f "$SLURM_CONF" </dev/null >>"$WORK/log/slurmd.stdout.log" 2>&1 9>&- &
slurmd=$!

state=
for i in $(seq 1 120); do
  kill -0 "$ctld" 2>/dev/null || die "slurmctld exited (see $WORK/log/slurmctld.log)"
  kill -0 "$slurmd" 2>/dev/null || die "slurmd exited (see $WORK/log/slurmd.log)"
  state=$(timeout 5 sinfo -h -n localhost -o '%T' 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || die "the node did not become idle within 60 s (sinfo says '${state:-nothing}')"
log "node localhost is idle"

# --- the sweep as a job array --------------------------------------------------------------
OUT=$WORK/out
lnetsim sweep emit slurm "$SWEEP" --out "$OUT" --shards "$SHARDS" >"$WORK/job.sh" \
  || die "lnetsim sweep emit slurm failed"
JOBNAME=$(sed -n 's/^#SBATCH --job-name=//p' "$WORK/job.sh")
log "submitting $SHARDS array tasks (job name $JOBNAME)"
# In the background and waited for, so that a signal to this script is handled at once.
(cd "$WORK" && exec 9>&- && exec timeout "$JOB_TIMEOUT" sbatch --wait --parsable --chdir="$WORK" \
  --output="$OUT/slurm-%A_%a.out" "$WORK/job.sh") >"$WORK/jobid" 2>"$WORK/log/sbatch.log" </dev/null &
rc=0
wait $! || rc=$?
jobid=$(head -n 1 "$WORK/jobid" 2>/dev/null || true)
case $rc in
  0) ;;
  124) die "job array $jobid did not finish within $JOB_TIMEOUT s" ;;
  *) die "job array $jobid failed (sbatch --wait exit $rc: $(tr '\n' ' ' <"$WORK/log/sbatch.log"))" ;;
esac
log "job array $jobid done"

# Each task ran its own shard, told by Slurm's array variables, on the cluster.
for ((i = 0; i < SHARDS; i++)); do
  f=$OUT/slurm-${jobid}_$i.out
  [ -f "$f" ] || die "no output from array task $i ($f)"
  grep -q "shard $i/$SHARDS (SLURM_ARRAY_TASK_ID)" "$f" \
    || die "array task $i did not run shard $i/$SHARDS from SLURM_ARRAY_TASK_ID: $(cat "$f")"
done

lnetsim sweep merge "$SWEEP" --out "$OUT" >/dev/null || die "lnetsim sweep merge of the shards failed"

# --- the same sweep locally, and the comparison ---------------------------------------------
LOCAL=$WORK/local
lnetsim sweep run "$SWEEP" --out "$LOCAL" 2>"$WORK/log/local-run.log" || die "local sweep run failed: $(cat "$WORK/log/local-run.log")"
lnetsim sweep merge "$SWEEP" --out "$LOCAL" >/dev/null || die "local sweep merge failed"

cmp "$OUT/aggregate.csv" "$LOCAL/aggregate.csv" \
  || die "merged table of the job array differs from the local sweep: diff $OUT/aggregate.csv $LOCAL/aggregate.csv"
log "OK: merged aggregate.csv of $SHARDS array tasks equals the local sweep's byte for byte ($(($(wc -l <"$LOCAL/aggregate.csv") - 1)) rows, sha256 $(sha256sum <"$LOCAL/aggregate.csv" | cut -c1-16))"
