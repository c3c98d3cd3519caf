package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestDelRoute: deleting the route through R1 moves C's traffic to R2 at once; R1 is then no
// longer a gateway (not pinged, not shown); deleting again is not an error while the net has
// a route, ENOENT once it has none; adding R1 back makes it a pinged gateway again.
func TestDelRoute(t *testing.T) {
	r := newRouted(t, 2, DefaultTunables(), DefaultTunables())
	r.run(t, sim.Second)
	o2ib1 := r.sNID.Net()
	r1, r2 := nid("10.0.0.3@o2ib"), nid("10.0.0.4@o2ib")
	if err := r.c.DelRoute(o2ib1, r1); err != nil {
		t.Fatal(err)
	}
	if rs := r.c.Routes(); len(rs) != 1 || rs[0].Gateway != "10.0.0.4@o2ib" {
		t.Fatalf("routes after del: %+v", rs)
	}
	if gs := r.c.Gateways(); len(gs) != 1 || gs[0].NID != "10.0.0.4@o2ib" {
		t.Fatalf("gateways after del: %+v", gs)
	}
	pings := r.c.gateways[0].gw.pings
	r.put(t, 4096, 1)
	r.run(t, 200*sim.Second)
	if got := r.rs[0].RouterStats().Forwarded; got != 0 {
		t.Errorf("R1 forwarded %d messages after its route was deleted", got)
	}
	// C's discovery GET and the PUT, and their REPLY and ACK (a response goes back through
	// the router its request came through).
	if got := r.rs[1].RouterStats().Forwarded; got != 4 {
		t.Errorf("R2 forwarded %d, want 4", got)
	}
	if got := r.c.gateways[0].gw.pings; got != pings {
		t.Errorf("R1 pinged %d more times after its last route went", got-pings)
	}
	if err := r.c.DelRoute(o2ib1, r1); err != nil {
		t.Errorf("deleting a gone route while the net has one: %v", err)
	}
	if err := r.c.DelRoute(o2ib1, r2); err != nil {
		t.Fatal(err)
	}
	if err := r.c.DelRoute(o2ib1, r2); ErrnoOf(err) != ENOENT {
		t.Errorf("no route to the net: %v, want ENOENT", err)
	}
	if err := r.c.ConfigRoute(o2ib1, r1, 1, 0); err != nil {
		t.Fatal(err)
	}
	r.run(t, 200*sim.Second)
	if got := r.c.gateways[0].gw.pings; got == pings {
		t.Errorf("R1 not pinged again after its route came back")
	}
}

// TestConfigRouteErrnos: lnet_add_route's refusals, in its order.
func TestConfigRouteErrnos(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	o2ib, o2ib1, o2ib2 := r.cNID.Net(), r.sNID.Net(), MakeNet(O2IBLND, 2)
	for _, c := range []struct {
		net   NetID
		gw    string
		hops  int
		errno int
	}{
		{o2ib, "10.0.0.3@o2ib", -1, EINVAL},  // gateway on the route's net
		{o2ib1, "10.0.0.3@o2ib", 0, EINVAL},  // hops out of range
		{o2ib, "10.1.0.3@o2ib1", -1, EEXIST}, // local net
		{o2ib2, "10.1.0.3@o2ib1", -1, EHOSTUNREACH},
		{o2ib1, "10.0.0.3@o2ib", 1, EEXIST},  // already there
		{o2ib1, "10.0.0.1@o2ib", -1, EINVAL}, // own NID (lnetsim)
		{o2ib1, "10.0.0.99@o2ib", 1, 0},      // no such node: accepted
	} {
		err := r.c.ConfigRoute(c.net, nid(c.gw), c.hops, 0)
		if got := 0; err != nil {
			got = ErrnoOf(err)
			if got != c.errno {
				t.Errorf("route to %s via %s: %v, want %s", c.net, c.gw, err, ErrnoName(c.errno))
			}
		} else if c.errno != 0 {
			t.Errorf("route to %s via %s accepted, want %s", c.net, c.gw, ErrnoName(c.errno))
		}
	}
}
