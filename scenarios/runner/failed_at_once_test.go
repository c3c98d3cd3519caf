package runner

import "testing"

// TestFailedAtOnceDoesNotSpin: after `lnetctl net del` of the server's only tcp NI, the
// client's socklnd refuses each write at once (-EHOSTUNREACH while its reconnect backoff
// runs; the PUT finalizes -EIO, REMOTE_ERROR, in zero virtual time). A closed-loop stream
// then pauses failedAtOncePause before its next write instead of reissuing at the same
// instant forever (which ran for minutes and 9 GB before this pause). Exact counts: 25071
// writes completed, 2004 failed in 10 s.
func TestFailedAtOnceDoesNotSpin(t *testing.T) {
	s := load(t, `name: tcp-net-del
duration: 10s
ethernet: {link_rate: 25Gbps}
nodes:
  client: {nis: [tcp0]}
  server: {nis: [tcp0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 2}
faults:
  - {at: 6s, name: del, lnetctl: "net del --net tcp0", node: server}
  - {at: 7s, name: add, lnetctl: "net add --net tcp0 --if eth0", node: server}
expect:
  - {name: del ok, check: command, fault: del}
  - {name: add ok, check: command, fault: add}
`)
	res, err := Run(s, Options{MaxEvents: 5_000_000})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Summary.Metrics
	if res.Failed != 0 || m["w.ops_completed"] != 25071 || m["w.ops_failed"] != 2004 {
		t.Fatalf("%d expectations failed; ops completed %v, failed %v; want 0, 25071, 2004", res.Failed, m["w.ops_completed"], m["w.ops_failed"])
	}
}
