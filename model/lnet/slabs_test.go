package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestSharePeerSlabs: nodes on one kernel share the first node's peer slabs, and their
// peers stay each node's own; a node on another kernel keeps its slabs.
func TestSharePeerSlabs(t *testing.T) {
	k := sim.New(1)
	a, _ := NewNode(k, "a", DefaultTunables())
	b, _ := NewNode(k, "b", DefaultTunables())
	c, _ := NewNode(sim.New(2), "c", DefaultTunables())
	b.SharePeerSlabs(a)
	c.SharePeerSlabs(a)
	if b.slabs != a.slabs || c.slabs == a.slabs {
		t.Fatalf("shared: b %v, c %v", b.slabs == a.slabs, c.slabs == a.slabs)
	}
	pa := a.nid2peerni(nid("10.0.0.1@o2ib"))
	pb := b.nid2peerni(nid("10.0.0.1@o2ib"))
	if pa == pb || pa.peer == pb.peer || pa.peer.node != a || pb.peer.node != b || len(a.Peers()) != 1 || len(b.Peers()) != 1 {
		t.Fatalf("peer NIs %p %p, peers %p %p", pa, pb, pa.peer, pb.peer)
	}
}
