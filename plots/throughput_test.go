package plots

import (
	"path/filepath"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
)

// runBrw runs 100 ms of one brw stream of 1 MiB operations every 10 ms from c to s and
// returns the run directory and the operations completed.
func runBrw(t *testing.T, backend, op string) (string, float64) {
	t.Helper()
	src := "name: rw\nduration: 100ms\nnodes: {c: {nis: [o2ib0]}, s: {nis: [o2ib0]}}\nworkload:\n" +
		"  - {name: w, type: brw, op: " + op + ", from: c, to: s, size: 1MiB, interval: 10ms}\n"
	s, err := scenarios.Load("rw.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := runner.Run(s, runner.Options{Out: dir, Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	return dir, res.Summary.Metrics["w.ops_completed"]
}

// The throughput figure accounts bulk reads as it does writes: the data a GET fetches comes
// back in its REPLY, which messages.csv records as the target's message, and the figure's
// series carries its bytes (it drew zeros for a read-only run: GET rows carry no payload).
// Each run also carries discovery's three 48-byte ping buffers: the REPLY to the ping, c's
// push and s's push back.
func TestThroughputCountsReads(t *testing.T) {
	cases := []struct{ backend, op string }{{runner.BackendO2IB, "read"}, {runner.BackendIdeal, "read"}, {runner.BackendO2IB, "write"}}
	for _, tc := range cases {
		dir, ops := runBrw(t, tc.backend, tc.op)
		if ops != 10 {
			t.Fatalf("%s %s: %v operations completed, want 10", tc.backend, tc.op, ops)
		}
		// One bin: its value is every byte the series carries over the whole span.
		xys, _, err := throughputSeries(dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		span := 2 * xys[0].X // the bin's centre is half the span, in seconds
		if got, want := xys[0].Y*span/8*1e9, float64(10*1048576+3*48); got < want-0.5 || got > want+0.5 {
			t.Errorf("%s %s: the series carries %.1f bytes, want %.0f", tc.backend, tc.op, got, want)
		}
	}
}
