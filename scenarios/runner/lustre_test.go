package runner

import "testing"

// TestLustreStopSource: lustre_stop on a workload's source fails its operation in flight
// (ECONNABORTED, its MD unlinked), issues nothing until lustre_start (for:), then resumes;
// meanwhile `lnet unconfigure` on it succeeds, since no workload holds LNet there.
func TestLustreStopSource(t *testing.T) {
	runPassing(t, `
name: lustre-stop-source
duration: 10s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: writes, type: brw, op: write, from: client, to: server, size: 1MiB}
faults:
  - {at: 2s, node: client, action: lustre_stop, for: 3s}
  - {at: 2s, node: client, name: unconf, lnetctl: "lnet unconfigure"}
expect:
  - {name: unconfigure allowed, check: command, fault: unconf, status: ok}
  - {name: the write in flight fails, check: operations, workload: writes, status: failed, eq: 1}
  - {name: none completes while stopped, check: operations, workload: writes, status: ok, from: 2s, at: 5s, eq: 0}
  - {name: writes resume after lustre_start, check: operations, workload: writes, status: ok, from: 5s, at: 10s, eq: 58362}
`)
}
