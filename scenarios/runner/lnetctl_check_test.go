package runner

import (
	"testing"
)

// lnetctlCheck: rtr0 of two gateways crashes at 4s; at 11s the client's route table, its
// export, LNetDist's choices and the surviving router's pools are asserted as lnetctl
// prints them.
const lnetctlCheck = `
name: lnetctl-check
duration: 12s
seed: 7
nodes:
  client: {nis: [o2ib0]}
  rtr:
    count: 2
    routing: true
    nis:
      - {net: o2ib0, hca: 0}
      - {net: o2ib1, hca: 1}
  oss: {nis: [o2ib1]}
lnet:
  alive_router_check_interval: 2
  router_ping_timeout: 2
  routes:
    - {net: o2ib1, gateway: rtr0, nodes: client}
    - {net: o2ib1, gateway: rtr1, nodes: client, priority: 1}
    - {net: o2ib0, gateway: rtr1, nodes: oss}
workload:
  - {name: io, type: brw, from: client, to: oss, size: 64KiB, interval: 100ms}
faults:
  - {at: 4s, action: node_crash, node: rtr0}
expect:
  - name: rtr0's route is down, rtr1's up
    check: lnetctl
    node: client
    at: 11s
    command: route show -v
    present: |
      route:
          - net: o2ib1
            gateway: 10.0.0.2@o2ib
            hop: -1
            priority: 0
            state: down
          - net: o2ib1
            gateway: 10.0.0.3@o2ib
            priority: 1
            state: up
            type: single-hop
  - name: broken - rtr0's route up
    check: lnetctl
    node: client
    at: 11s
    command: route show -v
    present: {route: [{gateway: 10.0.0.2@o2ib, state: up}]}
  - name: no route to o2ib5
    check: lnetctl
    node: client
    command: route show -v
    absent: {route: [{net: o2ib5}], peer: [{primary nid: 10.0.0.9@o2ib}]}
  - name: broken - no route to o2ib1
    check: lnetctl
    node: client
    command: route show -v
    absent: {route: [{net: o2ib1}]}
  - name: export --backup routes
    check: lnetctl
    node: client
    command: export --backup
    equal:
      route:
        - {net: o2ib1, gateway: 10.0.0.2@o2ib, hop: -1, priority: 0}
        - {net: o2ib1, gateway: 10.0.0.3@o2ib, hop: -1, priority: 1}
      udsp: []
  - name: broken - the router has no routes
    check: lnetctl
    node: rtr1
    command: export --backup
    equal: {route: [{net: o2ib1, gateway: 10.0.0.2@o2ib, hop: -1, priority: 0}]}
  - name: LNetDist
    check: lnetctl
    node: client
    command: which_nid 10.1.0.1@o2ib1 10.0.0.1@o2ib 10.0.0.3@o2ib 10.9.0.1@o2ib9
    equal:
      peer:
        - {nid: 10.0.0.1@o2ib, distance: 2, order: 3}
        - {nid: 10.0.0.1@o2ib, distance: 0, order: 1}
        - {nid: 10.0.0.1@o2ib, distance: 1, order: 2}
  - name: rtr1's pools
    check: lnetctl
    node: rtr1
    command: routing show
    present:
      routing: [{enable: 1}, {"cpt[0]": {large: {npages: 256, nbuffers: 1024}}}]
      buffers: {tiny: 2048, small: 16384, large: 1024}
  - name: Multi-Rail peer with both NIs
    check: lnetctl
    node: client
    command: peer show -v
    present: {peer: [{primary nid: 10.0.0.3@o2ib, Multi-Rail: True, peer ni: [{nid: 10.1.0.3@o2ib1}, {nid: 10.0.0.3@o2ib}]}]}
  - name: net show -v has lnetctl's keys, not lnetsim's tx credits
    check: lnetctl
    node: client
    command: net show -v
    present: {net: [{net type: o2ib, local NI(s): [{nid: 10.0.0.1@o2ib, status: up, interfaces: {0: ib0}, dev cpt: -1, CPT: "[0]", tunables: {peer_credits: 8}, lnd tunables: {peercredits_hiw: 4}}]}]}
    absent: {net: [{local NI(s): [{credits: {max_tx_credits: 256}}]}]}
`

// TestLnetctlCheck: each present/absent/equal form passes on the state lnetctl would print
// and each deliberately wrong one fails, naming the difference.
func TestLnetctlCheck(t *testing.T) {
	res, err := Run(load(t, lnetctlCheck), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		passed bool
		detail string
	}{
		{true, "lnetctl route show -v on client at 11s"},
		{false, "lnetctl route show -v on client at 11s: present: route[0] {gateway: 10.0.0.2@o2ib, state: up}: no such item among 2 printed"},
		{true, "lnetctl route show -v on client at 12s"},
		{false, "lnetctl route show -v on client at 12s: absent: route[0] printed: {gateway: 10.0.0.2@o2ib, hop: -1, net: o2ib1, priority: 0, state: down, type: single-hop}"},
		{true, "lnetctl export --backup on client at 12s"},
		{false, "lnetctl export --backup on rtr1 at 12s: equal: route differs, printed nothing"},
		{true, "lnetctl which_nid 10.1.0.1@o2ib1 10.0.0.1@o2ib 10.0.0.3@o2ib 10.9.0.1@o2ib9 on client at 12s"},
		{true, "lnetctl routing show on rtr1 at 12s"},
		{true, "lnetctl peer show -v on client at 12s"},
		{true, "lnetctl net show -v on client at 12s"},
	}
	got := res.Summary.Expectations
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Passed != w.passed || got[i].Detail != w.detail {
			t.Errorf("%s: got %v %q\nwant %v %q", got[i].Name, got[i].Passed, got[i].Detail, w.passed, w.detail)
		}
	}
}
