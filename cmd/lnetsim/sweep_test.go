package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sweep plan refuses a sweep whose points would fail, with exit 2 and the located error,
// before writing any plan; a valid sweep still plans.
func TestSweepPlanChecksEveryPoint(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("../../scenarios/catalogue/drop-rule-health-error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = strconv.Itoa(i)
	}
	cases := []struct{ name, src, want string }{
		{"huge grid", "scenario: " + base + "\nseeds: 1000000000\naxes:\n  lnet.retry_count: [" + strings.Join(vals, ", ") + "]\n",
			"s.yaml:2:8: 1000000000000 runs (1000 points x 1000000000 seed(s)): a sweep plans at most 100000 runs"},
		{"bad axis path", "scenario: " + base + "\naxes:\n  lnet.retry_cnt: [1]\n", `s.yaml:3:20: lnet.retry_cnt: unknown field "retry_cnt" (did you mean retry_count?)`},
		{"bad value", "scenario: " + base + "\naxes:\n  lnet.retry_count: [1, -1]\n", "s.yaml:3:25: lnet.retry_count: must not be negative"},
		{"missing scenario", "scenario: missing.yaml\naxes:\n  lnet.retry_count: [1]\n", "s.yaml:1:11: scenario: cannot read " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
	}
	for _, tc := range cases {
		file := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, tc.name)
		for _, sub := range []string{"plan", "run"} {
			start := time.Now()
			code, stdout, errOut := runCLI(t, "sweep", sub, file, "--out", out)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s: sweep %s took %v to refuse", tc.name, sub, took)
			}
			if code != exitUsage || !strings.Contains(errOut, "lnetsim: "+filepath.Join(dir, tc.want)) || stdout != "" {
				t.Errorf("%s: sweep %s: exit %d, stderr %q; want exit 2 and %q", tc.name, sub, code, errOut, tc.want)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s written for a sweep that does not check (%v)", tc.name, out, err)
		}
	}
}
