package runner

import (
	"strings"
	"testing"
)

const routedPathScenario = `
name: routed-path
duration: 3s
nodes:
  client: {nis: [o2ib0]}
  rtr:
    routing: true
    nis: [{net: o2ib0, hca: 0}, {net: o2ib1, hca: 1}]
  oss: {count: 2, nis: [o2ib1]}
lnet:
  routes:
    - {net: o2ib1, gateway: rtr, nodes: client}
    - {net: o2ib0, gateway: rtr, nodes: oss}
workload:
  - {name: w, type: brw, op: write, from: client, to: oss0, size: 4KiB, count: 10, start: 1s}
expect:
  # 10 writes and the client's discovery push to oss0
  - {name: through rtr to oss0, check: path, workload: w, via: [client:0, rtr:0, rtr:1, oss0:0], eq: 11}
  - {name: not to oss1, check: path, workload: w, via: [client:0, rtr:0, rtr:1, oss1:0], eq: 0}
  - {name: first hop, check: path, workload: w, via: [client:0, rtr:0], eq: 11}
`

// The path check follows every via entry in order: a routed path is matched on the router's
// forwarded messages (header source = the first NI, then its last hop), so writes to oss0
// count for [client:0, rtr:0, rtr:1, oss0:0] and not for the same path ending at oss1:0,
// which the old check (first two entries only) counted too.
func TestPathChecksEveryVia(t *testing.T) {
	runPassing(t, routedPathScenario)
}

// A via that is not hops in pairs, or whose router hops do not meet at one node, is refused.
func TestPathViaRefused(t *testing.T) {
	for via, want := range map[string]string{
		"[client:0, rtr:0, rtr:1]":          "via lists hops in pairs",
		"[client:0, rtr:1]":                 "a hop stays on one net",
		"[client:0, rtr:0, oss1:0, oss0:0]": "a router forwards from one of its own NIs",
	} {
		src := strings.Replace(routedPathScenario, "via: [client:0, rtr:0, rtr:1, oss1:0]", "via: "+via, 1)
		_, err := Run(load(t, src), Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("via %s: error %v, want %q", via, err, want)
		}
	}
}
