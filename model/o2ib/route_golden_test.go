package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// TestGoldenRoutedPut records the LND messages of a 1 MiB PUT through one router, with the
// connections already up: each hop runs its own PUT_REQ / PUT_ACK / RDMA / PUT_DONE handshake
// (client -> router, then router -> server), and the LNet ACK comes back from the server as an
// IMMEDIATE on each hop, the router never resending anything end to end.
func TestGoldenRoutedPut(t *testing.T) {
	rf := newRoutedFabric(t, lnet.DefaultTunables())
	src := &evRec{k: rf.k}
	// Warm-up: one small PUT sets up the connections and discovery; then record.
	md := rf.c.MDBind(lnet.MDSpec{Length: 8, Threshold: 2, Handler: src})
	if err := rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	rf.run(t, sim.Second)
	*rf.obs.lines = nil
	md = rf.c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := rf.c.Put(lnet.AnyNID, md, lnet.AckReqAck, rf.sNID, testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	rf.run(t, sim.Second)
	if ack := src.last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.Initiator != rf.sNID {
		t.Fatalf("ACK = %+v, want one from the server", ack)
	}
	golden(t, "routed_put", *rf.obs.lines)
}
