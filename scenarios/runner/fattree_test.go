package runner

import "testing"

// Sixteen clients on a 2:1 oversubscribed fat tree of radix 6 (4 hosts per leaf, 2 spines)
// write to one server: traffic crosses leaves and spines and every write completes.
func TestFatTree(t *testing.T) {
	src := `
name: fat-tree
duration: 2s
fabric: {topology: fat-tree, radix: 6, oversubscription: "2:1"}
nodes:
  client: {count: 15, nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 1, count: 20, distribution: 1:n}
expect:
  - {name: all writes complete, check: messages, workload: w, type: put, status: ok, eq: 300}
  - {name: the server link is the bottleneck, check: throughput, workload: w, max: 100Gbps}
`
	runPassing(t, src)
	// Too many hosts for the radix is refused with a hint.
	big := `
name: too-big
duration: 1s
fabric: {topology: fat-tree, radix: 4}
nodes:
  client: {count: 40, nis: [o2ib0]}
`
	if _, err := Run(load(t, big), Options{}); err == nil {
		t.Fatal("an impossible fat tree was accepted")
	}
}
