package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// A GET that matches nothing is answered GET_DONE(-ENODATA): REMOTE_ERROR at the initiator.
func TestGetNoMatch(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	n := c.nodes[0]
	md := n.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: c.src[0]})
	if err := n.Get(lnet.AnyNID, md, nidOf(2, 0), testPortal+1, 7, 0); err != nil {
		t.Fatal(err)
	}
	c.run(t, sim.Second)
	r := c.done[0].last(lnet.MsgGET)
	if r == nil || r.Status != -lnet.ENODATA || r.HStatus != lnet.LNET_MSG_STATUS_REMOTE_ERROR {
		t.Fatalf("GET record = %+v", r)
	}
}

// A large PUT that matches nothing is NAKed with status 0: the PUT completes at the sender.
func TestPutNak(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	n := c.nodes[0]
	md := n.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: c.src[0]})
	if err := n.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(2, 0), testPortal+1, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	c.run(t, sim.Second)
	if c.obs.posts[MsgPUT_NAK] != 1 || c.obs.posts[MsgPUT_DONE] != 0 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	if s := c.src[0].last(lnet.EventSEND); s == nil || s.Status != 0 {
		t.Fatalf("SEND = %+v", s)
	}
}

// A ping into a buffer too big for an IMMEDIATE GET goes GET_REQ: the target's ping buffer is
// RDMA-written into the sink and the REPLY event carries it when GET_DONE arrives, as a
// parsed REPLY's does (the model used to lose it: discovery of a peer whose ping buffer needs
// more than an IMMEDIATE holds, or any such ping, came back without content).
func TestRDMAPingReplyCarriesBuffer(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	n := c.nodes[0]
	md := n.MDBind(lnet.MDSpec{Length: 8 << 10, Threshold: 2, Handler: c.src[0]})
	if err := n.Get(lnet.AnyNID, md, nidOf(2, 0), lnet.ReservedPortal, lnet.PingMatchBits, 0); err != nil {
		t.Fatal(err)
	}
	c.run(t, sim.Second)
	if c.obs.posts[MsgGET_REQ] != 1 || c.obs.posts[MsgGET_DONE] != 1 {
		t.Fatalf("posts %v, want one GET_REQ and one GET_DONE", c.obs.posts)
	}
	r := c.src[0].last(lnet.EventREPLY)
	if r == nil || r.Status != 0 {
		t.Fatalf("REPLY = %+v", r)
	}
	b, ok := r.Data.(*lnet.PingBuffer)
	if !ok || b != c.nodes[1].PingBuffer() {
		t.Fatalf("REPLY data = %v, want node 2's ping buffer", r.Data)
	}
	if want := 16 + 16*len(b.NIs); r.MLength != want {
		t.Fatalf("REPLY mlength %d, want %d", r.MLength, want)
	}
}
