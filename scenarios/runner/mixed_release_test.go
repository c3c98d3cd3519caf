package runner

import "testing"

// A mixed cluster, 2.12 servers with 2.15 clients through a 2.15 router, each node behaving
// as its own release: at 5s every node's view of the router's NI drops to 900. The 2.15
// clients take their route down (a gateway NI below router_sensitivity, LU-11300) until
// their recovery ping's reply at 6s, and their writes in that second fail; the 2.12
// servers' routes stay up (2.12's router checker ignores health), so no reply is lost.
func TestMixedCluster212Servers215Clients(t *testing.T) {
	res := runPassing(t, `
seed: 1
duration: 8s
nodes:
  c0: {release: "2.15", nis: [o2ib0]}
  c1: {release: "2.15", nis: [o2ib0]}
  rtr:
    release: "2.15"
    routing: true
    nis:
      - {net: o2ib0, hca: 0}
      - {net: o2ib1, hca: 1}
  oss0: {release: "2.12", nis: [o2ib1]}
  oss1: {release: "2.12", nis: [o2ib1]}
lnet:
  routes:
    - {net: o2ib1, gateway: rtr, nodes: [c0, c1]}
    - {net: o2ib0, gateway: rtr, nodes: [oss0, oss1]}
workload:
  - {name: w0, type: brw, op: write, from: c0, to: oss0, size: 64KiB, concurrency: 1, interval: 100ms, start: 1s}
  - {name: w1, type: brw, op: write, from: c1, to: oss1, size: 64KiB, concurrency: 1, interval: 100ms, start: 1s}
faults:
  - {at: 5s, action: set_peer_health, node: c0, peer_ni: "rtr:0", health: 900}
  - {at: 5s, action: set_peer_health, node: c1, peer_ni: "rtr:0", health: 900}
  - {at: 5s, action: set_peer_health, node: oss0, peer_ni: "rtr:1", health: 900}
  - {at: 5s, action: set_peer_health, node: oss1, peer_ni: "rtr:1", health: 900}
expect:
  - {name: 2.15 client route down, check: route, node: c0, net: o2ib1, gateway: "rtr:0", at: 5.5s, state: down}
  - {name: 2.15 client route up again, check: route, node: c0, net: o2ib1, gateway: "rtr:0", at: 6.5s, state: up}
  - {name: 2.12 server route up, check: route, node: oss0, net: o2ib, gateway: "rtr:1", at: 5.5s, state: up}
  - {name: 2.12 server route up too, check: route, node: oss1, net: o2ib, gateway: "rtr:1", at: 5.5s, state: up}
  - {name: 2.12 server view still 900, check: health, node: oss0, peer_ni: "rtr:1", at: 5.5s, eq: 900}
  - {name: c0 writes lost while down, check: operations, workload: w0, status: failed, eq: 10}
  - {name: c1 writes lost while down, check: operations, workload: w1, status: failed, eq: 10}
`)
	if n := len(res.Summary.Expectations); n != 7 {
		t.Fatalf("%d expectations", n)
	}
}
