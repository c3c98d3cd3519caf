package o2ib

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// TestRoutedPutGet runs LNet routing over o2iblnd: client 10.0.0.1@o2ib, router
// 10.0.0.2@o2ib + 10.0.1.2@o2ib1, server 10.0.1.3@o2ib1, one switch per net. A 1 MiB PUT and
// a 1 MiB GET complete end to end; the GET goes IMMEDIATE on both hops (kiblnd_send's rule
// for msg_routing / msg_target_is_router), the PUT as PUT_REQ/ACK/DONE on each hop, and the
// ACK and REPLY come from the server.
func TestRoutedPutGet(t *testing.T) {
	k := sim.New(1)
	f := ib.New(k, ib.Config{})
	l := New(f)
	var log []string
	obs := &traceObs{k: k, lines: &log}
	l.SetObserver(obs)
	net0, net1 := lnet.MakeNet(lnet.O2IBLND, 0), lnet.MakeNet(lnet.O2IBLND, 1)
	for _, nt := range []lnet.NetID{net0, net1} {
		if err := l.SetParams(nt, DefaultParams()); err != nil {
			t.Fatal(err)
		}
	}
	sws := []*ib.Switch{f.AddSwitch("sw0"), f.AddSwitch("sw1")}
	mkNID := func(r, h int) lnet.NID {
		return lnet.MakeNID(lnet.MakeNet(lnet.O2IBLND, uint16(r)), uint32(10<<24|r<<8|h))
	}
	type spec struct {
		h     int
		rails []int
	}
	var nodes []*lnet.Node
	for _, s := range []spec{{1, []int{0}}, {2, []int{0, 1}}, {3, []int{1}}} {
		n := f.AddNode("n" + string(rune('0'+s.h)))
		for _, r := range s.rails {
			p := n.AddHCA("mlx5_"+string(rune('0'+r)), 1).Port(1)
			f.Connect(p, sws[r], ib.LinkSpec{Rate: ib.EDR, Latency: 100 * sim.Nanosecond})
			p.AddIP(netip.AddrFrom4([4]byte{10, 0, byte(r), byte(s.h)}))
		}
		ln, err := lnet.NewNode(k, n.Name, lnet.DefaultTunables())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.rails {
			if _, err := ln.AddNI(mkNID(r, s.h), l, lnet.NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		nodes = append(nodes, ln)
	}
	c, rt, s := nodes[0], nodes[1], nodes[2]
	rt.SetRouting(true)
	if err := c.AddRoute(net1, mkNID(0, 2), 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRoute(net0, mkNID(1, 2), 1, 0); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
	}
	sink := &evRec{k: k}
	s.MEAttach(lnet.MatchSpec{Portal: testPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		lnet.MDSpec{Length: 1 << 20, Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT | lnet.MD_OP_GET, Handler: sink})
	run := func(d sim.Time) {
		if err := k.RunUntil(k.Now() + d); err != nil {
			t.Fatal(err)
		}
	}
	run(2 * sim.Second) // router checker pings bring the routes up
	if st := c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s", st)
	}
	src := &evRec{k: k}
	obs.posts = nil
	md := c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := c.Put(lnet.AnyNID, md, lnet.AckReqAck, mkNID(1, 3), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	md = c.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := c.Get(lnet.AnyNID, md, mkNID(1, 3), testPortal, 7, 0); err != nil {
		t.Fatal(err)
	}
	run(sim.Second)
	ack, reply := src.last(lnet.EventACK), src.last(lnet.EventREPLY)
	if ack == nil || reply == nil || ack.Status != 0 || reply.Status != 0 || reply.MLength != 1<<20 {
		t.Fatalf("ACK %+v REPLY %+v", ack, reply)
	}
	if ack.Initiator != mkNID(1, 3) || reply.Initiator != mkNID(1, 3) {
		t.Fatalf("ACK from %s, REPLY from %s: want the server", ack.Initiator, reply.Initiator)
	}
	if obs.posts[MsgGET_REQ] != 0 || obs.posts[MsgPUT_REQ] != 4 {
		// PUT_REQ: the PUT on two hops and the 1 MiB REPLY on two hops.
		t.Fatalf("posts %v: want no GET_REQ and 4 PUT_REQ", obs.posts)
	}
	// Forwarded: the client's discovery ping of the server and its REPLY, PUT, ACK, GET, REPLY.
	if st := rt.Stats(); st.RouteCount != 6 || st.ResendCount != 0 {
		t.Fatalf("router route_count %d resend_count %d", st.RouteCount, st.ResendCount)
	}
}
