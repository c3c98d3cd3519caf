package sweep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkBase is a small base scenario for Check: two-rail client and server, one flapping
// link (faults[0] names the client's NI 1).
const checkBase = `name: base
duration: 1s
nodes: {client: {nis: [o2ib0, o2ib0]}, server: {nis: [o2ib0]}}
lnet: {transaction_timeout: 50, retry_count: 2}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 4KiB}
faults:
  - {at: 100ms, action: link_down, ni: "client:1"}
`

// checkSweep writes base.yaml and a sweep file holding src into a new directory and checks
// the sweep, returning the sweep file's path and Check's error.
func checkSweep(t *testing.T, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"base.yaml": checkBase, "broken.yaml": "name: b\nduration: 1s\nnodes: {a: {nis: [o2ib0]}}\nlnet: {retry_count: -3}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(file, []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return file, s.Check()
}

// Sweep plan checks every point before anything runs: each error is located (in the sweep
// file, or in the scenario with the point named) and says what is wrong.
func TestCheckPlan(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"valid", "scenario: base.yaml\nseeds: 3\naxes:\n  lnet.retry_count: [0, 1, 2]\n  lnet.transaction_timeout: [10, 50]\n", ""},
		{"unknown axis path", "scenario: base.yaml\naxes:\n  lnet.retry_cnt: [1]\n",
			`S:3:20: lnet.retry_cnt: unknown field "retry_cnt" (did you mean retry_count?)`},
		{"unknown axis path, several values", "scenario: base.yaml\naxes:\n  lnet.retry_count: [0, 1]\n  lnet.retry_cnt: [1, 2, 3]\n",
			`S:4:3: lnet.retry_cnt: unknown field "retry_cnt" (did you mean retry_count?) (every value of the axis)`},
		{"bad values", "scenario: base.yaml\naxes:\n  lnet.retry_count: [0, -1, two]\n",
			"S:3:25: lnet.retry_count: must not be negative\nS:3:29: lnet.retry_count: expected an integer, got \"two\""},
		{"a value bad with one of another axis", "scenario: base.yaml\naxes:\n  lnet.retry_count: [1, 5]\n  lnet.transaction_timeout: [2, 50]\n",
			"S:3:25: lnet.retry_count: retry_count 5 is greater than transaction_timeout (2s) (the kernel requires retry_count <= transaction_timeout)"},
		{"a value bad with the scenario", "scenario: base.yaml\naxes:\n  nodes.client.nis: [[o2ib0, o2ib0], [o2ib0]]\n",
			`S: point nodes.client.nis=[o2ib0]: D/base.yaml:8:40: faults[0].ni: no NI "1" on node client (client has NIs 0 to 0)`},
		{"missing scenario", "scenario: nope.yaml\naxes:\n  lnet.retry_count: [1]\n",
			"S:1:11: scenario: cannot read D/nope.yaml: no such file or directory (a relative path is taken from the sweep file's directory)"},
		{"scenario that does not load", "scenario: broken.yaml\naxes:\n  lnet.transaction_timeout: [10]\n",
			"S:1:11: scenario: D/broken.yaml does not load:\nD/broken.yaml:4:21: lnet.retry_count: must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file, err := checkSweep(t, tc.src)
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), file, "S")
				got = strings.ReplaceAll(got, filepath.Dir(file), "D")
			}
			if got != tc.want {
				t.Fatalf("Check:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A problem shared by many points is listed once; past maxCheckErrors the rest are counted.
func TestCheckCapsErrors(t *testing.T) {
	vals := make([]string, 30)
	for i := range vals {
		vals[i] = "x" + strconv.Itoa(i) // each its own message: expected an integer, got "xN"
	}
	src := "scenario: base.yaml\nseeds: 2\naxes:\n  lnet.retry_count: [1, " + strings.Join(vals, ", ") + "]\n  lnet.transaction_timeout: [10, 50]\n"
	file, err := checkSweep(t, src)
	if err == nil {
		t.Fatal("30 retry counts that are not numbers accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxCheckErrors+1 || lines[maxCheckErrors] != "... and 10 more problems in "+file {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// A grid beyond MaxRuns is refused by multiplication, at once: 1000 points x 10^9 seeds
// would take hours to enumerate.
func TestHugeGridRefusedAtOnce(t *testing.T) {
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = strings.Repeat("1", 1+i%5) + "0" + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
	}
	cases := []struct{ src, want string }{
		{"scenario: b.yaml\nseeds: 1000000000\naxes:\n  lnet.retry_count: [" + strings.Join(vals, ", ") + "]\n",
			"s.yaml:2:8: 1000000000000 runs (1000 points x 1000000000 seed(s)): a sweep plans at most 100000 runs; use fewer values or seeds, or split it into several sweep files"},
		{"scenario: b.yaml\nseeds: 2\naxes:\n  a: [" + strings.Join(vals[:400], ", ") + "]\n  b: [" + strings.Join(vals[:200], ", ") + "]\n",
			"s.yaml:3:1: 160000 runs (80000 points x 2 seed(s)): a sweep plans at most 100000 runs; use fewer values or seeds, or split it into several sweep files"},
	}
	for _, tc := range cases {
		start := time.Now()
		_, err := Parse("s.yaml", []byte(tc.src))
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("refusing took %v", took)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v\nwant %s", err, tc.want)
		}
	}
	// At the limit exactly: accepted.
	if _, err := Parse("s.yaml", []byte("scenario: b.yaml\nseeds: 100\naxes:\n  a: ["+strings.Join(vals, ", ")+"]\n")); err != nil {
		t.Errorf("100000 runs refused: %v", err)
	}
}
