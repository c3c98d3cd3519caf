package lnet

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestCPTOfNID: lnet_nid4_cpt_hash of IPv4-type NIDs, the sum of the NID's 8 bytes modulo
// the number of CPTs (10.0.0.1@o2ib: 10+0+0+1 + net number 0 + LND type 5 = 16).
func TestCPTOfNID(t *testing.T) {
	for _, c := range []struct {
		nid   string
		ncpts int
		want  int
	}{
		{"10.0.0.1@o2ib", 1, 0},
		{"10.0.0.1@o2ib", 2, 0},
		{"10.0.0.1@o2ib", 3, 1},
		{"10.0.0.2@o2ib", 2, 1},
		{"10.1.0.2@o2ib1", 4, (10 + 1 + 2 + 1 + 5) % 4},
		{"192.168.1.250@o2ib", 5, (192 + 168 + 1 + 250 + 5) % 5},
		{"10.0.0.1@tcp", 2, (10 + 1 + 2) % 2},
	} {
		tun := DefaultTunables()
		tun.CPTs = c.ncpts
		n, err := NewNode(sim.New(1), "n", tun)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.cptOfNID(nid(c.nid)); got != c.want {
			t.Errorf("%s over %d CPTs: %d, want %d", c.nid, c.ncpts, got, c.want)
		}
	}
	tun := DefaultTunables()
	tun.CPTs = MaxCPTs + 1
	if _, err := NewNode(sim.New(1), "n", tun); err == nil {
		t.Fatal("too many CPTs accepted")
	}
}

// TestRouterPoolsPerCPT: every CPT gets total/ncpts buffers of each pool (at least 1), and a
// routed message takes its buffer in the pools of its receive CPT (the CPT of the previous
// hop's NID): with 2 CPTs and large_router_buffers=4, 2 large buffers per CPT; 8 concurrent
// 1 MiB PUTs from 10.0.0.1 (CPT 0) queue on CPT 0's large pool only (min credits -6) while
// CPT 1's stays untouched, and all complete in order.
func TestRouterPoolsPerCPT(t *testing.T) {
	rtun := DefaultTunables()
	rtun.CPTs = 2
	rtun.TinyRouterBuffers, rtun.SmallRouterBuffers, rtun.LargeRouterBuffers = 3, 0, 4
	r := newRouted(t, 1, DefaultTunables(), rtun)
	rt := r.rs[0]
	want := []RouterPoolShow{{0, 1, 1, 1, 0}, {1, 8192, 8192, 8192, 0}, {256, 2, 2, 2, 0}}
	for c, pools := range rt.RouterPoolsCPT() {
		for i, p := range pools {
			if i == 0 || i == 1 {
				continue // tiny/small carry pings and ACKs: credits move
			}
			if p != want[i] {
				t.Fatalf("before: CPT %d pool %d %+v, want %+v", c, i, p, want[i])
			}
		}
		if pools[0].NBuffers != 1 || pools[1].NBuffers != 8192 {
			t.Fatalf("CPT %d pools %+v", c, pools)
		}
	}
	for i := 0; i < 8; i++ {
		r.put(t, 1<<20, uint64(i))
	}
	r.run(t, sim.Second)
	if a := r.cEv.count(EventACK); a != 8 {
		t.Fatalf("%d ACKs, want 8", a)
	}
	assertPutsInOrder(t, r.sEv)
	pc := rt.RouterPoolsCPT()
	l0, l1 := pc[0][2], pc[1][2]
	if l0.NBuffers != 2 || l0.Credits != 2 || l0.MinCredits != -6 {
		t.Fatalf("CPT 0 large pool %+v: want 2 buffers, all free, min credits -6", l0)
	}
	if l1 != (RouterPoolShow{256, 2, 2, 2, 0}) {
		t.Fatalf("CPT 1 large pool %+v: want untouched", l1)
	}
	if tot := rt.RouterPools()[2]; tot.NBuffers != 4 || tot.MinCredits != -4 {
		t.Fatalf("summed large pool %+v", tot)
	}
}

// The NI's tx queues per CPT get lnet_ni_tq_credits each: the net's credits on one CPT,
// otherwise credits/ncpts raised to 8 x peer_credits and capped at credits.
func TestNITxQueueCredits(t *testing.T) {
	for _, tc := range []struct {
		credits, peer, ncpts, each int
	}{
		{256, 8, 1, 256},
		{256, 8, 2, 128},
		{256, 8, 4, 64},
		{256, 8, 8, 64}, // the floor: 8 CPTs x 64 = 512, more than the net's 256
		{16, 8, 4, 16},  // the floor capped at credits
		{64, 1, 4, 16},
	} {
		tq := newTxQueues(NetTunables{Credits: tc.credits, PeerCredits: tc.peer}, tc.ncpts)
		if len(tq) != tc.ncpts {
			t.Fatalf("%+v: %d queues", tc, len(tq))
		}
		for i, q := range tq {
			if q.credits != tc.each || q.max != tc.each || q.min != tc.each {
				t.Fatalf("%+v: queue %d %+v, want %d credits", tc, i, q, tc.each)
			}
		}
	}
}

// With two CPTs a message takes its NI tx credit from the queue of its tx CPT, the CPT its
// peer NI's NID hashes to: with 8 credits per CPT (credits 16, peer_credits 1), nine peers on
// CPT 1 each sent one PUT leave the ninth waiting on CPT 1 while CPT 0 is untouched, and
// selection sees the sum (ni_tx_credits).
func TestNITxCreditsPerCPT(t *testing.T) {
	k := sim.New(1)
	lnd := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.CPTs = 2
	nt := NetTunables{Credits: 16, PeerCredits: 1}
	a, err := NewNode(k, "a", tun)
	if err != nil {
		t.Fatal(err)
	}
	ni, err := a.AddNI(nid("10.0.0.1@o2ib"), lnd, nt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Startup(); err != nil {
		t.Fatal(err)
	}
	var peers []NID
	for h := 2; len(peers) < 9; h++ {
		p := nid(fmt.Sprintf("10.0.1.%d@o2ib", h))
		if a.cptOfNID(p) != 1 {
			continue
		}
		b, err := NewNode(k, fmt.Sprintf("b%d", h), tun)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.AddNI(p, lnd, nt); err != nil {
			t.Fatal(err)
		}
		if err := b.Startup(); err != nil {
			t.Fatal(err)
		}
		b.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
			MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT})
		peers = append(peers, p)
	}
	// Discovery first, so the PUTs below are the only messages in flight.
	src := &evRec{}
	put := func(p NID) {
		md := a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: src})
		if err := a.Put(AnyNID, md, AckReqAck, p, testPortal, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range peers {
		put(p)
	}
	if err := k.RunUntil(sim.Second); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, a)
	for _, p := range peers {
		put(p)
	}
	q := ni.TxQueues()
	if q[1].Available != -1 || q[1].Queued != 1 || q[0].Available != 8 || q[0].Min != 8 {
		t.Fatalf("per-CPT credits %+v: want CPT 1 at -1 with one queued, CPT 0 untouched at 8", q)
	}
	if avail, mx, _ := ni.TxCredits(); avail != 7 || mx != 16 {
		t.Fatalf("ni_tx_credits %d of %d, want 7 of 16", avail, mx)
	}
	checkInvariants(t, a)
	if err := k.RunUntil(2 * sim.Second); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, a)
	if n := src.count(EventACK); n != 18 {
		t.Fatalf("%d ACKs, want 18", n)
	}
	if q := ni.TxQueues(); q[1].Available != 8 || q[1].Min != -1 || q[1].Queued != 0 {
		t.Fatalf("after: CPT 1 %+v, want 8 available, min -1, none queued", q[1])
	}
}
