package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/internal/invariants"
	"github.com/lnetsim/lnetsim/sim"
)

// TestRouteAliveMemo: a route's aliveness is remembered until routesChanged. lnet_notify of
// the gateway's NI down and up again changes it at once; a status written behind the memo's
// back is not seen (the memo answers) and, under the invariants tag, panics naming the route
// (no answer).
func TestRouteAliveMemo(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	r.run(t, sim.Second)
	c := r.c
	rt := c.remoteNets[0].routes[0]
	lpni := c.PeerNI(rt.gwNID)
	alive := func() (up bool, violation string) {
		defer func() {
			if p := recover(); p != nil {
				violation = p.(string)
			}
		}()
		return c.routeAlive(rt), ""
	}
	want := func(step string, up bool, violation string) {
		t.Helper()
		if gotUp, gotV := alive(); gotUp != up || gotV != violation {
			t.Fatalf("%s: alive %v %q, want %v %q", step, gotUp, gotV, up, violation)
		}
	}
	want("after start", true, "")
	for _, up := range []bool{false, true} {
		if err := c.Notify(c.NI(r.cNID), rt.gwNID, up, true, c.k.Now()); err != nil {
			t.Fatal(err)
		}
		want("notified", up, "")
	}
	lpni.status = NIStatusDown   // no routesChanged
	stale, violation := true, "" // the memo's answer
	if invariants.Enabled {
		stale, violation = false, "lnet invariant: c: route to o2ib1 via 10.0.0.3@o2ib remembered alive=true, is false (an input changed without routesChanged)"
	}
	want("status written silently", stale, violation)
	c.routesChanged()
	want("after routesChanged", false, "")
}
