package runner

import (
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestEveryActionRuns: every action the loader accepts has an implementation for the run on
// each backend it may run on, and the run implements nothing the loader does not accept.
func TestEveryActionRuns(t *testing.T) {
	for _, a := range scenarios.Actions() {
		impl, ok := actionImpls[a.Name]
		switch {
		case !ok:
			t.Errorf("action %s is accepted by the loader but has no implementation", a.Name)
		case impl.o2ib == nil && impl.ideal == nil:
			t.Errorf("action %s has no function", a.Name)
		case !a.O2IBOnly && impl.ideal == nil:
			t.Errorf("action %s runs on the ideal backend but has no ideal function", a.Name)
		case a.O2IBOnly && impl.ideal != nil:
			t.Errorf("action %s is o2ib-only but has an ideal function", a.Name)
		}
	}
	for name := range actionImpls {
		if scenarios.LookupAction(name) == nil {
			t.Errorf("the runner implements %s, which the loader does not accept", name)
		}
	}
}

// routerDown: two routers between o2ib0 and o2ib1; rtr0 stops routing at 3s for 6s.
const routerDown = `
name: router-down
seed: 1
duration: 16s
nodes:
  client: {nis: [o2ib0]}
  rtr: {count: 2, routing: true, nis: [o2ib0, o2ib1]}
  server: {nis: [o2ib1]}
lnet:
  alive_router_check_interval: 1
  router_ping_timeout: 1
  routes:
    - {net: o2ib1, gateway: rtr0, nodes: client}
    - {net: o2ib1, gateway: rtr1, nodes: client}
    - {net: o2ib0, gateway: rtr0, nodes: server}
    - {net: o2ib0, gateway: rtr1, nodes: server}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 64KiB, interval: 20ms}
faults:
  - {at: 3s, action: router_down, node: rtr0, for: 6s}
expect:
  - {name: rtr0 route down while it does not route, check: route, at: 8s, node: client, net: o2ib1, gateway: "rtr0:0", state: down}
  - {name: rtr1 route stays up, check: route, at: 8s, node: client, net: o2ib1, gateway: "rtr1:0", state: up}
  - {name: nothing through rtr0 meanwhile, check: path, workload: w, from: 5s, at: 8s, via: ["client:0", "rtr0:0"], eq: 0}
  - {name: rtr1 carries it meanwhile, check: path, workload: w, from: 5s, at: 8s, via: ["client:0", "rtr1:0"], eq: 150}
  - {name: no write fails, check: messages, workload: w, status: failed, eq: 0}
  - {name: rtr0 route up again, check: route, node: client, net: o2ib1, gateway: "rtr0:0", state: up}
`

// TestRouterDownUp: router_down is lnetctl set routing 0 on the router: it advertises routing
// disabled, its clients mark its routes down and send through the other router; router_up
// (for:) brings the routes back. The same on both backends.
func TestRouterDownUp(t *testing.T) {
	for _, backend := range []string{BackendO2IB, BackendIdeal} {
		t.Run(backend, func(t *testing.T) {
			csv := runExpecting(t, routerDown, backend, "faults.csv")
			want := "time_ns,kind,target,detail,hits\n3000000000,router_down,rtr0,routing stopping,1\n9000000000,router_up,rtr0,routing starting,1\n"
			if string(csv) != want {
				t.Errorf("faults.csv:\n%s\nwant:\n%s", csv, want)
			}
		})
	}
}
