package lnet

import "testing"

// TestLearnMultiRail follows the multi-rail rule of lnet_discovery_event_reply and
// lnet_peer_push_event, step by step on one traffic-created peer: a buffer advertising
// multi-rail makes it multi-rail only while both sides have discovery on (a reply is also
// refused while this node's discovery is off; a push is not), a configured peer keeps what
// it was given, and a reply without the multi-rail feature clears the flag.
func TestLearnMultiRail(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	a := p.a
	peer := a.nid2peerni(nid("10.0.0.2@o2ib")).peer
	buf := func(mr, disc bool) *PingBuffer { return &PingBuffer{MultiRail: mr, Discovery: disc} }
	for i, c := range []struct {
		localDisc, mr, disc, push bool
		want, noDisc              bool
	}{
		{true, true, false, false, false, true},  // the peer's discovery is off
		{false, true, true, false, false, true},  // ours is off: a reply is refused
		{false, true, true, true, false, false},  // a push is not, but ours is still off
		{true, true, true, true, true, false},    // both on: multi-rail
		{true, true, false, true, true, true},    // a multi-rail peer stays so
		{true, false, false, false, false, true}, // a reply without multi-rail clears it
	} {
		a.tun.Discovery = c.localDisc
		a.learnMultiRail(peer, buf(c.mr, c.disc), c.push)
		if peer.mr != c.want || peer.noDiscovery != c.noDisc {
			t.Fatalf("step %d: multi-rail %v, no discovery %v; want %v, %v", i, peer.mr, peer.noDiscovery, c.want, c.noDisc)
		}
	}
	cfg, err := a.AddPeer(nid("10.0.0.9@o2ib"), nil, true) // configured non-MR
	if err != nil {
		t.Fatal(err)
	}
	a.tun.Discovery = true
	a.learnMultiRail(cfg, buf(true, true), false)
	if cfg.mr {
		t.Fatal("a peer configured non-multi-rail became multi-rail from a reply")
	}
}
