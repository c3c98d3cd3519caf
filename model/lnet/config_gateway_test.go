package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestConfigPeerGatewayBusy: `peer add --prim` of a route's gateway is EBUSY, as the kernel
// refuses to delete a gateway's peer to recreate it as configured (sanity-lnet test 105);
// the gateway stays a router with its route.
func TestConfigPeerGatewayBusy(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	r.run(t, sim.Second)
	gw := nid("10.0.0.3@o2ib")
	if err := r.c.ConfigPeer(gw, nil, true, false); ErrnoOf(err) != EBUSY {
		t.Fatalf("peer add of the gateway: %v, want EBUSY", err)
	}
	if rs := r.c.Routes(); len(rs) != 1 || rs[0].Gateway != gw.String() {
		t.Fatalf("routes %+v", rs)
	}
	if p := r.c.PeerNI(gw); p == nil || !p.peer.isRouter || p.peer.config {
		t.Fatalf("gateway peer changed: %+v", p)
	}
}
