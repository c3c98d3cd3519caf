package runner

import (
	"errors"
	"testing"
)

// sharedPort is sanity-lnet's multi-rail set-up: each node's one IB port carries two nets
// with the same address (10.0.0.1@o2ib and 10.0.0.1@o2ib1 on ib0).
const sharedPort = `
name: shared-port
duration: 100ms
seed: 1
nodes:
  client: {nis: [{net: o2ib, nid: 10.0.0.1@o2ib}, {net: o2ib1, nid: 10.0.0.1@o2ib1}]}
  server: {nis: [{net: o2ib, nid: 10.0.0.2@o2ib}, {net: o2ib1, nid: 10.0.0.2@o2ib1}]}
workload:
  - {name: io, type: brw, from: client, to: server, size: 64KiB, concurrency: 4}
expect:
  - {name: o2ib carries writes, check: path, workload: io, via: ["client:0", "server:0"], eq: 9401}
  - {name: o2ib1 carries writes, check: path, workload: io, via: ["client:1", "server:1"], eq: 9400}
  - {name: nothing fails, check: messages, status: failed, eq: 0}
`

// TestSharedPortBothNetsCarryTraffic: the scenario that crashed with "ib: address 10.0.0.1
// assigned twice" runs on the o2ib backend, and LNet spreads the writes over both NIs of
// the one port (o2iblnd finds each net by the NID in the connection request); the ideal
// backend, which keys ports by NI, refuses it as unsupported.
func TestSharedPortBothNetsCarryTraffic(t *testing.T) {
	runPassing(t, sharedPort)
	_, err := Run(load(t, sharedPort), Options{Backend: BackendIdeal})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("ideal backend: %v", err)
	}
}

// runPassing runs the scenario src on the default backend and fails the test for each
// expectation that does not hold.
func runPassing(t *testing.T, src string) *Result {
	t.Helper()
	res, err := Run(load(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Summary.Expectations {
		if !e.Passed {
			t.Errorf("%s: %s", e.Name, e.Detail)
		}
	}
	return res
}
