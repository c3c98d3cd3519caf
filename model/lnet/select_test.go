package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// selNode builds a started node with NIs on o2ib0 (two) and o2ib1 (two), and a discovered MR
// peer with two NIs on each net, without any traffic.
func selNode(t *testing.T) (*Node, *Peer) {
	t.Helper()
	k := sim.New(1)
	lnd := NewIdealLND(k, sim.Microsecond)
	n, err := NewNode(k, "n", DefaultTunables())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib", "10.1.0.1@o2ib1", "10.1.1.1@o2ib1"} {
		if _, err := n.AddNI(nid(s), lnd, NetTunables{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Startup(); err != nil {
		t.Fatal(err)
	}
	p, err := n.AddPeer(nid("10.0.0.2@o2ib"), []NID{nid("10.0.1.2@o2ib"), nid("10.1.0.2@o2ib1"), nid("10.1.1.2@o2ib1")}, false)
	if err != nil {
		t.Fatal(err)
	}
	return n, p
}

// Each case changes one key in favour of the second candidate, all earlier keys equal; the
// second must win. Then a case where an earlier key favours the first while the later favours
// the second proves the order.
func TestBestNITieBreakers(t *testing.T) {
	cases := []struct {
		name string
		set  func(a, b *NI)
		want int
	}{
		{"all equal keeps first", func(a, b *NI) {}, 0},
		{"fatal loses", func(a, b *NI) { a.fatal = true; a.health = 1000; b.health = 100 }, 1},
		{"health", func(a, b *NI) { a.health = 900 }, 1},
		{"priority", func(a, b *NI) { a.SelPriority = 5; b.SelPriority = 1 }, 1},
		{"numa", func(a, b *NI) { a.NUMADist = 20; b.NUMADist = 10 }, 1},
		{"numa below range is equal", func(a, b *NI) { a.NUMADist = 5; b.NUMADist = 1; a.txCredits = 10; b.txCredits = 9 }, 0},
		{"credits", func(a, b *NI) { a.txCredits = 100 }, 1},
		{"sequence", func(a, b *NI) { a.seq = 7; b.seq = 3 }, 1},
		{"health beats credits", func(a, b *NI) { b.health = 900; a.txCredits = 1 }, 0},
		{"priority beats numa", func(a, b *NI) { b.SelPriority = 9; a.SelPriority = 1; a.NUMADist = 50 }, 0},
		{"credits beat sequence", func(a, b *NI) { a.seq = 9; b.seq = 1; b.txCredits = 1 }, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, _ := selNode(t)
			n.tun.NUMARange = 10
			net := n.nets[0]
			a, b := net.nis[0], net.nis[1]
			c.set(a, b)
			if got := n.bestNI(net); got != net.nis[c.want] {
				t.Fatalf("best NI = %s, want %s", got.nid, net.nis[c.want].nid)
			}
		})
	}
}

func TestSelectPeerNITieBreakers(t *testing.T) {
	cases := []struct {
		name string
		set  func(a, b *PeerNI, ni *NI)
		want int
	}{
		{"all equal keeps first", func(a, b *PeerNI, ni *NI) {}, 0},
		{"health", func(a, b *PeerNI, ni *NI) { a.health = 500 }, 1},
		{"priority", func(a, b *PeerNI, ni *NI) { a.SelPriority = 3; b.SelPriority = 2 }, 1},
		{"preferred", func(a, b *PeerNI, ni *NI) { b.prefNIDs = []NID{ni.nid}; a.txCredits = 100 }, 1},
		{"credits", func(a, b *PeerNI, ni *NI) { b.txCredits = 100 }, 1},
		{"sequence", func(a, b *PeerNI, ni *NI) { a.seq = 2; b.seq = 1 }, 1},
		{"health beats preferred", func(a, b *PeerNI, ni *NI) { b.prefNIDs = []NID{ni.nid}; b.health = 900 }, 0},
		{"preferred beats credits", func(a, b *PeerNI, ni *NI) { a.prefNIDs = []NID{ni.nid}; b.txCredits = 99 }, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, p := selNode(t)
			lpn := p.nets[0]
			ni := n.nets[0].nis[0]
			c.set(lpn.nis[0], lpn.nis[1], ni)
			if got := n.selectPeerNI(ni, lpn); got != lpn.nis[c.want] {
				t.Fatalf("best peer NI = %s, want %s", got.nid, lpn.nis[c.want].nid)
			}
		})
	}
}

func TestBestLocalNetTieBreakers(t *testing.T) {
	cases := []struct {
		name string
		set  func(n *Node, p *Peer)
		want int
	}{
		{"all equal keeps first", func(n *Node, p *Peer) {}, 0},
		{"peer net health", func(n *Node, p *Peer) {
			n.setPeerHealth(p.nets[0].nis[0], 500, CauseManual)
			n.setPeerHealth(p.nets[0].nis[1], 400, CauseManual)
		}, 1},
		{"peer net priority", func(n *Node, p *Peer) { p.nets[0].SelPriority = 2; p.nets[1].SelPriority = 1 }, 1},
		{"local net health", func(n *Node, p *Peer) { n.nets[0].nis[0].health = 100; n.nets[0].nis[1].health = 200 }, 1},
		{"local net health ignores fatal NIs", func(n *Node, p *Peer) {
			n.nets[0].nis[0].health = 100
			n.nets[1].nis[0].health = 100
			n.nets[1].nis[1].health = 150
			n.nets[0].nis[1].fatal = true
		}, 1},
		{"local net priority", func(n *Node, p *Peer) { n.nets[0].SelPriority = 9; n.nets[1].SelPriority = 0 }, 1},
		{"peer net sequence", func(n *Node, p *Peer) { p.nets[0].seq = 5; p.nets[1].seq = 4; n.nets[1].seq = 99 }, 1},
		{"net sequence", func(n *Node, p *Peer) { n.nets[0].seq = 5; n.nets[1].seq = 4 }, 1},
		{"peer net health beats local net health", func(n *Node, p *Peer) {
			n.setPeerHealth(p.nets[1].nis[0], 0, CauseManual)
			n.setPeerHealth(p.nets[1].nis[1], 0, CauseManual)
			n.nets[0].nis[0].health = 0
			n.nets[0].nis[1].health = 0
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, p := selNode(t)
			c.set(n, p)
			lpn, net := n.bestLocalNet(p)
			if lpn != p.nets[c.want] || net.ID != lpn.id {
				t.Fatalf("best net = %s, want %s", lpn.id, p.nets[c.want].id)
			}
		})
	}
}

// With everything equal, consecutive sends rotate over nets, NIs and peer NIs (sequence
// numbers updated on every send).
func TestRoundRobin(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.ta.attempts = nil
	for i := 0; i < 4; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	var pairs []string
	for _, a := range p.ta.attempts {
		pairs = append(pairs, a.ni.String()+">"+a.dst.String())
	}
	// PUTs only (ACKs are received): two different local NIs and peer NIs alternate.
	if len(pairs) != 4 || pairs[0] == pairs[1] || pairs[0] != pairs[2] || pairs[1] != pairs[3] {
		t.Fatalf("send pattern %v does not alternate", pairs)
	}
	if p.ta.attempts[0].ni == p.ta.attempts[1].ni || p.ta.attempts[0].dst == p.ta.attempts[1].dst {
		t.Fatalf("send pattern %v reuses an NI", pairs)
	}
}

// Source-specified sends keep the given source NI and destination NID.
func TestSourceSpecified(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.ta.attempts = nil
	for i := 0; i < 3; i++ {
		md := p.a.MDBind(MDSpec{Length: 10, Threshold: 2, Handler: p.src})
		if err := p.a.Put(nid("10.0.1.1@o2ib"), md, AckReqAck, nid("10.0.1.2@o2ib"), testPortal, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
		p.run(t, sim.Millisecond)
	}
	for _, a := range p.ta.attempts {
		if a.ni != nid("10.0.1.1@o2ib") || a.dst != nid("10.0.1.2@o2ib") {
			t.Fatalf("source-specified send went %s -> %s", a.ni, a.dst)
		}
	}
}

// A non-MR peer (discovery off) is always reached from the NI first used for it (its
// preferred NID), and never through its other NIDs.
func TestNonMRPreferredNI(t *testing.T) {
	tun := DefaultTunables()
	tun.Discovery = false
	p := newPair(t, 2, 2, tun, NetTunables{})
	for i := 0; i < 4; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	if len(p.ta.attempts) != 4 {
		t.Fatalf("%d attempts", len(p.ta.attempts))
	}
	for _, a := range p.ta.attempts {
		if a.ni != p.ta.attempts[0].ni || a.dst != nid("10.0.0.2@o2ib") {
			t.Fatalf("NMR peer reached %s -> %s, first was %s", a.ni, a.dst, p.ta.attempts[0].ni)
		}
	}
	if p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer().MultiRail() {
		t.Fatal("peer became MR without discovery")
	}
	// The same peer turns MR when configured so: its non-MR preference is dropped and traffic
	// spreads over both local NIs.
	if _, err := p.a.AddPeer(nid("10.0.0.2@o2ib"), []NID{nid("10.0.1.2@o2ib")}, false); err != nil {
		t.Fatal(err)
	}
	p.ta.attempts = nil
	for i := 0; i < 4; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	if p.ta.attempts[0].ni == p.ta.attempts[1].ni {
		t.Fatalf("MR peer still pinned to %s", p.ta.attempts[0].ni)
	}
}
