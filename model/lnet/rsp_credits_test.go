package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// An ACK that never comes: after transaction_timeout (checked every transaction_timeout/2) the
// MD is unlinked with -ETIMEDOUT, response_timeout_count counts it, and the next hop the PUT
// went to is charged; the other peer NI is not.
func TestResponseTimeoutChargesNextHop(t *testing.T) {
	p := newPair(t, 1, 2, DefaultTunables(), NetTunables{})
	for i := 0; i < 2; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	p.lnd.AddRule(IdealRule{Types: MaskACK, Count: -1, Verdict: IdealVerdict{Action: IdealDrop}})
	p.ta.attempts = nil
	p.src.evs = nil
	start := p.k.Now()
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	hop := p.ta.attempts[0].dst
	if ev := p.src.last(EventSEND); ev == nil || ev.Status != 0 {
		t.Fatalf("PUT itself should complete: %+v", ev)
	}
	p.run(t, 140*sim.Second)
	if p.a.Stats().ResponseTimeoutCount != 0 {
		t.Fatal("expired before transaction_timeout")
	}
	p.run(t, 100*sim.Second)
	ev := p.src.last(EventUNLINK)
	if ev == nil || ev.Status != 0 || !ev.Unlinked || !ev.RspTimeout {
		t.Fatalf("UNLINK event %+v", ev)
	}
	// Expiry happens at the first check at or after start+150 s (checks every 75 s).
	if ev.Time < start+150*sim.Second || ev.Time > start+226*sim.Second {
		t.Fatalf("expired at %v", ev.Time)
	}
	if p.a.Stats().ResponseTimeoutCount != 1 {
		t.Fatalf("response_timeout_count %d", p.a.Stats().ResponseTimeoutCount)
	}
	charged := false
	for _, h := range p.ta.health {
		if h.nid == hop && h.cause == CauseResponseTimeout && h.old-h.new == 100 {
			charged = true
		}
		if h.nid != hop && h.cause == CauseResponseTimeout {
			t.Fatalf("%s charged", h.nid)
		}
	}
	if !charged {
		t.Fatal("next hop not charged")
	}
}

// A response that does arrive cancels the tracker: no timeout later.
func TestResponseTrackerCancelled(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, 400*sim.Second)
	if p.a.Stats().ResponseTimeoutCount != 0 || p.a.Stats().RstAlloc != 0 {
		t.Fatalf("stats %+v", p.a.Stats())
	}
}

// peer_credits=8: the 9th concurrent message to a peer NI queues (credits -1, min -1) and the
// queued messages leave in order as credits return.
func TestPeerCreditsQueue(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{PeerCredits: 8, Credits: 256, PeerTimeout: 180})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	lpni := p.a.PeerNI(nid("10.0.0.2@o2ib"))
	p.ta.attempts = nil
	var ids []uint64
	for i := 0; i < 10; i++ {
		p.put(t, 100)
		ids = append(ids, p.a.nextMsgID)
	}
	if avail, max, min := lpni.TxCredits(); avail != -2 || max != 8 || min != -2 || lpni.TxQueued() != 2 {
		t.Fatalf("credits %d/%d/%d queued %d", avail, max, min, lpni.TxQueued())
	}
	if len(p.ta.attempts) != 8 {
		t.Fatalf("%d handed to the LND, want 8", len(p.ta.attempts))
	}
	p.run(t, sim.Millisecond)
	if len(p.ta.attempts) != 10 {
		t.Fatalf("%d sent", len(p.ta.attempts))
	}
	for i, a := range p.ta.attempts {
		if a.id != ids[i] {
			t.Fatalf("attempt %d is message %d, want %d (FIFO)", i, a.id, ids[i])
		}
	}
	if p.ta.attempts[8].t == p.ta.attempts[7].t {
		t.Fatal("9th message left before a credit returned")
	}
	if avail, _, min := lpni.TxCredits(); avail != 8 || min != -2 {
		t.Fatalf("after: credits %d min %d", avail, min)
	}
	if p.src.count(EventACK) != 11 {
		t.Fatalf("ACKs %d", p.src.count(EventACK))
	}
}

// NI credits: with credits=8 (and peer_credits 8) messages to two peers share the NI's credits.
func TestNICreditsQueue(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{PeerCredits: 8, Credits: 8})
	c, _ := NewNode(p.k, "c", DefaultTunables())
	if _, err := c.AddNI(nid("10.0.0.3@o2ib"), p.lnd, NetTunables{}); err != nil {
		t.Fatal(err)
	}
	_ = c.Startup()
	c.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT})
	putC := func() {
		md := p.a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: p.src})
		if err := p.a.Put(AnyNID, md, AckReqAck, nid("10.0.0.3@o2ib"), testPortal, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	p.put(t, 100)
	putC()
	p.run(t, sim.Millisecond)
	ni := p.a.NIs()[0]
	for i := 0; i < 9; i++ {
		if i%2 == 0 {
			p.put(t, 100)
		} else {
			putC()
		}
	}
	if avail, _, min := ni.TxCredits(); avail != -1 || min != -1 || ni.TxQueued() != 1 {
		t.Fatalf("NI credits %d min %d queued %d", avail, min, ni.TxQueued())
	}
	p.run(t, sim.Millisecond)
	if avail, _, _ := ni.TxCredits(); avail != 8 || p.src.count(EventACK) != 11 {
		t.Fatalf("NI credits %d, ACKs %d", avail, p.src.count(EventACK))
	}
}

// A message queued on credits past its deadline is dropped when it reaches the head
// (NETWORK_TIMEOUT, late: no health change).
func TestQueuedPastDeadlineDropped(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{PeerCredits: 1, Credits: 8})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	hold := 200 * sim.Second
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealDeliver, Delay: hold}})
	p.src.evs = nil
	p.put(t, 100)
	p.put(t, 100)
	p.run(t, 300*sim.Second)
	if n := p.src.count(EventSEND); n != 2 {
		t.Fatalf("%d SEND events", n)
	}
	if ev := p.src.evs; ev[0].Status != -ETIMEDOUT && ev[1].Status != -ETIMEDOUT {
		t.Fatalf("no -ETIMEDOUT drop: %+v", ev)
	}
	if sumNIHealth(p.a) != 1000 || p.a.Stats().DropCount == 0 {
		t.Fatalf("health %d stats %+v", sumNIHealth(p.a), p.a.Stats())
	}
}
