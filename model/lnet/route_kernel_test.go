package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// gwPeerNIStatus returns the cached status of gateway NI gw on node n.
func gwPeerNIStatus(t *testing.T, n *Node, gw string) NIStatus {
	t.Helper()
	lpni := n.PeerNI(nid(gw))
	if lpni == nil {
		t.Fatalf("%s does not know %s", n.Name(), gw)
	}
	return lpni.Status()
}

// gwNet is a client c with a 1-hop route to o2ib1 through router r's first NID and, when
// built with a server, a server s (10.1.0.2@o2ib1) routing back through r's last NID: nodes
// a, b (and c) on one ideal LND, not started.
type gwNet struct {
	k       *sim.Kernel
	l       *IdealLND
	c, r, s *Node
	all     []*Node
}

func newGWNet(t *testing.T, tun Tunables, cNIDs, rNIDs []string, server bool) *gwNet {
	t.Helper()
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	specs := [][]string{cNIDs, rNIDs}
	if server {
		specs = append(specs, []string{"10.1.0.2@o2ib1"})
	}
	g := &gwNet{k: k, l: l, all: mkNodes(t, k, l, tun, specs...)}
	g.c, g.r = g.all[0], g.all[1]
	g.r.SetRouting(true)
	mustRoute(t, g.c, "o2ib1", rNIDs[0], 1, 0)
	if server {
		g.s = g.all[2]
		mustRoute(t, g.s, "o2ib", rNIDs[len(rNIDs)-1], 1, 0)
	}
	return g
}

// start starts every node and runs d.
func (g *gwNet) start(t *testing.T, d sim.Time) {
	t.Helper()
	startAll(t, g.all...)
	runFor(t, g.k, d)
}

// TestGatewayRevivedByTraffic follows lnet_parse: a message that arrives through a gateway
// thought dead revives it and marks its NIs on the source's net UP, so with
// avoid_asym_router_failure the single-hop route through it is up at once, not at the next
// router check (60 s later here).
func TestGatewayRevivedByTraffic(t *testing.T) {
	g := newGWNet(t, DefaultTunables(), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
	k, c, s := g.k, g.c, g.s
	cev, sev := &evRec{}, &evRec{}
	sink(c, cev)
	g.start(t, 2*sim.Second)
	if st := c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s after the first router check", st)
	}
	gw := c.PeerNI(nid("10.0.0.3@o2ib")).peer
	c.rtrPingDone(gw, nil, -ETIMEDOUT) // a router check fails: gateway dead, its NIs DOWN
	if st, s1 := c.Routes()[0].State, gwPeerNIStatus(t, c, "10.1.0.3@o2ib1"); st != "down" || s1 != NIStatusDown {
		t.Fatalf("after the failed check: route %s, gateway's o2ib1 NI %s", st, s1)
	}
	putTo(t, s, "10.0.0.1@o2ib", sev)
	runFor(t, k, 10*sim.Millisecond)
	if cev.count(EventPUT) != 1 {
		t.Fatalf("client got %d PUTs", cev.count(EventPUT))
	}
	if !c.GatewayAlive(nid("10.0.0.3@o2ib")) {
		t.Fatal("gateway not revived by the PUT it forwarded")
	}
	for _, g := range []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"} {
		if st := gwPeerNIStatus(t, c, g); st != NIStatusUp {
			t.Fatalf("gateway NI %s %s after the PUT, want up", g, st)
		}
	}
	if st := c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s 10 ms after traffic came through the gateway, want up", st)
	}
	if p := c.Gateways()[0].Pings; p != 1 {
		t.Fatalf("%d router pings, want 1 (the revival is not a router check)", p)
	}
}

// TestNotifyKernelRules follows lnet_notify: (1) old news (the status a previous report
// set) changes nothing, so a second "alive, reset" does not reset health; (2) an LND's
// "down" counts from no earlier than the last time the peer NI was heard from, so a later
// report dated before that is out of date; (3) with discovery off, an LND's "down" from a
// local NI that is not the healthiest on its net (lnet_local_ni_superseded) leaves the
// route through that gateway NID up, while one from the healthiest NI takes it down.
func TestNotifyKernelRules(t *testing.T) {
	tun := DefaultTunables()
	tun.Discovery = false
	g := newGWNet(t, tun, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, false)
	k, c := g.k, g.c
	g.start(t, 5*sim.Second)
	gw := nid("10.0.0.3@o2ib")
	lpni := c.PeerNI(gw)
	ni0, ni1 := c.NI(nid("10.0.0.1@o2ib")), c.NI(nid("10.0.1.1@o2ib"))

	// (1) old news
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Notify(ni0, gw, true, true, k.Now()))
	c.setPeerHealth(lpni, 500, CauseManual)
	must(c.Notify(ni0, gw, true, true, k.Now()))
	if h := lpni.Health(); h != 500 {
		t.Fatalf("health %d after a second alive+reset report, want 500 (old news)", h)
	}

	// (3) superseded local NI: ni0 less healthy than ni1
	c.setNIHealth(ni0, 900, CauseManual)
	must(c.Notify(ni0, gw, false, false, k.Now()))
	if st, s := c.Routes()[0].State, lpni.Status(); st != "up" || s != NIStatusDown {
		t.Fatalf("down from the superseded NI: route %s, peer NI %s; want up, down", st, s)
	}
	must(c.Notify(ni1, gw, false, false, k.Now()))
	if st := c.Routes()[0].State; st != "down" {
		t.Fatalf("down from the healthiest NI: route %s, want down", st)
	}

	// (2) clamped to lpni_last_alive: heard from at the last router check (t = 0)
	runFor(t, k, 60*sim.Second) // the router check at 60 s: heard from again (discovery off: the gateway is not multi-rail, so no forced push)
	heard := lpni.lastAlive
	if heard != 60*sim.Second+2*sim.Microsecond {
		t.Fatalf("last heard from at %v", heard)
	}
	must(c.Notify(ni1, gw, false, false, heard-sim.Second))
	if s := lpni.Status(); s != NIStatusDown {
		t.Fatalf("peer NI %s after a down report", s)
	}
	must(c.Notify(ni1, gw, true, false, heard-sim.Millisecond))
	if s := lpni.Status(); s != NIStatusDown {
		t.Fatalf("peer NI %s after an alive report dated before the down one's clamped time, want down", s)
	}
}
