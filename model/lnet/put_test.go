package lnet

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func TestPutAck(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 4096)
	p.run(t, sim.Second)
	if got := p.src.count(EventSEND); got != 1 {
		t.Fatalf("SEND events = %d, want 1 (%+v)", got, p.src.evs)
	}
	ack := p.src.last(EventACK)
	if ack == nil || ack.Status != 0 || !ack.Unlinked || ack.MLength != 4096 {
		t.Fatalf("ACK event = %+v", ack)
	}
	put := p.sink.last(EventPUT)
	if put == nil || put.Status != 0 || put.MLength != 4096 || p.a.NI(put.Initiator) == nil {
		t.Fatalf("PUT event = %+v", put)
	}
	if !p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer().MultiRail() || len(p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer().NIs()) != 2 {
		t.Fatalf("discovery did not learn B's two NIs")
	}
	st := p.a.Stats()
	// Discovery (lnet_peer_discovery): A sends the ping GET, its push PUT, the ACK of B's push
	// and the PUT; it receives the REPLY, its push's ACK, B's push (B pushes back: lnet_peer_push_event
	// queues A, whose lp_node_seqno on B is 0) and the PUT's ACK. B mirrors it.
	if st.SendCount != 4 || st.RecvCount != 4 || st.MsgsAlloc != 0 {
		t.Fatalf("stats A = %+v", st)
	}
	if st := p.b.Stats(); st.SendCount != 4 || st.RecvCount != 4 || st.MsgsAlloc != 0 {
		t.Fatalf("stats B = %+v", st)
	}
}

func TestGetReply(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	md := p.a.MDBind(MDSpec{Length: 8192, Threshold: 2, Handler: p.src})
	if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Second)
	r := p.src.last(EventREPLY)
	if r == nil || r.Status != 0 || r.MLength != 8192 || !r.Unlinked {
		t.Fatalf("REPLY = %+v (all %+v)", r, p.src.evs)
	}
	if p.src.count(EventSEND) != 1 || p.sink.count(EventGET) != 1 {
		t.Fatalf("events %+v / %+v", p.src.evs, p.sink.evs)
	}
}

// The optimized (RDMA) GET path: the REPLY is pre-created on the initiator and finalized on
// GET_DONE; the target's REPLY is built by LNet and finalized by the LND.
func TestOptimizedGet(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.lnd.OptimizedGET = true
	p.put(t, 10)
	p.run(t, sim.Millisecond)
	md := p.a.MDBind(MDSpec{Length: 1 << 20, Threshold: 2, Handler: p.src})
	if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
	r := p.src.last(EventREPLY)
	if r == nil || r.Status != 0 || r.MLength != 1<<20 || !r.Unlinked || p.src.count(EventSEND) != 2 {
		t.Fatalf("REPLY %+v, events %+v", r, p.src.evs)
	}
	if g := p.sink.last(EventGET); g == nil || g.Status != 0 {
		t.Fatalf("target GET event %+v", g)
	}
	if p.a.Stats().MsgsAlloc != 0 || p.b.Stats().MsgsAlloc != 0 || p.a.Stats().RstAlloc != 0 {
		t.Fatalf("leaked messages/trackers: %+v / %+v", p.a.Stats(), p.b.Stats())
	}
	// No match on the target: GET_DONE(-ENODATA) -> REMOTE_ERROR on the initiator.
	p.src.evs = nil
	md = p.a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: p.src})
	if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal+1, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
	if ev := p.src.last(EventSEND); ev == nil || ev.Status != -ENODATA {
		t.Fatalf("SEND %+v", ev)
	}
	if ev := p.src.last(EventREPLY); ev == nil || ev.Status != -ENODATA || !ev.Unlinked {
		t.Fatalf("REPLY %+v", ev)
	}
	if p.a.Stats().RemoteErrorCount != 1 {
		t.Fatalf("remote_error_count %d", p.a.Stats().RemoteErrorCount)
	}
}

// PUT+ACK and GET to 0@lo go through lolnd: events as usual, no credits, no health effects.
func TestLoopback(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.a.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET, Handler: p.sink})
	md := p.a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: p.src})
	if err := p.a.Put(AnyNID, md, AckReqAck, LoNID, testPortal, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	md = p.a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: p.src})
	if err := p.a.Get(AnyNID, md, LoNID, testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
	if p.src.count(EventSEND) != 2 || p.src.count(EventACK) != 1 || p.src.count(EventREPLY) != 1 ||
		p.sink.count(EventPUT) != 1 || p.sink.count(EventGET) != 1 {
		t.Fatalf("events %+v / %+v", p.src.evs, p.sink.evs)
	}
	if p.lnd.Sends() != 0 || p.a.Stats().MsgsAlloc != 0 || len(p.ta.health) != 0 {
		t.Fatalf("loopback touched the LND (%d) or leaked (%+v) or health %v", p.lnd.Sends(), p.a.Stats(), p.ta.health)
	}
}

// A GET's bytes count as the kernel counts them (lnet_msg_decommit_rx/tx): send_length on the
// target (for the optimized GET, from the LNET_EVENT_GET receive; otherwise from the REPLY's
// send), recv_length on the initiator, nothing else; the per-NI byte counts follow.
func TestGetByteCounters(t *testing.T) {
	for _, optimized := range []bool{false, true} {
		t.Run(fmt.Sprintf("optimized=%v", optimized), func(t *testing.T) {
			p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
			p.lnd.OptimizedGET = optimized
			p.put(t, 10) // discovery first, so that only the GET moves the counters below
			p.run(t, sim.Millisecond)
			a0, b0 := p.a.Stats(), p.b.Stats()
			na0, nb0 := p.a.NIs()[0].Stats(), p.b.NIs()[0].Stats()
			const size = 1 << 20
			md := p.a.MDBind(MDSpec{Length: size, Threshold: 2, Handler: p.src})
			if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal, 1, 0); err != nil {
				t.Fatal(err)
			}
			p.run(t, sim.Millisecond)
			if r := p.src.last(EventREPLY); r == nil || r.Status != 0 || r.MLength != size {
				t.Fatalf("REPLY %+v", r)
			}
			a, b := p.a.Stats(), p.b.Stats()
			na, nb := p.a.NIs()[0].Stats(), p.b.NIs()[0].Stats()
			for _, c := range []struct {
				name      string
				got, want uint64
			}{
				{"target send_length", b.SendLength - b0.SendLength, size},
				{"target recv_length", b.RecvLength - b0.RecvLength, 0},
				{"initiator recv_length", a.RecvLength - a0.RecvLength, size},
				{"initiator send_length", a.SendLength - a0.SendLength, 0},
				{"target NI send bytes", nb.SendLength - nb0.SendLength, size},
				{"target NI recv bytes", nb.RecvLength - nb0.RecvLength, 0},
				{"initiator NI recv bytes", na.RecvLength - na0.RecvLength, size},
				{"initiator recv_count", a.RecvCount - a0.RecvCount, 1},
				// lnet_create_reply_msg gives the optimized GET's REPLY no msg_rxni and no
				// msg_rxpeer: it counts in no NI's or peer NI's message statistics.
				{"initiator NI recv_count", na.RecvCount - na0.RecvCount, map[bool]uint64{false: 1, true: 0}[optimized]},
				{"initiator NI received reply", na.Received.Reply - na0.Received.Reply, map[bool]uint64{false: 1, true: 0}[optimized]},
			} {
				if c.got != c.want {
					t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
				}
			}
		})
	}
}
