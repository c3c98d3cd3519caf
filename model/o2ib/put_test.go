package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// The golden traces: every o2iblnd message posted, RDMA WRITE, connection step and LNet event,
// from the first send (which connects and runs LNet discovery) to the end.

func TestGoldenSmallPut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.MLength != 1024 {
		t.Fatalf("ACK = %+v", ack)
	}
	if put := c.sink[1].last(lnet.EventPUT); put == nil || put.Status != 0 || put.MLength != 1024 {
		t.Fatalf("PUT = %+v", put)
	}
	if c.obs.posts[MsgIMMEDIATE] != 4 || c.obs.posts[MsgPUT_REQ] != 0 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	golden(t, "small_put", c.log)
}

func TestGoldenLargePut(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.MLength != 1<<20 {
		t.Fatalf("ACK = %+v", ack)
	}
	if c.obs.posts[MsgPUT_REQ] != 1 || c.obs.posts[MsgPUT_ACK] != 1 || c.obs.posts[MsgPUT_DONE] != 1 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	golden(t, "large_put", c.log)
}

func TestGoldenSmallGet(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.get(t, 1, 2, 2048)
	c.run(t, sim.Second)
	if r := c.src[0].last(lnet.EventREPLY); r == nil || r.Status != 0 || r.MLength != 2048 {
		t.Fatalf("REPLY = %+v", r)
	}
	if c.obs.posts[MsgGET_REQ] != 0 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	golden(t, "small_get", c.log)
}

func TestGoldenLargeGet(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.get(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if r := c.src[0].last(lnet.EventREPLY); r == nil || r.Status != 0 || r.MLength != 1<<20 {
		t.Fatalf("REPLY = %+v (%v)", r, c.src[0].evs)
	}
	if s := c.src[0].last(lnet.EventSEND); s == nil || s.Status != 0 {
		t.Fatalf("SEND = %+v", s)
	}
	if g := c.sink[1].last(lnet.EventGET); g == nil || g.Status != 0 {
		t.Fatalf("GET = %+v", g)
	}
	if c.obs.posts[MsgGET_REQ] != 1 || c.obs.posts[MsgGET_DONE] != 1 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	golden(t, "large_get", c.log)
}

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
