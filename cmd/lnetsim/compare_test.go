package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare-releases runs the default scenario once per release with the same seed and prints
// only the metrics that differ: up to 2.15 the server does not charge the client's NI that
// discovery reports DOWN (4 health changes in 2.15; 12 in 2.12, whose +1 per success takes 9
// steps back from the response timeout), so the expectation on that drop fails there; the
// silently dropped write goes to the server's first NI on master and to its second on 2.12
// and 2.15, so the expectation on the first one's health fails on both too;
// on master the server, having heard from the failed NI (its ACK of the server's discovery
// push back), also pings it for recovery while it is down, and the 4 pings that fail charge
// the server's own NIs (20 health changes); 2.12 and 2.15 clients do not advertise their
// failed rail (FatalNotAdvertised), so fewer pushes and ACKs are sent, and master's client
// pushes twice at the link's return (its NI's word set UP at full health, LU-20093, then the
// new ping target its LND asked for); --plots draws each release's health figure into its run
// directory, and one of all releases.
func TestCompareReleases(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "compare-releases", "builtin:default", "--releases", "2.12,2.15,master", "--out", out, "--plots")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `                   metric     2.12     2.15   master
      expectations_passed       14       14       16
           health_changes       12        4       20
     health_last_change_s      134      126      126
                 messages    24587    24571    24581
          messages_failed        0        0        4
               send_count    21891    21875    21881
  writes.latency_p99.9_us  159.743  159.743  165.887
    writes.latency_p99_us  112.639  112.639   86.015
(18 metrics equal in every release not shown; --all shows them)
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
