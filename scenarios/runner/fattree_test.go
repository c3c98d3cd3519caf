package runner

import (
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

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
  - {name: all writes complete (and each client's discovery push), check: messages, workload: w, type: put, status: ok, eq: 315}
  - {name: the server link is the bottleneck, check: throughput, workload: w, max: 100Gbps}
`
	runPassing(t, src)
	// Too many hosts for the radix is refused at load, located, with a hint.
	big := `
name: too-big
duration: 1s
fabric: {topology: fat-tree, radix: 4}
nodes:
  client: {count: 40, nis: [o2ib0]}
`
	_, err := scenarios.Load("test.yaml", []byte(big))
	want := "test.yaml:4:37: fabric.radix: 40 host ports need 20 leaves of 2 host ports, more than a spine's 4 ports (use a larger radix, or more host ports per leaf: oversubscription 2:1 or 3:1, or topology fat-tree-3)"
	if err == nil || err.Error() != want {
		t.Fatalf("an impossible fat tree: got %v, want %s", err, want)
	}
}

// Eleven clients and a server on a three-level fat tree of radix 4 (2 hosts per leaf, pods
// of 2 leaves and 2 aggregation switches, 4 cores): 12 ports take 6 leaves in 3 pods, so
// most writes cross a core; every write completes.
func TestFatTree3(t *testing.T) {
	src := `
name: fat-tree-3
duration: 2s
fabric: {topology: fat-tree-3, radix: 4}
nodes:
  client: {count: 11, nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 1, count: 20, distribution: 1:n}
expect:
  - {name: all writes complete (and each client's discovery push), check: messages, workload: w, type: put, status: ok, eq: 231}
  - {name: the server link is the bottleneck, check: throughput, workload: w, max: 100Gbps}
`
	runPassing(t, src)
	// A radix-4 tree holds 4 pods of 2 leaves of 2 hosts: 17 hosts are refused at load.
	big := `
name: too-big
duration: 1s
fabric: {topology: fat-tree-3, radix: 4}
nodes:
  client: {count: 17, nis: [o2ib0]}
`
	_, err := scenarios.Load("test.yaml", []byte(big))
	want := "test.yaml:4:39: fabric.radix: 17 host ports need 5 pods of 2 leaves of 2 host ports, more than a core's 4 ports (use a larger radix, or more host ports per leaf: oversubscription 2:1 or 3:1)"
	if err == nil || err.Error() != want {
		t.Fatalf("an impossible fat tree: got %v, want %s", err, want)
	}
}
