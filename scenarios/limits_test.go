package scenarios

import (
	"strings"
	"testing"
)

// TestHugeInputsListTheRootCauseOnly loads inputs that used to print tens of thousands of
// errors (the real cause last, after false ones): 100000 NIs on one node, and a faults list
// past the decoder's value limit. Each now gives exactly its one root-cause error.
func TestHugeInputsListTheRootCauseOnly(t *testing.T) {
	var nis, faults strings.Builder
	nis.WriteString("duration: 10s\nnodes:\n  client:\n    nis:\n")
	nis.WriteString(strings.Repeat("      - o2ib0\n", 100000))
	nis.WriteString("  server:\n    nis: [o2ib0]\n")
	faults.WriteString("duration: 10s\nnodes:\n  client:\n    nis: [o2ib0]\nfaults:\n")
	faults.WriteString(strings.Repeat("  - at: 1s\n    action: link_down\n    ni: client:0\n    for: 1ms\n", 50000))
	for _, c := range []struct{ name, data, want string }{
		{"100k-nis", nis.String(), `big.yaml:5:7: nodes.client.nis: node "client" has 100000 NIs; a node has at most 128 (each NI needs its own HCA (0 to 63) and port (1 or 2))`},
		{"nids-exhausted", "duration: 1s\nnodes:\n  client: {count: 65535, nis: [o2ib0]}\n  rtr: {routing: true, nis: [o2ib0, o2ib1]}\n" +
			"  oss: {nis: [o2ib1]}\nlnet:\n  routes:\n    - {net: o2ib1, gateway: rtr, nodes: client}\n",
			`big.yaml:3:3: nodes: more than 65534 NIs on net o2ib0 to number automatically (give NIDs explicitly)`},
		{"200k-values", faults.String(), `big.yaml:159998:9: document too large: more than 200000 values (split the scenario or avoid deep alias expansion)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("big.yaml", []byte(c.data))
			el, ok := err.(ErrorList)
			if !ok || len(el) != 1 {
				t.Fatalf("want exactly one error, got %d:\n%v", len(el), err)
			}
			if got := el[0].Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestWorkloadReachCountsTimelineRoutes: a workload whose only route to its target is added
// by the timeline (lnetctl route add) loads; without that entry it is refused, located at
// the workload's to.
func TestWorkloadReachCountsTimelineRoutes(t *testing.T) {
	base := "duration: 10s\nnodes:\n  client: {nis: [o2ib0]}\n  rtr: {routing: true, nis: [o2ib0, o2ib1]}\n  server: {nis: [o2ib1]}\n" +
		"workload:\n  - {name: w, type: brw, from: client, to: server}\n"
	add := "faults:\n  - {at: 2s, node: client, lnetctl: \"route add --net o2ib1 --gateway 10.0.0.2@o2ib\"}\n"
	if _, err := Load("t.yaml", []byte(base+add)); err != nil {
		t.Errorf("with the timeline's route add: %v", err)
	}
	_, err := Load("t.yaml", []byte(base))
	want := "t.yaml:7:44: workload[0].to: workload w: no route from client to server (on o2ib1) (add a route in lnet.routes through a router on both nets)"
	if err == nil || err.Error() != want {
		t.Errorf("without it:\n got %v\nwant %s", err, want)
	}
}
