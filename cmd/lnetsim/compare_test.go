package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare-releases runs the default scenario once per release with the same seed and prints
// only the metrics that differ. On 2.12 no LND sets an NI's fatal state (NoLinkFatalState):
// the client's failed port stays UP and selectable, its sends there fail (the first one at
// 30.4 s, charging the server's NI, 1000 -> 800, which 2.12 gives back 1 per success: 349
// health changes) and are resent (3), 20 messages fail and the slowest write takes 10.4 s,
// so five expectations fail there. On 2.15 the server does not charge the client's NI that
// discovery reports DOWN (4 health changes), so that expectation fails. The silently dropped
// write goes to the server's first NI on master and to its second on 2.15, so the
// expectation on the first one's health fails on 2.15 too. On master the server, having
// heard from the failed NI (its ACK of the server's discovery push back), also pings it for
// recovery while it is down, and the 4 pings that fail charge the server's own NIs (20 health
// changes); master's client pushes twice at the link's return (its NI's word set UP at full
// health, LU-20093, then the new ping target its LND asked for) where 2.15's does not
// advertise its failed rail at all (FatalNotAdvertised). --plots draws each release's health
// figure into its run directory, and one of all releases.
func TestCompareReleases(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "compare-releases", "builtin:default", "--releases", "2.12,2.15,master", "--out", out, "--plots")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `                   metric         2.12      2.15    master
      expectations_passed           11        14        16
           health_changes          349         4        20
     health_last_change_s      134.404       126       126
               health_min          800         0         0
                 messages        24483     24571     24581
          messages_failed           20         0         4
             resend_count            3         0         0
               send_count        21767     21875     21881
       successful_resends            2         0         0
    writes.latency_max_us  1.04027e+07   511.371   511.371
  writes.latency_p99.9_us       86.015   159.743   165.887
    writes.latency_p99_us       86.015   112.639    86.015
     writes.ops_completed         9362      9585      9585
   writes.throughput_gbps     0.581734  0.595591  0.595591
(12 metrics equal in every release not shown; --all shows them)
`
	if !strings.HasPrefix(stdout, want) {
		t.Fatalf("got:\n%s\nwant it to start with:\n%s", stdout, want)
	}
	if _, err := os.Stat(filepath.Join(out, "rail-failure-releases-health.png")); err != nil {
		t.Errorf("the figure of the releases: %v", err)
	}
	for _, rel := range []string{"2.12", "2.15", "master"} {
		for _, f := range []string{"summary.json", "health.png"} {
			if _, err := os.Stat(filepath.Join(out, "rail-failure-release-"+rel, f)); err != nil {
				t.Errorf("release %s: %v", rel, err)
			}
		}
	}
}

// An unknown release is a usage error naming the known ones; one release is not a comparison.
func TestCompareReleasesRefuses(t *testing.T) {
	for _, c := range []struct{ list, want string }{
		{"2.12,2.14", `--releases: unknown release "2.14" (known: 2.12.0,`},
		{"2.15", "--releases needs at least two releases"},
		{"2.15,2.15", "--releases: 2.15 is given twice"},
	} {
		code, _, stderr := runCLI(t, "compare-releases", "builtin:default", "--releases", c.list, "--out", "")
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("--releases %s: exit %d, %q; want 2 and %q", c.list, code, stderr, c.want)
		}
	}
}
