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

// Each node's ksocklnd follows its release: a tcp server's link is down, and the discovery
// ping before a client's first write waits for a connection until the reaper fails it
// (ksocknal_flush_stale_txs) at 61 s: NETWORK_TIMEOUT on the 2.16 client (LU-17505: the
// peer NI is charged too), LOCAL_TIMEOUT on the 2.15 one. The 2.15 ping is then past its
// deadline (transaction_timeout 50 s on 2.15; 151 s on 2.16, from sock_timeout), so it is
// not health-checked at all, only counted late; the write fails -ETIMEDOUT with it.
func TestSockLNDTimeoutStatusPerRelease(t *testing.T) {
	runPassing(t, `
seed: 1
duration: 70s
nodes:
  c215: {release: "2.15", nis: [tcp]}
  c216: {release: "2.16", nis: [tcp]}
  oss: {nis: [tcp]}
workload:
  - {name: w215, type: brw, op: write, from: c215, to: oss, size: 4KiB, count: 1, start: 2s}
  - {name: w216, type: brw, op: write, from: c216, to: oss, size: 4KiB, count: 1, start: 2s}
faults:
  - {at: 1s, action: link_down, ni: "oss:0"}
expect:
  - {name: 2.15 fails the ping LOCAL_TIMEOUT, check: messages, node: c215, type: get, status: local_timeout, eq: 1}
  - {name: 2.16 fails it NETWORK_TIMEOUT, check: messages, node: c216, type: get, status: network_timeout, eq: 1}
  - {name: at 61 s, check: messages, node: c216, type: get, status: network_timeout, at: 60s, eq: 0}
  - {name: 2.16 counts it, check: stats, node: c216, counter: network_timeout_count, eq: 1}
  - {name: 2.15 is past its deadline and counts nothing, check: stats, node: c215, counter: local_timeout_count, eq: 0}
  - {name: the 2.15 write fails, check: operations, workload: w215, status: failed, eq: 1}
  - {name: the 2.16 write fails, check: operations, workload: w216, status: failed, eq: 1}
`)
}
