#!/usr/bin/env bash
# Measures the sweep worker pool's speedup: the same runs of a sweep with 1 and with 2 workers,
# interleaved, REPEATS times each, on this machine as it is. Other processes' CPU time during
# each sample is reported ("others", CPU-seconds: machine busy time from /proc/stat minus
# ours), since on a shared host it, not the pool, usually decides the wall ratio.
#
#   scripts/bench/sweep-speedup.sh [REPEATS] [SWEEP_FILE] [SHARD]
#   defaults: 5, sweeps/flapping-rail.sweep.yaml, 0/5 (16 of its 80 runs)
#
# Before each sample it waits (up to IDLE_WAIT seconds, default 120) for a 2 s window in which
# other processes used under 10% of a core, so that samples start on an idle machine when
# there is one; a sample still counts whatever happens during it.
#
# Per sample: wall seconds, our CPU seconds (user+sys), cores we kept busy (cpu/wall), others'
# CPU. Summary: the median wall of each, their ratio, and the same over the "quiet" samples
# (others below 5% of the capacity left). Not a test: it asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-5}
sweep=${2:-sweeps/flapping-rail.sweep.yaml}
shard=${3:-0/5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/lnetsim" ./cmd/lnetsim
hz=$(getconf CLK_TCK)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }

wait_idle() {
	local deadline=$((SECONDS + ${IDLE_WAIT:-120})) b0 b1
	while ((SECONDS < deadline)); do
		b0=$(busy)
		sleep 2
		b1=$(busy)
		if (((b1 - b0) < hz / 5)); then
			return
		fi
	done
}

sample() { # workers
	local out="$tmp/out" b0 b1 t0 t1 u s
	rm -rf "$out"
	wait_idle
	b0=$(busy)
	t0=$(date +%s.%N)
	/usr/bin/env time -f "%U %S" -o "$tmp/time" "$tmp/lnetsim" sweep run "$sweep" --out "$out" --shard "$shard" --workers "$1" 2>/dev/null
	t1=$(date +%s.%N)
	b1=$(busy)
	read -r u s <"$tmp/time"
	awk -v w="$1" -v t0="$t0" -v t1="$t1" -v u="$u" -v s="$s" -v b0="$b0" -v b1="$b1" -v hz="$hz" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
		'BEGIN{c=u+s; printf "workers=%d wall=%.2f cpu=%.2f cores=%.2f others=%.2f load1=%s\n", w, t1-t0, c, c/(t1-t0), (b1-b0)/hz-c, l}'
}

for ((i = 1; i <= repeats; i++)); do
	sample 1
	sample 2
done | tee "$tmp/samples"

awk -v n="$(nproc)" '
function median(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
{ for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
  w = v["workers"]; all[w, ++na[w]] = v["wall"]; cores[w, na[w]] = v["cores"]
  if (v["others"] < 0.05 * (n - w) * v["wall"] + 0.5) quiet[w, ++nq[w]] = v["wall"] }
END {
  for (w = 1; w <= 2; w++) { k = 0; for (i = 1; i <= na[w]; i++) t[++k] = all[w, i]; m[w] = median(t, k)
    k = 0; for (i = 1; i <= na[w]; i++) t[++k] = cores[w, i]; c[w] = median(t, k)
    k = 0; for (i = 1; i <= nq[w]; i++) t[++k] = quiet[w, i]; q[w] = k ? median(t, k) : 0 }
  printf "all samples:   median wall %.2f s (1 worker), %.2f s (2 workers): %.2fx; median cores busy %.2f / %.2f\n", m[1], m[2], m[1] / m[2], c[1], c[2]
  if (q[1] && q[2]) printf "quiet samples: median wall %.2f s (%d), %.2f s (%d): %.2fx\n", q[1], nq[1], q[2], nq[2], q[1] / q[2]
  else print "quiet samples: too few (the machine was busy throughout)"
}' "$tmp/samples"
