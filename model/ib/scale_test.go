package ib

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestManyConnections: 576 clients of a 36-radix fat tree connect to 4 servers at once;
// every connection is established on both sides.
func TestManyConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	k := sim.New(1)
	f := New(k, Config{})
	spec := LinkSpec{Rate: HDR, Latency: 20}
	nodes, err := f.BuildFatTree(FatTree{Radix: 36, Oversubscription: 1, Leaves: 32, Host: spec, Spine: spec}, "n", netip.MustParseAddr("10.1.0.1"))
	must(t, err)
	servers, clients := nodes[:4], nodes[4:]
	var peers []*cmPeer
	for _, s := range servers {
		p := newCMPeer(k, s)
		lis := s.CreateID(p.r)
		must(t, lis.BindAddr(netip.AddrPortFrom(netip.IPv4Unspecified(), svc)))
		must(t, lis.Listen(1024))
		peers = append(peers, p)
	}
	var cps []*cmPeer
	for i, c := range clients {
		p := newCMPeer(k, c)
		p.param = ConnParam{RetryCount: 5, RNRRetryCount: 6}
		p.connect(t, servers[i%4].HCAs()[0].Port(1).IPs()[0])
		cps = append(cps, p)
	}
	run(t, k)
	for _, p := range cps {
		if got := p.r.cmTypes(); len(got) != 3 || got[2] != CMEstablished {
			t.Fatalf("%s: %v", p.n, got)
		}
	}
	est := 0
	for _, p := range peers {
		for _, ev := range p.r.cm {
			if ev.Type == CMEstablished {
				est++
			}
		}
	}
	if est != len(clients) {
		t.Fatalf("%d passive ESTABLISHED for %d clients", est, len(clients))
	}
}
