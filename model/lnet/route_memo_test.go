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

// TestRouteGatewayMemo: findRoute remembers a gateway's only peer NI on a local net until
// routesChanged. A second peer NI of the gateway on the client's net makes two candidates
// (no memo: gwBestLPNI chooses each time); detaching it brings the memo back. A health
// written behind the memo's back while the second NI is there silently is not seen (the
// memo answers) and, under the invariants tag, panics naming the route.
func TestRouteGatewayMemo(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	r.run(t, sim.Second)
	c := r.c
	rt := c.remoteNets[0].routes[0]
	gwNI := c.PeerNI(rt.gwNID)
	pick := func() (lpni *PeerNI, violation string) {
		defer func() {
			if p := recover(); p != nil {
				violation = p.(string)
			}
		}()
		c.refreshRouteMemo(rt)
		return c.routeGwLPNI(rt, nil), ""
	}
	want := func(step string, lpni, memo *PeerNI, violation string) {
		t.Helper()
		got, gotV := pick()
		if got != lpni || rt.gwMemo != memo || gotV != violation {
			t.Fatalf("%s: got %v memo %v %q, want %v memo %v %q", step, got, rt.gwMemo, gotV, lpni, memo, violation)
		}
	}
	want("after start", gwNI, gwNI, "")
	if _, err := c.AddPeer(gwNI.peer.primary, []NID{nid("10.0.0.9@o2ib")}, false); err != nil {
		t.Fatal(err)
	}
	extra := c.PeerNI(nid("10.0.0.9@o2ib"))
	extra.health = MaxHealth - 1 // gwNI wins on health
	c.routesChanged()
	want("two candidates", gwNI, nil, "")
	c.detachPeerNI(extra)
	want("extra detached", gwNI, gwNI, "")
	// Put extra back without routesChanged and make it the better one.
	gwNI.pnet.nis = append(gwNI.pnet.nis, extra)
	extra.health, gwNI.health = MaxHealth, MaxHealth-1
	violation := ""
	if invariants.Enabled {
		violation = "lnet invariant: c: route to o2ib1 via 10.0.0.3@o2ib remembered gateway peer NI 10.0.0.3@o2ib (a peer NI or local net changed without routesChanged)"
	}
	if invariants.Enabled {
		want("added silently", nil, gwNI, violation)
	} else {
		want("added silently", gwNI, gwNI, "")
	}
	c.routesChanged()
	want("after routesChanged", extra, nil, "")
}
