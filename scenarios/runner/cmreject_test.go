package runner

import (
	"fmt"
	"testing"
)

// The first connection attempts from the client to the server's NI are rejected: with a
// reason o2iblnd retries (conn_race; msg_queue_size once, adopting the smaller depth) the
// connection is made after reconnects and no message fails; a second queue-size reject with
// the depth already adopted, or no_resources, fails the queued messages.
func TestCMRejects(t *testing.T) {
	for _, tc := range []struct {
		reason   string
		count    int
		wantFail bool
	}{{"conn_race", 2, false}, {"msg_queue_size", 1, false}, {"msg_queue_size", 2, true}, {"no_resources", 1, true}} {
		t.Run(fmt.Sprintf("%s-x%d", tc.reason, tc.count), func(t *testing.T) {
			src := `
name: cm-reject
duration: 5s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
lnet: {retry_count: 0}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, count: 5, start: 1s}
faults:
  - {at: 0s, action: cm_reject, node: client, peer_ni: "server:0", reason: ` + tc.reason + `, count: ` + fmt.Sprint(tc.count) + `}
`
			res, err := Run(load(t, src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Summary.Metrics
			if failed := m["w.ops_failed"] > 0; failed != tc.wantFail {
				t.Fatalf("ops failed: %v, want failures %v (metrics %v)", m["w.ops_failed"], tc.wantFail, m)
			}
			if !tc.wantFail && m["w.ops_completed"] != 5 {
				t.Fatalf("completed %v of 5", m["w.ops_completed"])
			}
		})
	}
}
