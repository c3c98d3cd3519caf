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
