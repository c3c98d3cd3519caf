package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// routedMR builds client c (discovery as given), router r and a multi-rail server s with
// two NIs on o2ib1, and routes both ways through r; it runs 2 s so the routes come up.
func routedMR(t *testing.T, cDisc bool) (k *sim.Kernel, c, r, s *Node, sev *evRec) {
	t.Helper()
	k = sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ct := DefaultTunables()
	ct.Discovery = cDisc
	c = mkNodes(t, k, l, ct, []string{"10.0.0.1@o2ib"})[0]
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
		[]string{"10.1.0.2@o2ib1", "10.1.1.2@o2ib1"})
	r, s = ns[0], ns[1]
	r.SetRouting(true)
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
	startAll(t, c, r, s)
	sev = &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second)
	return k, c, r, s, sev
}

// TestMRForwardRewritesDestination follows lnet_handle_send: on a router's final hop with
// multi-rail forwarding allowed (lnet_mr_forwarding_allowed: the originator is MR and the NI
// it addressed is not fully healthy), the router picks another NI of the server and the
// header's destination NID becomes that NI, so the server accepts the PUT and ACKs it.
func TestMRForwardRewritesDestination(t *testing.T) {
	k, c, r, _, sev := routedMR(t, false)
	if _, err := r.AddPeer(nid("10.0.0.1@o2ib"), nil, false); err != nil { // the client is MR
		t.Fatal(err)
	}
	cev := &evRec{}
	putTo(t, c, "10.1.0.2@o2ib1", cev) // the router discovers the server: MR, two NIs
	runFor(t, k, sim.Second)
	if p := r.PeerNI(nid("10.1.0.2@o2ib1")).Peer(); !p.MultiRail() || len(p.NIs()) != 2 {
		t.Fatalf("router's server peer: MR %v, %d NIs", p.MultiRail(), len(p.NIs()))
	}
	if err := r.SetPeerHealth(nid("10.1.0.2@o2ib1"), 500); err != nil {
		t.Fatal(err)
	}
	putTo(t, c, "10.1.0.2@o2ib1", cev)
	runFor(t, k, sim.Second)
	if n := sev.count(EventPUT); n != 2 {
		t.Fatalf("server PUT events %d, want 2", n)
	}
	if got := sev.last(EventPUT).Target; got != nid("10.1.1.2@o2ib1") {
		t.Fatalf("second PUT addressed to %s, want 10.1.1.2@o2ib1", got)
	}
	if n := cev.count(EventACK); n != 2 {
		t.Fatalf("client ACKs %d, want 2", n)
	}
	// PUTs only: the router knows the server is MR from its pushes (a router check forces
	// one), so its discovery ping may go to either of the server's NIs: the MR-forwarded PUT,
	// and the router's discovery push, which goes to the NI the ping's REPLY came from.
	if d := r.PeerNI(nid("10.1.1.2@o2ib1")).Stats().Sent.Put; d != 2 {
		t.Fatalf("router sent %d PUTs to 10.1.1.2@o2ib1, want 2", d)
	}
}

// TestUndiscoveredRoutedPeerRouteDown follows lnet_initiate_peer_discovery and
// lnet_peer_discovery_complete: a PUT to a peer not yet discovered waits on the peer, and
// when the discovery ping fails at once (the only route is down) the PUT fails with it
// (-EHOSTUNREACH, at once) instead of waiting for ever; the next PUT rediscovers and fails too.
func TestUndiscoveredRoutedPeerRouteDown(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.CheckRoutersBeforeUse = true // the gateway starts down; it does not exist, so stays down
	c := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"})[0]
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	startAll(t, c)
	runFor(t, k, sim.Second)
	ev := &evRec{}
	for i := 0; i < 2; i++ {
		putTo(t, c, "10.1.0.2@o2ib1", ev)
		runFor(t, k, sim.Second)
	}
	if len(ev.evs) != 2 {
		t.Fatalf("%d events, want 2 SEND failures: %+v", len(ev.evs), ev.evs)
	}
	for i, e := range ev.evs {
		if at := sim.Time(i+1) * sim.Second; e.Type != EventSEND || e.Status != -EHOSTUNREACH || e.Time != at {
			t.Fatalf("event %d: %s status %d at %d, want SEND -%d at %d", i, e.Type, e.Status, e.Time, EHOSTUNREACH, at)
		}
	}
	if p := c.PeerNI(nid("10.1.0.2@o2ib1")).Peer(); p.Discovered() || p.pending.Len() != 0 {
		t.Fatalf("peer discovered %v, %d messages pending", p.Discovered(), p.pending.Len())
	}
}

// TestMRPeerLocalNetPreferred follows lnet_handle_any_mr_dst / lnet_handle_any_mr_dsta: an
// MR peer addressed by its primary NID on a routed net, with another NI on the client's own
// net, is sent to directly on the local net (the header names that NI), not through the router.
func TestMRPeerLocalNetPreferred(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.Discovery = false
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
		[]string{"10.1.0.2@o2ib1", "10.0.0.2@o2ib"})
	c, r, s := ns[0], ns[1], ns[2]
	r.SetRouting(true)
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	startAll(t, c, r, s)
	sev, cev := &evRec{}, &evRec{}
	sink(s, sev)
	if _, err := c.AddPeer(nid("10.1.0.2@o2ib1"), []NID{nid("10.0.0.2@o2ib")}, false); err != nil {
		t.Fatal(err)
	}
	runFor(t, k, 2*sim.Second)
	putTo(t, c, "10.1.0.2@o2ib1", cev)
	runFor(t, k, sim.Second)
	if sev.count(EventPUT) != 1 || sev.last(EventPUT).Target != nid("10.0.0.2@o2ib") {
		t.Fatalf("server events %+v, want one PUT to 10.0.0.2@o2ib", sev.evs)
	}
	if f := r.RouterStats().Forwarded; f != 0 {
		t.Fatalf("router forwarded %d, want 0", f)
	}
	if n := c.PeerNI(nid("10.0.0.2@o2ib")).Stats().SendCount; n != 1 || cev.count(EventACK) != 1 {
		t.Fatalf("client sent %d to 10.0.0.2@o2ib, %d ACKs; want 1, 1", n, cev.count(EventACK))
	}
}

// TestRoutedNMRPeerKeepsSourceNI follows lnet_handle_any_router_nmr_dst: a remote non-MR
// peer is sent to from the local NI it prefers; the first send records it, so four PUTs from
// a two-NI client all carry the same source NID (they alternated before).
func TestRoutedNMRPeerKeepsSourceNI(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ct := DefaultTunables()
	ct.Discovery = false
	c := mkNodes(t, k, l, ct, []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib"})[0]
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, []string{"10.1.0.2@o2ib1"})
	r, s := ns[0], ns[1]
	r.SetRouting(true)
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
	startAll(t, c, r, s)
	sev, cev := &evRec{}, &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second)
	for i := 0; i < 4; i++ {
		putTo(t, c, "10.1.0.2@o2ib1", cev)
		runFor(t, k, sim.Millisecond)
	}
	var got []NID
	for _, e := range sev.evs {
		got = append(got, e.Initiator)
	}
	want := nid("10.0.1.1@o2ib")
	if len(got) != 4 || got[0] != want || got[1] != want || got[2] != want || got[3] != want {
		t.Fatalf("PUT sources %v, want 4 x %s", got, want)
	}
	if p := c.PeerNI(nid("10.1.0.2@o2ib1")).prefNIDs; len(p) != 1 || p[0] != want {
		t.Fatalf("preferred NIDs %v", p)
	}
}
