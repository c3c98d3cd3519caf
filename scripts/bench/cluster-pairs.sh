#!/usr/bin/env bash
# Compares `lnetsim bench cluster` between two revisions of this repository, old and new
# binary run interleaved (old, new, old, new, ...) so that both see the same machine load.
#
#   scripts/bench/cluster-pairs.sh OLD_REV NEW_REV [PAIRS] [-- bench cluster flags...]
#   e.g. scripts/bench/cluster-pairs.sh cbac264 HEAD 3 -- --duration 100ms
#
# Per run it prints the bench line's figures (messages/s, events, loop wall and CPU, heap,
# max RSS, checksum); at the end the median messages/s and loop CPU of each revision and
# their ratio. Both revisions must produce the same messages (else the comparison says so):
# a speed change must not change what is simulated. Not a test: it asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 2 ]] || {
	sed -n '2,11p' "$0"
	exit 2
}
old=$1 new=$2
shift 2
pairs=3
if [[ $# -gt 0 && $1 != -- ]]; then
	pairs=$1
	shift
fi
[[ $# -gt 0 && $1 == -- ]] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for rev in old new; do
	r=${!rev}
	git worktree add -q --detach "$tmp/src-$rev" "$r"
	(cd "$tmp/src-$rev" && go build -o "$tmp/$rev" ./cmd/lnetsim)
	git worktree remove --force "$tmp/src-$rev"
done
field() { grep -o " $1=[^ ]*" | head -1 | cut -d= -f2; }
for ((i = 1; i <= pairs; i++)); do
	for rev in old new; do
		line=$("$tmp/$rev" bench cluster "$@" | tail -1)
		printf '%s %s\n' "$rev" "$line" | tee -a "$tmp/lines"
		echo "$rev $(field messages/s <<<"$line") $(sed -n 's/.*loop=[^ ]* (cpu \([0-9.]*\)s).*/\1/p' <<<"$line") $(field messages <<<"$line")" >>"$tmp/fig"
	done
done
awk '
	{ mps[$1] = mps[$1] " " $2; cpu[$1] = cpu[$1] " " $3; seen[$1 "," $4] = 1; if ($1 == "old") oldm[$4] = 1 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		mo = median(mps["old"]); mn = median(mps["new"]); co = median(cpu["old"]); cn = median(cpu["new"])
		printf "median messages/s: old %s, new %s (%.2fx); loop CPU: old %s s, new %s s\n", mo, mn, mn / mo, co, cn
		for (m in oldm) if (!(("new," m) in seen)) print "WARNING: old and new simulated different message counts"
	}' "$tmp/fig"
